// Row-by-row lattice noise (value, Perlin) and the one-level warp built on it: every variant keeps
// the position-based invariants (a region equals the window of the whole map, any thread count
// gives the same bits).
#include <doctest/doctest.h>

#include "core/heightfield/noise_stats.hpp"

#include <cmath>
#include <vector>

#include "core/heightfield/heightfield.hpp"
#include "core/heightfield/lattice_noise.hpp"
#include "core/heightfield/point_noise.hpp"

using namespace tilegen;

namespace {

bool same_window(const Grid<float>& part, const Grid<float>& all, int ox, int oy) {
    for (int y = 0; y < part.height(); ++y)
        for (int x = 0; x < part.width(); ++x)
            if (part(x, y) != all(ox + x, oy + y)) return false;
    return true;
}

std::vector<NoiseSettings> lattice_variants() {
    std::vector<NoiseSettings> out;
    for (NoiseKind kind : {NoiseKind::value, NoiseKind::perlin})
        for (Fractal fractal : {Fractal::fbm, Fractal::ridged, Fractal::billow}) {
            NoiseSettings s;
            s.kind = kind;
            s.fractal = fractal;
            // Lattice cells from 13 columns wide down to about half a column (short spans, several
            // spans per block, lattice columns skipped between cells).
            s.scale = 13;
            s.octaves = 6;
            s.lacunarity = 2.3;
            out.push_back(s);
        }
    for (LatticeInterpolation interp : {LatticeInterpolation::linear, LatticeInterpolation::cosine,
                                        LatticeInterpolation::cubic}) {
        NoiseSettings s;
        s.kind = NoiseKind::value;
        s.lattice_interpolation = interp;
        s.scale = 7.5;
        s.octaves = 3;
        out.push_back(s);
    }
    return out;
}

MapDefinition warped(NoiseKind kind, std::vector<ModifierSettings> modifiers) {
    MapDefinition d;
    d.name = "elevation";
    d.settings.kind = kind;
    d.settings.scale = 24;
    d.settings.octaves = 4;
    d.settings.modifiers = std::move(modifiers);
    return d;
}

ModifierSettings warp(double strength) {
    ModifierSettings w;
    w.kind = ModifierKind::warp;
    w.strength = strength;
    w.warp_scale = 20;
    return w;
}

} // namespace

TEST_CASE("lattice noise: every fractal and interpolation is in [0, 1], position-based and "
          "thread-independent") {
    for (const NoiseSettings& s : lattice_variants()) {
        CAPTURE(noise_kind_name(s.kind));
        CAPTURE(static_cast<int>(s.fractal));
        CAPTURE(static_cast<int>(s.lattice_interpolation));
        const Grid<float> all = lattice_noise(s, 11, {-40, -25, 150, 90}, 1);
        const auto [lo, hi] = tilegen::test::value_range(all);
        CHECK(lo >= 0.0f);
        CHECK(hi <= 1.0f);
        CHECK(hi - lo > 0.2f);
        CHECK(lattice_noise(s, 11, {-40, -25, 150, 90}, 3) == all);
        // Windows starting anywhere (negative coordinates, inside a lattice cell, one column wide).
        for (Region r : {Region{-37, -20, 61, 33}, Region{5, 7, 1, 40}, Region{64, 1, 46, 64}})
            CHECK(same_window(lattice_noise(s, 11, r, 2), all, r.x + 40, r.y + 25));
    }
}

TEST_CASE("lattice noise: rows one at a time, in any order, equal the grid") {
    NoiseSettings s;
    s.kind = NoiseKind::perlin;
    s.scale = 9;
    s.octaves = 4;
    const Region r{-3, 10, 70, 30};
    const Grid<float> all = lattice_noise(s, 5, r, 1);
    LatticeRows rows(s, 5, r.x, r.width);
    CHECK(rows.width() == r.width);
    std::vector<float> row(static_cast<std::size_t>(r.width));
    bool same = true;
    for (int y : {29, 0, 1, 2, 17, 16, 28, 29, 5}) {
        rows.row(r.y + y, row.data());
        for (int x = 0; x < r.width; ++x)
            same = same && row[static_cast<std::size_t>(x)] == all(x, y);
    }
    CHECK(same);
}

TEST_CASE("lattice noise matches the point functions up to float rounding") {
    for (NoiseKind kind : {NoiseKind::value, NoiseKind::perlin}) {
        CAPTURE(noise_kind_name(kind));
        NoiseSettings s;
        s.kind = kind;
        s.scale = 17;
        s.octaves = 4;
        const Grid<float> g = lattice_noise(s, 3, {-20, 30, 60, 40}, 1);
        double worst = 0;
        for (int y = 0; y < g.height(); ++y)
            for (int x = 0; x < g.width(); ++x)
                worst = std::max(
                    worst, std::abs(g(x, y) - fractal_noise(s, 3, -20 + x + 0.5, 30 + y + 0.5)));
        CHECK(worst < 1e-5);
    }
}

TEST_CASE("one-level warp: regions equal the whole map's window, at any thread count, whatever "
          "follows it") {
    ModifierSettings smooth, island;
    smooth.kind = ModifierKind::smooth;
    smooth.smooth_radius = 2;
    island.kind = ModifierKind::island;
    // Lattice bases warped first are streamed (no base grid); other bases, and warps after other
    // modifiers, warp a grid. Both must give the same kind of guarantees.
    const std::vector<std::vector<ModifierSettings>> chains = {
        {warp(8)}, {warp(3.5), smooth, island}, {smooth, warp(5)}, {warp(6), warp(2)}, {warp(40)}};
    for (NoiseKind kind :
         {NoiseKind::perlin, NoiseKind::value, NoiseKind::simplex, NoiseKind::harmonic})
        for (std::size_t c = 0; c < chains.size(); ++c) {
            CAPTURE(noise_kind_name(kind));
            CAPTURE(c);
            const MapDefinition d = warped(kind, chains[c]);
            const Grid<float> all =
                generate_heightfield(d, 9, 120, 90, {0, 0, 120, 90}, nullptr, 1);
            CHECK(generate_heightfield(d, 9, 120, 90, {0, 0, 120, 90}, nullptr, 3) == all);
            const Region r{37, 21, 50, 44};
            CHECK(same_window(generate_heightfield(d, 9, 120, 90, r, nullptr, 2), all, r.x, r.y));
            const auto [lo, hi] = tilegen::test::value_range(all);
            CHECK(lo >= 0.0f);
            CHECK(hi <= 1.0f);
        }
}

TEST_CASE("one-level warp moves features by about its strength, and strength 0 changes nothing") {
    const MapDefinition plain = warped(NoiseKind::perlin, {});
    const Grid<float> base = generate_heightfield(plain, 4, 96, 96, {0, 0, 96, 96}, nullptr);
    CHECK(generate_heightfield(warped(NoiseKind::perlin, {warp(0)}), 4, 96, 96, {0, 0, 96, 96},
                               nullptr) == base);
    double weak = 0, strong = 0;
    const Grid<float> a = generate_heightfield(warped(NoiseKind::perlin, {warp(1)}), 4, 96, 96,
                                               {0, 0, 96, 96}, nullptr);
    const Grid<float> b = generate_heightfield(warped(NoiseKind::perlin, {warp(10)}), 4, 96, 96,
                                               {0, 0, 96, 96}, nullptr);
    for (std::size_t i = 0; i < base.size(); ++i) {
        weak += std::abs(a.cells()[i] - base.cells()[i]);
        strong += std::abs(b.cells()[i] - base.cells()[i]);
    }
    CHECK(weak > 0);
    CHECK(strong > 3 * weak);
}
