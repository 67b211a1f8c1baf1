// -o X.tscn (io/godot_writer.hpp, docs/godot.md): a reader of .tscn/.tres written here from the
// format's description (Godot 4.3's tile_map_data: uint16 format 0, then 12-byte little-endian
// records) rebuilds each cell's atlas coordinates and flip flags, equal to the TMX for every sample
// and 20 seeds; sprites, custom data and peering bits are checked against the map; and when a Godot
// 4 binary (godot4 or godot) is on PATH, Godot itself loads the scene headless and lists its cells
// (skipped otherwise: Debian 12 ships Godot 3 only).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/pipeline.hpp"
#include "io/file_source.hpp"
#include "io/godot_writer.hpp"
#include "io/png.hpp"
#include "io/project_loader.hpp"
#include "io/tmx_writer.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

namespace {

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
            if (tmx[i] >= '0' && tmx[i] <= '9') {
                cur += tmx[i];
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

// Each tile layer's width, height, offsetx, offsety (0 when absent) in a TMX, by layer name.
std::map<std::string, std::array<int, 4>> tmx_geometry(const std::string& tmx) {
    std::map<std::string, std::array<int, 4>> out;
    std::size_t at = 0;
    while ((at = tmx.find("<layer ", at)) != std::string::npos) {
        const std::string tag = tmx.substr(at, tmx.find('>', at) - at);
        const auto attr = [&](const std::string& a) {
            const std::size_t p = tag.find(" " + a + "=\"");
            return p == std::string::npos ? 0 : std::stoi(tag.substr(p + a.size() + 3));
        };
        const std::size_t n = tag.find("name=\"") + 6;
        out[tag.substr(n, tag.find('"', n) - n)] = {attr("width"), attr("height"), attr("offsetx"),
                                                    attr("offsety")};
        at += tag.size();
    }
    return out;
}

// What the test reads from a .tres.
struct TileSetFile {
    int tile_w = 0, tile_h = 0;
    std::map<std::string, std::map<std::string, std::string>> tiles; // "x:y" -> property -> value
    std::vector<std::string> terrain_names;
};

std::string unquote(const std::string& v) {
    return v.size() >= 2 && v.front() == '"' ? v.substr(1, v.size() - 2) : v;
}

TileSetFile read_tres(const std::string& text) {
    TileSetFile f;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t eq = line.find(" = ");
        if (eq == std::string::npos) continue;
        const std::string key = line.substr(0, eq), value = line.substr(eq + 3);
        if (key == "texture_region_size")
            std::sscanf(value.c_str(), "Vector2i(%d, %d)", &f.tile_w, &f.tile_h);
        else if (key.rfind("terrain_set_0/terrain_", 0) == 0 &&
                 key.find("/name") != std::string::npos)
            f.terrain_names.push_back(unquote(value));
        else if (!key.empty() && key[0] >= '0' && key[0] <= '9' &&
                 key.find(':') != std::string::npos) {
            const std::size_t slash = key.find('/');
            const std::string coords = key.substr(0, slash);
            const std::string rest = key.substr(slash + 1); // "0" or "0/property"
            f.tiles[coords][rest == "0" ? std::string() : rest.substr(2)] = unquote(value);
        }
    }
    return f;
}

struct Cell {
    int x, y, source, ax, ay, alternative;
};
struct SceneFile {
    std::vector<std::pair<std::string, std::vector<Cell>>> layers;  // TileMapLayer nodes in order
    std::map<std::string, std::array<int, 2>> layer_position;       // TileMapLayer -> position
    std::map<std::string, std::vector<std::array<int, 6>>> sprites; // parent -> x, y, rect x y w h
    std::map<std::string, std::string> y_sorted;                    // parent -> "true"
};

SceneFile read_tscn(const std::string& text) {
    SceneFile f;
    std::istringstream in(text);
    std::string line, node_type, node_name, parent;
    std::array<int, 6> sprite{};
    while (std::getline(in, line)) {
        if (line.rfind("[node ", 0) == 0) {
            const auto attr = [&](const std::string& a) {
                const std::size_t p = line.find(a + "=\"");
                if (p == std::string::npos) return std::string();
                return line.substr(p + a.size() + 2,
                                   line.find('"', p + a.size() + 2) - p - a.size() - 2);
            };
            node_type = attr("type");
            node_name = attr("name");
            parent = attr("parent");
            if (node_type == "TileMapLayer") f.layers.push_back({node_name, {}});
            continue;
        }
        if (node_type == "TileMapLayer" && line.rfind("position = ", 0) == 0) {
            std::array<int, 2> p{};
            REQUIRE(std::sscanf(line.c_str(), "position = Vector2(%d, %d)", &p[0], &p[1]) == 2);
            f.layer_position[node_name] = p;
        }
        if (node_type == "Node2D" && line == "y_sort_enabled = true")
            f.y_sorted[node_name] = "true";
        if (node_type == "Sprite2D") {
            if (line.rfind("position = ", 0) == 0)
                std::sscanf(line.c_str(), "position = Vector2(%d, %d)", &sprite[0], &sprite[1]);
            if (line.rfind("region_rect = ", 0) == 0) {
                std::sscanf(line.c_str(), "region_rect = Rect2(%d, %d, %d, %d)", &sprite[2],
                            &sprite[3], &sprite[4], &sprite[5]);
                f.sprites[parent].push_back(sprite);
            }
        }
        if (node_type == "TileMapLayer" && line.rfind("tile_map_data = PackedByteArray(", 0) == 0) {
            std::vector<int> bytes;
            std::string num;
            for (std::size_t i = 32; i < line.size(); ++i) {
                if (line[i] >= '0' && line[i] <= '9') {
                    num += line[i];
                } else if (!num.empty()) {
                    bytes.push_back(std::stoi(num));
                    num.clear();
                }
            }
            REQUIRE(bytes.size() >= 2);
            REQUIRE((bytes.size() - 2) % 12 == 0);
            CHECK((bytes[0] | (bytes[1] << 8)) == 0); // format 0
            const auto u16 = [&](std::size_t at) { return bytes[at] | (bytes[at + 1] << 8); };
            const auto s16 = [&](std::size_t at) {
                const int v = u16(at);
                return v >= 0x8000 ? v - 0x10000 : v;
            };
            for (std::size_t o = 2; o < bytes.size(); o += 12)
                f.layers.back().second.push_back(
                    {s16(o), s16(o + 2), u16(o + 4), u16(o + 6), u16(o + 8), u16(o + 10)});
        }
    }
    return f;
}

// Godot's peering bit for one direction of the painter's names (n ne e se s sw w nw).
std::string peering_of(const std::string& dir) {
    static const std::map<std::string, std::string> m = {
        {"n", "top_side"},    {"ne", "top_right_corner"},
        {"e", "right_side"},  {"se", "bottom_right_corner"},
        {"s", "bottom_side"}, {"sw", "bottom_left_corner"},
        {"w", "left_side"},   {"nw", "top_left_corner"}};
    auto it = m.find(dir);
    return it == m.end() ? std::string() : it->second;
}

void check_scene(const Project& project, const GenerateResult& result,
                 std::size_t& peering_checked) {
    const Map& map = result.map;
    const fs::path scene = "x.tscn";
    const TileSetFile tres = read_tres(io::godot_tileset_text(map, project.recipe.terrain, scene));
    const SceneFile tscn = read_tscn(io::godot_scene_text(map, scene));
    const std::string tmx = io::map_text(map, "x.tmx");
    const auto want = tmx_layers(tmx);
    const auto geometry = tmx_geometry(tmx);
    REQUIRE(tres.tile_w == map.atlas.tile_width);
    // Atlas columns as Godot counts them: the texture's width over the region size.
    const int columns = map.atlas.image.width() / tres.tile_w;
    REQUIRE(tscn.layers.size() == map.layers.size());
    std::size_t wrong = 0;
    for (const auto& [name, cells] : tscn.layers) {
        REQUIRE(want.count(name) == 1);
        // The layer's size and offset as the TMX has them: a corner layer (width+1) x (height+1)
        // at (-tile_width/2, -tile_height/2), the node at that position.
        const auto [w, h, offset_x, offset_y] = geometry.at(name);
        const auto pos = tscn.layer_position.find(name);
        const std::array<int, 2> position =
            pos == tscn.layer_position.end() ? std::array<int, 2>{0, 0} : pos->second;
        CHECK(position[0] == offset_x);
        CHECK(position[1] == offset_y);
        std::vector<Gid> got(static_cast<std::size_t>(w * h), 0);
        for (const Cell& c : cells) {
            if (c.x < 0 || c.y < 0 || c.x >= w || c.y >= h || c.source != 0) {
                ++wrong;
                continue;
            }
            // The cell's tile must be declared in the atlas source.
            wrong += tres.tiles.count(std::to_string(c.ax) + ":" + std::to_string(c.ay)) == 0;
            Gid g = static_cast<Gid>(c.ay * columns + c.ax + 1);
            if (c.alternative & 0x1000) g |= kFlipHorizontal;
            if (c.alternative & 0x2000) g |= kFlipVertical;
            if (c.alternative & 0x4000) g |= kFlipDiagonal;
            wrong += (c.alternative & 0x0FFF) != 0;
            got[static_cast<std::size_t>(c.y * w + c.x)] = g;
        }
        CHECK(got == want.at(name));
    }
    CHECK(wrong == 0);
    // Custom data "terrain" and peering bits from the tile names (UPPER-LOWER-DIR).
    std::map<std::string, int> class_of;
    for (std::size_t c = 0; c < project.recipe.terrain.size(); ++c)
        class_of[project.recipe.terrain[c].name] = static_cast<int>(c);
    for (int t = 0; t < map.atlas.tile_count(); ++t) {
        const std::string key = std::to_string(t % columns) + ":" + std::to_string(t / columns);
        REQUIRE(tres.tiles.count(key) == 1);
        const auto& props = tres.tiles.at(key);
        const char symbol =
            map.atlas.terrain.empty() ? 0 : map.atlas.terrain[static_cast<std::size_t>(t)];
        if (symbol != 0) CHECK(props.at("custom_data_0") == std::string(1, symbol));
        const std::string& n = map.atlas.names[static_cast<std::size_t>(t)];
        const std::size_t a = n.find('-'), b = n.rfind('-');
        if (a == std::string::npos || a == b || tres.terrain_names.empty()) continue;
        const std::string upper = n.substr(0, a), lower = n.substr(a + 1, b - a - 1),
                          bit = peering_of(n.substr(b + 1));
        if (!class_of.count(upper) || !class_of.count(lower) || bit.empty()) continue;
        CHECK(props.at("terrains_peering_bit/" + bit) == std::to_string(class_of[lower]));
        CHECK(props.at("terrain") == std::to_string(class_of[upper]));
        ++peering_checked;
    }
    // Sprites: one Sprite2D per sprite object, at its bottom-left, under a y-sorted parent.
    for (const ObjectLayer& layer : map.object_layers) {
        std::vector<std::array<int, 6>> expected;
        for (const MapObject& o : layer.objects)
            if (o.sprite >= 0)
                expected.push_back({o.x, o.y,
                                    (o.sprite % map.sprites.columns) * map.sprites.sprite_width,
                                    (o.sprite / map.sprites.columns) * map.sprites.sprite_height,
                                    map.sprites.sprite_width, map.sprites.sprite_height});
        if (expected.empty()) continue;
        CHECK(tscn.y_sorted.count(layer.name) == 1);
        CHECK(tscn.sprites.count(layer.name) == 1);
        if (tscn.sprites.count(layer.name)) CHECK(tscn.sprites.at(layer.name) == expected);
    }
}

void check_samples(int part) {
    for (const fs::path& recipe : test::sample_recipes(part, 2)) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        REQUIRE(project);
        std::size_t peering = 0;
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            CAPTURE(seed);
            GenerateOptions options;
            options.seed = seed;
            options.width = 20;
            options.height = 14;
            options.keep_details = false;
            const GenerateResult result = generate_map(*project, options);
            check_scene(*project, result, peering);
        }
        MESSAGE(recipe.filename().string()
                << ": peering bits checked on " << peering / 20 << " named transition tiles");
    }
}

std::string godot_binary() {
    for (const char* name : {"godot4", "godot"})
        if (have_program(name)) {
            const RunResult r = run(std::string(name) + " --version 2>/dev/null");
            if (r.exit_code == 0 && r.out.rfind("4.", 0) == 0) return name;
        }
    return "";
}

} // namespace

TEST_CASE(
    "godot: samples (first half), 20 seeds: the scene's cells are the TMX's tiles and flips") {
    check_samples(0);
}

TEST_CASE("godot: samples (second half), 20 seeds: the scene's cells are the TMX's tiles and "
          "flips") {
    check_samples(1);
}

TEST_CASE("godot: places are nodes of the y-sorted 'places' layer with their properties as "
          "metadata") {
    Diagnostics d;
    auto project =
        io::load_project(source_dir() / "tests/data/roads/roads.toml", io::DiskFiles{}, d);
    REQUIRE(project);
    GenerateOptions options;
    options.seed = 7;
    options.keep_details = false;
    const GenerateResult result = generate_map(*project, options);
    const std::string scene = io::godot_scene_text(result.map, "x.tscn");
    std::size_t places = 0, starts = 0;
    for (const ObjectLayer& layer : result.map.object_layers)
        if (layer.name == "places")
            for (const auto& n : layer.named) {
                ++places;
                for (const MapProperty& p : n.properties)
                    starts += p.name == "start" && p.value == "true";
            }
    REQUIRE(places > 0);
    std::size_t index_lines = 0, start_lines = 0;
    for (std::size_t at = scene.find("metadata/index = "); at != std::string::npos;
         at = scene.find("metadata/index = ", at + 1))
        ++index_lines;
    for (std::size_t at = scene.find("metadata/start = true"); at != std::string::npos;
         at = scene.find("metadata/start = true", at + 1))
        ++start_lines;
    CHECK(index_lines == places);
    CHECK(start_lines == starts);
    CHECK(read_tscn(scene).y_sorted.count("places") == 1);
}

TEST_CASE("godot: -o X.tscn writes the scene, its TileSet and images, and bad combinations write "
          "nothing") {
    TempDir dir;
    const std::string recipe = shell_quote((source_dir() / "samples/cave.toml").string());
    RunResult r = run_tilegen("generate " + recipe + " --size 24x16 -o " +
                              shell_quote((dir / "m.tscn").string()) + " --png none");
    REQUIRE(r.exit_code == 0);
    for (const char* f : {"m.tscn", "m.tres", "m-tiles.png", "m-objects.png"})
        CHECK(fs::exists(dir / f));
    // --json lists exactly the files written, for both formats.
    for (const char* out : {"j/m.tscn", "k/m.ldtk"}) {
        CAPTURE(out);
        const fs::path sub = dir / fs::path(out).parent_path();
        fs::create_directories(sub);
        r = run_tilegen("generate " + recipe + " --size 24x16 --json -o " +
                        shell_quote((dir / out).string()));
        REQUIRE(r.exit_code == 0);
        std::vector<std::string> listed, present;
        const std::size_t at = r.out.find("\"outputs\":[");
        REQUIRE(at != std::string::npos);
        std::string list = r.out.substr(at + 11, r.out.find(']', at) - at - 11);
        for (std::size_t q = list.find('"'); q != std::string::npos; q = list.find('"', q)) {
            const std::size_t e = list.find('"', q + 1);
            listed.push_back(fs::path(list.substr(q + 1, e - q - 1)).filename().string());
            q = e + 1;
        }
        for (const auto& e : fs::directory_iterator(sub))
            present.push_back(e.path().filename().string());
        std::sort(listed.begin(), listed.end());
        std::sort(present.begin(), present.end());
        CHECK(listed == present);
        CHECK(listed.size() >= 4); // map, (tileset,) tiles, objects, preview
    }
    for (const char* bad :
         {"--infinite", "--encoding base64", "--tilesets embedded", "--region 0,0,8,8"}) {
        CAPTURE(bad);
        r = run_tilegen("generate " + recipe + " --size 24x16 -o " +
                        shell_quote((dir / "bad.tscn").string()) + " " + bad);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("X.tscn") != std::string::npos);
        r = run_tilegen("generate " + recipe + " --size 24x16 -o " +
                        shell_quote((dir / "bad.ldtk").string()) + " " + bad);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("X.ldtk") != std::string::npos);
    }
    CHECK(!fs::exists(dir / "bad.tscn"));
    CHECK(!fs::exists(dir / "bad.tres"));
    CHECK(!fs::exists(dir / "bad.ldtk"));

    // Godot itself, when installed: load the scene headless and list every cell.
    const std::string godot = godot_binary();
    if (godot.empty()) {
        MESSAGE("skipped: no Godot 4 binary (godot4 or godot) on PATH");
        return;
    }
    write_text(dir / "project.godot", "config_version=5\n\n[application]\nconfig/name=\"t\"\n");
    write_text(dir / "cells.gd",
               "extends SceneTree\n"
               "func _initialize():\n"
               "\tvar scene = load(\"res://m.tscn\").instantiate()\n"
               "\tfor layer in scene.get_children():\n"
               "\t\tif layer is TileMapLayer:\n"
               "\t\t\tfor c in layer.get_used_cells():\n"
               "\t\t\t\tvar a = layer.get_cell_atlas_coords(c)\n"
               "\t\t\t\tprint(\"%s %d %d %d %d %d\" % [layer.name, c.x, c.y, a.x, a.y, "
               "layer.get_cell_alternative_tile(c) & 0xFFFF])\n"
               "\tquit(0)\n");
    run(godot + " --headless --path " + shell_quote(dir.path().string()) + " --import", dir.path());
    r = run(godot + " --headless --path " + shell_quote(dir.path().string()) + " -s cells.gd",
            dir.path());
    REQUIRE(r.exit_code == 0);
    // The same list from the test's own reader.
    const SceneFile tscn = read_tscn(read_text(dir / "m.tscn"));
    std::vector<std::string> want, got;
    for (const auto& [name, cells] : tscn.layers)
        for (const Cell& c : cells)
            want.push_back(name + " " + std::to_string(c.x) + " " + std::to_string(c.y) + " " +
                           std::to_string(c.ax) + " " + std::to_string(c.ay) + " " +
                           std::to_string(c.alternative));
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line))
        if (!line.empty() && line.find(' ') != std::string::npos) got.push_back(line);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    CHECK(got == want);
}
