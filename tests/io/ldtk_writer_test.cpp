// -o X.ldtk (io/ldtk_writer.hpp, docs/ldtk.md): every export validates against LDtk's published
// JSON schema (python3-jsonschema, Debian's), its baked tiles equal the TMX's tiles cell for cell
// (ids and flips), its IntGrid equals the classes, and its translated rules, evaluated here as
// LDtk evaluates them (first active rule in order, flipX tried after the pattern as written),
// pick for each cell the rule its baked tile names wherever that rule is expressible.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "app/fixture.hpp"
#include "app/json_reader.hpp"
#include "core/pipeline.hpp"
#include "core/rules/rule_matcher.hpp"
#include "io/file_source.hpp"
#include "io/ldtk_writer.hpp"
#include "io/project_loader.hpp"
#include "io/tmx_writer.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

namespace {

// LDtk 1.5.3's published schema (MIT), kept with its licence as test data.
fs::path schema_path() {
    return source_dir() / "tests/data/ldtk/JSON_SCHEMA.json";
}

// python3 with Debian's python3-jsonschema, or "" (skipped outside CI).
std::string validator_python() {
    for (const char* py : {"/usr/bin/python3", "python3"})
        if (run(std::string(py) + " -c 'import jsonschema' 2>/dev/null").exit_code == 0) return py;
    if (std::getenv("CI")) FAIL("python3-jsonschema is missing; .ci/install-deps must install it");
    MESSAGE("skipped: python3-jsonschema is not installed (apt-get install python3-jsonschema)");
    return "";
}

// The gids of every tile layer of a CSV TMX, by layer name.
std::map<std::string, std::vector<Gid>> tmx_layers(const std::string& tmx) {
    std::map<std::string, std::vector<Gid>> out;
    std::size_t at = 0;
    while ((at = tmx.find("<layer ", at)) != std::string::npos) {
        const std::size_t n = tmx.find("name=\"", at) + 6;
        const std::string name = tmx.substr(n, tmx.find('"', n) - n);
        const std::size_t d = tmx.find("<data encoding=\"csv\">", at) + 21;
        const std::size_t e = tmx.find("</data>", d);
        std::vector<Gid> gids;
        std::string cur;
        for (std::size_t i = d; i <= e; ++i) {
            const char c = tmx[i];
            if (c >= '0' && c <= '9') {
                cur += c;
            } else if (!cur.empty()) {
                gids.push_back(static_cast<Gid>(std::stoul(cur)));
                cur.clear();
            }
        }
        out[name] = std::move(gids);
        at = e;
    }
    return out;
}

int as_int(const Json& j) {
    return static_cast<int>(j.num);
}

// One LDtk rule as the test reads it back.
struct LRule {
    int uid = 0, size = 1;
    bool active = true, flip_x = false;
    std::vector<int> pattern, tiles;
};

// LDtk's match of one pattern cell value against an IntGrid value: 0 anything, 1000001 any
// value, v a value, (g + 1) * 1000 any value of group g (group_of: value -> group uid), negatives
// the opposite.
bool value_matches(int pattern, int value, const std::map<int, int>& group_of) {
    if (pattern == 0) return true;
    if (pattern == 1000001) return value != 0;
    if (pattern == -1000001) return value == 0;
    const int v = pattern > 0 ? pattern : -pattern;
    bool in = v == value;
    if (v > 999) {
        const auto it = group_of.find(value);
        in = it != group_of.end() && it->second == v / 1000 - 1;
    }
    return pattern > 0 ? in : !in;
}

bool rule_matches(const LRule& r, const std::vector<int>& grid, int w, int h, int x, int y,
                  int dir_x, const std::map<int, int>& group_of) {
    const int rad = r.size / 2;
    for (int py = 0; py < r.size; ++py)
        for (int px = 0; px < r.size; ++px) {
            const int v = r.pattern[static_cast<std::size_t>(py * r.size + px)];
            if (v == 0) continue;
            const int cx = x + (px - rad) * dir_x, cy = y + py - rad;
            if (cx < 0 || cy < 0 || cx >= w || cy >= h) return false; // (tested inside only)
            if (!value_matches(v, grid[static_cast<std::size_t>(cy * w + cx)], group_of))
                return false;
        }
    return true;
}

struct Checked {
    std::size_t cells = 0, reproduced = 0, inactive = 0; // baked tiles; picked as LDtk would
    std::size_t wrong = 0; // tiles whose src, d, rule or tile disagree (counted, then checked once)
};

// The text of a document's member `key` up to the next member `next` (the writer's order).
std::string member(const std::string& json, const std::string& key, const std::string& next) {
    const std::size_t a = json.find("\"" + key + "\":"), b = json.find(",\"" + next + "\":");
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    return json.substr(a + key.size() + 3, b - a - key.size() - 3);
}

// Checks one export (its "defs" and its level) against the map it was made from and the TMX of
// that map.
Checked check_export(const Json& defs, const Json& level, const io::LdtkAtlas& atlas_image,
                     const GenerateResult& result, const std::string& tmx) {
    Checked out;
    const Map& map = result.map;
    const int grid = map.atlas.tile_width;
    const auto tmx_gids = tmx_layers(tmx);
    REQUIRE(tmx_gids.size() == map.layers.size());

    // The tileset: copies of turned tiles from customData "tilegen:source=I;flips=dhv".
    const Json& tileset = defs["tilesets"][0];
    const int cwid = as_int(tileset["__cWid"]);
    CHECK(as_int(tileset["pxWid"]) == atlas_image.image.width());
    CHECK(as_int(tileset["pxHei"]) == atlas_image.image.height());
    std::map<int, Gid> copy_gid;
    for (const Json& c : tileset["customData"].items) {
        const std::string data = c["data"].str;
        REQUIRE(data.rfind("tilegen:source=", 0) == 0);
        const std::size_t semi = data.find(';');
        Gid g = static_cast<Gid>(std::stoi(data.substr(15, semi - 15)) + 1);
        const std::string flips = data.substr(data.find("flips=") + 6);
        if (flips.find('d') != std::string::npos) g |= kFlipDiagonal;
        if (flips.find('h') != std::string::npos) g |= kFlipHorizontal;
        if (flips.find('v') != std::string::npos) g |= kFlipVertical;
        copy_gid[as_int(c["tileId"])] = g;
        // The copy's pixels are the source tile drawn with those flips (map.hpp's draw_tile).
        Image expected(grid, grid), got(grid, grid);
        draw_tile(map.atlas, g, expected, 0, 0);
        const int id = as_int(c["tileId"]);
        for (int y = 0; y < grid; ++y)
            for (int x = 0; x < grid; ++x)
                got.set(x, y,
                        atlas_image.image.get((id % cwid) * grid + x, (id / cwid) * grid + y));
        bool same = true;
        for (int y = 0; y < grid; ++y)
            for (int x = 0; x < grid; ++x)
                same = same && (expected.get(x, y) == got.get(x, y) ||
                                (expected.get(x, y).a == 0 && got.get(x, y).a == 0));
        CHECK_MESSAGE(same, "copy " << id << " is not its source tile turned");
    }

    // Rules by uid, in order, per auto-layer; IntGrid values' groups.
    std::map<std::string, std::vector<LRule>> rules_of;
    std::map<int, int> group_of;
    for (const Json& layer : defs["layers"].items) {
        if (layer["__type"].str == "IntGrid")
            for (const Json& v : layer["intGridValues"].items)
                if (as_int(v["groupUid"]) != 0)
                    group_of[as_int(v["value"])] = as_int(v["groupUid"]);
        if (layer["__type"].str != "AutoLayer") continue;
        auto& list = rules_of[layer["identifier"].str];
        for (const Json& g : layer["autoRuleGroups"].items)
            for (const Json& r : g["rules"].items) {
                LRule lr;
                lr.uid = as_int(r["uid"]);
                lr.size = as_int(r["size"]);
                lr.active = r["active"].b;
                lr.flip_x = r["flipX"].b;
                for (const Json& v : r["pattern"].items)
                    lr.pattern.push_back(as_int(v));
                for (const Json& t : r["tileRectsIds"].items)
                    lr.tiles.push_back(as_int(t[0]));
                out.wrong += lr.pattern.size() != static_cast<std::size_t>(lr.size * lr.size);
                list.push_back(lr);
            }
    }

    CHECK(as_int(level["pxWid"]) == map.width * grid);
    std::vector<int> intgrid;
    std::size_t auto_layers = 0;
    for (const Json& li : level["layerInstances"].items)
        if (li["__type"].str == "IntGrid")
            for (const Json& v : li["intGridCsv"].items)
                intgrid.push_back(as_int(v));
    REQUIRE(intgrid.size() == result.classes.size());
    std::vector<int> classes;
    for (ClassId c : result.classes.cells())
        classes.push_back(static_cast<int>(c) + 1);
    CHECK(intgrid == classes);

    for (const Json& li : level["layerInstances"].items) {
        if (li["__type"].str != "AutoLayer" && li["__type"].str != "Tiles") continue;
        ++auto_layers;
        const std::string ident = li["__identifier"].str;
        // The TMX layer of this name (identifiers capitalise the first letter).
        const std::vector<Gid>* want = nullptr;
        for (const auto& [name, gids] : tmx_gids)
            if (!name.empty() &&
                static_cast<char>(std::toupper(static_cast<unsigned char>(name[0]))) +
                        name.substr(1) ==
                    ident)
                want = &gids;
        REQUIRE(want != nullptr);
        if (li["__type"].str == "Tiles") {
            // A corner layer (docs/rules.md): (W+1) x (H+1) baked tiles, tile (i, j) at cell (i, j)
            // of a layer offset by half a tile up and left; the offset is the instance's, so that
            // LDtk counts W+1 columns (ceil((pxWid - pxOffsetX) / grid)).
            const int cw = map.width + 1, ch = map.height + 1;
            REQUIRE(want->size() == static_cast<std::size_t>(cw * ch));
            CHECK(as_int(li["__cWid"]) == cw);
            CHECK(as_int(li["__cHei"]) == ch);
            CHECK(as_int(li["__cWid"]) ==
                  (as_int(level["pxWid"]) - as_int(li["pxOffsetX"]) + grid - 1) / grid);
            CHECK(as_int(li["__cHei"]) ==
                  (as_int(level["pxHei"]) - as_int(li["pxOffsetY"]) + grid - 1) / grid);
            CHECK(as_int(li["__pxTotalOffsetX"]) == -grid / 2);
            CHECK(as_int(li["__pxTotalOffsetY"]) == -grid / 2);
            CHECK(li["autoLayerTiles"].items.empty());
            std::vector<Gid> got(want->size(), 0);
            for (const Json& t : li["gridTiles"].items) {
                const int x = as_int(t["px"][0]) / grid, y = as_int(t["px"][1]) / grid;
                if (x < 0 || y < 0 || x >= cw || y >= ch) {
                    ++out.wrong;
                    continue;
                }
                const int id = as_int(t["t"]), f = as_int(t["f"]);
                out.wrong += as_int(t["src"][0]) != (id % cwid) * grid ||
                             as_int(t["src"][1]) != (id / cwid) * grid ||
                             as_int(t["d"][0]) != y * cw + x;
                Gid g = copy_gid.count(id) ? copy_gid[id] : static_cast<Gid>(id + 1);
                if (f & 1) g ^= kFlipHorizontal;
                if (f & 2) g ^= kFlipVertical;
                out.wrong += got[static_cast<std::size_t>(y * cw + x)] != 0;
                got[static_cast<std::size_t>(y * cw + x)] = g;
                ++out.cells;
            }
            CHECK(got == *want);
            continue;
        }
        std::vector<Gid> got(want->size(), 0);
        const auto& rules = rules_of[ident];
        for (const Json& t : li["autoLayerTiles"].items) {
            const int x = as_int(t["px"][0]) / grid, y = as_int(t["px"][1]) / grid;
            if (x < 0 || y < 0 || x >= map.width || y >= map.height) {
                ++out.wrong;
                continue;
            }
            const int id = as_int(t["t"]), f = as_int(t["f"]);
            out.wrong += as_int(t["src"][0]) != (id % cwid) * grid ||
                         as_int(t["src"][1]) != (id / cwid) * grid ||
                         as_int(t["d"][1]) != y * map.width + x;
            Gid g = copy_gid.count(id) ? copy_gid[id] : static_cast<Gid>(id + 1);
            if (f & 1) g ^= kFlipHorizontal;
            if (f & 2) g ^= kFlipVertical;
            out.wrong += got[static_cast<std::size_t>(y * map.width + x)] != 0;
            got[static_cast<std::size_t>(y * map.width + x)] = g;
            // The rule it names, and LDtk's own choice of rule for this cell.
            const int uid = as_int(t["d"][0]);
            const auto named = std::find_if(rules.begin(), rules.end(),
                                            [&](const LRule& r) { return r.uid == uid; });
            ++out.cells;
            if (named == rules.end()) {
                ++out.wrong;
                continue;
            }
            if (!named->active) {
                ++out.inactive;
                continue;
            }
            out.wrong +=
                std::find(named->tiles.begin(), named->tiles.end(), id) == named->tiles.end();
            const int rad = named->size / 2;
            if (x < 2 || y < 2 || x >= map.width - 2 || y >= map.height - 2 || rad > 2) continue;
            int first = -1, dir = 1;
            for (const LRule& r : rules) {
                if (!r.active) continue;
                if (rule_matches(r, intgrid, map.width, map.height, x, y, 1, group_of)) {
                    first = r.uid;
                    break;
                }
                if (r.flip_x &&
                    rule_matches(r, intgrid, map.width, map.height, x, y, -1, group_of)) {
                    first = r.uid;
                    dir = -1;
                    break;
                }
            }
            out.wrong += first != uid || (dir == -1) != ((f & 1) != 0);
            if (first == uid) ++out.reproduced;
        }
        CHECK(got == *want);
    }
    CHECK(auto_layers == map.layers.size());
    return out;
}

io::LdtkSource source_of(const Project& project, const GenerateResult& result,
                         std::vector<std::uint32_t>& colours) {
    colours.clear();
    for (std::size_t i = 0; i < project.recipe.terrain.size(); ++i)
        colours.push_back(terrain_rgb(project.recipe, i));
    io::LdtkSource s;
    s.map = &result.map;
    s.classes = &result.classes;
    s.layers = result.layers;
    s.decisions = result.decisions;
    s.terrain = project.recipe.terrain;
    s.colours = colours;
    s.outside = outside_policy(project.recipe).fixed_class;
    s.seed = result.seed;
    return s;
}

void validate(const std::vector<std::string>& files) {
    const std::string python = validator_python();
    if (python.empty() || files.empty()) return;
    std::string cmd = python + " " +
                      shell_quote((source_dir() / "tests/data/ldtk/validate.py").string()) + " " +
                      shell_quote(schema_path().string());
    for (const std::string& f : files)
        cmd += " " + shell_quote(f);
    const RunResult r = run(cmd);
    CHECK_MESSAGE(r.exit_code == 0, r.out << r.err);
}

// Exports each recipe for `seeds` seeds at `w` x `h` and checks every export (check_export); the
// first seed's file of each recipe is written to `dir` and returned (for the schema).
std::vector<std::string> check_recipes(const std::vector<fs::path>& recipes, int seeds, int w,
                                       int h, const fs::path& dir, std::uint64_t first_seed = 1) {
    std::vector<std::string> files;
    for (const fs::path& recipe : recipes) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        REQUIRE(project);
        Checked total;
        std::string first_defs;
        Json defs;
        for (std::uint64_t seed = first_seed; seed < first_seed + static_cast<std::uint64_t>(seeds);
             ++seed) {
            CAPTURE(seed);
            GenerateOptions options;
            options.seed = seed;
            options.width = w;
            options.height = h;
            GenerateResult result = generate_map(*project, options);
            REQUIRE(result.constraints.met);
            std::vector<std::uint32_t> colours;
            const io::LdtkSource source = source_of(*project, result, colours);
            const fs::path out = dir / (recipe.stem().string() + ".ldtk");
            const io::LdtkDocument doc = io::ldtk_document(source, out);
            const std::string tmx = io::map_text(result.map, "x.tmx");
            // The definitions (rules, tilesets) seldom change with the seed: parsed when they do.
            const std::string defs_text = member(doc.json, "defs", "levels");
            if (defs_text != first_defs) {
                first_defs = defs_text;
                defs = JsonReader::parse(defs_text);
            }
            const Json levels = JsonReader::parse(member(doc.json, "levels", "worlds"));
            REQUIRE(levels.items.size() == 1);
            const Checked c = check_export(defs, levels[0], doc.atlas, result, tmx);
            CHECK(c.wrong == 0);
            total.cells += c.cells;
            total.reproduced += c.reproduced;
            total.inactive += c.inactive;
            if (seed == first_seed) {
                write_text(out, doc.json);
                files.push_back(out.string());
                // Without the decisions (keep_details off) the writer finds the same rules.
                io::LdtkSource lean = source;
                lean.decisions = {};
                CHECK(io::ldtk_document(lean, out).json == doc.json);
            }
        }
        CHECK(total.cells > 0);
        MESSAGE(recipe.filename().string()
                << ": " << total.cells << " baked tiles, " << total.inactive
                << " by rules LDtk cannot express, " << total.reproduced
                << " inner cells checked against LDtk's rule order");
    }
    return files;
}

} // namespace

TEST_CASE("ldtk: samples (first half), 20 seeds: baked tiles equal the TMX's, rules pick as "
          "tilegen did, the files validate against LDtk's schema") {
    TempDir dir;
    validate(check_recipes(test::sample_recipes(0, 2), 20, 20, 14, dir.path()));
}

TEST_CASE("ldtk: samples (second half), 20 seeds: baked tiles equal the TMX's, rules pick as "
          "tilegen did, the files validate against LDtk's schema") {
    TempDir dir;
    validate(check_recipes(test::sample_recipes(1, 2), 20, 20, 14, dir.path()));
}

TEST_CASE("ldtk: places and objects are entities at their pixel positions") {
    TempDir dir;
    const fs::path recipe = source_dir() / "tests/data/roads/roads.toml";
    const auto files = check_recipes({recipe}, 1, 96, 64, dir.path(), 7);
    validate(files);
    REQUIRE(files.size() == 1);
    Diagnostics d;
    auto project = io::load_project(recipe, io::DiskFiles{}, d);
    REQUIRE(project);
    GenerateOptions options;
    options.seed = 7;
    const GenerateResult result = generate_map(*project, options);
    const Json doc = JsonReader::parse(read_text(files[0]));
    std::map<std::string, const Json*> by_name;
    for (const Json& li : doc["levels"][0]["layerInstances"].items)
        by_name[li["__identifier"].str] = &li;
    std::size_t layers = 0;
    for (const ObjectLayer& layer : result.map.object_layers) {
        if (layer.objects.empty()) continue;
        ++layers;
        std::string ident = layer.name;
        ident[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(ident[0])));
        REQUIRE(by_name.count(ident) == 1);
        const Json& entities = (*by_name[ident])["entityInstances"];
        REQUIRE(entities.items.size() == layer.objects.size());
        for (std::size_t i = 0; i < layer.objects.size(); ++i) {
            CHECK(as_int(entities[i]["px"][0]) == layer.objects[i].x);
            CHECK(as_int(entities[i]["px"][1]) == layer.objects[i].y);
            // Sprites and sprite-drawn places stand on their bottom-left corner (pivot 0,1).
            CHECK(entities[i]["__pivot"][1].num == (layer.objects[i].sprite >= 0 ? 1.0 : 0.0));
            if (layer.named.empty()) continue;
            CHECK(entities[i]["__identifier"].str.rfind("Place_", 0) == 0);
            // The place's properties as fields, with their values.
            const Json& fields = entities[i]["fieldInstances"];
            REQUIRE(fields.items.size() == layer.named[i].properties.size());
            for (std::size_t k = 0; k < fields.items.size(); ++k) {
                const MapProperty& p = layer.named[i].properties[k];
                CHECK(fields[k]["__identifier"].str == p.name);
                const Json& v = fields[k]["__value"];
                if (p.type == "bool")
                    CHECK(v.b == (p.value == "true"));
                else
                    CHECK(v.num == std::stod(p.value));
            }
        }
    }
    CHECK(layers == 2); // places and objects
}

TEST_CASE("ldtk: mirror variants become flipX rules, turned targets get turned copies, a fixed "
          "outside class is LDtk's outOfBoundsValue") {
    Fixture f;
    write_text(f.dir / "turned.rules", "??? ?w? ???  water water-2@r90*0.5\n"
                                       "mirror ?w? gg? ???  shore@fy\n"
                                       "rotate ??? ?gw ???  shore@fx\n"
                                       "??? ?g? ???  grass\n");
    f.write_recipe("turned.toml", "turned.rules");
    std::string recipe_text = read_text(f.dir / "turned.toml");
    recipe_text.replace(recipe_text.find("[rules]\n"), 8, "[rules]\noutside = \"g\"\n");
    write_text(f.dir / "turned.toml", recipe_text);
    TempDir out;
    const auto files = check_recipes({f.dir / "turned.toml"}, 20, 24, 16, out.path());
    validate(files);
    const Json doc = JsonReader::parse(read_text(files.at(0)));
    int flip_rules = 0, copies = 0;
    for (const Json& layer : doc["defs"]["layers"].items)
        for (const Json& g : layer["autoRuleGroups"].items)
            for (const Json& r : g["rules"].items) {
                flip_rules += r["flipX"].b ? 1 : 0;
                CHECK(r["outOfBoundsValue"].num == 2.0); // g, the second class
            }
    copies = static_cast<int>(doc["defs"]["tilesets"][0]["customData"].items.size());
    CHECK(flip_rules == 1);
    CHECK(copies >= 5); // water-2 r90; shore fy, fx and the rotations of shore fx
    int flipped = 0;
    for (const Json& li : doc["levels"][0]["layerInstances"].items)
        if (li["__type"].str == "AutoLayer")
            for (const Json& t : li["autoLayerTiles"].items)
                flipped += as_int(t["f"]) == 1 ? 1 : 0;
    CHECK(flipped > 0);
}

TEST_CASE("ldtk: [screens] become GridVania levels that rebuild the single-level export") {
    // The roads recipe at 96 x 64 with screens of 16 x 11 cells: 6 x 6 levels, the last row 9
    // cells high. Every baked tile, IntGrid value and entity of the single-level export stands
    // in exactly one level, at the same world position.
    TempDir dir;
    Diagnostics d;
    auto project =
        io::load_project(source_dir() / "tests/data/roads/roads.toml", io::DiskFiles{}, d);
    REQUIRE(project);
    GenerateOptions options;
    options.seed = 7;
    const GenerateResult result = generate_map(*project, options);
    std::vector<std::uint32_t> colours;
    io::LdtkSource source = source_of(*project, result, colours);
    const int grid = result.map.atlas.tile_width;
    const Json whole = JsonReader::parse(io::ldtk_document(source, dir / "whole.ldtk").json);
    source.screen_width = 16;
    source.screen_height = 11;
    const io::LdtkDocument doc = io::ldtk_document(source, dir / "screens.ldtk");
    write_text(dir / "screens.ldtk", doc.json);
    validate({(dir / "screens.ldtk").string()});
    const Json screens = JsonReader::parse(doc.json);
    CHECK(screens["worldLayout"].str == "GridVania");
    CHECK(as_int(screens["worldGridWidth"]) == 16 * grid);
    CHECK(as_int(screens["worldGridHeight"]) == 11 * grid);
    REQUIRE(screens["levels"].items.size() == 36);

    // Per layer: world pixel position -> what stands there (tile id and flips, IntGrid value,
    // entity identifier).
    using Placed = std::multimap<std::tuple<std::string, int, int>, std::string>;
    const auto placed = [](const Json& level, Placed& out) {
        const int wx = as_int(level["worldX"]), wy = as_int(level["worldY"]);
        for (const Json& li : level["layerInstances"].items) {
            const std::string layer = li["__identifier"].str;
            const int cwid = as_int(li["__cWid"]);
            for (const Json& t : li["autoLayerTiles"].items)
                out.emplace(std::tuple{layer, wx + as_int(t["px"][0]), wy + as_int(t["px"][1])},
                            std::to_string(as_int(t["t"])) + "/" + std::to_string(as_int(t["f"])));
            for (std::size_t i = 0; i < li["intGridCsv"].items.size(); ++i)
                out.emplace(std::tuple{layer, wx + static_cast<int>(i) % cwid,
                                       wy + static_cast<int>(i) / cwid},
                            std::to_string(as_int(li["intGridCsv"][i])));
            for (const Json& e : li["entityInstances"].items)
                out.emplace(std::tuple{layer, wx + as_int(e["px"][0]), wy + as_int(e["px"][1])},
                            e["__identifier"].str + " " + e["iid"].str);
        }
    };
    Placed from_whole, from_levels;
    placed(whole["levels"][0], from_whole);
    int worlds_ok = 0;
    for (const Json& level : screens["levels"].items) {
        // IntGrid cells are counted in cells: scale the level's offset back for them.
        Placed one;
        placed(level, one);
        for (const auto& [key, what] : one) {
            auto [layer, x, y] = key;
            if (layer == "Classes") {
                x += as_int(level["worldX"]) / grid - as_int(level["worldX"]);
                y += as_int(level["worldY"]) / grid - as_int(level["worldY"]);
            }
            from_levels.emplace(std::tuple{layer, x, y}, what);
        }
        worlds_ok += as_int(level["pxWid"]) <= 16 * grid && as_int(level["pxHei"]) <= 11 * grid &&
                     as_int(level["worldX"]) % (16 * grid) == 0 &&
                     as_int(level["worldY"]) % (11 * grid) == 0;
    }
    CHECK(worlds_ok == 36);
    CHECK(from_levels.size() == from_whole.size());
    CHECK(from_levels == from_whole);
}

TEST_CASE("ldtk: [screens] with a corner layer: each corner tile in one level, at its place") {
    // two-terrain-corners at 20 x 14 cut into screens of 7 x 5: 3 x 3 levels, the last column
    // 6 cells wide, the last row 4 high. Corner tile (i, j) goes to the level holding cell
    // (min(i, W-1), min(j, H-1)): each level's Tiles layer has its cells + 1 columns (LDtk's
    // count with the instance offset), the last one used only at the map's right (bottom) edge.
    TempDir dir;
    Diagnostics d;
    auto project =
        io::load_project(source_dir() / "samples/two-terrain-corners.toml", io::DiskFiles{}, d);
    REQUIRE(project);
    GenerateOptions options;
    options.seed = 3;
    options.width = 20;
    options.height = 14;
    const GenerateResult result = generate_map(*project, options);
    std::vector<std::uint32_t> colours;
    io::LdtkSource source = source_of(*project, result, colours);
    const int grid = result.map.atlas.tile_width;
    const Json whole = JsonReader::parse(io::ldtk_document(source, dir / "whole.ldtk").json);
    source.screen_width = 7;
    source.screen_height = 5;
    const io::LdtkDocument doc = io::ldtk_document(source, dir / "screens.ldtk");
    write_text(dir / "screens.ldtk", doc.json);
    validate({(dir / "screens.ldtk").string()});
    const Json screens = JsonReader::parse(doc.json);
    REQUIRE(screens["levels"].items.size() == 9);
    // World pixel position of each tile's top-left -> tile id, for every Tiles layer.
    using Placed = std::multimap<std::tuple<std::string, int, int>, int>;
    std::size_t wrong = 0;
    const auto placed = [&](const Json& level, Placed& out) {
        const int wx = as_int(level["worldX"]), wy = as_int(level["worldY"]);
        const int cw = as_int(level["pxWid"]) / grid, ch = as_int(level["pxHei"]) / grid;
        const bool right = wx + cw * grid == 20 * grid, bottom = wy + ch * grid == 14 * grid;
        for (const Json& li : level["layerInstances"].items) {
            if (li["__type"].str != "Tiles") continue;
            wrong += as_int(li["__cWid"]) != cw + 1 || as_int(li["__cHei"]) != ch + 1;
            wrong += as_int(li["__pxTotalOffsetX"]) != -grid / 2;
            for (const Json& t : li["gridTiles"].items) {
                const int x = as_int(t["px"][0]) / grid, y = as_int(t["px"][1]) / grid;
                wrong += x > cw || y > ch || (x == cw && !right) || (y == ch && !bottom);
                wrong += as_int(t["d"][0]) != y * (cw + 1) + x;
                out.emplace(std::tuple{li["__identifier"].str,
                                       wx + as_int(li["__pxTotalOffsetX"]) + as_int(t["px"][0]),
                                       wy + as_int(li["__pxTotalOffsetY"]) + as_int(t["px"][1])},
                            as_int(t["t"]));
            }
        }
    };
    Placed from_whole, from_levels;
    placed(whole["levels"][0], from_whole);
    for (const Json& level : screens["levels"].items)
        placed(level, from_levels);
    CHECK(wrong == 0);
    CHECK(from_whole.size() > 21 * 15 / 2);
    CHECK(from_levels == from_whole);
}
