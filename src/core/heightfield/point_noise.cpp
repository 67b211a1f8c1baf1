#include "core/heightfield/point_noise.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/hash.hpp"

namespace tilegen {

double lattice_fade(double t, LatticeInterpolation interp) {
    switch (interp) {
    case LatticeInterpolation::linear:
        return t;
    case LatticeInterpolation::cosine:
        return (1.0 - std::cos(t * std::numbers::pi)) * 0.5;
    case LatticeInterpolation::cubic:
        return t * t * (3.0 - 2.0 * t);
    case LatticeInterpolation::quintic:
        return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
    }
    return t;
}

namespace {

std::int64_t floor_int(double v) {
    return static_cast<std::int64_t>(std::floor(v));
}

} // namespace

double value_noise(std::uint64_t stream, double x, double y, LatticeInterpolation interp) {
    const std::int64_t ix = floor_int(x), iy = floor_int(y);
    const double tx = lattice_fade(x - static_cast<double>(ix), interp),
                 ty = lattice_fade(y - static_cast<double>(iy), interp);
    const double a = lattice_value(stream, ix, iy), b = lattice_value(stream, ix + 1, iy);
    const double c = lattice_value(stream, ix, iy + 1), e = lattice_value(stream, ix + 1, iy + 1);
    const double top = a + (b - a) * tx, bottom = c + (e - c) * tx;
    return top + (bottom - top) * ty;
}

double perlin_noise(std::uint64_t stream, double x, double y) {
    const std::int64_t ix = floor_int(x), iy = floor_int(y);
    const double fx = x - static_cast<double>(ix), fy = y - static_cast<double>(iy);
    double g[4][2];
    lattice_gradient(stream, ix, iy, g[0][0], g[0][1]);
    lattice_gradient(stream, ix + 1, iy, g[1][0], g[1][1]);
    lattice_gradient(stream, ix, iy + 1, g[2][0], g[2][1]);
    lattice_gradient(stream, ix + 1, iy + 1, g[3][0], g[3][1]);
    const double n00 = g[0][0] * fx + g[0][1] * fy;
    const double n10 = g[1][0] * (fx - 1) + g[1][1] * fy;
    const double n01 = g[2][0] * fx + g[2][1] * (fy - 1);
    const double n11 = g[3][0] * (fx - 1) + g[3][1] * (fy - 1);
    const double tx = lattice_fade(fx, LatticeInterpolation::quintic),
                 ty = lattice_fade(fy, LatticeInterpolation::quintic);
    const double top = n00 + (n10 - n00) * tx, bottom = n01 + (n11 - n01) * tx;
    return std::clamp((top + (bottom - top) * ty) * std::numbers::sqrt2, -1.0, 1.0);
}

double simplex_noise(std::uint64_t stream, double x, double y) {
    // Skew the plane so that equilateral triangles become right triangles of the integer grid.
    const double skew = 0.5 * (std::sqrt(3.0) - 1.0), unskew = (3.0 - std::sqrt(3.0)) / 6.0;
    const double s = (x + y) * skew;
    const std::int64_t i = floor_int(x + s), j = floor_int(y + s);
    const double t = static_cast<double>(i + j) * unskew;
    const double x0 = x - (static_cast<double>(i) - t), y0 = y - (static_cast<double>(j) - t);
    // Which triangle of the skewed square: lower (step x first) or upper (step y first).
    const std::int64_t si = x0 > y0 ? 1 : 0, sj = x0 > y0 ? 0 : 1;
    const double corners[3][2] = {
        {x0, y0},
        {x0 - static_cast<double>(si) + unskew, y0 - static_cast<double>(sj) + unskew},
        {x0 - 1.0 + 2.0 * unskew, y0 - 1.0 + 2.0 * unskew}};
    const std::int64_t ci[3] = {i, i + si, i + 1}, cj[3] = {j, j + sj, j + 1};
    double sum = 0;
    for (int k = 0; k < 3; ++k) {
        const double dx = corners[k][0], dy = corners[k][1];
        double falloff = 0.5 - dx * dx - dy * dy;
        if (falloff <= 0) continue;
        double gx, gy;
        lattice_gradient(stream, ci[k], cj[k], gx, gy);
        falloff *= falloff;
        sum += falloff * falloff * (gx * dx + gy * dy);
    }
    return std::clamp(sum * 99.0, -1.0,
                      1.0); // 99 brings the extremes of this gradient set near +-1
}

double worley_noise(std::uint64_t stream, double x, double y, WorleyReturn ret,
                    WorleyDistance dist) {
    const std::int64_t ix = floor_int(x), iy = floor_int(y);
    double f1 = 1e9, f2 = 1e9;
    for (std::int64_t cy = iy - 1; cy <= iy + 1; ++cy)
        for (std::int64_t cx = ix - 1; cx <= ix + 1; ++cx) {
            const std::uint64_t h = hash_position(stream, cx, cy);
            const double px = static_cast<double>(cx) + unit_double(h);
            const double py = static_cast<double>(cy) + unit_double(mix64(h));
            const double dx = std::abs(px - x), dy = std::abs(py - y);
            double d = 0;
            switch (dist) {
            case WorleyDistance::euclidean:
                d = dx * dx + dy * dy;
                break; // squared; rooted once below
            case WorleyDistance::manhattan:
                d = dx + dy;
                break;
            case WorleyDistance::chebyshev:
                d = std::max(dx, dy);
                break;
            }
            if (d < f1) {
                f2 = f1;
                f1 = d;
            } else if (d < f2) {
                f2 = d;
            }
        }
    if (dist == WorleyDistance::euclidean) {
        f1 = std::sqrt(f1);
        f2 = std::sqrt(f2);
    }
    // A lookup, one case per WorleyReturn: shared shape with other enum switches, not logic
    // (deliberate).
    switch (ret) {
    case WorleyReturn::f1:
        return f1;
    case WorleyReturn::f2:
        return f2;
    case WorleyReturn::f2_minus_f1:
        return f2 - f1;
    }
    return f1;
}

std::vector<std::uint64_t> octave_streams(std::uint64_t seed, int octaves) {
    std::vector<std::uint64_t> streams;
    for (int o = 0; o < octaves; ++o)
        streams.push_back(
            hash_values(seed, 0x6e6f697365ull /* "noise" */, static_cast<std::uint64_t>(o)));
    return streams;
}

double fractal_noise(const NoiseSettings& s, std::uint64_t seed, double cx, double cy) {
    return fractal_noise(s, octave_streams(seed, s.octaves), cx, cy);
}

double fractal_noise(const NoiseSettings& s, const std::vector<std::uint64_t>& streams, double cx,
                     double cy) {
    double x = cx / s.scale, y = cy / s.scale;
    double amplitude = 1, total = 0, sum = 0;
    for (int o = 0; o < s.octaves; ++o) {
        const std::uint64_t stream = streams[static_cast<std::size_t>(o)];
        double n; // in [-1, 1]
        switch (s.kind) {
        case NoiseKind::value:
            n = value_noise(stream, x, y, s.lattice_interpolation);
            break;
        case NoiseKind::perlin:
            n = perlin_noise(stream, x, y);
            break;
        case NoiseKind::simplex:
            n = simplex_noise(stream, x, y);
            break;
        case NoiseKind::worley:
            n = std::clamp(worley_noise(stream, x, y, s.worley_return, s.worley_distance) *
                                   (s.worley_return == WorleyReturn::f2 ? 1.0 : 1.5) * 2.0 -
                               1.0,
                           -1.0, 1.0);
            break;
        default:
            n = 0;
        }
        switch (s.fractal) {
        case Fractal::fbm:
            break;
        case Fractal::ridged:
            n = 1.0 - 2.0 * std::abs(n);
            n = n >= 0 ? n * n * 2.0 - 1.0 : -1.0;
            break;
        case Fractal::billow:
            n = 2.0 * std::abs(n) - 1.0;
            break;
        }
        sum += n * amplitude;
        total += amplitude;
        amplitude *= s.gain;
        x *= s.lacunarity;
        y *= s.lacunarity;
    }
    return std::clamp((sum / total + 1.0) * 0.5, 0.0, 1.0);
}

double profile_height(const NoiseSettings& s, std::uint64_t seed, double x) {
    double amplitude = 1, total = 0, sum = 0;
    double frequency = 1.0 / s.scale;
    for (int o = 0; o < s.octaves; ++o) {
        const std::uint64_t stream =
            hash_values(seed, 0x70726f66ull /* "prof" */, static_cast<std::uint64_t>(o));
        const double p = x * frequency;
        const std::int64_t i = floor_int(p);
        double t = p - static_cast<double>(i);
        if (s.cosine) t = (1.0 - std::cos(t * std::numbers::pi)) * 0.5;
        const double a = unit_double(hash_values(stream, static_cast<std::uint64_t>(i)));
        const double b = unit_double(hash_values(stream, static_cast<std::uint64_t>(i + 1)));
        sum += (a + (b - a) * t) * amplitude;
        total += amplitude;
        amplitude *= 0.5; // power-of-two weights, as in the reference
        frequency *= 2.0;
    }
    return sum / total;
}

} // namespace tilegen
