// Controllability of the agents kind, measured on generate_heightfield's output (what `tilegen
// noise` writes): land grows with the coastline budget, beach agents put beach-height land by the
// coast, ridges follow the number of mountain agents, hills stay below their altitude; and the
// whole thing is deterministic at any thread count.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/heightfield/heightfield.hpp"

using namespace tilegen;

namespace {

MapDefinition agents_def() {
    MapDefinition d;
    d.name = "elevation";
    d.settings.kind = NoiseKind::agents;
    return d;
}

Grid<float> make(const MapDefinition& d, std::uint64_t seed, int w, int h, int threads = 1) {
    return generate_heightfield(d, seed, w, h, {0, 0, w, h}, nullptr, threads);
}

double land_fraction(const Grid<float>& g, double sea_level) {
    long long n = 0;
    for (float v : g.cells())
        n += v > sea_level;
    return static_cast<double>(n) / static_cast<double>(g.size());
}

// Connected components (8-neighbours) of cells above `threshold` with at least `min_size` cells:
// a plain flood fill.
int components_above(const Grid<float>& g, float threshold, int min_size) {
    const int w = g.width(), h = g.height();
    std::vector<char> seen(g.size(), 0);
    int count = 0;
    std::vector<int> stack;
    for (int start = 0; start < w * h; ++start) {
        if (seen[start] || g(start % w, start / w) <= threshold) continue;
        int size = 0;
        stack.assign(1, start);
        seen[start] = 1;
        while (!stack.empty()) {
            const int c = stack.back();
            stack.pop_back();
            ++size;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int x = c % w + dx, y = c / w + dy;
                    if (x < 0 || y < 0 || x >= w || y >= h) continue;
                    const int n = y * w + x;
                    if (!seen[n] && g(x, y) > threshold) seen[n] = 1, stack.push_back(n);
                }
        }
        count += size >= min_size;
    }
    return count;
}

} // namespace

TEST_CASE("agents: land fraction rises with the coastline budget (mean of 20 seeds)") {
    const double budgets[] = {0.1, 0.2, 0.3, 0.4, 0.5};
    double previous = 0;
    for (double b : budgets) {
        auto d = agents_def();
        d.settings.agents.coastline.budget = b;
        d.settings.agents.coastline.limit = 256;
        double sum = 0;
        for (std::uint64_t seed = 1; seed <= 20; ++seed)
            sum += land_fraction(make(d, seed, 96, 96), d.settings.agents.sea_level);
        const double mean = sum / 20;
        CAPTURE(b);
        CAPTURE(mean);
        CHECK(mean > previous);
        CHECK(std::abs(mean - b) < 0.1); // the budget is the land raised, smoothing aside
        previous = mean;
    }
}

TEST_CASE("agents: with beach agents, coast cells have beach-height land within the width") {
    auto d = agents_def();
    AgentSettings& a = d.settings.agents;
    a.coastline.budget = 0.3;
    a.coastline.limit = 512;
    a.beach.agents = 30;
    a.beach.steps = 200;
    a.beach.width = 3;
    long long coast = 0, covered = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const Grid<float> g = make(d, seed, 128, 128);
        const int w = g.width(), h = g.height();
        auto land = [&](int x, int y) { return g(x, y) > a.sea_level; };
        auto beach = [&](int x, int y) {
            return land(x, y) && g(x, y) >= static_cast<float>(a.beach.low) &&
                   g(x, y) <= static_cast<float>(a.beach.high);
        };
        for (int y = 1; y + 1 < h; ++y)
            for (int x = 1; x + 1 < w; ++x) {
                if (!land(x, y)) continue;
                if (land(x - 1, y) && land(x + 1, y) && land(x, y - 1) && land(x, y + 1)) continue;
                ++coast;
                bool found = false;
                const int r = a.beach.width;
                for (int dy = -r; dy <= r && !found; ++dy)
                    for (int dx = -r; dx <= r && !found; ++dx)
                        found = dx * dx + dy * dy <= r * r && x + dx >= 0 && y + dy >= 0 &&
                                x + dx < w && y + dy < h && beach(x + dx, y + dy);
                covered += found;
            }
    }
    const double share = static_cast<double>(covered) / static_cast<double>(coast);
    CAPTURE(coast);
    CHECK(share >= 0.95);
    // Without beach agents the same coast has (almost) none: the test can fail.
    a.beach.agents = 0;
    const Grid<float> g = make(d, 1, 128, 128);
    long long beachy = 0;
    for (float v : g.cells())
        beachy += v >= a.beach.low && v <= a.beach.high;
    CHECK(static_cast<double>(beachy) / static_cast<double>(g.size()) < share * 0.5);
}

TEST_CASE("agents: the number of separate ridges follows the number of mountain agents") {
    for (int n = 1; n <= 5; ++n) {
        auto d = agents_def();
        AgentSettings& a = d.settings.agents;
        a.coastline.budget = 0.6; // room inland for five ridges
        a.mountain.agents = n;
        a.mountain.steps = 30;
        a.mountain.width = 1;
        const float threshold = static_cast<float>((a.sea_level + a.mountain.altitude) / 2);
        double sum = 0;
        for (std::uint64_t seed = 1; seed <= 20; ++seed)
            sum += components_above(make(d, seed, 256, 256), threshold, 4);
        const double mean = sum / 20;
        CAPTURE(n);
        CAPTURE(mean);
        CHECK(std::abs(mean - n) <= 1.0);
    }
}

TEST_CASE("agents: hills stay below the hill altitude, and reach near it") {
    auto d = agents_def();
    AgentSettings& a = d.settings.agents;
    a.hill.agents = 20;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        const Grid<float> g = make(d, seed, 128, 128);
        float top = 0;
        for (float v : g.cells())
            top = std::max(top, v);
        CAPTURE(seed);
        CHECK(top <= static_cast<float>(a.hill.altitude));
        CHECK(top > static_cast<float>(a.hill.altitude) - 0.1f);
    }
}

TEST_CASE("agents and erosion: one map at 1, 2 and 8 threads, a region is the whole map's window") {
    auto d = agents_def();
    AgentSettings& a = d.settings.agents;
    a.mountain.agents = 3;
    a.hill.agents = 6;
    a.beach.agents = 10;
    ModifierSettings thermal, hydraulic;
    thermal.kind = ModifierKind::thermal;
    thermal.thermal.iterations = 10;
    hydraulic.kind = ModifierKind::hydraulic;
    d.settings.modifiers = {thermal, hydraulic};
    const Grid<float> one = make(d, 7, 150, 110, 1);
    CHECK(one == make(d, 7, 150, 110, 2));
    CHECK(one == make(d, 7, 150, 110, 8));
    CHECK(one != make(d, 8, 150, 110, 1));
    const Region r{30, 20, 50, 40};
    const Grid<float> part = generate_heightfield(d, 7, 150, 110, r, nullptr, 2);
    bool same = true;
    for (int y = 0; y < r.height; ++y)
        for (int x = 0; x < r.width; ++x)
            same = same && part(x, y) == one(r.x + x, r.y + y);
    CHECK(same);
}
