// Least-cost routes over a grid of integer step costs, with straight bridge jumps.
// Input: a CostGrid (per cell: the cost of entering it by a 4-neighbour step, or kBlocked; whether
// it is spannable water; the longest bridge and the cost per bridged cell), source cells (distance
// 0) and a target mask. Output: the cheapest route from any source to the first target reached:
// its cells in order (source first, target last), which of them are bridged, its total cost.
// Moves: a step to a 4-neighbour that is neither blocked nor spannable (cost: the neighbour's
// cost); a jump from a cell that is not spannable, straight over k spannable cells (1 <= k <=
// max_bridge) to the next cell, which must be neither blocked nor spannable (cost: k * bridge_cost
// + the landing cell's cost). So every bridge is straight, spans at most max_bridge cells and has
// land (a non-water cell) at both ends. Invariants: exact Dijkstra (binary heap keyed by distance,
// then cell index: ties go to the lower index; a cell's parent is the first that reached it at its
// final distance), so the result is a pure function of the inputs; the Router's buffers are reused
// between calls (stamped, never cleared), so a call costs what it explores, not the map's size.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tilegen {

inline constexpr std::uint16_t kBlocked = 0xFFFF;

struct CostGrid {
    int width = 0, height = 0;
    std::vector<std::uint16_t> cost; // per cell: cost of entering by a step; kBlocked: never
    std::vector<std::uint8_t> span;  // per cell: 1 = water a bridge may span (never stepped on)
    int max_bridge = 0;              // longest span in cells; 0: no bridges; range 0..32
    std::uint32_t bridge_cost = 16;  // per spanned cell
};

// The four step directions: +x, -x, +y, -y (a parent entry stores the index).
inline constexpr int kRouteDx[4] = {1, -1, 0, 0};
inline constexpr int kRouteDy[4] = {0, 0, 1, -1};

// One move of the Moves above from cell (x, y) in direction `dir`: the cell it lands on and the
// cells it bridges (0 for a step). Nothing when the move leaves the map, starts on water and would
// cross water, spans more than max_bridge cells or lands on water. Whether the landing cell is
// blocked is the caller's to check (its cost).
struct RouteMove {
    std::uint32_t cell = 0;
    int bridged = 0;
};
inline std::optional<RouteMove> route_move(const CostGrid& grid, int x, int y, int dir,
                                           bool from_water) {
    const int w = grid.width, h = grid.height;
    const auto inside = [&](int cx, int cy) { return cx >= 0 && cy >= 0 && cx < w && cy < h; };
    int nx = x + kRouteDx[dir], ny = y + kRouteDy[dir];
    if (!inside(nx, ny)) return std::nullopt;
    auto nc = static_cast<std::uint32_t>(ny * w + nx);
    int k = 0;
    if (grid.span[nc]) { // a bridge: straight over water to the next land cell
        if (from_water) return std::nullopt;
        while (k < grid.max_bridge && grid.span[nc]) {
            ++k;
            nx += kRouteDx[dir];
            ny += kRouteDy[dir];
            if (!inside(nx, ny)) return std::nullopt;
            nc = static_cast<std::uint32_t>(ny * w + nx);
        }
        if (grid.span[nc]) return std::nullopt;
    }
    return RouteMove{nc, k};
}

struct Route {
    std::vector<std::uint32_t> cells;  // y * width + x, source first, target last
    std::vector<std::uint8_t> bridged; // parallel to cells: 1 where the cell is a bridge span
    std::uint64_t cost = 0;
    bool found = false;
};

class Router {
  public:
    // The cheapest route from `sources` to a cell whose target[] is nonzero (target.size() ==
    // cells). Sources that are blocked still start (a place's footprint); a source that is a
    // target gives the route of that one cell.
    [[nodiscard]] Route route(const CostGrid& grid, const std::vector<std::uint32_t>& sources,
                              const std::vector<std::uint8_t>& target);

    // Cells explored (popped) by the last call: for benchmarks and tests.
    std::uint64_t explored() const { return explored_; }

  private:
    std::vector<std::uint32_t> dist_;
    std::vector<std::uint32_t> stamp_;
    std::vector<std::uint8_t> parent_; // bits 0-1: direction back to the parent; 2-7: jump length
    std::uint32_t generation_ = 0;
    std::vector<std::uint64_t> heap_;
    std::uint64_t explored_ = 0;
};

} // namespace tilegen
