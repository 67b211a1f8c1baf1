#include "core/hydrology/priority_flood.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "core/cpu_features.hpp"
#include "core/parallel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TILEGEN_HAVE_AVX2_QUANTISE 1
#endif

namespace tilegen {

namespace {

// The range of src[0..n): eight running minima and maxima (independent chains the compiler keeps
// in vector registers), combined at the end; min and max are exact in any order.
std::pair<float, float> range_of(const float* src, std::size_t n) {
    constexpr std::size_t kLanes = 8;
    float lo_lane[kLanes], hi_lane[kLanes];
    std::fill_n(lo_lane, kLanes, std::numeric_limits<float>::infinity());
    std::fill_n(hi_lane, kLanes, -std::numeric_limits<float>::infinity());
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (std::size_t k = 0; k < kLanes; ++k) {
            const float v = src[i + k];
            lo_lane[k] = v < lo_lane[k] ? v : lo_lane[k];
            hi_lane[k] = hi_lane[k] < v ? v : hi_lane[k];
        }
    for (; i < n; ++i) {
        lo_lane[0] = std::min(lo_lane[0], src[i]);
        hi_lane[0] = std::max(hi_lane[0], src[i]);
    }
    float lo = lo_lane[0], hi = hi_lane[0];
    for (std::size_t k = 1; k < kLanes; ++k) {
        lo = std::min(lo, lo_lane[k]);
        hi = std::max(hi, hi_lane[k]);
    }
    return {lo, hi};
}

// The quantising loop of quantise_heights on src[0..k) for the largest k <= count that is a
// multiple of 8 (returned), eight cells at a time with SSE2: the same double operations in the
// same order, then the clamp as max(t, 0) (NaN gives 0, as the scalar conversion of a NaN does
// here) and min(t, 65535), truncated; 0 without SSE2.
std::size_t quantise_sse2(const float* src, std::uint16_t* dst, std::size_t count, float lo,
                          double scale) {
#if defined(__SSE2__)
    const __m128d low = _mm_set1_pd(static_cast<double>(lo)), mul = _mm_set1_pd(scale),
                  half = _mm_set1_pd(0.5), zero = _mm_setzero_pd(), top = _mm_set1_pd(65535.0);
    const __m128i bias = _mm_set1_epi32(32768), flip = _mm_set1_epi16(static_cast<short>(0x8000));
    auto two = [&](const float* p) { // two cells as int32 in the low half
        const __m128d v =
            _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
        const __m128d t = _mm_add_pd(_mm_mul_pd(_mm_sub_pd(v, low), mul), half);
        return _mm_cvttpd_epi32(_mm_min_pd(_mm_max_pd(t, zero), top));
    };
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m128i a = _mm_unpacklo_epi64(two(src + i), two(src + i + 2));
        const __m128i b = _mm_unpacklo_epi64(two(src + i + 4), two(src + i + 6));
        // 0..65535 to uint16: shifted into int16's range, packed (exact), shifted back.
        const __m128i packed = _mm_packs_epi32(_mm_sub_epi32(a, bias), _mm_sub_epi32(b, bias));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_xor_si128(packed, flip));
    }
    return i;
#else
    (void)src;
    (void)dst;
    (void)count;
    (void)lo;
    (void)scale;
    return 0;
#endif
}

#if defined(TILEGEN_HAVE_AVX2_QUANTISE)
// Four cells of quantise_avx2 as int32.
[[gnu::target("avx2")]] inline __m128i quantise_four(const float* p, __m256d low, __m256d mul) {
    const __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(p));
    const __m256d t = _mm256_add_pd(_mm256_mul_pd(_mm256_sub_pd(v, low), mul), _mm256_set1_pd(0.5));
    return _mm256_cvttpd_epi32(
        _mm256_min_pd(_mm256_max_pd(t, _mm256_setzero_pd()), _mm256_set1_pd(65535.0)));
}

// quantise_sse2 four doubles to a vector (AVX2, run only where avx2_enabled): the same
// double operations in the same order, so the same levels.
[[gnu::target("avx2")]] std::size_t quantise_avx2(const float* src, std::uint16_t* dst,
                                                  std::size_t count, float lo, double scale) {
    const __m256d low = _mm256_set1_pd(static_cast<double>(lo)), mul = _mm256_set1_pd(scale);
    const __m128i bias = _mm_set1_epi32(32768), flip = _mm_set1_epi16(static_cast<short>(0x8000));
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m128i a = _mm_sub_epi32(quantise_four(src + i, low, mul), bias);
        const __m128i b = _mm_sub_epi32(quantise_four(src + i + 4, low, mul), bias);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm_xor_si128(_mm_packs_epi32(a, b), flip));
    }
    return i;
}
#endif

// quantise_avx2 where AVX2 is enabled (avx2_enabled), else quantise_sse2.
std::size_t quantise_wide(const float* src, std::uint16_t* dst, std::size_t count, float lo,
                          double scale) {
#if defined(TILEGEN_HAVE_AVX2_QUANTISE)
    if (avx2_enabled()) return quantise_avx2(src, dst, count, lo, scale);
#endif
    return quantise_sse2(src, dst, count, lo, scale);
}

} // namespace

Grid<std::uint16_t> quantise_heights(const Grid<float>& heights, int threads,
                                     std::optional<std::pair<float, float>> range) {
    Grid<std::uint16_t> q = Grid<std::uint16_t>::uninitialised(heights.width(), heights.height());
    if (heights.empty()) return q;
    const int w = heights.width(), h = heights.height();
    const std::size_t uw = static_cast<std::size_t>(w);
    // The range by bands of rows, combined: exact in any order.
    constexpr float kInf = std::numeric_limits<float>::infinity();
    float lo = kInf, hi = -kInf;
    if (range) {
        std::tie(lo, hi) = *range;
    } else {
        for (const auto& [band_lo, band_hi] : parallel_bands(h, threads, [&](int y0, int y1) {
                 return range_of(heights.row(y0), static_cast<std::size_t>(y1 - y0) * uw);
             })) {
            lo = std::min(lo, band_lo);
            hi = std::max(hi, band_hi);
        }
    }
    const double scale = hi > lo ? 65535.0 / (static_cast<double>(hi) - lo) : 0.0;
    parallel_for(h, threads, [&](int y0, int y1) {
        const float* src = heights.row(y0);
        std::uint16_t* dst = q.row(y0);
        const std::size_t count = static_cast<std::size_t>(y1 - y0) * uw;
        const std::size_t done = quantise_wide(src, dst, count, lo, scale);
        for (std::size_t i = done; i < count; ++i) {
            const double t = (static_cast<double>(src[i]) - lo) * scale + 0.5;
            dst[i] = static_cast<std::uint16_t>(std::clamp(t, 0.0, 65535.0));
        }
    });
    return q;
}

FlowField priority_flood(Grid<std::uint16_t> level) {
    FlowField f;
    const int w = level.width(), h = level.height();
    const std::size_t n = level.size();
    f.filled = Grid<std::uint16_t>::uninitialised(w, h);
    f.down = Grid<std::uint8_t>(w, h, 0xff);
    f.order.reserve(n);
    if (n == 0) {
        f.level = std::move(level);
        return f;
    }
    constexpr std::uint32_t kNone = 0xffffffffu;
    // The bucket queue: one FIFO list per level, linked through `next`.
    std::vector<std::uint32_t> head(65536, kNone), tail(65536, kNone);
    std::vector<std::uint32_t> next(n);
    const std::uint16_t* q = level.cells().data();
    std::uint16_t* filled = f.filled.cells().data();
    std::uint8_t* down = f.down.cells().data();
    auto push = [&](std::uint32_t c, std::uint16_t lv) {
        next[c] = kNone;
        if (head[lv] == kNone)
            head[lv] = c;
        else
            next[tail[lv]] = c;
        tail[lv] = c;
    };
    // Seeds: the edge cells in reading order, each draining off the map on its outer side.
    std::uint32_t lowest = 65535;
    auto seed = [&](int x, int y) {
        const std::uint32_t c = static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(w) +
                                static_cast<std::uint32_t>(x);
        if (down[c] != 0xff) return;
        down[c] = kDrainOff | (y == 0       ? drain_north
                               : y == h - 1 ? drain_south
                               : x == 0     ? drain_west
                                            : drain_east);
        filled[c] = q[c];
        lowest = std::min<std::uint32_t>(lowest, q[c]);
        push(c, q[c]);
    };
    for (int x = 0; x < w; ++x)
        seed(x, 0);
    for (int y = 1; y < h - 1; ++y) {
        seed(0, y);
        seed(w - 1, y);
    }
    for (int x = 0; x < w; ++x)
        seed(x, h - 1);

    const std::uint32_t uw = static_cast<std::uint32_t>(w);
    std::uint32_t cur = lowest;
    for (;;) {
        while (cur < 65536 && head[cur] == kNone)
            ++cur;
        if (cur >= 65536) break;
        const std::uint32_t c = head[cur];
        head[cur] = next[c];
        f.order.push_back(c);
        const std::uint16_t lv = static_cast<std::uint16_t>(cur);
        const std::uint32_t x = c % uw, y = c / uw;
        auto visit = [&](std::uint32_t nb, Drain towards_c) {
            if (down[nb] != 0xff) return;
            down[nb] = towards_c;
            const std::uint16_t v = std::max(q[nb], lv);
            filled[nb] = v;
            push(nb, v);
        };
        if (y > 0) visit(c - uw, drain_south);
        if (x > 0) visit(c - 1, drain_east);
        if (x + 1 < uw) visit(c + 1, drain_west);
        if (y + 1 < static_cast<std::uint32_t>(h)) visit(c + uw, drain_north);
    }
    f.level = std::move(level);
    return f;
}

} // namespace tilegen
