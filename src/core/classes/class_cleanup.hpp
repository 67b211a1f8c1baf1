// Built-in clean-up per terrain: ClassGrid -> ClassGrid, run after the class passes.
// Input: a class grid (cell = class id) and per class id its ClassCleanup settings (the recipe's
// [[terrain]] min_width and min_area; ids without an entry have both off). Output: the same grid
// with thin parts opened away and small regions merged into their surroundings.
// Order (deterministic, no randomness; the passes over every row in bands on the threads):
//  1. Opening (min_width = N >= 2), all classes at once on the input grid. A cell of class c is
//     kept when some N x N square lying fully inside the map and holding only class c covers it;
//     the other cells of c are "removed". Removed cells are refilled in synchronous rounds: in each
//     round every removed cell that has an eligible 8-neighbour takes the class most common among
//     its eligible 8-neighbours (ties: the lowest class id), all decided on the grid as it was at
//     the start of the round. Eligible: inside the map, not still removed, and of a class other
//     than the cell's own original class. Rounds repeat while any cell is decided; cells still
//     removed then (no other class reachable, e.g. a map narrower than N holding one class) keep
//     their class. The opening runs once: cells refilled with a class (or merged below) may form
//     parts of it narrower than its min_width again.
//  2. Small regions (min_area = A >= 2). Regions are 4-connected cells of one class. Repeat: take
//     the too-small region (fewer cells than its class's min_area) whose first cell in reading
//     order (row by row from the top, left to right) comes first; it takes the class most common
//     among the cells bordering it (cells outside it, inside the map, 4-adjacent to one of its
//     cells, each counted once; ties: the lowest class id), joining the regions of that class it
//     touches. Until no region is too small. The map edge borders nothing.
// Invariants: afterwards no region of a class with min_area A has fewer than A cells, unless it is
// the whole map (a region bordering nothing stays). Terminates: each merge lowers the number of
// regions by at least one; the opening refills each cell at most once. Settings 0 or 1 change
// nothing; a grid whose classes set neither key is left untouched. Cost: the opening is two
// vectorised passes over the grid plus work per removed cell; min_area up to kLocalMinArea finds
// the small regions by floods of fewer than kLocalMinArea cells from the short runs that can
// start one (a pass over the runs' starts as bits, no labels; the overworld's predicted classes
// at 4096x4096, one thread: about 1.5 ns per cell with min_area 4), larger ones label the runs
// once (11 bytes per run, no per-cell labels); both then touch only the small regions and their
// borders. Memory: the opening 1 byte per cell; the labelling path 11 bytes per run and a bit
// per cell; the floods' path a few rows of bits.
#pragma once

#include <cstdint>
#include <span>

#include "core/classes/terrain_classes.hpp"

namespace tilegen {

inline constexpr int kMaxMinArea = 65536; // cells (a 256 x 256 block)
inline constexpr int kMaxMinWidth = 64;   // cells

struct ClassCleanup {
    int min_area = 0;  // cells; no smaller region of the class remains; default 0 (off: 0 or 1),
                       // range 0..kMaxMinArea
    int min_width = 0; // cells; opening with a min_width x min_width square; default 0 (off: 0 or
                       // 1), range 0..kMaxMinWidth
};

struct CleanupReport {
    std::uint64_t opened_cells = 0;   // cells the opening gave another class
    std::uint64_t merged_regions = 0; // too-small regions that took another class
    std::uint64_t merged_cells = 0;   // cells of those regions (a cell counts at every merge)
    bool operator==(const CleanupReport&) const = default;
};

// Whether any class sets min_area or min_width (>= 2).
bool cleanup_needed(std::span<const ClassCleanup> per_class);

// Step 1 then step 2 above. per_class[i] is class id i's settings (at most 256 entries).
// `frozen`: a mask of class ids (below 32) the clean-up neither changes nor gives to a cell (the
// overlay terrains of [rivers]): their settings count as off, they are never eligible in the
// opening's refill, and a too-small region takes the most common bordering class that is not
// frozen (it stays when every bordering cell is frozen).
// threads: workers for the passes over every row (the labelling of runs, the opening's two
// passes); the result never depends on it.
CleanupReport clean_up_classes(ClassGrid& classes, std::span<const ClassCleanup> per_class,
                               std::uint32_t frozen = 0, int threads = 1);

// Step 1 alone (min_width); adds to report.opened_cells.
void open_thin_parts(ClassGrid& classes, std::span<const ClassCleanup> per_class,
                     CleanupReport& report, std::uint32_t frozen = 0, int threads = 1);

// Step 2 alone (min_area); adds to report.merged_regions and merged_cells. When no min_area
// exceeds kLocalMinArea, too-small regions are found by floods of fewer than kLocalMinArea cells
// from the short runs that can start one (a run shorter than the class's min_area with no cell of
// its class above it), not by labelling every run of the map.
inline constexpr std::uint32_t kLocalMinArea = 16;
void merge_small_regions(ClassGrid& classes, std::span<const ClassCleanup> per_class,
                         CleanupReport& report, std::uint32_t frozen = 0, int threads = 1);

// Step 2 by labelling every run of the map (union-find over runs): any min_area (the path
// merge_small_regions takes past kLocalMinArea; the tests compare the two).
void merge_small_regions_by_runs(ClassGrid& classes, std::span<const ClassCleanup> per_class,
                                 CleanupReport& report, std::uint32_t frozen = 0, int threads = 1);

} // namespace tilegen
