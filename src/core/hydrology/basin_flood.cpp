#include "core/hydrology/basin_flood.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <span>
#include <utility>

#include "core/byte_bits.hpp"
#include "core/cpu_features.hpp"
#include "core/label_forest.hpp"
#include "core/parallel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tilegen {

namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

// The drain code of an edge cell: off the map on the side it lies on (top and bottom rows first).
std::uint8_t edge_drain(int x, int y, int h) {
    return kDrainOff | (y == 0       ? drain_north
                        : y == h - 1 ? drain_south
                        : x == 0     ? drain_west
                                     : drain_east);
}

// The descent of the interior cells 1..w-2 of a row: a branch-free minimum over N, W, E, S
// (strictly lower only, the first of equals), which the compiler turns into vector code. Compiled
// twice (descend_row): for AVX2 (16 cells a step, unsigned 16-bit minima: about 4x faster than the
// SSE2 code at 4096^2) and for the build's target; both give the same descent.
[[gnu::always_inline]] inline void descend_cells(const std::uint16_t* up, const std::uint16_t* mid,
                                                 const std::uint16_t* dn, std::uint8_t* out,
                                                 int w) {
    for (int x = 1; x < w - 1; ++x) {
        std::uint16_t best = mid[x];
        std::uint8_t d = kDrainPit;
        const std::uint16_t around[4] = {up[x], mid[x - 1], mid[x + 1], dn[x]};
        for (std::uint8_t k = 0; k < 4; ++k) {
            const bool lower = around[k] < best;
            best = lower ? around[k] : best;
            d = lower ? k : d;
        }
        out[x] = d;
    }
}

void descend_row_baseline(const std::uint16_t* up, const std::uint16_t* mid,
                          const std::uint16_t* dn, std::uint8_t* out, int w) {
    descend_cells(up, mid, dn, out, w);
}

#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx2")]] void descend_row_avx2(const std::uint16_t* up, const std::uint16_t* mid,
                                              const std::uint16_t* dn, std::uint8_t* out, int w) {
    descend_cells(up, mid, dn, out, w);
}
#define TILEGEN_HAVE_AVX2_DESCENT 1
#endif

// descend_row_avx2 where AVX2 is enabled (avx2_enabled), else descend_row_baseline.
void descend_row(const std::uint16_t* up, const std::uint16_t* mid, const std::uint16_t* dn,
                 std::uint8_t* out, int w) {
#if defined(TILEGEN_HAVE_AVX2_DESCENT)
    if (avx2_enabled()) return descend_row_avx2(up, mid, dn, out, w);
#endif
    descend_row_baseline(up, mid, dn, out, w);
}

// The last pair kept for two basins, at a column (horizontal pairs) or along a row (vertical ones).
struct LastPair {
    std::uint32_t a = kNone, b = kNone, cost = 0;
};

// The pairs in buckets by the high byte of their cost, each bucket in the order its pairs came
// (scan order), in chunks of kChunk pairs handed out in turn from segments of `segment` pairs
// (from the grid pool), a segment more whenever they are used up: the pairs' memory grows with
// their number (about 2.7 M pairs in 3 segments of 16 MiB at 4096 x 4096), nothing is copied.
// for_each_pair sorts one bucket at a time by the low byte (a stable counting sort into a buffer of
// the bucket's size), so the pairs come in Kruskal's order without a second buffer of them all.
class PairBuckets {
  public:
    static constexpr std::size_t kChunk = 512;
    explicit PairBuckets(std::size_t segment)
        : segment_chunks_(std::max<std::size_t>(segment / kChunk, 16)) {
        cur_.fill(nullptr);
        end_.fill(nullptr);
    }
    // Where the next pair of cost `cost` is written; it stays when `advance`d.
    BasinPair* slot(std::uint16_t cost) {
        const unsigned hi = cost >> 8u;
        if (cur_[hi] == end_[hi]) [[unlikely]]
            new_chunk(hi);
        return cur_[hi];
    }
    void advance(std::uint16_t cost, std::uint32_t keep) { cur_[cost >> 8u] += keep; }
    // Calls body(pair) on the pairs of bucket `hi`, in the order they came.
    template <class Body> void each_in_bucket(unsigned hi, Body&& body) const {
        const std::vector<std::uint32_t>& chunks = chunks_[hi];
        for (std::uint32_t k : chunks) {
            const BasinPair* begin = chunk(k);
            const BasinPair* end = k == chunks.back() ? cur_[hi] : begin + kChunk;
            for (const BasinPair* e = begin; e != end; ++e)
                body(*e);
        }
    }

  private:
    BasinPair* chunk(std::size_t k) {
        return segments_[k / segment_chunks_].data() + k % segment_chunks_ * kChunk;
    }
    const BasinPair* chunk(std::size_t k) const {
        return segments_[k / segment_chunks_].data() + k % segment_chunks_ * kChunk;
    }
    [[gnu::noinline]] void new_chunk(unsigned hi) {
        if (next_ == segments_.size() * segment_chunks_)
            segments_.emplace_back(segment_chunks_ * kChunk);
        chunks_[hi].push_back(static_cast<std::uint32_t>(next_));
        cur_[hi] = chunk(next_);
        end_[hi] = cur_[hi] + kChunk;
        ++next_;
    }
    std::size_t segment_chunks_;
    std::vector<GridCells<BasinPair>> segments_;
    std::size_t next_ = 0;                                 // chunks handed out
    std::array<std::vector<std::uint32_t>, 256> chunks_{}; // per bucket its chunks, in order
    std::array<BasinPair*, 256> cur_, end_;                // per bucket: its next slot, chunk end
};

// Calls visit(pair) on every pair of `bands` (the pairs of bands of rows, in row order) by cost,
// then in the order they came (band after band), until it returns false: one bucket at a time,
// sorted by the low byte of the cost (a stable counting sort into a buffer of the bucket's size).
template <class Visit> void for_each_pair(std::span<const PairBuckets> bands, Visit&& visit) {
    std::vector<BasinPair> sorted;
    for (unsigned hi = 0; hi < 256; ++hi) {
        std::array<std::uint32_t, 256> at{};
        for (const PairBuckets& band : bands)
            band.each_in_bucket(hi, [&](const BasinPair& e) { ++at[e.cost & 0xffu]; });
        std::uint32_t sum = 0;
        for (std::uint32_t& a : at)
            sum += std::exchange(a, sum);
        if (sum == 0) continue;
        sorted.resize(sum);
        for (const PairBuckets& band : bands)
            band.each_in_bucket(hi, [&](const BasinPair& e) { sorted[at[e.cost & 0xffu]++] = e; });
        for (const BasinPair& e : sorted)
            if (!visit(e)) return;
    }
}

// Writes the pair (a, b) of cell p into its bucket and keeps it (advances the bucket) when it is
// kept after `last` (see basin_pairs: unless the last kept pair of the same basins cost no more),
// updating `last`; else the next pair of the bucket overwrites it. Branch-free: whether a pair is
// kept follows no pattern a branch could learn.
inline void keep_pair(LastPair& last, std::uint32_t a, std::uint32_t b, std::uint32_t p,
                      std::uint16_t cost, std::uint8_t vertical, PairBuckets& out) {
    *out.slot(cost) = {a, b, p, cost, vertical, 0};
    const bool keep = (a != b) & ((last.a != a) | (last.b != b) | (cost < last.cost));
    last.a = keep ? a : last.a;
    last.b = keep ? b : last.b;
    last.cost = keep ? cost : last.cost;
    out.advance(cost, keep ? 1u : 0u);
}

// Bit k set when cell x0 + k (k < count <= 64) of the row `b` has a pair: its basin differs from
// its east neighbour's or (with `Below`) from its south neighbour's (w cells on). SSE2 compares,
// four cells at a time.
template <bool Below>
std::uint64_t pair_mask(const std::uint32_t* b, std::uint32_t w, std::uint32_t count) {
    std::uint64_t m = 0;
    std::uint32_t k = 0;
#if defined(__SSE2__)
    for (; k + 4 <= count; k += 4) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + k));
        const __m128i east = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + k + 1));
        __m128i same = _mm_cmpeq_epi32(a, east);
        if constexpr (Below)
            same = _mm_and_si128(
                same,
                _mm_cmpeq_epi32(a, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + k + w))));
        m |= static_cast<std::uint64_t>(~_mm_movemask_ps(_mm_castsi128_ps(same)) & 15) << k;
    }
#endif
    for (; k < count; ++k) {
        const bool same = b[k] == b[k + 1] && (!Below || b[k] == b[k + w]);
        m |= static_cast<std::uint64_t>(!same) << k;
    }
    return m;
}

// The pairs of the row starting at cell `row` (w cells; with `Below`, the vertical pairs to the
// next row too), in scan order. `column`: per column its LastPair. Most cells have no pair: a
// mask of those that do (pair_mask), 64 cells at a time, whose bits are taken in order.
template <bool Below>
void row_pairs(const std::uint32_t* basin, const std::uint16_t* lv, std::size_t row,
               std::uint32_t w, LastPair* column, PairBuckets& out) {
    LastPair along; // the row's last vertical pair
    for (std::uint32_t x0 = 0; x0 + 1 < w; x0 += 64) {
        std::uint64_t m = pair_mask<Below>(basin + row + x0, w, std::min(64u, w - 1 - x0));
        for (; m != 0; m &= m - 1) {
            const std::uint32_t x = x0 + static_cast<std::uint32_t>(std::countr_zero(m));
            const std::size_t c = row + x;
            const auto p = static_cast<std::uint32_t>(c);
            const std::uint32_t a = basin[c], east = basin[c + 1];
            keep_pair(column[x], a, east, p, std::max(lv[c], lv[c + 1]), 0, out);
            if constexpr (Below)
                keep_pair(along, a, basin[c + w], p, std::max(lv[c], lv[c + w]), 1, out);
        }
    }
    if constexpr (Below) { // the last column: no horizontal pair
        const std::size_t c = row + w - 1;
        keep_pair(along, basin[c], basin[c + w], static_cast<std::uint32_t>(c),
                  std::max(lv[c], lv[c + w]), 1, out);
    }
}

// The in-degree of each cell of row `mid` (w cells) from the drain codes of the row and the rows
// above and below it (kDrainPit everywhere outside the map): vector code.
void in_degree_row(const std::uint8_t* __restrict up, const std::uint8_t* __restrict mid,
                   const std::uint8_t* __restrict dn, std::uint8_t* __restrict in, std::size_t w) {
    for (std::size_t x = 0; x < w; ++x)
        in[x] = static_cast<std::uint8_t>((up[x] == drain_south) + (dn[x] == drain_north));
    for (std::size_t x = 1; x < w; ++x)
        in[x] = static_cast<std::uint8_t>(in[x] + (mid[x - 1] == drain_east));
    for (std::size_t x = 0; x + 1 < w; ++x)
        in[x] = static_cast<std::uint8_t>(in[x] + (mid[x + 1] == drain_west));
}

// One wave of count_upstream's walks over its words (see there): each cell of wave[0..size)
// adds its count into the cell it drains into (edge cells drain off the map: nothing), which
// loses one inflow; the cells left with none are written to `next` (at most `size` of them, in
// wave order) and their number returned. A cell draining into a cell at or past `limit` (words
// not written yet) is appended to `parked` instead, untouched. Branch-free but for the rare edge
// or parked cell: whether a cell is passed on follows no pattern a branch could learn (a walk's
// end was a misprediction).
std::size_t advance_wave(float* words, const std::int64_t offset[4], const std::uint32_t* wave,
                         std::size_t size, std::uint32_t limit, std::uint32_t* next,
                         std::vector<std::uint32_t>& parked) {
    constexpr std::uint32_t kInShift = 3, kInMask = 7u << kInShift, kCountMask = ~0x7fu;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < size; ++i) {
        const std::uint32_t c = wave[i];
        std::uint32_t s;
        std::memcpy(&s, words + c, sizeof s);
        if (s & kDrainOff) [[unlikely]]
            continue;
        const auto t = static_cast<std::uint32_t>(static_cast<std::int64_t>(c) + offset[s & 3u]);
        if (t >= limit) [[unlikely]] {
            parked.push_back(c);
            continue;
        }
        std::uint32_t u;
        std::memcpy(&u, words + t, sizeof u);
        u += (s & kCountMask) - (1u << kInShift);
        std::memcpy(words + t, &u, sizeof u);
        next[kept] = t;
        kept += (u & kInMask) == 0 ? 1u : 0u;
    }
    return kept;
}

} // namespace

namespace {

// The descent of row y of a level grid (w, h: its size) into out[0..w).
void descend_one_row(const Grid<std::uint16_t>& level, int y, std::uint8_t* out) {
    const int w = level.width(), h = level.height();
    if (y == 0 || y == h - 1) {
        std::memset(out, edge_drain(0, y, h), static_cast<std::size_t>(w));
        return;
    }
    if (w >= 3) descend_row(level.row(y - 1), level.row(y), level.row(y + 1), out, w);
    out[w - 1] = edge_drain(w - 1, y, h);
    out[0] = edge_drain(0, y, h);
}

// label_basins of a descent grid (w x h) whose rows come from drains(y): a pointer to row y's
// drain codes, asked for in order y = 0, 1, ..., h - 2 (the bottom row is never read), each read
// until the row after the next is asked for (so two rows of a rolling buffer can serve them).
template <class DrainRows>
std::uint32_t label_basins_by_rows(int w, int h, DrainRows&& drains,
                                   Grid<std::uint32_t>& basin_grid, int threads) {
    const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h),
                      uw = static_cast<std::size_t>(w);
    basin_grid = Grid<std::uint32_t>::uninitialised(w, h);
    std::uint32_t* lab = basin_grid.cells().data();
    if (w < 3 || h < 3) { // every cell lies on the edge
        std::fill_n(lab, n, 0u);
        return 1;
    }
    // Pass 1: provisional labels. A cell joins its west and north neighbours when either drains
    // into the other; without such a link it starts a label. The edge cells are label 0.
    // At most one label per interior cell (a flat is all pits), + label 0; maps of noise have
    // about one per 10 cells: room for n / 8 (from the grid pool), grown (doubled) before a row
    // that might not fit.
    LabelForest<GridCells<std::uint32_t>> forest;
    GridCells<std::uint32_t>& parent = forest.parent;
    parent = GridCells<std::uint32_t>(std::max(n / 8, 2 * uw));
    parent[0] = 0;
    std::uint32_t next = 1;
    std::fill_n(lab, uw, 0u);
    const std::uint8_t* d_up = drains(std::size_t{0});
    for (std::size_t y = 1; y + 1 < static_cast<std::size_t>(h); ++y) {
        if (next + uw > parent.size()) parent.resize(std::max(2 * parent.size(), next + uw));
        const std::size_t row = y * uw;
        const std::uint8_t* d_mid = drains(y);
        const std::uint32_t* l_up = lab + row - uw;
        lab[row] = 0;
        std::uint32_t west = 0; // the label of the cell to the west
        std::uint8_t d_west = d_mid[0];
        for (std::size_t x = 1; x + 1 < uw; ++x) {
            const std::uint8_t d = d_mid[x];
            const bool to_west = (d == drain_west) | (d_west == drain_east);
            const bool to_north = (d == drain_north) | (d_up[x] == drain_south);
            const std::uint32_t north = l_up[x];
            d_west = d;
            // One branch (rarely taken), on a value the compiler cannot split into tests.
            const std::uint32_t link =
                (static_cast<std::uint32_t>(to_west) << 1) | static_cast<std::uint32_t>(to_north);
            if ((link == 3) & (west != north)) [[unlikely]] {
                west = forest.join(west, north);
            } else {
                parent[next] = next;
                west = to_west ? west : to_north ? north : next;
                next += !(to_west | to_north);
            }
            lab[row + x] = west;
        }
        // The east edge cell (label 0) takes in its west neighbour when that drains into it.
        lab[row + uw - 1] = 0;
        if (d_west == drain_east) (void)forest.join(west, 0);
        d_up = d_mid;
    }
    const std::size_t last = (static_cast<std::size_t>(h) - 1) * uw;
    for (std::size_t x = 0; x < uw; ++x) {
        lab[last + x] = 0;
        if (d_up[x] == drain_south) (void)forest.join(lab[last + x - uw], 0);
    }
    // Flatten: parents lie below their labels, so in increasing order each label's parent is
    // already numbered; roots get the basin numbers 1, 2, ... (label 0 stays basin 0).
    std::uint32_t basins = 1;
    for (std::uint32_t i = 1; i < next; ++i) {
        const std::uint32_t p = parent[i];
        parent[i] = p == i ? basins++ : parent[p];
    }
    // Pass 2: final labels (the interior rows; blocks of rows on `threads` threads).
    const std::uint32_t* final_label = parent.data();
    parallel_for(h - 2, threads, [&](int y0, int y1) {
        const std::size_t end = (static_cast<std::size_t>(y1) + 1) * uw;
        for (std::size_t c = (static_cast<std::size_t>(y0) + 1) * uw; c < end; ++c)
            lab[c] = final_label[lab[c]];
    });
    return basins;
}

} // namespace

Grid<std::uint8_t> descend(const Grid<std::uint16_t>& level, int threads) {
    Grid<std::uint8_t> down = Grid<std::uint8_t>::uninitialised(level.width(), level.height());
    parallel_for(level.height(), threads, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y)
            descend_one_row(level, y, down.row(y));
    });
    return down;
}

std::uint32_t label_basins(const Grid<std::uint8_t>& down_grid, Grid<std::uint32_t>& basin_grid,
                           int threads) {
    const std::uint8_t* down = down_grid.cells().data();
    const std::size_t uw = static_cast<std::size_t>(down_grid.width());
    return label_basins_by_rows(
        down_grid.width(), down_grid.height(), [&](std::size_t y) { return down + y * uw; },
        basin_grid, threads);
}

std::uint32_t label_basins_of_levels(const Grid<std::uint16_t>& level,
                                     Grid<std::uint32_t>& basin_grid, int threads) {
    // Two rows of descent, made as the scan reaches them (the scan reads rows y - 1 and y).
    const std::size_t uw = static_cast<std::size_t>(level.width());
    std::vector<std::uint8_t> rows(2 * uw);
    return label_basins_by_rows(
        level.width(), level.height(),
        [&](std::size_t y) {
            std::uint8_t* out = rows.data() + (y & 1u) * uw;
            descend_one_row(level, static_cast<int>(y), out);
            return static_cast<const std::uint8_t*>(out);
        },
        basin_grid, threads);
}

namespace {

// The pairs (basin_pairs) of rows [y0, y1) in their buckets: horizontal pairs, and vertical
// pairs to the next row where there is one.
PairBuckets bucket_pairs_of_rows(const Grid<std::uint16_t>& level_grid,
                                 const Grid<std::uint32_t>& basin_grid, std::uint32_t y0,
                                 std::uint32_t y1) {
    const std::uint32_t uw = static_cast<std::uint32_t>(level_grid.width());
    const std::uint32_t h = static_cast<std::uint32_t>(level_grid.height());
    const std::uint16_t* lv = level_grid.cells().data();
    const std::uint32_t* basin = basin_grid.cells().data();
    PairBuckets pairs(static_cast<std::size_t>(y1 - y0) * uw / 16);
    // A pair is left out when the last pair kept for the same two basins (along the row for
    // vertical pairs, down the column for horizontal ones) cost no more: that one comes first in
    // Kruskal's order and joins the two basins, so the result is the same with fewer pairs.
    std::vector<LastPair> column(uw);
    for (std::uint32_t y = y0; y < y1; ++y) {
        const std::size_t row = static_cast<std::size_t>(y) * uw;
        if (y + 1 < h)
            row_pairs<true>(basin, lv, row, uw, column.data(), pairs);
        else
            row_pairs<false>(basin, lv, row, uw, column.data(), pairs);
    }
    return pairs;
}

// The pairs of the whole grid, by bands of rows on `threads` threads, in row order. Each band
// leaves out pairs as one scan does within it (bucket_pairs_of_rows), so a few pairs more are
// kept at the bands' borders: each comes after a kept pair of the same two basins costing no more,
// so Kruskal's algorithm passes over it and the tree is the same at any thread count.
std::vector<PairBuckets> bucket_pairs(const Grid<std::uint16_t>& level,
                                      const Grid<std::uint32_t>& basin, int threads) {
    return parallel_bands(level.height(), threads, [&](int y0, int y1) {
        return bucket_pairs_of_rows(level, basin, static_cast<std::uint32_t>(y0),
                                    static_cast<std::uint32_t>(y1));
    });
}

} // namespace

std::vector<BasinPair> basin_pairs(const Grid<std::uint16_t>& level,
                                   const Grid<std::uint32_t>& basin, int threads) {
    std::vector<BasinPair> out;
    if (level.empty()) return out;
    for_each_pair(bucket_pairs(level, basin, threads), [&](const BasinPair& e) {
        out.push_back(e);
        return true;
    });
    return out;
}

FlowField flood_basins(Grid<std::uint16_t> level, int threads, bool with_filled,
                       const std::function<void()>& before_pairs, int pair_threads) {
    if (pair_threads <= 0) pair_threads = threads;
    FlowField f;
    const int w = level.width(), h = level.height();
    const std::size_t n = level.size();
    if (n == 0) {
        if (with_filled) f.filled = Grid<std::uint16_t>(w, h);
        f.down = Grid<std::uint8_t>(w, h);
        f.level = std::move(level);
        return f;
    }
    const std::uint16_t* lv = level.cells().data();
    const std::int64_t offset[4] = {-static_cast<std::int64_t>(w), -1, 1, w};

    // 1. Descent, 2. basins. Alone (no before_pairs), the descent grid is made first and the
    // labels' scan reads it. With work beside the flood (before_pairs set), the scan makes each
    // row of the descent as it reaches it and the grid is made after the pairs are freed, so it
    // is never alive with them or with that work's temporaries (a byte per cell less at the peak).
    const bool lean = static_cast<bool>(before_pairs);
    if (!lean) f.down = descend(level, threads);
    const std::uint32_t basins = lean ? label_basins_of_levels(level, f.basin, threads)
                                      : label_basins(f.down, f.basin, threads);
    const std::uint32_t* basin = f.basin.cells().data();
    if (before_pairs) before_pairs();

    // 3. Kruskal over the pairs. The pairs (the stage's largest temporary) are freed as soon as
    // the tree is known. A basin's water level, the cost of the pair that joined its component to
    // the ocean's, is the largest cost on its tree path to the ocean (the pairs come by cost, so
    // that pair costs the most on the path): set below as the tree is rooted.
    std::vector<BasinPair> tree; // the joining pairs
    tree.reserve(basins);
    std::vector<std::uint16_t> water(basins, 0);
    {
        const std::vector<PairBuckets> pairs = bucket_pairs(level, f.basin, pair_threads);
        std::vector<std::uint32_t> parent(basins), size(basins, 1);
        for (std::uint32_t b = 0; b < basins; ++b)
            parent[b] = b;
        auto find = [&](std::uint32_t b) {
            while (parent[b] != b) {
                parent[b] = parent[parent[b]];
                b = parent[b];
            }
            return b;
        };
        for_each_pair(pairs, [&](const BasinPair& e) {
            if (tree.size() + 1 >= basins) return false;
            const std::uint32_t a = find(e.a), b = find(e.b);
            if (a == b) return true;
            tree.push_back(e);
            // Union by size.
            std::uint32_t big = a, small = b;
            if (size[big] < size[small]) std::swap(big, small);
            parent[small] = big;
            size[big] += size[small];
            return true;
        });
    }
    if (lean) f.down = descend(level, threads);
    std::uint8_t* down = f.down.cells().data();
    // Root the tree at basin 0: each basin drains through the pair linking it to its parent.
    std::vector<std::uint32_t> degree(static_cast<std::size_t>(basins) + 1, 0);
    for (const BasinPair& e : tree) {
        ++degree[e.a + 1];
        ++degree[e.b + 1];
    }
    for (std::uint32_t b = 0; b < basins; ++b)
        degree[b + 1] += degree[b];
    std::vector<std::uint32_t> links(2 * tree.size());
    {
        std::vector<std::uint32_t> fill(degree.begin(), degree.end() - 1);
        for (std::uint32_t i = 0; i < tree.size(); ++i) {
            links[fill[tree[i].a]++] = i;
            links[fill[tree[i].b]++] = i;
        }
    }
    std::vector<std::uint32_t> outlet_from(basins, kNone), outlet_into(basins, kNone);
    std::vector<std::uint8_t> reached(basins, 0);
    std::vector<std::uint32_t> queue{0};
    reached[0] = 1;
    const std::uint32_t uw = static_cast<std::uint32_t>(w);
    for (std::size_t k = 0; k < queue.size(); ++k) {
        const std::uint32_t b = queue[k];
        for (std::uint32_t j = degree[b]; j < degree[b + 1]; ++j) {
            const BasinPair& e = tree[links[j]];
            const std::uint32_t q = e.p + (e.down ? uw : 1u);
            const bool p_here = e.a == b;
            const std::uint32_t child = p_here ? e.b : e.a;
            if (reached[child]) continue;
            reached[child] = 1;
            outlet_from[child] = p_here ? q : e.p; // the child's cell drains into this basin's
            outlet_into[child] = p_here ? e.p : q;
            water[child] = std::max(water[b], e.cost);
            queue.push_back(child);
        }
    }

    // 4. Breaching: reverse each pit basin's descent path from its outlet cell to its pit.
    auto towards = [&](std::uint32_t from, std::uint32_t to) -> std::uint8_t {
        const std::int64_t d = static_cast<std::int64_t>(to) - from;
        return d == -static_cast<std::int64_t>(w) ? drain_north
               : d == -1                          ? drain_west
               : d == 1                           ? drain_east
                                                  : drain_south;
    };
    f.pit.assign(basins, kNone);
    constexpr std::uint32_t kAhead = 16; // outlets prefetched ahead (each a cache miss)
    for (std::uint32_t b = 1; b < basins; ++b) {
        if (b + kAhead < basins) __builtin_prefetch(down + outlet_from[b + kAhead], 1);
        std::uint32_t prev = outlet_into[b], cur = outlet_from[b];
        for (;;) {
            const std::uint8_t d = down[cur];
            down[cur] = towards(cur, prev);
            if (d == kDrainPit) {
                f.pit[b] = cur;
                break;
            }
            prev = cur;
            cur = static_cast<std::uint32_t>(static_cast<std::int64_t>(cur) + offset[d]);
        }
    }

    // Allocated only now: the pairs' memory (freed above) serves it.
    if (with_filled) {
        f.filled = Grid<std::uint16_t>::uninitialised(w, h);
        std::uint16_t* filled = f.filled.cells().data();
        parallel_for(h, threads, [&](int y0, int y1) {
            const std::size_t end = static_cast<std::size_t>(y1) * static_cast<std::size_t>(w);
            for (std::size_t c = static_cast<std::size_t>(y0) * static_cast<std::size_t>(w);
                 c < end; ++c)
                filled[c] = std::max(lv[c], water[basin[c]]);
        });
    }

    // 5. Depressions: basins of the same water level W joined by a pair below W. The tree's pairs
    // are enough: Kruskal met any such pair when its basins were already joined by tree pairs of
    // no higher cost (so below W, between basins that joined the ocean together, at W), or made
    // it a tree pair.
    LabelForest<std::vector<std::uint32_t>> groups;
    groups.parent.resize(basins);
    for (std::uint32_t b = 0; b < basins; ++b)
        groups.parent[b] = b;
    for (const BasinPair& e : tree)
        if (water[e.a] == water[e.b] && e.cost < water[e.a]) (void)groups.join(e.a, e.b);
    for (std::uint32_t b = 0; b < basins; ++b)
        groups.parent[b] = groups.find(b);
    f.depression = std::move(groups.parent);
    f.water = std::move(water);
    f.level = std::move(level);
    f.basins = basins;
    return f;
}

Grid<float> count_upstream(const Grid<std::uint8_t>& down_grid, int threads, std::size_t band_cells,
                           bool as_floats) {
    const int w = down_grid.width(), h = down_grid.height();
    const std::size_t uw = static_cast<std::size_t>(w);
    // One word per cell: the count from bit 7 up, the inflows still to come (bits 3..5) and the
    // drain code (bits 0..2), so each step down touches one word. The words live in the result's
    // own cells (bit patterns copied in and out with memcpy: no second map-sized buffer) and
    // become the counts in place at the end.
    constexpr std::uint32_t kInShift = 3, kCountShift = kUpstreamCountShift,
                            kOne = 1u << kCountShift;
    Grid<float> acc = Grid<float>::uninitialised(w, h);
    float* a = acc.cells().data();
    const std::uint8_t* down = down_grid.cells().data();
    // The sources (cells nothing drains into) as bits, one row in row_words 64-bit words (a
    // block of rows writes whole words of its own).
    const std::size_t row_words = (uw + 63) / 64;
    std::vector<std::uint64_t> is_source(row_words * static_cast<std::size_t>(h), 0);
    const std::vector<std::uint8_t> none(uw, kDrainPit); // the rows above and below the map
    auto prepare_rows = [&](std::size_t y_begin, std::size_t y_end) {
        std::vector<std::uint8_t> in(row_words * 64, 1); // past the row: no source
        std::vector<std::uint32_t> words(uw);
        for (std::size_t y = y_begin; y < y_end; ++y) {
            const std::uint8_t* mid = down + y * uw;
            in_degree_row(y > 0 ? mid - uw : none.data(), mid,
                          y + 1 < static_cast<std::size_t>(h) ? mid + uw : none.data(), in.data(),
                          uw);
            for (std::size_t x = 0; x < uw; ++x) // vector code
                words[x] = kOne | (std::uint32_t{in[x]} << kInShift) | (mid[x] & 7u);
            std::memcpy(a + y * uw, words.data(), uw * sizeof(std::uint32_t));
            std::uint64_t* bits = is_source.data() + y * row_words;
            for (std::size_t k = 0; k < row_words; ++k)
                bits[k] = zero_bytes_64(in.data() + k * 64);
        }
    };
    // Down from the sources, breadth first: the sources of a band of rows are the first wave;
    // each wave adds every cell's count into the cell it drains into, and the next wave is the
    // cells that got their last inflow (advance_wave). Whole numbers: the order they are added
    // in does not matter, and every cell is passed on exactly once, by the wave after its last
    // inflow arrived (or as a source).
    // With one thread the rows are prepared just ahead of the waves (twice a band's rows past
    // it), so the words the waves touch are still in the cache; a cell whose step leads into a
    // row not prepared yet (rare: most steps stay near their source's row) is parked, its count
    // final, and passed on once every row is. With more, all rows first, by blocks of rows.
    const std::size_t rows = static_cast<std::size_t>(h);
    const std::size_t band_rows =
        std::max<std::size_t>(1, band_cells / std::max<std::size_t>(uw, 1));
    const bool ahead = threads <= 1;
    std::size_t prepared = 0; // rows prepared
    if (!ahead) {
        parallel_for(h, threads, [&](int y0, int y1) {
            prepare_rows(static_cast<std::size_t>(y0), static_cast<std::size_t>(y1));
        });
        prepared = rows;
    }
    std::vector<std::uint32_t> wave(band_rows * uw), next(band_rows * uw); // a wave never grows
    std::vector<std::uint32_t> parked;
    const std::int64_t offset[4] = {-static_cast<std::int64_t>(w), -1, 1, w};
    auto run_waves = [&](std::size_t size) {
        const auto limit = static_cast<std::uint32_t>(prepared * uw);
        while (size != 0) {
            size = advance_wave(a, offset, wave.data(), size, limit, next.data(), parked);
            std::swap(wave, next);
        }
    };
    for (std::size_t y0 = 0; y0 < rows; y0 += band_rows) {
        const std::size_t y1 = std::min(y0 + band_rows, rows);
        if (const std::size_t to = std::min(y1 + 2 * band_rows, rows); to > prepared) {
            prepare_rows(prepared, to);
            prepared = to;
        }
        std::size_t size = 0;
        for (std::size_t y = y0; y < y1; ++y)
            for (std::size_t k = 0; k < row_words; ++k)
                for (std::uint64_t m = is_source[y * row_words + k]; m != 0; m &= m - 1)
                    wave[size++] = static_cast<std::uint32_t>(
                        y * uw + 64 * k + static_cast<std::size_t>(std::countr_zero(m)));
        run_waves(size);
    }
    const std::vector<std::uint32_t> late = std::move(parked); // every row is prepared now
    parked.clear();
    for (std::size_t p0 = 0; p0 < late.size(); p0 += wave.size()) {
        const std::size_t size = std::min(wave.size(), late.size() - p0);
        std::copy_n(late.begin() + static_cast<std::ptrdiff_t>(p0), size, wave.begin());
        run_waves(size);
    }
    if (!as_floats) return acc;
    parallel_for(h, threads, [&](int y0, int y1) {
        std::vector<std::uint32_t> words(uw);
        for (std::size_t y = static_cast<std::size_t>(y0); y < static_cast<std::size_t>(y1); ++y) {
            float* row = a + y * uw;
            std::memcpy(words.data(), row, uw * sizeof(std::uint32_t));
            for (std::size_t x = 0; x < uw; ++x) // vector code (counts < 2^25: as int32, exact)
                row[x] = static_cast<float>(static_cast<std::int32_t>(words[x] >> kCountShift));
        }
    });
    return acc;
}

Grid<float> flow_accumulation(const FlowField& f, const Grid<float>* rain, int threads) {
    const int w = f.down.width(), h = f.down.height();
    const std::size_t n = f.down.size();
    if (!rain && n <= (std::size_t{1} << 24)) return count_upstream(f.down, threads);
    return accumulate_rain(f, rain ? *rain : Grid<float>(w, h, 1.0f));
}

Grid<float> accumulate_rain(const FlowField& f, Grid<float> acc) {
    const int w = f.down.width(), h = f.down.height();
    const std::size_t n = f.down.size();
    float* a = acc.cells().data();
    const std::uint8_t* down = f.down.cells().data();
    const std::int64_t offset[4] = {-static_cast<std::int64_t>(w), -1, 1, w};
    Grid<std::uint8_t> indeg_grid(w, h, 0);
    std::uint8_t* indeg = indeg_grid.cells().data();
    for (std::size_t c = 0; c < n; ++c)
        if (!(down[c] & kDrainOff)) ++indeg[static_cast<std::int64_t>(c) + offset[down[c]]];
    for (std::size_t c = 0; c < n; ++c) {
        if (indeg[c] != 0) continue;
        // A cell nothing drains into (or whose inflows are all in): walk down while each next
        // cell has received all of its inflows.
        std::size_t cur = c;
        indeg[cur] = 0xff; // visited
        for (;;) {
            const std::uint8_t d = down[cur];
            if (d & kDrainOff) break;
            const auto t = static_cast<std::size_t>(static_cast<std::int64_t>(cur) + offset[d]);
            a[t] += a[cur];
            if (--indeg[t] != 0) break;
            indeg[t] = 0xff;
            cur = t;
        }
    }
    return acc;
}

} // namespace tilegen
