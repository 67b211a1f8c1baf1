#include "core/rules/rule_check.hpp"

#include <algorithm>
#include <functional>
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

RuleCheckReport check_rules(std::span<const LayerRules> layers, int class_count,
                            RuleCheckLimits limits) {
    RuleCheckReport report;
    const ClassMask all = class_count >= 32 ? kAnyClass : ((ClassMask{1} << class_count) - 1);
    for (std::size_t li = 0; li < layers.size(); ++li) {
        const LayerRules& layer = layers[li];
        const auto& rules = layer.ordered;
        int radius = 0;
        for (const Rule& r : rules)
            radius = std::max(radius, r.pattern.radius());
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
        // Exact enumeration over equivalence classes: with the centre class fixed, only rules whose
        // centre accepts it can match, and two classes that every such rule treats alike at a
        // position can stand in for each other there. One representative per group, weighted by the
        // group's size, covers every neighbourhood.
        const int centre = radius * side + radius;
        const bool centre_relevant =
            std::find(relevant.begin(), relevant.end(), centre) != relevant.end();
        struct Plan {
            ClassId centre_class = 0;
            std::vector<std::vector<std::pair<ClassId, std::uint64_t>>>
                groups; // per relevant position: (rep, size)
        };
        std::vector<Plan> plans;
        double combos = 0, neighbourhoods = 1;
        for (std::size_t i = 0; i < relevant.size(); ++i)
            neighbourhoods *= class_count;
        for (int c = 0; c < (centre_relevant ? class_count : 1); ++c) {
            Plan plan;
            plan.centre_class = static_cast<ClassId>(c);
            std::vector<const Rule*> live;
            for (const Rule& r : rules)
                if (!centre_relevant || ((r.pattern.at(0, 0) >> c) & 1u)) live.push_back(&r);
            double product = 1;
            for (int pos : relevant) {
                std::vector<std::pair<ClassId, std::uint64_t>> groups;
                if (pos == centre && centre_relevant) {
                    groups.push_back({static_cast<ClassId>(c), 1});
                } else {
                    const int dx = pos % side - radius, dy = pos / side - radius;
                    std::vector<std::vector<bool>> signatures;
                    for (int k = 0; k < class_count; ++k) {
                        std::vector<bool> sig;
                        for (const Rule* r : live) {
                            const bool inside = std::abs(dx) <= r->pattern.radius() &&
                                                std::abs(dy) <= r->pattern.radius();
                            sig.push_back(!inside || ((r->pattern.at(dx, dy) >> k) & 1u));
                        }
                        auto it = std::find(signatures.begin(), signatures.end(), sig);
                        if (it == signatures.end()) {
                            signatures.push_back(sig);
                            groups.push_back({static_cast<ClassId>(k), 1});
                        } else {
                            ++groups[static_cast<std::size_t>(it - signatures.begin())].second;
                        }
                    }
                }
                product *= static_cast<double>(groups.size());
                plan.groups.push_back(std::move(groups));
            }
            combos += product;
            plans.push_back(std::move(plan));
        }
        LayerCoverage cov;
        cov.layer = layer.name;
        cov.exact = combos <= static_cast<double>(limits.exact_limit);
        cov.examined = cov.exact ? static_cast<std::uint64_t>(neighbourhoods) : limits.sample_size;

        std::vector<std::uint64_t> decided(rules.size(), 0);
        Neighbourhood n{side, std::vector<ClassId>(static_cast<std::size_t>(side * side), 0)};
        // Visits every neighbourhood to examine with its weight (how many neighbourhoods it stands
        // for).
        auto visit_all = [&](const std::function<void(std::uint64_t)>& visit) {
            if (!cov.exact) {
                for (std::uint64_t k = 0; k < limits.sample_size; ++k) {
                    for (int pos : relevant)
                        n.cells[static_cast<std::size_t>(pos)] =
                            static_cast<ClassId>(hash_values(0x636865636bull /* "check" */, k,
                                                             static_cast<std::uint64_t>(pos)) %
                                                 static_cast<std::uint64_t>(class_count));
                    visit(1);
                }
                return;
            }
            for (const Plan& plan : plans) {
                std::vector<std::size_t> digit(relevant.size(), 0);
                while (true) {
                    std::uint64_t weight = 1;
                    for (std::size_t i = 0; i < relevant.size(); ++i) {
                        const auto& g = plan.groups[i][digit[i]];
                        n.cells[static_cast<std::size_t>(relevant[i])] = g.first;
                        weight *= g.second;
                    }
                    visit(weight);
                    std::size_t i = 0;
                    while (i < digit.size() && ++digit[i] == plan.groups[i].size())
                        digit[i++] = 0;
                    if (i == digit.size()) break;
                }
            }
        };
        visit_all([&](std::uint64_t weight) {
            const int d = first_match_in(rules, n);
            if (d == kNoRule) {
                cov.uncovered += weight;
                if (cov.examples.size() < limits.examples) cov.examples.push_back(n);
            } else {
                decided[static_cast<std::size_t>(d)] += weight;
            }
        });
        report.coverage.push_back(std::move(cov));

        // Duplicates and zero weights.
        std::vector<bool> duplicate(rules.size(), false);
        for (std::size_t i = 0; i < rules.size(); ++i) {
            for (std::size_t j = 0; j < i; ++j)
                if (rules[j].pattern == rules[i].pattern) {
                    report.duplicates.push_back({{li, i}, {li, j}});
                    duplicate[i] = true;
                    break;
                }
            if (!rules[i].variant.empty()) continue; // report a target once, on the rule as written
            for (std::size_t t = 0; t < rules[i].targets.size(); ++t)
                if (rules[i].targets[t].weight == 0 && rules[i].targets.size() > 1)
                    report.zero_weights.push_back({{li, i}, t});
        }

        // Shadowed: never decided. Find who decides what they match.
        for (std::size_t i = 0; i < rules.size(); ++i) {
            if (decided[i] || duplicate[i]) continue;
            // A rule that only places the error tile is a safety net: never deciding is its
            // purpose.
            const bool safety_net =
                std::all_of(rules[i].targets.begin(), rules[i].targets.end(),
                            [](const Target& t) { return t.kind == Target::Kind::error; });
            if (safety_net) continue;
            ShadowedRule s{{li, i}, report.coverage.back().exact, true, {}};
            std::map<int, std::uint64_t> by;
            visit_all([&](std::uint64_t weight) {
                if (!matches(rules[i].pattern, n)) return;
                s.matches_nothing = false;
                by[first_match_in(rules, n)] += weight;
            });
            if (!by.empty()) {
                auto best =
                    std::max_element(by.begin(), by.end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                    });
                s.by = {li, static_cast<std::size_t>(best->first)};
            }
            report.shadowed.push_back(s);
        }
    }
    return report;
}

} // namespace tilegen
