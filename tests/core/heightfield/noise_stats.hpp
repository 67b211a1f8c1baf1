// Statistics of heightfields shared by the noise tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/grid.hpp"

namespace tilegen::test {

// Energy of neighbour differences relative to the variance: higher means more of the signal is fine
// detail.
inline double high_frequency_energy(const Grid<float>& g) {
    double e = 0, mean = 0, var = 0;
    for (float v : g.cells())
        mean += v;
    mean /= static_cast<double>(g.size());
    for (float v : g.cells())
        var += (v - mean) * (v - mean);
    for (int y = 0; y < g.height(); ++y)
        for (int x = 1; x < g.width(); ++x)
            e += std::pow(g(x, y) - g(x - 1, y), 2);
    return e / var;
}

// Smallest and largest value of a grid.
inline std::pair<float, float> value_range(const Grid<float>& g) {
    float lo = 1, hi = 0;
    for (float v : g.cells()) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    return {lo, hi};
}

} // namespace tilegen::test
