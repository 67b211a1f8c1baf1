#include "core/heightfield/lattice_noise.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <utility>

#include "core/hash.hpp"
#include "core/heightfield/point_noise.hpp"
#include "core/parallel.hpp"

namespace tilegen {

namespace {

// Columns are computed in blocks of this many (one SSE register of floats); a span's last block
// runs past its end into the next span's columns, which that span then overwrites (spans go left to
// right), or into the padding.
constexpr int kBlock = 4;

// Octave o samples absolute coordinate (c + 0.5) / scale * lacunarity^o (the multiplications done
// one by one).
double lattice_coordinate(int c, double scale, double lacunarity, int octave) {
    double p = (static_cast<double>(c) + 0.5) / scale;
    for (int o = 0; o < octave; ++o)
        p *= lacunarity;
    return p;
}

// c ? a : b without a branch. Comparisons written as selects (rather than std::min, std::max or ?:)
// let gcc vectorise the loops without -fno-trapping-math; clang turns them into minps / maxps. Same
// bits either way.
float select(bool c, float a, float b) {
    const std::uint32_t mask = 0u - static_cast<std::uint32_t>(c);
    return std::bit_cast<float>((std::bit_cast<std::uint32_t>(a) & mask) |
                                (std::bit_cast<std::uint32_t>(b) & ~mask));
}

float clamp_unit(float v) {
    v = select(v < 0.0f, 0.0f, v);
    return select(v > 1.0f, 1.0f, v);
}

// A single octave's value in [-1, 1] (Perlin: up to rounding; its extremes, +-sqrt(2)/2 at a cell's
// centre, are scaled to +-1 exactly, so no clamp is needed) shaped by the fractal.
template <Fractal F> float shaped(float v) {
    if constexpr (F == Fractal::ridged) {
        v = 1.0f - 2.0f * std::abs(v);
        v = select(v >= 0.0f, v * v * 2.0f - 1.0f, -1.0f);
    } else if constexpr (F == Fractal::billow) {
        v = 2.0f * std::abs(v) - 1.0f;
    }
    return v;
}

// What an octave adds: fbm's weight is in its coefficients already.
template <Fractal F> float weighted(float v, float weight) {
    if constexpr (F == Fractal::fbm)
        return v;
    else
        return shaped<F>(v) * weight;
}

// Perlin, one row of an octave: per span (left lattice column i), lattice columns i and i + 1
// blended along y to L_j(fx) = G_j * fx + C_j, times k (sqrt 2, so the extremes reach +-1, times
// the octave's weight for fbm). coef holds G_i, C_i and the difference L_{i+1}(fx - 1) - L_i(fx) =
// DG * fx + DC as DG = G_{i+1} - G_i and DC = C_{i+1} - G_{i+1} - C_i. top and bottom: see
// LatticeRows::Octave.
void perlin_coefficients(const float* __restrict top, const float* __restrict bottom,
                         float* __restrict coef, std::size_t spans, float fy, float ty, float k) {
    const float fy1 = fy - 1.0f;
    const std::size_t gx0 = 0, gy0 = spans, gx1 = 2 * spans, gy1 = 3 * spans;
    for (std::size_t s = 0; s < spans; ++s) {
        const float g0 = top[gx0 + s] + ty * (bottom[gx0 + s] - top[gx0 + s]);
        const float c0 = top[gy0 + s] * fy + ty * (bottom[gy0 + s] * fy1 - top[gy0 + s] * fy);
        const float g1 = top[gx1 + s] + ty * (bottom[gx1 + s] - top[gx1 + s]);
        const float c1 = top[gy1 + s] * fy + ty * (bottom[gy1 + s] * fy1 - top[gy1 + s] * fy);
        coef[gx0 + s] = g0 * k;
        coef[gy0 + s] = c0 * k;
        coef[gx1 + s] = (g1 - g0) * k;
        coef[gy1 + s] = (c1 - g1 - c0) * k;
    }
}

// Value noise, one row of an octave: per span, the left value v_i blended along y and the
// difference to the right, times k (the octave's weight for fbm, else 1).
void value_coefficients(const float* __restrict top, const float* __restrict bottom,
                        float* __restrict coef, std::size_t spans, float ty, float k) {
    const std::size_t right = 2 * spans;
    for (std::size_t s = 0; s < spans; ++s) {
        const float v0 = top[s] + ty * (bottom[s] - top[s]);
        const float v1 = top[right + s] + ty * (bottom[right + s] - top[right + s]);
        coef[s] = v0 * k;
        coef[spans + s] = (v1 - v0) * k;
    }
}

// One octave of one row added to out: out[x] += shaped(cell) * weight, where a cell of span s is
// Perlin: L_i(fx) + fade(fx) * (DG * fx + DC); value noise: v_i + fade(fx) * (v_{i+1} - v_i),
// with the span's coefficients held constant over its columns. For fbm the weight is already in the
// coefficients (out[x] += cell). Long spans (lattice cells 16 or more columns wide) go straight
// into out; short ones are computed in whole blocks into n first (see kBlock), then added.
template <Fractal F, bool Perlin>
void add_octave(float* __restrict out, float* __restrict n, const float* __restrict frac,
                const float* __restrict fade, const int* __restrict begin,
                const int* __restrict end, const float* __restrict coef, std::size_t spans,
                int width, float weight, bool long_spans) {
    if (long_spans) {
        for (std::size_t s = 0; s < spans; ++s) {
            if constexpr (Perlin) {
                const float g = coef[s], c = coef[spans + s], dg = coef[2 * spans + s],
                            dc = coef[3 * spans + s];
                for (int x = begin[s]; x < end[s]; ++x)
                    out[x] += weighted<F>(g * frac[x] + c + fade[x] * (dg * frac[x] + dc), weight);
            } else {
                const float v0 = coef[s], d = coef[spans + s];
                for (int x = begin[s]; x < end[s]; ++x)
                    out[x] += weighted<F>(v0 + fade[x] * d, weight);
            }
        }
        return;
    }
    for (std::size_t s = 0; s < spans; ++s) {
        if constexpr (Perlin) {
            const float g = coef[s], c = coef[spans + s], dg = coef[2 * spans + s],
                        dc = coef[3 * spans + s];
            for (int x = begin[s]; x < end[s]; x += kBlock)
                for (int j = x; j < x + kBlock; ++j)
                    n[j] = g * frac[j] + c + fade[j] * (dg * frac[j] + dc);
        } else {
            const float v0 = coef[s], d = coef[spans + s];
            for (int x = begin[s]; x < end[s]; x += kBlock)
                for (int j = x; j < x + kBlock; ++j)
                    n[j] = v0 + fade[j] * d;
        }
    }
    for (int x = 0; x < width; ++x)
        out[x] += weighted<F>(n[x], weight);
}

template <bool Perlin>
void add_octave(Fractal f, float* out, float* n, const float* frac, const float* fade,
                const int* begin, const int* end, const float* coef, std::size_t spans, int width,
                float weight) {
    const bool long_spans = 16 * spans <= static_cast<std::size_t>(width);
    switch (f) {
    case Fractal::fbm:
        add_octave<Fractal::fbm, Perlin>(out, n, frac, fade, begin, end, coef, spans, width, weight,
                                         long_spans);
        break;
    case Fractal::ridged:
        add_octave<Fractal::ridged, Perlin>(out, n, frac, fade, begin, end, coef, spans, width,
                                            weight, long_spans);
        break;
    case Fractal::billow:
        add_octave<Fractal::billow, Perlin>(out, n, frac, fade, begin, end, coef, spans, width,
                                            weight, long_spans);
        break;
    }
}

} // namespace

LatticeRows::LatticeRows(const NoiseSettings& s, std::uint64_t seed, int x, int width)
    : scale_(s.scale), lacunarity_(s.lacunarity), fractal_(s.fractal),
      perlin_(s.kind == NoiseKind::perlin), width_(std::max(width, 0)) {
    interpolation_ = perlin_ ? LatticeInterpolation::quintic : s.lattice_interpolation;
    const auto padded = static_cast<std::size_t>(width_ + kBlock);
    noise_.assign(padded, 0.0f);
    double total = 0, amplitude = 1;
    for (int o = 0; o < s.octaves; ++o) {
        total += amplitude;
        amplitude *= s.gain;
    }
    amplitude = 1;
    octaves_.resize(static_cast<std::size_t>(std::max(s.octaves, 0)));
    for (int k = 0; k < s.octaves; ++k) {
        Octave& o = octaves_[static_cast<std::size_t>(k)];
        o.index = k;
        o.stream = hash_values(seed, 0x6e6f697365ull /* "noise" */, static_cast<std::uint64_t>(k));
        o.weight = amplitude / total;
        amplitude *= s.gain;
        o.frac.assign(padded, 0.0f);
        o.fade.assign(padded, 0.0f);
        for (int i = 0; i < width_; ++i) {
            const double p = lattice_coordinate(x + i, scale_, lacunarity_, k);
            const double f = std::floor(p);
            const auto cell = static_cast<std::int64_t>(f);
            o.frac[static_cast<std::size_t>(i)] = static_cast<float>(p - f);
            o.fade[static_cast<std::size_t>(i)] =
                static_cast<float>(lattice_fade(p - f, interpolation_));
            if (o.lattice.empty() || cell != o.lattice.back()) {
                if (!o.lattice.empty()) o.end.push_back(i);
                o.begin.push_back(i);
                o.lattice.push_back(cell);
            }
        }
        if (!o.lattice.empty()) o.end.push_back(width_);
        o.coef.resize(4 * o.lattice.size());
    }
}

// Lattice row iy at every span's left and right lattice column (see Octave::top). Adjacent spans
// share a lattice column: hashed once.
void LatticeRows::load_lattice_row(const Octave& o, std::int64_t iy,
                                   std::vector<float>& dst) const {
    const std::size_t n = o.lattice.size();
    dst.resize(4 * n);
    float* left_x = dst.data();
    float* left_y = left_x + n;
    float* right_x = left_y + n;
    float* right_y = right_x + n;
    auto load = [&](std::int64_t ix, float& x, float& y) {
        if (perlin_) {
            double gx, gy;
            lattice_gradient(o.stream, ix, iy, gx, gy);
            x = static_cast<float>(gx);
            y = static_cast<float>(gy);
        } else {
            x = static_cast<float>(lattice_value(o.stream, ix, iy));
            y = 0.0f;
        }
    };
    if (perlin_) {
        for (std::size_t s = 0; s < n; ++s) {
            double gx, gy;
            lattice_gradient(o.stream, o.lattice[s], iy, gx, gy);
            left_x[s] = static_cast<float>(gx);
            left_y[s] = static_cast<float>(gy);
        }
    } else {
        for (std::size_t s = 0; s < n; ++s)
            left_x[s] = static_cast<float>(lattice_value(o.stream, o.lattice[s], iy));
    }
    for (std::size_t s = 0; s + 1 < n; ++s) {
        if (o.lattice[s + 1] == o.lattice[s] + 1) {
            right_x[s] = left_x[s + 1];
            right_y[s] = left_y[s + 1];
        } else {
            load(o.lattice[s] + 1, right_x[s], right_y[s]);
        }
    }
    if (n > 0) load(o.lattice[n - 1] + 1, right_x[n - 1], right_y[n - 1]);
}

void LatticeRows::add_octaves(int y, float* out, float scale) {
    for (Octave& o : octaves_) {
        const double p = lattice_coordinate(y, scale_, lacunarity_, o.index);
        const double f = std::floor(p);
        const auto iy = static_cast<std::int64_t>(f);
        if (iy != o.row) {
            if (iy == o.row + 1) {
                std::swap(o.top, o.bottom);
            } else {
                load_lattice_row(o, iy, o.top);
            }
            load_lattice_row(o, iy + 1, o.bottom);
            o.row = iy;
        }
        const float ty = static_cast<float>(lattice_fade(p - f, interpolation_));
        const std::size_t spans = o.lattice.size();
        const float* t = o.top.data();
        const float* b = o.bottom.data();
        float* coef = o.coef.data();
        const double weight = o.weight * scale;
        const bool fbm = fractal_ == Fractal::fbm;
        if (perlin_) {
            perlin_coefficients(t, b, coef, spans, static_cast<float>(p - f), ty,
                                static_cast<float>(std::numbers::sqrt2 * (fbm ? weight : 1.0)));
            add_octave<true>(fractal_, out, noise_.data(), o.frac.data(), o.fade.data(),
                             o.begin.data(), o.end.data(), coef, spans, width_,
                             static_cast<float>(weight));
        } else {
            value_coefficients(t, b, coef, spans, ty, static_cast<float>(fbm ? weight : 1.0));
            add_octave<false>(fractal_, out, noise_.data(), o.frac.data(), o.fade.data(),
                              o.begin.data(), o.end.data(), coef, spans, width_,
                              static_cast<float>(weight));
        }
    }
}

void LatticeRows::row(int y, float* out) {
    std::fill(out, out + width_, 0.5f);
    add_octaves(y, out, 0.5);
    for (int x = 0; x < width_; ++x)
        out[x] = clamp_unit(out[x]);
}

void LatticeRows::signed_row(int y, float* out) {
    std::fill(out, out + width_, 0.0f);
    add_octaves(y, out, 1.0);
}

Grid<float> lattice_noise(const NoiseSettings& s, std::uint64_t seed, Region region, int threads) {
    if (region.width <= 0 || region.height <= 0)
        return Grid<float>(std::max(region.width, 0), std::max(region.height, 0), 0.0f);
    Grid<float> out =
        Grid<float>::uninitialised(region.width, region.height); // every row is written whole
    parallel_for(region.height, threads, [&](int y0, int y1) {
        LatticeRows rows(s, seed, region.x, region.width);
        for (int y = y0; y < y1; ++y)
            rows.row(region.y + y, out.row(y));
    });
    return out;
}

} // namespace tilegen
