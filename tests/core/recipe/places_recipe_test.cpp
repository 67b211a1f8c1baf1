// [[places]], [roads] and [constraints]: values, defaults, and bad values at line:column.
#include <doctest/doctest.h>

#include "core/recipe/recipe.hpp"

using namespace tilegen;

namespace {
// Lines 1..16; the sections under test follow from line 17.
const std::string kHead = R"([[terrain]]
name = "water"
symbol = "w"
share = 0.5
[[terrain]]
name = "grass"
symbol = "g"
share = 0.5
[[terrain]]
name = "road"
symbol = "+"
share = 0
[[terrain]]
name = "bridge"
symbol = "H"
share = 0
)";
const std::string kTail = R"(
[rules]
files = ["a.rules"]
[tileset]
path = "t.toml"
)";
// Lines 17..
const std::string kPlaces = R"([[places]]
name = "start"
on = "g"
start = true
[[places]]
name = "town"
on = "g"
count = 3
min_distance = 20
near = "w"
near_distance = 5
flat = 2.5
[roads]
class = "+"
bridge_class = "H"
connect = ["start", "town"]
bridge_over = "w"
costs = { g = 2, w = 9 }
max_bridge = 4
[constraints]
walkable_regions = 1
min_region = 50
policy = "fill"
tries = 7
)";

std::string recipe_with(const std::string& from, const std::string& to) {
    std::string s = kPlaces;
    if (!from.empty()) {
        const auto p = s.find(from);
        REQUIRE(p != std::string::npos);
        s.replace(p, from.size(), to);
    }
    return kHead + s + kTail;
}
} // namespace

TEST_CASE("places, roads and constraints: values as written") {
    Diagnostics d;
    const auto r = parse_recipe(recipe_with("", ""), "r.toml", d);
    REQUIRE(r);
    const PlacesRecipe& p = r->places;
    REQUIRE(p.places.size() == 2);
    CHECK(p.places[0].start);
    CHECK(p.places[0].on == 0b10u);
    CHECK(p.places[1].count == 3);
    CHECK(p.places[1].min_distance == 20);
    CHECK(p.places[1].near == 0b01u);
    CHECK(p.places[1].near_distance == 5);
    CHECK(p.places[1].flat == 2.5);
    REQUIRE(p.roads);
    CHECK(p.roads->road_class == 2);
    CHECK(p.roads->bridge_class == 3);
    CHECK(p.roads->connect == std::vector<int>{0, 1});
    CHECK(p.roads->bridge_over == 0b01u);
    CHECK(p.roads->costs == std::vector<double>{9, 2, -1, -1});
    CHECK(p.roads->max_bridge == 4);
    REQUIRE(p.constraints);
    CHECK(p.constraints->walkable_regions == 1);
    CHECK(p.constraints->min_region == 50);
    CHECK(p.constraints->policy == ReachPolicy::fill);
    CHECK(p.constraints->tries == 7);
}

TEST_CASE("places, roads and constraints: documented defaults") {
    Diagnostics d;
    const std::string text = kHead +
                             "[[places]]\nname = \"a\"\non = \"g\"\n[roads]\nclass = "
                             "\"+\"\nbridge_class = \"H\"\n[constraints]\n" +
                             kTail;
    const auto r = parse_recipe(text, "r.toml", d);
    REQUIRE(r);
    const PlaceRule& p = r->places.places.at(0);
    CHECK(p.count == 1);
    CHECK(p.min_distance == 16);
    CHECK(p.near == 0u);
    CHECK(p.near_distance == 8);
    CHECK(p.flat == 0);
    CHECK(p.face == 0u);
    CHECK_FALSE(p.start);
    CHECK(p.footprint_w == 1);
    const RoadSettings& rs = *r->places.roads;
    CHECK(rs.connect.empty());
    CHECK(rs.avoid == 0u);
    CHECK(rs.bridge_cost == 4);
    CHECK(rs.max_bridge == 6);
    CHECK(rs.slope_cost == 1);
    CHECK(rs.road_discount == 0.25);
    CHECK(rs.extra_links == 2);
    const ConstraintSettings& c = *r->places.constraints;
    CHECK(c.walkable_regions == 0);
    CHECK(c.min_region == 64);
    CHECK(c.policy == ReachPolicy::connect);
    CHECK(c.pass_cost == 8);
    CHECK(c.tries == 1);
}

TEST_CASE("places, roads and constraints: bad values give path:line:col") {
    struct Bad {
        std::string from, to;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {"on = \"g\"\nstart", "on = \"x\"\nstart", 19, 6, "'places.on' uses symbol 'x'"},
        {"count = 3", "count = 300", 24, 9, "'places.count' is 300, expected 0 to 256"},
        {"count = 3", "count = -1", 24, 9, "expected 0 to 256"},
        {"min_distance = 20", "min_distance = 5000", 25, 16, "'places.min_distance' is 5000"},
        {"near_distance = 5", "near_distance = 0", 27, 17, "expected 1 to 256"},
        {"flat = 2.5", "flat = -1", 28, 8, "'places.flat' is -1"},
        {"flat = 2.5", "flatness = 1", 28, 1, "unknown key 'places.flatness'"},
        {"name = \"town\"", "name = \"start\"", 22, 8, "duplicate place name 'start'"},
        {"count = 3", "count = 3\nstart = true", 25, 9, "only one [[places]] may be the start"},
        {"class = \"+\"", "class = \"q\"", 30, 9, "'roads.class' is \"q\", expected one terrain"},
        {"bridge_class = \"H\"", "bridge_class = \"+\"", 31, 16, "must differ from 'roads.class'"},
        {"connect = [\"start\", \"town\"]", "connect = [\"start\", \"city\"]", 32, 21,
         "'roads.connect' names place 'city'"},
        {"costs = { g = 2, w = 9 }", "costs = { g = 0 }", 34, 15,
         "'roads.costs.g' is 0, expected 0.1 to 1000"},
        {"costs = { g = 2, w = 9 }", "costs = { z = 1 }", 34, 11, "'roads.costs' key 'z'"},
        {"max_bridge = 4", "max_bridge = 33", 35, 14, "'roads.max_bridge' is 33, expected 0 to 32"},
        {"walkable_regions = 1", "walkable_regions = 2", 37, 20, "expected 0 to 1"},
        {"min_region = 50", "min_region = 0", 38, 14, "'constraints.min_region' is 0"},
        {"policy = \"fill\"", "policy = \"magic\"", 39, 10, "'constraints.policy' is \"magic\""},
        {"tries = 7", "tries = 0", 40, 9, "'constraints.tries' is 0, expected 1 to 1000"},
        {"tries = 7", "retries = 2", 40, 1, "unknown key 'constraints.retries'"},
    };
    for (const Bad& b : cases) {
        const std::string text = recipe_with(b.from, b.to);
        CAPTURE(text);
        Diagnostics d;
        CHECK_FALSE(parse_recipe(text, "bad.toml", d));
        REQUIRE(!d.empty());
        CHECK(d[0].file == "bad.toml");
        CHECK(d[0].line == b.line);
        CHECK(d[0].column == b.column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
    }
}
