#include <doctest/doctest.h>

#include "core/heightfield/noise_stats.hpp"

#include <cmath>
#include <set>

#include "core/hash.hpp"
#include "core/heightfield/heightfield.hpp"
#include "core/heightfield/point_noise.hpp"
#include "core/heightfield/whole_map_generators.hpp"

using namespace tilegen;
using tilegen::test::high_frequency_energy;

namespace {

const NoiseKind kAllKinds[] = {NoiseKind::harmonic, NoiseKind::value,  NoiseKind::perlin,
                               NoiseKind::simplex,  NoiseKind::worley, NoiseKind::diamond_square,
                               NoiseKind::fault,    NoiseKind::hills,  NoiseKind::particle,
                               NoiseKind::profile,  NoiseKind::white};

MapDefinition def_of(NoiseKind kind) {
    MapDefinition d;
    d.name = "m";
    d.settings.kind = kind;
    d.settings.faults = 40;
    d.settings.hills = 60;
    d.settings.drops = 8;
    d.settings.particles = 300;
    return d;
}

Grid<float> whole(const MapDefinition& d, std::uint64_t seed, int w, int h) {
    return generate_heightfield(d, seed, w, h, {0, 0, w, h}, nullptr);
}

bool same_window(const Grid<float>& part, const Grid<float>& all, Region r) {
    for (int y = 0; y < r.height; ++y)
        for (int x = 0; x < r.width; ++x)
            if (part(x, y) != all(r.x + x, r.y + y)) return false;
    return true;
}

} // namespace

TEST_CASE("every kind: deterministic, seed-dependent, in [0, 1] and not flat") {
    for (NoiseKind kind : kAllKinds) {
        CAPTURE(noise_kind_name(kind));
        auto d = def_of(kind);
        auto a = whole(d, 5, 80, 60), b = whole(d, 5, 80, 60), c = whole(d, 6, 80, 60);
        CHECK(a == b);
        CHECK(a != c);
        const auto [lo, hi] = tilegen::test::value_range(a);
        CHECK(lo >= 0.0f);
        CHECK(hi <= 1.0f);
        CHECK(hi - lo > 0.1f);
    }
}

TEST_CASE(
    "position-based kinds: a region alone equals the window of the whole map, modifiers included") {
    const Region r{23, 11, 41, 29};
    for (NoiseKind kind : kAllKinds) {
        CAPTURE(noise_kind_name(kind));
        auto d = def_of(kind);
        CHECK(
            same_window(generate_heightfield(d, 9, 100, 70, r, nullptr), whole(d, 9, 100, 70), r));
        // With every modifier but combine.
        ModifierSettings warp, island, terrace, smooth;
        warp.kind = ModifierKind::warp;
        warp.strength = 6;
        warp.levels = 2;
        island.kind = ModifierKind::island;
        terrace.kind = ModifierKind::terrace;
        smooth.kind = ModifierKind::smooth;
        smooth.smooth_radius = 2;
        d.settings.modifiers = {warp, smooth, island, terrace};
        CHECK(
            same_window(generate_heightfield(d, 9, 100, 70, r, nullptr), whole(d, 9, 100, 70), r));
    }
    CHECK_FALSE(is_position_based(NoiseKind::diamond_square));
    CHECK(is_position_based(NoiseKind::simplex));
}

TEST_CASE("more octaves give more high-frequency energy") {
    for (NoiseKind kind : {NoiseKind::value, NoiseKind::perlin, NoiseKind::simplex}) {
        CAPTURE(noise_kind_name(kind));
        auto one = def_of(kind), six = def_of(kind);
        one.settings.octaves = 1;
        six.settings.octaves = 6;
        CHECK(high_frequency_energy(whole(six, 2, 128, 128)) >
              1.5 * high_frequency_energy(whole(one, 2, 128, 128)));
    }
}

TEST_CASE("ridged noise has sharp crests: steeper second differences at its maxima than fBm") {
    auto fbm = def_of(NoiseKind::simplex), ridged = def_of(NoiseKind::simplex);
    fbm.settings.octaves = ridged.settings.octaves = 1;
    ridged.settings.fractal = Fractal::ridged;
    auto crest = [](const Grid<float>& g) {
        double sum = 0;
        int n = 0;
        for (int y = 0; y < g.height(); ++y)
            for (int x = 1; x + 1 < g.width(); ++x)
                if (g(x, y) > g(x - 1, y) && g(x, y) >= g(x + 1, y)) {
                    sum += std::abs(g(x - 1, y) - 2 * g(x, y) + g(x + 1, y));
                    ++n;
                }
        return sum / std::max(n, 1);
    };
    CHECK(crest(whole(ridged, 3, 256, 64)) > 3 * crest(whole(fbm, 3, 256, 64)));
}

TEST_CASE("Worley: F1 is 0 at a feature point, F2 >= F1, all metrics") {
    const std::uint64_t stream = 77;
    for (std::int64_t cx : {-3, 0, 5})
        for (std::int64_t cy : {-1, 2}) {
            const std::uint64_t h = hash_position(stream, cx, cy);
            const double px = static_cast<double>(cx) + unit_double(h),
                         py = static_cast<double>(cy) + unit_double(mix64(h));
            for (auto dist : {WorleyDistance::euclidean, WorleyDistance::manhattan,
                              WorleyDistance::chebyshev}) {
                CHECK(worley_noise(stream, px, py, WorleyReturn::f1, dist) == 0.0);
                CHECK(worley_noise(stream, px + 0.3, py, WorleyReturn::f1, dist) > 0.0);
            }
        }
    for (int i = 0; i < 200; ++i) {
        const double x = i * 0.37, y = i * 0.11;
        const double f1 = worley_noise(stream, x, y, WorleyReturn::f1, WorleyDistance::euclidean);
        const double f2 = worley_noise(stream, x, y, WorleyReturn::f2, WorleyDistance::euclidean);
        CHECK(f2 >= f1);
        CHECK(worley_noise(stream, x, y, WorleyReturn::f2_minus_f1, WorleyDistance::euclidean) ==
              doctest::Approx(f2 - f1));
        CHECK(worley_noise(stream, x, y, WorleyReturn::f1, WorleyDistance::chebyshev) <=
              worley_noise(stream, x, y, WorleyReturn::f1, WorleyDistance::manhattan));
    }
}

TEST_CASE(
    "island falloff lowers the edges, terrace makes steps, profile is ground below, air above") {
    auto d = def_of(NoiseKind::harmonic);
    ModifierSettings island;
    island.kind = ModifierKind::island;
    island.falloff = 1.0;
    d.settings.modifiers = {island};
    auto g = whole(d, 4, 64, 64);
    double edge = 0, centre = 0;
    for (int i = 0; i < 64; ++i)
        edge += g(i, 0) + g(0, i);
    for (int y = 28; y < 36; ++y)
        for (int x = 28; x < 36; ++x)
            centre += g(x, y);
    CHECK(edge / 128 < 0.25 * centre / 64);

    ModifierSettings terrace;
    terrace.kind = ModifierKind::terrace;
    terrace.steps = 4;
    terrace.sharpness = 1.0;
    d.settings.modifiers = {terrace};
    const auto terraced = whole(d, 4, 64, 64);
    std::set<float> levels(terraced.cells().begin(), terraced.cells().end());
    CHECK(levels.size() <= 4);

    auto p = whole(def_of(NoiseKind::profile), 4, 50, 40);
    for (int x = 0; x < 50; ++x)
        for (int y = 1; y < 40; ++y)
            CHECK(p(x, y) >= p(x, y - 1)); // deeper is higher
}

TEST_CASE("combine reads other maps through the lookup") {
    auto a = def_of(NoiseKind::value);
    ModifierSettings m;
    m.kind = ModifierKind::combine;
    m.map = "flat";
    for (auto [op, expect] :
         {std::pair{CombineOp::min, 0.25f}, std::pair{CombineOp::multiply, 0.0f}}) {
        m.op = op;
        a.settings.modifiers = {m};
        auto g = generate_heightfield(
            a, 1, 20, 20, {0, 0, 20, 20}, [&](const std::string& name, Region r) {
                CHECK(name == "flat");
                return Grid<float>(r.width, r.height, op == CombineOp::min ? 0.25f : 0.0f);
            });
        for (float v : g.cells())
            CHECK(v <= expect);
    }
}

TEST_CASE("white noise: uniform from 0 to 1, independent from cell to cell, position-based") {
    MapDefinition d = def_of(NoiseKind::white);
    const int side = 256;
    const Grid<float> g = whole(d, 3, side, side);
    // A flat histogram: 16 buckets of 4096 expected cells each (standard deviation about 62).
    std::vector<int> buckets(16, 0);
    double mean = 0;
    for (float v : g.cells()) {
        REQUIRE(v >= 0.0f);
        REQUIRE(v < 1.0f);
        ++buckets[static_cast<std::size_t>(v * 16)];
        mean += v;
    }
    mean /= static_cast<double>(g.size());
    CHECK(std::abs(mean - 0.5) < 0.01);
    for (int b : buckets)
        CHECK(std::abs(b - 4096) < 300);
    // No correlation between neighbours, across or down (the standard error is about 1/256).
    auto correlation = [&](int dx, int dy) {
        double sum = 0, count = 0;
        for (int y = 0; y + dy < side; ++y)
            for (int x = 0; x + dx < side; ++x) {
                sum += (g(x, y) - mean) * (g(x + dx, y + dy) - mean);
                count += 1;
            }
        return sum / count / (1.0 / 12.0); // the variance of a uniform value
    };
    CHECK(std::abs(correlation(1, 0)) < 0.02);
    CHECK(std::abs(correlation(0, 1)) < 0.02);
    CHECK(std::abs(correlation(1, 1)) < 0.02);
    // Every neighbour differs: no repeats along rows (24-bit values; a few equal pairs could occur
    // by chance, not hundreds).
    int equal = 0;
    for (int y = 0; y < side; ++y)
        for (int x = 1; x < side; ++x)
            equal += g(x, y) == g(x - 1, y) ? 1 : 0;
    CHECK(equal < 5);
    // Regions anywhere, also off the map, equal the same window of a larger region.
    const Region big{-60, -40, 200, 150}, part{-17, -9, 45, 31};
    const Grid<float> a = generate_heightfield(d, 3, side, side, big, nullptr);
    const Grid<float> b = generate_heightfield(d, 3, side, side, part, nullptr);
    bool same = true;
    for (int y = 0; y < part.height; ++y)
        for (int x = 0; x < part.width; ++x)
            same = same && b(x, y) == a(part.x - big.x + x, part.y - big.y + y);
    CHECK(same);
    CHECK(generate_heightfield(d, 3, side, side, part, nullptr, 4) == b); // threads change nothing
    // Maps of other names (or seeds) draw other values.
    MapDefinition other = d;
    other.name = "other";
    const Grid<float> c = whole(other, 3, side, side);
    int shared = 0;
    for (std::size_t i = 0; i < g.size(); ++i)
        shared += g.cells()[i] == c.cells()[i] ? 1 : 0;
    CHECK(shared < 10);
}
