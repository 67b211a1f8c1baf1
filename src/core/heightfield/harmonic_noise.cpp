#include "core/heightfield/harmonic_noise.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/hash.hpp"

namespace tilegen {

namespace {

// For one axis: each output cell's lower lattice index and interpolation weight.
struct AxisSamples {
    std::vector<std::int64_t> index; // lower lattice point
    std::vector<float> weight;       // weight of the upper lattice point, in [0, 1)
    std::int64_t first = 0;          // smallest lattice index used
    std::int64_t last = 0;           // largest lattice index used (index + 1)
};

// Cell centre c + 0.5 in map units maps to lattice coordinate (c + 0.5) * n / size - 0.5, as in image resizing.
// Computed in integers and exact binary fractions so every build gives the same weights.
AxisSamples sample_axis(int start, int count, std::int64_t lattice, int size, Interpolation interp) {
    AxisSamples s;
    s.index.resize(static_cast<std::size_t>(count));
    s.weight.resize(static_cast<std::size_t>(count));
    const std::int64_t denom = 2 * static_cast<std::int64_t>(size);
    for (int i = 0; i < count; ++i) {
        // numerator of (2c + 1) * n - size over 2 * size
        std::int64_t c = start + i;
        std::int64_t num = (2 * c + 1) * lattice - size;
        std::int64_t fl = num >= 0 ? num / denom : -((-num + denom - 1) / denom);
        std::int64_t rem = num - fl * denom;
        double t = static_cast<double>(rem) / static_cast<double>(denom);
        if (interp == Interpolation::bicubic) t = t * t * (3.0 - 2.0 * t);
        s.index[static_cast<std::size_t>(i)] = fl;
        s.weight[static_cast<std::size_t>(i)] = static_cast<float>(t);
    }
    if (count > 0) {
        s.first = s.index.front();
        s.last = s.index.back() + 1;
    }
    return s;
}

} // namespace

int harmonic_octave_count(const HarmonicNoiseConfig& config, int map_width, int map_height) {
    if (config.octaves > 0) return config.octaves;
    int side = std::max(map_width, map_height);
    int k = 0;
    while ((1ll << k) < side) ++k;
    return k + 1; // lattices 1, 2, 4, ..., 2^k >= side
}

Grid<float> harmonic_noise(const HarmonicNoiseConfig& config, std::uint64_t seed, int map_width, int map_height,
                           Region region) {
    Grid<float> out(region.width, region.height, 0.0f);
    if (region.width <= 0 || region.height <= 0 || map_width <= 0 || map_height <= 0) return out;
    const int octaves = harmonic_octave_count(config, map_width, map_height);

    double amplitude = 1.0, total = 0.0;
    std::vector<float> row_values; // one lattice row, vertically interpolated, for the current output row
    for (int k = 0; k < octaves; ++k) {
        const std::int64_t lattice = std::int64_t{1} << std::min(k, 30);
        const auto xs = sample_axis(region.x, region.width, lattice, map_width, config.interpolation);
        const auto ys = sample_axis(region.y, region.height, lattice, map_height, config.interpolation);
        const std::uint64_t stream = hash_values(seed, 0x6861726dull /* "harm" */, static_cast<std::uint64_t>(k));
        const float amp = static_cast<float>(amplitude);
        const std::size_t lattice_width = static_cast<std::size_t>(xs.last - xs.first + 1);
        std::vector<float> upper(lattice_width), lower(lattice_width);
        std::int64_t cached_row = INT64_MIN;
        for (int y = 0; y < region.height; ++y) {
            const std::int64_t ly = ys.index[static_cast<std::size_t>(y)];
            if (ly != cached_row) {
                for (std::size_t i = 0; i < lattice_width; ++i) {
                    const std::int64_t lx = xs.first + static_cast<std::int64_t>(i);
                    upper[i] = unit_float(hash_position(stream, lx, ly));
                    lower[i] = unit_float(hash_position(stream, lx, ly + 1));
                }
                cached_row = ly;
            }
            const float wy = ys.weight[static_cast<std::size_t>(y)];
            row_values.resize(lattice_width);
            for (std::size_t i = 0; i < lattice_width; ++i) row_values[i] = upper[i] + (lower[i] - upper[i]) * wy;
            float* dst = out.row(y);
            for (int x = 0; x < region.width; ++x) {
                const std::size_t i = static_cast<std::size_t>(xs.index[static_cast<std::size_t>(x)] - xs.first);
                const float wx = xs.weight[static_cast<std::size_t>(x)];
                const float v = row_values[i] + (row_values[i + 1] - row_values[i]) * wx;
                dst[x] += v * amp;
            }
        }
        total += amplitude;
        amplitude *= config.persistence;
    }
    const float inv = static_cast<float>(1.0 / total);
    for (float& v : out.cells()) v = std::clamp(v * inv, 0.0f, 1.0f);
    return out;
}

} // namespace tilegen
