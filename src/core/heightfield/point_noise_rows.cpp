#include "core/heightfield/point_noise_rows.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>

#include "core/hash.hpp"
#include "core/heightfield/point_noise.hpp"
#include "core/parallel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tilegen {

namespace {

// Two doubles at a time: a GCC/Clang vector (one SSE2 register on x86-64, plain code elsewhere).
// Each operation is the IEEE operation on each lane, so a lane holds the scalar code's value bit
// for bit. Comparisons give lane masks, and "mask ? a : b" picks per lane without a branch.
using Pair = double __attribute__((vector_size(16)));
using PairMask = std::int64_t __attribute__((vector_size(16)));
using PairInt = std::int32_t __attribute__((vector_size(8)));

Pair load(const double* p) {
    Pair v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
void store(double* p, Pair v) {
    std::memcpy(p, &v, sizeof v);
}
Pair both(double v) {
    return Pair{v, v};
}

// std::min, std::max and std::clamp per lane (the same operand returned on ties: minpd, maxpd).
Pair min_of(Pair a, Pair b) {
    return b < a ? b : a;
}
Pair max_of(Pair a, Pair b) {
    return a < b ? b : a;
}
Pair clamp_to(Pair v, double lo, double hi) {
    return v < both(lo) ? both(lo) : (both(hi) < v ? both(hi) : v);
}
Pair abs_of(Pair v) {
    return reinterpret_cast<Pair>(reinterpret_cast<PairMask>(v) & INT64_MAX);
}

// floor per lane for |v| < 2^31 (callers check): truncation through int32, one less where it
// rounded up. Converted to int64 it equals std::floor's (-0 comes out as +0, as through int64).
Pair floor_small(Pair v) {
    const Pair t = __builtin_convertvector(__builtin_convertvector(v, PairInt), Pair);
    return t - (t > v ? both(1.0) : both(0.0));
}

// sqrt per lane, correctly rounded on every build (a std::sqrt loop stays scalar: errno).
Pair square_root(Pair v) {
#if defined(__SSE2__)
    return _mm_sqrt_pd(v);
#else
    return Pair{std::sqrt(v[0]), std::sqrt(v[1])};
#endif
}

std::int64_t floor_int(double v) {
    return static_cast<std::int64_t>(std::floor(v));
}

// Columns are computed in pairs; a row's arrays are padded by kPad so the last pair (and Worley's
// last pair of a span, which runs into the next span's columns, rewritten by that span since
// spans go left to right) stays inside.
constexpr int kPad = 2;

// Simplex works through a row in chunks of this many columns (its per-column arrays then fit the
// L1 cache together).
constexpr int kChunk = 256;

// The simplex grid, as in simplex_noise (same expressions, so the same doubles).
struct SimplexGrid {
    double skew = 0.5 * (std::sqrt(3.0) - 1.0), unskew = (3.0 - std::sqrt(3.0)) / 6.0;
};

// Simplex, pass 1: each cell's simplex cell (fi, fj: the lower corner of the skewed square holding
// it, as doubles) and its offset x0, y0 from that corner. Needs |x| + |y| < 2^30.
void simplex_cells(const double* xs, double y, int n, double* fi, double* fj, double* x0,
                   double* y0) {
    const SimplexGrid g;
    for (int c = 0; c < n; c += 2) {
        const Pair x = load(xs + c);
        const Pair s = (x + y) * g.skew;
        const Pair i = floor_small(x + s), j = floor_small(y + s);
        const Pair t = (i + j) * g.unskew;
        store(fi + c, i);
        store(fj + c, j);
        store(x0 + c, x - (i - t));
        store(y0 + c, y - (j - t));
    }
}

// Simplex, pass 2: the gradients of each cell's three corners, (i, j), (i + 1, j) below the
// diagonal (x0 > y0) or (i, j + 1) above it, and (i + 1, j + 1). Along a row the simplex cell
// only moves right or down (i and j never decrease), so the skewed square's four corners are
// hashed when the cell changes, reusing the two it shares with the previous square.
void simplex_gradients(std::uint64_t stream, const double* fi, const double* fj, const double* x0,
                       const double* y0, int n, double* const gx[3], double* const gy[3]) {
    struct Gradient {
        double x = 0, y = 0;
    };
    Gradient g00, g10, g01, g11; // corners (i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)
    auto load_corner = [stream](std::int64_t i, std::int64_t j, Gradient& g) {
        lattice_gradient(stream, i, j, g.x, g.y);
    };
    bool have = false;
    std::int64_t ci = 0, cj = 0;
    for (int c = 0; c < n; ++c) {
        const auto i = static_cast<std::int64_t>(fi[c]), j = static_cast<std::int64_t>(fj[c]);
        if (!have || i != ci || j != cj) {
            if (have && i == ci + 1 && j == cj) { // one square right
                g00 = g10;
                g01 = g11;
                load_corner(i + 1, j, g10);
                load_corner(i + 1, j + 1, g11);
            } else if (have && i == ci && j == cj + 1) { // one square down
                g00 = g01;
                g10 = g11;
                load_corner(i, j + 1, g01);
                load_corner(i + 1, j + 1, g11);
            } else {
                load_corner(i, j, g00);
                load_corner(i + 1, j, g10);
                load_corner(i, j + 1, g01);
                load_corner(i + 1, j + 1, g11);
            }
            have = true;
            ci = i;
            cj = j;
        }
        const Gradient& middle = x0[c] > y0[c] ? g10 : g01;
        gx[0][c] = g00.x;
        gy[0][c] = g00.y;
        gx[1][c] = middle.x;
        gy[1][c] = middle.y;
        gx[2][c] = g11.x;
        gy[2][c] = g11.y;
    }
}

// Simplex, pass 3: the three corners' contributions (0.5 - |d|^2)^4 * (g . d), where 0.5 - |d|^2 >
// 0, summed in corner order, times 99 and clamped to [-1, 1]. A corner out of reach adds +0, which
// leaves the sum as it is (the sum is never -0: it starts at +0 and x + (-x) is +0).
void simplex_sums(const double* x0s, const double* y0s, const double* const gxs[3],
                  const double* const gys[3], int n, double* out) {
    const SimplexGrid g;
    const double far = 2.0 * g.unskew;
    for (int c = 0; c < n; c += 2) {
        const Pair x0 = load(x0s + c), y0 = load(y0s + c);
        const auto lower = x0 > y0;
        const Pair si = lower ? both(1.0) : both(0.0), sj = lower ? both(0.0) : both(1.0);
        const Pair dx[3] = {x0, x0 - si + g.unskew, x0 - 1.0 + far};
        const Pair dy[3] = {y0, y0 - sj + g.unskew, y0 - 1.0 + far};
        Pair sum = both(0.0);
        for (int k = 0; k < 3; ++k) {
            const Pair f = 0.5 - dx[k] * dx[k] - dy[k] * dy[k];
            const Pair f2 = f * f;
            const Pair dot = load(gxs[k] + c) * dx[k] + load(gys[k] + c) * dy[k];
            sum += f > 0.0 ? f2 * f2 * dot : both(0.0);
        }
        store(out + c, clamp_to(sum * 99.0, -1.0, 1.0));
    }
}

// Worley, the distance of a candidate feature point at x offset dx from the column (signed) and
// the row's part dy (dy^2 for Euclidean, else |dy|): squared Euclidean, Manhattan or Chebyshev.
template <WorleyDistance D> Pair distance(Pair dx, Pair dy_part) {
    if constexpr (D == WorleyDistance::euclidean)
        return dx * dx + dy_part; // |dx| * |dx| is dx * dx
    else if constexpr (D == WorleyDistance::manhattan)
        return abs_of(dx) + dy_part;
    else
        return max_of(abs_of(dx), dy_part);
}

// Worley, one span (columns [begin, end) in one lattice column ix) of a row of an octave: the
// nine candidate feature points of lattice columns ix - 1 .. ix + 1 and rows iy - 1 .. iy + 1
// (px: their x, dy: the row's part of their distance) are held constant, and each column keeps the
// nearest (f1) and second nearest (f2) distance, candidates in the reference's order (rows outer,
// columns inner). f2 = min(f2, max(f1, d)), f1 = min(f1, d) is the reference's
// "if (d < f1) {f2 = f1; f1 = d;} else if (d < f2) f2 = d;" as selects. Euclidean distances stay
// squared (the root is taken once per cell afterwards). f2 is written only when wanted.
template <WorleyDistance D, bool F2>
void worley_span(const double* xs, int begin, int end, const double* px, const double* dy,
                 double* f1_out, double* f2_out) {
    for (int c = begin; c < end; c += 2) {
        const Pair x = load(xs + c);
        Pair f1 = both(1e9), f2 = both(1e9);
        for (int k = 0; k < 9; ++k) {
            const Pair d = distance<D>(px[k] - x, both(dy[k]));
            if constexpr (F2) f2 = min_of(f2, max_of(f1, d));
            f1 = min_of(f1, d);
        }
        store(f1_out + c, f1);
        if constexpr (F2) store(f2_out + c, f2);
    }
}

// Worley's octave value from f1 and f2 (squared if Euclidean): the returned distance, * 1.5 (f1,
// f2 - f1) or 1 (f2), * 2 - 1, clamped to [-1, 1], as fractal_noise does. Written over f1.
template <WorleyReturn R, bool Squared> void worley_values(double* f1s, const double* f2s, int n) {
    for (int c = 0; c < n; c += 2) {
        Pair f1 = load(f1s + c), f2 = load(f2s + c);
        if constexpr (Squared) {
            if constexpr (R != WorleyReturn::f2) f1 = square_root(f1);
            if constexpr (R != WorleyReturn::f1) f2 = square_root(f2);
        }
        Pair w;
        if constexpr (R == WorleyReturn::f1)
            w = f1 * 1.5;
        else if constexpr (R == WorleyReturn::f2)
            w = f2 * 1.0;
        else
            w = (f2 - f1) * 1.5;
        store(f1s + c, clamp_to(w * 2.0 - 1.0, -1.0, 1.0));
    }
}

template <WorleyReturn R> void worley_values(double* f1s, const double* f2s, int n, bool squared) {
    if (squared)
        worley_values<R, true>(f1s, f2s, n);
    else
        worley_values<R, false>(f1s, f2s, n);
}

// One octave shaped by the fractal and added to the row's sum, as fractal_noise does.
template <Fractal F> void add_octave(double* sums, const double* v, int n, double amplitude) {
    for (int c = 0; c < n; c += 2) {
        Pair x = load(v + c);
        if constexpr (F == Fractal::ridged) {
            x = 1.0 - 2.0 * abs_of(x);
            x = x >= 0.0 ? x * x * 2.0 - 1.0 : both(-1.0);
        } else if constexpr (F == Fractal::billow) {
            x = 2.0 * abs_of(x) - 1.0;
        }
        store(sums + c, load(sums + c) + x * amplitude);
    }
}

// The row's cells: the fractal sum over the sum of amplitudes, mapped to [0, 1] and clamped, in
// float.
void finish_row(const double* sums, double total, int n, float* out) {
    using FloatPair = float __attribute__((vector_size(8)));
    for (int c = 0; c < n; c += 2) {
        const Pair v = clamp_to((load(sums + c) / total + 1.0) * 0.5, 0.0, 1.0);
        const FloatPair f = __builtin_convertvector(v, FloatPair);
        std::memcpy(out + c, &f, std::min(n - c, 2) * sizeof(float));
    }
}

// Dispatches to the span kernel for the settings' distance and whether f2 is needed.
void worley_span(WorleyDistance dist, bool f2, const double* xs, int begin, int end,
                 const double* px, const double* dy, double* f1_out, double* f2_out) {
    switch (dist) {
    case WorleyDistance::euclidean:
        return f2 ? worley_span<WorleyDistance::euclidean, true>(xs, begin, end, px, dy, f1_out,
                                                                 f2_out)
                  : worley_span<WorleyDistance::euclidean, false>(xs, begin, end, px, dy, f1_out,
                                                                  f2_out);
    case WorleyDistance::manhattan:
        return f2 ? worley_span<WorleyDistance::manhattan, true>(xs, begin, end, px, dy, f1_out,
                                                                 f2_out)
                  : worley_span<WorleyDistance::manhattan, false>(xs, begin, end, px, dy, f1_out,
                                                                  f2_out);
    case WorleyDistance::chebyshev:
        return f2 ? worley_span<WorleyDistance::chebyshev, true>(xs, begin, end, px, dy, f1_out,
                                                                 f2_out)
                  : worley_span<WorleyDistance::chebyshev, false>(xs, begin, end, px, dy, f1_out,
                                                                  f2_out);
    }
}

} // namespace

PointNoiseRows::PointNoiseRows(const NoiseSettings& s, std::uint64_t seed, int x, int width)
    : settings_(s), width_(std::max(width, 0)) {
    settings_.modifiers.clear();
    const auto padded = static_cast<std::size_t>(width_ + kPad);
    const std::vector<std::uint64_t> streams = octave_streams(seed, s.octaves);
    octaves_.resize(streams.size());
    double amplitude = 1;
    for (std::size_t k = 0; k < streams.size(); ++k) {
        Octave& o = octaves_[k];
        o.stream = streams[k];
        o.amplitude = amplitude;
        total_ += amplitude;
        amplitude *= s.gain;
        o.x.assign(padded, 0.0);
    }
    // Noise-space x of each column, octave by octave: (c + 0.5) / scale, times lacunarity once per
    // octave (as fractal_noise multiplies it).
    for (int i = 0; i < width_; ++i) {
        double p = (static_cast<double>(x + i) + 0.5) / s.scale;
        for (Octave& o : octaves_) {
            o.x[static_cast<std::size_t>(i)] = p;
            o.largest_x = std::max(o.largest_x, std::abs(p));
            p *= s.lacunarity;
        }
    }
    if (s.kind == NoiseKind::worley)
        for (Octave& o : octaves_) {
            std::vector<std::int64_t> cells; // lattice column of each span
            for (int i = 0; i < width_; ++i) {
                const std::int64_t ix = floor_int(o.x[static_cast<std::size_t>(i)]);
                if (cells.empty() || ix != cells.back()) {
                    if (!cells.empty()) o.end.push_back(i);
                    o.begin.push_back(i);
                    cells.push_back(ix);
                }
            }
            if (!cells.empty()) o.end.push_back(width_);
            for (std::int64_t ix : cells) // ascending, so ix - 1 .. ix + 1 append in order
                for (std::int64_t col = ix - 1; col <= ix + 1; ++col)
                    if (o.lattice.empty() || col > o.lattice.back()) o.lattice.push_back(col);
            auto index = [&o](std::int64_t col) {
                return static_cast<std::size_t>(
                    std::lower_bound(o.lattice.begin(), o.lattice.end(), col) - o.lattice.begin());
            };
            for (std::int64_t ix : cells) {
                o.left.push_back(index(ix - 1));
                o.centre.push_back(index(ix));
                o.right.push_back(index(ix + 1));
            }
        }
    sum_.assign(padded, 0.0);
    value_.assign(padded, 0.0);
    x0_.assign(padded, 0.0);
    if (s.kind == NoiseKind::simplex) {
        const auto chunk = static_cast<std::size_t>(kChunk + kPad);
        x0_.assign(chunk, 0.0);
        y0_.assign(chunk, 0.0);
        fi_.assign(chunk, 0.0);
        fj_.assign(chunk, 0.0);
        for (int k = 0; k < 3; ++k) {
            gx_[k].assign(chunk, 0.0);
            gy_[k].assign(chunk, 0.0);
        }
    }
}

void PointNoiseRows::add_shaped(const double* n, double amplitude) {
    switch (settings_.fractal) {
    case Fractal::fbm:
        add_octave<Fractal::fbm>(sum_.data(), n, width_, amplitude);
        break;
    case Fractal::ridged:
        add_octave<Fractal::ridged>(sum_.data(), n, width_, amplitude);
        break;
    case Fractal::billow:
        add_octave<Fractal::billow>(sum_.data(), n, width_, amplitude);
        break;
    }
}

void PointNoiseRows::add_simplex(const Octave& o, double y) {
    if (!(o.largest_x + std::abs(y) < 0x1p30)) {
        // Too far out for floor_small: the reference, cell by cell.
        for (int c = 0; c < width_; ++c)
            value_[static_cast<std::size_t>(c)] =
                simplex_noise(o.stream, o.x[static_cast<std::size_t>(c)], y);
        add_shaped(value_.data(), o.amplitude);
        return;
    }
    // A chunk of columns at a time, so that the passes' arrays stay in the L1 cache.
    double* gx[3] = {gx_[0].data(), gx_[1].data(), gx_[2].data()};
    double* gy[3] = {gy_[0].data(), gy_[1].data(), gy_[2].data()};
    for (int first = 0; first < width_; first += kChunk) {
        const int n = std::min(kChunk, width_ - first);
        simplex_cells(o.x.data() + first, y, n, fi_.data(), fj_.data(), x0_.data(), y0_.data());
        simplex_gradients(o.stream, fi_.data(), fj_.data(), x0_.data(), y0_.data(), n, gx, gy);
        simplex_sums(x0_.data(), y0_.data(), gx, gy, n, value_.data() + first);
    }
    add_shaped(value_.data(), o.amplitude);
}

void PointNoiseRows::load_feature_row(const Octave& o, std::int64_t ly, std::vector<double>& px,
                                      std::vector<double>& py) const {
    px.resize(o.lattice.size());
    py.resize(o.lattice.size());
    for (std::size_t i = 0; i < o.lattice.size(); ++i) {
        const std::uint64_t h = hash_position(o.stream, o.lattice[i], ly);
        px[i] = static_cast<double>(o.lattice[i]) + unit_double(h);
        py[i] = static_cast<double>(ly) + unit_double(mix64(h));
    }
}

void PointNoiseRows::add_worley(Octave& o, double y) {
    const std::int64_t iy = floor_int(y);
    if (iy != o.row) {
        if (iy == o.row + 1) { // one lattice row down: two rows stay
            std::swap(o.px[0], o.px[1]);
            std::swap(o.py[0], o.py[1]);
            std::swap(o.px[1], o.px[2]);
            std::swap(o.py[1], o.py[2]);
            load_feature_row(o, iy + 1, o.px[2], o.py[2]);
        } else {
            for (int r = 0; r < 3; ++r)
                load_feature_row(o, iy - 1 + r, o.px[r], o.py[r]);
        }
        o.row = iy;
    }
    const WorleyDistance dist = settings_.worley_distance;
    const std::size_t lattice = o.lattice.size();
    for (int r = 0; r < 3; ++r) { // the row's part of each candidate's distance
        dy_[r].resize(lattice);
        for (std::size_t i = 0; i < lattice; ++i) {
            const double d = std::abs(o.py[r][i] - y);
            dy_[r][i] = dist == WorleyDistance::euclidean ? d * d : d;
        }
    }
    const WorleyReturn ret = settings_.worley_return;
    const bool f2 = ret != WorleyReturn::f1;
    double* f1s = value_.data();
    double* f2s = x0_.data();
    for (std::size_t s = 0; s < o.begin.size(); ++s) {
        double px[9], dy[9]; // candidates: lattice rows outer, columns inner
        const std::size_t cols[3] = {o.left[s], o.centre[s], o.right[s]};
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                px[3 * r + c] = o.px[r][cols[c]];
                dy[3 * r + c] = dy_[r][cols[c]];
            }
        worley_span(dist, f2, o.x.data(), o.begin[s], o.end[s], px, dy, f1s, f2s);
    }
    const bool squared = dist == WorleyDistance::euclidean;
    switch (ret) {
    case WorleyReturn::f1:
        worley_values<WorleyReturn::f1>(f1s, f2s, width_, squared);
        break;
    case WorleyReturn::f2:
        worley_values<WorleyReturn::f2>(f1s, f2s, width_, squared);
        break;
    case WorleyReturn::f2_minus_f1:
        worley_values<WorleyReturn::f2_minus_f1>(f1s, f2s, width_, squared);
        break;
    }
    add_shaped(f1s, o.amplitude);
}

void PointNoiseRows::row(int y, float* out) {
    std::fill(sum_.begin(), sum_.end(), 0.0);
    // Noise-space y, octave by octave, as for the columns.
    double p = (static_cast<double>(y) + 0.5) / settings_.scale;
    for (Octave& o : octaves_) {
        if (settings_.kind == NoiseKind::simplex)
            add_simplex(o, p);
        else
            add_worley(o, p);
        p *= settings_.lacunarity;
    }
    finish_row(sum_.data(), total_, width_, out);
}

Grid<float> point_noise_grid(const NoiseSettings& s, std::uint64_t seed, Region region,
                             int threads) {
    if (region.width <= 0 || region.height <= 0)
        return Grid<float>(std::max(region.width, 0), std::max(region.height, 0), 0.0f);
    Grid<float> out =
        Grid<float>::uninitialised(region.width, region.height); // every row is written whole
    parallel_for(region.height, threads, [&](int y0, int y1) {
        PointNoiseRows rows(s, seed, region.x, region.width);
        for (int y = y0; y < y1; ++y)
            rows.row(region.y + y, out.row(y));
    });
    return out;
}

} // namespace tilegen
