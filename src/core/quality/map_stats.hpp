// Map statistics: ClassGrid -> MapStats, numbers that measure a map's quality (`tilegen stats`,
// `generate --json` under "stats", the viewer's status bar).
// Input: a class grid (cell = class id), per class whether it is walkable and its target share
// (NaN where the class has none, e.g. with a biome table), the unmatched cell count of the tile
// layers, a thread count.
// Output: MapStats, every field defined exactly below. Invariants: the result depends only on the
// grid and the per-class inputs, never on `threads` (rows are split into bands, each labelled on
// its own, and the regions that cross band borders are joined afterwards: the partition into
// regions is the same for any banding). Neighbours are the 4 neighbours (E, W, N, S); nothing
// wraps around the map's edges. Cost: one pass over the rows, about 4 ns per cell on one thread
// at 4096x4096 (tilegen_microbench map_stats), split over the threads; memory O(width) per band
// (the union-find keeps only the regions alive in the previous row).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/json_writer.hpp"

namespace tilegen {

struct MapStats {
    // -- the reported numbers (the JSON keys, in this order: kMapStatsKeys) --

    // Class regions (4-connected sets of cells of one class id) of at most 3 cells.
    std::uint64_t specks = 0;
    // thin_cells / cells (0 for an empty grid). A cell is thin when both its E and W neighbours
    // are of another class than the cell, or both its N and S neighbours are. A neighbour outside
    // the map is not "another class": cells of the first and last column are never thin across
    // E-W, cells of the first and last row never across N-S.
    double thin = 0;
    // Walkable regions: 4-connected sets of walkable cells (a cell is walkable when its class id
    // is below walkable.size() and walkable[id] is true). Neighbouring walkable cells of different
    // classes are in one region.
    std::uint64_t walkable_regions = 0;
    // largest_walkable_cells / walkable_cells: the fraction of walkable cells in the largest
    // walkable region, in (0, 1]; 0 when no cell is walkable.
    double largest_walkable = 0;
    // corner_windows / boundary_edges, in [0, 1]; 0 when there is no boundary edge. A corner
    // window is a 2x2 window of cells, entirely inside the map, holding exactly three cells of one
    // class id (the fourth of another); a boundary edge is a pair of 4-neighbours of different
    // class ids (each pair counted once). Every corner window holds exactly 2 boundary edges and
    // every boundary edge lies in at most 2 windows, hence the range. Straight axis-aligned
    // borders give 0 (their windows hold 2 + 2 cells); a border at slope m (0 <= m <= 1, a
    // staircase of unit steps) gives 2m / (1 + m) away from its ends: 1 for 45-degree staircases,
    // 2/3 at slope 1/2; a checkerboard gives 0 (its windows hold 2 + 2), a lone cell 1.
    double corner_density = 0;
    // Per class id below the class count: (fraction of cells - target share) * 100, in percentage
    // points; NaN where the target share is NaN (the class has no share).
    std::vector<double> share_error;
    // The unmatched cells of the tile layers, as given.
    std::uint64_t unmatched = 0;

    // -- the counts behind them --
    std::uint64_t cells = 0;          // width * height
    std::uint64_t class_regions = 0;  // 4-connected regions of one class id, specks included
    std::uint64_t thin_cells = 0;     // cells that are thin (see `thin`)
    std::uint64_t walkable_cells = 0; // cells of a walkable class
    std::uint64_t largest_walkable_cells = 0; // cells of the largest walkable region (0 if none)
    std::uint64_t corner_windows = 0;         // 2x2 windows with exactly three of one class
    std::uint64_t boundary_edges = 0;         // 4-neighbour pairs of different class ids
    // Per class id below the class count: its cells / cells (0 for an empty grid). Cells of an
    // id at or above the class count are in no fraction.
    std::vector<double> class_fractions;
};

// The JSON keys of the reported numbers, in the order `stats` and `generate --json` print them:
// share_error is an object (class name -> points, classes with a share only); the rest numbers.
inline constexpr std::array<std::string_view, 7> kMapStatsKeys = {
    "specks",         "thin",        "walkable_regions", "largest_walkable",
    "corner_density", "share_error", "unmatched"};

// Largest region size that counts as a speck.
inline constexpr std::uint64_t kSpeckMaxCells = 3;

// The statistics of `classes`. The class count is walkable.size(); target_shares is empty (no
// class has a share: share_error all NaN) or has one entry per class (NaN: no share). `threads`
// (>= 1; 0 or less counts as 1) splits the rows into bands; results never depend on it.
MapStats compute_map_stats(const ClassGrid& classes, const std::vector<bool>& walkable,
                           const std::vector<double>& target_shares, std::uint64_t unmatched,
                           int threads = 1);

// Writes the reported numbers as one JSON object value, keys in kMapStatsKeys order; share_error
// maps the name of each class with a share (not NaN) to its error. `terrain` names the classes
// (one per entry of stats.share_error).
void write_map_stats_json(JsonWriter& json, const MapStats& stats,
                          const std::vector<TerrainClass>& terrain);

// Per terrain class: its `walkable` flag.
std::vector<bool> walkable_flags(const std::vector<TerrainClass>& terrain);

// Per terrain class: its share, or NaN for every class when `has_shares` is false (a recipe whose
// classes come from a biome table has no shares).
std::vector<double> target_shares(const std::vector<TerrainClass>& terrain, bool has_shares);

} // namespace tilegen
