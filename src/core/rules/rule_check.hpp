// Rule linting (tilegen check): what a layer's rules leave uncovered, what they shadow, what they
// repeat. Input: the layers (rules ordered by specificity) and the class count. Output: a report of
// uncovered neighbourhoods (with examples), shadowed rules (with the rule that shadows them),
// duplicate rules and zero-weight targets. Invariants: the neighbourhoods examined are every
// combination of classes over the cells any rule of the layer looks at — exactly when there are at
// most `exact_limit` of them, otherwise a deterministic sample of `sample_size`; the report says
// which.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/rules/autotile.hpp"

namespace tilegen {

// A neighbourhood of side x side classes, row-major, centre in the middle.
struct Neighbourhood {
    int side = 1;
    std::vector<ClassId> cells;
};

struct LayerCoverage {
    std::string layer;
    bool exact = true;
    std::uint64_t examined = 0;
    std::uint64_t uncovered = 0;
    std::vector<Neighbourhood> examples; // a few uncovered ones
};

// A rule of the layers check_rules was given: layers[layer].ordered[index] (see rule_at).
struct RuleRef {
    std::size_t layer = 0; // into the layers check_rules was given
    std::size_t index = 0; // into LayerRules::ordered
};

struct ShadowedRule {
    RuleRef rule;
    bool exact = true;
    bool matches_nothing = false; // no neighbourhood matches the pattern at all
    RuleRef by; // the rule that decides most of the neighbourhoods this rule matches
};

struct DuplicateRule {
    RuleRef rule, original;
};

struct ZeroWeightTarget {
    RuleRef rule;
    std::size_t target = 0;
};

struct RuleCheckReport {
    std::vector<LayerCoverage> coverage; // one per layer, in the layers' order
    std::vector<ShadowedRule>
        shadowed; // not listed: safety nets (rules whose targets are all @error)
    std::vector<DuplicateRule> duplicates;
    std::vector<ZeroWeightTarget> zero_weights;
    bool clean() const;
};

struct RuleCheckLimits {
    std::uint64_t exact_limit = 1u << 21; // default 2M neighbourhoods
    std::uint64_t sample_size = 200000;
    std::size_t examples = 3;
};

RuleCheckReport check_rules(std::span<const LayerRules> layers, int class_count,
                            RuleCheckLimits limits = {});

// The rule `ref` names in the layers its report was made from (every RuleRef of a report does).
inline const Rule& rule_at(std::span<const LayerRules> layers, const RuleRef& ref) {
    return layers[ref.layer].ordered[ref.index];
}

// Whether the pattern matches a neighbourhood (whose side is at least the pattern's size).
bool matches(const Descriptor& pattern, const Neighbourhood& n);

} // namespace tilegen
