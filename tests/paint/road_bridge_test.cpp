// Roads and bridges in the painter (issue 17): layout groups keep earlier tiles where they were,
// bridge terrains parse (bad values give path:line:col), pick their deck from 4 neighbours, and
// their tiles are built as described (ends differ from the middle only at their side; north-south
// tiles are the east-west ones turned); the place sprites of the overworld are in its sheet.
#include <doctest/doctest.h>

#include <string>

#include "paint/description.hpp"
#include "paint/paint_support.hpp"
#include "paint/painter.hpp"
#include "paint/sprites.hpp"

using namespace tilegen;
using namespace tilegen::paint;
namespace tp = tilegen::test::paint;

namespace {

std::string terrain(const std::string& name, const std::string& symbol, int height,
                    const std::string& extra = "") {
    return "[[terrain]]\nname = \"" + name + "\"\nsymbol = \"" + symbol +
           "\"\nheight = " + std::to_string(height) +
           "\nstyle = \"grain\"\npalette = [\"#000000\", \"#808080\", \"#ffffff\"]\n" + extra;
}

std::string bridge(int height, const std::string& spans = "[\"water\"]",
                   const std::string& extra = "") {
    return "[[terrain]]\nname = \"bridge\"\nsymbol = \"H\"\nheight = " + std::to_string(height) +
           "\nbridge = " + spans + "\npalette = [\"#201008\", \"#805030\", \"#c09060\"]\n" + extra;
}

std::pair<int, int> position_of(const std::string& text, const std::string& needle,
                                std::size_t from = 0) {
    const std::size_t at = text.find(needle, from);
    REQUIRE(at != std::string::npos);
    int line = 1, column = 1;
    for (std::size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else
            ++column;
    }
    return {line, column};
}

} // namespace

TEST_CASE("paint: group defaults (0, 1 for overlays) and bridges parse") {
    const std::string text = terrain("water", "w", 0) +
                             terrain("river", "~", 1, "draws_as = \"water\"\n") +
                             terrain("grass", "g", 2) + terrain("road", "+", 3, "group = 2\n") +
                             bridge(4, "[\"water\", \"river\"]", "group = 2\n");
    Diagnostics diags;
    const auto d = parse_description(text, "d.toml", diags);
    REQUIRE(d);
    CHECK(d->terrains[0].group == 0);
    CHECK(d->terrains[1].group == 1);
    CHECK(d->terrains[2].group == 0);
    CHECK(d->terrains[3].group == 2);
    CHECK(d->terrains[4].bridge == std::vector<int>{0, 1});
    CHECK(d->terrains[3].bridge.empty());
    // The tiles: the bridge's 8 tiles after everything of groups 0 and 1, on a fresh row.
    const PaintedTileset ts = paint_tileset(*d);
    std::vector<std::string> names;
    for (const auto& n : ts.names)
        if (!n.empty()) names.push_back(n);
    const std::vector<std::string> tail(names.end() - 8, names.end());
    CHECK(tail == std::vector<std::string>{"bridge-ew", "bridge-ew-w", "bridge-ew-e",
                                           "bridge-ew-w-e", "bridge-ns", "bridge-ns-n",
                                           "bridge-ns-s", "bridge-ns-n-s"});
    const auto road = std::find(ts.names.begin(), ts.names.end(), "road");
    const auto river = std::find(ts.names.begin(), ts.names.end(), "river");
    REQUIRE(road != ts.names.end());
    REQUIRE(river != ts.names.end());
    CHECK((road - ts.names.begin()) % ts.columns == 0); // group 2 starts a row
    CHECK((river - ts.names.begin()) % ts.columns == 0);
    CHECK(river < road);
}

TEST_CASE("paint: bad group and bridge values: message and line:column") {
    struct Bad {
        std::string text;
        std::string at;
        std::string after;
        const char* message;
    };
    const std::string w = terrain("water", "w", 0), g = terrain("grass", "g", 2);
    const Bad cases[] = {
        {w + terrain("grass", "g", 2, "group = 9\n"), "9\n", "group", "'terrain.group'"},
        {w + terrain("grass", "g", 2, "group = -1\n"), "-1\n", "group", "'terrain.group'"},
        {w + g + bridge(5, "\"water\""), "\"water\"", "bridge =", "'bridge' must be an array"},
        {w + g + bridge(5, "[]"), "[]", "bridge =", "'bridge' must be an array"},
        {w + g + bridge(5, "[\"mud\"]"), "\"mud\"", "bridge =", "each entry must name another"},
        {w + g + bridge(5, "[\"water\", \"water\"]"), "\"water\"]",
         "bridge =", "each entry must name another"},
        {w + g + bridge(5, "[\"bridge\"]"), "\"bridge\"]",
         "bridge =", "each entry must name another"},
        {w + g + bridge(1), "1\n", "name = \"bridge\"", "a bridge must be the highest terrain"},
        {w + g + bridge(5, "[\"water\"]", "draws_as = \"water\"\n"), "[\"water\"]",
         "bridge =", "a bridge cannot have 'draws_as'"},
        {w + g + bridge(5) + "[[pair]]\nupper = \"bridge\"\nlower = \"water\"\n", "\"bridge\"",
         "upper =", "has no pairs"},
        {w + terrain("grass", "g", 2, "ruts = true\n"), "true", "ruts", "'ruts' needs a [[pair]]"},
        {w + terrain("grass", "g", 2, "ruts = 1\n"), "1\n", "ruts", "'terrain.ruts' must be"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics diags;
        CHECK_FALSE(parse_description(b.text, "d.toml", diags));
        REQUIRE(diags.size() >= 1);
        const auto [line, column] =
            position_of(b.text, b.at, b.after.empty() ? 0 : b.text.find(b.after));
        CHECK(diags[0].file == "d.toml");
        CHECK_MESSAGE(diags[0].message.find(b.message) != std::string::npos,
                      format_diagnostic(diags[0]));
        CHECK(diags[0].line == line);
        CHECK(diags[0].column == column);
    }
}

TEST_CASE("paint: a bridge cell's deck from its 4 neighbours") {
    const int W = 0, B = 1, L = 2; // water, bridge, land
    Terrain bridge;
    bridge.name = "bridge";
    const auto tiles = bridge_tiles(bridge);
    auto tile = [&](int n, int e, int s, int w) {
        return tiles[static_cast<std::size_t>(bridge_tile_for(n, e, s, w))].name;
    };
    // A one-cell bridge over a river running north-south: land east and west.
    CHECK(tile(W, L, W, L) == "bridge-ew-w-e");
    // Over a river running east-west: land north and south.
    CHECK(tile(L, W, L, W) == "bridge-ns-n-s");
    // A span: its west end, middle and east end.
    CHECK(tile(W, B, W, L) == "bridge-ew-w");
    CHECK(tile(W, B, W, B) == "bridge-ew");
    CHECK(tile(W, L, W, B) == "bridge-ew-e");
    CHECK(tile(L, W, B, W) == "bridge-ns-n");
    CHECK(tile(B, W, B, W) == "bridge-ns");
    CHECK(tile(B, W, L, W) == "bridge-ns-s");
    // A bridge along a shore (land north): still the span east-west.
    CHECK(tile(L, B, W, B) == "bridge-ew");
    // Ties follow the neighbouring bridge cells; all water or all land: east-west.
    CHECK(tile(B, W, W, W) == "bridge-ns");
    CHECK(tile(W, W, W, W) == "bridge-ew");
    CHECK(tile(L, L, L, L) == "bridge-ew-w-e");
    // Turning the neighbourhood a quarter turn swaps the axes wherever there is no tie.
    for (int n = 0; n < 3; ++n)
        for (int e = 0; e < 3; ++e)
            for (int s = 0; s < 3; ++s)
                for (int w = 0; w < 3; ++w) {
                    const int open_ew = (e != W) + (w != W), open_ns = (n != W) + (s != W);
                    if (open_ew == open_ns) continue;
                    const int a = bridge_tile_for(n, e, s, w);
                    const int b = bridge_tile_for(w, n, e, s); // turned clockwise
                    CHECK((a < 4) != (b < 4));
                }
}

TEST_CASE("paint: bridge tiles: ends change only their side, north-south is east-west turned") {
    const Description& d = tp::description("overworld");
    int index = -1;
    for (std::size_t i = 0; i < d.terrains.size(); ++i)
        if (!d.terrains[i].bridge.empty()) index = static_cast<int>(i);
    REQUIRE(index >= 0);
    const auto tiles = bridge_tiles(d.terrains[static_cast<std::size_t>(index)]);
    std::vector<Image> img;
    for (const BridgeTile& t : tiles)
        img.push_back(paint_bridge(d, index, t));
    const int n = d.tile_size;
    auto differing_columns = [&](const Image& a, const Image& b) {
        std::vector<int> cols;
        for (int x = 0; x < n; ++x)
            for (int y = 0; y < n; ++y)
                if (a.get(x, y) != b.get(x, y)) {
                    cols.push_back(x);
                    break;
                }
        return cols;
    };
    // West end: only the 3 west columns differ from the middle; east end likewise.
    for (int x : differing_columns(img[0], img[1]))
        CHECK(x < 3);
    for (int x : differing_columns(img[0], img[2]))
        CHECK(x >= n - 3);
    CHECK_FALSE(differing_columns(img[0], img[1]).empty());
    // Both ends: the west end's west columns, the east end's east columns.
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            CHECK(img[3].get(x, y) == (x < n / 2 ? img[1] : img[2]).get(x, y));
    for (int k = 0; k < 4; ++k)
        CHECK(img[static_cast<std::size_t>(4 + k)] == turn_image(img[static_cast<std::size_t>(k)]));
    // Opaque everywhere (it covers the water under it).
    for (const Image& i : img)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                CHECK(i.get(x, y).a == 255);
}

TEST_CASE("paint: the overworld's objects sheet has the place sprites") {
    const Description& d = tp::description("overworld");
    for (const char* name : {"town", "village", "dungeon", "start"}) {
        CAPTURE(name);
        const auto it = std::find_if(d.sprites.begin(), d.sprites.end(),
                                     [&](const Sprite& s) { return s.name == name; });
        REQUIRE(it != d.sprites.end());
        const Image cell = paint_sprite(d, *it);
        // Standing on the bottom row of its footprint, as tall as a tile or more.
        int top = cell.height(), bottom_opaque = 0;
        for (int y = 0; y < cell.height(); ++y)
            for (int x = 0; x < cell.width(); ++x)
                if (cell.get(x, y).a == 255) top = std::min(top, y);
        for (int x = 0; x < cell.width(); ++x)
            bottom_opaque +=
                cell.get(x, cell.height() - 1).a == 255 || cell.get(x, cell.height() - 2).a == 255
                    ? 1
                    : 0;
        CHECK(bottom_opaque >= it->footprint_w * d.tile_size / 2);
        CHECK(cell.height() - top >= d.tile_size);
    }
    // The town is the largest place.
    const auto town = std::find_if(d.sprites.begin(), d.sprites.end(),
                                   [](const Sprite& s) { return s.name == "town"; });
    CHECK(town->footprint_w * town->footprint_h >= 4);
}

TEST_CASE("paint: rut tiles are the base texture with two ruts along the run") {
    const Description& d = tp::description("overworld");
    int road = -1;
    for (std::size_t i = 0; i < d.terrains.size(); ++i)
        if (d.terrains[i].ruts) road = static_cast<int>(i);
    REQUIRE(road >= 0);
    const int n = d.tile_size;
    const Image base = paint_base(d, road);
    const Image ns = paint_ruts(d, road, true), ew = paint_ruts(d, road, false);
    auto in_rut = [&](int across) {
        return across == n / 4 || across == n / 4 + 1 || across == n - n / 4 - 1 ||
               across == n - n / 4;
    };
    int rut_pixels = 0;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            if (!in_rut(x)) CHECK(ns.get(x, y) == base.get(x, y));
            if (!in_rut(y)) CHECK(ew.get(x, y) == base.get(x, y));
            rut_pixels += ns.get(x, y) != base.get(x, y) ? 1 : 0;
        }
    CHECK(rut_pixels >= n); // the ruts run the whole length
    // The groove is never lighter than the base shade: it reads as a track.
    for (int y = 0; y < n; ++y)
        CHECK(ns.get(n / 4, y) != d.terrains[static_cast<std::size_t>(road)].palette.back());
}
