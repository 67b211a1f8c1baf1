// DistanceLattice against the plain Manhattan distance to the nearest cell of the set, over
// random sets on maps of sizes that are and are not multiples of the lattice's spacing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/hash.hpp"
#include "core/roads/distance_lattice.hpp"

using namespace tilegen;

namespace {

// The distance from (x, y) to the nearest of `cells`, cell by cell.
int plain_distance(int x, int y, const std::vector<std::uint32_t>& cells, int w) {
    int best = DistanceLattice::kFar;
    for (const std::uint32_t c : cells)
        best = std::min(best, std::abs(x - static_cast<int>(c) % w) +
                                  std::abs(y - static_cast<int>(c) / w));
    return best;
}

} // namespace

TEST_CASE("DistanceLattice: exact at the lattice points, a lower bound that changes by at most 1 "
          "between neighbours and is 0 on the set, against the plain distance") {
    int tight = 0, cells_seen = 0; // cells whose bound is within a spacing of the distance
    for (std::uint64_t trial = 0; trial < 60; ++trial) {
        const int w = 1 + static_cast<int>(hash_values(trial, 1) % 90);
        const int h = 1 + static_cast<int>(hash_values(trial, 2) % 70);
        std::vector<std::uint32_t> cells;
        const int count = 1 + static_cast<int>(hash_values(trial, 3) % 12);
        for (int i = 0; i < count; ++i)
            cells.push_back(static_cast<std::uint32_t>(hash_values(trial, i, 4) % (w * h)));
        if (trial % 5 == 0) cells.push_back(cells.front()); // a repeat changes nothing
        const DistanceLattice lattice(w, h, cells);
        constexpr int s = DistanceLattice::kSpacing;
        REQUIRE(lattice.cols() == (w - 1) / s + 2);
        REQUIRE(lattice.rows() == (h - 1) / s + 2);
        for (int j = 0; j < lattice.rows(); ++j)
            for (int i = 0; i < lattice.cols(); ++i)
                REQUIRE(lattice.at(i, j) == plain_distance(i * s, j * s, cells, w));
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int bound = lattice.lower_bound(x, y);
                const int exact = plain_distance(x, y, cells, w);
                REQUIRE(bound >= 0);
                REQUIRE(bound <= exact);
                if (exact == 0) REQUIRE(bound == 0);
                if (x + 1 < w) REQUIRE(std::abs(bound - lattice.lower_bound(x + 1, y)) <= 1);
                if (y + 1 < h) REQUIRE(std::abs(bound - lattice.lower_bound(x, y + 1)) <= 1);
                tight += exact - bound <= s ? 1 : 0;
                ++cells_seen;
            }
    }
    // Useful as a bound: far from the set it follows the distance (loses at most about a
    // spacing), so most cells of these maps are within a spacing of it.
    CHECK(tight * 2 > cells_seen);
}

TEST_CASE(
    "DistanceLattice: an empty set is far from every cell, and a one-cell set on a large map") {
    const DistanceLattice empty(40, 30, {});
    CHECK(empty.lower_bound(0, 0) > 1000);
    CHECK(empty.lower_bound(39, 29) > 1000);
    const int w = 300, h = 200;
    const std::vector<std::uint32_t> one = {static_cast<std::uint32_t>(150 * w + 20)};
    const DistanceLattice lattice(w, h, one);
    CHECK(lattice.lower_bound(20, 150) == 0);
    for (int y = 0; y < h; y += 7)
        for (int x = 0; x < w; x += 5) {
            const int exact = std::abs(x - 20) + std::abs(y - 150);
            REQUIRE(lattice.lower_bound(x, y) <= exact);
            REQUIRE(lattice.lower_bound(x, y) >= exact - 2 * DistanceLattice::kSpacing);
        }
}
