// A consistent A* bound, in cost units, on the least cost from any cell to a set of cells (a grown
// road network): it rises, in each square of a lattice, at most at that square's own least cost of
// a move, instead of the whole map's least cost times a count of cells (Router::route_back).
// Input: the roads' cost grid (route.hpp), once per grid (LeastMoveCosts, made by road_cost_grid
// in its pass over the cells, or from a finished grid); then, per route, the cells of the set
// (CostPotential).
// LeastMoveCosts: per lattice square (i, j) (cells x in [i * kSpacing, (i + 1) * kSpacing] and
// likewise y, clipped to the map: the closed square, whose edges it shares with its neighbours),
// the least of its cells' move costs (a cell's cost when not blocked; bridge_cost for water a
// bridge may span; blocked cells none), less one; kNoMove when the square has none.
// CostPotential: per lattice point, kSpacing times the least sum, over a path of lattice edges to a
// corner of a square that holds a cell of the set, of each edge's least move cost (the least of the
// squares on its two sides): a Dijkstra over the lattice's points. at(x, y): the floor of the
// bilinear interpolation of the four corners of the square (x >> kShift, y >> kShift).
// Invariants (tested against a textbook Dijkstra over the cells):
// - 0 on every cell of the set (the four corners of its square are sources);
// - 4-neighbours a and b lie in one closed square S, where the interpolation's slope along the move
//   is a mean of the slopes of S's two edges in that direction, each at most least(S) per cell;
//   so at(a) and at(b) differ by at most least(S) = m - 1, m at most the cost of the move (either
//   cell's cost; a bridge's jump crosses water cells of at most bridge_cost each). Hence it is a
//   consistent A* bound (never above the least cost), and floor(w * at) (RouteWeight::per_cell)
//   changes by less than w * (m - 1) + 1 <= w * m over a move, for w >= 1: the weighted bound
//   weighted A* needs (the unit kept back covers the rounding).
// - A cell whose square's corners are kFar can reach no cell of the set: any path of open cells
//   passes through squares whose least costs are finite, which link their corners.
// - Blocking cells later (bridges built, places that are not joined) keeps it valid: the least
//   costs were taken over more cells.
// Cost at 4096x4096 (kSpacing 8: 263 169 points): the least costs come with road_cost_grid's pass;
// each route's Dijkstra over the lattice takes a few milliseconds, and the route then explores
// about 40 % fewer cells than with the map's least cost (2.46 and 3.58 million cells -> 1.42 and
// 2.26 million at the default seed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/roads/route.hpp"

namespace tilegen {

class LeastMoveCosts {
  public:
    static constexpr int kShift = 3;
    static constexpr int kSpacing = 1 << kShift;
    static constexpr std::uint32_t kNoMove = 0xFFFFFFFFu;

    LeastMoveCosts() = default;
    // From a finished grid, plainly (the reference road_cost_grid's is tested against).
    explicit LeastMoveCosts(const CostGrid& grid);
    // From the least move cost per square (squares_x() * squares_y(), row-major; kBlocked for
    // none), before the one unit is taken off.
    LeastMoveCosts(int width, int height, std::span<const std::uint16_t> square_least);

    static int squares_along(int cells) { return ((cells - 1) >> kShift) + 1; }
    // The least move cost of the cells of closed square (i, j) of `grid` (a cell's cost when not
    // blocked, bridge_cost for water a bridge may span), before the one unit is taken off;
    // kNoMove when it has none.
    static std::uint32_t square_move_cost(const CostGrid& grid, int i, int j);

    int width() const { return width_; }
    int height() const { return height_; }
    // Lattice points per row and per column: one past the last cell in each direction.
    int cols() const { return squares_x_ + 1; }
    int rows() const { return squares_y_ + 1; }
    int squares_x() const { return squares_x_; }
    int squares_y() const { return squares_y_; }
    // Square (i, j): its least move cost less one, or kNoMove.
    std::uint32_t at(int i, int j) const {
        return least_[static_cast<std::size_t>(j) * squares_x_ + i];
    }
    // Per lattice point p = j * cols() + i: the least move cost per cell along the edge to point
    // (i + 1, j) (right) and to (i, j + 1) (down), or kNoMove (no square beside it has a move, or
    // no such point).
    struct Edges {
        std::uint32_t right, down;
    };
    const Edges& edges(std::size_t p) const { return edges_[p]; }
    // Cell (x, y) now costs `cost` (a road cell discounted): every square holding it, and the
    // edges beside those squares, take at most cost - 1.
    void lower(int x, int y, std::uint32_t cost);
    // The largest least move cost of a square (0 when none has a move): no edge costs more.
    std::uint32_t dearest_edge() const { return dearest_; }

  private:
    void make_edges();
    int width_ = 0, height_ = 0, squares_x_ = 0, squares_y_ = 0;
    std::uint32_t dearest_ = 0;
    std::vector<std::uint32_t> least_; // squares_y_ x squares_x_
    std::vector<Edges> edges_;         // rows() x cols()
};

class CostPotential {
  public:
    static constexpr int kShift = LeastMoveCosts::kShift;
    static constexpr int kSpacing = LeastMoveCosts::kSpacing;
    static constexpr std::uint32_t kFar = 0xFFFFFFFFu; // no path on the lattice

    // The lattice is settled only as far as a search from `starts` (may be empty: all of it) can
    // use: once a corner of a start's square is settled at a sum d0, up to kCapFactor * d0 +
    // kCapMargin * (the dearest edge); the points beyond hold that cap (a lower bound still).
    static constexpr std::uint64_t kCapFactor = 2, kCapMargin = 4;

    CostPotential() = default;
    CostPotential(const LeastMoveCosts& least, std::span<const std::uint32_t> cells,
                  std::span<const std::uint32_t> starts = {});

    // The bound for cell (x, y), 0 <= x < width, 0 <= y < height, in cost units; kFar when the
    // cell can reach no cell of the set.
    std::uint64_t at(int x, int y) const {
        const int i = x >> kShift, j = y >> kShift;
        const std::uint64_t a = x & (kSpacing - 1), b = y & (kSpacing - 1);
        const std::uint32_t* row = at_.data() + static_cast<std::size_t>(j) * cols_ + i;
        const std::uint64_t v00 = row[0], v10 = row[1], v01 = row[cols_], v11 = row[cols_ + 1];
        if (std::max(std::max(v00, v10), std::max(v01, v11)) == kFar) return kFar;
        // kSpacing * the bilinear interpolation (its weights sum to kSpacing^2), below kFar.
        return std::min<std::uint64_t>((v00 * (kSpacing - a) * (kSpacing - b) +
                                        v10 * a * (kSpacing - b) + v01 * (kSpacing - a) * b +
                                        v11 * a * b) >>
                                           kShift,
                                       kFar - 1);
    }
    // The least sum of least move costs per cell to lattice point (i, j) (cell (i * kSpacing,
    // j * kSpacing)), whose bound is kSpacing times it; saturated below kFar, or kFar.
    std::uint32_t point(int i, int j) const { return at_[static_cast<std::size_t>(j) * cols_ + i]; }

  private:
    int cols_ = 0, rows_ = 0;
    std::vector<std::uint32_t> at_; // rows_ x cols_: the sums per cell (see point)
};

} // namespace tilegen
