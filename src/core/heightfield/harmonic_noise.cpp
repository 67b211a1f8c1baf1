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

// Cell centre c + 0.5 in map units maps to lattice coordinate (c + 0.5) * n / size - 0.5, as in
// image resizing. Computed in integers and exact binary fractions so every build gives the same
// weights.
AxisSamples sample_axis(int start, int count, std::int64_t lattice, int size,
                        Interpolation interp) {
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
        if (interp == Interpolation::smoothstep) t = t * t * (3.0 - 2.0 * t);
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
    while ((1ll << k) < side)
        ++k;
    return k + 1; // lattices 1, 2, 4, ..., 2^k >= side
}

namespace {

// Columns are computed in blocks of this many; a span's last block runs past its end into the next
// span's columns, which that span then overwrites (spans go left to right), or into the padding.
constexpr int kBlock = 4;

// Per lattice cell crossed by a row of the region (a span): its columns [begin, end) and its left
// lattice column, relative to the octave's first.
struct Spans {
    std::vector<int> begin, end;
    std::vector<std::size_t> left;
};

Spans spans_of(const AxisSamples& xs) {
    Spans s;
    for (std::size_t x = 0; x < xs.index.size(); ++x)
        if (x == 0 || xs.index[x] != xs.index[x - 1]) {
            if (x > 0) s.end.push_back(static_cast<int>(x));
            s.begin.push_back(static_cast<int>(x));
            s.left.push_back(static_cast<std::size_t>(xs.index[x] - xs.first));
        }
    if (!xs.index.empty()) s.end.push_back(static_cast<int>(xs.index.size()));
    return s;
}

// n[x] = v[i] + (v[i + 1] - v[i]) * wx[x], a lattice cell at a time (v[i] and the difference held
// constant).
void span_cells(float* __restrict n, const float* __restrict wx, const float* __restrict v,
                const Spans& s) {
    const int* begin = s.begin.data();
    const int* end = s.end.data();
    const std::size_t* left = s.left.data();
    for (std::size_t k = 0; k < s.begin.size(); ++k) {
        const float v0 = v[left[k]], d = v[left[k] + 1] - v[left[k]];
        for (int x = begin[k]; x < end[k]; x += kBlock)
            for (int j = x; j < x + kBlock; ++j)
                n[j] = v0 + d * wx[j];
    }
}

// acc[x] += (v[i] + (v[i + 1] - v[i]) * wx[x]) * amplitude in one pass, for octaves with long spans
// (the exact column range of each span: its loop vectorises with a short remainder).
void span_accumulate(float* __restrict acc, const float* __restrict wx, const float* __restrict v,
                     const Spans& s, float amplitude) {
    const int* begin = s.begin.data();
    const int* end = s.end.data();
    const std::size_t* left = s.left.data();
    for (std::size_t k = 0; k < s.begin.size(); ++k) {
        const float v0 = v[left[k]], d = v[left[k] + 1] - v[left[k]];
        for (int x = begin[k]; x < end[k]; ++x)
            acc[x] += (v0 + d * wx[x]) * amplitude;
    }
}

// Octaves whose lattice points fall on the cells (lattice as fine as the map: weights 0, one
// lattice column per column): v[i] + (v[i + 1] - v[i]) * 0 is v[i] (values are >= 0, so adding a
// zero of either sign keeps them).
void aligned_accumulate(float* __restrict acc, const float* __restrict v, int width,
                        float amplitude) {
    for (int x = 0; x < width; ++x)
        acc[x] += v[x] * amplitude;
}

// The same per cell, for octaves whose lattice cells are about a cell wide or less.
void gathered_accumulate(float* __restrict acc, const float* __restrict wx,
                         const float* __restrict v, const std::size_t* __restrict cell, int width,
                         float amplitude) {
    for (int x = 0; x < width; ++x) {
        const std::size_t i = cell[x];
        acc[x] += (v[i] + (v[i + 1] - v[i]) * wx[x]) * amplitude;
    }
}

void accumulate(float* __restrict acc, const float* __restrict n, int width, float amplitude) {
    for (int x = 0; x < width; ++x)
        acc[x] += n[x] * amplitude;
}

// upper + (lower - upper) * wy per lattice column.
void blend_rows(float* __restrict v, const float* __restrict upper, const float* __restrict lower,
                std::size_t n, float wy) {
    for (std::size_t i = 0; i < n; ++i)
        v[i] = upper[i] + (lower[i] - upper[i]) * wy;
}

// unit_float of each lattice point's hash (converted through a signed integer: the same value,
// without the unsigned 64-bit conversion's extra steps).
void hash_row(float* __restrict dst, std::uint64_t stream, std::int64_t first, std::int64_t y,
              std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t h = hash_position(stream, first + static_cast<std::int64_t>(i), y);
        dst[i] = static_cast<float>(static_cast<std::int32_t>(h >> 40)) * (1.0f / 16777216.0f);
    }
    static_assert(unit_float(~0ull) == static_cast<float>(static_cast<std::int32_t>(~0ull >> 40)) *
                                           (1.0f / 16777216.0f));
}

} // namespace

Grid<float> harmonic_noise(const HarmonicNoiseConfig& config, std::uint64_t seed, int map_width,
                           int map_height, Region region, int threads) {
    if (region.width <= 0 || region.height <= 0 || map_width <= 0 || map_height <= 0)
        return Grid<float>(std::max(region.width, 0), std::max(region.height, 0), 0.0f);
    // Rows are zeroed by the thread that computes them (so pages are first touched in parallel).
    Grid<float> out = Grid<float>::uninitialised(region.width, region.height);
    const int octaves = harmonic_octave_count(config, map_width, map_height);

    struct Octave {
        AxisSamples xs, ys;
        std::uint64_t stream;
        float amplitude;
        Spans spans;
        std::vector<float> wx; // xs.weight padded to whole blocks
        std::vector<std::size_t>
            cell; // per column: lattice column relative to xs.first (gathered octaves)
        // Columns per lattice cell: exactly 1 on the lattice points, under 2, under 8, 8 or more.
        enum { aligned, gathered, blocks, spans_long } mode;
    };
    std::vector<Octave> plan;
    double amplitude = 1.0, total = 0.0;
    const auto padded = static_cast<std::size_t>(region.width + kBlock);
    for (int k = 0; k < octaves; ++k) {
        const std::int64_t lattice = std::int64_t{1} << std::min(k, 30);
        Octave o{sample_axis(region.x, region.width, lattice, map_width, config.interpolation),
                 sample_axis(region.y, region.height, lattice, map_height, config.interpolation),
                 hash_values(seed, 0x6861726dull /* "harm" */, static_cast<std::uint64_t>(k)),
                 static_cast<float>(amplitude),
                 {},
                 {},
                 {},
                 Octave::blocks};
        o.spans = spans_of(o.xs);
        const std::size_t spans = o.spans.begin.size(),
                          width = static_cast<std::size_t>(region.width);
        o.mode = 2 * spans > width   ? Octave::gathered
                 : 8 * spans > width ? Octave::blocks
                                     : Octave::spans_long;
        bool on_points = o.mode == Octave::gathered;
        for (std::size_t x = 0; on_points && x < width; ++x)
            on_points = o.xs.weight[x] == 0.0f &&
                        o.xs.index[x] == o.xs.first + static_cast<std::int64_t>(x);
        if (on_points) o.mode = Octave::aligned;
        o.wx = o.xs.weight;
        o.wx.resize(padded, 0.0f);
        if (o.mode == Octave::gathered)
            for (std::int64_t i : o.xs.index)
                o.cell.push_back(static_cast<std::size_t>(i - o.xs.first));
        plan.push_back(std::move(o));
        total += amplitude;
        amplitude *= config.persistence;
    }
    const float inv = static_cast<float>(1.0 / total);

    // Each row is computed on its own, octaves in order (so every cell sums identically, whatever
    // the thread count), accumulated in the output row; each octave keeps its two lattice rows
    // between rows. Per octave and row the lattice rows are blended along y once per lattice
    // column; each cell is then one multiply-add on the blended values of its lattice cell.
    parallel_for(region.height, threads, [&](int y0, int y1) {
        struct Cache {
            std::vector<float> upper, lower, values;
            std::int64_t row = INT64_MIN;
        };
        std::vector<Cache> caches(plan.size());
        for (std::size_t k = 0; k < plan.size(); ++k) {
            const std::size_t lattice_width =
                static_cast<std::size_t>(plan[k].xs.last - plan[k].xs.first + 1);
            caches[k].upper.resize(lattice_width);
            caches[k].lower.resize(lattice_width);
            caches[k].values.resize(lattice_width);
        }
        std::vector<float> n(padded);
        for (int y = y0; y < y1; ++y) {
            float* acc = out.row(y);
            std::fill(acc, acc + region.width, 0.0f);
            for (std::size_t k = 0; k < plan.size(); ++k) {
                const Octave& o = plan[k];
                Cache& c = caches[k];
                const std::size_t lattice_width = c.upper.size();
                const std::int64_t ly = o.ys.index[static_cast<std::size_t>(y)];
                if (ly != c.row) {
                    if (ly == c.row + 1)
                        std::swap(c.upper, c.lower); // the row below becomes the row above
                    else
                        hash_row(c.upper.data(), o.stream, o.xs.first, ly, lattice_width);
                    hash_row(c.lower.data(), o.stream, o.xs.first, ly + 1, lattice_width);
                    c.row = ly;
                }
                // Weight 0 (rows on lattice points): the blend is the upper row itself, as above.
                const float wy = o.ys.weight[static_cast<std::size_t>(y)];
                const float* values = c.upper.data();
                if (wy != 0.0f) {
                    blend_rows(c.values.data(), c.upper.data(), c.lower.data(), lattice_width, wy);
                    values = c.values.data();
                }
                switch (o.mode) {
                case Octave::aligned:
                    aligned_accumulate(acc, values, region.width, o.amplitude);
                    break;
                case Octave::gathered:
                    gathered_accumulate(acc, o.wx.data(), values, o.cell.data(), region.width,
                                        o.amplitude);
                    break;
                case Octave::blocks:
                    span_cells(n.data(), o.wx.data(), values, o.spans);
                    accumulate(acc, n.data(), region.width, o.amplitude);
                    break;
                case Octave::spans_long:
                    span_accumulate(acc, o.wx.data(), values, o.spans, o.amplitude);
                    break;
                }
            }
            for (int x = 0; x < region.width; ++x)
                acc[x] = std::clamp(acc[x] * inv, 0.0f, 1.0f);
        }
    });
    return out;
}

} // namespace tilegen
