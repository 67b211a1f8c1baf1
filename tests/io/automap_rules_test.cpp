// Tiled automapping rules (io/automap_rules.hpp) and Wang-set import (io/wang_import.hpp).
// The rule maps are read back by a reader written here from Tiled's documented rule-map format
// (regions, input/inputnot layers with alternatives, outputN layers with Probability, special
// tiles by their MatchType property), independent of the writer: they must give back every
// shipped rule file's rules (patterns, targets, weights), and applying them as Tiled's AutoMap
// does (rules in map order, a later match overwriting an earlier one) must draw tilegen's tiles.
#include <doctest/doctest.h>

#include <tinyxml2.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/pipeline.hpp"
#include "core/tileset/tileset.hpp"
#include "io/automap_rules.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "io/wang_import.hpp"
#include "test_support.hpp"

using namespace tilegen;
namespace fs = std::filesystem;

namespace {

struct Loaded {
    Project project;
    Atlas atlas;
    std::vector<LayerRules> layers;
};

Loaded load(const fs::path& recipe) {
    Diagnostics d;
    auto project = io::load_project(recipe, io::DiskFiles{}, d);
    REQUIRE(project);
    Loaded l{std::move(*project), {}, {}};
    std::vector<int> image_index;
    int error_index = 0;
    l.atlas = build_atlas(l.project.tileset, l.project.images, image_index, error_index);
    l.layers = build_layers(l.project, image_index, error_index);
    annotate_atlas(l.atlas, l.layers, l.project.recipe);
    return l;
}

// ---- the test-side reader of rule maps ----

struct ReadRule {
    int side = 1;
    // Per pattern cell: the tiles accepted (input layers) and refused (inputnot layers), as local
    // ids of the classes tileset (class + 1) or "E"/"N" special tiles (-1 Empty, -2 NonEmpty).
    std::vector<std::vector<int>> accept, refuse;
    std::vector<std::pair<Gid, double>> targets; // atlas gid (tilegen's: index + 1 | flips), weight
};

struct ReadMap {
    std::map<std::string, std::string> properties;
    std::vector<ReadRule> rules; // in Tiled's order: by region top, then left
};

std::vector<Gid> csv_of(const tinyxml2::XMLElement* layer) {
    std::vector<Gid> out;
    std::stringstream in(layer->FirstChildElement("data")->GetText());
    std::string item;
    while (std::getline(in, item, ','))
        out.push_back(static_cast<Gid>(std::stoul(item)));
    return out;
}

ReadMap read_rule_map(const std::string& text, int class_count) {
    tinyxml2::XMLDocument doc;
    REQUIRE(doc.Parse(text.c_str()) == tinyxml2::XML_SUCCESS);
    const auto* map = doc.FirstChildElement("map");
    const int w = map->IntAttribute("width"), h = map->IntAttribute("height");
    ReadMap out;
    if (const auto* props = map->FirstChildElement("properties"))
        for (const auto* p = props->FirstChildElement("property"); p;
             p = p->NextSiblingElement("property"))
            out.properties[p->Attribute("name")] = p->Attribute("value");
    std::map<std::string, int> firstgid;
    for (const auto* t = map->FirstChildElement("tileset"); t; t = t->NextSiblingElement("tileset"))
        firstgid[t->Attribute("source")] = t->IntAttribute("firstgid");
    REQUIRE(firstgid.at("classes.tsx") == 1);
    const int special = firstgid.at("automap.tsx");
    int atlas_first = 0;
    for (const auto& [file, gid] : firstgid)
        if (file != "classes.tsx" && file != "automap.tsx") atlas_first = gid;
    auto local = [&](Gid g) -> int { // class + 1, or -1 Empty / -2 NonEmpty
        if (static_cast<int>(g) >= special && static_cast<int>(g) < special + 2)
            return -1 - (static_cast<int>(g) - special);
        REQUIRE(static_cast<int>(g) <= class_count);
        return static_cast<int>(g);
    };
    std::vector<Gid> regions;
    std::vector<std::vector<Gid>> inputs, inputnots;
    std::vector<std::pair<std::vector<Gid>, double>> outputs;
    for (const auto* l = map->FirstChildElement("layer"); l; l = l->NextSiblingElement("layer")) {
        const std::string name = l->Attribute("name");
        if (name == "regions")
            regions = csv_of(l);
        else if (name.rfind("input_", 0) == 0)
            inputs.push_back(csv_of(l));
        else if (name.rfind("inputnot_", 0) == 0)
            inputnots.push_back(csv_of(l));
        else if (name.rfind("output", 0) == 0) {
            double p = 1;
            if (const auto* props = l->FirstChildElement("properties"))
                for (const auto* q = props->FirstChildElement("property"); q;
                     q = q->NextSiblingElement("property"))
                    if (std::string(q->Attribute("name")) == "Probability")
                        p = q->DoubleAttribute("value");
            outputs.emplace_back(csv_of(l), p);
        }
    }
    REQUIRE(regions.size() == static_cast<std::size_t>(w * h));
    // Rules: 8-connected components of the regions layer, ordered by their top, then left.
    std::vector<int> comp(regions.size(), -1);
    struct Piece {
        int top, left;
        std::vector<std::size_t> cells;
    };
    std::vector<Piece> pieces;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const auto i = static_cast<std::size_t>(y * w + x);
            if (!regions[i] || comp[i] >= 0) continue;
            Piece piece{y, x, {}};
            std::vector<std::size_t> stack{i};
            comp[i] = static_cast<int>(pieces.size());
            while (!stack.empty()) {
                const std::size_t c = stack.back();
                stack.pop_back();
                piece.cells.push_back(c);
                const int cx = static_cast<int>(c) % w, cy = static_cast<int>(c) / w;
                piece.top = std::min(piece.top, cy);
                piece.left = std::min(piece.left, cx);
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int nx = cx + dx, ny = cy + dy;
                        if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                        const auto j = static_cast<std::size_t>(ny * w + nx);
                        if (regions[j] && comp[j] < 0) {
                            comp[j] = comp[i];
                            stack.push_back(j);
                        }
                    }
            }
            pieces.push_back(std::move(piece));
        }
    // Tiled's order: by the region's top, then its left.
    std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
        return a.top != b.top ? a.top < b.top : a.left < b.left;
    });
    for (const Piece& piece : pieces) {
        ReadRule r;
        r.side = 5; // a 5x5 window around the output cell
        r.accept.resize(25);
        r.refuse.resize(25);
        // The output cell: where the output layers have a tile.
        std::size_t centre = regions.size();
        for (std::size_t c : piece.cells)
            for (const auto& [g, p] : outputs)
                if (g[c]) centre = c;
        REQUIRE(centre < regions.size());
        const int ocx = static_cast<int>(centre) % w, ocy = static_cast<int>(centre) / w;
        for (std::size_t i : piece.cells) {
            const int dx = static_cast<int>(i) % w - ocx, dy = static_cast<int>(i) / w - ocy;
            REQUIRE(std::max(std::abs(dx), std::abs(dy)) <= 2);
            const auto c = static_cast<std::size_t>((dy + 2) * 5 + dx + 2);
            for (const auto& g : inputs)
                if (g[i]) r.accept[c].push_back(local(g[i]));
            for (const auto& g : inputnots)
                if (g[i]) r.refuse[c].push_back(local(g[i]));
        }
        for (const auto& [g, p] : outputs)
            if (g[centre]) {
                const Gid raw = g[centre];
                const Gid id = raw & ~kFlipMask;
                Gid atlas_gid = 0; // @none: the Empty tile
                if (static_cast<int>(id) != special)
                    atlas_gid = static_cast<Gid>(static_cast<int>(id) - atlas_first + 1) |
                                (raw & kFlipMask);
                r.targets.emplace_back(atlas_gid, p);
            }
        out.rules.push_back(std::move(r));
    }
    return out;
}

// Every rule map rules.txt lists, in order, grouped by the tilegen layer it draws (its
// `tilegen_layer` property): the layer's rules in Tiled's order over all its maps.
std::map<std::string, ReadMap> read_rules_txt(const std::map<std::string, std::string>& text,
                                              int class_count) {
    std::map<std::string, ReadMap> out;
    std::stringstream in(text.at("rules.txt"));
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        ReadMap m = read_rule_map(text.at(line), class_count);
        ReadMap& into = out[m.properties.at("tilegen_layer")];
        if (into.properties.empty()) into.properties = m.properties;
        CHECK(into.properties == m.properties);
        for (auto& r : m.rules)
            into.rules.push_back(std::move(r));
    }
    return out;
}

// The class mask a read cell stands for (outside handled separately).
ClassMask mask_of(const ReadRule& r, std::size_t c, int class_count) {
    const ClassMask all = static_cast<ClassMask>((std::uint64_t{1} << class_count) - 1);
    ClassMask m = 0;
    bool any_accept = false;
    for (int t : r.accept[c])
        if (t > 0) {
            m |= ClassMask{1} << (t - 1);
            any_accept = true;
        } else if (t == -2)
            any_accept = false, m = all; // NonEmpty: any class inside the map
    if (!any_accept && m == 0) m = all;
    for (int t : r.refuse[c])
        if (t > 0) m &= ~(ClassMask{1} << (t - 1));
    return m;
}

// Tiled's AutoMap over a class grid with the read rules: every rule in order, every cell where it
// matches takes one of its outputs (here the first: the tests compare with the rule's target set),
// overwriting what earlier rules wrote. Returns per cell the index of the last rule that matched.
Grid<int> apply_like_tiled(const ReadMap& m, const ClassGrid& classes, int class_count) {
    const bool clamp = m.properties.count("OverflowBorder") > 0;
    Grid<int> decided(classes.width(), classes.height(), -1);
    for (std::size_t ri = 0; ri < m.rules.size(); ++ri) {
        const ReadRule& r = m.rules[ri];
        const int rad = r.side / 2;
        for (int y = 0; y < classes.height(); ++y)
            for (int x = 0; x < classes.width(); ++x) {
                bool ok = true;
                for (int py = 0; py < r.side && ok; ++py)
                    for (int px = 0; px < r.side && ok; ++px) {
                        const auto c = static_cast<std::size_t>(py * r.side + px);
                        if (r.accept[c].empty() && r.refuse[c].empty()) continue;
                        int cx = x + px - rad, cy = y + py - rad;
                        int tile = 0; // 0: empty (outside without OverflowBorder)
                        if (clamp) {
                            cx = std::clamp(cx, 0, classes.width() - 1);
                            cy = std::clamp(cy, 0, classes.height() - 1);
                        }
                        if (cx >= 0 && cy >= 0 && cx < classes.width() && cy < classes.height())
                            tile = classes(cx, cy) + 1;
                        auto is = [&](int t) {
                            return t > 0 ? t == tile : t == -1 ? tile == 0 : tile != 0;
                        };
                        if (!r.accept[c].empty())
                            ok = std::any_of(r.accept[c].begin(), r.accept[c].end(), is);
                        if (ok) ok = std::none_of(r.refuse[c].begin(), r.refuse[c].end(), is);
                    }
                if (ok && !r.targets.empty()) decided(x, y) = static_cast<int>(ri);
            }
    }
    (void)class_count;
    return decided;
}

} // namespace

TEST_CASE("export-rules: every shipped rule file's rule maps read back into the same rules") {
    for (const fs::path& recipe : test::sample_recipes()) {
        CAPTURE(recipe.string());
        const Loaded l = load(recipe);
        const int k = static_cast<int>(l.project.recipe.terrain.size());
        const ClassMask all = static_cast<ClassMask>((std::uint64_t{1} << k) - 1);
        const auto files =
            io::automap_rule_files(l.project.recipe, l.layers, l.atlas, l.project.recipe.name);
        std::map<std::string, std::string> text(files.texts.begin(), files.texts.end());
        const auto read = read_rules_txt(text, k);
        CHECK(read.size() == l.layers.size());
        for (const LayerRules& layer : l.layers) {
            CAPTURE(layer.name);
            const ReadMap& m = read.at(layer.name);
            CHECK(m.properties.count(l.project.recipe.rules.outside == "clamp"
                                         ? "OverflowBorder"
                                         : "MatchOutsideMap") == 1);
            REQUIRE(m.rules.size() == layer.ordered.size());
            const OutsidePolicy outside = outside_policy(l.project.recipe);
            for (std::size_t i = 0; i < m.rules.size(); ++i) {
                // Tiled's order is the reverse of tilegen's: the rule tried first is applied last.
                const std::size_t ri = layer.ordered.size() - 1 - i;
                const Rule& rule = layer.ordered[ri];
                const ReadRule& r = m.rules[i];
                CAPTURE(rule.file + ":" + std::to_string(rule.line) + " " + rule.variant);
                const int rad = rule.pattern.radius();
                for (int dy = -2; dy <= 2; ++dy)
                    for (int dx = -2; dx <= 2; ++dx) {
                        const auto c = static_cast<std::size_t>((dy + 2) * 5 + dx + 2);
                        const bool inside = std::abs(dx) <= rad && std::abs(dy) <= rad;
                        const ClassMask want = inside ? rule.pattern.at(dx, dy) & all : all;
                        CHECK(mask_of(r, c, k) == want);
                        if (outside.fixed_class && want != all) {
                            // Outside (empty) matches exactly where the pattern accepts its class.
                            const bool accepts = (want >> *outside.fixed_class) & 1u;
                            bool empty_ok = true;
                            if (!r.accept[c].empty())
                                empty_ok =
                                    std::count(r.accept[c].begin(), r.accept[c].end(), -1) > 0;
                            if (std::count(r.refuse[c].begin(), r.refuse[c].end(), -1))
                                empty_ok = false;
                            CHECK(empty_ok == accepts);
                        }
                    }
                std::vector<std::pair<Gid, double>> expected;
                const ResolvedTargets& t = layer.resolved[ri];
                for (std::size_t j = 0; j < t.gids.size(); ++j)
                    if (t.weights[j] > 0) expected.emplace_back(t.gids[j], t.weights[j]);
                auto got = r.targets;
                std::sort(expected.begin(), expected.end());
                std::sort(got.begin(), got.end());
                CHECK(got == expected);
            }
        }
    }
}

TEST_CASE("export-rules: the rules applied as Tiled applies them draw tilegen's tiles") {
    // Small maps of three samples: clamp at the border (two-terrain, overworld) and a fixed outside
    // class with a class pass (caverns; the class grid is the one after the passes).
    for (const char* name : {"two-terrain.toml", "overworld.toml", "caverns.toml"}) {
        CAPTURE(name);
        const Loaded l = load(test::source_dir() / "samples" / name);
        const int k = static_cast<int>(l.project.recipe.terrain.size());
        const auto files =
            io::automap_rule_files(l.project.recipe, l.layers, l.atlas, l.project.recipe.name);
        std::map<std::string, std::string> text(files.texts.begin(), files.texts.end());
        for (std::uint64_t seed : {1u, 2u}) {
            GenerateOptions options;
            options.seed = seed;
            options.width = 24;
            options.height = 20;
            const GenerateResult result = generate_map(l.project, options);
            for (std::size_t li = 0; li < l.layers.size(); ++li) {
                const LayerRules& layer = l.layers[li];
                const ReadMap m = read_rules_txt(text, k).at(layer.name);
                const Grid<int> decided = apply_like_tiled(m, result.classes, k);
                const Grid<Gid>& tiles = result.map.layers[li].tiles;
                int compared = 0;
                for (int y = 0; y < tiles.height(); ++y)
                    for (int x = 0; x < tiles.width(); ++x) {
                        const int d = decided(x, y);
                        const int tilegen_rule = result.decisions[li](x, y);
                        if (tilegen_rule == kNoRule) {
                            CHECK(d == -1);
                            continue;
                        }
                        REQUIRE(d >= 0);
                        // The same rule decides (Tiled's last match = tilegen's first) ...
                        CHECK(static_cast<std::size_t>(d) ==
                              layer.ordered.size() - 1 - static_cast<std::size_t>(tilegen_rule));
                        // ... so tilegen's tile is one of the outputs Tiled may pick.
                        const auto& outs = m.rules[static_cast<std::size_t>(d)].targets;
                        CHECK(std::any_of(outs.begin(), outs.end(),
                                          [&](const auto& o) { return o.first == tiles(x, y); }));
                        ++compared;
                    }
                CHECK(compared > 0);
            }
        }
    }
}

namespace {

// generate writes `sample`'s map with its Wang set; import-rules reads the set back (`tiles` Wang
// tiles); the sample's recipe with the imported rules and manifest in place of `rules` and
// `manifest` then draws the same tiles (by name, with the same flips) on every layer cell.
void check_import_round_trip(const std::string& sample, const std::string& rules,
                             const std::string& manifest, int tiles) {
    test::TempDir dir;
    const fs::path recipe = test::source_dir() / "samples" / sample;
    auto r = test::run_tilegen("generate " + test::shell_quote(recipe.string()) + " -o " +
                               test::shell_quote((dir / "tt.tmx").string()));
    REQUIRE(r.exit_code == 0);
    Diagnostics d;
    const auto imported =
        io::import_wang_rules(test::read_text(dir / "tt.tsx"), (dir / "tt.tsx").string(), nullptr,
                              "", dir.path().string(), d);
    for (const auto& x : d)
        FAIL_CHECK(format_diagnostic(x));
    REQUIRE(imported);
    CHECK(imported->tiles == tiles);
    test::write_text(dir / "tt.rules", imported->rules);
    test::write_text(dir / "tt-import.toml", imported->manifest);
    // The sample's recipe with the imported rules and manifest.
    std::string text = test::read_text(recipe);
    auto replace = [&](const std::string& from, const std::string& to) {
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    };
    replace("\"" + rules + "\"", "\"tt.rules\"");
    replace("\"" + manifest + "\"", "\"tt-import.toml\"");
    test::write_text(dir / "imported.toml", text);
    Diagnostics d1, d2;
    auto original = io::load_project(recipe, io::DiskFiles{}, d1);
    auto from_wang = io::load_project(dir / "imported.toml", io::DiskFiles{}, d2);
    for (const auto& x : d2)
        FAIL_CHECK(format_diagnostic(x));
    REQUIRE(original);
    REQUIRE(from_wang);
    for (std::uint64_t seed : {1u, 5u, 9u, 12345u}) {
        GenerateOptions options;
        options.seed = seed;
        const GenerateResult a = generate_map(*original, options);
        const GenerateResult b = generate_map(*from_wang, options);
        CAPTURE(seed);
        REQUIRE(a.map.layers.size() == 1);
        REQUIRE(b.map.layers.size() == 1);
        CHECK(b.unmatched == 0);
        // Same tile names cell for cell (the two atlases index the same image slots); a corner
        // layer has a tile more each way than the map has cells.
        const Grid<Gid>& ta = a.map.layers[0].tiles;
        const Grid<Gid>& tb = b.map.layers[0].tiles;
        REQUIRE(tb.width() == ta.width());
        REQUIRE(tb.height() == ta.height());
        int differ = 0;
        for (int y = 0; y < ta.height(); ++y)
            for (int x = 0; x < ta.width(); ++x) {
                const Gid ga = ta(x, y), gb = tb(x, y);
                differ += a.map.atlas.names[static_cast<std::size_t>(atlas_index_of(ga))] !=
                              b.map.atlas.names[static_cast<std::size_t>(atlas_index_of(gb))] ||
                          (ga & kFlipMask) != (gb & kFlipMask);
            }
        CHECK(differ == 0);
    }
}

} // namespace

TEST_CASE("import-rules: the two-terrain Wang set tilegen writes reproduces the hand-written map") {
    check_import_round_trip("two-terrain.toml", "../rules/two-terrain-17.rules",
                            "../tilesets/two-terrain/tileset.toml", 17);
}

TEST_CASE("import-rules: a corner Wang set becomes a corner layer that reproduces the map") {
    check_import_round_trip("two-terrain-corners.toml", "../rules/two-terrain-corners.rules",
                            "../tilesets/two-terrain-corners/tileset.toml", 16);
    // Unset corners are `?`; the rules say the layer is a corner layer.
    Diagnostics d;
    const std::string set =
        "<tileset tilewidth=\"16\" tileheight=\"16\"><image source=\"t.png\"/>\n"
        "<wangsets>\n"
        "<wangset name=\"t\" type=\"corner\">\n"
        "<wangcolor name=\"water\"/>\n<wangcolor name=\"grass\"/>\n"
        "<wangtile tileid=\"3\" wangid=\"0,2,0,0,0,1,0,2\"/>\n"
        "</wangset></wangsets></tileset>\n";
    const auto one = io::import_wang_rules(set, "e.tsx", nullptr, "", "", d);
    REQUIRE(one);
    CHECK(one->rules.find("\ngg w?   tile-3\n") != std::string::npos);
    CHECK(one->rules.find("# A corner layer") != std::string::npos);
}

TEST_CASE("import-rules: a bad corner set exits 1 at its line and writes nothing, clobbering "
          "nothing") {
    test::TempDir dir;
    test::write_text(dir / "bad.tsx",
                     "<tileset tilewidth=\"16\" tileheight=\"16\"><image source=\"t.png\"/>\n"
                     "<wangsets>\n"
                     "<wangset name=\"t\" type=\"corner\">\n"
                     "<wangcolor name=\"water\"/>\n<wangcolor name=\"grass\"/>\n"
                     "<wangtile tileid=\"0\" wangid=\"0,1,0,3,0,1,0,1\"/>\n" // colour 3 of 2
                     "</wangset></wangsets></tileset>\n");
    test::write_text(dir / "keep.rules", "keep\n");
    const auto r =
        test::run_tilegen("import-rules bad.tsx -o keep.rules --manifest m.toml", dir.path());
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("bad.tsx:6:1: error: bad <wangtile>") != std::string::npos);
    CHECK(test::read_text(dir / "keep.rules") == "keep\n");
    CHECK_FALSE(fs::exists(dir / "m.toml"));
}

TEST_CASE("import-rules: bad Wang sets are refused at their line") {
    Diagnostics d;
    CHECK_FALSE(
        io::import_wang_rules("<tileset><image source=\"t.png\"/><wangsets></wangsets></tileset>",
                              "a.tsx", nullptr, "", "", d));
    REQUIRE(d.size() == 1);
    CHECK(format_diagnostic(d[0]).find("a.tsx:1:1: error: the tileset has no Wang set") == 0);
    d.clear();
    const std::string bad =
        "<tileset tilewidth=\"16\" tileheight=\"16\"><image source=\"t.png\"/>\n"
        "<wangsets>\n"
        "<wangset name=\"t\" type=\"mixed\">\n"
        "<wangcolor name=\"water\"/>\n<wangcolor name=\"grass\"/>\n"
        "<wangtile tileid=\"0\" wangid=\"1,1,1\"/>\n"
        "</wangset></wangsets></tileset>\n";
    CHECK_FALSE(io::import_wang_rules(bad, "b.tsx", nullptr, "", "", d));
    REQUIRE(d.size() == 1);
    CHECK(format_diagnostic(d[0]).find("b.tsx:6:1: error: bad <wangtile>") == 0);
    d.clear();
    CHECK_FALSE(io::import_wang_rules("<tileset", "c.tsx", nullptr, "", "", d));
    REQUIRE(d.size() == 1);
    CHECK(format_diagnostic(d[0]).find("c.tsx:1:1: error: malformed XML") == 0);
    d.clear();
    CHECK_FALSE(io::import_wang_rules("<tileset spacing=\"1\"><image source=\"t.png\"/></tileset>",
                                      "d.tsx", nullptr, "", "", d));
    REQUIRE(d.size() == 1);
    CHECK(format_diagnostic(d[0]).find("d.tsx:1:1: error: only tilesets of one image") == 0);
}

TEST_CASE("export-rules: the command writes files Tiled loads, and example.tmx's class layer reads "
          "back into the same map") {
    test::TempDir dir;
    const fs::path recipe = test::source_dir() / "samples" / "two-terrain.toml";
    auto r = test::run_tilegen("export-rules " + test::shell_quote(recipe.string()) + " --tiled " +
                               test::shell_quote((dir / "rules").string()) + " --seed 3");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (const char* f :
         {"rules.txt", "rules-ground.tmx", "classes.tsx", "classes.png", "automap.tsx",
          "automap.png", "two-terrain.tsx", "two-terrain-tiles.png", "example.tmx"})
        CHECK(fs::exists(dir / "rules" / f));
    // tilegen reads the painted class layer back (classes.tsx tiles carry `terrain`): the same
    // tiles as the map generated at that seed (two-terrain has no class passes).
    r = test::run_tilegen("generate " + test::shell_quote(recipe.string()) + " --classes " +
                          test::shell_quote((dir / "rules" / "example.tmx").string() + ":classes") +
                          " -o " + test::shell_quote((dir / "a.tmx").string()));
    REQUIRE(r.exit_code == 0);
    r = test::run_tilegen("generate " + test::shell_quote(recipe.string()) + " --seed 3 -o " +
                          test::shell_quote((dir / "b.tmx").string()));
    REQUIRE(r.exit_code == 0);
    auto data = [](const std::string& tmx) {
        return tmx.substr(tmx.find("<data"), tmx.find("</data>") - tmx.find("<data"));
    };
    CHECK(data(test::read_text(dir / "a.tmx")) == data(test::read_text(dir / "b.tmx")));
    // A bad recipe: its error, and nothing written.
    test::write_text(dir / "bad.toml", "[map]\nwidth = 0\n");
    r = test::run_tilegen("export-rules " + test::shell_quote((dir / "bad.toml").string()) +
                          " --tiled " + test::shell_quote((dir / "none").string()));
    CHECK(r.exit_code == 1);
    CHECK(r.err.find((dir / "bad.toml").string() + ":2:") == 0);
    CHECK_FALSE(fs::exists(dir / "none"));
    if (!test::have_program("tiled")) return;
    for (const char* f : {"rules-ground.tmx", "example.tmx"}) {
        CAPTURE(f);
        const auto t = test::run("QT_QPA_PLATFORM=offscreen tiled --export-map json " +
                                 test::shell_quote((dir / "rules" / f).string()) + " " +
                                 test::shell_quote((dir / "out.json").string()));
        INFO(t.err);
        CHECK(t.exit_code == 0);
        CHECK(test::read_text(dir / "out.json").find("\"tilelayer\"") != std::string::npos);
    }
}
