// Row-by-row simplex and Worley noise against the per-point reference (fractal_noise in
// point_noise.hpp, the plain definition): every cell must have the reference's bits exactly, for
// every fractal, Worley return and distance, scales from a cell to many, odd lacunarities, regions
// anywhere (negative coordinates, far out), any thread count and any row order.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/heightfield/heightfield.hpp"
#include "core/heightfield/point_noise.hpp"
#include "core/heightfield/point_noise_rows.hpp"

using namespace tilegen;

namespace {

std::uint32_t bits(float v) {
    std::uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

// The number of cells of g (covering region) whose bits differ from the reference's.
int differences(const Grid<float>& g, const NoiseSettings& s, std::uint64_t seed, Region region) {
    const std::vector<std::uint64_t> streams = octave_streams(seed, s.octaves);
    int different = 0;
    for (int y = 0; y < region.height; ++y)
        for (int x = 0; x < region.width; ++x) {
            const auto expected = static_cast<float>(
                fractal_noise(s, streams, region.x + x + 0.5, region.y + y + 0.5));
            different += bits(g(x, y)) != bits(expected) ? 1 : 0;
        }
    return different;
}

std::vector<NoiseSettings> variants() {
    std::vector<NoiseSettings> out;
    auto add = [&out](NoiseKind kind, double scale, int octaves, double lacunarity, double gain,
                      Fractal fractal) {
        NoiseSettings s;
        s.kind = kind;
        s.scale = scale;
        s.octaves = octaves;
        s.lacunarity = lacunarity;
        s.gain = gain;
        s.fractal = fractal;
        out.push_back(s);
        return &out.back();
    };
    for (NoiseKind kind : {NoiseKind::simplex, NoiseKind::worley})
        for (Fractal fractal : {Fractal::fbm, Fractal::ridged, Fractal::billow}) {
            // Cells many columns wide down to below one column (spans of one column, lattice
            // columns skipped), lacunarity 1 (octaves on the same lattice) and 8.
            add(kind, 13, 6, 2.3, 0.5, fractal);
            add(kind, 1, 2, 8, 0.9, fractal);
            add(kind, 64, 3, 1, 0.5, fractal);
            add(kind, 3.3, 4, 1.7, 1, fractal);
        }
    for (WorleyReturn ret : {WorleyReturn::f1, WorleyReturn::f2, WorleyReturn::f2_minus_f1})
        for (WorleyDistance dist :
             {WorleyDistance::euclidean, WorleyDistance::manhattan, WorleyDistance::chebyshev}) {
            NoiseSettings* s = add(NoiseKind::worley, 7.5, 3, 2, 0.5, Fractal::fbm);
            s->worley_return = ret;
            s->worley_distance = dist;
            s = add(NoiseKind::worley, 2.2, 2, 3, 0.4, Fractal::ridged);
            s->worley_return = ret;
            s->worley_distance = dist;
        }
    return out;
}

// The region's rows from a PointNoiseRows with the four-lane kernels (where the processor has
// them) or the two-lane ones.
Grid<float> rows_grid(const NoiseSettings& s, std::uint64_t seed, Region r, bool wide) {
    Grid<float> g(r.width, r.height);
    PointNoiseRows rows(s, seed, r.x, r.width, wide);
    for (int y = 0; y < r.height; ++y)
        rows.row(r.y + y, g.row(y));
    return g;
}

} // namespace

TEST_CASE("simplex and Worley rows: every cell has the per-point reference's bits") {
    const std::string lanes = PointNoiseRows::wide_kernels_available()
                                  ? "four-lane (AVX2) and two-lane kernels tested"
                                  : "two-lane kernels tested (no AVX2 here)";
    MESSAGE(lanes);
    const std::vector<Region> regions = {
        {-40, -25, 97, 61}, // negative coordinates, an odd width
        {5, 7, 1, 9},       // one column
        {1000, -3000, 64, 3},
    };
    for (const NoiseSettings& s : variants()) {
        CAPTURE(noise_kind_name(s.kind));
        CAPTURE(s.scale);
        CAPTURE(s.lacunarity);
        CAPTURE(static_cast<int>(s.fractal));
        CAPTURE(static_cast<int>(s.worley_return));
        CAPTURE(static_cast<int>(s.worley_distance));
        for (const Region& r : regions) {
            CAPTURE(r.x);
            CAPTURE(r.width);
            CHECK(differences(point_noise_grid(s, 11, r, 1), s, 11, r) == 0);
            CHECK(differences(rows_grid(s, 11, r, false), s, 11, r) == 0); // two lanes
        }
        CHECK(point_noise_grid(s, 11, regions[0], 3) == point_noise_grid(s, 11, regions[0], 1));
    }
}

TEST_CASE("simplex and Worley rows: wide rows at the benchmark's settings match the reference") {
    // Whole chunks of simplex columns and long Worley spans, as `tilegen bench` runs them.
    for (NoiseKind kind : {NoiseKind::simplex, NoiseKind::worley}) {
        CAPTURE(noise_kind_name(kind));
        NoiseSettings s;
        s.kind = kind;
        s.scale = 64;
        s.octaves = 5;
        const Region r{-700, 300, 1500, 12};
        CHECK(differences(point_noise_grid(s, 7, r, 2), s, 7, r) == 0);
        CHECK(differences(rows_grid(s, 7, r, false), s, 7, r) == 0);
    }
}

TEST_CASE("simplex rows far from the origin (past the fast floor's range) match the reference") {
    for (NoiseKind kind : {NoiseKind::simplex, NoiseKind::worley}) {
        CAPTURE(noise_kind_name(kind));
        NoiseSettings s;
        s.kind = kind;
        s.scale = 1;
        s.octaves = 3;
        s.lacunarity = 2;
        // x / scale = 2^30 and more: simplex falls back to the reference for those octaves.
        const Region r{(1 << 30) - 5, -((1 << 29) + 3), 12, 4};
        CHECK(differences(point_noise_grid(s, 5, r, 1), s, 5, r) == 0);
        CHECK(differences(rows_grid(s, 5, r, false), s, 5, r) == 0);
    }
}

TEST_CASE("simplex and Worley rows one at a time, in any order, equal the grid") {
    for (NoiseKind kind : {NoiseKind::simplex, NoiseKind::worley}) {
        CAPTURE(noise_kind_name(kind));
        NoiseSettings s;
        s.kind = kind;
        s.scale = 9;
        s.octaves = 4;
        const Region r{-3, 10, 70, 30};
        const Grid<float> all = point_noise_grid(s, 5, r, 1);
        PointNoiseRows rows(s, 5, r.x, r.width);
        std::vector<float> row(static_cast<std::size_t>(r.width));
        bool same = true;
        for (int y : {29, 0, 1, 2, 17, 16, 28, 29, 5}) {
            rows.row(r.y + y, row.data());
            for (int x = 0; x < r.width; ++x)
                same = same && bits(row[static_cast<std::size_t>(x)]) == bits(all(x, y));
        }
        CHECK(same);
    }
}

TEST_CASE("heightfields of kind simplex and worley are the row noise") {
    for (NoiseKind kind : {NoiseKind::simplex, NoiseKind::worley}) {
        MapDefinition d;
        d.name = "elevation";
        d.settings.kind = kind;
        d.settings.scale = 10;
        d.settings.octaves = 3;
        const Region r{0, 0, 40, 30};
        const Grid<float> g = generate_heightfield(d, 3, 40, 30, r, nullptr, 2);
        CHECK(differences(g, d.settings, map_seed(d, 3), r) == 0);
    }
}
