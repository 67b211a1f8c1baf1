// Hydrology: heightfield -> rivers and lakes that flow downhill, and the carved heightfield.
// Input: the heightfield classes are cut from, an optional rain map of the same size, the
// RiverSettings, the seed, and a mask of the cells the classes will make an `into` class (sea,
// lakes of water: where rivers end), as the uncarved heightfield's classes after the clean-up
// give them (so a puddle the clean-up removes is no river's end).
// Output (HydrologyResult): the carved heightfield (what classes are cut from), the rivers as
// paths (stem cells source first, each draining into the next; width per stem cell; bank cells
// widening it, each with the neighbour it drains into), the lakes (cells of filled depressions
// of at least lakes.min_area cells), and with keep_flow the flow accumulation.
// Method "flow": Priority-Flood (basin_flood.hpp) gives every cell a D4 drainage path to the
// map edge; flow accumulates along it (rain weighted); a river's mouth is a land cell draining
// into an `into` cell, a lake or off the map whose flow reaches `threshold`; its stem climbs from
// the mouth to the upstream neighbour of most flow (ties: lowest cell index) while the flow
// stays at or above `threshold`. Mouths are taken by flow, largest first (ties: lowest index),
// keeping those whose stem has min_length cells, up to the count the seed picks in [min, max].
// Method "agents" (shared/reference/003, 4.4): an agent starts on a coast cell (a hash of seed and
// attempt), climbs to the highest 4-neighbour (ties by index) until it stops rising, and the path,
// read back from the top, is the river; the bed is dug so it falls at least `slope` per cell.
// Carving (both): along a stem, source to mouth, each cell is lowered to min(own height - carve,
// the cell upstream) (a running minimum: breaches the rims of depressions the river crosses); bank
// cells lie flat at max(their stem cell, the cell they drain into); with carve > 0 the cells
// around the river are lowered by carve / 2 (a valley). Cells is_into names are never changed.
// Widths: width_min + (width_max - width_min + 1) * log(flow / threshold) / log(largest mouth flow
// / threshold), clamped: never shrinks downstream (flow only grows). Banks: the cells of a
// width x width square at each stem cell (stems in order of carved height, lowest first), nearest
// first, each claimed by the first river reaching it and only when the neighbour one step
// towards the stem cell belongs to the same river (so each river stays one 4-connected piece).
// Invariants: no randomness beyond hashes of the seed, the cell-by-cell passes (quantising, the
// descent after Kruskal, final basin labels, filling, in-degrees, the cells where rivers may end,
// the basins' pairs) on `threads` threads by blocks of rows, the lakes' floods by ranges of
// basins, and the rest single-threaded (run_hydrology_in_place makes its `into` grid beside the
// flood's first steps, which do not read it): identical on every run and at any thread count; along
// every stem and from each bank cell to the cell it drains into, the carved height never rises;
// stems are 4-connected and disjoint; widths never shrink downstream. Cost: O(n) (bucket queue over
// 16-bit levels) plus O(r log r) for the r river cells. Memory: at most about 10 bytes per cell of
// map-sized temporaries at once (levels 2, basins 4, the descent 1 and the pairs' buckets about 3;
// 9 with threads >= 2, where `into` runs beside the flood and the descent is made again after the
// pairs, basin_flood.hpp); the heights are carved in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/grid.hpp"
#include "core/hydrology/river_settings.hpp"

namespace tilegen {

struct RiverPath {
    std::vector<std::uint32_t> stem; // cells (y * width + x), source first
    std::vector<std::uint8_t> width; // per stem cell, never shrinking
    std::int64_t end = -1;           // the cell the last stem cell drains into (-1: off the map)
    struct Bank {
        std::uint32_t cell;       // a cell widening the river
        std::uint32_t down;       // the 4-neighbour it drains into (a stem or earlier bank cell)
        std::uint32_t stem_index; // the stem cell whose square claimed it
    };
    std::vector<Bank> banks; // in claim order: every bank's `down` comes before it
    float mouth_flow = 0;
};

struct HydrologyResult {
    Grid<float> carved;            // the heightfield classes are cut from
    std::vector<RiverPath> rivers; // in order of mouth flow, largest first
    struct Lake {
        std::uint32_t first = 0; // its first cell in reading order
        std::uint64_t open = 0;  // its cells that are not `into` (the ones the lake class takes)
    };
    std::vector<Lake> lakes;      // by first cell
    Grid<std::uint8_t> lake_mask; // 1 on lake cells (empty without lakes)
    Grid<float> flow; // flow accumulation (cells of rain), only with keep_flow ("flow" method)
    Grid<std::uint8_t> into; // the `into` mask given
};

// `into`: not 0 where a cell (y * width + x) will be of an `into` class (the pipeline stores that
// class + 1), else 0; kept in the result. `heights` is carved in place: it becomes `carved`.
HydrologyResult run_hydrology(Grid<float> heights, const Grid<float>* rain,
                              const RiverSettings& settings, std::uint64_t seed,
                              Grid<std::uint8_t> into, bool keep_flow = false, int threads = 1);

// What an IntoSource makes: the `into` grid (as run_hydrology takes it) and, when it read every
// height anyway (the pipeline's thresholds), the heights' range as quantise_heights takes it
// (lowest, highest that is not NaN): the one-thread flood then skips its range pass.
struct IntoGrid {
    IntoGrid(Grid<std::uint8_t> grid) : cells(std::move(grid)) {} // implicit: a grid alone
    IntoGrid(Grid<std::uint8_t> grid, std::pair<float, float> range)
        : cells(std::move(grid)), heights_range(range) {}
    Grid<std::uint8_t> cells;
    std::optional<std::pair<float, float>> heights_range;
};

// Makes the `into` grid on the given number of threads.
using IntoSource = std::function<IntoGrid(int threads)>;

// run_hydrology with the `into` grid made while the flood runs, and `heights` carved in place
// (the result's `carved` is left empty; `heights` is the carved map). `into` is called exactly
// once. With threads >= 2 it runs on a thread of its own (start_task, parallel.hpp) with
// threads / 2 threads while the calling thread runs the flood's first steps (quantising, descent,
// basin labels: they read no `into` cell) on the others, and is collected just before the pairs
// are listed (flood_basins' before_pairs), so its temporaries and the flood's largest set of them
// are never alive at once; with one thread `into(1)` runs first, then the flood. `into` may read
// `heights` (carved only after it returned) and whatever the caller does not change meanwhile, and
// must write nothing the hydrology reads: the result equals run_hydrology's with the grid `into`
// returns, at any thread count.
HydrologyResult run_hydrology_in_place(Grid<float>& heights, const Grid<float>* rain,
                                       const RiverSettings& settings, std::uint64_t seed,
                                       const IntoSource& into, bool keep_flow = false,
                                       int threads = 1);

// The cells where a river may end, in reading order: cells c with into[c] and lake[c] both 0
// that drain (`down`, Drain codes without pits) off the map or into a cell t with into[t] or
// lake[t] not 0. Bands of rows on `threads` threads: the same list at any count.
std::vector<std::uint32_t> river_end_cells(const Grid<std::uint8_t>& down, const std::uint8_t* into,
                                           const std::uint8_t* lake, int threads = 1);

// The `into` grid of run_hydrology from a row of class ids, in place: cells[i] becomes cells[i] + 1
// where bit cells[i] of the mask `into` is set (class ids below 32), else 0.
void mark_into_classes(ClassId* cells, std::size_t count, std::uint32_t into);

// The classes rivers and lakes are written as (class ids; -1: none) and what they end in.
struct RiverClasses {
    ClassId river = 0;
    int lake = -1;
    int waterfall = -1;
    std::uint32_t into = 0;   // mask over class ids
    float top_band = 0;       // the lowest carved height of the highest band; +inf: no band rule
    float waterfall_drop = 0; // 0: no drop rule
};

struct RiverReport {
    int source_x = 0, source_y = 0, mouth_x = 0, mouth_y = 0;
    int length = 0;                     // stem cells written, source to mouth
    int max_width = 0;                  // the width at the mouth
    int ends_in = -1;                   // the class id of the cell past the mouth; -1: the map edge
    std::int64_t end = -1;              // the cell past the mouth (-1: off the map)
    std::vector<std::uint32_t> stem;    // stem cells written, source first
    std::vector<std::uint8_t> widths;   // per stem cell written
    std::vector<RiverPath::Bank> banks; // bank cells written
};

struct LakeReport {
    int x = 0, y = 0;        // its first cell in reading order
    std::uint64_t cells = 0; // cells written as the lake class
};

struct RiverOverlay {
    std::vector<RiverReport> rivers;
    std::vector<LakeReport> lakes;
};

// Writes lakes, then rivers, over the class grid cut from `carved` (the carved heightfield, with
// the thresholds of the uncarved one, so the `into` cells are those is_into named, and cells the
// carving lowered may have joined them): lake cells that are not of an `into` class take the lake
// class; each river's stem, source first, until the first cell of an `into` class, a lake or
// another river (the river ends there; else it ends at `end`); bank cells whose stem cell and
// down cell were written. A stem cell (and its banks) is a waterfall when its carved height is at
// least waterfall_drop above the next cell's, or it lies in the highest band and the next does
// not. Rivers whose source is already `into` are dropped.
RiverOverlay write_rivers(ClassGrid& classes, const HydrologyResult& hydro,
                          const Grid<float>& carved, const RiverClasses& ids);

} // namespace tilegen
