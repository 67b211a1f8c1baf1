#include "core/rules/rule_check.hpp"

#include <algorithm>
#include <map>

#include "core/hash.hpp"

namespace tilegen {

bool RuleCheckReport::clean() const {
    for (const auto& c : coverage)
        if (c.uncovered) return false;
    return shadowed.empty() && duplicates.empty() && zero_weights.empty();
}

bool matches(const Descriptor& pattern, const Neighbourhood& n) {
    const int r = pattern.radius(), c = n.side / 2;
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
            const ClassMask m = pattern.at(dx, dy);
            if (m == kAnyClass) continue;
            const ClassId cls = n.cells[static_cast<std::size_t>((c + dy) * n.side + (c + dx))];
            if (!(m & (ClassMask{1} << cls))) return false;
        }
    return true;
}

namespace {

int first_match_in(std::span<const Rule> ordered, const Neighbourhood& n) {
    for (std::size_t i = 0; i < ordered.size(); ++i)
        if (matches(ordered[i].pattern, n)) return static_cast<int>(i);
    return kNoRule;
}

} // namespace

RuleCheckReport check_rules(std::span<const LayerRules> layers, int class_count, RuleCheckLimits limits) {
    RuleCheckReport report;
    const ClassMask all = class_count >= 32 ? kAnyClass : ((ClassMask{1} << class_count) - 1);
    for (const LayerRules& layer : layers) {
        const auto& rules = layer.ordered;
        int radius = 0;
        for (const Rule& r : rules) radius = std::max(radius, r.pattern.radius());
        const int side = 2 * radius + 1;
        // Cells any rule looks at (a `?` everywhere else never changes a decision).
        std::vector<int> relevant;
        for (int i = 0; i < side * side; ++i) {
            const int dx = i % side - radius, dy = i / side - radius;
            bool used = false;
            for (const Rule& r : rules)
                if (std::abs(dx) <= r.pattern.radius() && std::abs(dy) <= r.pattern.radius() &&
                    (r.pattern.at(dx, dy) & all) != all)
                    used = true;
            if (used) relevant.push_back(i);
        }
        double combos = 1;
        for (std::size_t i = 0; i < relevant.size(); ++i) combos *= class_count;
        LayerCoverage cov;
        cov.layer = layer.name;
        cov.exact = combos <= static_cast<double>(limits.exact_limit);
        cov.examined = cov.exact ? static_cast<std::uint64_t>(combos) : limits.sample_size;

        std::vector<std::uint64_t> decided(rules.size(), 0);
        Neighbourhood n{side, std::vector<ClassId>(static_cast<std::size_t>(side * side), 0)};
        auto fill = [&](std::uint64_t k) {
            for (int pos : relevant) {
                std::uint64_t cls;
                if (cov.exact) {
                    cls = k % static_cast<std::uint64_t>(class_count);
                    k /= static_cast<std::uint64_t>(class_count);
                } else {
                    cls = hash_values(0x636865636bull /* "check" */, k, static_cast<std::uint64_t>(pos)) %
                          static_cast<std::uint64_t>(class_count);
                }
                n.cells[static_cast<std::size_t>(pos)] = static_cast<ClassId>(cls);
            }
        };
        for (std::uint64_t k = 0; k < cov.examined; ++k) {
            fill(k);
            const int d = first_match_in(rules, n);
            if (d == kNoRule) {
                ++cov.uncovered;
                if (cov.examples.size() < limits.examples) cov.examples.push_back(n);
            } else {
                ++decided[static_cast<std::size_t>(d)];
            }
        }
        report.coverage.push_back(std::move(cov));

        // Duplicates and zero weights.
        std::vector<bool> duplicate(rules.size(), false);
        for (std::size_t i = 0; i < rules.size(); ++i) {
            for (std::size_t j = 0; j < i; ++j)
                if (rules[j].pattern == rules[i].pattern) {
                    report.duplicates.push_back({{layer.name, i}, {layer.name, j}});
                    duplicate[i] = true;
                    break;
                }
            if (!rules[i].variant.empty()) continue; // report a target once, on the rule as written
            for (std::size_t t = 0; t < rules[i].targets.size(); ++t)
                if (rules[i].targets[t].weight == 0 && rules[i].targets.size() > 1)
                    report.zero_weights.push_back({{layer.name, i}, t});
        }

        // Shadowed: never decided. Find who decides what they match.
        for (std::size_t i = 0; i < rules.size(); ++i) {
            if (decided[i] || duplicate[i]) continue;
            // A rule that only places the error tile is a safety net: never deciding is its purpose.
            const bool safety_net = std::all_of(rules[i].targets.begin(), rules[i].targets.end(),
                                                [](const Target& t) { return t.kind == Target::Kind::error; });
            if (safety_net) continue;
            ShadowedRule s{{layer.name, i}, report.coverage.back().exact, true, {}};
            std::map<int, std::uint64_t> by;
            const auto& cov_ref = report.coverage.back();
            for (std::uint64_t k = 0; k < cov_ref.examined; ++k) {
                fill(k);
                if (!matches(rules[i].pattern, n)) continue;
                s.matches_nothing = false;
                ++by[first_match_in(rules, n)];
            }
            if (!by.empty()) {
                auto best = std::max_element(by.begin(), by.end(),
                                             [](const auto& a, const auto& b) { return a.second < b.second; });
                s.by = {layer.name, static_cast<std::size_t>(best->first)};
            }
            report.shadowed.push_back(s);
        }
    }
    return report;
}

} // namespace tilegen
