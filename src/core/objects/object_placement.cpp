#include "core/objects/object_placement.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/hash.hpp"
#include "core/parallel.hpp"

// How it runs. Per rule, a jittered grid of blocks (block = floor(spacing / sqrt 2), so a block holds at most one
// anchor), two attempts per block. Cheap tests first: per band, bit masks of the cells the rule may stand on (class,
// and density above the threshold) skip blocks and cells with no chance before any hashing; occupancy (every rule's
// footprints) and spacing (a disc stamped around each accepted anchor of the current rule) are bitsets of the map,
// one bit per cell, so each test is a word read. The acceptance hashes of a row are computed first and only the
// accepted candidates go on (fewer unpredictable branches).
//
// Parallel and deterministic: the map is cut into bands of a fixed height (kBandRows rounded up to whole blocks, at
// least twice the spacing reach and a footprint height; never derived from the thread count). Per rule, the even
// bands run in parallel, then the odd bands, which see the finished even bands above and below. Two bands of one
// phase are a whole band apart, so they never read or write the same rows (or words) of the bitsets, and every
// decision depends only on a fixed order, whatever the thread count. Rules run one after another.

namespace tilegen {

namespace {

constexpr int kBandRows = 64;
// Rows per work item when the objects are put into drawing order (any split gives the same order).
constexpr int kSortRows = 64;

// Salts of the sprite pick per attempt (acceptance and jitter have their own streams).
constexpr std::array<std::uint64_t, 2> kPickSalt{0x94d049bb133111ebull, 0x61c8864680b583ebull};

// Row-major bitset, zero at first; each row starts on a word, so bands writing different rows never share a word.
// Zeroed by calloc: a large one is fresh zero pages, touched first by the threads that use them.
class BitRows {
public:
    BitRows(int width, int height)
        : stride_((static_cast<std::size_t>(width) + 63) / 64), size_(stride_ * static_cast<std::size_t>(height)),
          words_(static_cast<std::uint64_t*>(std::calloc(std::max<std::size_t>(size_, 1), sizeof(std::uint64_t)))) {
        if (!words_) throw std::bad_alloc();
    }

    // Rows y0..y1-1 back to zero.
    void clear(int y0, int y1) { std::fill(row(y0), row(y1), 0); }
    std::uint64_t* row(int y) { return words_.get() + static_cast<std::size_t>(y) * stride_; }
    const std::uint64_t* row(int y) const { return words_.get() + static_cast<std::size_t>(y) * stride_; }
    bool test(int x, int y) const { return (row(y)[x >> 6] >> (x & 63)) & 1u; }

private:
    struct Free {
        void operator()(std::uint64_t* p) const { std::free(p); }
    };
    std::size_t stride_, size_;
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
    for (int i = w0 + 1; i < w1; ++i) row[i] = ~0ull;
    row[w1] |= hi;
}

// Items 0..n-1 handed out one at a time to `threads` workers (dynamic, for balance). Items must be independent.
template <class F> void for_each_item(int n, int threads, F&& item) {
    threads = std::clamp(threads, 1, std::max(1, n));
    if (threads == 1) {
        for (int i = 0; i < n; ++i) item(i);
        return;
    }
    std::atomic<int> next{0};
    parallel_for(threads, threads, [&](int, int) {
        for (int i = next.fetch_add(1, std::memory_order_relaxed); i < n; i = next.fetch_add(1, std::memory_order_relaxed))
            item(i);
    });
}

// An accepted anchor: x, the row within its band, the sprite as an index into the rule's sprites.
struct Anchor {
    std::uint32_t x;
    std::uint16_t dy;
    std::uint16_t sprite;
};

// The anchors one band of one rule accepted, grouped by row and then by footprint height (bucket (dy, fh) at
// dy * max_fh + fh - 1), each group in increasing x: the scan takes block columns in order, one anchor at most per
// block. Also how many of them end (footprint bottom row) in each kSortRows-row chunk of the map, from first_chunk.
struct BandObjects {
    std::vector<Anchor> anchors;
    std::vector<std::uint32_t> start; // per bucket, plus the end
    std::vector<std::uint32_t> chunk_count;
    int first_chunk = 0;
};

// A candidate of a row (block 1) or block row: position or block column, attempts accepted (bit per attempt), the
// acceptance hash.
struct Candidate {
    std::uint32_t pos;
    std::uint32_t attempts;
    std::uint64_t hu;
};

struct RulePlan {
    int index = 0;
    bool active = false;                         // has sprites and classes to stand on
    std::array<bool, 256> allowed{};             // class -> may stand on it
    std::vector<std::pair<int, int>> class_runs; // the classes it may stand on, as runs (first, count)
    std::vector<int> sprite_index;               // sheet indices of the rule's sprites found in the sheet
    std::vector<int> fw, fh;                     // their footprints
    bool one_footprint = true;                   // all the same
    std::vector<std::uint64_t> pick_below;       // weight k is picked by a 53-bit uniform u with
                                                 // pick_below[k-1] <= u < pick_below[k] (empty: the first sprite)
    std::vector<int> pick;                       // weight k -> index into sprite_index
    const Grid<float>* density = nullptr;
    double threshold = 0, chance = 1;
    float threshold_below = 0;      // the largest float <= threshold: d > threshold <=> d > threshold_below
    std::uint64_t chance_limit = 0; // u / 2^32 < chance <=> u < chance_limit (32-bit u)
    int block = 1, blocks_w = 0, blocks_h = 0;
    std::uint64_t block_magic = 0; // x / block == (x * block_magic) >> 32 for every x of the map
    int reach = 0;                 // rows above/below an anchor that hold cells closer than the spacing
    std::vector<int> half_width;   // per dy in -reach..reach: max |dx| with dx^2 + dy^2 < spacing^2
    std::vector<std::uint64_t> disc; // per dy, when 2 * reach + 1 <= 64: bits reach-r .. reach+r
    int max_fh = 1;
    int band_blocks = 1, bands = 0; // band height in block rows; band count
    std::uint64_t jitter_stream = 0, accept_stream = 0;
    std::vector<BandObjects> out;
};

// Acceptance probability at density d: chance, scaled by density above the threshold.
inline double probability(const RulePlan& rp, double d) {
    return rp.chance * (rp.threshold >= 1 ? 0 : std::clamp((d - rp.threshold) / (1 - rp.threshold), 0.0, 1.0));
}

// Attempt bits (1: first, 2: second) whose 32-bit uniforms of hu pass probability p: rejected exactly when
// u >= p (so a NaN p accepts).
inline std::uint32_t attempts_below(std::uint64_t hu, double p) {
    const double u0 = static_cast<double>(static_cast<std::uint32_t>(hu)) * (1.0 / 4294967296.0);
    const double u1 = static_cast<double>(static_cast<std::uint32_t>(hu >> 32)) * (1.0 / 4294967296.0);
    return static_cast<std::uint32_t>(!(u0 >= p)) | (static_cast<std::uint32_t>(!(u1 >= p)) << 1);
}

inline std::uint32_t attempts_below(std::uint64_t hu, std::uint64_t limit) {
    return static_cast<std::uint32_t>((hu & 0xffffffffull) < limit) | (static_cast<std::uint32_t>((hu >> 32) < limit) << 1);
}

// The sprite (index into the rule's sprites) for a pick hash: weight k with probability weight / total.
inline int pick_sprite(const RulePlan& rp, std::uint64_t h_pick) {
    const std::size_t n = rp.pick_below.size();
    if (n == 0) return 0;
    const std::uint64_t u = h_pick >> 11;
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) k += u >= rp.pick_below[i];
    return k < n ? rp.pick[k] : 0;
}

struct Placer {
    const ClassGrid& classes;
    BitRows& occupied; // every rule's footprints
    BitRows& near;     // cells closer than its spacing to an anchor of the current rule
    int w, h, words;

    // Bit x of out: may the rule stand on cell (x, y) (its class is one of the rule's)?
    void class_mask(const RulePlan& rp, int y, std::uint64_t* out) const {
        const ClassId* c = classes.row(y);
        int wi = 0;
#if defined(__SSE2__)
        // Per run of consecutive classes lo..lo+n-1: (class - lo) as an unsigned byte is at most n - 1.
        if (rp.class_runs.size() <= 2) {
            const bool two = rp.class_runs.size() == 2;
            const __m128i lo0 = _mm_set1_epi8(static_cast<char>(rp.class_runs[0].first));
            const __m128i top0 = _mm_set1_epi8(static_cast<char>(rp.class_runs[0].second - 1));
            const __m128i lo1 = _mm_set1_epi8(static_cast<char>(two ? rp.class_runs[1].first : 0));
            const __m128i top1 = _mm_set1_epi8(static_cast<char>(two ? rp.class_runs[1].second - 1 : 0));
            for (; wi < w / 64; ++wi) {
                std::uint64_t m = 0;
                for (int k = 0; k < 64; k += 16) {
                    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + wi * 64 + k));
                    const __m128i d0 = _mm_sub_epi8(v, lo0);
                    __m128i in = _mm_cmpeq_epi8(_mm_min_epu8(d0, top0), d0);
                    if (two) {
                        const __m128i d1 = _mm_sub_epi8(v, lo1);
                        in = _mm_or_si128(in, _mm_cmpeq_epi8(_mm_min_epu8(d1, top1), d1));
                    }
                    m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(in))) << k;
                }
                out[wi] = m;
            }
        }
#endif
        for (; wi < words; ++wi) {
            const int x0 = wi * 64, n = std::min(64, w - x0);
            std::uint64_t m = 0;
            for (int i = 0; i < n; ++i) m |= static_cast<std::uint64_t>(rp.allowed[c[x0 + i]]) << i;
            out[wi] = m;
        }
    }

    // Bit x of out (rows y0..y1-1): may an anchor go on (x, y) as the map stands now? Its class is the rule's, it
    // is free and not too close to an anchor of the rule, and (with a density map) the density there is above the
    // threshold: density is read only for the 16-cell groups that pass the other tests. A NaN density passes, as
    // the acceptance test lets it through too.
    void free_rows(const RulePlan& rp, const std::uint64_t* cls, int cls_end, int y0, int y1, std::uint64_t* out) const {
        const std::size_t stride = static_cast<std::size_t>(words);
        for (int y = y0; y < y1; ++y, cls += stride, out += stride) {
            const std::uint64_t* occ = occupied.row(y);
            const std::uint64_t* nr = near.row(y);
            for (int wi = 0; wi < words; ++wi) out[wi] = cls[wi] & ~occ[wi] & ~nr[wi];
            if (!rp.density) continue;
            if (rp.threshold >= 1) {
                std::fill(out, out + words, 0);
                continue;
            }
            const float* d = rp.density->row(y);
            // The density of the rule's cells two rows down is fetched meanwhile (its lines are read sparsely).
            const std::uint64_t* ahead = y + 2 < cls_end ? cls + 2 * stride : nullptr;
            const float* d_ahead = ahead ? rp.density->row(y + 2) : nullptr;
            for (int wi = 0; wi < words; ++wi) {
                const std::uint64_t next = ahead ? ahead[wi] : 0;
                for (int k = 0; k < 64; k += 16) {
                    if ((next >> k) & 0xffffu) __builtin_prefetch(d_ahead + wi * 64 + k);
                    if (!((out[wi] >> k) & 0xffffu)) continue;
                    const int x0 = wi * 64 + k;
                    std::uint64_t m = 0;
#if defined(__SSE2__)
                    if (x0 + 16 <= w) {
                        const __m128 t = _mm_set1_ps(rp.threshold_below);
                        for (int j = 0; j < 16; j += 4)
                            m |= static_cast<std::uint64_t>(_mm_movemask_ps(_mm_cmpnle_ps(_mm_loadu_ps(d + x0 + j), t))) << j;
                        out[wi] &= ~(0xffffull << k) | (m << k);
                        continue;
                    }
#endif
                    for (int j = 0; j < 16 && x0 + j < w; ++j)
                        m |= static_cast<std::uint64_t>(!(d[x0 + j] <= rp.threshold_below)) << j;
                    out[wi] &= ~(0xffffull << k) | (m << k);
                }
            }
        }
    }

    // The footprint of sprite k at (x, y) lies inside the map, on the rule's classes (cls: class masks from row
    // cls_row0 on), and on no other footprint.
    [[gnu::always_inline]] bool footprint_fits(const RulePlan& rp, int k, int x, int y, const std::uint64_t* cls,
                                               int cls_row0) const {
        const int fw = rp.fw[static_cast<std::size_t>(k)], fh = rp.fh[static_cast<std::size_t>(k)];
        if (x + fw > w || y + fh > h) return false;
        const std::size_t stride = static_cast<std::size_t>(words);
        const int wi = x >> 6, s = x & 63;
        const std::uint64_t* c = cls + static_cast<std::size_t>(y - cls_row0) * stride + wi;
        const std::uint64_t* o = occupied.row(y) + wi;
        const std::uint64_t run = ~0ull >> (64 - fw);
        for (int fy = 0; fy < fh; ++fy, c += stride, o += stride) {
            std::uint64_t free = (c[0] & ~o[0]) >> s;
            if (s + fw > 64) free |= (c[1] & ~o[1]) << (64 - s);
            if ((free & run) != run) return false;
        }
        return true;
    }

    // Records the anchor, marks its footprint and stamps its spacing disc. Within a phase, bands are at least
    // 2 * reach rows high, so the rows one band stamps never meet the rows another band of the phase uses.
    [[gnu::always_inline]] void accept(const RulePlan& rp, BandObjects& out, int row0, int k, int x, int y) {
        const int fw = rp.fw[static_cast<std::size_t>(k)], fh = rp.fh[static_cast<std::size_t>(k)];
        out.anchors.push_back({static_cast<std::uint32_t>(x), static_cast<std::uint16_t>(y - row0), static_cast<std::uint16_t>(k)});
        ++out.chunk_count[static_cast<std::size_t>((y + fh - 1) / kSortRows - out.first_chunk)];
        const std::size_t stride = static_cast<std::size_t>(words);
        {
            const std::uint64_t run = ~0ull >> (64 - fw);
            const int wi = x >> 6, s = x & 63;
            std::uint64_t* row = occupied.row(y) + wi;
            for (int fy = 0; fy < fh; ++fy, row += stride) {
                row[0] |= run << s;
                if (s + fw > 64) row[1] |= run >> (64 - s);
            }
        }
        const int y0 = std::max(0, y - rp.reach), y1 = std::min(h - 1, y + rp.reach);
        if (!rp.disc.empty() && x >= rp.reach && x + rp.reach < w) {
            // The disc's rows as precomputed runs (bits past the map's width stay unused).
            const std::uint64_t* disc = rp.disc.data() + (y0 - y + rp.reach);
            const int x0 = x - rp.reach, wi = x0 >> 6, s = x0 & 63;
            std::uint64_t* row = near.row(y0) + wi;
            if (s + 2 * rp.reach + 1 <= 64) {
                for (int ny = y0; ny <= y1; ++ny, row += stride) row[0] |= *disc++ << s;
            } else {
                for (int ny = y0; ny <= y1; ++ny, row += stride, ++disc) {
                    row[0] |= *disc << s;
                    row[1] |= *disc >> (64 - s);
                }
            }
            return;
        }
        for (int ny = y0; ny <= y1; ++ny) {
            const int r = rp.half_width[static_cast<std::size_t>(ny - y + rp.reach)];
            set_bits(near.row(ny), std::max(0, x - r), std::min(w - 1, x + r));
        }
    }

    void place_band(RulePlan& rp, int band) {
        BandObjects& out = rp.out[static_cast<std::size_t>(band)];
        const int by0 = band * rp.band_blocks, by1 = std::min(rp.blocks_h, by0 + rp.band_blocks);
        const int row0 = by0 * rp.block, row1 = std::min(h, by1 * rp.block);
        out.first_chunk = row0 / kSortRows;
        const int last_row = std::min(h, row1 + rp.max_fh - 1) - 1; // the lowest row its footprints can reach
        out.chunk_count.assign(static_cast<std::size_t>(last_row / kSortRows - out.first_chunk + 1), 0);
        out.start.assign(static_cast<std::size_t>((row1 - row0) * rp.max_fh) + 1, 0);
        std::vector<std::uint32_t> count(static_cast<std::size_t>(rp.block * rp.max_fh));
        std::vector<Anchor> scratch;
        // The anchors of block row by (from index `first` on) into their buckets, keeping their order in each.
        auto bucket_block_row = [&](int by, std::size_t first) {
            const std::size_t last = out.anchors.size();
            const int b0 = (by * rp.block - row0) * rp.max_fh; // the block row's first bucket
            const auto nb = static_cast<std::size_t>((std::min(row1, (by + 1) * rp.block) - by * rp.block) * rp.max_fh);
            std::fill(count.begin(), count.begin() + static_cast<std::ptrdiff_t>(nb), 0);
            int distinct = 0;
            for (std::size_t i = first; i < last; ++i) {
                const Anchor& a = out.anchors[i];
                const auto key = static_cast<std::size_t>(a.dy * rp.max_fh + rp.fh[a.sprite] - 1 - b0);
                distinct += count[key]++ == 0;
            }
            auto at = static_cast<std::uint32_t>(first);
            for (std::size_t key = 0; key < nb; ++key) {
                out.start[static_cast<std::size_t>(b0) + key] = at;
                const std::uint32_t n = count[key];
                count[key] = at; // from here on: where the bucket's next anchor goes
                at += n;
            }
            if (distinct <= 1) return; // already in order
            scratch.assign(out.anchors.begin() + static_cast<std::ptrdiff_t>(first), out.anchors.end());
            for (const Anchor& a : scratch)
                out.anchors[count[static_cast<std::size_t>(a.dy * rp.max_fh + rp.fh[a.sprite] - 1 - b0)]++] = a;
        };
        // Class masks of the band's rows and of the rows its footprints reach below. Anchors also need density
        // above the threshold: those masks are made a block row at a time, while that part of the map is in cache.
        const std::size_t stride = static_cast<std::size_t>(words);
        const int cls_rows = std::min(h, row1 + rp.max_fh - 1) - row0;
        std::unique_ptr<std::uint64_t[]> cls(new std::uint64_t[static_cast<std::size_t>(cls_rows) * stride]);
        for (int y = row0; y < row0 + cls_rows; ++y) class_mask(rp, y, cls.get() + static_cast<std::size_t>(y - row0) * stride);
        std::unique_ptr<std::uint64_t[]> free(new std::uint64_t[static_cast<std::size_t>(rp.block) * stride]);
        // Room for a typical band's anchors, so the list rarely grows.
        out.anchors.reserve(std::min<std::size_t>(static_cast<std::size_t>(by1 - by0) * static_cast<std::size_t>(rp.blocks_w) / 8 + 16, 8192));
        std::vector<Candidate> cand(static_cast<std::size_t>(rp.block == 1 ? w : rp.blocks_w));

        // The accepted attempts of (x, y) in order: sprite, footprint; true once one is placed.
        auto place_at = [&](std::uint32_t attempts, std::uint64_t hu, int x, int y) __attribute__((always_inline)) {
            if (rp.one_footprint) {
                // Every sprite has the same footprint: it fits for all attempts or none, and the first accepted
                // attempt picks the sprite.
                if (!footprint_fits(rp, 0, x, y, cls.get(), row0)) return false;
                const int a = (attempts & 1u) ? 0 : 1;
                accept(rp, out, row0, pick_sprite(rp, mix64(hu ^ kPickSalt[static_cast<std::size_t>(a)])), x, y);
                return true;
            }
            for (int a = 0; a < 2; ++a) {
                if (!((attempts >> a) & 1u)) continue;
                const int k = pick_sprite(rp, mix64(hu ^ kPickSalt[static_cast<std::size_t>(a)]));
                if (!footprint_fits(rp, k, x, y, cls.get(), row0)) continue;
                accept(rp, out, row0, k, x, y);
                return true;
            }
            return false;
        };

        if (rp.block == 1) {
            // No jitter: both attempts share the cell, its position tests and its acceptance probability. Cells on
            // allowed classes (and density), free and not too close to an anchor when the row starts are hashed;
            // the accepted ones are tested again as they come (anchors to their left may have covered them).
            for (int y = row0; y < row1; ++y) {
                const std::size_t first = out.anchors.size();
                free_rows(rp, cls.get() + static_cast<std::size_t>(y - row0) * stride, row0 + cls_rows, y, y + 1, free.get());
                const std::uint64_t* m = free.get();
                const float* d = rp.density ? rp.density->row(y) : nullptr;
                std::size_t n = 0;
                for (int wi = 0; wi < words; ++wi)
                    for (std::uint64_t bits = m[wi]; bits; bits &= bits - 1) {
                        const int x = wi * 64 + __builtin_ctzll(bits);
                        const std::uint64_t hu = hash_position(rp.accept_stream, x, y);
                        const std::uint32_t attempts =
                            d ? attempts_below(hu, probability(rp, d[x])) : attempts_below(hu, rp.chance_limit);
                        cand[n] = {static_cast<std::uint32_t>(x), attempts, hu};
                        n += attempts != 0;
                    }
                for (std::size_t i = 0; i < n; ++i) {
                    const int x = static_cast<int>(cand[i].pos);
                    if (occupied.test(x, y) || near.test(x, y)) continue;
                    place_at(cand[i].attempts, cand[i].hu, x, y);
                }
                bucket_block_row(y, first);
            }
            out.start.back() = static_cast<std::uint32_t>(out.anchors.size());
            return;
        }

        std::vector<std::uint64_t> any(stride);
        for (int by = by0; by < by1; ++by) {
            const std::size_t first = out.anchors.size();
            // Blocks with no allowed, free and spaced cell when the block row starts have no chance; the others are
            // hashed, and those with an accepted attempt (without density: known before the position) go on.
            const int y0 = by * rp.block, y1 = std::min(row1, y0 + rp.block);
            free_rows(rp, cls.get() + static_cast<std::size_t>(y0 - row0) * stride, row0 + cls_rows, y0, y1, free.get());
            std::fill(any.begin(), any.end(), 0);
            for (int y = y0; y < y1; ++y) {
                const std::uint64_t* m = free.get() + static_cast<std::size_t>(y - y0) * stride;
                for (int wi = 0; wi < words; ++wi) any[static_cast<std::size_t>(wi)] |= m[wi];
            }
            std::size_t n = 0;
            int next_x = 0; // the first cell of the next block
            for (int wi = 0; wi < words; ++wi) {
                std::uint64_t bits = any[static_cast<std::size_t>(wi)];
                if (next_x > wi * 64) bits = next_x >= wi * 64 + 64 ? 0 : bits & (~0ull << (next_x - wi * 64));
                while (bits) {
                    const auto x = static_cast<std::uint64_t>(wi * 64 + __builtin_ctzll(bits));
                    const auto bx = static_cast<int>((x * rp.block_magic) >> 32);
                    next_x = (bx + 1) * rp.block;
                    bits = next_x >= wi * 64 + 64 ? 0 : bits & (~0ull << (next_x - wi * 64));
                    const std::uint64_t hu = hash_position(rp.accept_stream, bx, by);
                    const std::uint32_t attempts = rp.density ? 3u : attempts_below(hu, rp.chance_limit);
                    cand[n] = {static_cast<std::uint32_t>(bx), attempts, hu};
                    n += attempts != 0;
                }
            }
            for (std::size_t i = 0; i < n; ++i) {
                const int bx = static_cast<int>(cand[i].pos);
                const std::uint64_t hu = cand[i].hu, hj = hash_position(rp.jitter_stream, bx, by);
                for (int a = 0; a < 2; ++a) {
                    if (!((cand[i].attempts >> a) & 1u)) continue;
                    // Jitter inside the block: 16 bits per coordinate and attempt, scaled by a multiply-shift.
                    const std::uint64_t jit = hj >> (32 * a);
                    const int x = bx * rp.block + static_cast<int>(((jit & 0xffff) * static_cast<std::uint64_t>(rp.block)) >> 16);
                    const int y = y0 + static_cast<int>((((jit >> 16) & 0xffff) * static_cast<std::uint64_t>(rp.block)) >> 16);
                    if (x >= w || y >= h) continue;
                    const std::uint64_t* m = free.get() + static_cast<std::size_t>(y - y0) * stride;
                    // Allowed and free (as the block row started), and still free and not too close now.
                    const bool open = ((m[x >> 6] & ~occupied.row(y)[x >> 6] & ~near.row(y)[x >> 6]) >> (x & 63)) & 1u;
                    if (!open) continue;
                    if (rp.density && !((attempts_below(hu, probability(rp, (*rp.density)(x, y))) >> a) & 1u)) continue;
                    if (place_at(1u << a, hu, x, y)) break;
                }
            }
            bucket_block_row(by, first);
        }
        out.start.back() = static_cast<std::uint32_t>(out.anchors.size());
    }
};

RulePlan plan_rule(const ObjectRule& rule, int index, const NamedMaps& maps, const SpriteSheet& sheet, int w, int h,
                   std::uint64_t seed) {
    RulePlan rp;
    rp.index = index;
    for (const auto& name : rule.sprites)
        for (std::size_t s = 0; s < sheet.sprites.size() && rp.sprite_index.size() < 65535; ++s)
            if (sheet.sprites[s].name == name) {
                rp.sprite_index.push_back(static_cast<int>(s));
                rp.fw.push_back(std::clamp(sheet.sprites[s].footprint_w, 1, 64)); // the sheet keeps them in 1..16
                rp.fh.push_back(std::clamp(sheet.sprites[s].footprint_h, 1, 64));
            }
    for (int c = 0; c < kMaxClasses; ++c)
        if ((rule.on >> c) & 1u) {
            rp.allowed[static_cast<std::size_t>(c)] = true;
            if (!rp.class_runs.empty() && rp.class_runs.back().first + rp.class_runs.back().second == c)
                ++rp.class_runs.back().second;
            else
                rp.class_runs.emplace_back(c, 1);
        }
    rp.active = !rp.sprite_index.empty() && !rp.class_runs.empty();
    if (!rp.active) return rp;
    for (const auto& [name, g] : maps)
        if (name == rule.density) rp.density = &g;
    // A density map smaller than the class map cannot be read at every cell: treated as none.
    if (rp.density && (rp.density->width() < w || rp.density->height() < h)) rp.density = nullptr;
    double total_weight = 0;
    for (double wt : rule.weights) total_weight += std::max(0.0, wt);
    if (rp.sprite_index.size() > 1 && total_weight > 0) {
        // Weight k picks the rule's k-th sprite (the last one found when the sheet lacks some).
        double acc = 0;
        for (std::size_t k = 0; k < rule.weights.size(); ++k) {
            acc += std::max(0.0, rule.weights[k]);
            rp.pick_below.push_back(
                static_cast<std::uint64_t>(std::ceil(std::min(1.0, acc / total_weight) * 9007199254740992.0)));
            rp.pick.push_back(static_cast<int>(std::min(k, rp.sprite_index.size() - 1)));
        }
    }
    rp.threshold = rule.threshold;
    rp.threshold_below = static_cast<float>(rule.threshold);
    if (static_cast<double>(rp.threshold_below) > rule.threshold)
        rp.threshold_below = std::nextafter(rp.threshold_below, -std::numeric_limits<float>::infinity());
    rp.chance = rule.chance;
    rp.chance_limit = rule.chance <= 0   ? 0
                      : rule.chance >= 1 ? (1ull << 32)
                                         : static_cast<std::uint64_t>(std::ceil(rule.chance * 4294967296.0));
    rp.block = std::max(1, static_cast<int>(std::floor(rule.spacing / std::sqrt(2.0))));
    rp.block_magic = ((1ull << 32) + static_cast<std::uint64_t>(rp.block) - 1) / static_cast<std::uint64_t>(rp.block);
    rp.blocks_w = (w + rp.block - 1) / rp.block;
    rp.blocks_h = (h + rp.block - 1) / rp.block;
    const double spacing2 = rule.spacing * rule.spacing;
    while (static_cast<double>(rp.reach + 1) * (rp.reach + 1) < spacing2) ++rp.reach;
    for (int dy = -rp.reach; dy <= rp.reach; ++dy) {
        int r = 0;
        while (static_cast<double>(r + 1) * (r + 1) + static_cast<double>(dy) * dy < spacing2) ++r;
        rp.half_width.push_back(r);
    }
    if (2 * rp.reach + 1 <= 64)
        for (int r : rp.half_width) rp.disc.push_back((~0ull >> (63 - 2 * r)) << (rp.reach - r));
    for (int fh : rp.fh) rp.max_fh = std::max(rp.max_fh, fh);
    for (std::size_t k = 1; k < rp.fw.size(); ++k)
        rp.one_footprint = rp.one_footprint && rp.fw[k] == rp.fw[0] && rp.fh[k] == rp.fh[0];
    const int band_rows = std::max({kBandRows, 2 * rp.reach, rp.max_fh});
    rp.band_blocks = (band_rows + rp.block - 1) / rp.block;
    rp.bands = (rp.blocks_h + rp.band_blocks - 1) / rp.band_blocks;
    rp.out.resize(static_cast<std::size_t>(rp.bands));
    const std::uint64_t stream = hash_values(seed, 0x6f626a656374ull /* "object" */, static_cast<std::uint64_t>(index));
    rp.jitter_stream = mix64(stream ^ 0x6a6974746572ull /* "jitter" */);
    rp.accept_stream = mix64(stream ^ 0x616363657074ull /* "accept" */);
    return rp;
}

} // namespace

std::vector<PlacedObject> place_objects(const ClassGrid& classes, const NamedMaps& maps,
                                        const std::vector<ObjectRule>& rules, const SpriteSheet& sheet,
                                        std::uint64_t seed, int threads) {
    std::vector<PlacedObject> placed;
    const int w = classes.width(), h = classes.height();
    if (w == 0 || h == 0) return placed;
    BitRows occupied(w, h), near(w, h);
    Placer placer{classes, occupied, near, w, h, (w + 63) / 64};

    std::vector<RulePlan> plans;
    plans.reserve(rules.size());
    bool stamped = false;
    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        plans.push_back(plan_rule(rules[ri], static_cast<int>(ri), maps, sheet, w, h, seed));
        RulePlan& rp = plans.back();
        if (!rp.active) continue;
        if (stamped)
            for_each_item((h + kBandRows - 1) / kBandRows, threads,
                          [&](int i) { near.clear(i * kBandRows, std::min(h, (i + 1) * kBandRows)); });
        stamped = true;
        for (int phase = 0; phase < 2; ++phase)
            for_each_item((rp.bands - phase + 1) / 2, threads, [&](int i) { placer.place_band(rp, 2 * i + phase); });
    }

    // Drawing order: by footprint bottom row, then x. No two objects share both (they would overlap), so the order
    // is total and any split of the work gives the same result. The objects ending in each chunk of rows are
    // counted during placement, so each chunk writes its own part of the result: per row, the objects ending
    // there are gathered from the few block rows that can hold them and emitted in x order through a bitset of
    // columns.
    const int chunks = (h + kSortRows - 1) / kSortRows;
    std::vector<std::size_t> offset(static_cast<std::size_t>(chunks) + 1, 0);
    for (const RulePlan& rp : plans)
        for (const BandObjects& band : rp.out)
            for (std::size_t c = 0; c < band.chunk_count.size(); ++c)
                offset[static_cast<std::size_t>(band.first_chunk) + c + 1] += band.chunk_count[c];
    for (std::size_t c = 0; c < static_cast<std::size_t>(chunks); ++c) offset[c + 1] += offset[c];
    placed.resize(offset.back());
    for_each_item(chunks, threads, [&](int chunk) {
        std::vector<PlacedObject> slot(static_cast<std::size_t>(w));
        std::vector<std::uint64_t> columns((static_cast<std::size_t>(w) + 63) / 64, 0);
        PlacedObject* out = placed.data() + offset[static_cast<std::size_t>(chunk)];
        const int r0 = chunk * kSortRows, r1 = std::min(h, r0 + kSortRows);
        for (int r = r0; r < r1; ++r) {
            // The objects ending in row r: per rule and footprint height fh, the bucket of row r - fh + 1.
            for (const RulePlan& rp : plans) {
                if (!rp.active) continue;
                const int band_rows = rp.band_blocks * rp.block;
                for (int fh = 1; fh <= rp.max_fh && fh <= r + 1; ++fh) {
                    const int y = r - fh + 1, b = y / band_rows;
                    const BandObjects& band = rp.out[static_cast<std::size_t>(b)];
                    const auto k = static_cast<std::size_t>((y - b * band_rows) * rp.max_fh + fh - 1);
                    const Anchor* a = band.anchors.data() + band.start[k];
                    const Anchor* end = band.anchors.data() + band.start[k + 1];
                    for (; a != end; ++a) {
                        slot[a->x] = {rp.sprite_index[a->sprite], static_cast<int>(a->x), y, rp.index};
                        columns[a->x >> 6] |= 1ull << (a->x & 63);
                    }
                }
            }
            for (std::size_t wi = 0; wi < columns.size(); ++wi) {
                for (std::uint64_t bits = columns[wi]; bits; bits &= bits - 1)
                    *out++ = slot[wi * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))];
                columns[wi] = 0;
            }
        }
    });
    return placed;
}

} // namespace tilegen
