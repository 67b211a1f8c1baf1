// Map statistics as the apps report them (`tilegen stats`, and `generate --json` under "stats").
// Input: a loaded project and one map generate_map made from it (its final class grid, its
// unmatched cell count and the class fractions its classification produced). Output: MapStats
// (core/quality/map_stats.hpp, where every number is defined), measured on the final class grid
// with the recipe's `walkable` flags against share_targets. Invariants: the numbers depend only on
// the map and the recipe, never on the thread count; nothing is written to disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "core/project.hpp"
#include "core/quality/map_stats.hpp"

namespace tilegen::app {

// Where the targets of share_error come from (the `share_target` key of `stats --json`).
enum class ShareTarget {
    recipe,        // the recipe's [[terrain]] shares (classes cut by percentiles)
    classification // a biome table has no shares: the fractions the classification produced
};

ShareTarget share_target_kind(const Recipe& recipe);
const char* share_target_name(ShareTarget kind); // "recipe" or "classification"

// The target share of each terrain class that share_error is measured against:
// - a recipe with [[terrain]] shares: those shares (with a hand-made class map too);
// - a biome-table recipe (no shares): the class fractions the classification produced, before
//   any pass that rewrites the class grid (GenerateResult::class_fractions; with a hand-made class
//   map, the map's own fractions). Today nothing rewrites the grid after the classification, so
//   these equal the final fractions and share_error is 0 for such recipes; once class passes
//   rewrite the grid, this is the one place to hand in the fractions from before the passes, and
//   share_error then measures how far the passes moved each class.
std::vector<double> share_targets(const Recipe& recipe, const GenerateResult& result);

// compute_map_stats over the result's final class grid with the recipe's walkable flags, the
// share_targets and the result's unmatched cells, on `threads` threads.
MapStats map_stats_of(const Project& project, const GenerateResult& result, int threads);

// The most seeds one `tilegen stats` run takes (--seeds A-B with B - A + 1 at most this).
inline constexpr std::uint64_t kMaxStatsSeeds = 100000;

struct SeedRange {
    std::uint64_t first = 0, last = 0; // inclusive; first <= last
};
// "N" or "A-B": whole numbers in 0..2^63-1 with A <= B and at most kMaxStatsSeeds seeds;
// nullopt otherwise.
std::optional<SeedRange> parse_seed_range(const std::string& text);

} // namespace tilegen::app
