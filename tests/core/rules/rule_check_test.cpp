#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "core/hash.hpp"
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
bool plain_matches(const Rule& rule, const std::vector<ClassId>& cells3x3) {
    const int r = rule.pattern.radius();
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
            const ClassMask m = rule.pattern.at(dx, dy);
            const ClassId c = cells3x3[static_cast<std::size_t>((dy + 1) * 3 + dx + 1)];
            if (((m >> c) & 1u) == 0) return false;
        }
    return true;
}
int plain_first_match(const std::vector<Rule>& rules, const std::vector<ClassId>& cells3x3) {
    for (std::size_t i = 0; i < rules.size(); ++i)
        if (plain_matches(rules[i], cells3x3)) return static_cast<int>(i);
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

TEST_CASE("check: coverage and shadowing over random rule lists equal trying every rule on every "
          "neighbourhood, exactly and sampled") {
    // Lists of 1..90 rules (past one 64-rule word) over 3 classes, each cell `?` or a random mask
    // (sometimes none): the report against plain first matches over all 3^9 neighbourhoods.
    constexpr int kClasses = 3, kAll = 19683;
    for (std::uint64_t trial = 0; trial < 30; ++trial) {
        CAPTURE(trial);
        const std::size_t count = 1 + hash_values(trial, 1) % 90;
        std::vector<Rule> rules(count);
        for (std::size_t i = 0; i < count; ++i) {
            rules[i].pattern = Descriptor(3);
            rules[i].targets = {Target{}};
            for (int cell = 0; cell < 9; ++cell) {
                const std::uint64_t h = hash_values(trial, i, cell);
                if (h % 8 < 5) // mostly `?`, as in real rules
                    continue;
                rules[i].pattern.set_cell(cell % 3, cell / 3, static_cast<ClassMask>(h >> 8) & 7u);
            }
            if (i > 0 && hash_values(trial, i) % 10 == 0) rules[i].pattern = rules[i - 1].pattern;
        }
        // Plain: every neighbourhood's first match; per rule, who decides what it matches.
        std::uint64_t uncovered = 0;
        std::vector<bool> decides(count, false), matches_any(count, false);
        std::vector<std::map<int, std::uint64_t>> by(count);
        std::vector<ClassId> cells(9, 0);
        for (int code = 0; code < kAll; ++code) {
            int k = code;
            for (auto& cell : cells) {
                cell = static_cast<ClassId>(k % kClasses);
                k /= kClasses;
            }
            std::vector<std::size_t> matching;
            for (std::size_t i = 0; i < count; ++i)
                if (plain_matches(rules[i], cells)) matching.push_back(i);
            const int first = matching.empty() ? -1 : static_cast<int>(matching[0]);
            if (first < 0)
                ++uncovered;
            else
                decides[static_cast<std::size_t>(first)] = true;
            for (std::size_t i : matching) {
                matches_any[i] = true;
                ++by[i][first];
            }
        }
        std::vector<LayerRules> layers{LayerRules{"ground", rules, {}}};
        const RuleCheckReport report = check_rules(layers, kClasses);
        REQUIRE(report.coverage.size() == 1);
        const LayerCoverage& c = report.coverage[0];
        REQUIRE(c.exact);
        CHECK(c.uncovered * (kAll / c.examined) == uncovered);
        for (const Neighbourhood& n : c.examples)
            CHECK(plain_first_match(rules, n.cells) < 0);
        std::vector<std::size_t> shadowed;
        for (std::size_t i = 0; i < count; ++i) {
            bool duplicate = false;
            for (std::size_t j = 0; j < i; ++j)
                duplicate = duplicate || rules[j].pattern == rules[i].pattern;
            if (!decides[i] && !duplicate) shadowed.push_back(i);
        }
        REQUIRE(report.shadowed.size() == shadowed.size());
        for (std::size_t s = 0; s < shadowed.size(); ++s) {
            const std::size_t i = shadowed[s];
            CHECK(report.shadowed[s].rule.index == i);
            CHECK(report.shadowed[s].matches_nothing == !matches_any[i]);
            if (!matches_any[i]) continue;
            auto most = std::max_element(by[i].begin(), by[i].end(),
                                         [](auto& a, auto& b) { return a.second < b.second; });
            CHECK(static_cast<int>(report.shadowed[s].by.index) == most->first);
        }

        // Sampled: the same hashed sample, decided plainly (cells no rule looks at stay 0).
        std::vector<int> looked;
        for (int cell = 0; cell < 9; ++cell)
            for (const Rule& r : rules)
                if ((r.pattern.at(cell % 3 - 1, cell / 3 - 1) & 7u) != 7u) {
                    looked.push_back(cell);
                    break;
                }
        RuleCheckLimits limits;
        limits.exact_limit = 0;
        limits.sample_size = 500;
        const RuleCheckReport sampled = check_rules(layers, kClasses, limits);
        std::uint64_t sampled_uncovered = 0;
        for (std::uint64_t k = 0; k < limits.sample_size; ++k) {
            std::fill(cells.begin(), cells.end(), ClassId{0});
            for (int cell : looked)
                cells[static_cast<std::size_t>(cell)] = static_cast<ClassId>(
                    hash_values(0x636865636bull, k, static_cast<std::uint64_t>(cell)) % kClasses);
            if (plain_first_match(rules, cells) < 0) ++sampled_uncovered;
        }
        REQUIRE(sampled.coverage.size() == 1);
        CHECK_FALSE(sampled.coverage[0].exact);
        CHECK(sampled.coverage[0].uncovered == sampled_uncovered);
    }
}
