#include <doctest/doctest.h>

#include <cmath>

#include "core/pipeline.hpp"
#include "core/recipe/recipe.hpp"

using namespace tilegen;

namespace {
const std::string kTail = R"(
[[terrain]]
name = "water"
symbol = "w"
share = 0.4
[[terrain]]
name = "grass"
symbol = "g"
share = 0.4
[[terrain]]
name = "forest"
symbol = "f"
share = 0.2
[rules]
files = ["r.rules"]
[tileset]
path = "t.toml"
)";
} // namespace

TEST_CASE("maps, modifiers and a biome table parse") {
    Diagnostics d;
    auto r = parse_recipe(R"([noise]
kind = "perlin"
scale = 32
octaves = 4
fractal = "ridged"
[[noise.modifiers]]
kind = "warp"
strength = 8
levels = 2
[[noise.modifiers]]
kind = "island"
shape = "square"
[[noise.modifiers]]
kind = "combine"
op = "mix"
map = "moisture"
amount = 0.25
[maps.moisture]
kind = "worley"
return = "f2-f1"
distance = "manhattan"
[biomes]
rows = "elevation"
row_shares = [0.4, 0.6]
columns = "moisture"
column_shares = [0.5, 0.5]
table = ["ww", "gf"]
)" + kTail,
                          "m.toml", d);
    for (auto& x : d)
        MESSAGE(format_diagnostic(x));
    REQUIRE(r);
    REQUIRE(r->maps.size() == 2);
    const auto& e = r->maps[0].settings;
    CHECK(r->maps[0].name == "elevation");
    CHECK(e.kind == NoiseKind::perlin);
    CHECK(e.scale == 32);
    CHECK(e.fractal == Fractal::ridged);
    REQUIRE(e.modifiers.size() == 3);
    CHECK(e.modifiers[0].levels == 2);
    CHECK(e.modifiers[1].shape == IslandShape::square);
    CHECK(e.modifiers[2].op == CombineOp::mix);
    CHECK(e.modifiers[2].map == "moisture");
    CHECK(r->maps[1].settings.worley_return == WorleyReturn::f2_minus_f1);
    REQUIRE(r->classes.biomes);
    CHECK(r->classes.biomes->table[1] == "gf");
}

TEST_CASE("a biome table gives each row band its share and the table's symbol per column band") {
    Diagnostics d;
    auto r = parse_recipe(R"([map]
width = 120
height = 90
[maps.moisture]
kind = "simplex"
[biomes]
row_shares = [0.3, 0.7]
column_shares = [0.5, 0.5]
table = ["ww", "gf"]
)" + kTail,
                          "b.toml", d);
    REQUIRE(r);
    std::vector<std::pair<std::string, Grid<float>>> maps;
    for (const char* name : {"elevation", "moisture"})
        maps.emplace_back(name, compute_map(*r, name, 8, 120, 90, {0, 0, 120, 90}));
    std::vector<float> thresholds;
    ClassGrid classes = classes_from_maps(*r, maps, thresholds);
    auto f = class_fractions(classes, 3);
    CHECK(f[0] == doctest::Approx(0.3).epsilon(0.02)); // water: the whole low band
    CHECK(f[1] + f[2] == doctest::Approx(0.7).epsilon(0.02));
    CHECK(f[2] > 0.1); // forest: the wet half of the high band
    CHECK(thresholds.size() == 2);
    // Every forest cell is in the high elevation band and the wet moisture band.
    for (std::size_t i = 0; i < classes.size(); ++i)
        if (classes.cells()[i] == 2) {
            CHECK(maps[0].second.cells()[i] >= thresholds[0]);
            CHECK(maps[1].second.cells()[i] >= thresholds[1]);
        }
}

TEST_CASE("kind white parses, with modifiers") {
    Diagnostics d;
    auto r =
        parse_recipe("[maps.fill]\nkind = \"white\"\nseed_offset = 3\n[[maps.fill.modifiers]]\n"
                     "kind = \"smooth\"\n" +
                         kTail,
                     "w.toml", d);
    for (auto& x : d)
        MESSAGE(format_diagnostic(x));
    REQUIRE(r);
    const MapDefinition* fill = find_map(*r, "fill");
    REQUIRE(fill);
    CHECK(fill->settings.kind == NoiseKind::white);
    CHECK(std::string(noise_kind_name(fill->settings.kind)) == "white");
    CHECK(fill->settings.seed_offset == 3);
    CHECK(fill->settings.modifiers.size() == 1);
}

TEST_CASE("every noise kind parses by its documented name, and noise_kind_name gives it back") {
    // The names as README's recipe reference spells them (the parser reads them from
    // noise_kind_name, so this list is the independent check of both).
    const std::pair<const char*, NoiseKind> kinds[] = {
        {"harmonic", NoiseKind::harmonic}, {"value", NoiseKind::value},
        {"perlin", NoiseKind::perlin},     {"simplex", NoiseKind::simplex},
        {"worley", NoiseKind::worley},     {"diamond-square", NoiseKind::diamond_square},
        {"fault", NoiseKind::fault},       {"hills", NoiseKind::hills},
        {"particle", NoiseKind::particle}, {"profile", NoiseKind::profile},
        {"white", NoiseKind::white},
    };
    for (const auto& [name, kind] : kinds) {
        CAPTURE(name);
        Diagnostics d;
        auto r =
            parse_recipe("[maps.m]\nkind = \"" + std::string(name) + "\"\n" + kTail, "k.toml", d);
        for (auto& x : d)
            MESSAGE(format_diagnostic(x));
        REQUIRE(r);
        const MapDefinition* m = find_map(*r, "m");
        REQUIRE(m);
        CHECK(m->settings.kind == kind);
        CHECK(std::string(noise_kind_name(kind)) == name);
    }
}

TEST_CASE("bad maps, modifiers and biome tables: message and line:column") {
    struct Bad {
        std::string text;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {"[noise]\nkind = \"plasma\"\n", 2, 8,
         "'noise.kind' is \"plasma\", expected one of \"harmonic\""},
        {"[noise]\nkind = \"fault\"\noctaves = 3\n", 3, 1,
         "'noise.octaves' does not apply to kind \"fault\""},
        {"[noise]\nkind = \"value\"\nfrequency = 3\n", 3, 1, "unknown key 'noise.frequency'"},
        {"[noise]\nkind = \"white\"\nscale = 3\n", 3, 1,
         "'noise.scale' does not apply to kind \"white\" (its keys: seed_offset, modifiers)"},
        {"[noise]\nkind = \"white\"\nfrequency = 3\n", 3, 1,
         "unknown key 'noise.frequency' (kind \"white\" takes: seed_offset, modifiers)"},
        {"[noise]\nkind = \"fault\"\nfrequency = 3\n", 3, 1,
         "unknown key 'noise.frequency' (kind \"fault\" takes: faults, smoothing, seed_offset, "
         "modifiers)"},
        {"[noise]\nkind = \"value\"\ninterpolation = \"bicubic\"\n", 3, 17,
         "expected one of \"linear\", \"cosine\""},
        {"[noise]\nkind = \"worley\"\nreturn = \"f3\"\n", 3, 10, "'noise.return' is \"f3\""},
        {"[noise]\nkind = \"simplex\"\ngain = 1.5\n", 3, 8, "'noise.gain' is 1.5, expected 0 to 1"},
        {"[noise]\nkind = \"hills\"\nradius_min = 10\nradius_max = 5\n", 4, 14,
         "'noise.radius_max' is 5, expected 10"},
        {"[[noise.modifiers]]\nstrength = 3\n", 1, 1, "modifier has no 'kind'"},
        {"[[noise.modifiers]]\nkind = \"blur\"\n", 2, 8, "'noise.modifiers.kind' is \"blur\""},
        {"[[noise.modifiers]]\nkind = \"warp\"\nradius = 2\n", 3, 1,
         "unknown key 'noise.modifiers.radius'"},
        {"[[noise.modifiers]]\nkind = \"warp\"\nlevels = 3\n", 3, 10,
         "'noise.modifiers.levels' is 3, expected 1 to 2"},
        {"[[noise.modifiers]]\nkind = \"combine\"\nmap = \"rain\"\n", 3, 7,
         "combine names map 'rain'"},
        {"[[noise.modifiers]]\nkind = \"combine\"\n", 1, 1, "combine needs 'map'"},
        {"[noise]\n[[noise.modifiers]]\nkind = \"combine\"\nmap = "
         "\"m\"\n[maps.m]\n[[maps.m.modifiers]]\nkind = "
         "\"combine\"\nmap = \"elevation\"\n",
         1, 1, "map 'elevation' depends on itself"},
        {"[noise]\n[maps.elevation]\n", 2, 7, "map 'elevation' is defined twice"},
        {"[maps]\nx = 3\n", 2, 5, "'maps.x' must be a table"},
        {"[classes]\nmap = \"rain\"\n", 2, 7, "'classes.map' names map 'rain'"},
        {"[maps.moisture]\n[biomes]\nrows = \"height\"\nrow_shares = [0.5, 0.5]\ncolumn_shares = "
         "[1.0]\ntable = [\"w\", \"g\"]\n",
         3, 8, "'biomes.rows' names map 'height'"},
        {"[[objects]]\nsprite = \"oak\"\non = \"g\"\ndensity = \"trees\"\n", 4, 11,
         "'objects.density' names map 'trees'"},
        {"[biomes]\nrow_shares = [0.5, 0.5]\ncolumn_shares = [1.0]\ntable = [\"w\", \"g\"]\n", 1, 1,
         "'biomes.columns' names map 'moisture'"},
        {"[maps.moisture]\n[biomes]\nrow_shares = [0.5, 0.6]\ncolumn_shares = [1.0]\ntable = "
         "[\"w\", \"g\"]\n",
         3, 14, "'biomes.row_shares' adds up to 1.1"},
        {"[maps.moisture]\n[biomes]\nrow_shares = [0.5, 0.5]\ncolumn_shares = [1.0]\ntable = "
         "[\"w\"]\n",
         5, 9, "'biomes.table' has 1 rows, expected 2"},
        {"[maps.moisture]\n[biomes]\nrow_shares = [0.5, 0.5]\ncolumn_shares = [1.0]\ntable = "
         "[\"w\", \"gg\"]\n",
         5, 15, "biome table row \"gg\" has 2 symbols, expected 1"},
        {"[maps.moisture]\n[biomes]\nrow_shares = [0.5, 0.5]\ncolumn_shares = [1.0]\ntable = "
         "[\"w\", \"x\"]\n",
         5, 15, "biome table uses symbol 'x'"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics d;
        CHECK_FALSE(parse_recipe(b.text + kTail, "bad.toml", d));
        REQUIRE(!d.empty());
        CHECK(d[0].line == b.line);
        CHECK(d[0].column == b.column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
        // As the apps print it.
        CHECK(format_diagnostic(d[0]).starts_with("bad.toml:" + std::to_string(b.line) + ":" +
                                                  std::to_string(b.column) + ": error: "));
    }
}
