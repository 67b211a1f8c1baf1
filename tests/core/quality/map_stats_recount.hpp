// A plain, obviously correct recount of the map statistics (core/quality/map_stats.hpp), shared by
// the tests of compute_map_stats and of the commands that print them (`tilegen stats`, `generate
// --json`). Input: a class grid and per class whether it is walkable. Output: every count behind
// MapStats, found the slow way: 4-connected regions by flood fill with an explicit stack, every
// 2x2 window and every neighbour pair looked at one by one. No banding, no union-find: nothing in
// common with the implementation under test.
#pragma once

#include <cstdint>
#include <vector>

#include "core/classes/terrain_classes.hpp"

namespace tilegen::test {

struct MapStatsRecount {
    std::uint64_t cells = 0;
    std::uint64_t class_regions = 0, specks = 0, thin_cells = 0;
    std::uint64_t walkable_regions = 0, walkable_cells = 0, largest_walkable_cells = 0;
    std::uint64_t corner_windows = 0, boundary_edges = 0;
    std::vector<std::uint64_t> counts; // cells per class id below walkable.size()

    // The reported ratios, straight from their definitions (0 where the denominator is 0).
    double thin() const;
    double largest_walkable() const;
    double corner_density() const;
    double fraction(std::size_t cls) const;
};

MapStatsRecount recount_map_stats(const ClassGrid& g, const std::vector<bool>& walkable);

} // namespace tilegen::test
