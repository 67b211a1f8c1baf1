#include "core/heightfield/point_noise_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/cpu_features.hpp"
#include "core/hash.hpp"
#include "core/heightfield/point_noise.hpp"
#include "core/parallel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tilegen {

// One Worley octave of a row, as the kernels read it.
struct WorleyRow {
    WorleyDistance dist = WorleyDistance::euclidean;
    WorleyReturn ret = WorleyReturn::f1;
    const double* xs = nullptr; // noise-space x per column
    std::size_t spans = 0;      // spans of one lattice column each: columns [begin, end)
    const int* begin = nullptr;
    const int* end = nullptr;
    const double* px = nullptr; // per span, its nine candidates' x
    const double* dy = nullptr; // per span, the row's part of their distance
    double* f1 = nullptr;       // out: the octave's value per column (f1 on the way)
    double* f2 = nullptr;       // scratch: f2 per column
    int width = 0;
};

// A simplex chunk's per-column arrays (kChunk + kPad entries each): each column's square (fi, fj:
// its lower corner) and offset x0, y0 from that corner; the spans of columns in one square
// (begin: each span's first column, and one more entry); and the span starts as lane masks.
struct SimplexScratch {
    double *fi = nullptr, *fj = nullptr, *x0 = nullptr, *y0 = nullptr;
    int* begin = nullptr;
    std::int64_t* changed = nullptr; // per column: -1 where a new square starts, else 0
};

// The per-row kernels for one lane count.
struct PointNoiseKernels {
    void (*simplex)(std::uint64_t stream, const double* xs, double y, int n,
                    const SimplexScratch& w, double* out);
    void (*worley)(const WorleyRow& w);
    void (*add)(Fractal f, double* sums, const double* v, int n, double amplitude);
    void (*finish)(const double* sums, double total, int n, float* out);
};

namespace {

// N doubles at a time (N = 2 or 4): GCC/Clang vectors, one SSE2 register (N = 2) or one AVX2
// register (N = 4, in the functions compiled for AVX2; elsewhere two SSE2 registers), plain code on
// other processors. Each operation is the IEEE operation on each lane (no FMA: contraction is off),
// so a lane holds the scalar code's value bit for bit whatever N and the instruction set.
// Comparisons give lane masks, and "mask ? a : b" picks per lane without a branch. The helpers are
// always inlined into the kernels (the 4-lane ones only run inside AVX2 functions, so the ABI
// warning about passing them without AVX does not apply).
#pragma GCC diagnostic ignored "-Wpsabi"
template <int N> struct Lanes; // (spelled out per N: GCC drops a vector_size that depends on N)
template <> struct Lanes<2> {
    using D = double __attribute__((vector_size(16)));
    using Mask = std::int64_t __attribute__((vector_size(16)));
    using Int = std::int32_t __attribute__((vector_size(8)));
    using Float = float __attribute__((vector_size(8)));
};
template <> struct Lanes<4> {
    using D = double __attribute__((vector_size(32)));
    using Mask = std::int64_t __attribute__((vector_size(32)));
    using Int = std::int32_t __attribute__((vector_size(16)));
    using Float = float __attribute__((vector_size(16)));
};
template <int N> using Vec = typename Lanes<N>::D;

#define TILEGEN_LANES template <int N> [[gnu::always_inline]] inline

TILEGEN_LANES Vec<N> load(const double* p) {
    Vec<N> v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
TILEGEN_LANES void store(double* p, const Vec<N>& v) {
    std::memcpy(p, &v, sizeof v);
}
TILEGEN_LANES Vec<N> all(double v) {
    return Vec<N>{} + v;
}

// std::min, std::max and std::clamp per lane (the same operand returned on ties: minpd, maxpd).
TILEGEN_LANES Vec<N> min_of(const Vec<N>& a, const Vec<N>& b) {
    return b < a ? b : a;
}
TILEGEN_LANES Vec<N> max_of(const Vec<N>& a, const Vec<N>& b) {
    return a < b ? b : a;
}
TILEGEN_LANES Vec<N> clamp_to(const Vec<N>& v, double lo, double hi) {
    return v < lo ? all<N>(lo) : (hi < v ? all<N>(hi) : v);
}
TILEGEN_LANES Vec<N> abs_of(const Vec<N>& v) {
    using Mask = typename Lanes<N>::Mask;
    return reinterpret_cast<Vec<N>>(reinterpret_cast<Mask>(v) & INT64_MAX);
}

// floor per lane for |v| < 2^31 (callers check): truncation through int32, one less where it
// rounded up. Converted to int64 it equals std::floor's (-0 comes out as +0, as through int64).
TILEGEN_LANES Vec<N> floor_small(const Vec<N>& v) {
    const Vec<N> t =
        __builtin_convertvector(__builtin_convertvector(v, typename Lanes<N>::Int), Vec<N>);
    return t - (t > v ? all<N>(1.0) : all<N>(0.0));
}

// sqrt per lane, correctly rounded on every build (a std::sqrt loop stays scalar: errno).
TILEGEN_LANES Vec<N> square_root(const Vec<N>& v) {
    Vec<N> r;
#if defined(__SSE2__)
    for (int i = 0; i < N; i += 2) {
        const __m128d pair = _mm_sqrt_pd(__m128d{v[i], v[i + 1]});
        r[i] = pair[0];
        r[i + 1] = pair[1];
    }
#else
    for (int i = 0; i < N; ++i)
        r[i] = std::sqrt(v[i]);
#endif
    return r;
}

std::int64_t floor_int(double v) {
    return static_cast<std::int64_t>(std::floor(v));
}

// Columns are computed N at a time; a row's arrays are padded by kPad (the largest N) so the last
// group (and Worley's last group of a span, which runs into the next span's columns, rewritten by
// that span since spans go left to right) stays inside.
constexpr int kPad = 4;

// Simplex works through a row in chunks of this many columns (its per-column arrays then fit the
// L1 cache together).
constexpr int kChunk = 256;

// The simplex grid, as in simplex_noise (same expressions, so the same doubles).
struct SimplexGrid {
    double skew = 0.5 * (std::sqrt(3.0) - 1.0), unskew = (3.0 - std::sqrt(3.0)) / 6.0;
};

// Simplex, pass 1: each cell's simplex cell (fi, fj: the lower corner of the skewed square holding
// it, as doubles) and its offset x0, y0 from that corner. Needs |x| + |y| < 2^30.
TILEGEN_LANES void simplex_cells(const double* xs, double y, int n, double* fi, double* fj,
                                 double* x0, double* y0) {
    const SimplexGrid g;
    for (int c = 0; c < n; c += N) {
        const Vec<N> x = load<N>(xs + c);
        const Vec<N> s = (x + y) * g.skew;
        const Vec<N> i = floor_small<N>(x + s), j = floor_small<N>(y + s);
        const Vec<N> t = (i + j) * g.unskew;
        store<N>(fi + c, i);
        store<N>(fj + c, j);
        store<N>(x0 + c, x - (i - t));
        store<N>(y0 + c, y - (j - t));
    }
}

// Simplex, pass 2: the row as spans of columns in one skewed square each: span s holds columns
// begin[s] .. begin[s + 1] - 1. Without a branch per column: a vector pass marks the columns whose
// square differs from the previous column's (mask lanes: -1 or 0), then every column is written as
// a candidate start and kept (the count moves on) only where marked. Returns the number of spans.
TILEGEN_LANES int simplex_spans(int n, const SimplexScratch& w) {
    for (int c = 1; c < n; c += N) {
        const auto changed = (load<N>(w.fi + c) != load<N>(w.fi + c - 1)) |
                             (load<N>(w.fj + c) != load<N>(w.fj + c - 1));
        std::memcpy(w.changed + c, &changed, sizeof changed);
    }
    int spans = 1;
    w.begin[0] = 0;
    for (int c = 1; c < n; ++c) {
        w.begin[spans] = c;
        spans -= static_cast<int>(w.changed[c]);
    }
    w.begin[spans] = n;
    return spans;
}

// The gradients of the corners (i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1) of the skewed
// squares a row crosses, one square after the other. Along a row the square only moves right or
// down (i and j never decrease), so each square hashes the two corners it does not share with the
// previous one.
class SquareCorners {
  public:
    explicit SquareCorners(std::uint64_t stream) : stream_(stream) {}
    void move_to(std::int64_t i, std::int64_t j) {
        if (have_ && i == i_ + 1 && j == j_) { // one square right
            g_[0] = g_[1];
            g_[2] = g_[3];
            load(i + 1, j, g_[1]);
            load(i + 1, j + 1, g_[3]);
        } else if (have_ && i == i_ && j == j_ + 1) { // one square down
            g_[0] = g_[2];
            g_[1] = g_[3];
            load(i, j + 1, g_[2]);
            load(i + 1, j + 1, g_[3]);
        } else {
            for (int k = 0; k < 4; ++k)
                load(i + (k & 1), j + (k >> 1), g_[k]);
        }
        have_ = true;
        i_ = i;
        j_ = j;
    }
    double x(int corner) const { return g_[corner].x; }
    double y(int corner) const { return g_[corner].y; }

  private:
    struct Gradient {
        double x = 0, y = 0;
    };
    void load(std::int64_t i, std::int64_t j, Gradient& g) const {
        lattice_gradient(stream_, i, j, g.x, g.y);
    }
    std::uint64_t stream_;
    bool have_ = false;
    std::int64_t i_ = 0, j_ = 0;
    Gradient g_[4]; // (i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)
};

// Simplex, pass 3: per span (its square's gradients hashed, then held constant), the three corners'
// contributions (0.5 - |d|^2)^4 * (g . d) where 0.5 - |d|^2 > 0: corners (i, j), then (i + 1, j)
// below the diagonal (x0 > y0) or (i, j + 1) above it, then (i + 1, j + 1); summed in that order,
// times 99 and clamped to [-1, 1]. A corner out of reach adds +0 or -0, which leaves the sum as it
// is (the sum is never -0: it starts at +0, +0 + -0 is +0 and x + (-x) is +0). A span's last group
// of N columns runs into the next span's columns, which that span then rewrites (or into the
// padding).
TILEGEN_LANES void simplex_sums(std::uint64_t stream, const SimplexScratch& w, int spans,
                                double* out) {
    const SimplexGrid grid;
    const double far = 2.0 * grid.unskew;
    SquareCorners square(stream);
    for (int s = 0; s < spans; ++s) {
        square.move_to(static_cast<std::int64_t>(w.fi[w.begin[s]]),
                       static_cast<std::int64_t>(w.fj[w.begin[s]]));
        const Vec<N> g00x = all<N>(square.x(0)), g00y = all<N>(square.y(0));
        const Vec<N> g10x = all<N>(square.x(1)), g10y = all<N>(square.y(1));
        const Vec<N> g01x = all<N>(square.x(2)), g01y = all<N>(square.y(2));
        const Vec<N> g11x = all<N>(square.x(3)), g11y = all<N>(square.y(3));
        for (int c = w.begin[s]; c < w.begin[s + 1]; c += N) {
            const Vec<N> x0 = load<N>(w.x0 + c), y0 = load<N>(w.y0 + c);
            const auto lower = x0 > y0;
            const Vec<N> si = lower ? all<N>(1.0) : all<N>(0.0);
            const Vec<N> sj = lower ? all<N>(0.0) : all<N>(1.0);
            const Vec<N> dx[3] = {x0, x0 - si + grid.unskew, x0 - 1.0 + far};
            const Vec<N> dy[3] = {y0, y0 - sj + grid.unskew, y0 - 1.0 + far};
            const Vec<N> gx[3] = {g00x, lower ? g10x : g01x, g11x};
            const Vec<N> gy[3] = {g00y, lower ? g10y : g01y, g11y};
            Vec<N> sum = all<N>(0.0);
            for (int k = 0; k < 3; ++k) {
                // Out of reach (f <= 0): f becomes +-0 and the term +-0.
                const Vec<N> f = max_of<N>(0.5 - dx[k] * dx[k] - dy[k] * dy[k], all<N>(0.0));
                const Vec<N> f2 = f * f;
                sum += f2 * f2 * (gx[k] * dx[k] + gy[k] * dy[k]);
            }
            store<N>(out + c, clamp_to<N>(sum * 99.0, -1.0, 1.0));
        }
    }
}

// One simplex octave over a chunk of at most kChunk columns (xs: their noise-space x) into out.
TILEGEN_LANES void simplex_chunk(std::uint64_t stream, const double* xs, double y, int n,
                                 const SimplexScratch& w, double* out) {
    simplex_cells<N>(xs, y, n, w.fi, w.fj, w.x0, w.y0);
    simplex_sums<N>(stream, w, simplex_spans<N>(n, w), out);
}

// Worley, the distance of a candidate feature point at x offset dx from the column (signed) and
// the row's part dy (dy^2 for Euclidean, else |dy|): squared Euclidean, Manhattan or Chebyshev.
template <int N, WorleyDistance D>
[[gnu::always_inline]] inline Vec<N> distance(const Vec<N>& dx, const Vec<N>& dy_part) {
    if constexpr (D == WorleyDistance::euclidean)
        return dx * dx + dy_part; // |dx| * |dx| is dx * dx
    else if constexpr (D == WorleyDistance::manhattan)
        return abs_of<N>(dx) + dy_part;
    else
        return max_of<N>(abs_of<N>(dx), dy_part);
}

// Worley, one span (columns [begin, end) in one lattice column ix) of a row of an octave: the
// nine candidate feature points of lattice columns ix - 1 .. ix + 1 and rows iy - 1 .. iy + 1
// (px: their x, dy: the row's part of their distance) are held constant, and each column keeps the
// nearest (f1) and second nearest (f2) distance, candidates in the reference's order (rows outer,
// columns inner). f2 = min(f2, max(f1, d)), f1 = min(f1, d) is the reference's
// "if (d < f1) {f2 = f1; f1 = d;} else if (d < f2) f2 = d;" as selects. Euclidean distances stay
// squared (the root is taken once per cell afterwards). f2 is written only when wanted.
template <int N, WorleyDistance D, bool F2>
[[gnu::always_inline]] inline void worley_span(const double* xs, int begin, int end,
                                               const double* px, const double* dy, double* f1_out,
                                               double* f2_out) {
    for (int c = begin; c < end; c += N) {
        const Vec<N> x = load<N>(xs + c);
        Vec<N> f1 = all<N>(1e9), f2 = all<N>(1e9);
        for (int k = 0; k < 9; ++k) {
            const Vec<N> d = distance<N, D>(px[k] - x, all<N>(dy[k]));
            if constexpr (F2) f2 = min_of<N>(f2, max_of<N>(f1, d));
            f1 = min_of<N>(f1, d);
        }
        store<N>(f1_out + c, f1);
        if constexpr (F2) store<N>(f2_out + c, f2);
    }
}

// Worley's octave value from f1 and f2 (squared if Euclidean): the returned distance, * 1.5 (f1,
// f2 - f1) or 1 (f2), * 2 - 1, clamped to [-1, 1], as fractal_noise does. Written over f1.
template <int N, WorleyReturn R, bool Squared>
[[gnu::always_inline]] inline void worley_values(double* f1s, const double* f2s, int n) {
    for (int c = 0; c < n; c += N) {
        Vec<N> f1 = load<N>(f1s + c), f2 = load<N>(f2s + c);
        if constexpr (Squared) {
            if constexpr (R != WorleyReturn::f2) f1 = square_root<N>(f1);
            if constexpr (R != WorleyReturn::f1) f2 = square_root<N>(f2);
        }
        Vec<N> w;
        if constexpr (R == WorleyReturn::f1)
            w = f1 * 1.5;
        else if constexpr (R == WorleyReturn::f2)
            w = f2 * 1.0;
        else
            w = (f2 - f1) * 1.5;
        store<N>(f1s + c, clamp_to<N>(w * 2.0 - 1.0, -1.0, 1.0));
    }
}

// One Worley octave of a row, for one distance and return: every span, then the values.
template <int N, WorleyDistance D, WorleyReturn R>
[[gnu::always_inline]] inline void worley_row(const WorleyRow& w) {
    constexpr bool f2 = R != WorleyReturn::f1;
    for (std::size_t s = 0; s < w.spans; ++s)
        worley_span<N, D, f2>(w.xs, w.begin[s], w.end[s], w.px + 9 * s, w.dy + 9 * s, w.f1, w.f2);
    worley_values<N, R, D == WorleyDistance::euclidean>(w.f1, w.f2, w.width);
}

template <int N, WorleyDistance D>
[[gnu::always_inline]] inline void worley_row(const WorleyRow& w) {
    switch (w.ret) {
    case WorleyReturn::f1:
        return worley_row<N, D, WorleyReturn::f1>(w);
    case WorleyReturn::f2:
        return worley_row<N, D, WorleyReturn::f2>(w);
    case WorleyReturn::f2_minus_f1:
        return worley_row<N, D, WorleyReturn::f2_minus_f1>(w);
    }
}

TILEGEN_LANES void worley_row(const WorleyRow& w) {
    switch (w.dist) {
    case WorleyDistance::euclidean:
        return worley_row<N, WorleyDistance::euclidean>(w);
    case WorleyDistance::manhattan:
        return worley_row<N, WorleyDistance::manhattan>(w);
    case WorleyDistance::chebyshev:
        return worley_row<N, WorleyDistance::chebyshev>(w);
    }
}

// One octave shaped by the fractal and added to the row's sum, as fractal_noise does.
template <int N, Fractal F>
[[gnu::always_inline]] inline void add_octave(double* sums, const double* v, int n,
                                              double amplitude) {
    for (int c = 0; c < n; c += N) {
        Vec<N> x = load<N>(v + c);
        if constexpr (F == Fractal::ridged) {
            x = 1.0 - 2.0 * abs_of<N>(x);
            x = x >= 0.0 ? x * x * 2.0 - 1.0 : all<N>(-1.0);
        } else if constexpr (F == Fractal::billow) {
            x = 2.0 * abs_of<N>(x) - 1.0;
        }
        store<N>(sums + c, load<N>(sums + c) + x * amplitude);
    }
}

TILEGEN_LANES void add_octave(Fractal f, double* sums, const double* v, int n, double amplitude) {
    switch (f) {
    case Fractal::fbm:
        return add_octave<N, Fractal::fbm>(sums, v, n, amplitude);
    case Fractal::ridged:
        return add_octave<N, Fractal::ridged>(sums, v, n, amplitude);
    case Fractal::billow:
        return add_octave<N, Fractal::billow>(sums, v, n, amplitude);
    }
}

// The row's cells: the fractal sum over the sum of amplitudes, mapped to [0, 1] and clamped, in
// float.
TILEGEN_LANES void finish_row(const double* sums, double total, int n, float* out) {
    for (int c = 0; c < n; c += N) {
        const Vec<N> v = clamp_to<N>((load<N>(sums + c) / total + 1.0) * 0.5, 0.0, 1.0);
        const auto f = __builtin_convertvector(v, typename Lanes<N>::Float);
        std::memcpy(out + c, &f, static_cast<std::size_t>(std::min(n - c, N)) * sizeof(float));
    }
}

#undef TILEGEN_LANES

// The kernels for N lanes, as plain functions (N = 4: compiled for AVX2, run only where the
// processor has it).
#define TILEGEN_KERNELS(N, NAME, TARGET)                                                           \
    TARGET void NAME##_simplex(std::uint64_t stream, const double* xs, double y, int n,            \
                               const SimplexScratch& w, double* out) {                             \
        simplex_chunk<N>(stream, xs, y, n, w, out);                                                \
    }                                                                                              \
    TARGET void NAME##_worley(const WorleyRow& w) {                                                \
        worley_row<N>(w);                                                                          \
    }                                                                                              \
    TARGET void NAME##_add(Fractal f, double* sums, const double* v, int n, double amplitude) {    \
        add_octave<N>(f, sums, v, n, amplitude);                                                   \
    }                                                                                              \
    TARGET void NAME##_finish(const double* sums, double total, int n, float* out) {               \
        finish_row<N>(sums, total, n, out);                                                        \
    }                                                                                              \
    constexpr PointNoiseKernels NAME##_kernels{NAME##_simplex, NAME##_worley, NAME##_add,          \
                                               NAME##_finish};

TILEGEN_KERNELS(2, sse2, )
#if defined(__x86_64__) && defined(__GNUC__)
TILEGEN_KERNELS(4, avx2, [[gnu::target("avx2")]])
#define TILEGEN_HAVE_AVX2_KERNELS 1
#endif
#undef TILEGEN_KERNELS

} // namespace

bool PointNoiseRows::wide_kernels_available() {
#if defined(TILEGEN_HAVE_AVX2_KERNELS)
    return avx2_enabled();
#else
    return false;
#endif
}

PointNoiseRows::PointNoiseRows(const NoiseSettings& s, std::uint64_t seed, int x, int width,
                               bool wide)
    : settings_(s), width_(std::max(width, 0)) {
    settings_.modifiers.clear();
    kernels_ = &sse2_kernels;
#if defined(TILEGEN_HAVE_AVX2_KERNELS)
    if (wide && wide_kernels_available()) kernels_ = &avx2_kernels;
#else
    (void)wide;
#endif
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
    if (s.kind == NoiseKind::worley) f2_.assign(padded, 0.0);
    if (s.kind == NoiseKind::simplex) {
        scratch_.assign(4 * static_cast<std::size_t>(kChunk + kPad), 0.0);
        span_begin_.assign(static_cast<std::size_t>(kChunk + 1), 0);
        changed_.assign(static_cast<std::size_t>(kChunk + kPad), 0);
    }
}

void PointNoiseRows::add_simplex(const Octave& o, double y) {
    if (!(o.largest_x + std::abs(y) < 0x1p30)) {
        // Too far out for floor_small: the reference, cell by cell.
        for (int c = 0; c < width_; ++c)
            value_[static_cast<std::size_t>(c)] =
                simplex_noise(o.stream, o.x[static_cast<std::size_t>(c)], y);
    } else {
        // A chunk of columns at a time, so that the passes' arrays stay in the L1 cache.
        const auto size = static_cast<std::size_t>(kChunk + kPad);
        double* at = scratch_.data();
        SimplexScratch w;
        for (double** array : {&w.fi, &w.fj, &w.x0, &w.y0}) {
            *array = at;
            at += size;
        }
        w.begin = span_begin_.data();
        w.changed = changed_.data();
        for (int first = 0; first < width_; first += kChunk)
            kernels_->simplex(o.stream, o.x.data() + first, y, std::min(kChunk, width_ - first), w,
                              value_.data() + first);
    }
    kernels_->add(settings_.fractal, sum_.data(), value_.data(), width_, o.amplitude);
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
    // Each span's nine candidates (lattice rows outer, columns inner): x, and the row's part of
    // the distance.
    const WorleyDistance dist = settings_.worley_distance;
    const std::size_t spans = o.begin.size();
    span_px_.resize(9 * spans);
    span_dy_.resize(9 * spans);
    for (std::size_t s = 0; s < spans; ++s) {
        const std::size_t cols[3] = {o.left[s], o.centre[s], o.right[s]};
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                const std::size_t k = 9 * s + static_cast<std::size_t>(3 * r + c);
                const double d = std::abs(o.py[r][cols[c]] - y);
                span_px_[k] = o.px[r][cols[c]];
                span_dy_[k] = dist == WorleyDistance::euclidean ? d * d : d;
            }
    }
    WorleyRow w;
    w.dist = dist;
    w.ret = settings_.worley_return;
    w.xs = o.x.data();
    w.spans = spans;
    w.begin = o.begin.data();
    w.end = o.end.data();
    w.px = span_px_.data();
    w.dy = span_dy_.data();
    w.f1 = value_.data();
    w.f2 = f2_.data();
    w.width = width_;
    kernels_->worley(w);
    kernels_->add(settings_.fractal, sum_.data(), value_.data(), width_, o.amplitude);
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
    kernels_->finish(sum_.data(), total_, width_, out);
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
