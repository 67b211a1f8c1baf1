#include "core/objects/object_placement.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/hash.hpp"
#include "core/parallel.hpp"

// How it runs. Per rule, a jittered grid of blocks (block = floor(spacing / sqrt 2), so a block
// holds at most one anchor), two attempts per block, decided in scan order: block rows top to
// bottom, blocks left to right. Cheap tests first: bit masks of the cells the rule may stand on
// (class, and density above the threshold) skip blocks and cells with no chance before any hashing;
// occupancy (every rule's footprints) and spacing (a disc stamped around each accepted anchor of
// the current rule) are bitsets of the map, one bit per cell, so each test is a word read. The
// acceptance hashes of a row are computed first and only the accepted candidates go on (fewer
// unpredictable branches).
//
// Parallel and deterministic: every decision is the one a single top-to-bottom scan makes, whatever
// the thread count, so there are no seams where parallel work meets (work split into bands that
// each start with nothing above them, or that fill in between finished bands, packs their first
// rows and thins their last ones). The scan is cut into tiles: a group of block rows (at least
// kGroupRows rows, twice the spacing reach and a footprint height) by a strip of block columns
// whose edges lean left by `skew` block columns per block row (at least the spacing reach and a
// footprint width). A cell then never sees the cells of the tile to its right in the rows above
// (earlier in the scan, not decided yet) nor those of the tile to its left in the rows below
// (decided already, but later in the scan). A tile runs once the tile to its left and the tile
// above and to the right (which follows the ones above it) are done, and once the class masks of
// its rows and of the rows below are made (a task per group, which a worker with no tile ready does
// ahead). Two tiles that may run at the same time are a strip's width minus its lean apart, far
// enough that they never touch the same word of a bitset. Strips only split the work (one on one
// thread). Rules run one after another.

namespace tilegen {

namespace {

// Rows per tile at least (rounded up to whole blocks).
constexpr int kGroupRows = 64;
// Strips per worker thread at most: about half of them can run at a time, and narrower ones cost
// more per cell.
constexpr int kStripsPerThread = 2;
// Rows per work item when the objects are put into drawing order (any split gives the same order).
constexpr int kSortRows = 64;

// Salts of the sprite pick per attempt (acceptance and jitter have their own streams).
constexpr std::array<std::uint64_t, 2> kPickSalt{0x94d049bb133111ebull, 0x61c8864680b583ebull};

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

// Items 0..n-1 handed out one at a time to `threads` workers (dynamic, for balance). Items must be
// independent.
template <class F> void for_each_item(int n, int threads, F&& item) {
    threads = std::clamp(threads, 1, std::max(1, n));
    if (threads == 1) {
        for (int i = 0; i < n; ++i)
            item(i);
        return;
    }
    std::atomic<int> next{0};
    parallel_for(threads, threads, [&](int, int) {
        for (int i = next.fetch_add(1, std::memory_order_relaxed); i < n;
             i = next.fetch_add(1, std::memory_order_relaxed))
            item(i);
    });
}

// Runs prepare(group) for every group and tile(strip, group, worker) for every tile of `strips` x
// `groups` on `threads` workers. A tile runs once its group and the next are prepared, and the tile
// to its left and the tile above and to its right (above, for the last strip) are done. Of the
// tasks ready, the one nearest the top left goes first; a group is prepared a little before the
// tiles above it need it, or earlier by a worker with nothing else to do.
template <class Prepare, class Tile>
void run_tiles(int strips, int groups, int threads, Prepare&& prepare, Tile&& tile) {
    if (threads <= 1) {
        prepare(0);
        for (int g = 0; g < groups; ++g) {
            if (g + 1 < groups) prepare(g + 1);
            for (int i = 0; i < strips; ++i)
                tile(i, g, 0);
        }
        return;
    }
    // Tasks: tile (i, g) is g * strips + i, preparing group g is n + g.
    const int n = strips * groups;
    std::vector<int> pending(static_cast<std::size_t>(n));
    for (int t = 0; t < n; ++t)
        pending[static_cast<std::size_t>(t)] =
            (t % strips > 0) + (t >= strips) + 1 + (t / strips + 1 < groups);
    auto key = [&](int t) { return t < n ? t % strips + 2 * (t / strips) : 2 * (t - n) - 3; };
    auto later = [&](int a, int b) { return key(a) != key(b) ? key(a) > key(b) : a > b; };
    std::vector<int> ready; // a heap by `later`
    for (int g = 0; g < groups; ++g)
        ready.push_back(n + g);
    std::make_heap(ready.begin(), ready.end(), later);
    int left = n + groups, waiting = 0;
    std::mutex m;
    std::condition_variable changed;
    parallel_for(threads, threads, [&](int worker, int) {
        std::unique_lock lock(m);
        for (;;) {
            if (ready.empty() && left > 0) {
                ++waiting;
                changed.wait(lock, [&] { return !ready.empty() || left == 0; });
                --waiting;
            }
            if (ready.empty()) return;
            std::pop_heap(ready.begin(), ready.end(), later);
            const int t = ready.back();
            ready.pop_back();
            lock.unlock();
            if (t < n)
                tile(t % strips, t / strips, worker);
            else
                prepare(t - n);
            lock.lock();
            --left;
            auto release = [&](int u) {
                if (--pending[static_cast<std::size_t>(u)] > 0) return;
                ready.push_back(u);
                std::push_heap(ready.begin(), ready.end(), later);
            };
            if (t >= n) {
                // The tiles of the group and of the group above.
                const int g = t - n;
                for (int i = 0; i < strips; ++i) {
                    release(g * strips + i);
                    if (g > 0) release((g - 1) * strips + i);
                }
            } else {
                const int i = t % strips;
                if (i + 1 < strips) release(t + 1);
                if (t + strips < n) {
                    if (i > 0) release(t + strips - 1);
                    if (i == strips - 1) release(t + strips);
                }
            }
            if (waiting > 0 && (!ready.empty() || left == 0)) changed.notify_all();
        }
    });
}

// An accepted anchor: x, the row within its tile, the sprite as an index into the rule's sprites.
struct Anchor {
    std::uint32_t x;
    std::uint16_t dy;
    std::uint16_t sprite;
};

// The anchors one tile of one rule accepted, grouped by row and then by footprint height (bucket
// (dy, fh) at dy * max_fh + fh - 1), each group in increasing x: the scan takes block columns in
// order, one anchor at most per block. Also how many of them end (footprint bottom row) in each
// kSortRows-row chunk of the map, from first_chunk.
struct TileObjects {
    std::vector<Anchor> anchors;
    std::vector<std::uint32_t> start; // per bucket, plus the end
    std::vector<std::uint32_t> chunk_count;
    int first_chunk = 0;
};

// A candidate of a row (block 1) or block row: position or block column, attempts accepted (bit per
// attempt), the acceptance hash.
struct Candidate {
    std::uint32_t pos;
    std::uint32_t attempts;
    std::uint64_t hu;
};

struct RulePlan {
    int index = 0;
    bool active = false;             // has sprites and classes to stand on
    std::array<bool, 256> allowed{}; // class -> may stand on it
    std::vector<std::pair<int, int>>
        class_runs;                // the classes it may stand on, as runs (first, count)
    std::vector<int> sprite_index; // sheet indices of the rule's sprites found in the sheet
    std::vector<int> fw, fh;       // their footprints
    bool one_footprint = true;     // all the same
    std::vector<std::uint64_t>
        pick_below;        // weight k is picked by a 53-bit uniform u with
                           // pick_below[k-1] <= u < pick_below[k] (empty: the first sprite)
    std::vector<int> pick; // weight k -> index into sprite_index
    const Grid<float>* density = nullptr;
    double threshold = 0, chance = 1;
    float threshold_below =
        0; // the largest float <= threshold: d > threshold <=> d > threshold_below
    std::uint64_t chance_limit = 0; // u / 2^32 < chance <=> u < chance_limit (32-bit u)
    int block = 1, blocks_w = 0, blocks_h = 0;
    std::uint64_t block_magic = 0; // x / block == (x * block_magic) >> 32 for every x of the map
    int reach = 0; // rows above/below an anchor that hold cells closer than the spacing
    std::vector<int> half_width; // per dy in -reach..reach: max |dx| with dx^2 + dy^2 < spacing^2
    std::vector<std::uint64_t> disc; // per dy, when 2 * reach + 1 <= 64: bits reach-r .. reach+r
    int max_fw = 1, max_fh = 1;
    int group_blocks = 1, groups = 0; // tile height in block rows; tile rows of the map
    int skew = 1;                     // block columns a tile's edges move left per block row
    int strips = 1,
        strip_blocks = 0; // tile columns; their width in block columns at a tile's first block row
    std::uint64_t jitter_stream = 0, accept_stream = 0;
    std::vector<TileObjects> out; // per tile, group after group

    // Block column where strip k's tiles start in block row by (k == strips: the map's end).
    int edge(int k, int by) const {
        return k == 0 ? 0 : k == strips ? blocks_w : k * strip_blocks - skew * (by % group_blocks);
    }
};

// Acceptance probability at density d: chance, scaled by density above the threshold.
inline double probability(const RulePlan& rp, double d) {
    return rp.chance *
           (rp.threshold >= 1 ? 0 : std::clamp((d - rp.threshold) / (1 - rp.threshold), 0.0, 1.0));
}

// Attempt bits (1: first, 2: second) whose 32-bit uniforms of hu pass probability p: rejected
// exactly when u >= p (so a NaN p accepts).
inline std::uint32_t attempts_below(std::uint64_t hu, double p) {
    const double u0 = static_cast<double>(static_cast<std::uint32_t>(hu)) * (1.0 / 4294967296.0);
    const double u1 =
        static_cast<double>(static_cast<std::uint32_t>(hu >> 32)) * (1.0 / 4294967296.0);
    return static_cast<std::uint32_t>(!(u0 >= p)) | (static_cast<std::uint32_t>(!(u1 >= p)) << 1);
}

inline std::uint32_t attempts_below(std::uint64_t hu, std::uint64_t limit) {
    return static_cast<std::uint32_t>((hu & 0xffffffffull) < limit) |
           (static_cast<std::uint32_t>((hu >> 32) < limit) << 1);
}

// The sprite (index into the rule's sprites) for a pick hash: weight k with probability weight /
// total.
inline int pick_sprite(const RulePlan& rp, std::uint64_t h_pick) {
    const std::size_t n = rp.pick_below.size();
    if (n == 0) return 0;
    const std::uint64_t u = h_pick >> 11;
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i)
        k += u >= rp.pick_below[i];
    return k < n ? rp.pick[k] : 0;
}

struct Placer {
    const ClassGrid& classes;
    BitRows& allowed;  // cells of the current rule's classes
    BitRows& occupied; // every rule's footprints
    BitRows& near;     // cells closer than its spacing to an anchor of the current rule
    int w, h, words;

    // Bit x of out: may the rule stand on cell (x, y) (its class is one of the rule's)?
    void class_mask(const RulePlan& rp, int y, std::uint64_t* out) const {
        const ClassId* c = classes.row(y);
        int wi = 0;
#if defined(__SSE2__)
        // Per run of consecutive classes lo..lo+n-1: (class - lo) as an unsigned byte is at most n
        // - 1.
        if (rp.class_runs.size() <= 2) {
            const bool two = rp.class_runs.size() == 2;
            const __m128i lo0 = _mm_set1_epi8(static_cast<char>(rp.class_runs[0].first));
            const __m128i top0 = _mm_set1_epi8(static_cast<char>(rp.class_runs[0].second - 1));
            const __m128i lo1 = _mm_set1_epi8(static_cast<char>(two ? rp.class_runs[1].first : 0));
            const __m128i top1 =
                _mm_set1_epi8(static_cast<char>(two ? rp.class_runs[1].second - 1 : 0));
            for (; wi < w / 64; ++wi) {
                std::uint64_t m = 0;
                for (int k = 0; k < 64; k += 16) {
                    const __m128i v =
                        _mm_loadu_si128(reinterpret_cast<const __m128i*>(c + wi * 64 + k));
                    const __m128i d0 = _mm_sub_epi8(v, lo0);
                    __m128i in = _mm_cmpeq_epi8(_mm_min_epu8(d0, top0), d0);
                    if (two) {
                        const __m128i d1 = _mm_sub_epi8(v, lo1);
                        in = _mm_or_si128(in, _mm_cmpeq_epi8(_mm_min_epu8(d1, top1), d1));
                    }
                    m |= static_cast<std::uint64_t>(
                             static_cast<std::uint32_t>(_mm_movemask_epi8(in)))
                         << k;
                }
                out[wi] = m;
            }
        }
#endif
        for (; wi < words; ++wi) {
            const int x0 = wi * 64, n = std::min(64, w - x0);
            std::uint64_t m = 0;
            for (int i = 0; i < n; ++i)
                m |= static_cast<std::uint64_t>(rp.allowed[c[x0 + i]]) << i;
            out[wi] = m;
        }
    }

    // Bits of out, words w0..w1-1 of rows y0..y1-1 ((w1 - w0) words per row): may an anchor go on
    // (x, y) as the map stands now? Its class is the rule's, it is free and not too close to an
    // anchor of the rule, and (with a density map) the density there is above the threshold:
    // density is read only for the 16-cell groups that pass the other tests. A NaN density passes,
    // as the acceptance test lets it through too.
    void free_rows(const RulePlan& rp, int y0, int y1, int w0, int w1, std::uint64_t* out) const {
        const int nw = w1 - w0;
        for (int y = y0; y < y1; ++y, out += nw) {
            const std::uint64_t* cls = allowed.row(y) + w0;
            const std::uint64_t* occ = occupied.row(y) + w0;
            const std::uint64_t* nr = near.row(y) + w0;
            for (int i = 0; i < nw; ++i)
                out[i] = cls[i] & ~occ[i] & ~nr[i];
            if (!rp.density) continue;
            if (rp.threshold >= 1) {
                std::fill(out, out + nw, 0);
                continue;
            }
            const float* d = rp.density->row(y);
            // The density of the rule's cells two rows down is fetched meanwhile (its lines are
            // read sparsely).
            const std::uint64_t* ahead = y + 2 < h ? allowed.row(y + 2) : nullptr;
            const float* d_ahead = ahead ? rp.density->row(y + 2) : nullptr;
            for (int wi = w0; wi < w1; ++wi) {
                std::uint64_t& o = out[wi - w0];
                const std::uint64_t next = ahead ? ahead[wi] : 0;
                for (int k = 0; k < 64; k += 16) {
                    if ((next >> k) & 0xffffu) __builtin_prefetch(d_ahead + wi * 64 + k);
                    if (!((o >> k) & 0xffffu)) continue;
                    const int x0 = wi * 64 + k;
                    std::uint64_t m = 0;
#if defined(__SSE2__)
                    if (x0 + 16 <= w) {
                        const __m128 t = _mm_set1_ps(rp.threshold_below);
                        for (int j = 0; j < 16; j += 4)
                            m |= static_cast<std::uint64_t>(
                                     _mm_movemask_ps(_mm_cmpnle_ps(_mm_loadu_ps(d + x0 + j), t)))
                                 << j;
                        o &= ~(0xffffull << k) | (m << k);
                        continue;
                    }
#endif
                    for (int j = 0; j < 16 && x0 + j < w; ++j)
                        m |= static_cast<std::uint64_t>(!(d[x0 + j] <= rp.threshold_below)) << j;
                    o &= ~(0xffffull << k) | (m << k);
                }
            }
        }
    }

    // The footprint of sprite k at (x, y) lies inside the map, on the rule's classes, and on no
    // other footprint.
    [[gnu::always_inline]] bool footprint_fits(const RulePlan& rp, int k, int x, int y) const {
        const int fw = rp.fw[static_cast<std::size_t>(k)], fh = rp.fh[static_cast<std::size_t>(k)];
        if (x + fw > w || y + fh > h) return false;
        const std::size_t stride = static_cast<std::size_t>(words);
        const int wi = x >> 6, s = x & 63;
        const std::uint64_t* c = allowed.row(y) + wi;
        const std::uint64_t* o = occupied.row(y) + wi;
        const std::uint64_t run = ~0ull >> (64 - fw);
        for (int fy = 0; fy < fh; ++fy, c += stride, o += stride) {
            std::uint64_t free = (c[0] & ~o[0]) >> s;
            if (s + fw > 64) free |= (c[1] & ~o[1]) << (64 - s);
            if ((free & run) != run) return false;
        }
        return true;
    }

    // Records the anchor (row0: its tile's first row), marks its footprint and stamps its spacing
    // disc.
    [[gnu::always_inline]] void accept(const RulePlan& rp, TileObjects& out, int row0, int k, int x,
                                       int y) {
        const int fw = rp.fw[static_cast<std::size_t>(k)], fh = rp.fh[static_cast<std::size_t>(k)];
        out.anchors.push_back({static_cast<std::uint32_t>(x), static_cast<std::uint16_t>(y - row0),
                               static_cast<std::uint16_t>(k)});
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
                for (int ny = y0; ny <= y1; ++ny, row += stride)
                    row[0] |= *disc++ << s;
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

    // Before the tiles of group g and those above it: the class masks of its rows and, when an
    // earlier rule left spacing discs, those rows of `near` back to zero.
    void prepare_group(const RulePlan& rp, int group, bool clear_near) {
        const int group_rows = rp.group_blocks * rp.block;
        const int y0 = group * group_rows, y1 = std::min(h, y0 + group_rows);
        if (clear_near) near.clear(y0, y1);
        for (int y = y0; y < y1; ++y)
            class_mask(rp, y, allowed.row(y));
    }

    // Per worker: the buffers a tile uses, kept from tile to tile.
    struct Scratch {
        std::vector<std::uint64_t> free, any;
        std::vector<Candidate> cand;
        std::vector<std::uint32_t> count;
        std::vector<Anchor> sorted;
    };

    void place_tile(RulePlan& rp, int strip, int group, Scratch& s) {
        TileObjects& out = rp.out[static_cast<std::size_t>(group * rp.strips + strip)];
        const int by0 = group * rp.group_blocks, by1 = std::min(rp.blocks_h, by0 + rp.group_blocks);
        const int row0 = by0 * rp.block, row1 = std::min(h, by1 * rp.block);
        out.first_chunk = row0 / kSortRows;
        const int last_row =
            std::min(h, row1 + rp.max_fh - 1) - 1; // the lowest row its footprints can reach
        out.chunk_count.assign(static_cast<std::size_t>(last_row / kSortRows - out.first_chunk + 1),
                               0);
        out.start.assign(static_cast<std::size_t>((row1 - row0) * rp.max_fh) + 1, 0);
        // Room for a typical tile's anchors, so the list rarely grows.
        const int tile_blocks_w = rp.edge(strip + 1, by0) - rp.edge(strip, by0);
        out.anchors.reserve(std::min<std::size_t>(
            static_cast<std::size_t>(by1 - by0) * static_cast<std::size_t>(tile_blocks_w) / 8 + 16,
            8192));
        s.count.resize(static_cast<std::size_t>(rp.block * rp.max_fh));
        // The anchors of block row by (from index `first` on) into their buckets, keeping their
        // order in each.
        auto bucket_block_row = [&](int by, std::size_t first) {
            const std::size_t last = out.anchors.size();
            const int b0 = (by * rp.block - row0) * rp.max_fh; // the block row's first bucket
            const auto nb = static_cast<std::size_t>(
                (std::min(row1, (by + 1) * rp.block) - by * rp.block) * rp.max_fh);
            std::fill(s.count.begin(), s.count.begin() + static_cast<std::ptrdiff_t>(nb), 0);
            int distinct = 0;
            for (std::size_t i = first; i < last; ++i) {
                const Anchor& a = out.anchors[i];
                const auto key =
                    static_cast<std::size_t>(a.dy * rp.max_fh + rp.fh[a.sprite] - 1 - b0);
                distinct += s.count[key]++ == 0;
            }
            auto at = static_cast<std::uint32_t>(first);
            for (std::size_t key = 0; key < nb; ++key) {
                out.start[static_cast<std::size_t>(b0) + key] = at;
                const std::uint32_t n = s.count[key];
                s.count[key] = at; // from here on: where the bucket's next anchor goes
                at += n;
            }
            if (distinct <= 1) return; // already in order
            s.sorted.assign(out.anchors.begin() + static_cast<std::ptrdiff_t>(first),
                            out.anchors.end());
            for (const Anchor& a : s.sorted)
                out.anchors[s.count[static_cast<std::size_t>(a.dy * rp.max_fh + rp.fh[a.sprite] -
                                                             1 - b0)]++] = a;
        };

        // The accepted attempts of (x, y) in order: sprite, footprint; true once one is placed.
        auto place_at = [&](std::uint32_t attempts, std::uint64_t hu, int x, int y)
            __attribute__((always_inline)) {
            if (rp.one_footprint) {
                // Every sprite has the same footprint: it fits for all attempts or none, and the
                // first accepted attempt picks the sprite.
                if (!footprint_fits(rp, 0, x, y)) return false;
                const int a = (attempts & 1u) ? 0 : 1;
                accept(rp, out, row0,
                       pick_sprite(rp, mix64(hu ^ kPickSalt[static_cast<std::size_t>(a)])), x, y);
                return true;
            }
            for (int a = 0; a < 2; ++a) {
                if (!((attempts >> a) & 1u)) continue;
                const int k = pick_sprite(rp, mix64(hu ^ kPickSalt[static_cast<std::size_t>(a)]));
                if (!footprint_fits(rp, k, x, y)) continue;
                accept(rp, out, row0, k, x, y);
                return true;
            }
            return false;
        };

        // Buffers for the widest block row (the first or the last; a word more for any alignment),
        // as plain pointers: nothing else writes them.
        int max_words = 0;
        for (int by : {by0, by1 - 1})
            max_words = std::max(max_words, (std::min(w, rp.edge(strip + 1, by) * rp.block) -
                                             rp.edge(strip, by) * rp.block + 63) /
                                                    64 +
                                                1);
        s.free.resize(static_cast<std::size_t>(rp.block * max_words));
        s.any.resize(static_cast<std::size_t>(max_words));
        s.cand.resize(static_cast<std::size_t>(rp.block == 1 ? max_words * 64
                                                             : max_words * 64 / rp.block + 2));
        std::uint64_t* const free = s.free.data();
        std::uint64_t* const any = s.any.data();
        Candidate* const cand = s.cand.data();

        for (int by = by0; by < by1; ++by) {
            const std::size_t first = out.anchors.size();
            // The tile's cells in this block row: x0..x1-1, in words w0..w1-1.
            const int x0 = rp.edge(strip, by) * rp.block,
                      x1 = std::min(w, rp.edge(strip + 1, by) * rp.block);
            const int w0 = x0 >> 6, w1 = (x1 + 63) >> 6, nw = w1 - w0;
            const int y0 = by * rp.block, y1 = std::min(row1, y0 + rp.block);
            // Cells that may hold an anchor as the block row starts (a superset later: tested again
            // one by one).
            free_rows(rp, y0, y1, w0, w1, free);
            for (int y = y0; y < y1; ++y) {
                std::uint64_t* m = free + static_cast<std::size_t>((y - y0) * nw);
                m[0] &= ~0ull << (x0 & 63);
                m[nw - 1] &= ~0ull >> ((64 - (x1 & 63)) & 63);
            }

            if (rp.block == 1) {
                // No jitter: both attempts share the cell, its position tests and its acceptance
                // probability. The cells' hashes are computed first; the accepted ones are tested
                // again as they come (anchors to their left may have covered them).
                const int y = y0;
                const float* d = rp.density ? rp.density->row(y) : nullptr;
                std::size_t n = 0;
                for (int i = 0; i < nw; ++i)
                    for (std::uint64_t bits = free[i]; bits; bits &= bits - 1) {
                        const int x = (w0 + i) * 64 + __builtin_ctzll(bits);
                        const std::uint64_t hu = hash_position(rp.accept_stream, x, y);
                        const std::uint32_t attempts = d ? attempts_below(hu, probability(rp, d[x]))
                                                         : attempts_below(hu, rp.chance_limit);
                        cand[n] = {static_cast<std::uint32_t>(x), attempts, hu};
                        n += attempts != 0;
                    }
                for (std::size_t i = 0; i < n; ++i) {
                    const int x = static_cast<int>(cand[i].pos);
                    if (occupied.test(x, y) || near.test(x, y)) continue;
                    place_at(cand[i].attempts, cand[i].hu, x, y);
                }
                bucket_block_row(by, first);
                continue;
            }

            // Blocks with no allowed, free and spaced cell as the block row starts have no chance;
            // the others are hashed, and those with an accepted attempt (without density: known
            // before the position) go on.
            std::fill(any, any + nw, 0);
            for (int y = y0; y < y1; ++y) {
                const std::uint64_t* m = free + static_cast<std::size_t>((y - y0) * nw);
                for (int i = 0; i < nw; ++i)
                    any[i] |= m[i];
            }
            std::size_t n = 0;
            int next_x = x0; // the first cell of the next block
            for (int i = 0; i < nw; ++i) {
                const int base = (w0 + i) * 64;
                std::uint64_t bits = any[i];
                if (next_x > base)
                    bits = next_x >= base + 64 ? 0 : bits & (~0ull << (next_x - base));
                while (bits) {
                    const auto x = static_cast<std::uint64_t>(base + __builtin_ctzll(bits));
                    const auto bx = static_cast<int>((x * rp.block_magic) >> 32);
                    next_x = (bx + 1) * rp.block;
                    bits = next_x >= base + 64 ? 0 : bits & (~0ull << (next_x - base));
                    const std::uint64_t hu = hash_position(rp.accept_stream, bx, by);
                    const std::uint32_t attempts =
                        rp.density ? 3u : attempts_below(hu, rp.chance_limit);
                    cand[n] = {static_cast<std::uint32_t>(bx), attempts, hu};
                    n += attempts != 0;
                }
            }
            for (std::size_t i = 0; i < n; ++i) {
                const int bx = static_cast<int>(cand[i].pos);
                const std::uint64_t hu = cand[i].hu, hj = hash_position(rp.jitter_stream, bx, by);
                for (int a = 0; a < 2; ++a) {
                    if (!((cand[i].attempts >> a) & 1u)) continue;
                    // Jitter inside the block: 16 bits per coordinate and attempt, scaled by a
                    // multiply-shift.
                    const std::uint64_t jit = hj >> (32 * a);
                    const int x =
                        bx * rp.block +
                        static_cast<int>(((jit & 0xffff) * static_cast<std::uint64_t>(rp.block)) >>
                                         16);
                    const int y = y0 + static_cast<int>((((jit >> 16) & 0xffff) *
                                                         static_cast<std::uint64_t>(rp.block)) >>
                                                        16);
                    if (x >= w || y >= h) continue;
                    const std::uint64_t m = free[(y - y0) * nw + (x >> 6) - w0];
                    // Allowed and free (as the block row started), and still free and not too close
                    // now.
                    const bool open =
                        ((m & ~occupied.row(y)[x >> 6] & ~near.row(y)[x >> 6]) >> (x & 63)) & 1u;
                    if (!open) continue;
                    if (rp.density &&
                        !((attempts_below(hu, probability(rp, (*rp.density)(x, y))) >> a) & 1u))
                        continue;
                    if (place_at(1u << a, hu, x, y)) break;
                }
            }
            bucket_block_row(by, first);
        }
        out.start.back() = static_cast<std::uint32_t>(out.anchors.size());
    }
};

RulePlan plan_rule(const ObjectRule& rule, int index, const NamedMaps& maps,
                   const SpriteSheet& sheet, int w, int h, std::uint64_t seed, int threads) {
    RulePlan rp;
    rp.index = index;
    for (const auto& name : rule.sprites)
        for (std::size_t s = 0; s < sheet.sprites.size() && rp.sprite_index.size() < 65535; ++s)
            if (sheet.sprites[s].name == name) {
                rp.sprite_index.push_back(static_cast<int>(s));
                rp.fw.push_back(std::clamp(sheet.sprites[s].footprint_w, 1,
                                           64)); // the sheet keeps them in 1..16
                rp.fh.push_back(std::clamp(sheet.sprites[s].footprint_h, 1, 64));
            }
    for (int c = 0; c < kMaxClasses; ++c)
        if ((rule.on >> c) & 1u) {
            rp.allowed[static_cast<std::size_t>(c)] = true;
            if (!rp.class_runs.empty() &&
                rp.class_runs.back().first + rp.class_runs.back().second == c)
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
    for (double wt : rule.weights)
        total_weight += std::max(0.0, wt);
    if (rp.sprite_index.size() > 1 && total_weight > 0) {
        // Weight k picks the rule's k-th sprite (the last one found when the sheet lacks some).
        double acc = 0;
        for (std::size_t k = 0; k < rule.weights.size(); ++k) {
            acc += std::max(0.0, rule.weights[k]);
            rp.pick_below.push_back(static_cast<std::uint64_t>(
                std::ceil(std::min(1.0, acc / total_weight) * 9007199254740992.0)));
            rp.pick.push_back(static_cast<int>(std::min(k, rp.sprite_index.size() - 1)));
        }
    }
    rp.threshold = rule.threshold;
    rp.threshold_below = static_cast<float>(rule.threshold);
    if (static_cast<double>(rp.threshold_below) > rule.threshold)
        rp.threshold_below =
            std::nextafter(rp.threshold_below, -std::numeric_limits<float>::infinity());
    rp.chance = rule.chance;
    rp.chance_limit = rule.chance <= 0 ? 0
                      : rule.chance >= 1
                          ? (1ull << 32)
                          : static_cast<std::uint64_t>(std::ceil(rule.chance * 4294967296.0));
    rp.block = std::max(1, static_cast<int>(std::floor(rule.spacing / std::sqrt(2.0))));
    rp.block_magic = ((1ull << 32) + static_cast<std::uint64_t>(rp.block) - 1) /
                     static_cast<std::uint64_t>(rp.block);
    rp.blocks_w = (w + rp.block - 1) / rp.block;
    rp.blocks_h = (h + rp.block - 1) / rp.block;
    const double spacing2 = rule.spacing * rule.spacing;
    while (static_cast<double>(rp.reach + 1) * (rp.reach + 1) < spacing2)
        ++rp.reach;
    for (int dy = -rp.reach; dy <= rp.reach; ++dy) {
        int r = 0;
        while (static_cast<double>(r + 1) * (r + 1) + static_cast<double>(dy) * dy < spacing2)
            ++r;
        rp.half_width.push_back(r);
    }
    if (2 * rp.reach + 1 <= 64)
        for (int r : rp.half_width)
            rp.disc.push_back((~0ull >> (63 - 2 * r)) << (rp.reach - r));
    for (int fw : rp.fw)
        rp.max_fw = std::max(rp.max_fw, fw);
    for (int fh : rp.fh)
        rp.max_fh = std::max(rp.max_fh, fh);
    for (std::size_t k = 1; k < rp.fw.size(); ++k)
        rp.one_footprint = rp.one_footprint && rp.fw[k] == rp.fw[0] && rp.fh[k] == rp.fh[0];
    // Tiles (see "How it runs"). Over a group, a strip's edges lean by skew * group_blocks; what is
    // left of its width keeps tiles that may run at the same time apart by two words beyond the
    // cells they read and write (the spacing reach and a footprint width around their own). One
    // thread: one strip, tiles are groups taken in order.
    rp.group_blocks = (std::max(kGroupRows, 2 * rp.reach + rp.max_fh) + rp.block - 1) / rp.block;
    rp.groups = (rp.blocks_h + rp.group_blocks - 1) / rp.group_blocks;
    rp.skew = std::max(1, (std::max(rp.reach, rp.max_fw - 1) + rp.block - 1) / rp.block);
    const int min_strip =
        rp.skew * rp.group_blocks + (2 * rp.reach + rp.max_fw + 128 + rp.block - 1) / rp.block;
    rp.strips =
        threads <= 1 ? 1 : std::clamp(rp.blocks_w / min_strip, 1, kStripsPerThread * threads);
    rp.strip_blocks = rp.blocks_w / rp.strips;
    rp.out.resize(static_cast<std::size_t>(rp.strips * rp.groups));
    const std::uint64_t stream =
        hash_values(seed, 0x6f626a656374ull /* "object" */, static_cast<std::uint64_t>(index));
    rp.jitter_stream = mix64(stream ^ 0x6a6974746572ull /* "jitter" */);
    rp.accept_stream = mix64(stream ^ 0x616363657074ull /* "accept" */);
    return rp;
}

} // namespace

std::vector<PlacedObject> place_objects(const ClassGrid& classes, const NamedMaps& maps,
                                        const std::vector<ObjectRule>& rules,
                                        const SpriteSheet& sheet, std::uint64_t seed, int threads) {
    std::vector<PlacedObject> placed;
    const int w = classes.width(), h = classes.height();
    if (w == 0 || h == 0) return placed;
    BitRows allowed(w, h), occupied(w, h), near(w, h);
    Placer placer{classes, allowed, occupied, near, w, h, (w + 63) / 64};
    // More workers than cores would only wait for each other (the result depends on neither
    // number).
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    const int workers = std::max(1, cores > 0 ? std::min(threads, cores) : threads);
    std::vector<Placer::Scratch> scratch(static_cast<std::size_t>(workers));

    std::vector<RulePlan> plans;
    plans.reserve(rules.size());
    bool stamped = false;
    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        plans.push_back(
            plan_rule(rules[ri], static_cast<int>(ri), maps, sheet, w, h, seed, threads));
        RulePlan& rp = plans.back();
        if (!rp.active) continue;
        const bool clear_near = stamped;
        stamped = true;
        run_tiles(
            rp.strips, rp.groups, workers,
            [&](int group) { placer.prepare_group(rp, group, clear_near); },
            [&](int strip, int group, int worker) {
                placer.place_tile(rp, strip, group, scratch[static_cast<std::size_t>(worker)]);
            });
    }

    // Drawing order: by footprint bottom row, then x. No two objects share both (they would
    // overlap), so the order is total and any split of the work gives the same result. The objects
    // ending in each chunk of rows are counted during placement, so each chunk writes its own part
    // of the result: per row, the objects ending there are gathered from the few block rows that
    // can hold them and emitted in x order through a bitset of columns.
    const int chunks = (h + kSortRows - 1) / kSortRows;
    std::vector<std::size_t> offset(static_cast<std::size_t>(chunks) + 1, 0);
    for (const RulePlan& rp : plans)
        for (const TileObjects& tile : rp.out)
            for (std::size_t c = 0; c < tile.chunk_count.size(); ++c)
                offset[static_cast<std::size_t>(tile.first_chunk) + c + 1] += tile.chunk_count[c];
    for (std::size_t c = 0; c < static_cast<std::size_t>(chunks); ++c)
        offset[c + 1] += offset[c];
    placed.resize(offset.back());
    for_each_item(chunks, workers, [&](int chunk) {
        std::vector<PlacedObject> slot(static_cast<std::size_t>(w));
        std::vector<std::uint64_t> columns((static_cast<std::size_t>(w) + 63) / 64, 0);
        PlacedObject* out = placed.data() + offset[static_cast<std::size_t>(chunk)];
        const int r0 = chunk * kSortRows, r1 = std::min(h, r0 + kSortRows);
        for (int r = r0; r < r1; ++r) {
            // The objects ending in row r: per rule and footprint height fh, the bucket of row r -
            // fh + 1 in each strip's tile.
            for (const RulePlan& rp : plans) {
                if (!rp.active) continue;
                const int group_rows = rp.group_blocks * rp.block;
                for (int fh = 1; fh <= rp.max_fh && fh <= r + 1; ++fh) {
                    const int y = r - fh + 1, g = y / group_rows;
                    const auto k =
                        static_cast<std::size_t>((y - g * group_rows) * rp.max_fh + fh - 1);
                    for (int i = 0; i < rp.strips; ++i) {
                        const TileObjects& tile =
                            rp.out[static_cast<std::size_t>(g * rp.strips + i)];
                        const Anchor* a = tile.anchors.data() + tile.start[k];
                        const Anchor* end = tile.anchors.data() + tile.start[k + 1];
                        for (; a != end; ++a) {
                            slot[a->x] = {rp.sprite_index[a->sprite], static_cast<int>(a->x), y,
                                          rp.index};
                            columns[a->x >> 6] |= 1ull << (a->x & 63);
                        }
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
