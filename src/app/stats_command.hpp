// tilegen stats: the map statistics of many seeds (see core/quality/map_stats_of.hpp for what is
// measured against what).
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
#include "core/quality/map_stats_of.hpp"

namespace tilegen::app {

// The most seeds one `tilegen stats` run takes (--seeds A-B with B - A + 1 at most this).
inline constexpr std::uint64_t kMaxStatsSeeds = 100000;

struct SeedRange {
    std::uint64_t first = 0, last = 0; // inclusive; first <= last
};
// "N" or "A-B": whole numbers in 0..2^63-1 with A <= B and at most kMaxStatsSeeds seeds;
// nullopt otherwise.
std::optional<SeedRange> parse_seed_range(const std::string& text);

} // namespace tilegen::app
