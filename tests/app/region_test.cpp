// generate --region X,Y,W,H: one window of the map, the same tiles as the infinite map has there,
// and the infinite map's objects whose footprint starts in the window.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app/fixture.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;

namespace {

// The gids of the first tile layer of a finite CSV map, row by row.
std::vector<std::vector<std::string>> csv_rows(const std::string& tmx) {
    const auto begin = tmx.find("<data encoding=\"csv\">");
    REQUIRE(begin != std::string::npos);
    const auto from = tmx.find('\n', begin) + 1;
    const auto to = tmx.find("</data>", from);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    for (std::size_t i = from; i < to; ++i) {
        if (tmx[i] != '\n') {
            line += tmx[i];
            continue;
        }
        std::vector<std::string> row;
        std::string cell;
        for (char c : line + ",") {
            if (c == ',') {
                if (!cell.empty()) row.push_back(cell);
                cell.clear();
            } else if (c != ' ') {
                cell += c;
            }
        }
        if (!row.empty()) rows.push_back(row);
        line.clear();
    }
    return rows;
}

// The gids of the first tile layer of an infinite CSV map, by world cell.
std::map<std::pair<int, int>, std::string> chunk_cells(const std::string& tmx) {
    std::map<std::pair<int, int>, std::string> cells;
    const std::string layer =
        tmx.substr(tmx.find("<layer"), tmx.find("</layer>") - tmx.find("<layer"));
    const std::regex chunk(
        "<chunk x=\"(-?\\d+)\" y=\"(-?\\d+)\" width=\"(\\d+)\" height=\"(\\d+)\">");
    for (auto it = std::sregex_iterator(layer.begin(), layer.end(), chunk);
         it != std::sregex_iterator(); ++it) {
        const int x = std::stoi((*it)[1]), y = std::stoi((*it)[2]);
        const auto from = static_cast<std::size_t>(it->position() + it->length());
        const std::string body = layer.substr(from, layer.find("</chunk>", from) - from);
        const auto rows = csv_rows("<data encoding=\"csv\">\n" + body + "</data>");
        for (std::size_t j = 0; j < rows.size(); ++j)
            for (std::size_t i = 0; i < rows[j].size(); ++i)
                cells[{x + static_cast<int>(i), y + static_cast<int>(j)}] = rows[j][i];
    }
    return cells;
}

// Every <object .../> of a TMX as "name gid x y width height", x and y moved by (dx, dy) pixels.
std::vector<std::string> objects_of(const std::string& tmx, int dx, int dy) {
    std::vector<std::string> out;
    const std::regex object("<object id=\"\\d+\" name=\"([^\"]*)\" gid=\"(\\d+)\" "
                            "x=\"(-?\\d+)\" y=\"(-?\\d+)\" width=\"(\\d+)\" "
                            "height=\"(\\d+)\"/>");
    for (auto it = std::sregex_iterator(tmx.begin(), tmx.end(), object);
         it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1].str() + " " + (*it)[2].str() + " " +
                      std::to_string(std::stoi((*it)[3]) + dx) + " " +
                      std::to_string(std::stoi((*it)[4]) + dy) + " " + (*it)[5].str() + " " +
                      (*it)[6].str());
    return out;
}

} // namespace

TEST_CASE("generate --region: 16 region jobs rebuild the infinite map's cells, tile for tile") {
    Fixture f;
    const std::string recipe = (source_dir() / "samples" / "meadows.toml").string();
    const std::string common = "generate " + recipe + " --size 64x48 --seed 11 --png none ";
    REQUIRE(f.tilegen(common + "--infinite --chunk 16 -o inf.tmx").exit_code == 0);
    const auto world = chunk_cells(read_text(f.dir / "inf.tmx"));
    std::size_t compared = 0;
    for (int y = 0; y < 48; y += 12)
        for (int x = 0; x < 64; x += 16) {
            const std::string name = "r-" + std::to_string(x) + "-" + std::to_string(y) + ".tmx";
            const auto r = f.tilegen(common + "--region " + std::to_string(x) + "," +
                                     std::to_string(y) + ",16,12 -o " + name);
            REQUIRE(r.exit_code == 0);
            const std::string tmx = read_text(f.dir / name);
            CHECK(tmx.find("width=\"16\" height=\"12\"") != std::string::npos);
            CHECK(tmx.find("name=\"region\" value=\"" + std::to_string(x) + "," +
                           std::to_string(y) + ",16,12\"") != std::string::npos);
            const auto rows = csv_rows(tmx);
            REQUIRE(rows.size() == 12);
            for (int j = 0; j < 12; ++j) {
                REQUIRE(rows[static_cast<std::size_t>(j)].size() == 16);
                for (int i = 0; i < 16; ++i) {
                    CHECK(rows[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] ==
                          world.at({x + i, y + j}));
                    ++compared;
                }
            }
        }
    CHECK(compared == 64 * 48);
    // A window past the map's edge (and left of it) is as valid: the world goes on.
    CHECK(f.tilegen(common + "--region -8,40,16,16 -o edge.tmx").exit_code == 0);
}

TEST_CASE("generate --region: bad windows and recipes that need the whole map") {
    Fixture f;
    const std::string meadows = (source_dir() / "samples" / "meadows.toml").string();
    for (const char* bad : {"0,0,0,5", "1,2,3", "a,b,c,d", "0,0,5,5,", "0, 0,5,5", "0,0,70000,5"}) {
        CAPTURE(bad);
        const auto r = f.tilegen("generate " + meadows + " --region " + bad + " -o x.tmx");
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("--region takes X,Y,W,H") != std::string::npos);
    }
    CHECK(f.tilegen("generate " + meadows + " --region 0,0,4,4 --infinite -o x.tmx").exit_code ==
          2);
    // The default overworld routes rivers over the whole map: refused at its [rivers] table.
    const auto rivers = f.tilegen("generate --region 0,0,16,16 -o y.tmx");
    CHECK(rivers.exit_code == 1);
    CHECK(rivers.err.find("cannot have rivers") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(f.dir / "y.tmx"));
    // Without [rivers] it still cleans up the whole map (min_area): refused with the terrain's
    // line.
    std::string text = read_text(source_dir() / "samples" / "overworld.toml");
    const auto from = text.find("\n[rivers]"), to = text.find("\n[rules]");
    REQUIRE(from != std::string::npos);
    REQUIRE(to > from);
    text.erase(from, to - from);
    for (const char* path :
         {"\"../rules/", "\"../tilesets/overworld/tileset", "\"../tilesets/overworld/objects"}) {
        const auto at = text.find(path);
        REQUIRE(at != std::string::npos);
        text.replace(at, 4, "\"" + (source_dir() / "samples").generic_string() + "/../");
    }
    write_text(f.dir / "dry.toml", text);
    const auto whole = f.tilegen("generate dry.toml --region 0,0,16,16 -o y.tmx");
    CHECK(whole.exit_code == 1);
    CHECK(whole.err.find("infinite maps and regions cannot apply it") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(f.dir / "y.tmx"));
}

TEST_CASE("generate --region with a corner layer: each window holds its corners X..X+W, the same "
          "tiles every other window has there, and --infinite refuses corner layers") {
    Fixture f;
    write_text(f.dir / "c.rules", "ww ww  water water-2*0.5\ngg gg  grass\n?? ??  shore\n");
    f.write_recipe("c.toml", "c.rules", "[noise]\nkind = \"simplex\"\nscale = 6\n");
    auto whole = f.generate("c.toml --size 40x24 --region 0,0,40,24 -o whole.tmx");
    INFO(whole.err);
    REQUIRE(whole.exit_code == 0);
    const auto all = csv_rows(read_text(f.dir / "whole.tmx"));
    REQUIRE(all.size() == 25);
    REQUIRE(all[0].size() == 41);
    for (const auto& [x, y] : {std::pair{7, 5}, {0, 13}, {30, 0}}) {
        const std::string args = std::to_string(x) + "," + std::to_string(y) + ",10,11";
        auto part = f.generate("c.toml --size 40x24 --region " + args + " -o part.tmx");
        INFO(part.err);
        REQUIRE(part.exit_code == 0);
        const std::string tmx = read_text(f.dir / "part.tmx");
        CHECK(tmx.find("width=\"11\" height=\"12\" offsetx=\"-4\" offsety=\"-4\"") !=
              std::string::npos);
        const auto rows = csv_rows(tmx);
        REQUIRE(rows.size() == 12);
        bool same = true;
        for (int j = 0; j <= 11; ++j)
            for (int i = 0; i <= 10; ++i)
                same = same &&
                       rows[static_cast<std::size_t>(j)][static_cast<std::size_t>(i)] ==
                           all[static_cast<std::size_t>(y + j)][static_cast<std::size_t>(x + i)];
        CHECK(same);
    }
    auto infinite = f.generate("c.toml --infinite -o inf.tmx");
    CHECK(infinite.exit_code == 1);
    CHECK(infinite.err.find("c.rules:1:1: error: layer 'ground' is a corner layer") !=
          std::string::npos);
}

TEST_CASE("LDtk and Godot exports take corner layers (a Tiles layer, an offset TileMapLayer)") {
    // The exports' contents are checked in tests/io/ldtk_writer_test.cpp and godot_writer_test.cpp.
    Fixture f;
    write_text(f.dir / "c.rules", "ww ww  water\ngg gg  grass\n?? ??  shore\n");
    f.write_recipe("c.toml", "c.rules");
    auto r = f.generate("c.toml -o m.ldtk");
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(read_text(f.dir / "m.ldtk").find("\"__type\":\"Tiles\"") != std::string::npos);
    r = f.generate("c.toml -o m.tscn");
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(read_text(f.dir / "m.tscn").find("type=\"TileMapLayer\" parent=\".\"]\nposition = ") !=
          std::string::npos);
}

TEST_CASE("generate --region: 16 region jobs hold the infinite map's objects, each once") {
    // woods.toml: position-based, with trees, bushes and rocks (two object rules). Each object
    // lies in the window holding its footprint's top-left cell; windows lower down must see what
    // the rows above them decided (the placer scans from the origin).
    Fixture f;
    const std::string recipe =
        (source_dir() / "tests" / "data" / "infinite-objects" / "woods.toml").string();
    const std::string common = "generate " + recipe + " --size 64x48 --png none ";
    REQUIRE(f.tilegen(common + "--infinite --chunk 16 -o inf.tmx").exit_code == 0);
    const std::string inf = read_text(f.dir / "inf.tmx");
    REQUIRE(inf.find("tilewidth=\"16\" tileheight=\"16\"") != std::string::npos);
    std::vector<std::string> expected = objects_of(inf, 0, 0);
    REQUIRE(expected.size() > 100);
    std::vector<std::string> joined;
    for (int y = 0; y < 48; y += 12)
        for (int x = 0; x < 64; x += 16) {
            const std::string name = "o-" + std::to_string(x) + "-" + std::to_string(y) + ".tmx";
            const auto r = f.tilegen(common + "--region " + std::to_string(x) + "," +
                                     std::to_string(y) + ",16,12 --threads 2 --json -o " + name);
            REQUIRE(r.exit_code == 0);
            const auto objects = objects_of(read_text(f.dir / name), x * 16, y * 16);
            CHECK(r.out.find("\"objects\":" + std::to_string(objects.size())) != std::string::npos);
            joined.insert(joined.end(), objects.begin(), objects.end());
        }
    std::sort(expected.begin(), expected.end());
    std::sort(joined.begin(), joined.end());
    CHECK(joined == expected);
    // A window reaching past the map's edge: the objects of its part inside the map.
    const auto edge = f.tilegen(common + "--region -8,40,16,16 --json -o edge.tmx");
    REQUIRE(edge.exit_code == 0);
    std::vector<std::string> inside;
    for (const std::string& o : objects_of(inf, 0, 0)) {
        std::istringstream in(o);
        std::string name, gid;
        int px = 0, py = 0, pw = 0, ph = 0;
        in >> name >> gid >> px >> py >> pw >> ph;
        // The footprint's top-left cell: x / 16, and the footprint ends at y (its height from
        // tilesets/overworld/objects.toml: 2 for the trees, boulder and town, else 1).
        const bool tall = name == "oak" || name == "pine" || name == "boulder" || name == "town";
        const int cx = px / 16, cy = py / 16 - (tall ? 2 : 1);
        if (cx < 8 && cy >= 40) inside.push_back(o);
    }
    auto from_edge = objects_of(read_text(f.dir / "edge.tmx"), -8 * 16, 40 * 16);
    std::sort(inside.begin(), inside.end());
    std::sort(from_edge.begin(), from_edge.end());
    CHECK(from_edge == inside);
}
