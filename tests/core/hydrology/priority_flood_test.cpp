#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/hydrology/basin_flood.hpp"
#include "core/hydrology/priority_flood.hpp"

using namespace tilegen;

namespace {

// Plain reference: the filled surface is the smallest one >= the levels that drains to the edge.
// Start from +inf inside and the levels on the edge; lower every cell to max(its level, the lowest
// 4-neighbour) until nothing changes (Planchon-Darboux style relaxation, exact for integers).
Grid<int> filled_by_relaxation(const Grid<std::uint16_t>& level) {
    const int w = level.width(), h = level.height();
    Grid<int> f(w, h, 1 << 30);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1) f(x, y) = level(x, y);
    for (bool changed = true; changed;) {
        changed = false;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                int lowest = 1 << 30;
                const int dx[4] = {0, -1, 1, 0}, dy[4] = {-1, 0, 0, 1};
                for (int k = 0; k < 4; ++k)
                    if (level.contains(x + dx[k], y + dy[k]))
                        lowest = std::min(lowest, f(x + dx[k], y + dy[k]));
                const int v = std::max<int>(level(x, y), lowest);
                if (v < f(x, y)) {
                    f(x, y) = v;
                    changed = true;
                }
            }
    }
    return f;
}

} // namespace

TEST_CASE("priority flood: filled levels equal a relaxation to the fixed point") {
    std::mt19937 rng(12345);
    for (int trial = 0; trial < 300; ++trial) {
        const int w = 1 + static_cast<int>(rng() % 13), h = 1 + static_cast<int>(rng() % 13);
        const int range = trial % 3 == 0 ? 4 : trial % 3 == 1 ? 20 : 65536; // many ties, or few
        Grid<std::uint16_t> level(w, h);
        for (auto& v : level.cells())
            v = static_cast<std::uint16_t>(rng() % static_cast<unsigned>(range));
        const Grid<int> expected = filled_by_relaxation(level);
        const FlowField f = priority_flood(level);
        CAPTURE(trial);
        REQUIRE(f.order.size() == level.size());
        std::vector<int> position(level.size(), -1);
        for (std::size_t i = 0; i < f.order.size(); ++i) {
            REQUIRE(position[f.order[i]] == -1); // each cell once
            position[f.order[i]] = static_cast<int>(i);
        }
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                CHECK(f.filled(x, y) == expected(x, y));
                CHECK(f.level(x, y) == level(x, y));
                const auto c = static_cast<std::uint32_t>(y * w + x);
                const std::int64_t t = drain_target(f, c);
                const bool edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
                CHECK((t < 0) == edge);
                if (t < 0) continue;
                const int tx = static_cast<int>(t % w), ty = static_cast<int>(t / w);
                CHECK(std::abs(tx - x) + std::abs(ty - y) == 1); // a 4-neighbour
                CHECK(f.filled(tx, ty) <= f.filled(x, y));       // never rises downstream
                CHECK(position[static_cast<std::size_t>(t)] < position[c]); // taken before
            }
    }
}

TEST_CASE("priority flood: quantised heights span 0..65535 and keep the order") {
    Grid<float> h(3, 2);
    h.cells() = {0.5f, -1.0f, 3.0f, 0.5f, 1.0f, 2.0f};
    const Grid<std::uint16_t> q = quantise_heights(h);
    CHECK(q(1, 0) == 0);
    CHECK(q(2, 0) == 65535);
    CHECK(q(0, 0) == q(0, 1));
    CHECK(q(0, 0) < q(1, 1));
    CHECK(q(1, 1) < q(2, 1));
    Grid<float> flat(4, 4, 0.25f);
    const Grid<std::uint16_t> qf = quantise_heights(flat);
    for (auto v : qf.cells())
        CHECK(v == 0);
}

TEST_CASE("priority flood: quantised heights equal the plain formula cell by cell") {
    // The formula of quantise_heights (priority_flood.hpp) over the grid's own range, cell by
    // cell; NaN (left out of the range) gives 0. Widths around the vector code's 8 cells, values
    // at the range's ends, halfway points, NaN and (in a quarter of the grids) huge ones.
    std::mt19937 rng(77);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int trial = 0; trial < 60; ++trial) {
        const int w = 1 + trial % 19, h = 1 + trial % 3;
        Grid<float> g(w, h);
        for (float& v : g.cells()) {
            const auto kind = static_cast<unsigned>(rng() % 10);
            v = kind == 0                     ? nan
                : kind == 1                   ? -1.0f
                : kind == 2 && trial % 4 == 0 ? 1e30f // most values then quantise to 0
                : kind == 3                   ? static_cast<float>(rng() % 5) * 0.25f
                            : std::uniform_real_distribution<float>(-1.0f, 2.0f)(rng);
        }
        float lo = std::numeric_limits<float>::infinity(), hi = -lo;
        for (float v : g.cells())
            if (!std::isnan(v)) {
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
        const double scale = hi > lo ? 65535.0 / (static_cast<double>(hi) - lo) : 0.0;
        const Grid<std::uint16_t> q = quantise_heights(g);
        CAPTURE(trial);
        for (std::size_t i = 0; i < g.size(); ++i) {
            const double t = (static_cast<double>(g.cells()[i]) - lo) * scale + 0.5;
            const std::uint16_t want =
                std::isnan(t) ? 0 : static_cast<std::uint16_t>(std::clamp(t, 0.0, 65535.0));
            CHECK(q.cells()[i] == want);
        }
        // The range given (as the thresholds' histogram pass finds it): the same levels.
        CHECK(quantise_heights(g, 1, std::pair<float, float>{lo, hi}) == q);
    }
}

namespace {

// Every path of `down` steps ends off the map, through 4-neighbours, with filled never rising.
void check_drainage(const FlowField& f) {
    const int w = f.down.width(), h = f.down.height();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const auto c = static_cast<std::uint32_t>(y * w + x);
            const std::int64_t t = drain_target(f, c);
            const bool edge = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            CHECK((t < 0) == edge);
            if (t < 0) continue;
            const int tx = static_cast<int>(t % w), ty = static_cast<int>(t / w);
            CHECK(std::abs(tx - x) + std::abs(ty - y) == 1);
            CHECK(f.filled(tx, ty) <= f.filled(x, y));
            // The path reaches the edge within n steps (no cycle).
            std::int64_t p = c;
            std::size_t steps = 0;
            while (p >= 0 && steps <= f.down.size()) {
                p = drain_target(f, static_cast<std::uint32_t>(p));
                ++steps;
            }
            CHECK(p < 0);
        }
}

// Plain accumulation: for each cell, walk its path to the edge adding its rain to every cell on it.
Grid<float> accumulation_by_walking(const FlowField& f, const Grid<float>* rain) {
    Grid<float> acc(f.down.width(), f.down.height(), 0.0f);
    for (std::uint32_t c = 0; c < f.down.size(); ++c) {
        const float r = rain ? rain->cells()[c] : 1.0f;
        for (std::int64_t p = c; p >= 0; p = drain_target(f, static_cast<std::uint32_t>(p)))
            acc.cells()[static_cast<std::size_t>(p)] += r;
    }
    return acc;
}

} // namespace

TEST_CASE("basin flood: filled levels equal the relaxation and the plain Priority-Flood") {
    std::mt19937 rng(777);
    for (int trial = 0; trial < 400; ++trial) {
        const int w = 1 + static_cast<int>(rng() % 16), h = 1 + static_cast<int>(rng() % 16);
        const int range = trial % 4 == 0 ? 3 : trial % 4 == 1 ? 12 : trial % 4 == 2 ? 300 : 65536;
        Grid<std::uint16_t> level(w, h);
        for (auto& v : level.cells())
            v = static_cast<std::uint16_t>(rng() % static_cast<unsigned>(range));
        CAPTURE(trial);
        const Grid<int> expected = filled_by_relaxation(level);
        const FlowField plain = priority_flood(level);
        const FlowField fast = flood_basins(level);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                CHECK(fast.filled(x, y) == expected(x, y));
                CHECK(fast.filled(x, y) == plain.filled(x, y));
            }
        check_drainage(fast);
        // Accumulation (integers in floats: exact) against walking every path.
        Grid<float> rain(w, h);
        for (auto& v : rain.cells())
            v = static_cast<float>(rng() % 4);
        for (const Grid<float>* r :
             {static_cast<const Grid<float>*>(nullptr), static_cast<const Grid<float>*>(&rain)}) {
            const Grid<float> acc = flow_accumulation(fast, r);
            CHECK(acc == accumulation_by_walking(fast, r));
        }
    }
}
