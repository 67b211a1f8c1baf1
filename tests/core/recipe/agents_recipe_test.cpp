#include <doctest/doctest.h>

#include "core/recipe/recipe.hpp"

using namespace tilegen;

namespace {
const std::string kTail = R"(
[[terrain]]
name = "water"
symbol = "w"
share = 0.5
[[terrain]]
name = "grass"
symbol = "g"
share = 0.5
[rules]
files = ["r.rules"]
[tileset]
path = "t.toml"
)";
} // namespace

TEST_CASE("agents and erosion: keys parse, missing tables keep their documented defaults") {
    Diagnostics d;
    auto r = parse_recipe(R"([noise]
kind = "agents"
sea_level = 0.25
[noise.coastline]
budget = 0.4
limit = 500
[noise.beach]
agents = 7
width = 2
[noise.mountain]
agents = 3
foothill_every = 9
[[noise.modifiers]]
kind = "thermal"
talus = 0.02
[[noise.modifiers]]
kind = "hydraulic"
droplets = 2
radius = 2
)" + kTail,
                          "a.toml", d);
    for (auto& x : d)
        MESSAGE(format_diagnostic(x));
    REQUIRE(r);
    const MapDefinition* e = find_map(*r, "elevation");
    REQUIRE(e);
    const NoiseSettings& n = e->settings;
    const AgentSettings& a = n.agents;
    CHECK(n.kind == NoiseKind::agents);
    CHECK(a.sea_level == 0.25);
    CHECK(a.coastline.budget == 0.4);
    CHECK(a.coastline.limit == 500);
    CHECK(a.coastline.edge == 3); // default
    CHECK(a.beach.agents == 7);
    CHECK(a.beach.width == 2);
    CHECK(a.beach.low > 0.25); // beach heights stay above sea level
    CHECK(a.mountain.agents == 3);
    CHECK(a.mountain.foothill_every == 9);
    CHECK(a.hill.agents == 0);
    CHECK(a.hill.altitude == 0.6);
    CHECK(a.smoothing.agents == 100);
    REQUIRE(n.modifiers.size() == 2);
    CHECK(n.modifiers[0].thermal.talus == 0.02);
    CHECK(n.modifiers[0].thermal.iterations == 50);
    CHECK(n.modifiers[1].hydraulic.droplets == 2);
    CHECK(n.modifiers[1].hydraulic.radius == 2);
    CHECK(n.modifiers[1].hydraulic.inertia == 0.05);
}

TEST_CASE("agents and erosion: bad values give path:line:col: error:") {
    struct Bad {
        std::string text;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {"[noise]\nkind = \"agents\"\n[noise.coastline]\nbudget = 1.5\n", 4, 10,
         "'noise.coastline.budget' is 1.5, expected 0 to 0.95"},
        {"[noise]\nkind = \"agents\"\n[noise.coastline]\ntokens = 3\n", 4, 1,
         "unknown key 'noise.coastline.tokens'"},
        {"[noise]\nkind = \"agents\"\ncoastline = 3\n", 3, 13, "'noise.coastline' must be a table"},
        {"[noise]\nkind = \"agents\"\n[noise.smoothing]\nrevisits = 0\n", 4, 12,
         "'noise.smoothing.revisits' is 0, expected 1 to 1000"},
        {"[noise]\nkind = \"agents\"\n[noise.beach]\nlow = 0.2\n", 4, 7,
         "'noise.beach.low' is 0.2, expected more than 0.3"},
        {"[noise]\nkind = \"agents\"\n[noise.beach]\nlow = 0.4\nhigh = 0.35\n", 5, 8,
         "'noise.beach.high' is 0.35, expected 0.4 to 1"},
        {"[noise]\nkind = \"agents\"\n[noise.mountain]\nturn = 2\n", 4, 8,
         "'noise.mountain.turn' is 2, expected 0 to 1"},
        {"[noise]\nkind = \"agents\"\n[noise.hill]\nfoothill_length = 3\n", 4, 1,
         "unknown key 'noise.hill.foothill_length'"},
        {"[noise]\nkind = \"agents\"\nfaults = 3\n", 3, 1,
         "'noise.faults' does not apply to kind \"agents\""},
        {"[[noise.modifiers]]\nkind = \"thermal\"\ntalus = -1\n", 3, 9,
         "'noise.modifiers.talus' is -1, expected 0 to 1"},
        {"[[noise.modifiers]]\nkind = \"thermal\"\ndroplets = 1\n", 3, 1,
         "unknown key 'noise.modifiers.droplets'"},
        {"[[noise.modifiers]]\nkind = \"hydraulic\"\nradius = 0\n", 3, 10,
         "'noise.modifiers.radius' is 0, expected 1 to 16"},
        {"[[noise.modifiers]]\nkind = \"hydraulic\"\ninertia = 1.5\n", 3, 11,
         "'noise.modifiers.inertia' is 1.5, expected 0 to 1"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics d;
        CHECK_FALSE(parse_recipe(b.text + kTail, "bad.toml", d));
        REQUIRE(!d.empty());
        CHECK(d[0].line == b.line);
        CHECK(d[0].column == b.column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
        CHECK(format_diagnostic(d[0]).starts_with("bad.toml:" + std::to_string(b.line) + ":" +
                                                  std::to_string(b.column) + ": error: "));
    }
}
