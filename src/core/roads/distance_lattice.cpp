#include "core/roads/distance_lattice.hpp"

#include <algorithm>
#include <cstdlib>

namespace tilegen {

DistanceLattice::DistanceLattice(int width, int height, std::span<const std::uint32_t> cells) {
    if (width <= 0 || height <= 0) return;
    // One point past the last cell in each direction, so every cell has a square around it.
    cols_ = ((width - 1) >> kShift) + 2;
    rows_ = ((height - 1) >> kShift) + 2;
    at_.assign(static_cast<std::size_t>(cols_) * rows_, kFar);
    if (cells.empty()) return;
    // The Manhattan distance is separable: from (x_i, y) to the nearest cell of map row y' it is
    // |x_i - nx| for that row's nearest cell nx, plus |y - y'|. So a pass down the map's rows
    // carries, for every lattice column at once, the least of that over the rows above
    // (`carried`: one more per row, lowered by each row's cells), a pass up the same from below,
    // and a lattice point takes the lesser of the two at its row.
    std::vector<std::size_t> row_start(static_cast<std::size_t>(height) + 1, 0);
    const auto w = static_cast<std::uint32_t>(width);
    for (const std::uint32_t c : cells)
        ++row_start[c / w + 1];
    for (int y = 0; y < height; ++y)
        row_start[y + 1] += row_start[y];
    std::vector<std::int32_t> xs(cells.size()); // the cells' columns, row by row
    {
        std::vector<std::size_t> at(row_start.begin(), row_start.end() - 1);
        for (const std::uint32_t c : cells)
            xs[at[c / w]++] = static_cast<std::int32_t>(c % w);
    }
    const auto lanes = static_cast<std::size_t>(cols_);
    std::vector<std::int32_t> lane_x(lanes), carried(lanes);
    for (std::size_t i = 0; i < lanes; ++i)
        lane_x[i] = static_cast<std::int32_t>(i) * kSpacing;
    // One row's step: carry one row further, then take the row's cells.
    const auto step = [&](int y) {
        for (std::size_t i = 0; i < lanes; ++i)
            carried[i] = std::min(carried[i] + 1, kFar);
        for (std::size_t k = row_start[y]; k < row_start[y + 1]; ++k) {
            const std::int32_t x = xs[k];
            for (std::size_t i = 0; i < lanes; ++i)
                carried[i] = std::min(carried[i], std::abs(lane_x[i] - x));
        }
    };
    const auto row_of = [&](int j) { return at_.data() + static_cast<std::size_t>(j) * lanes; };
    std::fill(carried.begin(), carried.end(), kFar);
    for (int y = 0; y < height; ++y) {
        step(y);
        if ((y & (kSpacing - 1)) == 0)
            std::copy(carried.begin(), carried.end(), row_of(y >> kShift));
    }
    // Lattice rows past the last map row: no cell lies there, the last row's distance plus the
    // rows between (the pass up, below, starts from no cell at all).
    for (int j = ((height - 1) >> kShift) + 1; j < rows_; ++j) {
        const int past = j * kSpacing - (height - 1);
        for (std::size_t i = 0; i < lanes; ++i)
            row_of(j)[i] = std::min(carried[i] + past, kFar);
    }
    std::fill(carried.begin(), carried.end(), kFar);
    for (int y = height - 1; y >= 0; --y) {
        step(y);
        if ((y & (kSpacing - 1)) == 0) {
            std::int32_t* out = row_of(y >> kShift);
            for (std::size_t i = 0; i < lanes; ++i)
                out[i] = std::min(out[i], carried[i]);
        }
    }
}

} // namespace tilegen
