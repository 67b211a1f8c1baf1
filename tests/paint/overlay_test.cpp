// Overlay terrains (`draws_as`): the key is parsed and checked, the pairs over the terrain an
// overlay draws as are repeated over it (the terrains above draw the same banks next to it),
// overlay tiles come after every other tile, and the golden river map (tests/data/river-art) is
// autotiled with no unmatched cell and the tiles worked out by hand in its expected.txt.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/classes/class_map_text.hpp"
#include "core/recipe/recipe.hpp"
#include "core/rules/rule_matcher.hpp"
#include "core/rules/rule_parser.hpp"
#include "paint/blob.hpp"
#include "paint/emit.hpp"
#include "paint/paint_support.hpp"
#include "paint/painter.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::paint;
namespace tp = tilegen::test::paint;
namespace fs = std::filesystem;

namespace {

std::string terrain(const std::string& name, const std::string& symbol, int height,
                    const std::string& extra = "") {
    return "[[terrain]]\nname = \"" + name + "\"\nsymbol = \"" + symbol +
           "\"\nheight = " + std::to_string(height) +
           "\nstyle = \"waves\"\npalette = [\"#000000\", \"#808080\", \"#ffffff\"]\n" + extra;
}

std::string pair(const std::string& upper, const std::string& lower) {
    return "[[pair]]\nupper = \"" + upper + "\"\nlower = \"" + lower + "\"\n";
}

// Water, a river drawn as water with its own rims, sand; sand draws water rims, the river draws a
// water rim (a mouth).
const std::string kSmall = terrain("water", "w", 0) +
                           terrain("river", "~", 1, "draws_as = \"water\"\nown_rims = true\n") +
                           terrain("sand", "s", 2) + pair("sand", "water") + pair("river", "water");

// 1-based line and column of the first occurrence of `needle` at or after `from`.
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

// The first target name of the rule deciding the centre of a 3x3 neighbourhood (rows top to
// bottom, e.g. "sss s~s sss").
std::string decide(const std::vector<Rule>& ordered, const std::string& symbols,
                   const std::string& hood) {
    std::vector<ClassId> cells;
    for (char c : hood)
        if (c != ' ') cells.push_back(static_cast<ClassId>(symbols.find(c)));
    REQUIRE(cells.size() == 9);
    const int r = first_match_of(ordered, cells, 1);
    REQUIRE(r >= 0);
    const Target& t = ordered[static_cast<std::size_t>(r)].targets.front();
    return t.kind == Target::Kind::error ? "@error" : t.name;
}

} // namespace

TEST_CASE("paint: draws_as is parsed, overlay symbols may be any recipe symbol") {
    Diagnostics diags;
    const auto d = parse_description(kSmall, "d.toml", diags);
    for (const auto& e : diags)
        MESSAGE(format_diagnostic(e));
    REQUIRE(d);
    CHECK(d->terrains[0].draws_as == -1);
    CHECK(d->terrains[1].draws_as == 0);
    CHECK(d->terrains[1].symbol == '~');
    CHECK(d->terrains[2].draws_as == -1);
    // The pair sand over water is repeated over the river, all but the lower terrain alike.
    REQUIRE(d->pairs.size() == 3);
    CHECK(d->pairs[0].derived_from == -1);
    CHECK(d->pairs[1].derived_from == -1);
    const Pair& derived = d->pairs[2];
    CHECK(derived.derived_from == 0);
    CHECK(derived.upper == 2);
    CHECK(derived.lower == 1);
    CHECK(derived.rim_depth == d->pairs[0].rim_depth);
    CHECK(derived.lower_lines == d->pairs[0].lower_lines);
    // A pair the description declares itself is not repeated.
    Diagnostics diags2;
    const auto own =
        parse_description(kSmall + pair("sand", "river") + "blend = 1\n", "d.toml", diags2);
    REQUIRE(own);
    REQUIRE(own->pairs.size() == 3);
    CHECK(own->pairs[2].derived_from == -1);
    CHECK(own->pairs[2].blend == 1.0);
    // Without own_rims nothing is repeated: sand draws its water rim, in the water's texture.
    std::string plain = kSmall;
    plain.erase(plain.find("own_rims = true\n"), 16);
    Diagnostics diags3;
    const auto as_is = parse_description(plain, "d.toml", diags3);
    REQUIRE(as_is);
    CHECK(as_is->pairs.size() == 2);
    CHECK_FALSE(as_is->terrains[1].own_rims);
    CHECK(d->terrains[1].own_rims);
    // The shipped overworld: three overlays drawn as water, the road drawn as dirt.
    const Description& ow = tp::description("overworld");
    int overlays = 0;
    for (const Terrain& t : ow.terrains)
        if (t.draws_as >= 0) {
            ++overlays;
            CHECK(ow.terrains[static_cast<std::size_t>(t.draws_as)].name ==
                  (t.name == "road" ? "dirt" : "water"));
        }
    CHECK(overlays == 4);
}

TEST_CASE("paint: bad draws_as values and overlay layerings: message and line:column") {
    struct Bad {
        std::string text;
        std::string at; // the text the error points at (its first occurrence after `after`)
        std::string after;
        const char* message;
    };
    const std::string w = terrain("water", "w", 0), s = terrain("sand", "s", 2);
    const Bad cases[] = {
        {w + terrain("river", "~", 1, "draws_as = \"mud\"\n") + s, "\"mud\"", "",
         "'draws_as': no terrain named 'mud'"},
        {w + terrain("river", "~", 1, "draws_as = \"river\"\n") + s, "\"river\"\n", "draws_as",
         "'draws_as': a terrain cannot draw as itself"},
        {w + terrain("river", "~", 1, "draws_as = 3\n") + s, "3\n", "draws_as",
         "'terrain.draws_as' must be a string"},
        {w + terrain("river", "~", 1, "draws_as = \"water\"\n") +
             terrain("lake", "o", 3, "draws_as = \"river\"\n") + s,
         "\"river\"", "name = \"lake\"", "'river' draws as 'water' itself"},
        {w + terrain("river", "~", 5, "draws_as = \"water\"\n") + s, "5\n", "name = \"river\"",
         "'height' of 'river' (5) must lie above 'water' (0) and below 'sand' (2)"},
        {w + terrain("river", "~", -1, "draws_as = \"water\"\n") + s, "-1\n", "name = \"river\"",
         "must lie above 'water' (0)"},
        {w + terrain("river", "~", 1, "own_rims = true\n") + s, "true", "own_rims",
         "'own_rims' needs 'draws_as'"},
        {w + terrain("river", "~", 1, "draws_as = \"water\"\nown_rims = 1\n") + s, "1\n",
         "own_rims", "'terrain.own_rims' must be"},
        {w + terrain("river", "?", 1, "draws_as = \"water\"\n") + s, "\"?\"", "",
         "'symbol' must be one printable character other than"},
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

TEST_CASE("paint: the terrains above an overlay draw the same banks next to it, in its "
          "texture, the overlay draws what lies below it") {
    Diagnostics diags;
    const auto d = parse_description(kSmall, "d.toml", diags);
    REQUIRE(d);
    const std::string symbols = "w~s"; // by height
    const std::string text = rules_text(*d, "d.toml");
    const auto ordered = tp::ordered_rules(text, symbols);
    // Sand draws its shore beside a river as beside the sea, with the river's water.
    CHECK(decide(ordered, symbols, "s~s sss sss") == "sand-river-n");
    CHECK(decide(ordered, symbols, "sws sss sss") == "sand-water-n");
    CHECK(decide(ordered, symbols, "sss ss~ s~s") == "sand-river-e-s");
    // The sea is plain next to a river (the river draws the blend)...
    CHECK(decide(ordered, symbols, "~~~ ~w~ ~~~") == "water");
    // ...and the river draws the water rim where the sea is: a mouth.
    CHECK(decide(ordered, symbols, "s~s s~w s~s") == "river-water-e");
    CHECK(decide(ordered, symbols, "sss s~s www") == "river-water-s");
    // Land around a river is drawn by the land: the river stays plain.
    CHECK(decide(ordered, symbols, "sss s~s sss") == "river");
    CHECK(text.find("# river (~) is an overlay drawn like water") != std::string::npos);
    // The repeated pair paints the same rim shape as the one over water.
    for (BlobMask m : blob_cases()) {
        if (m == 0) continue;
        CHECK(rim_materials(*d, d->pairs[2], m) == rim_materials(*d, d->pairs[0], m));
    }
}

namespace {

// The description with only the terrains of layout groups up to `max_group` and their pairs.
Description up_to_group(const Description& full, int max_group) {
    Description plain = full;
    plain.terrains.clear();
    plain.pairs.clear();
    std::vector<int> new_index(full.terrains.size(), -1);
    for (std::size_t i = 0; i < full.terrains.size(); ++i)
        if (full.terrains[i].group <= max_group) {
            new_index[i] = static_cast<int>(plain.terrains.size());
            plain.terrains.push_back(full.terrains[i]);
        }
    for (Terrain& t : plain.terrains)
        if (t.draws_as >= 0) t.draws_as = new_index[static_cast<std::size_t>(t.draws_as)];
    for (Pair p : full.pairs) {
        if (new_index[static_cast<std::size_t>(p.upper)] < 0 ||
            new_index[static_cast<std::size_t>(p.lower)] < 0)
            continue;
        p.upper = new_index[static_cast<std::size_t>(p.upper)];
        p.lower = new_index[static_cast<std::size_t>(p.lower)];
        plain.pairs.push_back(p);
    }
    return plain;
}

// Every slot name and pixel of `a` is the same in `b`; b has more.
void check_prefix(const PaintedTileset& a, const PaintedTileset& b) {
    REQUIRE(b.names.size() > a.names.size());
    for (std::size_t i = 0; i < a.names.size(); ++i)
        CHECK(a.names[i] == b.names[i]);
    REQUIRE(a.image.width() == b.image.width());
    REQUIRE(a.image.height() < b.image.height());
    int differing = 0;
    for (int y = 0; y < a.image.height(); ++y)
        for (int x = 0; x < a.image.width(); ++x)
            differing += a.image.get(x, y) == b.image.get(x, y) ? 0 : 1;
    CHECK(differing == 0);
}

} // namespace

TEST_CASE("paint: overlay tiles come after every other tile: without them the tileset is the same "
          "up to there") {
    const Description& full = tp::description("overworld");
    const Description plain = up_to_group(full, 0), rivers = up_to_group(full, 1);
    // Group 0: the seven land and sea terrains; group 1: river, lake, waterfall (draws_as);
    // group 2: road and bridge.
    REQUIRE(plain.terrains.size() == 7);
    REQUIRE(rivers.terrains.size() == 10);
    REQUIRE(full.terrains.size() == 12);
    for (const Terrain& t : rivers.terrains)
        CHECK((t.group == 1) == (t.draws_as >= 0));
    const PaintedTileset a = paint_tileset(plain), r = paint_tileset(rivers),
                         b = paint_tileset(full);
    // Each group starts a fresh row: every pixel of the smaller tileset is in the larger one.
    check_prefix(a, r);
    check_prefix(r, b);
    for (const char* name : {"road", "road-pebbles", "road-ruts-ns", "bridge-ew", "bridge-ns-n-s",
                             "grass-road-n", "rock-road-s", "road-dirt-w", "road-river-n"})
        CHECK_MESSAGE(std::count(b.names.begin() + static_cast<long>(r.names.size()), b.names.end(),
                                 std::string(name)) == 1,
                      name);
    for (const char* name :
         {"river", "river-water-n", "lake", "river-lake-w", "waterfall", "waterfall-river-s",
          "waterfall-lake-s", "grass-river-n", "sand-river-e", "dirt-river-s"})
        CHECK_MESSAGE(std::count(b.names.begin() + static_cast<long>(a.names.size()), b.names.end(),
                                 std::string(name)) == 1,
                      name);
}

TEST_CASE("paint: golden river map (tests/data/river-art): every cell matched, the river tiles "
          "where worked out by hand") {
    const fs::path src = test::source_dir();
    const fs::path dir = src / "tests" / "data" / "river-art";
    Diagnostics diags;
    const auto recipe =
        parse_recipe(test::read_text(src / "samples" / "overworld.toml"), "overworld.toml", diags);
    REQUIRE(recipe);
    const std::string symbols = terrain_symbols(*recipe);
    SymbolTable table;
    for (std::size_t i = 0; i < symbols.size(); ++i)
        table[symbols[i]] = static_cast<int>(i);
    const auto classes =
        parse_class_map(test::read_text(dir / "classes.txt"), "classes.txt", table, diags);
    const auto rules = parse_rules(test::read_text(src / "rules" / "overworld-full.rules"),
                                   "overworld-full.rules", table, diags);
    for (const auto& e : diags)
        FAIL_CHECK(format_diagnostic(e));
    REQUIRE(classes);
    const std::vector<Rule> ordered = order_by_specificity(rules);
    auto decided = [&](int x, int y) {
        const int r = first_match(*classes, x, y, ordered, OutsidePolicy{});
        REQUIRE(r >= 0);
        const Target& t = ordered[static_cast<std::size_t>(r)].targets.front();
        return t.kind == Target::Kind::error ? std::string("@error") : t.name;
    };
    int unmatched = 0, river_cells = 0;
    for (int y = 0; y < classes->height(); ++y)
        for (int x = 0; x < classes->width(); ++x) {
            unmatched += decided(x, y) == "@error" ? 1 : 0;
            river_cells += symbols[(*classes)(x, y)] == '~' ? 1 : 0;
        }
    CHECK(unmatched == 0);
    CHECK(river_cells > 60);
    std::istringstream expected(test::read_text(dir / "expected.txt"));
    int checked = 0;
    for (std::string line; std::getline(expected, line);) {
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        int x = 0, y = 0;
        std::string name;
        if (!(words >> x >> y >> name)) continue;
        CAPTURE(line);
        CHECK(decided(x, y) == name);
        ++checked;
    }
    CHECK(checked >= 15);

    // The program agrees: no unmatched cell.
    test::TempDir tmp;
    const auto r = test::run_tilegen(
        "generate samples/overworld.toml --classes " +
            test::shell_quote((dir / "classes.txt").string()) + " -o " +
            test::shell_quote((tmp.path() / "r.tmx").string()) + " --png none --json",
        src);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"unmatched\":0") != std::string::npos);
}

TEST_CASE("paint: golden road map (tests/data/road-art): every cell matched, the road and bridge "
          "tiles where worked out by hand") {
    const fs::path src = test::source_dir();
    const fs::path dir = src / "tests" / "data" / "road-art";
    Diagnostics diags;
    const auto recipe =
        parse_recipe(test::read_text(src / "samples" / "overworld.toml"), "overworld.toml", diags);
    REQUIRE(recipe);
    const std::string symbols = terrain_symbols(*recipe);
    SymbolTable table;
    for (std::size_t i = 0; i < symbols.size(); ++i)
        table[symbols[i]] = static_cast<int>(i);
    const auto classes =
        parse_class_map(test::read_text(dir / "classes.txt"), "classes.txt", table, diags);
    const auto rules = parse_rules(test::read_text(src / "rules" / "overworld-full.rules"),
                                   "overworld-full.rules", table, diags);
    for (const auto& e : diags)
        FAIL_CHECK(format_diagnostic(e));
    REQUIRE(classes);
    const std::vector<Rule> ordered = order_by_specificity(rules);
    auto decided = [&](int x, int y) {
        const int r = first_match(*classes, x, y, ordered, OutsidePolicy{});
        REQUIRE(r >= 0);
        const Target& t = ordered[static_cast<std::size_t>(r)].targets.front();
        return t.kind == Target::Kind::error ? std::string("@error") : t.name;
    };
    int unmatched = 0, road_cells = 0, bridge_cells = 0;
    for (int y = 0; y < classes->height(); ++y)
        for (int x = 0; x < classes->width(); ++x) {
            const std::string name = decided(x, y);
            unmatched += name == "@error" ? 1 : 0;
            const char c = symbols[(*classes)(x, y)];
            CAPTURE(x);
            CAPTURE(y);
            if (c == '+') { // a road cell shows the road: plain, or its own rim over a lower one
                ++road_cells;
                CHECK(name.rfind("road", 0) == 0);
            }
            if (c == 'H') {
                ++bridge_cells;
                CHECK(name.rfind("bridge-", 0) == 0);
            }
        }
    CHECK(unmatched == 0);
    CHECK(road_cells > 80);
    CHECK(bridge_cells == 10);
    std::istringstream expected(test::read_text(dir / "expected.txt"));
    int checked = 0;
    for (std::string line; std::getline(expected, line);) {
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        int x = 0, y = 0;
        std::string name;
        if (!(words >> x >> y >> name)) continue;
        CAPTURE(line);
        CHECK(decided(x, y) == name);
        ++checked;
    }
    CHECK(checked >= 20);
}
