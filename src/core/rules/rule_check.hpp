// Rule linting (tilegen check): what a layer's rules leave uncovered, what they shadow, what they
// repeat. Input: the layers (rules ordered by specificity) and the class count — or the class
// passes (rule files' [classes] sections), linted by the same implementation. Output: a report of
// uncovered neighbourhoods (with examples), shadowed rules (with the rule that shadows them),
// duplicate rules and zero-weight targets; for class passes also no-op rules (their centre can only
// be one class and every target is that class). Invariants: the neighbourhoods examined are every
// combination of classes over the cells any rule of the layer (pass) looks at — exactly when there
// are at most `exact_limit` of them, otherwise a deterministic sample of `sample_size`; the report
// says which. A class pass need not cover every neighbourhood (an unmatched cell keeps its class):
// its coverage is information, not a finding (RuleCheckReport::coverage_required is false).
// Cost: the rules matching a neighbourhood are the intersection of per-position sets of rules (as
// bits, one set per examined position and class), kept for the positions that have not changed
// along the enumeration: a few word operations per neighbourhood, whatever the number of rules.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/rules/autotile.hpp"
#include "core/rules/rule.hpp"

namespace tilegen {

// A neighbourhood of side x side classes, row-major, centre in the middle.
struct Neighbourhood {
    int side = 1;
    std::vector<ClassId> cells;
};

struct LayerCoverage {
    std::string layer; // the layer's name; "classes" for a class pass
    bool exact = true;
    std::uint64_t examined = 0;
    std::uint64_t uncovered = 0;
    std::vector<Neighbourhood> examples; // a few uncovered ones
};

// A rule of the layers check_rules was given: layers[layer].ordered[index] (see rule_at); for
// check_class_passes, passes[layer].ordered[index] (see pass_rule_at).
struct RuleRef {
    std::size_t layer = 0; // into the layers (passes) the report was made from
    std::size_t index = 0; // into LayerRules::ordered (ClassPass::ordered)
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

// A class rule that never changes a cell: its centre accepts only one class, every target is that
// class or @keep (at least one is the class; a rule of @keep only is deliberate), and it does not
// stop a later rule that would change the cell either (every cell it decides would keep its class
// without it and its variants). Reported on the rule as written, not on the variants
// rotate/mirror add.
struct NoOpRule {
    RuleRef rule;
    ClassId cls = 0; // the centre's only class
};

struct RuleCheckReport {
    std::vector<LayerCoverage> coverage; // one per layer (pass), in their order
    // Not listed: safety nets (tile rules whose targets are all @error; class rules whose targets
    // are all @keep and whose pattern accepts every class everywhere).
    std::vector<ShadowedRule> shadowed;
    std::vector<DuplicateRule> duplicates;
    std::vector<ZeroWeightTarget> zero_weights;
    std::vector<NoOpRule> no_ops; // class passes only
    // Tile layers: true, an uncovered neighbourhood gets the error tile. Class passes: false, an
    // unmatched cell keeps its class, so coverage is information only.
    bool coverage_required = true;
    bool clean() const;
};

struct RuleCheckLimits {
    std::uint64_t exact_limit = 1u << 22; // default 4M neighbourhoods
    std::uint64_t sample_size = 200000;
    std::size_t examples = 3;
};

RuleCheckReport check_rules(std::span<const LayerRules> layers, int class_count,
                            RuleCheckLimits limits = {});

// The same checks over class passes (one "layer" per pass, in order), plus no-op rules; the report
// has coverage_required = false.
RuleCheckReport check_class_passes(std::span<const ClassPass> passes, int class_count,
                                   RuleCheckLimits limits = {});

// The rule `ref` names in the layers its report was made from (every RuleRef of a report does).
inline const Rule& rule_at(std::span<const LayerRules> layers, const RuleRef& ref) {
    return layers[ref.layer].ordered[ref.index];
}
inline const Rule& pass_rule_at(std::span<const ClassPass> passes, const RuleRef& ref) {
    return passes[ref.layer].ordered[ref.index];
}

// Whether the pattern matches a neighbourhood (whose side is at least the pattern's size).
bool matches(const Descriptor& pattern, const Neighbourhood& n);

} // namespace tilegen
