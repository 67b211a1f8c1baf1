#include "core/rules/rule_check.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <map>

#include "core/hash.hpp"

namespace tilegen {

bool RuleCheckReport::clean() const {
    for (const auto& c : coverage)
        if (c.uncovered && coverage_required) return false;
    return shadowed.empty() && duplicates.empty() && zero_weights.empty() && no_ops.empty();
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

// A set of rules of one list, as bits (bit i: the list's rule i).
class RuleSet {
  public:
    RuleSet() = default;
    explicit RuleSet(std::size_t rules) : words_((rules + 63) / 64, 0) {}
    void insert(std::size_t i) { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
    bool contains(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1u; }
    void intersect(const RuleSet& other) {
        for (std::size_t w = 0; w < words_.size(); ++w)
            words_[w] &= other.words_[w];
    }
    // The lowest rule in the set (the first match, the rules being in the order they are tried),
    // or kNoRule.
    int first() const { return from(0); }
    // The lowest rule in the set after rule i, or kNoRule.
    int next(int i) const { return from(static_cast<std::size_t>(i) + 1); }

  private:
    int from(std::size_t i) const {
        for (std::size_t w = i / 64; w < words_.size(); ++w) {
            std::uint64_t bits = words_[w];
            if (w == i / 64) bits &= ~std::uint64_t{0} << (i % 64);
            if (bits)
                return static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
        }
        return kNoRule;
    }
    std::vector<std::uint64_t> words_;
};

// Per examined position and class, the rules that accept that class there (a rule accepts every
// class at a position outside its radius). The rules matching a neighbourhood are the
// intersection of these sets over the positions: the same answer as trying each rule's pattern
// (`matches`), as bit operations over all rules at once.
class RuleSets {
  public:
    RuleSets(std::span<const Rule> rules, const std::vector<int>& positions, int side, int radius,
             int class_count)
        : class_count_(static_cast<std::size_t>(class_count)), all_(rules.size()) {
        for (std::size_t r = 0; r < rules.size(); ++r)
            all_.insert(r);
        accepting_.assign(positions.size() * class_count_, RuleSet(rules.size()));
        for (std::size_t i = 0; i < positions.size(); ++i) {
            const int dx = positions[i] % side - radius, dy = positions[i] / side - radius;
            for (std::size_t r = 0; r < rules.size(); ++r) {
                const Descriptor& p = rules[r].pattern;
                const bool inside = std::abs(dx) <= p.radius() && std::abs(dy) <= p.radius();
                for (std::size_t k = 0; k < class_count_; ++k)
                    if (!inside || ((p.at(dx, dy) >> k) & 1u))
                        accepting_[i * class_count_ + k].insert(r);
            }
        }
    }
    const RuleSet& all() const { return all_; }
    // The rules accepting class `cls` at the i-th examined position.
    const RuleSet& accepting(std::size_t i, ClassId cls) const {
        return accepting_[i * class_count_ + cls];
    }

  private:
    std::size_t class_count_;
    RuleSet all_;
    std::vector<RuleSet> accepting_;
};

// A class rule that matches every neighbourhood and only keeps the class (`?  @keep`).
bool catch_all_keep(const Rule& rule, const ClassTargets& targets, ClassMask all) {
    const int r = rule.pattern.radius();
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
            if ((rule.pattern.at(dx, dy) & all) != all) return false;
    return std::all_of(targets.classes.begin(), targets.classes.end(),
                       [](int k) { return k == kKeepClass; });
}

// One ordered rule list to lint: a tile layer's rules, or a class pass's (with its targets'
// classes).
struct RuleList {
    std::string name;
    std::span<const Rule> rules;
    std::span<const ClassTargets> classes; // empty for a tile layer
};

// Lints one rule list into `report`, its findings' RuleRef::layer being `li`.
void check_list(const RuleList& list, std::size_t li, int class_count,
                const RuleCheckLimits& limits, RuleCheckReport& report) {
    const ClassMask all = class_count >= 32 ? kAnyClass : ((ClassMask{1} << class_count) - 1);
    const bool class_rules = !list.classes.empty();
    const auto rules = list.rules;
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
    cov.layer = list.name;
    cov.exact = combos <= static_cast<double>(limits.exact_limit);
    cov.examined = cov.exact ? static_cast<std::uint64_t>(neighbourhoods) : limits.sample_size;

    const RuleSets sets(rules, relevant, side, radius, class_count);
    std::vector<std::uint64_t> decided(rules.size(), 0);
    Neighbourhood n{side, std::vector<ClassId>(static_cast<std::size_t>(side * side), 0)};
    // Visits every neighbourhood to examine (in `n`) with its weight (how many neighbourhoods it
    // stands for) and the set of rules that match it.
    auto visit_all = [&](const std::function<void(std::uint64_t, const RuleSet&)>& visit) {
        const std::size_t m = relevant.size();
        if (!cov.exact) {
            RuleSet match = sets.all();
            for (std::uint64_t k = 0; k < limits.sample_size; ++k) {
                match = sets.all();
                for (std::size_t i = 0; i < m; ++i) {
                    const auto cls =
                        static_cast<ClassId>(hash_values(0x636865636bull /* "check" */, k,
                                                         static_cast<std::uint64_t>(relevant[i])) %
                                             static_cast<std::uint64_t>(class_count));
                    n.cells[static_cast<std::size_t>(relevant[i])] = cls;
                    match.intersect(sets.accepting(i, cls));
                }
                visit(1, match);
            }
            return;
        }
        // An odometer over the positions' groups, position 0 turning fastest; `upto[i]` is the set
        // of rules accepting the classes of positions i .. m-1, so a step that turns positions
        // 0 .. j recomputes only upto[j] .. upto[0].
        std::vector<RuleSet> upto(m + 1, sets.all());
        for (const Plan& plan : plans) {
            std::vector<std::size_t> digit(m, 0);
            std::size_t turned = m; // positions 0 .. turned - 1 changed since the last visit
            while (true) {
                for (std::size_t i = turned; i-- > 0;) {
                    const ClassId cls = plan.groups[i][digit[i]].first;
                    n.cells[static_cast<std::size_t>(relevant[i])] = cls;
                    upto[i] = upto[i + 1];
                    upto[i].intersect(sets.accepting(i, cls));
                }
                std::uint64_t weight = 1;
                for (std::size_t i = 0; i < m; ++i)
                    weight *= plan.groups[i][digit[i]].second;
                visit(weight, upto[0]);
                std::size_t i = 0;
                while (i < m && ++digit[i] == plan.groups[i].size())
                    digit[i++] = 0;
                if (i == m) break;
                turned = i + 1;
            }
        }
    };
    visit_all([&](std::uint64_t weight, const RuleSet& match) {
        const int d = match.first();
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
        // In a class pass the safety net is a catch-all that keeps the class.
        const bool safety_net =
            class_rules
                ? catch_all_keep(rules[i], list.classes[i], all)
                : std::all_of(rules[i].targets.begin(), rules[i].targets.end(),
                              [](const Target& t) { return t.kind == Target::Kind::error; });
        if (safety_net) continue;
        ShadowedRule s{{li, i}, report.coverage.back().exact, true, {}};
        std::map<int, std::uint64_t> by;
        visit_all([&](std::uint64_t weight, const RuleSet& match) {
            if (!match.contains(i)) return;
            s.matches_nothing = false;
            by[match.first()] += weight;
        });
        if (!by.empty()) {
            auto best = std::max_element(by.begin(), by.end(), [](const auto& a, const auto& b) {
                return a.second < b.second;
            });
            s.by = {li, static_cast<std::size_t>(best->first)};
        }
        report.shadowed.push_back(s);
    }

    // No-op class rules: the centre can only be one class, every target keeps it, and without
    // the rule (all its variants: the rules written on its line) every cell it decides would
    // still keep its class — no later rule that could change it matches there. (A rule that
    // stops a later, changing rule is not a no-op: it works as @keep.)
    const std::size_t centre_index = static_cast<std::size_t>(centre);
    auto keeps = [&](std::size_t j, ClassId c) {
        return std::all_of(list.classes[j].classes.begin(), list.classes[j].classes.end(),
                           [&](int k) { return k == c || k == kKeepClass; });
    };
    for (std::size_t i = 0; class_rules && i < rules.size(); ++i) {
        if (!rules[i].variant.empty()) continue; // a variant has the same centre and targets
        const ClassMask centre_mask = rules[i].pattern.at(0, 0) & all;
        if (centre_mask == 0 || (centre_mask & (centre_mask - 1)) != 0) continue;
        const auto only = static_cast<ClassId>(std::countr_zero(centre_mask));
        const auto& classes = list.classes[i].classes;
        if (std::find(classes.begin(), classes.end(), only) == classes.end() || !keeps(i, only))
            continue;
        auto same_line = [&](std::size_t j) {
            return rules[j].file == rules[i].file && rules[j].line == rules[i].line;
        };
        bool useful = false;
        visit_all([&](std::uint64_t, const RuleSet& match) {
            if (useful) return;
            const int d = match.first();
            if (d == kNoRule || !same_line(static_cast<std::size_t>(d))) return;
            for (int j = match.next(d); j != kNoRule; j = match.next(j)) {
                if (same_line(static_cast<std::size_t>(j))) continue;
                useful = !keeps(static_cast<std::size_t>(j), n.cells[centre_index]);
                return;
            }
        });
        if (!useful) report.no_ops.push_back({{li, i}, only});
    }
}

} // namespace

RuleCheckReport check_rules(std::span<const LayerRules> layers, int class_count,
                            RuleCheckLimits limits) {
    RuleCheckReport report;
    for (std::size_t li = 0; li < layers.size(); ++li)
        check_list({layers[li].name, layers[li].ordered, {}}, li, class_count, limits, report);
    return report;
}

RuleCheckReport check_class_passes(std::span<const ClassPass> passes, int class_count,
                                   RuleCheckLimits limits) {
    RuleCheckReport report;
    report.coverage_required = false;
    for (std::size_t pi = 0; pi < passes.size(); ++pi)
        check_list({"classes", passes[pi].ordered, passes[pi].targets}, pi, class_count, limits,
                   report);
    return report;
}

} // namespace tilegen
