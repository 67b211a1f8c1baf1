#include "core/heightfield/harmonic_noise.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/hash.hpp"
#include "core/parallel.hpp"

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
                           Region region, int threads) {
    Grid<float> out(region.width, region.height, 0.0f);
    if (region.width <= 0 || region.height <= 0 || map_width <= 0 || map_height <= 0) return out;
    const int octaves = harmonic_octave_count(config, map_width, map_height);

    struct Octave {
        AxisSamples xs, ys;
        std::uint64_t stream;
        float amplitude;
    };
    std::vector<Octave> plan;
    double amplitude = 1.0, total = 0.0;
    for (int k = 0; k < octaves; ++k) {
        const std::int64_t lattice = std::int64_t{1} << std::min(k, 30);
        plan.push_back({sample_axis(region.x, region.width, lattice, map_width, config.interpolation),
                        sample_axis(region.y, region.height, lattice, map_height, config.interpolation),
                        hash_values(seed, 0x6861726dull /* "harm" */, static_cast<std::uint64_t>(k)),
                        static_cast<float>(amplitude)});
        total += amplitude;
        amplitude *= config.persistence;
    }
    const float inv = static_cast<float>(1.0 / total);

    // Each row is computed on its own, octaves in order (so every cell sums identically, whatever the thread
    // count), in a row buffer that stays in cache; each octave keeps its two lattice rows between rows.
    parallel_for(region.height, threads, [&](int y0, int y1) {
        struct Cache {
            std::vector<float> upper, lower, values;
            std::int64_t row = INT64_MIN;
        };
        std::vector<Cache> caches(plan.size());
        for (std::size_t k = 0; k < plan.size(); ++k) {
            const std::size_t lattice_width = static_cast<std::size_t>(plan[k].xs.last - plan[k].xs.first + 1);
            caches[k].upper.resize(lattice_width);
            caches[k].lower.resize(lattice_width);
            caches[k].values.resize(lattice_width);
        }
        std::vector<float> acc(static_cast<std::size_t>(region.width));
        for (int y = y0; y < y1; ++y) {
            std::fill(acc.begin(), acc.end(), 0.0f);
            for (std::size_t k = 0; k < plan.size(); ++k) {
                const Octave& o = plan[k];
                Cache& c = caches[k];
                const std::size_t lattice_width = c.upper.size();
                const std::int64_t ly = o.ys.index[static_cast<std::size_t>(y)];
                if (ly != c.row) {
                    if (ly == c.row + 1) {
                        std::swap(c.upper, c.lower); // the row below becomes the row above
                    } else {
                        for (std::size_t i = 0; i < lattice_width; ++i)
                            c.upper[i] = unit_float(hash_position(o.stream, o.xs.first + static_cast<std::int64_t>(i), ly));
                    }
                    for (std::size_t i = 0; i < lattice_width; ++i)
                        c.lower[i] = unit_float(hash_position(o.stream, o.xs.first + static_cast<std::int64_t>(i), ly + 1));
                    c.row = ly;
                }
                const float wy = o.ys.weight[static_cast<std::size_t>(y)];
                for (std::size_t i = 0; i < lattice_width; ++i) c.values[i] = c.upper[i] + (c.lower[i] - c.upper[i]) * wy;
                const std::int64_t* ix = o.xs.index.data();
                const float* wx = o.xs.weight.data();
                const float* v = c.values.data();
                const std::int64_t first = o.xs.first;
                const float amp = o.amplitude;
                for (int x = 0; x < region.width; ++x) {
                    const std::size_t i = static_cast<std::size_t>(ix[x] - first);
                    acc[static_cast<std::size_t>(x)] += (v[i] + (v[i + 1] - v[i]) * wx[x]) * amp;
                }
            }
            float* dst = out.row(y);
            for (int x = 0; x < region.width; ++x) dst[x] = std::clamp(acc[static_cast<std::size_t>(x)] * inv, 0.0f, 1.0f);
        }
    });
    return out;
}

} // namespace tilegen
