#include "core/classes/terrain_classes.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TILEGEN_HAVE_AVX2_SCAN 1
#endif

#include "core/cpu_features.hpp"
#include "core/parallel.hpp"

namespace tilegen {

namespace {

// The histogram of thresholds_from_shares. Fine buckets are those of a 2^16-bucket histogram:
// height * 2^16 truncated, at most 2^16 - 1, and fine bucket 0 for every height that is not a
// number in [2^-16, 2^15) (zero, negatives, NaN, infinities, huge values: what clamping x86's
// float-to-int conversion gives). A bucket is kFinePerBucket consecutive fine buckets, except
// bucket 0, which is fine bucket 0 alone. Why the bucket count does not change a threshold: outside
// bucket 0 buckets are monotone in the height and heights are ordinary positive numbers (equal
// means the same bits), so the cell of a given rank is the same value in any such histogram; bucket
// 0, the one place where NaN or -0 and +0 can make the pick depend on the order of the values,
// holds the same cells in the same (grid) order as the 2^16-bucket histogram did.
constexpr int kFineBuckets = 1 << 16;
constexpr int kFineShift = 5;
constexpr int kFinePerBucket = 1 << kFineShift;
constexpr int kBuckets = kFineBuckets / kFinePerBucket + 1;
static_assert(kBuckets <= 32767, "buckets are held in int16 lanes");

// Cells per chunk of the histogram pass (buckets computed into a buffer, then counted).
constexpr std::size_t kChunk = 64;
// Interleaved histograms of the histogram pass: smooth maps put runs of cells in one bucket, and
// increments of one counter wait for each other; four counters per bucket let four increments be
// under way.
constexpr std::size_t kHistograms = 4;

int bucket_of(float v) {
    const float scaled = v * static_cast<float>(kFineBuckets); // exact: a power of two
    if (!(scaled >= 1.0f && scaled < 2147483648.0f)) return 0;
    const int fine = static_cast<int>(std::min(scaled, static_cast<float>(kFineBuckets - 1)));
    return (fine + kFinePerBucket - 1) >> kFineShift;
}

#if defined(__SSE2__)
// bucket_of of four heights. max(NaN, 0) is 0, and so is the truncation of anything below 1; huge
// values are masked off.
inline __m128i buckets_of4(__m128 v) {
    const __m128 scaled = _mm_mul_ps(v, _mm_set1_ps(static_cast<float>(kFineBuckets)));
    const __m128 clamped = _mm_min_ps(_mm_max_ps(scaled, _mm_setzero_ps()),
                                      _mm_set1_ps(static_cast<float>(kFineBuckets - 1)));
    const __m128i fine = _mm_cvttps_epi32(clamped);
    const __m128i bucket =
        _mm_srli_epi32(_mm_add_epi32(fine, _mm_set1_epi32(kFinePerBucket - 1)), kFineShift);
    return _mm_and_si128(bucket,
                         _mm_castps_si128(_mm_cmplt_ps(scaled, _mm_set1_ps(2147483648.0f))));
}
#endif

// Running minima and maxima of heights that are not NaN, in kLanes lanes (v < lo ? v : lo is what
// minps computes, so the compiler keeps the lanes in vector registers); combined by range():
// min and max are exact in any order (+inf, -inf when every height was NaN or none was added).
struct RangeLanes {
    static constexpr std::size_t kLanes = 8;
    float lo[kLanes], hi[kLanes];
    RangeLanes() {
        std::fill_n(lo, kLanes, std::numeric_limits<float>::infinity());
        std::fill_n(hi, kLanes, -std::numeric_limits<float>::infinity());
    }
    void add(const float* v, std::size_t count) {
        std::size_t i = 0;
        for (; i + kLanes <= count; i += kLanes)
            for (std::size_t k = 0; k < kLanes; ++k) {
                lo[k] = v[i + k] < lo[k] ? v[i + k] : lo[k];
                hi[k] = hi[k] < v[i + k] ? v[i + k] : hi[k];
            }
        for (; i < count; ++i) {
            lo[0] = v[i] < lo[0] ? v[i] : lo[0];
            hi[0] = hi[0] < v[i] ? v[i] : hi[0];
        }
    }
    std::pair<float, float> range() const {
        float l = lo[0], h = hi[0];
        for (std::size_t k = 1; k < kLanes; ++k) {
            l = std::min(l, lo[k]);
            h = std::max(h, hi[k]);
        }
        return {l, h};
    }
};

// Buckets of v[0..count) into out; WithRange: each height added to `lanes` too (SSE2: eight
// heights at a time, lanes 0-7 as two vectors).
template <bool WithRange>
void buckets_of(const float* v, std::size_t count, std::uint16_t* out, RangeLanes& lanes) {
    std::size_t i = 0;
#if defined(__SSE2__)
    __m128 lo0 = _mm_loadu_ps(lanes.lo), lo1 = _mm_loadu_ps(lanes.lo + 4);
    __m128 hi0 = _mm_loadu_ps(lanes.hi), hi1 = _mm_loadu_ps(lanes.hi + 4);
    for (; i + 8 <= count; i += 8) {
        const __m128 a = _mm_loadu_ps(v + i), b = _mm_loadu_ps(v + i + 4);
        if constexpr (WithRange) { // minps(v, lo) is v < lo ? v : lo (NaN: lo), maxps alike
            lo0 = _mm_min_ps(a, lo0);
            lo1 = _mm_min_ps(b, lo1);
            hi0 = _mm_max_ps(a, hi0);
            hi1 = _mm_max_ps(b, hi1);
        }
        const __m128i bucket = _mm_packs_epi32(buckets_of4(a), buckets_of4(b));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), bucket);
    }
    if constexpr (WithRange) {
        _mm_storeu_ps(lanes.lo, lo0);
        _mm_storeu_ps(lanes.lo + 4, lo1);
        _mm_storeu_ps(lanes.hi, hi0);
        _mm_storeu_ps(lanes.hi + 4, hi1);
    }
#endif
    if constexpr (WithRange) lanes.add(v + i, count - i);
    for (; i < count; ++i)
        out[i] = static_cast<std::uint16_t>(bucket_of(v[i]));
}

// The heights of one bucket as a range of bit patterns read as unsigned numbers, wrapping around
// for bucket 0: bucket_of(v) == b exactly when (bits(v) - first) mod 2^32 < size.
struct BitRange {
    std::uint32_t first = 0, size = 0;
};
BitRange bits_of_bucket(int b) {
    auto bits = [](float v) {
        std::uint32_t u;
        std::memcpy(&u, &v, sizeof u);
        return u;
    };
    // The lowest height of bucket b >= 1 (exact: a multiple of 2^-16), and the end of the last one.
    auto lowest = [](int k) {
        return static_cast<float>((k - 1) * kFinePerBucket + 1) / static_cast<float>(kFineBuckets);
    };
    const std::uint32_t ordinary_first = bits(lowest(1)), ordinary_end = bits(32768.0f);
    if (b == 0) return {ordinary_end, ordinary_first - ordinary_end};
    const std::uint32_t first = bits(lowest(b)),
                        end = b + 1 < kBuckets ? bits(lowest(b + 1)) : ordinary_end;
    return {first, end - first};
}

#if defined(__SSE2__)
// Calls keep(i) for each cell i of [i0, i1) whose bits are in one of `ranges` (W of them), eight
// cells at a time; returns where it stopped (fewer than eight cells before i1).
template <std::size_t W, class Keep>
std::size_t scan_bit_ranges(const float* v, std::size_t i0, std::size_t i1, const BitRange* ranges,
                            const Keep& keep) {
    // (bits - first) mod 2^32 < size, unsigned, as a signed compare: both sides shifted by 2^31.
    __m128i first[W], size[W];
    for (std::size_t r = 0; r < W; ++r) {
        first[r] = _mm_set1_epi32(static_cast<int>(ranges[r].first ^ 0x80000000u));
        size[r] = _mm_set1_epi32(static_cast<int>(ranges[r].size ^ 0x80000000u));
    }
    std::size_t i = i0;
    for (; i + 8 <= i1; i += 8) {
        const __m128i x0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i));
        const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + i + 4));
        __m128i in0 = _mm_cmpgt_epi32(size[0], _mm_sub_epi32(x0, first[0]));
        __m128i in1 = _mm_cmpgt_epi32(size[0], _mm_sub_epi32(x1, first[0]));
        for (std::size_t r = 1; r < W; ++r) {
            in0 = _mm_or_si128(in0, _mm_cmpgt_epi32(size[r], _mm_sub_epi32(x0, first[r])));
            in1 = _mm_or_si128(in1, _mm_cmpgt_epi32(size[r], _mm_sub_epi32(x1, first[r])));
        }
        const int lanes =
            _mm_movemask_ps(_mm_castsi128_ps(in0)) | _mm_movemask_ps(_mm_castsi128_ps(in1)) << 4;
        if (lanes == 0) continue;
        for (int lane = 0; lane < 8; ++lane)
            if (lanes >> lane & 1) keep(i + static_cast<std::size_t>(lane));
    }
    return i;
}

#if defined(TILEGEN_HAVE_AVX2_SCAN)
// scan_bit_ranges sixteen cells a step (AVX2, run only where avx2_enabled): the same
// compares on vectors twice as wide, so the same cells kept in the same order.
template <std::size_t W, class Keep>
[[gnu::target("avx2")]] std::size_t scan_bit_ranges_avx2(const float* v, std::size_t i0,
                                                         std::size_t i1, const BitRange* ranges,
                                                         const Keep& keep) {
    __m256i first[W], size[W];
    for (std::size_t r = 0; r < W; ++r) {
        first[r] = _mm256_set1_epi32(static_cast<int>(ranges[r].first ^ 0x80000000u));
        size[r] = _mm256_set1_epi32(static_cast<int>(ranges[r].size ^ 0x80000000u));
    }
    std::size_t i = i0;
    for (; i + 16 <= i1; i += 16) {
        const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + i));
        const __m256i x1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + i + 8));
        __m256i in0 = _mm256_cmpgt_epi32(size[0], _mm256_sub_epi32(x0, first[0]));
        __m256i in1 = _mm256_cmpgt_epi32(size[0], _mm256_sub_epi32(x1, first[0]));
        for (std::size_t r = 1; r < W; ++r) {
            in0 = _mm256_or_si256(in0, _mm256_cmpgt_epi32(size[r], _mm256_sub_epi32(x0, first[r])));
            in1 = _mm256_or_si256(in1, _mm256_cmpgt_epi32(size[r], _mm256_sub_epi32(x1, first[r])));
        }
        unsigned lanes = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(in0))) |
                         static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(in1))) << 8;
        for (; lanes != 0; lanes &= lanes - 1)
            keep(i + static_cast<std::size_t>(std::countr_zero(lanes)));
    }
    return i;
}
#endif

constexpr std::size_t kRangesPerScan = 4;

// scan_bit_ranges (AVX2 where avx2_enabled, else SSE2) for 1 to kRangesPerScan ranges.
template <class Keep>
std::size_t scan_bit_ranges(const float* v, std::size_t i0, std::size_t i1,
                            std::span<const BitRange> ranges, const Keep& keep) {
    // Calls scan(integral_constant W) with W the number of ranges (at most kRangesPerScan).
    const auto by_count = [&](const auto& scan) {
        switch (ranges.size()) {
        case 1:
            return scan(std::integral_constant<std::size_t, 1>{});
        case 2:
            return scan(std::integral_constant<std::size_t, 2>{});
        case 3:
            return scan(std::integral_constant<std::size_t, 3>{});
        default:
            return scan(std::integral_constant<std::size_t, kRangesPerScan>{});
        }
    };
#if defined(TILEGEN_HAVE_AVX2_SCAN)
    if (avx2_enabled())
        return by_count([&](auto w) {
            return scan_bit_ranges_avx2<decltype(w)::value>(v, i0, i1, ranges.data(), keep);
        });
#endif
    return by_count([&](auto w) {
        return scan_bit_ranges<decltype(w)::value>(v, i0, i1, ranges.data(), keep);
    });
}
#endif

// Adds to counts[i] the cells of class id i among p[0..n), for ids below `ids` (at most 256).
void add_class_counts(const ClassId* p, std::size_t n, std::uint64_t* counts, std::size_t ids) {
    std::size_t done = 0;
#if defined(__SSE2__)
    // Per group of four ids, byte counters (a compare gives -1 per match) summed into counts every
    // 255 vectors.
    done = n / 16 * 16;
    constexpr std::size_t kRun = 255 * 16;
    for (std::size_t id0 = 0; id0 < ids; id0 += 4) {
        const __m128i want0 = _mm_set1_epi8(static_cast<char>(id0));
        const __m128i want1 = _mm_set1_epi8(static_cast<char>(id0 + 1));
        const __m128i want2 = _mm_set1_epi8(static_cast<char>(id0 + 2));
        const __m128i want3 = _mm_set1_epi8(static_cast<char>(id0 + 3));
        for (std::size_t r0 = 0; r0 < done; r0 += kRun) {
            const std::size_t r1 = std::min(done, r0 + kRun);
            __m128i c0 = _mm_setzero_si128(), c1 = c0, c2 = c0, c3 = c0;
            for (std::size_t i = r0; i < r1; i += 16) {
                const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
                c0 = _mm_sub_epi8(c0, _mm_cmpeq_epi8(v, want0));
                c1 = _mm_sub_epi8(c1, _mm_cmpeq_epi8(v, want1));
                c2 = _mm_sub_epi8(c2, _mm_cmpeq_epi8(v, want2));
                c3 = _mm_sub_epi8(c3, _mm_cmpeq_epi8(v, want3));
            }
            const __m128i* sums[] = {&c0, &c1, &c2, &c3};
            for (std::size_t k = 0; k < 4 && id0 + k < ids; ++k) {
                const __m128i s =
                    _mm_sad_epu8(*sums[k], _mm_setzero_si128()); // two 64-bit sums, each < 2^12
                counts[id0 + k] +=
                    static_cast<std::uint32_t>(_mm_cvtsi128_si32(s)) +
                    static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(s, 8)));
            }
        }
    }
#endif
    for (std::size_t i = done; i < n; ++i)
        if (p[i] < ids) ++counts[p[i]];
}

#if defined(__SSE2__)
// Thresholds for band_of of 16 heights at a time, as int16 in two vectors (cells 0-7 and 8-15). A
// fixed count P, the given thresholds padded with NaN, which no height reaches (height >= NaN is
// false, as in band_of), so the loop over them is unrolled and they stay in registers.
template <std::size_t P> struct PaddedThresholds {
    __m128 t[P];
    explicit PaddedThresholds(std::span<const float> thresholds) {
        for (std::size_t k = 0; k < P; ++k)
            t[k] = _mm_set1_ps(k < thresholds.size() ? thresholds[k]
                                                     : std::numeric_limits<float>::quiet_NaN());
    }
    void bands16(const float* v, __m128i& lo, __m128i& hi) const {
        const __m128 h0 = _mm_loadu_ps(v), h1 = _mm_loadu_ps(v + 4);
        const __m128 h2 = _mm_loadu_ps(v + 8), h3 = _mm_loadu_ps(v + 12);
        __m128i b0 = _mm_setzero_si128(), b1 = b0, b2 = b0, b3 = b0;
        for (std::size_t k = 0; k < P; ++k) { // a reached threshold compares as -1
            b0 = _mm_sub_epi32(b0, _mm_castps_si128(_mm_cmpge_ps(h0, t[k])));
            b1 = _mm_sub_epi32(b1, _mm_castps_si128(_mm_cmpge_ps(h1, t[k])));
            b2 = _mm_sub_epi32(b2, _mm_castps_si128(_mm_cmpge_ps(h2, t[k])));
            b3 = _mm_sub_epi32(b3, _mm_castps_si128(_mm_cmpge_ps(h3, t[k])));
        }
        lo = _mm_packs_epi32(b0, b1);
        hi = _mm_packs_epi32(b2, b3);
    }
};

// The same for any count (fewer than 2^15).
struct AnyThresholds {
    std::span<const float> t;
    void bands16(const float* v, __m128i& lo, __m128i& hi) const {
        const __m128 h0 = _mm_loadu_ps(v), h1 = _mm_loadu_ps(v + 4);
        const __m128 h2 = _mm_loadu_ps(v + 8), h3 = _mm_loadu_ps(v + 12);
        __m128i b0 = _mm_setzero_si128(), b1 = b0, b2 = b0, b3 = b0;
        for (float threshold : t) {
            const __m128 tk = _mm_set1_ps(threshold);
            b0 = _mm_sub_epi32(b0, _mm_castps_si128(_mm_cmpge_ps(h0, tk)));
            b1 = _mm_sub_epi32(b1, _mm_castps_si128(_mm_cmpge_ps(h1, tk)));
            b2 = _mm_sub_epi32(b2, _mm_castps_si128(_mm_cmpge_ps(h2, tk)));
            b3 = _mm_sub_epi32(b3, _mm_castps_si128(_mm_cmpge_ps(h3, tk)));
        }
        lo = _mm_packs_epi32(b0, b1);
        hi = _mm_packs_epi32(b2, b3);
    }
};

// Calls f with the smallest fitting threshold set.
template <class F> void with_thresholds(std::span<const float> thresholds, const F& f) {
    if (thresholds.size() <= 2)
        f(PaddedThresholds<2>(thresholds));
    else if (thresholds.size() <= 4)
        f(PaddedThresholds<4>(thresholds));
    else if (thresholds.size() <= 8)
        f(PaddedThresholds<8>(thresholds));
    else
        f(AnyThresholds{thresholds});
}
#endif

// Cells per piece of the classify passes: each piece is classified, mapped through the table and
// counted while it is in the L1 cache.
constexpr std::size_t kPiece = 2048;

// dst[i] = band_of(heights[i]) for i < n.
void classify_piece(const float* heights, std::span<const float> thresholds, ClassId* dst,
                    std::size_t n) {
    std::size_t i = 0;
#if defined(__SSE2__)
    if (thresholds.size() < 256) { // bands fit a byte without wrapping
        with_thresholds(thresholds, [&](const auto& bands) {
            for (std::size_t k = 0; k + 16 <= n; k += 16) {
                __m128i lo, hi;
                bands.bands16(heights + k, lo, hi);
                _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + k), _mm_packus_epi16(lo, hi));
            }
        });
        i = n / 16 * 16;
    }
#endif
    for (; i < n; ++i)
        dst[i] = static_cast<ClassId>(band_of(heights[i], thresholds));
}

// dst[i] = table[band_of(rows[i]) * columns + band_of(columns[i])] for i < n <= kPiece (columns:
// column_thresholds.size() + 1).
void classify_table_piece(const float* rows, std::span<const float> row_thresholds,
                          const float* columns, std::span<const float> column_thresholds,
                          const ClassId* table, ClassId* dst, std::size_t n) {
    const std::size_t ncols = column_thresholds.size() + 1;
    std::size_t i = 0;
#if defined(__SSE2__)
    if ((row_thresholds.size() + 1) * ncols <= 256) { // table indices fit a byte
        // Row bands times the column count, then plus the column bands: table indices; then through
        // the table.
        const std::size_t n16 = n / 16 * 16;
        alignas(16) std::array<std::uint8_t, kPiece> index;
        with_thresholds(row_thresholds, [&](const auto& bands) {
            const __m128i columns16 = _mm_set1_epi16(static_cast<short>(ncols));
            for (std::size_t k = 0; k < n16; k += 16) {
                __m128i lo, hi;
                bands.bands16(rows + k, lo, hi);
                const __m128i row_part = _mm_packus_epi16(_mm_mullo_epi16(lo, columns16),
                                                          _mm_mullo_epi16(hi, columns16));
                _mm_store_si128(reinterpret_cast<__m128i*>(index.data() + k), row_part);
            }
        });
        with_thresholds(column_thresholds, [&](const auto& bands) {
            for (std::size_t k = 0; k < n16; k += 16) {
                __m128i lo, hi;
                bands.bands16(columns + k, lo, hi);
                __m128i* at = reinterpret_cast<__m128i*>(index.data() + k);
                _mm_store_si128(at, _mm_add_epi8(_mm_load_si128(at), _mm_packus_epi16(lo, hi)));
            }
        });
        for (std::size_t k = 0; k < n16; k += 16)
            for (std::size_t j = 0; j < 16; ++j)
                dst[k + j] = table[index[k + j]];
        i = n16;
    }
#endif
    for (; i < n; ++i)
        dst[i] = table[band_of(rows[i], row_thresholds) * ncols +
                       band_of(columns[i], column_thresholds)];
}

// Rows of the grid split into `blocks` contiguous cell ranges, one per work item, each with its own
// class counts (integers added in any order: the same for any thread count).
template <class Body>
void for_each_block(const ClassGrid& out, int threads, std::vector<std::uint64_t>* counts,
                    const Body& body) {
    const int blocks = std::max(1, std::min(threads, std::max(out.height(), 1)));
    const std::size_t ids = counts ? std::min<std::size_t>(counts->size(), 256) : 0;
    std::vector<std::vector<std::uint64_t>> partial(static_cast<std::size_t>(blocks),
                                                    std::vector<std::uint64_t>(ids, 0));
    parallel_for(blocks, blocks, [&](int b0, int b1) {
        for (int b = b0; b < b1; ++b) {
            const auto rows = static_cast<std::size_t>(out.height());
            const std::size_t y0 =
                rows * static_cast<std::size_t>(b) / static_cast<std::size_t>(blocks);
            const std::size_t y1 =
                rows * static_cast<std::size_t>(b + 1) / static_cast<std::size_t>(blocks);
            const auto width = static_cast<std::size_t>(out.width());
            body(y0 * width, y1 * width, partial[static_cast<std::size_t>(b)].data(), ids);
        }
    });
    if (!counts) return;
    std::fill(counts->begin(), counts->end(), 0);
    for (const auto& p : partial)
        for (std::size_t id = 0; id < ids; ++id)
            (*counts)[id] += p[id];
}

// Classifies `out` piece by piece (at most kPiece cells each, in blocks over `threads`):
// classify_piece(p0, n) writes the classes of cells p0 .. p0 + n - 1, which are then counted into
// `counts` when given. classify and classify_table differ only in classify_piece.
template <class ClassifyPiece>
void classify_in_pieces(ClassGrid& out, int threads, std::vector<std::uint64_t>* counts,
                        const ClassifyPiece& classify_piece) {
    const ClassId* dst = out.cells().data();
    for_each_block(
        out, threads, counts,
        [&](std::size_t i0, std::size_t i1, std::uint64_t* block_counts, std::size_t ids) {
            for (std::size_t p0 = i0; p0 < i1; p0 += kPiece) {
                const std::size_t n = std::min(i1, p0 + kPiece) - p0;
                classify_piece(p0, n);
                if (ids) add_class_counts(dst + p0, n, block_counts, ids);
            }
        });
}

} // namespace

std::vector<float> thresholds_from_shares(const Grid<float>& heights,
                                          const std::vector<double>& shares, int threads,
                                          std::pair<float, float>* range) {
    std::vector<float> thresholds;
    const std::size_t n = heights.size();
    const float* v = heights.cells().data();
    if (shares.size() < 2) {
        if (range) {
            RangeLanes lanes;
            lanes.add(v, n);
            *range = lanes.range();
        }
        return thresholds;
    }
    // Per-block histograms added in block order: integer sums, the same for any thread count.
    const int blocks = std::max(1, threads);
    auto block_begin = [&](int b) {
        return n * static_cast<std::size_t>(b) / static_cast<std::size_t>(blocks);
    };
    std::vector<std::vector<std::uint32_t>> partial(static_cast<std::size_t>(blocks));
    std::vector<RangeLanes> ranges_of_blocks(static_cast<std::size_t>(blocks));
    parallel_for(blocks, blocks, [&](int b0, int b1) {
        for (int b = b0; b < b1; ++b) {
            const std::size_t i0 = block_begin(b), i1 = block_begin(b + 1);
            std::vector<std::uint32_t> hist(kHistograms * kBuckets, 0);
            std::array<std::uint16_t, kChunk> bucket;
            std::uint32_t* h = hist.data();
            RangeLanes& lanes = ranges_of_blocks[static_cast<std::size_t>(b)];
            for (std::size_t first = i0; first < i1; first += kChunk) {
                const std::size_t count = std::min(kChunk, i1 - first);
                if (range)
                    buckets_of<true>(v + first, count, bucket.data(), lanes);
                else
                    buckets_of<false>(v + first, count, bucket.data(), lanes);
                std::size_t k = 0;
                for (; k + kHistograms <= count; k += kHistograms) {
                    ++h[bucket[k]];
                    ++h[kBuckets + bucket[k + 1]];
                    ++h[2 * kBuckets + bucket[k + 2]];
                    ++h[3 * kBuckets + bucket[k + 3]];
                }
                for (; k < count; ++k)
                    ++h[bucket[k]];
            }
            auto& sum = partial[static_cast<std::size_t>(b)];
            sum.assign(hist.begin(), hist.begin() + kBuckets);
            for (std::size_t j = 1; j < kHistograms; ++j)
                for (std::size_t k = 0; k < static_cast<std::size_t>(kBuckets); ++k)
                    sum[k] += hist[j * kBuckets + k];
        }
    });
    if (range) {
        *range = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
        for (const RangeLanes& lanes : ranges_of_blocks) {
            const auto [lo, hi] = lanes.range();
            range->first = std::min(range->first, lo);
            range->second = std::max(range->second, hi);
        }
    }
    std::vector<std::uint32_t> histogram(kBuckets, 0);
    for (const auto& hist : partial)
        for (std::size_t k = 0; k < static_cast<std::size_t>(kBuckets); ++k)
            histogram[k] += hist[k];

    // Which bucket each threshold falls in, and its rank inside that bucket.
    struct Cut {
        bool beyond = false; // the share reaches the end: nothing is at or above the threshold
        std::size_t bucket = 0, rank = 0;
    };
    std::vector<Cut> cuts;
    double cumulative = 0;
    std::size_t bucket = 0, below = 0; // cells in buckets before `bucket`
    for (std::size_t i = 0; i + 1 < shares.size(); ++i) {
        cumulative += shares[i];
        // rank of the first cell of class i + 1 in sorted order
        std::size_t rank = static_cast<std::size_t>(
            std::llround(std::clamp(cumulative, 0.0, 1.0) * static_cast<double>(n)));
        if (rank >= n) {
            cuts.push_back({true, 0, 0});
            continue;
        }
        while (below + histogram[bucket] <= rank)
            below += histogram[bucket++];
        cuts.push_back({false, bucket, rank - below});
    }
    // The values of the buckets that hold a threshold, collected in one pass (per block, then
    // joined in block order: grid order); the threshold is the rank-th smallest of its bucket. The
    // pass tests eight cells at a time against each wanted bucket's range of bit patterns and looks
    // closer only at the cells in one of them.
    std::vector<int> slot_of_bucket(kBuckets, -1);
    std::vector<int> wanted;
    for (const Cut& c : cuts)
        if (!c.beyond && slot_of_bucket[c.bucket] < 0) {
            slot_of_bucket[c.bucket] = static_cast<int>(wanted.size());
            wanted.push_back(static_cast<int>(c.bucket));
        }
    std::vector<BitRange> ranges;
    for (int w : wanted)
        ranges.push_back(bits_of_bucket(w));
    std::vector<std::vector<std::vector<float>>> found(
        static_cast<std::size_t>(blocks), std::vector<std::vector<float>>(wanted.size()));
    if (!wanted.empty())
        parallel_for(blocks, blocks, [&](int b0, int b1) {
            for (int b = b0; b < b1; ++b) {
                auto& mine = found[static_cast<std::size_t>(b)];
                const std::size_t i0 = block_begin(b), i1 = block_begin(b + 1);
                auto keep = [&](std::size_t i) {
                    const int slot = slot_of_bucket[static_cast<std::size_t>(bucket_of(v[i]))];
                    if (slot >= 0) mine[static_cast<std::size_t>(slot)].push_back(v[i]);
                };
                std::size_t i = i0;
#if defined(__SSE2__)
                // Up to kRangesPerScan buckets per scan (each bucket's values stay in grid order).
                const std::span<const BitRange> all(ranges);
                for (std::size_t r = 0; r < all.size(); r += kRangesPerScan)
                    i = scan_bit_ranges(
                        v, i0, i1, all.subspan(r, std::min(kRangesPerScan, all.size() - r)), keep);
#endif
                for (; i < i1; ++i)
                    keep(i);
            }
        });
    std::vector<std::vector<float>> in_bucket(wanted.size());
    for (std::size_t k = 0; k < wanted.size(); ++k)
        for (const auto& mine : found)
            in_bucket[k].insert(in_bucket[k].end(), mine[k].begin(), mine[k].end());
    for (const Cut& c : cuts) {
        if (c.beyond) {
            thresholds.push_back(std::nextafter(1.0f, 2.0f)); // nothing reaches it
            continue;
        }
        auto& values = in_bucket[static_cast<std::size_t>(slot_of_bucket[c.bucket])];
        auto nth = values.begin() + static_cast<std::ptrdiff_t>(c.rank);
        std::nth_element(values.begin(), nth, values.end());
        float t = *nth;
        if (!thresholds.empty()) t = std::max(t, thresholds.back());
        thresholds.push_back(t);
    }
    return thresholds;
}

ClassGrid classify(const Grid<float>& heights, const std::vector<float>& thresholds, int threads,
                   std::vector<std::uint64_t>* counts) {
    ClassGrid out = ClassGrid::uninitialised(heights.width(), heights.height());
    const float* src = heights.cells().data();
    ClassId* dst = out.cells().data();
    classify_in_pieces(out, threads, counts, [&](std::size_t p0, std::size_t n) {
        classify_piece(src + p0, thresholds, dst + p0, n);
    });
    return out;
}

ClassGrid classify_table(const Grid<float>& rows, const std::vector<float>& row_thresholds,
                         const Grid<float>& columns, const std::vector<float>& column_thresholds,
                         std::span<const ClassId> table, int threads,
                         std::vector<std::uint64_t>* counts) {
    ClassGrid out = ClassGrid::uninitialised(rows.width(), rows.height());
    const float* rv = rows.cells().data();
    const float* cv = columns.cells().data();
    ClassId* dst = out.cells().data();
    classify_in_pieces(out, threads, counts, [&](std::size_t p0, std::size_t n) {
        classify_table_piece(rv + p0, row_thresholds, cv + p0, column_thresholds, table.data(),
                             dst + p0, n);
    });
    return out;
}

std::vector<std::uint64_t> class_counts(const ClassGrid& classes, int class_count, int threads) {
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(std::max(class_count, 0)), 0);
    const ClassId* c = classes.cells().data();
    for_each_block(classes, threads, &counts,
                   [&](std::size_t i0, std::size_t i1, std::uint64_t* block_counts,
                       std::size_t ids) { add_class_counts(c + i0, i1 - i0, block_counts, ids); });
    return counts;
}

std::vector<double> fractions_of_counts(const std::vector<std::uint64_t>& counts,
                                        std::size_t cells) {
    std::vector<double> fractions(counts.size(), 0.0);
    if (cells > 0)
        for (std::size_t i = 0; i < counts.size(); ++i)
            fractions[i] = static_cast<double>(counts[i]) / static_cast<double>(cells);
    return fractions;
}

std::vector<double> class_fractions(const ClassGrid& classes, int class_count, int threads) {
    return fractions_of_counts(class_counts(classes, class_count, threads), classes.size());
}

} // namespace tilegen
