// Low-level helpers of object placement: bitsets of map rows, SSE2 masks of class bytes and
// densities, division by a multiply, uniform integers by a multiply-shift, acceptance at a density
// with no division. Each is exact: the same answer as the plain expression its comment gives, on
// every build (SSE2 or not).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tilegen {

// Row-major bitset, zero at first; each row starts on a word. Zeroed by calloc: a large one is
// fresh zero pages, touched first by the threads that use them. The stride is not a 64-bit integer,
// so the compiler knows that writing words never changes it.
class BitRows {
  public:
    BitRows(int width, int height)
        : stride_(static_cast<unsigned>((width + 63) / 64)),
          words_(static_cast<std::uint64_t*>(std::calloc(
              std::max<std::size_t>(std::size_t{stride_} * static_cast<std::size_t>(height), 1),
              sizeof(std::uint64_t)))) {
        if (!words_) throw std::bad_alloc();
    }

    // Rows y0..y1-1 back to zero.
    void clear(int y0, int y1) { std::fill(row(y0), row(y1), 0); }
    std::uint64_t* row(int y) { return words_.get() + static_cast<std::size_t>(y) * stride_; }
    const std::uint64_t* row(int y) const {
        return words_.get() + static_cast<std::size_t>(y) * stride_;
    }
    bool test(int x, int y) const { return (row(y)[x >> 6] >> (x & 63)) & 1u; }

  private:
    struct Free {
        void operator()(std::uint64_t* p) const { std::free(p); }
    };
    unsigned stride_;
    std::unique_ptr<std::uint64_t[], Free> words_;
};

// Sets bits x0..x1 (inclusive) of a row of words.
inline void set_bits(std::uint64_t* row, int x0, int x1) {
    const int w0 = x0 >> 6, w1 = x1 >> 6;
    const std::uint64_t lo = ~0ull << (x0 & 63), hi = ~0ull >> (63 - (x1 & 63));
    if (w0 == w1) {
        row[w0] |= lo & hi;
        return;
    }
    row[w0] |= lo;
    for (int i = w0 + 1; i < w1; ++i)
        row[i] = ~0ull;
    row[w1] |= hi;
}

#if defined(__SSE2__)
// Bytes in one or two runs of values, lo..lo+n-1 each, 64 at a time: bit i of mask64(p) is whether
// p[i] lies in a run. Per run, (byte - lo) as an unsigned byte is at most n - 1.
class ByteRuns {
  public:
    // n1 == 0: the first run only.
    ByteRuns(int lo0, int n0, int lo1, int n1)
        : lo0_(_mm_set1_epi8(static_cast<char>(lo0))),
          top0_(_mm_set1_epi8(static_cast<char>(n0 - 1))),
          lo1_(_mm_set1_epi8(static_cast<char>(lo1))),
          top1_(_mm_set1_epi8(static_cast<char>(n1 - 1))), two_(n1 > 0) {}

    std::uint64_t mask64(const std::uint8_t* p) const {
        std::uint64_t m = 0;
        for (int k = 0; k < 64; k += 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k));
            const __m128i d0 = _mm_sub_epi8(v, lo0_);
            __m128i in = _mm_cmpeq_epi8(_mm_min_epu8(d0, top0_), d0);
            if (two_) {
                const __m128i d1 = _mm_sub_epi8(v, lo1_);
                in = _mm_or_si128(in, _mm_cmpeq_epi8(_mm_min_epu8(d1, top1_), d1));
            }
            m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(in))) << k;
        }
        return m;
    }

  private:
    __m128i lo0_, top0_, lo1_, top1_;
    bool two_;
};
#endif

// Bit j (j < n <= 16) of the result: !(d[j] <= t), i.e. d[j] > t or d[j] is NaN.
inline std::uint64_t floats_above(const float* d, int n, float t) {
    std::uint64_t m = 0;
#if defined(__SSE2__)
    if (n == 16) {
        const __m128 tv = _mm_set1_ps(t);
        for (int j = 0; j < 16; j += 4)
            m |= static_cast<std::uint64_t>(_mm_movemask_ps(_mm_cmpnle_ps(_mm_loadu_ps(d + j), tv)))
                 << j;
        return m;
    }
#endif
    for (int j = 0; j < n; ++j)
        m |= static_cast<std::uint64_t>(!(d[j] <= t)) << j;
    return m;
}

// x / d by a multiply and a shift: exact for 0 <= x < 2^32 / d (d >= 1). With m = ceil(2^32 / d) =
// (2^32 + e) / d, e < d: x * m / 2^32 = x / d + x * e / (d * 2^32), and the second term stays below
// 1 / d.
class DivideBy {
  public:
    explicit DivideBy(int d)
        : magic_(((1ull << 32) + static_cast<std::uint64_t>(d) - 1) /
                 static_cast<std::uint64_t>(d)) {}
    int operator()(std::uint64_t x) const { return static_cast<int>((x * magic_) >> 32); }

  private:
    std::uint64_t magic_;
};

// Which of a block's two attempts pass acceptance at density d: bit a (0: the first, 1: the
// second) is set when !(u_a >= p), u_a = (32-bit half a of `bits`) / 2^32 and p = chance *
// clamp((d - threshold) / (1 - threshold), 0, 1), or 0 when threshold >= 1 (so a NaN p accepts).
// plain() computes that as written. operator() gives the same bits with no division where it can:
// q = (d - threshold) * (1 / (1 - threshold)) is within 3 * 2^-53 of the quotient (relative: two
// roundings against one), so the quotient lies in [q - e, q + e] with e = |q| * 2^-49 (computing
// the ends rounds by at most 2^-53 more); clamp and the product by chance >= 0 are monotonic, so
// p lies between the probabilities of the two ends, and where both ends give the same bits, so
// does p. Otherwise (u_a within about 2^-49 of p, a non-finite q, threshold outside 0..1 or
// chance below 0): plain().
class DensityAcceptance {
  public:
    DensityAcceptance(double threshold, double chance)
        : threshold_(threshold), chance_(chance),
          inverse_(threshold >= 0 && threshold < 1 ? 1 / (1 - threshold) : 0),
          fast_(threshold >= 0 && threshold < 1 && chance >= 0 && std::isfinite(inverse_)) {}

    std::uint32_t plain(std::uint64_t bits, double d) const {
        return below(bits,
                     chance_ * (threshold_ >= 1
                                    ? 0
                                    : std::clamp((d - threshold_) / (1 - threshold_), 0.0, 1.0)));
    }

    std::uint32_t operator()(std::uint64_t bits, double d) const {
        if (fast_) {
            const double q = (d - threshold_) * inverse_;
            if (std::isfinite(q)) {
                const double e = std::fabs(q) * 0x1p-49 + 0x1p-1000;
                const std::uint32_t lo = below(bits, chance_ * std::clamp(q - e, 0.0, 1.0));
                const std::uint32_t hi = below(bits, chance_ * std::clamp(q + e, 0.0, 1.0));
                if (lo == hi) return lo;
            }
        }
        return plain(bits, d);
    }

  private:
    // Bits of the attempts whose uniforms pass p: rejected exactly when u >= p.
    static std::uint32_t below(std::uint64_t bits, double p) {
        const double u0 =
            static_cast<double>(static_cast<std::uint32_t>(bits)) * (1.0 / 4294967296.0);
        const double u1 =
            static_cast<double>(static_cast<std::uint32_t>(bits >> 32)) * (1.0 / 4294967296.0);
        return static_cast<std::uint32_t>(!(u0 >= p)) |
               (static_cast<std::uint32_t>(!(u1 >= p)) << 1);
    }

    double threshold_, chance_, inverse_;
    bool fast_;
};

// A uniform integer in 0..n-1 from the low 16 bits of `bits`: floor((bits mod 2^16) * n / 2^16).
inline int scale16(std::uint64_t bits, int n) {
    return static_cast<int>(((bits & 0xffff) * static_cast<std::uint64_t>(n)) >> 16);
}

} // namespace tilegen
