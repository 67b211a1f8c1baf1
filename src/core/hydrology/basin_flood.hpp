// Fast depression filling and D4 routing: Priority-Flood over the graph of drainage basins.
// Input: heights quantised to 16-bit levels (quantise_heights). Output: a FlowField (see
// priority_flood.hpp) whose `filled` levels equal priority_flood's exactly and whose `down` obeys
// the same invariants (every path ends at the edge, filled never rises along it); `order` is left
// empty (flow_accumulation needs no order).
// Algorithm (cache-friendly, O(n) plus a bucket queue over 16-bit levels):
//  1. Descent: each interior cell drains to its lowest strictly lower 4-neighbour (ties: N, W, E,
//     S, i.e. the lowest index); edge cells drain off the map; interior cells without a lower
//     neighbour are pits.
//  2. Basins: each cell takes the basin its descent ends in: 0 (the "ocean": off the map) or one
//     per pit, numbered in reading order of the first cell reaching it.
//  3. Priority-Flood (Barnes et al. 2014) over basins: the ocean first at level 0; when a basin at
//     water level L is taken, each 4-neighbour pair (p in it, q in an untaken basin) offers q's
//     basin the level max(L, level p, level q), with q draining into p; a bucket queue (one FIFO
//     list per level) takes the lowest offer first (ties: first offered). Each basin's water level
//     is the minimax height of a path from its pit to the edge, so filled = max(level, water).
//  4. Breaching: in each pit basin the descent path from its outlet cell q down to its pit is
//     reversed, so the pit drains out through q.
// Deterministic: single-threaded, fixed scan orders, no randomness.
#pragma once

#include "core/hydrology/priority_flood.hpp"

namespace tilegen {

FlowField flood_basins(Grid<std::uint16_t> level);

// Flow accumulation: each cell's rain (all 1 when `rain` is empty) plus everything draining into
// it. Order-free: cells are visited by in-degree (a cell once all cells draining into it are), in
// reading order of the ridge cells the walks start from, so the float sums are the same every run.
Grid<float> flow_accumulation(const FlowField& f, const Grid<float>* rain);

} // namespace tilegen
