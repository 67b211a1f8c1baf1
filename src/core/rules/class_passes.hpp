// Class passes: ClassGrid -> ClassGrid, the `[classes]` sections of the rule files run in order
// (between the heightfield's classes and the tile layers).
// Input: the class grid, the passes (parse_rule_file; in the order of the rule files and within a
// file), the class count, the outside policy, the seed, the thread count.
// Output: the rewritten class grid; optionally a PassHistory (runs per pass, cells changed per run,
// and the step by step history of chosen cells).
// Semantics: a pass runs `runs` times; an `until_stable` pass runs until a run changes no cell
// (that run counts), at most kMaxClassRuns times. Every run is synchronous, as a cellular
// automaton: each cell is matched against the grid as it was before the run, by the tile matcher's
// rule: the first rule in specificity order whose pattern matches, cells beyond the edge as the
// outside policy says. A cell no rule matches keeps its class, as does a cell whose chosen target
// is @keep. Among a rule's weighted targets the pick is choose_target_from_base(targets,
// class_choice_base(seed, rule identity, run), x, y), `run` counted from 0 within the pass.
// Invariants: the result does not depend on the thread count; a run's cost per cell does not grow
// with the number of rules (the LayerMatcher's decision tables, built once per pass and kept over
// its runs).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/rules/rule.hpp"
#include "core/rules/rule_matcher.hpp"

namespace tilegen {

// The per-(rule, run) part of a class rule's choice hash.
std::uint64_t class_choice_base(std::uint64_t seed, std::uint64_t rule_identity, int run);

// One run of one pass, seen from one cell.
struct ClassStep {
    int pass = 0;       // index into the passes
    int run = 0;        // 0-based within the pass
    ClassId before = 0; // the cell's class before the run
    ClassId after = 0;  // and after it
    int rule = kNoRule; // index into the pass's ordered rules that decided the cell, or kNoRule
    bool operator==(const ClassStep&) const = default;
};

// What explain and the viewer's inspector need. The history of a cell is kept only for the cells
// listed in `watch` (it costs nothing measurable: the passes run anyway, and each watched cell is
// looked at once per run); to show another cell, run the passes again with it in `watch`.
struct PassHistory {
    std::vector<std::pair<int, int>> watch; // in: (x, y) cells to trace; cells off the map are
                                            // traced as empty histories
    std::vector<int> runs;                  // out: per pass, the runs performed
    std::vector<std::vector<std::uint64_t>> changed; // out: per pass, per run: cells it changed
    std::vector<std::vector<ClassStep>> steps;       // out: per watched cell, one step per run
                                                     // performed, passes and runs in order
};

// Runs the passes over `classes` (class ids below class_count <= 32; class targets below
// class_count). Rows are split over `threads`; the result does not depend on it. `origin`: the map
// coordinates of the grid's cell (0, 0) — choices hash map coordinates, so a window of the map
// (replay_class_history) makes the map's choices; (0, 0) for a whole map. `frozen`: a mask of
// class ids (the overlay terrains of [rivers]): a cell of a frozen class keeps it, and a cell a
// rule would give a frozen class keeps its own.
ClassGrid run_class_passes(ClassGrid classes, std::span<const ClassPass> passes, int class_count,
                           OutsidePolicy outside, std::uint64_t seed, int threads = 1,
                           PassHistory* history = nullptr, std::pair<int, int> origin = {0, 0},
                           std::uint32_t frozen = 0);

// The history of one cell (x, y) of a map through passes that ran `runs[p]` times each (as
// PassHistory::runs reported), replayed from the grid the passes started from, `before`. Only the
// window the cell can see through all runs is replayed (its radius: the runs times the widest
// pattern's radius; clipped to the map, where the outside policy applies as in the full run), so
// the steps equal those of a full run with (x, y) watched, at a fraction of the cost.
std::vector<ClassStep> replay_class_history(const ClassGrid& before,
                                            std::span<const ClassPass> passes,
                                            std::span<const int> runs, int class_count,
                                            OutsidePolicy outside, std::uint64_t seed, int x, int y,
                                            std::uint32_t frozen = 0);

} // namespace tilegen
