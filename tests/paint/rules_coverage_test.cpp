// The rules files of the tilesets: every 3x3 neighbourhood of their terrain set is decided by a
// real rule (no catch-all, no error), no rule is shadowed or repeated, and each generated rule
// picks the tile the layering asks for. Exact for every terrain set, the seven-terrain overworld
// included (by equivalence classes, see paint_support.hpp), and cross-checked against the library's
// check_rules where it enumerates exactly.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/rules/autotile.hpp"
#include "core/rules/rule_check.hpp"
#include "paint/blob.hpp"
#include "paint/emit.hpp"
#include "paint/paint_support.hpp"

using namespace tilegen;
using namespace tilegen::paint;
namespace tp = tilegen::test::paint;
namespace fs = std::filesystem;

namespace {

struct RulesFile {
    std::string path;    // repository-relative
    std::string symbols; // lowest first
    const Description* d = nullptr;
    const RulesOutput* output = nullptr; // null for hand-written files
};

std::vector<RulesFile> rules_files() {
    std::vector<RulesFile> out;
    for (const char* set : {"overworld", "cave", "two-terrain"}) {
        const Description& d = tp::description(set);
        for (const RulesOutput& o : d.rules) {
            const fs::path p = (fs::path("tilesets") / set / o.path).lexically_normal();
            out.push_back({p.generic_string(), tp::symbols_by_height(d, o.terrains), &d, &o});
        }
    }
    const Description& two = tp::description("two-terrain");
    out.push_back({"rules/two-terrain-17.rules", "wg", &two, nullptr});
    out.push_back({"rules/two-terrain-rotated.rules", "wg", &two, nullptr});
    return out;
}

} // namespace

TEST_CASE("paint: the shipped rules files are the ones we expect") {
    std::set<std::string> paths;
    for (const auto& f : rules_files())
        paths.insert(f.path);
    for (const char* p : {"rules/overworld.rules", "rules/overworld-full.rules", "rules/cave.rules",
                          "rules/two-terrain-17.rules", "rules/two-terrain-rotated.rules"})
        CHECK_MESSAGE(paths.count(p) == 1, p);
    CHECK(tp::symbols_by_height(tp::description("overworld")) == "Dwo~=sd+gfrH");
    CHECK(tp::symbols_by_height(tp::description("cave")) == "pwfW");
}

TEST_CASE("paint: every rules file decides every 3x3 neighbourhood with a real rule, none shadowed "
          "or repeated") {
    for (const RulesFile& f : rules_files()) {
        CAPTURE(f.path);
        const std::string text = test::read_text(test::source_dir() / f.path);
        const auto ordered = tp::ordered_rules(text, f.symbols);
        const int k = static_cast<int>(f.symbols.size());
        const auto cov = tp::exact_coverage(ordered, k);
        CHECK(cov.neighbourhoods == static_cast<std::uint64_t>(std::llround(std::pow(k, 9))));
        CHECK(cov.uncovered == 0);
        for (std::size_t r = 0; r < ordered.size(); ++r) {
            const bool safety_net =
                std::all_of(ordered[r].targets.begin(), ordered[r].targets.end(),
                            [](const Target& t) { return t.kind == Target::Kind::error; });
            CHECK_MESSAGE((cov.decided[r] > 0 || safety_net), "line " << ordered[r].line << " "
                                                                      << ordered[r].variant
                                                                      << " never decides a cell");
            if (safety_net) CHECK(cov.decided[r] == 0); // nothing falls through to the red tile
            for (std::size_t q = 0; q < r; ++q)
                CHECK_MESSAGE(!(ordered[q].pattern == ordered[r].pattern),
                              "line " << ordered[r].line << " repeats");
            for (const Target& t : ordered[r].targets)
                CHECK(t.weight > 0);
        }
        // Where the library's check enumerates exactly, it agrees: clean.
        if (std::pow(k, 9) <= static_cast<double>(RuleCheckLimits{}.exact_limit)) {
            std::vector<LayerRules> layers{{"ground", ordered, {}}};
            const RuleCheckReport report = check_rules(layers, k);
            CHECK(report.coverage.front().exact);
            CHECK(report.clean());
        }
    }
}

TEST_CASE("paint: each generated rule shows the rim the layering asks for (exact over every "
          "neighbourhood)") {
    static constexpr std::array<int, 8> kHoodIndex = {1, 2, 5, 8,
                                                      7, 6, 3, 0}; // n ne e se s sw w nw
    int files = 0;
    for (const RulesFile& f : rules_files()) {
        if (!f.output) continue;
        CAPTURE(f.path);
        ++files;
        const Description& d = *f.d;
        const std::string text = test::read_text(test::source_dir() / f.path);
        const auto ordered = tp::ordered_rules(text, f.symbols);
        auto terrain_of = [&](ClassId c) -> const Terrain& {
            for (const auto& t : d.terrains)
                if (t.symbol == f.symbols[c]) return t;
            FAIL("no terrain");
            return d.terrains.front();
        };
        auto index_of = [&](const Terrain& t) { return static_cast<int>(&t - d.terrains.data()); };
        std::uint64_t checked = 0;
        tp::exact_coverage(
            ordered, static_cast<int>(f.symbols.size()), [&](const Neighbourhood& n, int rule) {
                REQUIRE(rule >= 0);
                const Terrain& t = terrain_of(n.cells[4]);
                if (!t.bridge.empty()) {
                    // A bridge: which of its 4 neighbours are open (not spanned water); the deck
                    // runs along the axis with more open sides (a tie: the axis with more bridge
                    // cells, east-west when equal); an end on each open side that is not bridge.
                    auto kind = [&](int cell) { // 0 water, 1 bridge, 2 land
                        const Terrain& o = terrain_of(n.cells[static_cast<std::size_t>(cell)]);
                        if (&o == &t) return 1;
                        for (int k : t.bridge)
                            if (&d.terrains[static_cast<std::size_t>(k)] == &o) return 0;
                        return 2;
                    };
                    const int north = kind(1), east = kind(5), south = kind(7), west = kind(3);
                    const int open_ew = (east > 0) + (west > 0),
                              open_ns = (north > 0) + (south > 0);
                    const bool ns = open_ns != open_ew
                                        ? open_ns > open_ew
                                        : (north == 1) + (south == 1) > (east == 1) + (west == 1);
                    std::string expected = t.name + (ns ? "-ns" : "-ew");
                    if (ns ? north == 2 : west == 2) expected += ns ? "-n" : "-w";
                    if (ns ? south == 2 : east == 2) expected += ns ? "-s" : "-e";
                    CHECK(ordered[static_cast<std::size_t>(rule)].targets.front().name == expected);
                    ++checked;
                    return;
                }
                // This terrain's pairs over terrains of the set, lowest lower terrain first.
                std::vector<const Pair*> pairs;
                for (const Pair& p : d.pairs)
                    if (p.upper == index_of(t) &&
                        f.symbols.find(d.terrains[static_cast<std::size_t>(p.lower)].symbol) !=
                            std::string::npos)
                        pairs.push_back(&p);
                std::sort(pairs.begin(), pairs.end(), [&](const Pair* a, const Pair* b) {
                    return d.terrains[static_cast<std::size_t>(a->lower)].height <
                           d.terrains[static_cast<std::size_t>(b->lower)].height;
                });
                auto seen = [&](int k) {
                    return terrain_of(n.cells[static_cast<std::size_t>(
                                          kHoodIndex[static_cast<std::size_t>(k)])])
                        .height;
                };
                BlobMask m = 0;
                for (int k = 0; k < 8; ++k)
                    if (seen(k) < t.height) m |= bit(k);
                m = reduce_blob(m);
                std::string expected = t.name;
                if (!pairs.empty() && m != 0) {
                    // The highest pair whose lower terrain is at or below the highest counted lower
                    // neighbour.
                    int highest = -100000;
                    for (int k = 0; k < 8; ++k)
                        if (m & bit(k)) highest = std::max(highest, seen(k));
                    std::size_t j = 0;
                    for (std::size_t i = 0; i < pairs.size(); ++i)
                        if (d.terrains[static_cast<std::size_t>(pairs[i]->lower)].height <= highest)
                            j = i;
                    expected = transition_name(
                        t.name, d.terrains[static_cast<std::size_t>(pairs[j]->lower)].name, m);
                }
                if (t.ruts && expected == t.name) {
                    // A plain cell on a straight run (its terrain or a bridge on two opposite
                    // sides, neither on the other two) shows the ruts.
                    auto on_run = [&](int k) {
                        const Terrain& o = terrain_of(n.cells[static_cast<std::size_t>(
                            kHoodIndex[static_cast<std::size_t>(k)])]);
                        return &o == &t || !o.bridge.empty();
                    };
                    if (on_run(kN) && on_run(kS) && !on_run(kE) && !on_run(kW))
                        expected = t.name + "-ruts-ns";
                    if (on_run(kE) && on_run(kW) && !on_run(kN) && !on_run(kS))
                        expected = t.name + "-ruts-ew";
                }
                const Rule& r = ordered[static_cast<std::size_t>(rule)];
                CHECK_MESSAGE(r.targets.front().name == expected, "rule at line " << r.line);
                ++checked;
            });
        CHECK(checked > 0);
    }
    CHECK(files == 3);
}

TEST_CASE("paint: rules text for a subset and for several pairs of one upper terrain") {
    const Description& d = tp::description("overworld");
    const std::string full = rules_text(d, d.rules[1], "paint.toml");
    // Grass over sand where every lower neighbour is below dirt; else grass over dirt.
    auto has_rule = [&](const std::string& text, const std::string& rule) {
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) {
            std::istringstream words(line);
            std::string w, joined;
            while (words >> w)
                joined += (joined.empty() ? "" : " ") + w;
            if (joined == rule) return true;
        }
        return false;
    };
    CHECK(has_rule(full, "[Dwo~=s][!Dwo~=sd+][!Dwo~=sd+] [!Dwo~=sd+]g[!Dwo~=sd+] "
                         "[!Dwo~=sd+][!Dwo~=sd+][!Dwo~=sd+] grass-sand-nw"));
    CHECK(has_rule(full, "[Dwo~=sd][!Dwo~=sd+][!Dwo~=sd+] [!Dwo~=sd+]g[!Dwo~=sd+] "
                         "[!Dwo~=sd+][!Dwo~=sd+][!Dwo~=sd+] grass-dirt-nw"));
    CHECK(has_rule(full, "[Dwo~=sd+][!Dwo~=sd+][!Dwo~=sd+] [!Dwo~=sd+]g[!Dwo~=sd+] "
                         "[!Dwo~=sd+][!Dwo~=sd+][!Dwo~=sd+] grass-road-nw"));
    CHECK(has_rule(full, "[Dwo~=][!Dwo~=sd+][!Dwo~=sd+] [!Dwo~=sd+]g[!Dwo~=sd+] "
                         "[!Dwo~=sd+][!Dwo~=sd+][!Dwo~=sd+] grass-river-nw"));
    // Rock is no longer the highest terrain (the bridge is): its same cells are a set.
    const std::string rr = "[!Dwo~=sd+gf][!Dwo~=sd+gf]", rrr = rr + "[!Dwo~=sd+gf]";
    const std::string rock_row = "[!Dwo~=sd+gf]r[!Dwo~=sd+gf]";
    CHECK(has_rule(full, rr + "[Dwo~=sd] " + rock_row + " " + rrr + " rock-dirt-ne"));
    CHECK(has_rule(full, rr + "[Dwo~=sd+] " + rock_row + " " + rrr + " rock-road-ne"));
    CHECK(has_rule(full, rr + "[Dwo~=sd+g] " + rock_row + " " + rrr + " rock-grass-ne"));
    CHECK(has_rule(full, rr + "[Dwo~=sd+gf] " + rock_row + " " + rrr + " rock-forest-ne"));
    CHECK(full.find("#   grass cells draw a rim where a neighbour is [Dwo~=sd+] (forest or rock "
                    "or bridge count as same: they draw their own rims):\n"
                    "#     a water rim when every lower neighbour is [Dwo]\n"
                    "#     else a river rim when every lower neighbour is [Dwo~=]\n"
                    "#     else a sand rim when every lower neighbour is [Dwo~=s]\n"
                    "#     else a dirt rim when every lower neighbour is [Dwo~=sd]\n"
                    "#     else a road rim.\n") != std::string::npos);
    CHECK(full.find("# Layering, lowest first: deep (D) < water (w) < lake (o) < river (~) < "
                    "waterfall (=) < sand (s) < dirt (d) < road (+) < grass (g) < forest (f) "
                    "< rock (r) < bridge (H).\n") != std::string::npos);
    // The bridge: a deck by its 4 neighbours (diagonals do not matter).
    CHECK(has_rule(full, "?[Dwo~=]? [!HDwo~=]H[!HDwo~=] ?[Dwo~=]? bridge-ew-w-e"));
    CHECK(has_rule(full, "?H? [Dwo~=]H[Dwo~=] ?[!HDwo~=]? bridge-ns-s"));
    CHECK(full.find("# river (~) is an overlay drawn like water: the terrains above draw their "
                    "water rims over it in its own texture.\n") != std::string::npos);
    CHECK(full.find("# lake (o) is an overlay drawn like water.\n") != std::string::npos);
    // The river's own cells: a water rim (the mouth) where the sea is, else a lake rim.
    CHECK(has_rule(full, "[!Dwo][!Dwo]? [!Dwo]~[Dw] [!Dwo][!Dwo]? river-water-e"));
    CHECK(has_rule(full, "[!Dwo][!Dwo]? [!Dwo]~[Dwo] [!Dwo][!Dwo]? river-lake-e"));
    // The three-terrain file knows nothing of the others.
    const std::string three = rules_text(d, d.rules[0], "paint.toml");
    for (const char* other : {"deep", "dirt", "forest", "rock"})
        CHECK(three.find(other) == std::string::npos);
}
