// The procedural tile painter: blob cases, the overworld description, seams, determinism, the rules
// it writes (checked with a tiny independent matcher), bad descriptions, and the `tilegen paint`
// command. More beside it in tests/paint/: exact rule coverage of every description, faces,
// symmetric sets, sprites and the two-terrain equivalence.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "io/png.hpp"
#include "paint/blob.hpp"
#include "paint/description.hpp"
#include "paint/emit.hpp"
#include "paint/painter.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::paint;

namespace {

const std::string& overworld_text() {
    static const std::string text =
        test::read_text(test::source_dir() / "tilesets/overworld/paint.toml");
    return text;
}

const Description& overworld() {
    static const Description d = [] {
        Diagnostics diags;
        auto parsed = parse_description(overworld_text(), "paint.toml", diags);
        for (const auto& e : diags)
            MESSAGE(format_diagnostic(e));
        REQUIRE(parsed);
        return *parsed;
    }();
    return d;
}

std::string pair_name(const Description& d, const Pair& p) {
    return d.terrains[static_cast<std::size_t>(p.upper)].name + " over " +
           d.terrains[static_cast<std::size_t>(p.lower)].name;
}

// The reduced mask of the cell at (cx, cy) of a window of lower (true) / same (false) cells.
template <std::size_t W, std::size_t H>
BlobMask mask_in(const std::array<std::array<bool, W>, H>& lower, int cx, int cy) {
    BlobMask m = 0;
    for (int k = 0; k < 8; ++k) {
        const int x = cx + kNeighbourOffset[static_cast<std::size_t>(k)][0];
        const int y = cy + kNeighbourOffset[static_cast<std::size_t>(k)][1];
        if (lower[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)]) m |= bit(k);
    }
    return reduce_blob(m);
}

// Run-length structure of a pixel line of materials: the materials in order and where each run
// starts.
struct Runs {
    std::vector<Material> materials;
    std::vector<int> starts;
};
Runs runs_of(const std::vector<Material>& line) {
    Runs r;
    for (std::size_t i = 0; i < line.size(); ++i)
        if (i == 0 || line[i] != line[i - 1]) {
            r.materials.push_back(line[i]);
            r.starts.push_back(static_cast<int>(i));
        }
    return r;
}

// --- A tiny matcher for the rule syntax, independent of the lead's parser.
// ---------------------------------
struct MiniRule {
    bool catch_all = false;          // a lone '?'
    std::array<std::string, 9> cell; // "" = any; otherwise the accepted symbols
    int specificity = 0;
    std::vector<std::string> targets;
    int line = 0;
};

// Parses one cell at s[i..]; returns accepted symbols ("" for '?') over the alphabet.
std::string parse_cell(const std::string& s, std::size_t& i, const std::string& alphabet) {
    REQUIRE(i < s.size());
    auto complement = [&](const std::string& set) {
        std::string out;
        for (char c : alphabet)
            if (set.find(c) == std::string::npos) out += c;
        return out;
    };
    if (s[i] == '?') {
        ++i;
        return "";
    }
    if (s[i] == '!') {
        REQUIRE(i + 1 < s.size());
        i += 2;
        return complement(std::string(1, s[i - 1]));
    }
    if (s[i] == '[') {
        const std::size_t close = s.find(']', i);
        REQUIRE(close != std::string::npos);
        std::string inner = s.substr(i + 1, close - i - 1);
        i = close + 1;
        if (!inner.empty() && inner[0] == '!') return complement(inner.substr(1));
        return inner;
    }
    return std::string(1, s[i++]);
}

std::vector<MiniRule> parse_rules(const std::string& text, const std::string& alphabet) {
    std::vector<MiniRule> rules;
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string t; words >> t;)
            w.push_back(t);
        if (w.empty()) continue;
        CAPTURE(line);
        MiniRule r;
        r.line = n;
        std::size_t first_target = 0;
        if (w[0] == "?") {
            r.catch_all = true;
            first_target = 1;
        } else {
            REQUIRE(w.size() >= 4);
            for (std::size_t g = 0; g < 3; ++g) {
                std::size_t i = 0;
                for (std::size_t c = 0; c < 3; ++c) {
                    r.cell[g * 3 + c] = parse_cell(w[g], i, alphabet);
                    // '!x' over a 3-letter alphabet is never "any": count every written cell as
                    // specific.
                    if (w[g][i - 1] != '?') ++r.specificity;
                }
                REQUIRE(i == w[g].size()); // exactly three cells per row group
            }
            first_target = 3;
        }
        REQUIRE(first_target < w.size());
        for (std::size_t t = first_target; t < w.size(); ++t) {
            std::string name = w[t].substr(0, w[t].find('*'));
            r.targets.push_back(name);
        }
        rules.push_back(std::move(r));
    }
    return rules;
}

bool matches(const MiniRule& r, const std::array<char, 9>& hood) {
    if (r.catch_all) return true;
    for (std::size_t i = 0; i < 9; ++i)
        if (!r.cell[i].empty() && r.cell[i].find(hood[i]) == std::string::npos) return false;
    return true;
}

} // namespace

TEST_CASE("paint: 47 blob cases with readable, unique names") {
    const auto& cases = blob_cases();
    CHECK(cases.size() == 47);
    CHECK(cases.front() == 0);
    std::set<std::string> names;
    for (BlobMask m : cases) {
        CHECK(reduce_blob(m) == m);
        names.insert(blob_suffix(m));
    }
    CHECK(names.size() == 47);
    for (int m = 0; m < 256; ++m) {
        const BlobMask r = reduce_blob(static_cast<BlobMask>(m));
        CHECK(std::find(cases.begin(), cases.end(), r) != cases.end());
        CHECK(reduce_blob(r) == r);
    }
    CHECK(blob_suffix(reduce_blob(bit(kN) | bit(kE) | bit(kNE))) == "n-e");
    CHECK(blob_suffix(bit(kNE)) == "ne");
    CHECK(blob_suffix(reduce_blob(bit(kN) | bit(kSE) | bit(kNE) | bit(kNW))) == "n-se");
    CHECK(transition_name("grass", "sand", bit(kN) | bit(kS)) == "grass-sand-n-s");
}

TEST_CASE("paint: the overworld description paints the named tiles") {
    const Description& d = overworld();
    const PaintedTileset ts = paint_tileset(d);
    int expected = 1; // the error tile
    for (const auto& t : d.terrains)
        expected += t.bridge.empty() ? 1 + static_cast<int>(t.variants.size()) + (t.ruts ? 2 : 0)
                                     : static_cast<int>(bridge_tiles(t).size());
    CHECK(d.pairs.size() >= 8);
    CHECK(ts.tile_count() == expected + 46 * static_cast<int>(d.pairs.size()));
    CHECK(ts.image.width() == 16 * 16);
    CHECK(ts.image.height() % 16 == 0);
    CHECK(static_cast<int>(ts.names.size()) <= (ts.image.width() / 16) * (ts.image.height() / 16));

    std::set<std::string> names;
    for (const auto& n : ts.names)
        if (!n.empty()) CHECK(names.insert(n).second);
    // The names the three-terrain rules (and older maps) use, and the new terrains.
    for (const char* base : {"water", "water-2", "sand", "sand-pebbles", "grass", "grass-flowers",
                             "grass-tuft", "error", "deep", "dirt", "forest", "rock"})
        CHECK_MESSAGE(names.count(base) == 1, base);
    for (const auto& t : d.terrains)
        CHECK_MESSAGE((t.variants.size() >= 2 || !t.bridge.empty()),
                      t.name << " has two or more variants");
    for (const Pair& p : d.pairs)
        for (BlobMask m : blob_cases()) {
            if (m == 0) continue;
            CHECK(names.count(transition_name(d.terrains[static_cast<std::size_t>(p.upper)].name,
                                              d.terrains[static_cast<std::size_t>(p.lower)].name,
                                              m)) == 1);
        }
    CHECK(names.count("grass-sand-n-e") == 1);
    CHECK(names.count("sand-water-ne") == 1);
    CHECK(names.count("rock-grass-s") == 1);

    // Every named slot holds its tile; the error tile is red with a dark mark.
    const auto slot = std::find(ts.names.begin(), ts.names.end(), "error") - ts.names.begin();
    const int ex = static_cast<int>(slot % 16) * 16, ey = static_cast<int>(slot / 16) * 16;
    CHECK(ts.image.get(ex + 8, ey + 3) == d.error.color);
    CHECK(ts.image.get(ex + 8, ey + 8) == d.error.mark);

    // The manifest reads back with every name at its slot.
    const std::string manifest = tileset_manifest(ts, "tileset.png", "paint.toml");
    toml::table t = toml::parse(manifest);
    CHECK(t["image"].value_or(std::string()) == "tileset.png");
    CHECK(t["tile_width"].value_or(0) == 16);
    CHECK(t["tile_height"].value_or(0) == 16);
    const toml::table* tiles = t["tiles"].as_table();
    REQUIRE(tiles);
    CHECK(static_cast<int>(tiles->size()) == ts.tile_count());
    for (std::size_t i = 0; i < ts.names.size(); ++i)
        if (!ts.names[i].empty()) CHECK((*tiles)[ts.names[i]].value_or(-1) == static_cast<int>(i));
}

TEST_CASE("paint: the same description gives the same image, another seed another one") {
    const Description& d = overworld();
    const PaintedTileset a = paint_tileset(d);
    const PaintedTileset b = paint_tileset(d);
    CHECK(a.image == b.image);
    CHECK(a.names == b.names);
    Description other = d;
    other.seed = d.seed + 1;
    CHECK_FALSE(paint_tileset(other).image == a.image);
}

TEST_CASE("paint: palettes are limited and base textures use them only") {
    const Description& d = overworld();
    for (std::size_t t = 0; t < d.terrains.size(); ++t) {
        const auto& terrain = d.terrains[t];
        CAPTURE(terrain.name);
        CHECK(terrain.palette.size() >= 3);
        CHECK(terrain.palette.size() <= 5);
        const Image img = paint_base(d, static_cast<int>(t));
        std::set<std::uint32_t> used;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) {
                const Rgba c = img.get(x, y);
                CHECK(std::find(terrain.palette.begin(), terrain.palette.end(), c) !=
                      terrain.palette.end());
                used.insert(static_cast<std::uint32_t>(c.r << 16 | c.g << 8 | c.b));
            }
        CHECK(used.size() >= 3); // dithered, not flat
    }
}

TEST_CASE("paint: variants differ from their base only inside a 2-px border") {
    const Description& d = overworld();
    for (std::size_t t = 0; t < d.terrains.size(); ++t) {
        const Image base = paint_base(d, static_cast<int>(t));
        for (std::size_t v = 0; v < d.terrains[t].variants.size(); ++v) {
            CAPTURE(d.terrains[t].variants[v].name);
            const Image var = paint_variant(d, static_cast<int>(t), static_cast<int>(v));
            int differing = 0;
            for (int y = 0; y < 16; ++y)
                for (int x = 0; x < 16; ++x) {
                    const bool border = x < 2 || y < 2 || x >= 14 || y >= 14;
                    if (border)
                        CHECK(var.get(x, y) == base.get(x, y));
                    else if (!(var.get(x, y) == base.get(x, y)))
                        ++differing;
                }
            CHECK(differing >= 4); // the decoration is there
        }
    }
}

TEST_CASE(
    "paint: rim tiles show the base textures of both terrains, lines only near the boundary") {
    const Description& d = overworld();
    for (const Pair& p : d.pairs) {
        const Image up = paint_base(d, p.upper), lo = paint_base(d, p.lower);
        for (BlobMask m : blob_cases()) {
            if (m == 0) continue;
            CAPTURE(transition_name(d.terrains[static_cast<std::size_t>(p.upper)].name,
                                    d.terrains[static_cast<std::size_t>(p.lower)].name, m));
            const Image tile = paint_transition(d, p, m);
            const Grid<Material> mat = rim_materials(d, p, m);
            int lower_pixels = 0, upper_pixels = 0;
            for (int y = 0; y < 16; ++y)
                for (int x = 0; x < 16; ++x) {
                    const double h = rim_field(d, p, m, x + 0.5, y + 0.5);
                    switch (mat(x, y)) {
                    case Material::upper:
                        CHECK(tile.get(x, y) == up.get(x, y));
                        CHECK(h >= -p.blend);
                        ++upper_pixels;
                        break;
                    case Material::lower:
                        CHECK(tile.get(x, y) == lo.get(x, y));
                        CHECK(h < p.blend);
                        ++lower_pixels;
                        break;
                    case Material::upper_line:
                        CHECK((h >= 0 && h < 3));
                        break;
                    case Material::lower_line:
                        CHECK((h < 0 && h > -3 * (1 + p.shadow)));
                        break;
                    case Material::face: {
                        CHECK(p.face != Face::none);
                        CHECK(h >= 0);
                        // A face pixel has a rim pixel at most face_depth px below it (in this tile
                        // or the next).
                        bool rim_below = false;
                        for (int k = 1; k <= p.face_depth && !rim_below; ++k)
                            rim_below = y + k >= 16 || rim_field(d, p, m, x + 0.5, y + k + 0.5) < 0;
                        CHECK(rim_below);
                        break;
                    }
                    }
                }
            CHECK(lower_pixels > 0);
            CHECK(upper_pixels + (p.face != Face::none ? 1 : 0) > 0);
            // Every lower edge is lower terrain all along the tile border (it continues into the
            // lower cell).
            for (int k = 0; k < 4; ++k) {
                if (!(m & bit(2 * k))) continue;
                for (int i = 0; i < 16; ++i) {
                    const int x = k == 1 ? 15 : k == 3 ? 0 : i;
                    const int y = k == 0 ? 0 : k == 2 ? 15 : i;
                    CHECK(mat(x, y) == Material::lower);
                    CHECK(tile.get(x, y) == lo.get(x, y));
                }
            }
        }
    }
}

TEST_CASE("paint: rims of neighbouring tiles meet exactly (every 4x3 and 3x4 window)") {
    const Description& d = overworld();
    for (const Pair& p : d.pairs) {
        CAPTURE(pair_name(d, p));
        int windows = 0, compared_points = 0;
        std::map<BlobMask, Grid<Material>> materials; // per mask, painted once
        for (BlobMask m : blob_cases())
            materials.emplace(m, rim_materials(d, p, m));
        for (int vertical = 0; vertical < 2; ++vertical)
            for (int bits = 0; bits < (1 << 10); ++bits) {
                // Window 4 wide x 3 high (horizontal seam) with A = (1,1), B = (2,1) upper; the
                // other 10 cells lower or same. For the vertical seam the window is transposed.
                std::array<std::array<bool, 4>, 4> lower{};
                int b = 0;
                for (int y = 0; y < 3; ++y)
                    for (int x = 0; x < 4; ++x) {
                        if (y == 1 && (x == 1 || x == 2)) continue;
                        const bool l = (bits >> b++) & 1;
                        if (vertical)
                            lower[static_cast<std::size_t>(x)][static_cast<std::size_t>(y)] = l;
                        else
                            lower[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)] = l;
                    }
                const BlobMask ma = mask_in(lower, 1, 1);
                const BlobMask mb = vertical ? mask_in(lower, 1, 2) : mask_in(lower, 2, 1);
                ++windows;
                // 1. The field is continuous across the shared edge wherever a rim or line could
                // be.
                for (int i = 0; i <= 160; ++i) {
                    const double t = i / 10.0;
                    const double ha =
                        vertical ? rim_field(d, p, ma, t, 16.0) : rim_field(d, p, ma, 16.0, t);
                    const double hb =
                        vertical ? rim_field(d, p, mb, t, 0.0) : rim_field(d, p, mb, 0.0, t);
                    if (std::min(ha, hb) > 8.0) continue;
                    ++compared_points;
                    CHECK_MESSAGE(std::abs(ha - hb) < 1e-9, "masks " << blob_suffix(ma) << " | "
                                                                     << blob_suffix(mb) << " at "
                                                                     << t);
                }
                // 2. The pixel lines on both sides of the seam have the same runs of material,
                //    each run starting at most 1 px apart.
                //    With faces (which run across the seam from the cell below, see
                //    tests/paint/), compare which side of the boundary each pixel is on.
                const Grid<Material>&a = materials.at(ma), &bm = materials.at(mb);
                auto side = [&](Material m) {
                    if (p.face == Face::none) return m;
                    if (m == Material::upper_line || m == Material::face) return Material::upper;
                    return m == Material::lower_line ? Material::lower : m;
                };
                //    With a blend (a checkerboard dither, seamless by parity), compare the field's
                //    sign.
                std::vector<Material> la, lb;
                for (int i = 0; i < 16; ++i) {
                    if (p.blend > 0) {
                        const double fa = vertical ? rim_field(d, p, ma, i + 0.5, 15.5)
                                                   : rim_field(d, p, ma, 15.5, i + 0.5);
                        const double fb = vertical ? rim_field(d, p, mb, i + 0.5, 0.5)
                                                   : rim_field(d, p, mb, 0.5, i + 0.5);
                        la.push_back(fa >= 0 ? Material::upper : Material::lower);
                        lb.push_back(fb >= 0 ? Material::upper : Material::lower);
                        continue;
                    }
                    la.push_back(side(vertical ? a(i, 15) : a(15, i)));
                    lb.push_back(side(vertical ? bm(i, 0) : bm(0, i)));
                }
                const Runs ra = runs_of(la), rb = runs_of(lb);
                CHECK_MESSAGE(ra.materials == rb.materials,
                              "masks " << blob_suffix(ma) << " | " << blob_suffix(mb));
                if (ra.materials == rb.materials)
                    for (std::size_t r = 0; r < ra.starts.size(); ++r)
                        CHECK(std::abs(ra.starts[r] - rb.starts[r]) <= 1);
            }
        CHECK(windows == 2048);
        CHECK(compared_points > 10000);
    }
}

TEST_CASE("paint: the rules cover every 3x3 neighbourhood of w, s, g with the right tile") {
    const Description& d = overworld();
    const PaintedTileset ts = paint_tileset(d);
    std::set<std::string> names(ts.names.begin(), ts.names.end());
    REQUIRE(d.rules.size() == 2);
    REQUIRE(d.rules[0].path == "../../rules/overworld.rules");
    const std::string text = rules_text(d, d.rules[0], "paint.toml");
    const auto rules = parse_rules(text, "wsg");
    REQUIRE(rules.size() ==
            47 + 46 + 47 + 1 + 1); // grass over water or sand, sand over water, water, net
    CHECK(rules.back().catch_all);
    CHECK(rules.back().targets == std::vector<std::string>{"@error"});
    for (const auto& r : rules)
        for (const auto& t : r.targets)
            CHECK_MESSAGE((names.count(t) == 1 || t == "@error"), t);

    const char alphabet[3] = {'w', 's', 'g'};
    int covered = 0;
    for (int code = 0; code < 19683; ++code) {
        std::array<char, 9> hood{}; // row-major: nw n ne / w c e / sw s se
        for (int i = 0, c = code; i < 9; ++i, c /= 3)
            hood[static_cast<std::size_t>(i)] = alphabet[c % 3];
        // Most specific first, first match wins. Ties only between a pair's rule and the next
        // pair's (grass over water before grass over sand, for the same blob case): the earlier one
        // wins.
        int best = -1, best_spec = -1, ties = 0;
        for (std::size_t r = 0; r < rules.size(); ++r) {
            if (!matches(rules[r], hood)) continue;
            const int spec = rules[r].catch_all ? -1 : rules[r].specificity;
            if (spec > best_spec) {
                best_spec = spec;
                best = static_cast<int>(r);
                ties = 0;
            } else if (spec == best_spec)
                ++ties;
        }
        REQUIRE(best >= 0);
        const MiniRule& win = rules[static_cast<std::size_t>(best)];
        CAPTURE(std::string(hood.begin(), hood.end()));
        CHECK_FALSE(win.catch_all);
        CHECK(ties <= 1);

        // What the layering says this cell should show.
        const char c = hood[4];
        static constexpr std::array<int, 8> kHoodIndex = {1, 2, 5, 8,
                                                          7, 6, 3, 0}; // n ne e se s sw w nw
        BlobMask m = 0;
        for (int k = 0; k < 8; ++k) {
            const char n = hood[static_cast<std::size_t>(kHoodIndex[static_cast<std::size_t>(k)])];
            if ((c == 'g' && n != 'g') || (c == 's' && n == 'w')) m |= bit(k);
        }
        m = reduce_blob(m);
        // Grass shows a water rim when every lower neighbour that counts is water, else a sand rim.
        bool only_water = true;
        for (int k = 0; k < 8; ++k)
            if ((m & bit(k)) &&
                hood[static_cast<std::size_t>(kHoodIndex[static_cast<std::size_t>(k)])] != 'w')
                only_water = false;
        const std::string base = c == 'g' ? "grass" : c == 's' ? "sand" : "water";
        const std::string expected =
            m == 0 ? base : transition_name(base, c == 'g' && !only_water ? "sand" : "water", m);
        CHECK(win.targets.front() == expected);
        ++covered;
    }
    CHECK(covered == 19683);
}

TEST_CASE("paint: rules text keeps the fixed syntax and weights") {
    const std::string text = rules_text(overworld(), overworld().rules[0], "paint.toml");
    CHECK(text.find("ggg    ggg   ggg     grass grass-alt*0.8 grass-flowers*0.1 grass-tuft*0.15 "
                    "grass-bluebells*0.05\n") != std::string::npos);
    CHECK(text.find("???    ?w?   ???     water water-alt*0.8 water-2*0.1 water-swell*0.4 "
                    "water-lily*0.02\n") != std::string::npos);
    CHECK(text.find("?w?    ggg   ggg     grass-water-n\n") != std::string::npos);
    CHECK(text.find("?!g?   ggg   ggg     grass-sand-n\n") != std::string::npos);
    CHECK(text.find("\n?  @error\n") != std::string::npos);
    CHECK(format_weight(0.15) == "0.15");
    CHECK(format_weight(2) == "2");
}

TEST_CASE("paint: bad descriptions: message and line:column") {
    const std::string terrain =
        "[[terrain]]\nname = \"sand\"\nsymbol = \"s\"\nheight = 0\nstyle = \"grain\"\n"
        "palette = [\"#000000\", \"#808080\", \"#ffffff\"]\n";
    struct Bad {
        std::string text;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {"tile_size = 16\ncolour = 3\n", 2, 1, "unknown key 'colour'"},
        {"tile_size = [\n", 1, 0, ""}, // a TOML syntax error, wherever toml++ puts it (line 1 or 2)
        {"tile_size = 7\n" + terrain, 1, 13, "'tile_size' is 7, expected 8 to 64"},
        {"tile_size = 12\n" + terrain, 1, 13, "'tile_size' must be a multiple of 8"},
        {"seed = \"x\"\n" + terrain, 1, 8, "'seed' must be an integer"},
        {terrain + "density = 2\n", 7, 11, "'terrain.density' is 2, expected 0 to 1"},
        {terrain + "shade = 1\n", 7, 1, "unknown key 'terrain.shade' (expected one of: name,"},
        {"[[terrain]]\nname = \"sand\"\nsymbol = \"ss\"\nheight = 0\nstyle = \"grain\"\npalette = "
         "[\"#000000\", "
         "\"#808080\", \"#ffffff\"]\n",
         3, 10, "'symbol' must be one printable character other than ? ! [ ] @ * # / \\"},
        {"[[terrain]]\nname = \"sand\"\nsymbol = \"s\"\nheight = 0\nstyle = \"grain\"\npalette = "
         "[\"#000000\", "
         "\"#808080\"]\n",
         6, 11, "must have 3..5 colours"},
        {"[[terrain]]\nname = \"sand\"\nsymbol = \"s\"\nheight = 0\nstyle = \"grain\"\npalette = "
         "[\"#000000\", "
         "\"#80800\", \"#ffffff\"]\n",
         6, 23, "bad colour \"#80800\""},
        {"[[terrain]]\nname = \"sand\"\nsymbol = \"s\"\nheight = 0\nstyle = \"wavy\"\npalette = "
         "[\"#000000\", "
         "\"#808080\", \"#ffffff\"]\n",
         5, 9, "'terrain.style' is \"wavy\", expected one of \"blades\""},
        {"[[terrain]]\nname = \"sand\"\nsymbol = \"s\"\nstyle = \"grain\"\npalette = [\"#000000\", "
         "\"#808080\", \"#ffffff\"]\n",
         1, 1, "[[terrain]] needs 'height'"},
        {terrain + "[[terrain.variant]]\nname = \"sand\"\ndecoration = \"pebbles\"\n", 7, 1,
         "tile name 'sand' is used twice"},
        {terrain + "[[terrain.variant]]\nname = \"sand-2\"\ndecoration = \"shells\"\n", 9, 14,
         "'terrain.variant.decoration' is \"shells\""},
        {terrain + "[[pair]]\nupper = \"sand\"\nlower = \"mud\"\n", 9, 9,
         "'lower': no terrain named 'mud'"},
        {terrain + "[[pair]]\nupper = \"sand\"\nlower = \"sand\"\n", 8, 9,
         "must be higher than the lower"},
        {terrain + "[[terrain]]\nname = \"grass\"\nsymbol = \"g\"\nheight = 1\nstyle = "
                   "\"blades\"\npalette = "
                   "[\"#000000\", \"#008000\", \"#00ff00\"]\n[[pair]]\nupper = \"grass\"\nlower = "
                   "\"sand\"\n"
                   "wobble = 2.5\nupper_lines = [\"grass.7\"]\n",
         16, 10, "'wobble' must be at most wobble_period / 8"},
        {terrain + "[[terrain]]\nname = \"grass\"\nsymbol = \"g\"\nheight = 1\nstyle = "
                   "\"blades\"\npalette = "
                   "[\"#000000\", \"#008000\", \"#00ff00\"]\n[[pair]]\nupper = \"grass\"\nlower = "
                   "\"sand\"\n"
                   "upper_lines = [\"grass.7\"]\n",
         16, 16, "terrain 'grass' has palette entries 0..2"},
        {terrain + "[rules]\nfile = \"x.rules\"\n", 8, 1, "unknown key 'rules.file'"},
        {"tile_size = 16\n", 1, 1, "needs at least one [[terrain]]"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics diags;
        CHECK_FALSE(parse_description(b.text, "d.toml", diags));
        REQUIRE(diags.size() >= 1);
        CHECK(diags[0].file == "d.toml");
        if (b.column == 0) { // syntax error: some position on the first lines
            CHECK(diags[0].line >= 1);
            CHECK(diags[0].line <= 2);
            CHECK(diags[0].column >= 1);
            continue;
        }
        CHECK(diags[0].line == b.line);
        CHECK(diags[0].column == b.column);
        CHECK_MESSAGE(diags[0].message.find(b.message) != std::string::npos, diags[0].message);
    }
}

TEST_CASE("paint: `tilegen paint` writes every output, the committed outputs are up to date") {
    const auto src = test::source_dir();
    for (const char* set : {"overworld", "cave", "two-terrain"}) {
        CAPTURE(set);
        test::TempDir tmp;
        const std::string description = std::string("tilesets/") + set + "/paint.toml";
        const auto r = test::run_tilegen(
            "paint " + description + " -o " + test::shell_quote(tmp.path().string()), src);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        Diagnostics diags;
        auto d = parse_description(test::read_text(src / description), description, diags);
        REQUIRE(d);
        const auto dir = src / "tilesets" / set;
        CHECK(test::read_text(tmp / "tileset.toml") == test::read_text(dir / "tileset.toml"));
        auto same_png = [&](const std::string& name) {
            auto fresh = io::load_image(tmp / name, diags);
            auto committed = io::load_image(dir / name, diags);
            REQUIRE(fresh);
            REQUIRE(committed);
            CHECK_MESSAGE(*fresh == *committed, "run: tilegen paint " << description);
        };
        same_png("tileset.png");
        for (const auto& rules : d->rules) {
            const std::filesystem::path path = rules.path;
            CHECK_MESSAGE(test::read_text(tmp / path.filename().string()) ==
                              test::read_text((dir / path).lexically_normal()),
                          "run: tilegen paint " << description);
        }
        if (d->objects) {
            same_png(d->objects->image);
            CHECK(test::read_text(tmp / "objects.toml") == test::read_text(dir / "objects.toml"));
        }
    }
}

TEST_CASE("paint: `tilegen paint` usage and input errors") {
    test::TempDir tmp;
    CHECK(test::run_tilegen("paint").exit_code == 2);
    CHECK(test::run_tilegen("paint a.toml b.toml").exit_code == 2);
    CHECK(test::run_tilegen("paint a.toml -o").exit_code == 2);
    CHECK(test::run_tilegen("paint --frobnicate").exit_code == 2);
    const auto help = test::run_tilegen("paint --help");
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("Usage: tilegen paint DESCRIPTION.toml [-o DIR]") != std::string::npos);

    CHECK(test::run_tilegen("paint " + test::shell_quote((tmp / "missing.toml").string()))
              .exit_code == 1);
    test::write_text(tmp / "bad.toml", "tile_size = 16\n\npalette = 3\n");
    const auto bad = test::run_tilegen("paint bad.toml", tmp.path());
    CHECK(bad.exit_code == 1);
    CHECK(bad.err.find("bad.toml:3:1: error: unknown key 'palette'") != std::string::npos);
    // A byte order mark (as some Windows editors write) is skipped; positions count without it.
    test::write_text(tmp / "bom.toml", "\xEF\xBB\xBFtile_size = 7\n");
    const auto bom = test::run_tilegen("paint bom.toml", tmp.path());
    CHECK(bom.exit_code == 1);
    CHECK(bom.err.find("bom.toml:1:13: error: 'tile_size' is 7, expected 8 to 64") !=
          std::string::npos);
    CHECK_FALSE(std::filesystem::exists(tmp / "tileset.png"));
}
