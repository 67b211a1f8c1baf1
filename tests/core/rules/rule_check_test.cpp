#include <doctest/doctest.h>

#include "core/rules/explain.hpp"
#include "core/rules/rule_check.hpp"
#include "core/rules/rule_parser.hpp"

using namespace tilegen;

namespace {
LayerRules layer_of(const char* text, const SymbolTable& symbols) {
    Diagnostics d;
    auto rules = parse_rules(text, "r.rules", symbols, d);
    REQUIRE(d.empty());
    LayerRules layer{"ground", order_by_specificity(std::move(rules)), {}};
    for (const Rule& r : layer.ordered) {
        ResolvedTargets rt;
        for (const Target& t : r.targets) {
            rt.gids.push_back(gid_of(1));
            rt.weights.push_back(t.weight);
        }
        layer.resolved.push_back(rt);
    }
    return layer;
}
const SymbolTable kWG{{'w', 0}, {'g', 1}};
} // namespace

TEST_CASE("check: a complete rule set is clean") {
    std::vector<LayerRules> layers{layer_of("w water\ng grass\n?  @error\n", kWG)};
    auto report = check_rules(layers, 2);
    CHECK(report.clean());
    REQUIRE(report.coverage.size() == 1);
    CHECK(report.coverage[0].exact);
    CHECK(report.coverage[0].examined == 2); // only the centre cell is looked at
}

TEST_CASE("check: uncovered neighbourhoods are counted exactly, with examples") {
    std::vector<LayerRules> layers{
        layer_of("??? ?w? ???  water\n?g? ?g? ???  grass-below-grass\n", kWG)};
    auto report = check_rules(layers, 2);
    REQUIRE(report.coverage.size() == 1);
    const auto& c = report.coverage[0];
    CHECK(c.exact);
    CHECK(c.examined == 4);  // the centre and the north cell matter
    CHECK(c.uncovered == 1); // grass with water to the north
    REQUIRE(!c.examples.empty());
    CHECK(c.examples[0].side == 3);
    CHECK(c.examples[0].cells[4] == 1);
    CHECK(c.examples[0].cells[1] == 0);
    CHECK_FALSE(report.clean());
}

TEST_CASE("check: shadowed, duplicate and zero-weight rules") {
    std::vector<LayerRules> layers{
        layer_of("??? ?g? ???  grass\n"
                 "g  g-1x1\n"                 // same specificity, after: shadowed by grass
                 "??? ?g? ???  grass-again\n" // duplicate of the first
                 "w  water water-2*0\n"
                 "??? ?[!wg]? ???  never\n" // matches no neighbourhood
                 "?  @error\n",             // a safety net: not reported
                 kWG)};
    auto report = check_rules(layers, 2);
    REQUIRE(report.duplicates.size() == 1);
    CHECK(layers[0].ordered[report.duplicates[0].rule.index].targets[0].name == "grass-again");
    CHECK(layers[0].ordered[report.duplicates[0].original.index].targets[0].name == "grass");
    REQUIRE(report.shadowed.size() == 2);
    bool saw_1x1 = false, saw_never = false;
    for (const auto& s : report.shadowed) {
        const Rule& r = layers[0].ordered[s.rule.index];
        if (r.targets[0].name == "g-1x1") {
            saw_1x1 = true;
            CHECK_FALSE(s.matches_nothing);
            CHECK(layers[0].ordered[s.by.index].targets[0].name == "grass");
        }
        if (r.targets[0].name == "never") {
            saw_never = true;
            CHECK(s.matches_nothing);
        }
    }
    CHECK(saw_1x1);
    CHECK(saw_never);
    REQUIRE(report.zero_weights.size() == 1);
    CHECK(report.zero_weights[0].target == 1);
}

TEST_CASE("check: findings in a later layer name that layer's rules (rule_at)") {
    // Both layers are named "ground" (a name does not pick a layer): the duplicate, the shadowed
    // rule and the zero-weight target are in the second, whose rules differ from the first's.
    std::vector<LayerRules> layers{layer_of("w water\ng grass\n", kWG),
                                   layer_of("w deep\nw deep-again\n?  @error\n"
                                            "??? ?g? ???  meadow weed*0\ng  g-1x1\n",
                                            kWG)};
    const auto report = check_rules(layers, 2);
    REQUIRE(report.coverage.size() == 2);
    CHECK(report.coverage[0].uncovered == 0);
    CHECK(report.coverage[1].uncovered == 0);
    REQUIRE(report.duplicates.size() == 1);
    CHECK(report.duplicates[0].rule.layer == 1);
    CHECK(rule_at(layers, report.duplicates[0].rule).targets[0].name == "deep-again");
    CHECK(rule_at(layers, report.duplicates[0].original).targets[0].name == "deep");
    REQUIRE(report.shadowed.size() == 1);
    CHECK(rule_at(layers, report.shadowed[0].rule).targets[0].name == "g-1x1");
    CHECK(rule_at(layers, report.shadowed[0].by).targets[0].name == "meadow");
    REQUIRE(report.zero_weights.size() == 1);
    const Rule& zero = rule_at(layers, report.zero_weights[0].rule);
    CHECK(zero.targets[report.zero_weights[0].target].name == "weed");
}

TEST_CASE("check: too many neighbourhoods are sampled, and say so") {
    const SymbolTable many{{'a', 0}, {'b', 1}, {'c', 2}, {'d', 3}, {'e', 4}};
    std::vector<LayerRules> layers{
        layer_of("????? ????? ??a?? ????? ????e  corner\n??? ?[abcd]? ???  other\n", many)};
    RuleCheckLimits limits;
    limits.sample_size = 5000;
    auto report = check_rules(layers, 5, limits);
    // The 5x5 rule looks at 2 cells and the 3x3 at 1: 25 combinations, exact.
    CHECK(report.coverage[0].exact);
    CHECK(report.coverage[0].examined == 25);
    CHECK(report.coverage[0].uncovered == 5); // centre e with any corner

    std::vector<LayerRules> big{layer_of("abc abc abc ????? 1\n", many)};
    Diagnostics d;
    auto rules = parse_rules("????? ????? ??a?? ????? ????? x\naaaaa aaaaa aaaaa aaaaa aaaaa y\n",
                             "r", many, d);
    LayerRules wide{"ground", order_by_specificity(rules), {{{1}, {1}}, {{1}, {1}}}};
    auto r2 = check_rules(std::span<const LayerRules>(&wide, 1), 5, limits);
    CHECK_FALSE(r2.coverage[0].exact);
    CHECK(r2.coverage[0].examined == 5000);
    CHECK(r2.coverage[0].uncovered > 3000); // about 4/5 of the samples have no 'a' in the centre
}

TEST_CASE("explain traces the rules tried and agrees with autotile") {
    std::vector<LayerRules> layers{
        layer_of("?w? ?g? ???  shore\n??? ?g? ???  grass grass2\nw  water\n", kWG)};
    ClassGrid classes(3, 3, 1);
    classes(1, 0) = 0;
    auto e = explain_cell(classes, 1, 2, layers[0], {}, 9, 0);
    REQUIRE(e.attempts.size() == 2);
    CHECK_FALSE(e.attempts[0].matched);
    CHECK(e.attempts[0].fail_dx == 0);
    CHECK(e.attempts[0].fail_dy == -1);
    CHECK(e.attempts[0].fail_class == 1);
    CHECK(e.attempts[1].matched);
    CHECK(e.decision == 1);
    auto tiles = autotile(classes, layers, 2, {}, 9, 0);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x)
            CHECK(explain_cell(classes, x, y, layers[0], {}, 9, 0).gid ==
                  tiles.layers[0].tiles(x, y));
    CHECK(pattern_text(layers[0].ordered[0].pattern, "wg") == "?w? ?g? ???");
    CHECK(mask_text(~ClassMask{1}, "wsg") == "!w");
    CHECK(mask_text(0b101, "wsgd") == "[wg]");
    CHECK(mask_text(0b1101, "wsgd") == "!s");
}

namespace {
std::vector<ClassPass> passes_of(const char* text, const SymbolTable& symbols) {
    Diagnostics d;
    RuleFile file = parse_rule_file(text, "c.rules", symbols, d);
    REQUIRE(d.empty());
    return file.passes;
}

// Plain reference: the first rule (in order) whose every cell holds an accepted class (cells beyond
// a smaller pattern accept anything).
int plain_first_match(const std::vector<Rule>& rules, const std::vector<ClassId>& cells3x3) {
    for (std::size_t i = 0; i < rules.size(); ++i) {
        bool ok = true;
        const int r = rules[i].pattern.radius();
        for (int dy = -r; dy <= r && ok; ++dy)
            for (int dx = -r; dx <= r && ok; ++dx) {
                const ClassMask m = rules[i].pattern.at(dx, dy);
                const ClassId c = cells3x3[static_cast<std::size_t>((dy + 1) * 3 + dx + 1)];
                ok = ((m >> c) & 1u) != 0;
            }
        if (ok) return static_cast<int>(i);
    }
    return -1;
}
const SymbolTable kWGS{{'w', 0}, {'g', 1}, {'s', 2}};
} // namespace

TEST_CASE("check class passes: coverage is information, counted exactly like a plain enumeration") {
    const auto passes = passes_of("[classes 3]\n"
                                  "rotate  ?w? ?g? ???  s\n"
                                  "www wsw ???  w\n"
                                  "[gs]  @keep\n",
                                  kWGS);
    REQUIRE(passes.size() == 1);
    const auto report = check_class_passes(passes, 3);
    CHECK_FALSE(report.coverage_required);
    REQUIRE(report.coverage.size() == 1);
    const auto& c = report.coverage[0];
    CHECK(c.exact);
    CHECK(c.layer == "classes");
    // The rules look at the centre, its four neighbours and the two top corners: 3^7 cases.
    CHECK(c.examined == 2187);
    std::uint64_t undecided = 0;
    std::vector<ClassId> cells(9, 0);
    for (int code = 0; code < 19683; ++code) { // every 3x3 neighbourhood, then scale down
        int k = code;
        for (auto& cell : cells) {
            cell = static_cast<ClassId>(k % 3);
            k /= 3;
        }
        if (plain_first_match(passes[0].ordered, cells) < 0) ++undecided;
    }
    CHECK(undecided % 9 == 0); // the two bottom corners are looked at by no rule
    CHECK(c.uncovered == undecided / 9);
    CHECK(c.uncovered == 729); // no rule's centre accepts water: 3^6 cases of the other cells
    CHECK(report.clean());     // uncovered neighbourhoods are not findings in a class pass
}

TEST_CASE("check class passes: shadowed, duplicate, zero-weight and no-op class rules") {
    const auto passes =
        passes_of("[classes]\n"
                  "??? ?w? ???  g s*0\n" // line 2: zero weight
                  "??? ?w? ???  s\n"     // line 3: duplicate of line 2
                  "w  g\n"               // line 4: shadowed by line 2
                  "??? ?g? ???  g\n"     // line 5: no-op
                  "?s?  ?s?  ???  s\n"   // line 6: no-op too (nothing below changes s)
                  "?  @keep\n",          // a safety net: not reported
                  kWGS);
    const auto report = check_class_passes(passes, 3);
    CHECK_FALSE(report.clean());
    REQUIRE(report.duplicates.size() == 1);
    CHECK(pass_rule_at(passes, report.duplicates[0].rule).line == 3);
    CHECK(pass_rule_at(passes, report.duplicates[0].original).line == 2);
    REQUIRE(report.shadowed.size() == 1);
    CHECK(pass_rule_at(passes, report.shadowed[0].rule).line == 4);
    CHECK(pass_rule_at(passes, report.shadowed[0].by).line == 2);
    REQUIRE(report.zero_weights.size() == 1);
    CHECK(pass_rule_at(passes, report.zero_weights[0].rule).line == 2);
    CHECK(report.zero_weights[0].target == 1);
    REQUIRE(report.no_ops.size() == 2);
    CHECK(pass_rule_at(passes, report.no_ops[0].rule).line == 6); // more specific, tried first
    CHECK(report.no_ops[0].cls == 2);
    CHECK(pass_rule_at(passes, report.no_ops[1].rule).line == 5);
    CHECK(report.no_ops[1].cls == 1);
}

TEST_CASE("check class passes: a keep-alike rule that stops a later, changing rule is no no-op") {
    // Line 2 keeps grass with grass above; without it line 3 would turn that grass to sand.
    const auto passes = passes_of("[classes]\n"
                                  "?g? ?g? ???  g\n"
                                  "g  s\n",
                                  kWGS);
    const auto report = check_class_passes(passes, 3);
    CHECK(report.no_ops.empty());
    CHECK(report.clean());
    // Alone, the same rule changes nothing.
    CHECK(check_class_passes(passes_of("[classes]\n?g? ?g? ???  g\n", kWGS), 3).no_ops.size() == 1);
}
