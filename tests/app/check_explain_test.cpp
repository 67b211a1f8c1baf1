// tilegen check and tilegen explain, run as a user would.
#include <doctest/doctest.h>

#include "app/fixture.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;

TEST_CASE("check: clean rules exit 0 and say so, the shipped default passes --strict") {
    Fixture f;
    auto r = f.tilegen("check map.toml --strict");
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("layer 'ground': 3 rules cover all 4 neighbourhoods (exact)") !=
          std::string::npos);
    CHECK(r.out.find("ok: no problems found") != std::string::npos);
#ifndef TILEGEN_TESTS_SANITIZED
    // (Slow under the sanitizers, which check every shipped rule file through the samples in
    // `every shipped rule file passes check --strict` anyway.)
    auto d = f.tilegen("check --strict");
    INFO(d.out);
    CHECK(d.exit_code == 0);
#endif
}

TEST_CASE("check: uncovered, shadowed, duplicate and zero-weight rules are warnings, --strict "
          "fails on them") {
    Fixture f;
    write_text(f.dir / "lint.rules", "??? ?w? ???  water water-2*0\n" // line 1: zero weight
                                     "?w? ?g? ???  shore\n"           // line 2
                                     "??? ?w? ???  water-2\n"         // line 3: duplicate of line 1
                                     "w  grass\n");                   // line 4: shadowed by line 1
    f.write_recipe("lint.toml", "lint.rules");
    auto r = f.tilegen("check lint.toml");
    INFO(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("lint.toml: warning: layer 'ground': 1 of all 4 neighbourhoods (exact) match "
                     "no rule") != std::string::npos);
    CHECK(r.out.find(" w  \n    [g]") == std::string::npos); // examples are whole 3x3 grids
    CHECK(r.out.find("[g]") != std::string::npos);
    CHECK(
        r.out.find("lint.rules:3:1: warning: rule '?w?' duplicates the pattern of lint.rules:1") ==
        std::string::npos);
    CHECK(
        r.out.find(
            "lint.rules:3:1: warning: rule '??? ?w? ???' duplicates the pattern of lint.rules:1") !=
        std::string::npos);
    CHECK(r.out.find("lint.rules:4:1: warning: rule 'w' never decides a cell: it is shadowed by "
                     "lint.rules:1") != std::string::npos);
    CHECK(
        r.out.find("lint.rules:1:20: warning: target 'water-2' has weight 0 and is never chosen") !=
        std::string::npos);
    CHECK(r.out.find("4 warning(s)") != std::string::npos);
    CHECK(f.tilegen("check lint.toml --strict").exit_code == 1);
}

TEST_CASE("check: class passes are linted too, their coverage is information") {
    Fixture f;
    // Tile rules first (lines 1-3), then the class pass from line 4.
    const std::string tiles = "??? ?w? ???  water\n?w? ?g? ???  shore\n??? ?g? ???  grass\n";
    write_text(f.dir / "clean.rules", tiles + "[classes 2]\n?w? ?g? ???  w\n");
    f.write_recipe("clean.toml", "clean.rules");
    auto clean = f.tilegen("check clean.toml --strict");
    INFO(clean.out << clean.err);
    CHECK(clean.exit_code == 0);
    // Grass under water: 1 of the 4 (north, centre) cases; the other 3 keep their class.
    CHECK(clean.out.find("pass clean.rules:4 [classes 2]: 1 rules decide 1 of 4 neighbourhoods "
                         "(exact); the rest keep their class\n") != std::string::npos);
    CHECK(clean.out.find("ok: no problems found") != std::string::npos);

    write_text(f.dir / "lint.rules", tiles + "[classes *]\n"
                                             "??? ?w? ???  g w*0\n" // line 5: zero weight
                                             "??? ?w? ???  g\n"     // line 6: duplicate of 5
                                             "w  g\n"               // line 7: shadowed by 5
                                             "g  g\n"               // line 8: no-op
                                             "?  @keep\n");         // a safety net: not reported
    f.write_recipe("lint.toml", "lint.rules");
    auto r = f.tilegen("check lint.toml");
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(
              "pass lint.rules:4 [classes *]: 5 rules decide all 2 neighbourhoods (exact)\n") !=
          std::string::npos);
    CHECK(r.out.find("lint.rules:6:1: warning: rule '??? ?w? ???' duplicates the pattern of "
                     "lint.rules:5, which always matches first") != std::string::npos);
    CHECK(r.out.find("lint.rules:7:1: warning: rule 'w' never decides a cell: it is shadowed by "
                     "lint.rules:5") != std::string::npos);
    CHECK(r.out.find("lint.rules:5:16: warning: target 'w' has weight 0 and is never chosen") !=
          std::string::npos);
    CHECK(r.out.find("lint.rules:8:1: warning: class rule 'g' never changes a cell") !=
          std::string::npos);
    CHECK(r.out.find("lint.rules:9") == std::string::npos);
    CHECK(r.out.find("4 warning(s)") != std::string::npos);
    CHECK(f.tilegen("check lint.toml --strict").exit_code == 1);
}

TEST_CASE("check: errors exit 1 with path:line:col, bad usage exits 2") {
    Fixture f;
    write_text(f.dir / "bad.rules", "??? ?w? ???  water\n?x? ?g? ???  grass\n");
    f.write_recipe("bad.toml", "bad.rules");
    auto r = f.tilegen("check bad.toml");
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("bad.rules:2:2: error: unknown terrain symbol 'x'") != std::string::npos);
    CHECK(f.tilegen("check --bogus").exit_code == 2);
    CHECK(f.tilegen("check a.toml b.toml").exit_code == 2);
}

TEST_CASE(
    "explain: the neighbourhood, the rules tried, the match and the tile, as generate made it") {
    Fixture f;
    write_text(f.dir / "drawn.txt", "wwww\nwggw\nwggw\n");
    auto r = f.tilegen("explain map.toml 1 1 --classes drawn.txt");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("cell (1, 1) of map (4x3, seed 3)") != std::string::npos);
    CHECK(r.out.find("class  grass (g)") != std::string::npos);
    CHECK(r.out.find("     w  w  w \n     w [g] g \n     w  g  g \n") != std::string::npos);
    CHECK(r.out.find("layer 'ground': 1 of 3 rules tried") != std::string::npos);
    CHECK(r.out.find("map.rules:3  ?w? ?g? ???  MATCH") != std::string::npos);
    CHECK(r.out.find("decided by map.rules:3; targets: shore*1 (chosen)") != std::string::npos);
    CHECK(r.out.find("tile: shore, gid 4") != std::string::npos);

    auto below = f.tilegen("explain map.toml 1 2 --classes drawn.txt");
    CHECK(below.out.find("map.rules:3  ?w? ?g? ???  no: at (+0, -1) is g, rule wants w") !=
          std::string::npos);
    CHECK(below.out.find("map.rules:4  ??? ?g? ???  MATCH") != std::string::npos);
    CHECK(below.out.find("tile: grass, gid 3") != std::string::npos);
}

TEST_CASE("explain agrees with generate on every cell's tile for the same seed") {
    Fixture f;
    REQUIRE(f.generate("map.toml -o e.tmx --size 12x6 --seed 21").exit_code == 0);
    const std::string tmx = read_text(f.dir / "e.tmx");
    const auto data = tmx.substr(tmx.find("<data encoding=\"csv\">\n") + 22);
    std::vector<std::string> gids;
    std::string cur;
    for (char c : data.substr(0, data.find("</data>"))) {
        if (c >= '0' && c <= '9')
            cur += c;
        else if (!cur.empty())
            gids.push_back(cur), cur.clear();
    }
    REQUIRE(gids.size() == 72);
    for (int y = 0; y < 6; y += 2)
        for (int x = 0; x < 12; x += 3) {
            auto r = f.tilegen("explain map.toml " + std::to_string(x) + " " + std::to_string(y) +
                               " --size 12x6 --seed 21");
            CAPTURE(x);
            CAPTURE(y);
            CHECK(r.out.find(", gid " + gids[static_cast<std::size_t>(y * 12 + x)] + "\n") !=
                  std::string::npos);
        }
}

TEST_CASE("explain: bad usage") {
    Fixture f;
    CHECK(f.tilegen("explain map.toml 1").exit_code == 2);
    CHECK(f.tilegen("explain map.toml 40 0").exit_code == 2); // outside the 40x24 map
    CHECK(f.tilegen("explain map.toml -1 0").exit_code == 2);
    CHECK(f.tilegen("explain map.toml a b").exit_code == 2);
    CHECK(f.tilegen("explain map.toml 1 1 --seed").exit_code == 2);
    CHECK(f.tilegen("explain missing.toml 1 1").exit_code == 1);
}

TEST_CASE("corner layers: check enumerates the N^4 corner neighbourhoods, explain shows the four "
          "corners around a cell with the tiles generate wrote") {
    Fixture f;
    // Both plain corners and the straight halves; the other 10 of 16 are uncovered.
    write_text(f.dir / "c.rules", "ww ww  water water-2*0.5\ngg gg  grass\nrotate gw gw  shore\n");
    f.write_recipe("c.toml", "c.rules");
    auto r = f.tilegen("check c.toml");
    INFO(r.out);
    CHECK(r.out.find("layer 'ground': 10 of all 16 neighbourhoods (exact) match no rule") !=
          std::string::npos);
    // Examples are the four cells as 2x2 grids (no centre cell marked).
    CHECK(r.out.find("[g]") == std::string::npos);
    CHECK(r.out.find("[w]") == std::string::npos);
    CHECK(f.tilegen("check c.toml --strict").exit_code == 1);

    // A covering set: every corner tile of the TMX is the one explain names for that corner.
    write_text(f.dir / "c.rules", "ww ww  water water-2*0.5\ngg gg  grass\n?? ??  shore\n");
    REQUIRE(f.generate("c.toml -o e.tmx --size 9x5 --seed 4").exit_code == 0);
    const std::string tmx = read_text(f.dir / "e.tmx");
    CHECK(tmx.find("width=\"10\" height=\"6\" offsetx=\"-4\" offsety=\"-4\"") != std::string::npos);
    const auto data = tmx.substr(tmx.find("<data encoding=\"csv\">\n") + 22);
    std::vector<std::string> gids;
    std::string cur;
    for (char c : data.substr(0, data.find("</data>"))) {
        if (c >= '0' && c <= '9')
            cur += c;
        else if (!cur.empty())
            gids.push_back(cur), cur.clear();
    }
    REQUIRE(gids.size() == 60); // 10 x 6 corners
    for (const auto& [x, y] : {std::pair{0, 0}, {4, 2}, {8, 4}, {3, 1}}) {
        auto e = f.tilegen("explain c.toml " + std::to_string(x) + " " + std::to_string(y) +
                           " --size 9x5 --seed 4");
        CAPTURE(x);
        CAPTURE(y);
        INFO(e.out);
        const char* names[4] = {"top-left", "top-right", "bottom-left", "bottom-right"};
        std::size_t from = 0;
        for (int k = 0; k < 4; ++k) {
            const int i = x + k % 2, j = y + k / 2;
            const std::string head = "corner (" + std::to_string(i) + ", " + std::to_string(j) +
                                     ") at the cell's " + names[k];
            const std::size_t at = e.out.find(head, from);
            REQUIRE(at != std::string::npos);
            const std::size_t tile = e.out.find("  tile: ", at);
            const std::string line = e.out.substr(tile, e.out.find('\n', tile) - tile);
            CHECK(line.ends_with(", gid " + gids[static_cast<std::size_t>(j * 10 + i)]));
            from = at + 1;
        }
    }
}
