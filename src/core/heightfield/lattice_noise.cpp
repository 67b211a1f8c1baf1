#include "core/heightfield/lattice_noise.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/hash.hpp"
#include "core/heightfield/point_noise.hpp"
#include "core/parallel.hpp"

namespace tilegen {

namespace {

struct Axis {
    std::vector<std::int64_t> index; // lattice cell
    std::vector<double> frac;        // position inside it, [0, 1)
    std::vector<double> weight;      // faded frac
    std::int64_t first = 0, last = 0;
};

// Octave o samples absolute coordinate (c + 0.5) / scale * lacunarity^o (the multiplications done one by one).
Axis axis_for(int start, int count, const NoiseSettings& s, int octave, LatticeInterpolation interp) {
    Axis a;
    a.index.resize(static_cast<std::size_t>(count));
    a.frac.resize(static_cast<std::size_t>(count));
    a.weight.resize(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        double p = (static_cast<double>(start + i) + 0.5) / s.scale;
        for (int o = 0; o < octave; ++o) p *= s.lacunarity;
        const double f = std::floor(p);
        a.index[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(f);
        a.frac[static_cast<std::size_t>(i)] = p - f;
        a.weight[static_cast<std::size_t>(i)] = lattice_fade(p - f, interp);
    }
    if (count > 0) {
        a.first = *std::min_element(a.index.begin(), a.index.end());
        a.last = *std::max_element(a.index.begin(), a.index.end()) + 1;
    }
    return a;
}

} // namespace

Grid<float> lattice_noise(const NoiseSettings& s, std::uint64_t seed, Region region, int threads) {
    Grid<float> out(region.width, region.height, 0.0f);
    if (region.width <= 0 || region.height <= 0) return out;
    const bool perlin = s.kind == NoiseKind::perlin;
    const LatticeInterpolation interp = perlin ? LatticeInterpolation::quintic : s.lattice_interpolation;
    struct Octave {
        Axis xs, ys;
        std::uint64_t stream;
        double amplitude;
    };
    std::vector<Octave> plan;
    double amplitude = 1, total = 0;
    for (int o = 0; o < s.octaves; ++o) {
        plan.push_back({axis_for(region.x, region.width, s, o, interp), axis_for(region.y, region.height, s, o, interp),
                        hash_values(seed, 0x6e6f697365ull /* "noise" */, static_cast<std::uint64_t>(o)), amplitude});
        total += amplitude;
        amplitude *= s.gain;
    }
    parallel_for(region.height, threads, [&](int y0, int y1) {
        struct Cache {
            std::vector<double> a, b, ga, gb; // values (value noise) or gradients (x in a/b, y in ga/gb) of rows iy, iy+1
            std::vector<double> ax, bx;       // gradient x of rows iy, iy+1 (perlin)
            std::int64_t row = INT64_MIN;
        };
        std::vector<Cache> caches(plan.size());
        std::vector<double> acc(static_cast<std::size_t>(region.width));
        for (int y = y0; y < y1; ++y) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (std::size_t k = 0; k < plan.size(); ++k) {
                const Octave& o = plan[k];
                Cache& c = caches[k];
                const std::size_t width = static_cast<std::size_t>(o.xs.last - o.xs.first + 1);
                const std::int64_t iy = o.ys.index[static_cast<std::size_t>(y)];
                if (iy != c.row) {
                    c.a.resize(width);
                    c.b.resize(width);
                    if (perlin) {
                        c.ga.resize(width);
                        c.gb.resize(width);
                    }
                    for (std::size_t i = 0; i < width; ++i) {
                        const std::int64_t ix = o.xs.first + static_cast<std::int64_t>(i);
                        if (perlin) {
                            lattice_gradient(o.stream, ix, iy, c.a[i], c.ga[i]);
                            lattice_gradient(o.stream, ix, iy + 1, c.b[i], c.gb[i]);
                        } else {
                            c.a[i] = lattice_value(o.stream, ix, iy);
                            c.b[i] = lattice_value(o.stream, ix, iy + 1);
                        }
                    }
                    c.row = iy;
                }
                const double ty = o.ys.weight[static_cast<std::size_t>(y)], fy = o.ys.frac[static_cast<std::size_t>(y)];
                for (int x = 0; x < region.width; ++x) {
                    const auto xi = static_cast<std::size_t>(x);
                    const std::size_t i = static_cast<std::size_t>(o.xs.index[xi] - o.xs.first);
                    const double tx = o.xs.weight[xi];
                    double n;
                    if (perlin) {
                        const double fx = o.xs.frac[xi];
                        const double n00 = c.a[i] * fx + c.ga[i] * fy;
                        const double n10 = c.a[i + 1] * (fx - 1) + c.ga[i + 1] * fy;
                        const double n01 = c.b[i] * fx + c.gb[i] * (fy - 1);
                        const double n11 = c.b[i + 1] * (fx - 1) + c.gb[i + 1] * (fy - 1);
                        const double top = n00 + (n10 - n00) * tx, bottom = n01 + (n11 - n01) * tx;
                        n = std::clamp((top + (bottom - top) * ty) * std::numbers::sqrt2, -1.0, 1.0);
                    } else {
                        const double top = c.a[i] + (c.a[i + 1] - c.a[i]) * tx;
                        const double bottom = c.b[i] + (c.b[i + 1] - c.b[i]) * tx;
                        n = top + (bottom - top) * ty;
                    }
                    switch (s.fractal) {
                    case Fractal::fbm: break;
                    case Fractal::ridged: n = 1.0 - 2.0 * std::abs(n); n = n >= 0 ? n * n * 2.0 - 1.0 : -1.0; break;
                    case Fractal::billow: n = 2.0 * std::abs(n) - 1.0; break;
                    }
                    acc[xi] += n * o.amplitude;
                }
            }
            float* dst = out.row(y);
            for (int x = 0; x < region.width; ++x)
                dst[x] = static_cast<float>(std::clamp((acc[static_cast<std::size_t>(x)] / total + 1.0) * 0.5, 0.0, 1.0));
        }
    });
    return out;
}

} // namespace tilegen
