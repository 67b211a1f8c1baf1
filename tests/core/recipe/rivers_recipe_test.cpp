#include <doctest/doctest.h>

#include "core/recipe/recipe.hpp"

using namespace tilegen;

namespace {
// Lines 1..20; keys appended after it start on line 21.
const std::string kRivers = R"([map]
width = 64
[[terrain]]
name = "water"
symbol = "w"
share = 0.4
[[terrain]]
name = "grass"
symbol = "g"
share = 0.6
[[terrain]]
name = "river"
symbol = "~"
[rules]
files = ["a.rules"]
[tileset]
path = "t.toml"
[rivers]
class = "~"
into = "w"
)";

std::string rivers_with(const std::string& from, const std::string& to) {
    std::string s = kRivers;
    const auto p = s.find(from);
    REQUIRE(p != std::string::npos);
    return s.replace(p, from.size(), to);
}
} // namespace

TEST_CASE("[rivers]: defaults, and the terrains it writes are overlays") {
    Diagnostics d;
    const auto r = parse_recipe(kRivers, "r.toml", d);
    REQUIRE(r);
    REQUIRE(r->rivers);
    const RiverSettings& s = *r->rivers;
    CHECK(s.method == RiverMethod::flow);
    CHECK_FALSE(s.has_count);
    CHECK(s.width_min == 1);
    CHECK(s.width_max == 3);
    CHECK(s.lake_min_area == 0);
    CHECK(s.river_symbol == '~');
    CHECK(s.lake_symbol == 0);
    CHECK(s.into == "w");
    CHECK(r->terrain[2].overlay);
    CHECK_FALSE(r->terrain[0].overlay);
    CHECK(overlay_mask(*r) == 4u);

    const auto full =
        parse_recipe(kRivers +
                         "count = [2, 5]\nwidth = 2\nlakes = { min_area = 9 }\ncarve = 0.02\n"
                         "method = \"agents\"\nmin_length = 7\nwaterfall_drop = 0.1\n" +
                         "",
                     "r.toml", d);
    CHECK_FALSE(full); // lakes without lake_class
    std::string text =
        rivers_with("[rules]", "[[terrain]]\nname = \"lake\"\nsymbol = \"o\"\n[rules]");
    text += "count = [2, 5]\nwidth = 2\nlakes = { min_area = 9 }\nlake_class = \"o\"\n";
    Diagnostics d2;
    const auto ok = parse_recipe(text, "r.toml", d2);
    REQUIRE(ok);
    CHECK(ok->rivers->has_count);
    CHECK(ok->rivers->count_min == 2);
    CHECK(ok->rivers->count_max == 5);
    CHECK(ok->rivers->width_min == 2);
    CHECK(ok->rivers->width_max == 2);
    CHECK(ok->rivers->lake_min_area == 9);
    CHECK(ok->rivers->lake_symbol == 'o');
    CHECK(overlay_mask(*ok) == (4u | 8u));
}

TEST_CASE("[rivers]: bad values give path:line:col errors") {
    struct Bad {
        std::string text;
        int line, column;
        std::string message;
    };
    const std::vector<Bad> cases{
        {kRivers + "width = [3, 1]\n", 21, 9,
         "'rivers.width' is [3, 1]: the first number (the minimum) must not exceed the second"},
        {kRivers + "count = [5, 2]\n", 21, 9, "'rivers.count' is [5, 2]"},
        {kRivers + "width = [1, 40]\n", 21, 13,
         "'rivers.width' must be whole numbers from 1 to 16"},
        {kRivers + "width = \"wide\"\n", 21, 9,
         "'rivers.width' must be a whole number or [min, max]"},
        {kRivers + "colour = 1\n", 21, 1, "unknown key 'rivers.colour'"},
        {kRivers + "method = \"magic\"\n", 21, 10, "'rivers.method' is \"magic\""},
        {kRivers + "threshold = 0\n", 21, 13, "'rivers.threshold' is 0"},
        {kRivers + "rain = \"moisture\"\n", 21, 8, "'rivers.rain' names map 'moisture'"},
        {kRivers + "lakes = { min_area = 5 }\n", 21, 9, "need 'lake_class'"},
        {kRivers + "lakes = { size = 5 }\n", 21, 11, "unknown key 'rivers.lakes.size'"},
        {rivers_with("class = \"~\"", "class = \"g\""), 19, 9,
         "'rivers.class' is 'g' (terrain 'grass'), which is not an overlay terrain"},
        {rivers_with("class = \"~\"", "class = \"x\""), 19, 9,
         "'rivers.class' is 'x', which no [[terrain]] has"},
        {rivers_with("class = \"~\"", "class = \"~~\""), 19, 9,
         "'rivers.class' must be one terrain symbol"},
        {rivers_with("class = \"~\"\n", ""), 18, 1, "[rivers] needs 'class'"},
        {rivers_with("into = \"w\"", "into = \"w~\""), 20, 8,
         "'rivers.into' uses symbol '~', which is no [[terrain]] cut from the heightfield"},
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

TEST_CASE("a terrain without a share is an overlay terrain, [rivers] or not") {
    Diagnostics d;
    auto r = parse_recipe(rivers_with("[rivers]\nclass = \"~\"\ninto = \"w\"\n", ""), "r.toml", d);
    for (const auto& x : d)
        MESSAGE(format_diagnostic(x));
    REQUIRE(r);
    for (const TerrainClass& t : r->terrain)
        CHECK(t.overlay == (t.symbol == '~'));
}
