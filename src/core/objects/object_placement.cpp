#include "core/objects/object_placement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>

#include "core/hash.hpp"
#include "core/objects/leaning_tiles.hpp"
#include "core/objects/placement_bits.hpp"

// How it runs. Per rule, a jittered grid of blocks (block = floor(spacing / sqrt 2), so a block
// holds at most one anchor), two attempts per block, decided in scan order: block rows top to
// bottom, blocks left to right. Cheap tests first: bit masks of the cells the rule may stand on
// (class, and density above the threshold) skip blocks and cells with no chance before any hashing;
// occupancy (every rule's footprints) and spacing (a disc stamped around each accepted anchor of
// the current rule) are bitsets of the map, one bit per cell, so each test is a word read. The
// acceptance hashes of a row are computed first and only the accepted candidates go on (fewer
// unpredictable branches).
//
// Parallel and deterministic: the scan of block rows and columns is cut into leaning tiles
// (leaning_tiles.hpp), so every decision is the one a single top-to-bottom scan makes, whatever the
// thread count. A tile is a group of block rows (at least kGroupRows rows, twice the spacing reach
// and a footprint height) by a strip of block columns leaning by at least the spacing reach and a
// footprint width per block row; tiles that may run at the same time never touch the same word of
// a bitset. Preparing a group makes the class masks of its rows (a tile needs those of its rows and
// of the rows below). Rules run one after another.

namespace tilegen {

namespace {

// Rows per tile at least (rounded up to whole blocks).
constexpr int kGroupRows = 64;
// Rows per work item when the objects are put into drawing order (any split gives the same order).
constexpr int kSortRows = 64;

// Salts of the sprite pick per attempt (acceptance and jitter have their own streams).
constexpr std::array<std::uint64_t, 2> kPickSalt{0x94d049bb133111ebull, 0x61c8864680b583ebull};

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
    DivideBy block_of{1}; // x -> x / block
    int reach = 0;        // rows above/below an anchor that hold cells closer than the spacing
    std::vector<int> half_width; // per dy in -reach..reach: max |dx| with dx^2 + dy^2 < spacing^2
    std::vector<std::uint64_t> disc; // per dy, when 2 * reach + 1 <= 64: bits reach-r .. reach+r
    int max_fw = 1, max_fh = 1;
    LeaningTiles tiles; // of block rows and columns
    std::uint64_t jitter_stream = 0, accept_stream = 0;
    std::vector<TileObjects> out; // per tile, group after group
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
        // One or two runs of consecutive classes: 64 cells by a few byte compares.
        if (rp.class_runs.size() <= 2) {
            const bool two = rp.class_runs.size() == 2;
            const ByteRuns runs(rp.class_runs[0].first, rp.class_runs[0].second,
                                two ? rp.class_runs[1].first : 0,
                                two ? rp.class_runs[1].second : 0);
            for (; wi < w / 64; ++wi)
                out[wi] = runs.mask64(c + wi * 64);
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
                    const std::uint64_t m =
                        floats_above(d + x0, std::min(16, w - x0), rp.threshold_below);
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
        const int group_rows = rp.tiles.group_rows * rp.block;
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
        TileObjects& out = rp.out[static_cast<std::size_t>(group * rp.tiles.strips + strip)];
        const int by0 = group * rp.tiles.group_rows,
                  by1 = std::min(rp.blocks_h, by0 + rp.tiles.group_rows);
        const int row0 = by0 * rp.block, row1 = std::min(h, by1 * rp.block);
        out.first_chunk = row0 / kSortRows;
        const int last_row =
            std::min(h, row1 + rp.max_fh - 1) - 1; // the lowest row its footprints can reach
        out.chunk_count.assign(static_cast<std::size_t>(last_row / kSortRows - out.first_chunk + 1),
                               0);
        out.start.assign(static_cast<std::size_t>((row1 - row0) * rp.max_fh) + 1, 0);
        // Room for a typical tile's anchors, so the list rarely grows.
        const int tile_blocks_w = rp.tiles.edge(strip + 1, by0) - rp.tiles.edge(strip, by0);
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
            max_words = std::max(max_words, (std::min(w, rp.tiles.edge(strip + 1, by) * rp.block) -
                                             rp.tiles.edge(strip, by) * rp.block + 63) /
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
            const int x0 = rp.tiles.edge(strip, by) * rp.block,
                      x1 = std::min(w, rp.tiles.edge(strip + 1, by) * rp.block);
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
                    const int bx = rp.block_of(x);
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
                    // Jitter inside the block: 16 bits per coordinate and attempt.
                    const std::uint64_t jit = hj >> (32 * a);
                    const int x = bx * rp.block + scale16(jit, rp.block);
                    const int y = y0 + scale16(jit >> 16, rp.block);
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
    // The caller hands every density map a rule names, at least the class grid's size (the
    // pipeline computes them so): anything else is a bug, not something to guess around.
    if (!rule.density.empty() &&
        (!rp.density || rp.density->width() < w || rp.density->height() < h))
        throw std::logic_error("density map '" + rule.density +
                               "' is missing or smaller than the class grid");
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
    rp.block_of = DivideBy(rp.block);
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
    // Tiles (see "How it runs"): a decision reads and writes the spacing reach around its cell and
    // a footprint to its right and below; two tiles that may run at the same time keep two words
    // (128 cells) apart beyond that.
    auto blocks = [&](int cells) { return (cells + rp.block - 1) / rp.block; };
    rp.tiles = plan_leaning_tiles(
        rp.blocks_w, rp.blocks_h, blocks(std::max(kGroupRows, 2 * rp.reach + rp.max_fh)),
        blocks(std::max(rp.reach, rp.max_fw - 1)), blocks(2 * rp.reach + rp.max_fw + 128), threads);
    rp.out.resize(static_cast<std::size_t>(rp.tiles.strips * rp.tiles.groups));
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
        run_leaning_tiles(
            rp.tiles, workers, [&](int group) { placer.prepare_group(rp, group, clear_near); },
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
                const int group_rows = rp.tiles.group_rows * rp.block;
                for (int fh = 1; fh <= rp.max_fh && fh <= r + 1; ++fh) {
                    const int y = r - fh + 1, g = y / group_rows;
                    const auto k =
                        static_cast<std::size_t>((y - g * group_rows) * rp.max_fh + fh - 1);
                    for (int i = 0; i < rp.tiles.strips; ++i) {
                        const TileObjects& tile =
                            rp.out[static_cast<std::size_t>(g * rp.tiles.strips + i)];
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
