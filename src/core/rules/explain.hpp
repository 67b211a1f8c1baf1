// Explaining one cell (tilegen explain): which rules were tried, why each failed, which matched,
// what it chose. Input: the class grid, a cell, one layer's ordered rules and resolved targets, the
// outside policy and seed. Output: the trace, identical in decision and choice to what autotile()
// does for that cell.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rules/autotile.hpp"
#include "core/rules/class_passes.hpp"

namespace tilegen {

struct RuleAttempt {
    std::size_t rule = 0; // index into LayerRules::ordered
    bool matched = false;
    int fail_dx = 0, fail_dy = 0; // first cell (row-major) that failed, when not matched
    ClassId fail_class = 0;       // the class found there
};

struct CellExplanation {
    std::vector<RuleAttempt> attempts; // in the order tried, ending with the match (if any)
    int decision = kNoRule;
    int chosen_target = -1; // index into the rule's targets
    Gid gid = 0;
};

CellExplanation explain_cell(const ClassGrid& classes, int x, int y, const LayerRules& layer,
                             OutsidePolicy outside, std::uint64_t seed, Gid error_gid);

// Text helpers: a pattern as written ("?s? ggg ?s?"), a cell mask ("!w", "[sg]").
std::string mask_text(ClassMask mask, const std::string& symbols_by_class);
std::string pattern_text(const Descriptor& pattern, const std::string& symbols_by_class);

// A cell's way through the class passes (class_history / replay_class_history) as text lines, for
// explain and the viewer's inspector: per pass its header and run count, then every run that
// changed the cell ("run 2: W -> f by rules/cave.rules:14 'WWW ?W? ???'"), or that it kept its
// class. Empty without passes.
std::vector<std::string> class_history_lines(std::span<const ClassPass> passes,
                                             std::span<const int> runs,
                                             const std::vector<ClassStep>& steps,
                                             const std::string& symbols_by_class);

} // namespace tilegen
