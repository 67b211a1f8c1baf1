// Priority-Flood depression filling and D4 flow routing (Barnes, Lehman, Mulla 2014).
// Input: a heightfield (any finite floats). Output: a FlowField: the heights quantised to 16-bit
// levels over the map's own range (lowest 0, highest 65535), the filled levels (every depression
// raised to its spill level), for every cell the 4-neighbour it drains to (the cell that reached it
// in the flood; edge cells drain off the map), and the order the flood took the cells in.
// Algorithm: the edge cells are seeded at their own levels; cells are taken lowest level first
// from a bucket queue (one FIFO list per level, O(1) per push and pop: O(n) in all); an untaken
// 4-neighbour of a taken cell at level L gets level max(its own, L) and drains to that cell.
// Neighbours are looked at in the order N, W, E, S, and equal levels are taken first in first out,
// so ties go by that order alone: single-threaded, no randomness, the same on every run.
// Invariants: filled >= level; filled never rises along a drainage path (filled[cell] >=
// filled[down of cell]); every path of `down` steps ends at the map edge; `order` lists each cell
// once, every cell after the cell it drains to (so walking `order` backwards visits every cell
// before the one it drains to: flow accumulation). Memory: 13 bytes per cell (+ 4 transient).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/grid.hpp"

namespace tilegen {

// Directions a cell may drain to, as stored in FlowField::down.
// Bit kDrainOff marks the edge cells, which drain off the map on the side the low bits name.
enum Drain : std::uint8_t { drain_north = 0, drain_west = 1, drain_east = 2, drain_south = 3 };
inline constexpr std::uint8_t kDrainOff = 4;
inline constexpr int kDrainDx[4] = {0, -1, 1, 0};
inline constexpr int kDrainDy[4] = {-1, 0, 0, 1};

struct FlowField {
    Grid<std::uint16_t> level;  // the heights quantised: (h - min) / (max - min) * 65535, rounded
    Grid<std::uint16_t> filled; // level with every depression filled to its spill level
    Grid<std::uint8_t> down;    // Drain: the 4-neighbour the cell drains to (| kDrainOff: off map)
    std::vector<std::uint32_t> order; // cells (y * width + x) in the order the flood took them
    // flood_basins only (empty from priority_flood): each cell's drainage basin (0: the cells
    // draining off the map by descent, else one per pit) and the number of basins; per basin its
    // water level (filled = max(level, water)), its depression: the lowest basin whose raised
    // cells (filled > level) connect to its own (itself when none do), and its pit (the cell its
    // descent ends in, its lowest; basin 0, off the map: none).
    Grid<std::uint32_t> basin;
    std::uint32_t basins = 0;
    std::vector<std::uint16_t> water;
    std::vector<std::uint32_t> depression;
    std::vector<std::uint32_t> pit;
};

// The 16-bit level of each height over the grid's range (all 0 for a flat grid). Blocks of rows
// on `threads` threads: the same levels at any count. `range`, when given, is the grid's range
// (lowest, highest height that is not NaN; +inf, -inf when none) found by a pass that read every
// height anyway (thresholds_from_shares): the range pass is then skipped.
Grid<std::uint16_t> quantise_heights(const Grid<float>& heights, int threads = 1,
                                     std::optional<std::pair<float, float>> range = {});

// The flood over quantised levels.
FlowField priority_flood(Grid<std::uint16_t> level);

// The cell index a cell drains to, or -1 when it drains off the map.
inline std::int64_t drain_target(const FlowField& f, std::uint32_t cell) {
    const std::int64_t w = f.down.width();
    const int d = f.down.cells()[cell];
    if (d & kDrainOff) return -1;
    return static_cast<std::int64_t>(cell) + kDrainDx[d] + kDrainDy[d] * w;
}

} // namespace tilegen
