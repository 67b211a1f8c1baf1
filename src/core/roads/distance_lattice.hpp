// A cheap, consistent lower bound on the Manhattan distance from any cell to a set of cells: the
// A* heuristic of a route searched towards a grown road network (Router::route_back).
// Input: the map's size and the cells of the set (any order, repeats allowed).
// Output: per point of a lattice of spacing kSpacing (x and y multiples of it, covering the map
// and one point past it), the exact Manhattan distance to the nearest cell of the set; a large
// value (kFar) everywhere when the set is empty.
// lower_bound(x, y): floor(max(0, B(x, y) - kSpacing)), B the bilinear interpolation of the
// lattice's distances. Invariants (tested against the exact distance):
// - at most the exact distance: the distance is 1-Lipschitz (Manhattan), so each lattice value is
//   at most it plus the lattice point's distance from (x, y), and bilinear weights put those
//   distances' mean at most kSpacing;
// - changes by at most 1 between 4-neighbours: within a square B's slope is a mean of the
//   lattice's, each at most 1 per cell, B is continuous across squares, and the floor of a
//   function that changes by at most 1 does too; so it is a consistent A* bound;
// - 0 on every cell of the set.
// Cost: a pass down and a pass up the map's rows, each carrying every lattice column's distance at
// once (each row: one more, lowered by that row's cells): 0.6-1.4 ms for the default overworld's
// networks at 4096x4096 (a pass over the cells per lattice column took 2.3-5.7 ms); 4 bytes per
// lattice point (about 260 KiB at 4096x4096).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tilegen {

class DistanceLattice {
  public:
    static constexpr int kShift = 4;
    static constexpr int kSpacing = 1 << kShift;  // cells between lattice points
    static constexpr std::int32_t kFar = 1 << 24; // the distance to an empty set

    DistanceLattice() = default;
    DistanceLattice(int width, int height, std::span<const std::uint32_t> cells);

    // The bound for cell (x, y), 0 <= x < width, 0 <= y < height.
    int lower_bound(int x, int y) const {
        const int i = x >> kShift, j = y >> kShift;
        const std::int64_t a = x & (kSpacing - 1), b = y & (kSpacing - 1);
        const std::int32_t* row = at_.data() + static_cast<std::size_t>(j) * cols_ + i;
        const std::int64_t v00 = row[0], v10 = row[1];
        const std::int64_t v01 = row[cols_], v11 = row[cols_ + 1];
        // B(x, y) * kSpacing^2, in whole numbers.
        const std::int64_t scaled = v00 * (kSpacing - a) * (kSpacing - b) +
                                    v10 * a * (kSpacing - b) + v01 * (kSpacing - a) * b +
                                    v11 * a * b;
        constexpr std::int64_t kSlack = std::int64_t{kSpacing} * kSpacing * kSpacing;
        return scaled <= kSlack ? 0 : static_cast<int>((scaled - kSlack) >> (2 * kShift));
    }

    // The exact distance at lattice point (i, j), i.e. cell (i * kSpacing, j * kSpacing).
    std::int32_t at(int i, int j) const { return at_[static_cast<std::size_t>(j) * cols_ + i]; }
    int cols() const { return cols_; }
    int rows() const { return rows_; }

  private:
    int cols_ = 0, rows_ = 0;
    std::vector<std::int32_t> at_; // row-major, rows_ x cols_
};

} // namespace tilegen
