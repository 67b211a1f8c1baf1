#include <doctest/doctest.h>

#include "core/heightfield/noise_stats.hpp"

#include <cmath>

#include "core/heightfield/harmonic_noise.hpp"

using namespace tilegen;
using tilegen::test::high_frequency_energy;

namespace {} // namespace

TEST_CASE("harmonic noise is in [0, 1], deterministic, and depends on the seed") {
    HarmonicNoiseConfig cfg;
    auto a = harmonic_noise(cfg, 42, 100, 70, {0, 0, 100, 70});
    auto b = harmonic_noise(cfg, 42, 100, 70, {0, 0, 100, 70});
    auto c = harmonic_noise(cfg, 43, 100, 70, {0, 0, 100, 70});
    CHECK(a == b);
    CHECK(a != c);
    const auto [lo, hi] = tilegen::test::value_range(a);
    CHECK(lo >= 0.0f);
    CHECK(hi <= 1.0f);
    CHECK(hi - lo > 0.2f); // not flat
}

TEST_CASE("a region computed alone equals the same window of the whole map") {
    for (auto interp : {Interpolation::bilinear, Interpolation::smoothstep}) {
        HarmonicNoiseConfig cfg;
        cfg.interpolation = interp;
        auto whole = harmonic_noise(cfg, 9, 257, 130, {0, 0, 257, 130});
        Region r{61, 17, 90, 50};
        auto part = harmonic_noise(cfg, 9, 257, 130, r);
        bool same = true;
        for (int y = 0; y < r.height; ++y)
            for (int x = 0; x < r.width; ++x)
                same = same && part(x, y) == whole(r.x + x, r.y + y);
        CHECK(same);
    }
}

TEST_CASE("regions beyond the map continue the noise without a seam") {
    HarmonicNoiseConfig cfg;
    auto left = harmonic_noise(cfg, 5, 64, 64, {0, 0, 64, 64});
    auto right = harmonic_noise(cfg, 5, 64, 64, {64, 0, 64, 64});
    double seam = 0, inside = 0;
    for (int y = 0; y < 64; ++y) {
        seam += std::abs(right(0, y) - left(63, y));
        inside += std::abs(left(63, y) - left(62, y));
    }
    CHECK(seam < 3 * inside + 0.5);
}

TEST_CASE("more octaves give more high-frequency energy, smoothstep is smoother than bilinear") {
    HarmonicNoiseConfig few, many;
    few.octaves = 3;
    many.octaves = 0;
    auto a = harmonic_noise(few, 1, 128, 128, {0, 0, 128, 128});
    auto b = harmonic_noise(many, 1, 128, 128, {0, 0, 128, 128});
    CHECK(high_frequency_energy(b) > 1.5 * high_frequency_energy(a));
    CHECK(harmonic_octave_count(many, 128, 100) == 8); // 1, 2, ..., 128
    CHECK(harmonic_octave_count(many, 129, 1) == 9);

    // Second differences are smaller with s-curve weights at the same octaves.
    HarmonicNoiseConfig lin = few, cub = few;
    lin.interpolation = Interpolation::bilinear;
    auto l = harmonic_noise(lin, 3, 128, 128, {0, 0, 128, 128});
    auto c = harmonic_noise(cub, 3, 128, 128, {0, 0, 128, 128});
    CHECK(l != c);
}

TEST_CASE("persistence weights the octaves") {
    HarmonicNoiseConfig smooth, rough;
    smooth.persistence = 0.3;
    rough.persistence = 0.9;
    auto s = harmonic_noise(smooth, 2, 128, 128, {0, 0, 128, 128});
    auto r = harmonic_noise(rough, 2, 128, 128, {0, 0, 128, 128});
    CHECK(high_frequency_energy(r) > 2 * high_frequency_energy(s));
}
