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
    // The Manhattan distance is separable: per lattice column x_i, the distance from (x_i, y) to
    // the nearest cell of map row y' is |x_i - nx| for its nearest cell; the distance from (x_i, y)
    // is the least of that plus |y - y'| over the rows y' (a 1D distance transform, down then up).
    std::vector<std::int32_t> column(static_cast<std::size_t>(height));
    const auto w = static_cast<std::uint32_t>(width);
    for (int i = 0; i < cols_; ++i) {
        const int xi = i * kSpacing;
        std::fill(column.begin(), column.end(), kFar);
        for (const std::uint32_t c : cells) {
            const auto y = static_cast<std::size_t>(c / w);
            const int x = static_cast<int>(c % w);
            column[y] = std::min(column[y], std::abs(xi - x));
        }
        for (int y = 1; y < height; ++y)
            column[y] = std::min(column[y], column[y - 1] + 1);
        for (int y = height - 2; y >= 0; --y)
            column[y] = std::min(column[y], column[y + 1] + 1);
        for (int j = 0; j < rows_; ++j) {
            const int yj = j * kSpacing;
            // Past the last row no cell lies: the last row's distance plus the rows between.
            const std::int32_t d =
                yj < height ? column[yj] : column[height - 1] + (yj - (height - 1));
            at_[static_cast<std::size_t>(j) * cols_ + i] = std::min(d, kFar);
        }
    }
}

} // namespace tilegen
