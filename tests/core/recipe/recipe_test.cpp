#include <doctest/doctest.h>

#include "core/recipe/recipe.hpp"

using namespace tilegen;

namespace {
const std::string kGood = R"([map]
width = 64
height = 32
seed = 9

[noise]
kind = "harmonic"
interpolation = "bilinear"
octaves = 4
persistence = 0.6

[[terrain]]
name = "water"
symbol = "w"
share = 0.4

[[terrain]]
name = "grass"
symbol = "g"
share = 0.6

[rules]
files = ["a.rules", "b.rules"]
outside = "w"

[tileset]
path = "tiles/tileset.toml"
)";

// kGood with `from` replaced by `to` (first occurrence).
std::string with(const std::string& from, const std::string& to) {
    std::string s = kGood;
    auto p = s.find(from);
    REQUIRE(p != std::string::npos);
    return s.replace(p, from.size(), to);
}
} // namespace

TEST_CASE("a full recipe parses with every value") {
    Diagnostics d;
    auto r = parse_recipe(kGood, "dir/my-map.toml", d);
    for (auto& x : d)
        MESSAGE(format_diagnostic(x));
    REQUIRE(r);
    CHECK(r->name == "my-map");
    CHECK(r->map.width == 64);
    CHECK(r->map.height == 32);
    CHECK(r->map.seed == 9);
    CHECK(r->maps.at(0).settings.harmonic.interpolation == Interpolation::bilinear);
    CHECK(r->maps.at(0).settings.harmonic.octaves == 4);
    CHECK(r->maps.at(0).settings.harmonic.persistence == 0.6);
    REQUIRE(r->terrain.size() == 2);
    CHECK(r->terrain[1].symbol == 'g');
    CHECK(r->rules.files.size() == 2);
    CHECK(r->rules.files[1].path == "b.rules");
    CHECK(r->rules.files[1].position.line == 23);
    CHECK(r->rules.outside == "w");
    CHECK(r->tileset.path == "tiles/tileset.toml");
}

TEST_CASE("defaults fill what a recipe leaves out") {
    Diagnostics d;
    auto r = parse_recipe(
        "[[terrain]]\nname=\"a\"\nsymbol=\"a\"\nshare=0.5\n[[terrain]]\nname=\"b\"\nsymbol=\"b\"\n"
        "share=0.5\n[rules]\nfiles=[\"x\"]\n[tileset]\npath=\"t\"\n",
        "r.toml", d);
    REQUIRE(r);
    CHECK(r->map.width == 128);
    CHECK(r->map.height == 128);
    CHECK(r->map.seed == 1);
    CHECK(r->maps.at(0).settings.kind == NoiseKind::harmonic);
    CHECK(r->maps.at(0).settings.harmonic.interpolation == Interpolation::smoothstep);
    CHECK(r->maps.at(0).settings.harmonic.octaves == 0);
    CHECK(r->maps.at(0).settings.harmonic.persistence == 0.5);
    CHECK(r->rules.outside == "clamp");
    CHECK_FALSE(r->rules.legalise);
}

TEST_CASE("rules.legalise: true turns legalisation on") {
    Diagnostics d;
    auto r = parse_recipe(with("outside = \"w\"", "outside = \"w\"\nlegalise = true"), "r.toml", d);
    REQUIRE(r);
    CHECK(r->rules.legalise);
}

TEST_CASE("classes.keep_shares: on by default, false turns it off") {
    Diagnostics d;
    auto on = parse_recipe(kGood, "r.toml", d);
    REQUIRE(on);
    CHECK(on->classes.keep_shares);
    auto off =
        parse_recipe(with("[rules]", "[classes]\nkeep_shares = false\n\n[rules]"), "r.toml", d);
    REQUIRE(off);
    CHECK_FALSE(off->classes.keep_shares);
}

TEST_CASE("terrain keys min_area and min_width: per class, off by default") {
    Diagnostics d;
    auto r = parse_recipe(with("share = 0.4", "share = 0.4\nmin_area = 65536\nmin_width = 64"),
                          "r.toml", d);
    for (auto& x : d)
        MESSAGE(format_diagnostic(x));
    REQUIRE(r);
    REQUIRE(r->cleanup.size() == 2);
    CHECK(r->cleanup[0].min_area == 65536);
    CHECK(r->cleanup[0].min_width == 64);
    CHECK(r->cleanup[1].min_area == 0);
    CHECK(r->cleanup[1].min_width == 0);
    auto plain = parse_recipe(kGood, "r.toml", d);
    REQUIRE(plain);
    REQUIRE(plain->cleanup.size() == 2);
    CHECK_FALSE(cleanup_needed(plain->cleanup));
}

TEST_CASE("bad recipes: message and line:column") {
    struct Bad {
        std::string text;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {with("width = 64", "width = 0"), 2, 9, "'map.width' is 0, expected 1 to 65536"},
        {with("width = 64", "width = -5"), 2, 9, "expected 1 to 65536"},
        {with("width = 64", "width = 99999999999"), 2, 9, "expected 1 to 65536"},
        {with("width = 64", "width = \"64\""), 2, 9,
         "'map.width' must be an integer, not a string"},
        {with("width = 64", "widht = 64"), 2, 1, "unknown key 'map.widht'"},
        {with("seed = 9", "seed = 1.5"), 4, 8, "'map.seed' must be an integer"},
        {with("kind = \"harmonic\"", "kind = \"fractal\""), 7, 8, "'noise.kind' is \"fractal\""},
        {with("interpolation = \"bilinear\"", "interpolation = \"nearest\""), 8, 17,
         "expected one of \"smoothstep\", \"bilinear\""},
        {with("persistence = 0.6", "persistence = nan"), 10, 15, "'noise.persistence' is nan"},
        {with("persistence = 0.6", "persistence = 2.0"), 10, 15, "expected 1e-06 to 1"},
        {with("octaves = 4", "octaves = 31"), 9, 11, "'noise.octaves' is 31"},
        {with("share = 0.6", "share = 0.7"), 12, 1, "terrain shares add up to 1.1"},
        {with("share = 0.6", "share = -0.1"), 20, 9, "'terrain.share' is -0.1"},
        {with("symbol = \"g\"", "symbol = \"w\""), 19, 10, "duplicate terrain symbol 'w'"},
        {with("symbol = \"g\"", "symbol = \"gg\""), 19, 10,
         "terrain symbol must be one printable character"},
        {with("symbol = \"g\"", "symbol = \"?\""), 19, 10,
         "terrain symbol must be one printable character"},
        {with("name = \"grass\"", "name = \"water\""), 18, 8, "duplicate terrain name 'water'"},
        {with("name = \"grass\"\n", ""), 17, 1, "terrain class has no 'name'"},
        {with("share = 0.6", "share = 0.6\nmin_area = -1"), 21, 12,
         "'terrain.min_area' is -1, expected 0 to 65536"},
        {with("share = 0.6", "share = 0.6\nmin_area = 65537"), 21, 12,
         "'terrain.min_area' is 65537, expected 0 to 65536"},
        {with("share = 0.6", "share = 0.6\nmin_area = 2.5"), 21, 12,
         "'terrain.min_area' must be an integer"},
        {with("share = 0.6", "share = 0.6\nmin_width = 65"), 21, 13,
         "'terrain.min_width' is 65, expected 0 to 64"},
        {with("share = 0.6", "share = 0.6\nmin_width = -2"), 21, 13,
         "'terrain.min_width' is -2, expected 0 to 64"},
        {with("share = 0.6", "share = 0.6\nmin_width = \"2\""), 21, 13,
         "'terrain.min_width' must be an integer, not a string"},
        {with("share = 0.6", "share = 0.6\nmin_size = 4"), 21, 1, "unknown key 'terrain.min_size'"},
        {with("outside = \"w\"", "outside = \"x\""), 24, 11, "'rules.outside' is \"x\""},
        {with("outside = \"w\"", "outside = \"w\"\nlegalise = 1"), 25, 12,
         "'rules.legalise' must be true or false, not an integer"},
        {with("outside = \"w\"", "outside = \"w\"\nlegalise = \"yes\""), 25, 12,
         "'rules.legalise' must be true or false, not a string"},
        {with("[rules]", "[classes]\nkeep_shares = 1\n[rules]"), 23, 15,
         "'classes.keep_shares' must be true or false, not an integer"},
        {with("files = [\"a.rules\", \"b.rules\"]", "files = \"a.rules\""), 23, 9,
         "'rules.files' must be an array"},
        {with("files = [\"a.rules\", \"b.rules\"]", "files = []"), 23, 9, "'rules.files' is empty"},
        {with("files = [\"a.rules\", \"b.rules\"]", "files = [1]"), 23, 10,
         "rule file path must be a string"},
        {with("path = \"tiles/tileset.toml\"", "paths = \"x\""), 27, 1,
         "unknown key 'tileset.paths'"},
        {with("[tileset]", "[tile_set]"), 26, 2, "unknown key 'tile_set'"},
        {with("[map]", "[map"), 1, 5, ""},
        {with("width = 64", "width = 64\nwidth = 65"), 3, 9, ""},
        {"", 1, 1, "recipe has no [[terrain]] classes"},
        {"\x01\x02garbage", 1, 1, ""},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics d;
        CHECK_FALSE(parse_recipe(b.text, "bad.toml", d));
        REQUIRE(!d.empty());
        CHECK(d[0].file == "bad.toml");
        CHECK(d[0].line == b.line);
        CHECK(d[0].column == b.column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
    }
}

TEST_CASE(
    "harmonic interpolation: \"smoothstep\" (default), \"bilinear\", and \"bicubic\", the old "
    "name of smoothstep") {
    const std::string tail = "[[terrain]]\nname=\"a\"\nsymbol=\"a\"\nshare=0.5\n[[terrain]]\nname="
                             "\"b\"\nsymbol=\"b\"\nshare=0.5\n[rules]\nfiles=[\"x\"]\n[tileset]\n"
                             "path=\"t\"\n";
    const std::pair<const char*, Interpolation> cases[] = {
        {"smoothstep", Interpolation::smoothstep},
        {"bilinear", Interpolation::bilinear},
        {"bicubic", Interpolation::smoothstep},
    };
    for (const auto& [name, expected] : cases) {
        CAPTURE(name);
        Diagnostics d;
        auto r = parse_recipe("[noise]\ninterpolation = \"" + std::string(name) + "\"\n" + tail,
                              "r.toml", d);
        REQUIRE(r);
        CHECK(d.empty());
        CHECK(r->maps.at(0).settings.harmonic.interpolation == expected);
    }
}

TEST_CASE("terrain walkable: default true, false for blockers, a boolean only") {
    Diagnostics d;
    auto r = parse_recipe(with("share = 0.4\n", "share = 0.4\nwalkable = false\n"), "w.toml", d);
    REQUIRE(r);
    CHECK_FALSE(r->terrain[0].walkable);
    CHECK(r->terrain[1].walkable); // not given: true
    auto t = parse_recipe(with("share = 0.6\n", "share = 0.6\nwalkable = true\n"), "w.toml", d);
    REQUIRE(t);
    CHECK(t->terrain[0].walkable);
    CHECK(t->terrain[1].walkable);

    for (const char* bad : {"3", "\"no\"", "0.5"}) {
        CAPTURE(bad);
        Diagnostics e;
        CHECK_FALSE(parse_recipe(
            with("share = 0.6\n", std::string("share = 0.6\nwalkable = ") + bad + "\n"), "bad.toml",
            e));
        REQUIRE(e.size() == 1);
        // line 21 (after share = 0.6 on line 20), the value at column 12
        const std::string text = format_diagnostic(e[0]);
        CHECK_MESSAGE(text.rfind("bad.toml:21:12: error: 'terrain.walkable' must be true or "
                                 "false, not ",
                                 0) == 0,
                      text);
    }
}
