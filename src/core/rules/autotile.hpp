// Autotiling: ClassGrid -> TileGrid, one per output layer.
// Input: the class grid, each layer's rules (ordered by specificity) with their targets resolved to
// gids, the seed. Output: per layer a grid of gids; the deciding rule of every cell; hit counts;
// the unmatched cell count. Invariants: a cell no rule matches gets the error tile and counts as
// unmatched. Among a rule's targets the choice is a weighted pick by hash(seed, x, y, rule
// identity): stable, and independent of other rules.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/map.hpp"
#include "core/rules/rule_matcher.hpp"

namespace tilegen {

// A rule's targets as gids (0 for @none), parallel to Rule::targets.
struct ResolvedTargets {
    std::vector<Gid> gids;
    std::vector<double> weights;
};

struct LayerRules {
    std::string name;
    std::vector<Rule> ordered;             // order_by_specificity()
    std::vector<ResolvedTargets> resolved; // parallel to ordered
    // A corner layer (its rules are 2x2 patterns): (W+1) x (H+1) tiles, tile (i, j) on the corner
    // of cells (i-1, j-1), (i, j-1), (i-1, j), (i, j).
    bool corner() const { return !ordered.empty() && ordered.front().pattern.corner(); }
};

struct AutotileResult {
    std::vector<TileLayer> layers;
    std::vector<Grid<int>> decisions;             // per layer (its tiles' size): index into
                                                  // LayerRules::ordered, or kNoRule
    std::vector<std::vector<std::uint64_t>> hits; // per layer, per ordered rule: cells decided
    std::uint64_t unmatched = 0;                  // (cell, layer) pairs no rule matched
    std::vector<std::uint64_t> layer_unmatched;   // per layer: cells no rule matched
    std::vector<std::int64_t>
        first_unmatched; // per layer: y * width + x of the first such cell, or -1
};

// Index into targets chosen for cell (x, y); -1 when there are no targets.
int choose_target(const ResolvedTargets& targets, std::uint64_t rule_identity, std::uint64_t seed,
                  int x, int y);
// The same, with the per-rule part of the hash precomputed: rule_choice_base(seed, identity).
std::uint64_t rule_choice_base(std::uint64_t seed, std::uint64_t rule_identity);
int choose_target_from_base(const ResolvedTargets& targets, std::uint64_t base, int x, int y);
// The cumulative 53-bit bounds choose_target_from_base picks by (from the weights only): the pick
// is min(number of bounds <= mix64(base + x * 0x9E3779B97F4A7C15 + y * 0xC2B2AE3D27D4EB4F) >> 11,
// count - 1). For callers that pick often from the same targets (class passes).
std::vector<std::uint64_t> choice_bounds(const ResolvedTargets& targets);

// A corner layer (LayerRules::corner) gives (W+1) x (H+1) tiles, decisions and choices at corner
// coordinates (i, j), matched as corner_class_grid's cell (i, j); other layers W x H.
// Rows are split over `threads`; the result does not depend on the thread count. Matching and
// choosing run in one pass per row; without `keep_decisions` the decision grids are not kept (4
// bytes per cell and layer less).
AutotileResult autotile(const ClassGrid& classes, std::span<const LayerRules> layers,
                        int class_count, OutsidePolicy outside, std::uint64_t seed, Gid error_gid,
                        int threads = 1, bool keep_decisions = true);

} // namespace tilegen
