// Erosion modifiers: thermal erosion removes slopes steeper than the talus; hydraulic erosion
// conserves material (eroded = deposited + carried off the map) and concentrates flow, measured
// with a plain D8 flow accumulation written here.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/heightfield/erosion.hpp"
#include "core/heightfield/heightfield.hpp"

using namespace tilegen;

namespace {

Grid<float> terrain(NoiseKind kind, std::uint64_t seed, int w, int h) {
    MapDefinition d;
    d.name = "elevation";
    d.settings.kind = kind;
    return generate_heightfield(d, seed, w, h, {0, 0, w, h}, nullptr);
}

long long steep_pairs(const Grid<float>& g, double talus) {
    long long n = 0;
    for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x) {
            if (x + 1 < g.width()) n += std::abs(g(x, y) - g(x + 1, y)) > talus + 1e-6;
            if (y + 1 < g.height()) n += std::abs(g(x, y) - g(x, y + 1)) > talus + 1e-6;
        }
    return n;
}

double total(const Grid<float>& g) {
    double s = 0;
    for (float v : g.cells())
        s += v;
    return s;
}

// D8: every cell sends its water (1 + what it received) to its steepest lower neighbour (drop per
// distance), highest cells first. Returns the share of all accumulated flow held by the top 1 % of
// cells.
double top_flow_share(const Grid<float>& g) {
    const int w = g.width(), h = g.height();
    std::vector<int> order(static_cast<std::size_t>(w) * h);
    std::iota(order.begin(), order.end(), 0);
    const auto& c = g.cells();
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return c[a] > c[b]; });
    std::vector<double> acc(order.size(), 1.0);
    for (int i : order) {
        const int x = i % w, y = i / w;
        int best = -1;
        double steepest = 0;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int nx = x + dx, ny = y + dy;
                if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                const double s = (c[i] - c[ny * w + nx]) / std::hypot(dx, dy);
                if (s > steepest) steepest = s, best = ny * w + nx;
            }
        if (best >= 0) acc[best] += acc[i];
    }
    std::vector<double> sorted = acc;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    const std::size_t top = sorted.size() / 100;
    return std::accumulate(sorted.begin(), sorted.begin() + top, 0.0) /
           std::accumulate(sorted.begin(), sorted.end(), 0.0);
}

} // namespace

TEST_CASE("thermal erosion: neighbour pairs steeper than the talus drop by 90 %, mass kept") {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        Grid<float> g = terrain(NoiseKind::diamond_square, seed, 128, 128);
        ThermalSettings s;
        s.talus = 0.015;
        s.iterations = 200;
        const long long before = steep_pairs(g, s.talus);
        const double mass = total(g);
        const ErosionTotals t = thermal_erosion(g, s, 2);
        const long long after = steep_pairs(g, s.talus);
        CAPTURE(before);
        CAPTURE(after);
        CHECK(before > 500); // the terrain had steep slopes to begin with
        CHECK(static_cast<double>(after) <= 0.1 * static_cast<double>(before));
        CHECK(t.eroded > 0);
        CHECK(std::abs(total(g) - mass) < 1e-4 * mass);
    }
}

TEST_CASE("thermal erosion: the same values at 1, 2 and 8 threads") {
    const Grid<float> g = terrain(NoiseKind::diamond_square, 4, 90, 70);
    ThermalSettings s;
    s.iterations = 7;
    Grid<float> a = g, b = g, c = g;
    (void)thermal_erosion(a, s, 1);
    (void)thermal_erosion(b, s, 2);
    (void)thermal_erosion(c, s, 8);
    CHECK(a == b);
    CHECK(a == c);
    CHECK(a != g);
}

TEST_CASE("hydraulic erosion: material conserved within 1 %, flow concentrates") {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        Grid<float> g = terrain(NoiseKind::diamond_square, seed, 128, 128);
        const double mass = total(g);
        const double flow_before = top_flow_share(g);
        HydraulicSettings s;
        s.droplets = 2;
        const ErosionTotals t = hydraulic_erosion(g, s, seed);
        const double flow_after = top_flow_share(g);
        CAPTURE(mass);
        CAPTURE(t.eroded);
        CAPTURE(t.carried_off);
        CHECK(t.eroded > 0.01 * mass * 0.1); // it moved material
        // Accounted: what is on the map plus what left it is what there was.
        CHECK(std::abs(total(g) + t.carried_off - mass) <= 0.01 * mass);
        CHECK(std::abs(t.eroded - t.deposited - t.carried_off) <= 0.01 * t.eroded);
        CAPTURE(flow_before);
        CAPTURE(flow_after);
        CHECK(flow_after > flow_before);
    }
}
