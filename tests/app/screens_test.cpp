// [screens] size = [W, H]: a Tiled world of screen maps (io/screens_writer.hpp) and the screen
// graph (core/quality/screen_graph.hpp). The world is read back here from the files (the .world
// JSON, each screen TMX's CSV layers and objects) and laid over the whole map's TMX.
#include <doctest/doctest.h>

#include <tinyxml2.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/quality/screen_graph.hpp"
#include "io/png.hpp"
#include "json_reader.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

namespace {

// The roads test recipe (places, roads, walkable_regions = 1) with screens of 16 x 11 cells
// (96 x 64 cells: 6 x 6 screens, the last row 9 cells high).
fs::path screens_recipe(const TempDir& dir) {
    const fs::path src = source_dir() / "tests" / "data" / "roads";
    std::string text = read_text(src / "roads.toml");
    const std::string from = "\"../../../tilesets/",
                      to = "\"" + (source_dir() / "tilesets").generic_string() + "/";
    int replaced = 0;
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at), ++replaced)
        text.replace(at, from.size(), to);
    REQUIRE(replaced > 0);
    text += "\n[screens]\nsize = [16, 11]\n";
    write_text(dir / "roads.toml", text);
    fs::copy_file(src / "roads.rules", dir / "roads.rules");
    return dir / "roads.toml";
}

struct TmxRead {
    int width = 0, height = 0;
    std::map<std::string, std::vector<std::uint32_t>> layers;
    std::vector<std::tuple<std::string, std::uint32_t, int, int>> objects; // layer, gid, x, y
};

TmxRead read_tmx(const fs::path& path) {
    tinyxml2::XMLDocument doc;
    REQUIRE(doc.LoadFile(path.string().c_str()) == tinyxml2::XML_SUCCESS);
    const auto* map = doc.FirstChildElement("map");
    TmxRead out;
    out.width = map->IntAttribute("width");
    out.height = map->IntAttribute("height");
    for (const auto* l = map->FirstChildElement("layer"); l; l = l->NextSiblingElement("layer")) {
        std::vector<std::uint32_t> gids;
        std::stringstream in(l->FirstChildElement("data")->GetText());
        std::string item;
        while (std::getline(in, item, ','))
            gids.push_back(static_cast<std::uint32_t>(std::stoul(item)));
        out.layers[l->Attribute("name")] = gids;
    }
    for (const auto* g = map->FirstChildElement("objectgroup"); g;
         g = g->NextSiblingElement("objectgroup"))
        for (const auto* o = g->FirstChildElement("object"); o; o = o->NextSiblingElement("object"))
            out.objects.emplace_back(g->Attribute("name"), o->UnsignedAttribute("gid"),
                                     static_cast<int>(o->DoubleAttribute("x")),
                                     static_cast<int>(o->DoubleAttribute("y")));
    return out;
}

} // namespace

TEST_CASE("screens: the world's maps at their offsets are the whole map, objects included") {
    TempDir dir;
    const fs::path recipe = screens_recipe(dir);
    const auto r = run_tilegen("generate " + shell_quote(recipe.string()) + " --json -o " +
                               shell_quote((dir / "m.tmx").string()));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Json json = JsonReader::parse(r.out);
    CHECK(json["screens"]["columns"].num == 6);
    CHECK(json["screens"]["rows"].num == 6);
    const TmxRead whole = read_tmx(dir / "m.tmx");
    const Json world = JsonReader::parse(read_text(dir / "m.world"));
    CHECK(world["type"].str == "world");
    REQUIRE(world["maps"].items.size() == 36);
    std::map<std::string, std::vector<std::uint32_t>> laid; // the screens laid over an empty map
    for (const auto& [name, gids] : whole.layers)
        laid[name].assign(gids.size(), 0xFFFFFFFFu);
    std::vector<std::tuple<std::string, std::uint32_t, int, int>> objects;
    for (const Json& m : world["maps"].items) {
        const TmxRead s = read_tmx(dir / m["fileName"].str);
        const int ox = static_cast<int>(m["x"].num), oy = static_cast<int>(m["y"].num);
        CHECK(m["width"].num == s.width * 16);
        CHECK(m["height"].num == s.height * 16);
        REQUIRE(s.layers.size() == whole.layers.size());
        for (const auto& [name, gids] : s.layers)
            for (int y = 0; y < s.height; ++y)
                for (int x = 0; x < s.width; ++x) {
                    const auto at =
                        static_cast<std::size_t>((oy / 16 + y) * whole.width + ox / 16 + x);
                    CHECK(laid[name][at] == 0xFFFFFFFFu); // no cell is in two screens
                    laid[name][at] = gids[static_cast<std::size_t>(y * s.width + x)];
                }
        for (const auto& [layer, gid, x, y] : s.objects)
            objects.emplace_back(layer, gid, x + ox, y + oy);
    }
    CHECK(laid == whole.layers);
    auto expected = whole.objects;
    CHECK(!expected.empty());
    std::sort(expected.begin(), expected.end());
    std::sort(objects.begin(), objects.end());
    CHECK(objects == expected);

    // Tiled renders the world's tile layers as it renders the whole map's, pixel for pixel. (With
    // the sprites, 7 pixels differ at seed 7, measured by hand: where a sprite of one screen
    // overlaps one of the next screen to the right, Tiled draws them by screen, not by y. The
    // whole map against tilegen's PNG: tiled_interop_test.)
    if (!have_program("tmxrasterizer")) return;
    auto differing = [&](const std::string& flags) {
        for (const char* f : {"m.world", "m.tmx"}) {
            const auto raster = run("QT_QPA_PLATFORM=offscreen tmxrasterizer " + flags + " " +
                                    shell_quote((dir / f).string()) + " " +
                                    shell_quote((dir / (std::string(f) + ".png")).string()));
            INFO(raster.err);
            REQUIRE(raster.exit_code == 0);
        }
        Diagnostics d;
        const auto world_png = io::load_image(dir / "m.world.png", d);
        const auto map_png = io::load_image(dir / "m.tmx.png", d);
        REQUIRE(world_png);
        REQUIRE(map_png);
        REQUIRE(world_png->width() == map_png->width());
        REQUIRE(world_png->height() == map_png->height());
        long n = 0;
        for (int y = 0; y < map_png->height(); ++y)
            for (int x = 0; x < map_png->width(); ++x) {
                const Rgba p = world_png->get(x, y), q = map_png->get(x, y);
                if (!(p.a == 0 && q.a == 0) && !(p == q)) ++n;
            }
        return n;
    };
    CHECK(differing("--hide-layer objects --hide-layer places") == 0);
}

TEST_CASE("screens: with walkable_regions = 1 every screen of the walkable land has an exit and "
          "the screen graph is connected") {
    TempDir dir;
    const fs::path recipe = screens_recipe(dir);
    for (int seed : {1, 2, 3}) {
        CAPTURE(seed);
        const auto r = run_tilegen("generate " + shell_quote(recipe.string()) + " --json --seed " +
                                   std::to_string(seed) + " -o " +
                                   shell_quote((dir / "m.tmx").string()) + " --png none");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const Json json = JsonReader::parse(r.out);
        CHECK(json["screens"]["connected"].b);
        CHECK(json["screens"]["with_walkable_region"].num > 1);
    }
}

TEST_CASE("screen_graph: exits, regions and connectivity on a hand-made map") {
    // 8 x 4 cells, screens of 4 x 2: 2 x 2 screens. '.' walkable, '#' blocker.
    const char* rows[] = {
        "....#...", // top-left screen: land joined to the bottom-left screen at column 0
        "....#...", // top-right screen: land cut off from the left by the wall at x = 4
        "..##....", // bottom-left / bottom-right: joined at row 3 (x = 3 | x = 4)
        "........",
    };
    ClassGrid g(8, 4);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 8; ++x)
            g(x, y) = rows[y][x] == '#' ? 1 : 0;
    const ScreenGraph s = screen_graph(g, {true, false}, 4, 2);
    REQUIRE(s.screens.size() == 4);
    CHECK(s.columns == 2);
    CHECK(s.rows == 2);
    CHECK(s.with_region == 4);
    // top-left (0): down to 2 (column 0), right to 1? x = 3 | 4 in rows 0-1: x = 4 is wall: no.
    CHECK(s.screens[0].exits == std::vector<int>{2});
    // top-right (1): down to 3 (columns 5..7).
    CHECK(s.screens[1].exits == std::vector<int>{3});
    CHECK(s.screens[2].exits == std::vector<int>{0, 3});
    CHECK(s.connected);
    // Wall off row 3 between the bottom screens: two components.
    g(3, 3) = 1;
    g(2, 3) = 1;
    const ScreenGraph t = screen_graph(g, {true, false}, 4, 2);
    // The largest region is now the right one (14 cells against 12): the left screens hold none.
    CHECK(t.with_region == 2);
    CHECK(t.connected);
    // A single land cell region split over screens by blockers is still connected through exits.
    ClassGrid h(4, 4, 1);
    for (int y = 0; y < 4; ++y)
        h(1, y) = 0; // a column of land crossing two screens of 4 x 2
    const ScreenGraph u = screen_graph(h, {true, false}, 4, 2);
    CHECK(u.with_region == 2);
    CHECK(u.screens[0].exits == std::vector<int>{1});
    CHECK(u.connected);
}

TEST_CASE("screens: a bad [screens] size is refused at its place, and nothing is written") {
    for (const char* bad :
         {"size = [0, 11]", "size = [16]", "size = 16", "size = [16, 70000]", "width = 16"}) {
        CAPTURE(bad);
        TempDir dir;
        const fs::path recipe = screens_recipe(dir);
        std::string text = read_text(recipe);
        text.replace(text.find("size = [16, 11]"), 15, bad);
        write_text(recipe, text);
        fs::create_directories(dir / "out");
        const auto r = run_tilegen("generate " + shell_quote(recipe.string()) + " -o " +
                                   shell_quote((dir / "out" / "m.tmx").string()));
        CHECK(r.exit_code == 1);
        CHECK(r.err.find(recipe.string() + ":") == 0);
        CHECK(r.err.find(": error: ") != std::string::npos);
        CHECK(fs::directory_iterator(dir / "out") == fs::directory_iterator{});
    }
}

TEST_CASE("screens: -o X.ldtk writes the screens as GridVania levels (no .world), --infinite and "
          ".tscn refuse [screens]") {
    TempDir dir;
    const fs::path recipe = screens_recipe(dir);
    const fs::path out = dir / "w.ldtk";
    const auto r = run_tilegen("generate " + shell_quote(recipe.string()) + " -o " +
                               shell_quote(out.string()) + " --png none --json");
    REQUIRE(r.exit_code == 0);
    const Json j = JsonReader::parse(r.out);
    CHECK(j["screens"]["world"].str == out.generic_string());
    CHECK(j["screens"]["columns"].num == 6);
    CHECK(j["screens"]["rows"].num == 6);
    CHECK_FALSE(fs::exists(dir / "w.world"));
    const Json project = JsonReader::parse(read_text(out));
    CHECK(project["worldLayout"].str == "GridVania");
    CHECK(project["levels"].items.size() == 36);
    for (const char* refused : {"-o m.tmx --infinite", "-o m.tscn"}) {
        CAPTURE(refused);
        fs::create_directories(dir / "none");
        const auto bad =
            run_tilegen("generate " + shell_quote(recipe.string()) + " " + refused, dir / "none");
        CHECK(bad.exit_code != 0);
        CHECK(bad.err.find("[screens]") != std::string::npos);
        CHECK(fs::directory_iterator(dir / "none") == fs::directory_iterator{});
    }
}
