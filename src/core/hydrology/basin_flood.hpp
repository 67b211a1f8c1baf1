// Fast depression filling and D4 routing: Priority-Flood over the graph of drainage basins.
// Input: heights quantised to 16-bit levels (quantise_heights). Output: a FlowField (see
// priority_flood.hpp) whose `filled` levels equal priority_flood's exactly and whose `down` obeys
// the same invariants (every path ends at the edge, filled never rises along it); `order` is left
// empty (flow_accumulation needs no order).
// Algorithm (cache-friendly, O(n) plus radix sorts over 16-bit levels):
//  1. Descent (descend): each interior cell drains to its lowest strictly lower 4-neighbour (ties:
//     N, W, E, S, i.e. the lowest index); edge cells drain off the map; interior cells without a
//     lower neighbour are pits.
//  2. Basins (label_basins): each cell takes the basin its descent ends in: 0 (the "ocean": off the
//     map) or one per pit — the connected pieces of the descent forest, found in one scan with a
//     union-find over provisional labels (two-pass connected-component labelling).
//  3. Priority-Flood (Barnes et al. 2014) over basins, as Kruskal's algorithm: the 4-neighbour
//     pairs of cells in different basins (basin_pairs), by cost max(level p, level q) and then by
//     scan order (horizontal pair of a cell before its vertical one), join basins; a basin's water
//     level is the cost of the pair that first joins it to the ocean (the minimax height of a path
//     from its pit to the edge), so filled = max(level, water). The joining pairs form a tree.
//  4. Breaching: in each pit basin the descent path from its outlet cell (its cell of the pair
//     linking it to its parent in that tree, rooted at the ocean) down to its pit is reversed, so
//     the pit drains out through the outlet.
//  5. Depressions: the raised cells (filled > level) of a basin are connected (its descent tree),
//     and raised cells of two basins touch exactly when the basins have the same water level W and
//     a pair between them costs less than W; the basins are grouped by those pairs (the tree's
//     pairs suffice: any other such pair closed a cycle of tree pairs costing no more).
// Deterministic: fixed scan orders, no randomness; the cell-by-cell passes (the descent after
// Kruskal, final labels, filling, count_upstream's in-degrees with two threads or more) run by
// blocks of rows on `threads` threads, each writing its own rows; the rest (the labels' scan and
// the descent rows it makes, count_upstream's waves) is single-threaded: the same `down`, `filled`
// and basins as the plain cell-by-cell version (tests/core/hydrology/reference_flood.hpp) on
// every run, at any count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "core/hydrology/priority_flood.hpp"

namespace tilegen {

inline constexpr std::uint8_t kDrainPit = 0xff; // descend: an interior cell with no lower neighbour

// Step 1: the descent directions (Drain, kDrainOff | side on the edge, kDrainPit for pits).
Grid<std::uint8_t> descend(const Grid<std::uint16_t>& level, int threads = 1);

// Step 2: the basin of every cell (0: the edge cells and every cell descending to them; 1.. one per
// pit, numbered in no particular order) of a descent grid; returns the number of basins.
std::uint32_t label_basins(const Grid<std::uint8_t>& down, Grid<std::uint32_t>& basin,
                           int threads = 1);
// label_basins(descend(level), basin, threads) without the descent grid: each row's descent is
// made as the labels' scan reaches it (two rows of it at a time), a map pass less.
std::uint32_t label_basins_of_levels(const Grid<std::uint16_t>& level, Grid<std::uint32_t>& basin,
                                     int threads = 1);

// Step 3's input: the pairs of 4-neighbour cells p, q = p + 1 or p + width in different basins, in
// the order Kruskal's algorithm takes them (by cost, then scan order), leaving out a pair when one
// already listed joins the same two basins (in the same order) at no higher cost — such a pair
// never joins anything and never links two depressions that another listed pair does not.
struct BasinPair {
    std::uint32_t a, b; // basin of p, basin of q
    std::uint32_t p;    // the first cell in reading order
    std::uint16_t cost; // max(level p, level q)
    std::uint8_t down;  // 1: q = p + width, 0: q = p + 1
    std::uint8_t unused;
};
// flood_basins takes them straight from buckets by the high byte of their cost (PairBuckets in
// basin_flood.cpp, each bucket sorted by the low byte as Kruskal's algorithm reaches it: no copy
// of all the pairs); this gives the same pairs in the same order as one list.
// `threads`: bands of rows listed on that many threads; a few pairs more are kept at the bands'
// borders (each after a kept pair of the same two basins costing no more: the same tree).
std::vector<BasinPair> basin_pairs(const Grid<std::uint16_t>& level,
                                   const Grid<std::uint32_t>& basin, int threads = 1);

// The whole flood. The FlowField also gets each basin's water level, depression (the lowest
// basin of its group, see step 5) and pit. Without `with_filled`, `filled` is left empty (a
// map-sized grid less: the filled level of a cell is max(level, water[basin])).
// `before_pairs`, when set, is called once, after the basins are labelled and before the pairs
// are listed (the flood's largest set of temporaries): run_hydrology_in_place waits there for
// work running beside the flood, so that work's temporaries and the pairs are never alive at once.
// Without it the descent grid is made first and the labels read it; with it (memory is shared
// with that work) the labels' scan makes each descent row as it reaches it, and the grid is made
// after the pairs are freed: a map pass more, a byte per cell less. The same flood either way.
// `pair_threads`: the threads the pairs are listed on (0: `threads`; the work beside the flood has
// ended by then, so run_hydrology_in_place gives them all). The same flood at any thread counts.
FlowField flood_basins(Grid<std::uint16_t> level, int threads = 1, bool with_filled = true,
                       const std::function<void()>& before_pairs = {}, int pair_threads = 0);

// Flow accumulation: each cell's rain (all 1 when `rain` is empty) plus everything draining into
// it. Without rain on maps of at most 2^24 cells every sum is a whole number below 2^24 (exact in
// a float whatever the order), counted in integers by count_upstream; otherwise the cells are
// visited by in-degree (a cell once all cells draining into it are), in walks down from the cells
// nothing drains into, taken in reading order, so the float sums are the same every run.
Grid<float> flow_accumulation(const FlowField& f, const Grid<float>* rain, int threads = 1);

// flow_accumulation's walks in reading order over a rain grid given by value (the same size as
// f.down), summed in its own cells: no second map-sized grid.
Grid<float> accumulate_rain(const FlowField& f, Grid<float> rain);

// The number of cells draining through each cell (itself included) of a drainage grid (Drain
// values, no pits), as whole numbers in floats; at most 2^25 - 1 cells. The walks down from the
// cells nothing drains into go breadth first from the sources of about `band_cells` cells at a
// time (whole rows; any band gives the same counts: the tests use small ones).
// Without `as_floats` the last pass (the words to floats) is left out: each cell's bits hold its
// count from bit kUpstreamCountShift up (and the walks' state below it), read by upstream_count;
// for a caller that reads the counts of a few cells only.
inline constexpr std::size_t kUpstreamBand = std::size_t{1} << 16;
Grid<float> count_upstream(const Grid<std::uint8_t>& down, int threads = 1,
                           std::size_t band_cells = kUpstreamBand, bool as_floats = true);

inline constexpr unsigned kUpstreamCountShift = 7;
// The count of a cell of count_upstream(..., as_floats = false), as count_upstream gives it (the
// bits copied from the cell: they are no float).
inline float upstream_count(const float* cell) {
    std::uint32_t bits;
    std::memcpy(&bits, cell, sizeof bits);
    return static_cast<float>(static_cast<std::int32_t>(bits >> kUpstreamCountShift));
}

} // namespace tilegen
