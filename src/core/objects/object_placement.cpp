#include "core/objects/object_placement.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <span>
#include <stdexcept>
#include <thread>

#include "core/grid.hpp"
#include "core/hash.hpp"
#include "core/objects/placement_bits.hpp"
#include "core/parallel.hpp"

// How it runs (the header gives the semantics). Per rule: a bitset of the grid's cells the rule
// may stand on (its classes, inside the world's bounds); the candidates, block row by block row in
// parallel (a block with no allowed, unoccupied cell whose density passes the threshold is skipped
// before any hashing; one-cell blocks test a cell's density once for both attempts; occupancy
// of the earlier rules is a bitset, one bit per cell); each candidate's conflicts, found once from
// the block rows within its reach (candidates of a row are in block order, so one sweep per row
// finds them; when a window spans few blocks, the block rows within reach are kept as arrays by
// block column instead, and each window is read whole with no branch per block);
// then the rounds, each two passes over the live candidates (reading one buffer of states and
// writing the other, so no pass reads what it writes), which are kept per block row and shrink
// every round. A candidate's list holds only the rivals that outrank it: a rival it outranks
// cannot be placed while it is live (that rival has it as a live, stronger rival), so only
// stronger rivals ever decide its fate, and each conflicting pair is stored once. The states live
// in one byte per candidate, indexed over all rows. The placed candidates become objects and occupy
// their footprints for the next rule.

namespace tilegen {

namespace {

// Salts of the sprite pick per attempt (acceptance and jitter have their own streams).
constexpr std::array<std::uint64_t, 2> kPickSalt{0x94d049bb133111ebull, 0x61c8864680b583ebull};

// floor(a / b) for b > 0.
constexpr long long floor_div(long long a, long long b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The sheet indices of the rule's sprites found in the sheet, in the rule's order.
std::vector<int> found_sprites(const ObjectRule& rule, const SpriteSheet& sheet) {
    std::vector<int> found;
    for (const auto& name : rule.sprites)
        for (std::size_t s = 0; s < sheet.sprites.size() && found.size() < 65535; ++s)
            if (sheet.sprites[s].name == name) found.push_back(static_cast<int>(s));
    return found;
}

// A rule's distances in cells.
struct RuleGeometry {
    int block = 1;              // block side: floor(spacing / sqrt 2), at least 1
    int reach = 0;              // the largest offset d with d^2 < spacing^2 (0 when spacing <= 1)
    int max_fw = 1, max_fh = 1; // the largest footprint of its sprites (1..64)

    // How far a decision reads or writes around its cell: the spacing, a footprint.
    int range() const { return std::max({reach, max_fw - 1, max_fh - 1, 1}); }
};

RuleGeometry rule_geometry(const ObjectRule& rule, const SpriteSheet& sheet,
                           const std::vector<int>& found) {
    RuleGeometry g;
    g.block = std::max(1, static_cast<int>(std::floor(rule.spacing / std::sqrt(2.0))));
    const double spacing2 = rule.spacing * rule.spacing;
    while (static_cast<double>(g.reach + 1) * (g.reach + 1) < spacing2)
        ++g.reach;
    for (int s : found) {
        const SpriteInfo& info = sheet.sprites[static_cast<std::size_t>(s)];
        g.max_fw = std::max(g.max_fw, std::clamp(info.footprint_w, 1, 64));
        g.max_fh = std::max(g.max_fh, std::clamp(info.footprint_h, 1, 64));
    }
    return g;
}

// Whether the rule places anything at all: sprites in the sheet and classes to stand on.
bool rule_active(const ObjectRule& rule, const std::vector<int>& found) {
    return !found.empty() && rule.on != 0; // kMaxClasses is 32: every bit names a class
}

struct RulePlan {
    int index = 0;
    std::array<bool, 256> allowed{}; // class -> may stand on it
    std::vector<std::pair<int, int>>
        class_runs;                // the classes it may stand on, as runs (first, count)
    std::vector<int> sprite_index; // sheet indices of the rule's sprites found in the sheet
    std::vector<int> fw, fh;       // their footprints
    std::vector<std::uint64_t>
        pick_below;        // weight k is picked by a 53-bit uniform u with
                           // pick_below[k-1] <= u < pick_below[k] (empty: the first sprite)
    std::vector<int> pick; // weight k -> index into sprite_index
    const Grid<float>* density = nullptr;
    double spacing2 = 0;
    // Attempt bits passing acceptance at a density (chance, scaled by density above the
    // threshold).
    DensityAcceptance acceptance{0, 1};
    // The largest float at most the threshold: a density d <= floor has probability 0, so its
    // cell accepts nothing.
    float density_floor = 0;
    std::uint64_t chance_limit = 0; // u / 2^32 < chance <=> u < chance_limit (32-bit u)
    RuleGeometry geometry;
    std::uint64_t jitter_stream = 0, accept_stream = 0, priority_stream = 0;
};

// Attempt bits (1: first, 2: second) whose 32-bit uniforms of hu are below the limit.
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

RulePlan plan_rule(const ObjectRule& rule, int index, const NamedMaps& maps,
                   const SpriteSheet& sheet, int w, int h, std::uint64_t seed) {
    RulePlan rp;
    rp.index = index;
    rp.sprite_index = found_sprites(rule, sheet);
    for (int s : rp.sprite_index) {
        rp.fw.push_back(std::clamp(sheet.sprites[static_cast<std::size_t>(s)].footprint_w, 1, 64));
        rp.fh.push_back(std::clamp(sheet.sprites[static_cast<std::size_t>(s)].footprint_h, 1, 64));
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
    for (const auto& [name, g] : maps)
        if (name == rule.density) rp.density = &g;
    // The caller hands every density map a rule names, at least the class grid's size (the
    // pipeline computes them so): anything else is a bug, not something to guess around.
    if (!rule.density.empty() && rule_active(rule, rp.sprite_index) &&
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
    rp.acceptance = DensityAcceptance(rule.threshold, rule.chance);
    rp.density_floor = static_cast<float>(rule.threshold);
    if (static_cast<double>(rp.density_floor) > rule.threshold)
        rp.density_floor =
            std::nextafter(rp.density_floor, -std::numeric_limits<float>::infinity());
    rp.spacing2 = rule.spacing * rule.spacing;
    rp.chance_limit = rule.chance <= 0 ? 0
                      : rule.chance >= 1
                          ? (1ull << 32)
                          : static_cast<std::uint64_t>(std::ceil(rule.chance * 4294967296.0));
    rp.geometry = rule_geometry(rule, sheet, rp.sprite_index);
    const std::uint64_t stream =
        hash_values(seed, 0x6f626a656374ull /* "object" */, static_cast<std::uint64_t>(index));
    rp.jitter_stream = mix64(stream ^ 0x6a6974746572ull /* "jitter" */);
    rp.accept_stream = mix64(stream ^ 0x616363657074ull /* "accept" */);
    rp.priority_stream = mix64(stream ^ 0x7072696f72ull /* "prior" */);
    return rp;
}

// The grid's cells in world terms, and its blocks for one rule.
struct Layout {
    int w = 0, h = 0, words = 0;
    long long fx = 0, fy = 0;   // the world cell of grid cell (0, 0)
    int block = 1;              // of the rule
    long long bx0 = 0, by0 = 0; // the world block of grid cell (0, 0)
    int ox = 0, oy = 0;         // grid cell where block bx0 (by0) starts (<= 0)
    int nbx = 0, nby = 0;       // blocks meeting the grid
    DivideBy per_block;         // / block, by a multiply (grid offsets are below 2^17)

    Layout(int width, int height, const PlacementFrame& frame, const RuleGeometry& g)
        : w(width), h(height), words((width + 63) / 64), fx(frame.x), fy(frame.y), block(g.block),
          per_block(g.block) {
        bx0 = floor_div(fx, block);
        by0 = floor_div(fy, block);
        ox = static_cast<int>(bx0 * block - fx);
        oy = static_cast<int>(by0 * block - fy);
        nbx = static_cast<int>(floor_div(fx + w - 1, block) - bx0 + 1);
        nby = static_cast<int>(floor_div(fy + h - 1, block) - by0 + 1);
    }
    // The grid's block column (row) of grid cell gx (gy), 0..nbx-1.
    int block_x(int gx) const { return per_block(static_cast<std::uint64_t>(gx - ox)); }
    int block_y(int gy) const { return per_block(static_cast<std::uint64_t>(gy - oy)); }
};

// Rounds of placement per rule (see object_placement.hpp): almost every candidate is decided after
// a few; the few still undecided after the last are not placed.
constexpr int kRounds = 8;

constexpr std::uint8_t kLive = 1, kPlaced = 2, kOut = 0;

// Lists, one per block row, each made once by any thread, stored one after another in blocks that
// grow to 4 MiB and more, so a large rule's candidates and rivals come from the grid pool
// (grid.hpp: pages earlier stages left kept) instead of fresh malloc pages; a row is built in a
// scratch vector and copied in at its exact size.
template <class T> class RowLists {
  public:
    explicit RowLists(std::size_t rows) : rows_(rows) {}
    std::size_t size() const { return rows_.size(); }
    std::span<const T> operator[](std::size_t r) const { return rows_[r]; }
    // Row r's list becomes a copy of `items` (once per row, from any thread).
    void set(std::size_t r, std::span<const T> items) {
        if (items.empty()) return;
        T* at = nullptr;
        {
            std::lock_guard lock(mutex_);
            if (free_ < items.size()) {
                next_block_ = std::max(next_block_ * 2, items.size());
                blocks_.emplace_back(next_block_); // uninitialised (GridCells)
                free_ = next_block_;
            }
            at = blocks_.back().data() + (blocks_.back().size() - free_);
            free_ -= items.size();
        }
        std::copy(items.begin(), items.end(), at);
        rows_[r] = std::span<const T>(at, items.size());
    }

  private:
    std::mutex mutex_;
    std::vector<GridCells<T>> blocks_; // moving one keeps its cells where they are
    std::size_t free_ = 0;             // cells left at the end of the last block
    std::size_t next_block_ = 2048;    // doubles with every block
    std::vector<std::span<const T>> rows_;
};

// An attempt that may become an object: it passed every test but its rule's own spacing and
// overlaps, which the rounds decide.
struct Candidate {
    std::uint32_t priority; // its block's; the higher wins
    std::uint32_t block;    // its block in the grid (row-major): one candidate per block
    std::int32_t x, y;      // its cell in the grid
    std::uint16_t sprite;   // index into the rule's sprites
};

// Does a outrank b? The higher priority; ties (one in 2^32) by block order.
inline bool outranks(const Candidate& a, const Candidate& b) {
    return a.priority != b.priority ? a.priority > b.priority : a.block < b.block;
}

struct Placer {
    const ClassGrid& classes;
    BitRows& allowed;  // cells of the current rule's classes, inside the world's bounds
    BitRows& occupied; // every rule's footprints
    const PlacementFrame& frame;
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

    // The rule's allowed cells: its classes, inside the world's bounds (grid cells).
    void allowed_cells(const RulePlan& rp, int threads) {
        long long bx0 = 0, by0 = 0, bx1 = w, by1 = h; // the bounds in grid cells, clipped
        if (!frame.unbounded) {
            const Region b = frame.bounds.value_or(
                Region{static_cast<int>(frame.x), static_cast<int>(frame.y), w, h});
            bx0 = std::clamp<long long>(b.x - static_cast<long long>(frame.x), 0, w);
            by0 = std::clamp<long long>(b.y - static_cast<long long>(frame.y), 0, h);
            bx1 = std::clamp<long long>(b.x + static_cast<long long>(b.width) - frame.x, bx0, w);
            by1 = std::clamp<long long>(b.y + static_cast<long long>(b.height) - frame.y, by0, h);
        }
        std::vector<std::uint64_t> inside(static_cast<std::size_t>(words), 0);
        if (bx0 < bx1) set_bits(inside.data(), static_cast<int>(bx0), static_cast<int>(bx1 - 1));
        parallel_for(h, threads, [&](int y0, int y1) {
            for (int y = y0; y < y1; ++y) {
                std::uint64_t* row = allowed.row(y);
                if (y < by0 || y >= by1) {
                    std::fill(row, row + words, 0);
                    continue;
                }
                class_mask(rp, y, row);
                for (int i = 0; i < words; ++i)
                    row[i] &= inside[static_cast<std::size_t>(i)];
            }
        });
    }

    // The footprint of sprite k at grid cell (x, y) lies inside the grid, on allowed cells, and on
    // no other footprint.
    bool footprint_fits(const RulePlan& rp, int k, int x, int y) const {
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

    // Candidates of the current rule: attempts that passed every test but the rule's own spacing
    // and overlaps, by block row, each row in block order.
    struct Candidates {
        explicit Candidates(int block_rows)
            : rows(static_cast<std::size_t>(block_rows)),
              rivals(static_cast<std::size_t>(block_rows)),
              rival_start(static_cast<std::size_t>(block_rows)) {}
        RowLists<Candidate> rows; // per block row
        // Candidate i of block row r is number offset[r] + i of all rows (state, rivals).
        std::vector<std::uint32_t> offset;
        GridCells<std::uint8_t> state; // per candidate: kLive, kPlaced, kOut
        // Per block row: the rivals of each of its candidates, the candidates it conflicts with
        // that outrank it, as numbers (candidate i's at rival_start[i] .. rival_start[i + 1] -
        // 1); fixed once the candidates are known.
        RowLists<std::uint32_t> rivals;
        RowLists<std::uint32_t> rival_start;
    };

    // The rivals of block row r's candidates: for each, the candidates whose block lies within the
    // rule's range of it that outrank it and conflict with it. The row's candidates come in block
    // order, so their windows only move right: per neighbouring block row, a pointer to its first
    // candidate not left of the window only advances (no per-block index).
    void rivals_of_row(const RulePlan& rp, const Layout& l, int r, Candidates& cs) const {
        const std::span<const Candidate> row = cs.rows[static_cast<std::size_t>(r)];
        std::vector<std::uint32_t> list, start(row.size() + 1, 0);
        list.reserve(row.size() * 2);
        const int range = rp.geometry.range();
        const int reach = range / l.block + 1; // block rows r - reach .. r + reach
        std::vector<std::uint32_t> next(static_cast<std::size_t>(2 * reach + 1), 0);
        for (std::size_t i = 0; i < row.size(); ++i) {
            start[i] = static_cast<std::uint32_t>(list.size());
            const Candidate& c = row[i];
            const auto lbx0 = static_cast<std::uint32_t>(l.block_x(std::max(0, c.x - range)));
            const auto lbx1 = static_cast<std::uint32_t>(l.block_x(std::min(l.w - 1, c.x + range)));
            const int lby0 = l.block_y(std::max(0, c.y - range)),
                      lby1 = l.block_y(std::min(l.h - 1, c.y + range));
            for (int by = lby0; by <= lby1; ++by) {
                const std::span<const Candidate> other = cs.rows[static_cast<std::size_t>(by)];
                const std::uint32_t offset = cs.offset[static_cast<std::size_t>(by)];
                // Block numbers of row `by` are row_start + its block column.
                const std::uint32_t row_start =
                    static_cast<std::uint32_t>(by) * static_cast<std::uint32_t>(l.nbx);
                std::uint32_t& p = next[static_cast<std::size_t>(by - r + reach)];
                while (p < other.size() && other[p].block < row_start + lbx0)
                    ++p;
                for (std::uint32_t q = p; q < other.size() && other[q].block <= row_start + lbx1;
                     ++q)
                    if (outranks(other[q], c) && conflict(rp, c, other[q]))
                        list.push_back(offset + q);
            }
        }
        start[row.size()] = static_cast<std::uint32_t>(list.size());
        cs.rivals.set(static_cast<std::size_t>(r), list);
        cs.rival_start.set(static_cast<std::size_t>(r), start);
    }

    // Whether rivals_near applies: a candidate's window spans at most kNearWindow blocks and the
    // spacing test fits whole numbers.
    static constexpr int kNearWindow = 36;
    static bool near_applies(const RulePlan& rp, const Layout& l) {
        const int span = 2 * rp.geometry.range() / l.block + 2; // blocks a window spans, at most
        return span * span <= kNearWindow && rp.spacing2 <= 1e12;
    }

    // A candidate as rivals_near keeps it per block: its rank as one number (outranks(a, b) exactly
    // when key(a) > key(b): the priority, then the lower block; 0 for an empty block, which
    // outranks nothing, as no candidate's priority is below 0), its anchor and its footprint's
    // end, and its number.
    struct Near {
        std::uint64_t key = 0;
        std::int32_t x = 0, y = 0, xe = 0, ye = 0;
        std::uint32_t number = 0;
    };
    static std::uint64_t key_of(const Candidate& c) {
        return (static_cast<std::uint64_t>(c.priority) << 32) | (0xffffffffu - c.block);
    }

    // rivals_of_row for every block row, when near_applies: the same lists. Each thread takes
    // chunks of block rows and keeps the block rows within reach of the current one as arrays of
    // Near by block column (a ring), so a candidate's window is read block by block, with no
    // search and no branch per block: d2 < spacing^2 exactly when d2 < ceil(spacing^2) for whole
    // numbers d2.
    void rivals_near(const RulePlan& rp, const Layout& l, Candidates& cs, int threads) const {
        const int range = rp.geometry.range();
        const int reach = range / l.block + 1; // block rows r - reach .. r + reach
        const int ring = 2 * reach + 1;
        const auto spacing2 = static_cast<std::int64_t>(std::ceil(rp.spacing2));
        constexpr int kChunk = 32;
        const int chunks = (l.nby + kChunk - 1) / kChunk;
        std::atomic<int> next_chunk{0};
        parallel_for(threads, threads, [&](int, int) {
            std::vector<Near> near(static_cast<std::size_t>(ring) *
                                   static_cast<std::size_t>(l.nbx));
            auto slot = [&](int by) {
                return near.data() + static_cast<std::size_t>((by % ring + ring) % ring) * l.nbx;
            };
            std::vector<const Near*> at(static_cast<std::size_t>(ring)); // block row r - reach + k
            auto load = [&](int by, bool on) {
                if (by < 0 || by >= l.nby) return;
                const auto bu = static_cast<std::size_t>(by);
                Near* row = slot(by);
                const std::span<const Candidate> cands = cs.rows[bu];
                const std::uint32_t row_start =
                    static_cast<std::uint32_t>(by) * static_cast<std::uint32_t>(l.nbx);
                for (std::size_t q = 0; q < cands.size(); ++q) {
                    const Candidate& c = cands[q];
                    Near& n = row[c.block - row_start];
                    n = on ? Near{key_of(c),
                                  c.x,
                                  c.y,
                                  c.x + rp.fw[c.sprite],
                                  c.y + rp.fh[c.sprite],
                                  cs.offset[bu] + static_cast<std::uint32_t>(q)}
                           : Near{};
                }
            };
            std::vector<std::uint32_t> list, start;
            for (int chunk = next_chunk.fetch_add(1); chunk < chunks;
                 chunk = next_chunk.fetch_add(1)) {
                const int r0 = chunk * kChunk, r1 = std::min(l.nby, r0 + kChunk);
                for (int by = r0 - reach; by < r0 + reach; ++by)
                    load(by, true);
                for (int r = r0; r < r1; ++r) {
                    load(r + reach, true);
                    for (int k = 0; k < ring; ++k)
                        at[static_cast<std::size_t>(k)] = slot(r - reach + k);
                    const std::span<const Candidate> row = cs.rows[static_cast<std::size_t>(r)];
                    list.clear();
                    start.assign(row.size() + 1, 0);
                    std::size_t n = 0;
                    for (std::size_t i = 0; i < row.size(); ++i) {
                        start[i] = static_cast<std::uint32_t>(n);
                        const Candidate& c = row[i];
                        const std::uint64_t key = key_of(c);
                        const int xe = c.x + rp.fw[c.sprite], ye = c.y + rp.fh[c.sprite];
                        const int lbx0 = l.block_x(std::max(0, c.x - range));
                        const int lbx1 = l.block_x(std::min(l.w - 1, c.x + range));
                        const int lby0 = l.block_y(std::max(0, c.y - range)),
                                  lby1 = l.block_y(std::min(l.h - 1, c.y + range));
                        if (list.size() < n + kNearWindow) list.resize(2 * (n + kNearWindow));
                        for (int by = lby0; by <= lby1; ++by) {
                            const Near* o = at[static_cast<std::size_t>(by - r + reach)];
                            for (int bx = lbx0; bx <= lbx1; ++bx) {
                                const Near& b = o[bx];
                                const std::int64_t dx = c.x - b.x, dy = c.y - b.y;
                                const bool hit =
                                    (b.key > key) &
                                    ((dx * dx + dy * dy < spacing2) |
                                     ((c.x < b.xe) & (b.x < xe) & (c.y < b.ye) & (b.y < ye)));
                                list[n] = b.number;
                                n += hit;
                            }
                        }
                    }
                    start[row.size()] = static_cast<std::uint32_t>(n);
                    cs.rivals.set(static_cast<std::size_t>(r),
                                  std::span<const std::uint32_t>(list.data(), n));
                    cs.rival_start.set(static_cast<std::size_t>(r), start);
                    load(r - reach, false);
                }
                for (int by = r1 - reach; by < r1 + reach; ++by)
                    load(by, false);
            }
        });
    }

    // Bit j (j < n <= 64): !(d[j] <= t), as floats_above.
    static std::uint64_t densities_above(const float* d, int n, float t) {
        std::uint64_t m = 0;
        for (int j = 0; j < n; j += 16)
            m |= floats_above(d + j, std::min(16, n - j), t) << j;
        return m;
    }

    // Every attempt of block row lby that stands on allowed, unoccupied cells, passes its
    // acceptance test and whose sprite's footprint fits.
    void candidates_of_row(const RulePlan& rp, const Layout& l, int lby, Candidates& c) const {
        std::vector<Candidate> row;
        row.reserve(static_cast<std::size_t>(l.nbx) / 4);
        const long long by = l.by0 + lby;
        const int gy0 = std::max(0, l.oy + lby * l.block),
                  gy1 = std::min(h, l.oy + (lby + 1) * l.block);
        // Columns with an allowed, unoccupied cell in the block row (the others have no chance).
        std::vector<std::uint64_t> any(static_cast<std::size_t>(words), 0);
        for (int gy = gy0; gy < gy1; ++gy) {
            const std::uint64_t* a = allowed.row(gy);
            const std::uint64_t* o = occupied.row(gy);
            const float* d = rp.density ? rp.density->row(gy) : nullptr;
            for (int i = 0; i < words; ++i) {
                std::uint64_t free = a[i] & ~o[i];
                // A cell of density at most the threshold accepts nothing (probability 0).
                if (d && free)
                    free &= densities_above(d + i * 64, std::min(64, w - i * 64), rp.density_floor);
                any[static_cast<std::size_t>(i)] |= free;
            }
        }
        int lbx = 0; // blocks before it are done
        for (int i = 0; i < words; ++i) {
            const int base = i * 64;
            std::uint64_t bits = any[static_cast<std::size_t>(i)];
            const int next_x = l.ox + lbx * l.block; // the first cell of the next block
            if (next_x > base) bits = next_x >= base + 64 ? 0 : bits & (~0ull << (next_x - base));
            while (bits) {
                const int b = l.block_x(base + __builtin_ctzll(bits));
                lbx = b + 1;
                const int end_x = l.ox + (b + 1) * l.block;
                bits = end_x >= base + 64 ? 0 : bits & (~0ull << (end_x - base));
                block_candidates(rp, l, l.bx0 + b, by, b, lby, row);
            }
        }
        c.rows.set(static_cast<std::size_t>(lby), row);
    }

    // Block (bx, by) (world; lbx, lby in the grid): its two attempts at hashed cells of it, in
    // order; the first that passes is the block's candidate.
    void block_candidates(const RulePlan& rp, const Layout& l, long long bx, long long by, int lbx,
                          int lby, std::vector<Candidate>& out) const {
        const std::uint64_t hu = hash_position(rp.accept_stream, bx, by);
        const std::uint32_t attempts = rp.density ? 3u : attempts_below(hu, rp.chance_limit);
        if (!attempts) return;
        // (A block of one cell has no jitter.)
        const std::uint64_t hj = l.block > 1 ? hash_position(rp.jitter_stream, bx, by) : 0;
        int dx = -1, dy = -1;     // the cell whose density `passed` holds (a one-cell block's
        std::uint32_t passed = 0; // attempts share it): the attempts that pass it
        for (int a = 0; a < 2; ++a) {
            if (!((attempts >> a) & 1u)) continue;
            // Jitter inside the block: 16 bits per coordinate and attempt.
            const std::uint64_t jit = hj >> (32 * a);
            const int x = l.ox + lbx * l.block + scale16(jit, l.block),
                      y = l.oy + lby * l.block + scale16(jit >> 16, l.block);
            if (x < 0 || y < 0 || x >= w || y >= h) continue;
            if (!allowed.test(x, y) || occupied.test(x, y)) continue;
            if (rp.density) {
                if (x != dx || y != dy) {
                    passed = rp.acceptance(hu, (*rp.density)(x, y));
                    dx = x;
                    dy = y;
                }
                if (!((passed >> a) & 1u)) continue;
            }
            const int k = pick_sprite(rp, mix64(hu ^ kPickSalt[static_cast<std::size_t>(a)]));
            if (!footprint_fits(rp, k, x, y)) continue;
            const auto priority =
                static_cast<std::uint32_t>(hash_position(rp.priority_stream, bx, by) >> 32);
            out.push_back({priority, static_cast<std::uint32_t>(lby * l.nbx + lbx), x, y,
                           static_cast<std::uint16_t>(k)});
            return; // one candidate per block: its first attempt that passes
        }
    }

    // May a and b (two blocks' candidates) not both be placed? Anchors keep the spacing;
    // footprints do not overlap.
    static bool conflict(const RulePlan& rp, const Candidate& a, const Candidate& b) {
        const double dx = a.x - b.x, dy = a.y - b.y;
        if (dx * dx + dy * dy < rp.spacing2) return true;
        return a.x < b.x + rp.fw[b.sprite] && b.x < a.x + rp.fw[a.sprite] &&
               a.y < b.y + rp.fh[b.sprite] && b.y < a.y + rp.fh[a.sprite];
    }

    // Every round: live candidates that outrank every live candidate they conflict with (none of
    // whose rivals is live) are placed, then live candidates that conflict with a placed one (one
    // of whose rivals is placed: see the top of this file) are out. Candidates still live after
    // the last round are out too.
    // Each half round is one pass over the rows: it reads the states of one buffer and writes the
    // changes into the other, so no pass reads what it writes, and one wait per pass suffices (the
    // next pass reads what this one wrote). A row's changes of a pass are copied into the buffer
    // it read, by the same row's next pass, before that pass writes anything (the candidates that
    // changed are kept behind the row's live ones). Rows go to the threads in small chunks, one at
    // a time (candidates crowd where the rule's classes are).
    static void run_rounds(Candidates& cs, int threads) {
        const int rows = static_cast<int>(cs.rows.size());
        const std::size_t total = cs.state.size();
        // Per block row r: its live candidates (indices into the row), shrinking every round:
        // live[offset[r] ..  offset[r] + live_count[r] - 1], then those the last pass changed, up
        // to offset[r] + changed_end[r] - 1.
        GridCells<std::uint32_t> live(total);
        GridCells<std::uint8_t> other(cs.state.begin(), cs.state.end());
        std::uint8_t* buffers[2] = {cs.state.data(), other.data()};
        std::vector<std::uint32_t> live_count(static_cast<std::size_t>(rows)),
            changed_end(static_cast<std::size_t>(rows));
        for (int r = 0; r < rows; ++r) {
            const auto ru = static_cast<std::size_t>(r);
            live_count[ru] = changed_end[ru] = static_cast<std::uint32_t>(cs.rows[ru].size());
            for (std::uint32_t i = 0; i < live_count[ru]; ++i)
                live[cs.offset[ru] + i] = i;
        }
        auto rivals = [&](int r, std::uint32_t i) {
            const std::span<const std::uint32_t> list = cs.rivals[static_cast<std::size_t>(r)];
            const std::span<const std::uint32_t> start =
                cs.rival_start[static_cast<std::size_t>(r)];
            return list.subspan(start[i], start[i + 1] - start[i]);
        };
        constexpr int kChunkRows = 16;
        const int chunks = (rows + kChunkRows - 1) / kChunkRows;
        int read = 0; // the buffer holding every state; the other one lags by the last pass
        // Sets the live candidates of which `test(their rivals, the states)` holds to `to` and
        // keeps the others live. Returns whether any candidate is still live.
        auto pass = [&](auto test, std::uint8_t to) {
            const std::uint8_t* state = buffers[read];
            std::uint8_t* next = buffers[1 - read];
            std::atomic<bool> any_live{false};
            for_each_item(chunks, threads, [&](int chunk) {
                bool left = false;
                std::vector<std::uint32_t> changed;
                const int r1 = std::min(rows, (chunk + 1) * kChunkRows);
                for (int r = chunk * kChunkRows; r < r1; ++r) {
                    const auto ru = static_cast<std::size_t>(r);
                    const std::uint32_t offset = cs.offset[ru];
                    std::uint32_t* l_r = live.data() + offset;
                    std::uint32_t& count = live_count[ru];
                    // The previous pass's changes, into the buffer it read.
                    for (std::uint32_t j = count; j < changed_end[ru]; ++j)
                        next[offset + l_r[j]] = state[offset + l_r[j]];
                    changed.clear();
                    std::uint32_t kept = 0;
                    for (std::uint32_t j = 0; j < count; ++j) {
                        const std::uint32_t i = l_r[j];
                        if (test(rivals(r, i), state)) {
                            next[offset + i] = to;
                            changed.push_back(i);
                        } else {
                            l_r[kept++] = i;
                        }
                    }
                    std::copy(changed.begin(), changed.end(), l_r + kept);
                    changed_end[ru] = count;
                    count = kept;
                    left |= kept > 0;
                }
                if (left) any_live.store(true, std::memory_order_relaxed);
            });
            read = 1 - read;
            return any_live.load();
        };
        auto decide = [&] {
            for (int round = 0; round < kRounds; ++round) {
                const bool left = pass(
                    [](std::span<const std::uint32_t> stronger, const std::uint8_t* state) {
                        for (const std::uint32_t o : stronger)
                            if (state[o] == kLive) return false;
                        return true;
                    },
                    kPlaced);
                if (!left) return;
                const bool still = pass(
                    [](std::span<const std::uint32_t> stronger, const std::uint8_t* state) {
                        for (const std::uint32_t o : stronger)
                            if (state[o] == kPlaced) return true;
                        return false;
                    },
                    kOut);
                if (!still) return;
            }
        };
        decide();
        if (read == 1) std::swap(cs.state, other); // every state, in cs.state
        // Undecided after the last round: not placed.
        for (int r = 0; r < rows; ++r) {
            const std::uint32_t offset = cs.offset[static_cast<std::size_t>(r)];
            for (std::uint32_t j = 0; j < live_count[static_cast<std::size_t>(r)]; ++j)
                cs.state[offset + live[offset + j]] = kOut;
        }
    }

    // One rule: its allowed cells, its candidates, the rounds; the placed ones become objects and
    // occupy their footprints.
    void place_rule(const RulePlan& rp, int threads, std::vector<PlacedObject>& out) {
        allowed_cells(rp, threads);
        const Layout l(w, h, frame, rp.geometry);
        Candidates cs(l.nby);
        for_each_item(l.nby, threads, [&](int lby) { candidates_of_row(rp, l, lby, cs); });
        cs.offset.resize(static_cast<std::size_t>(l.nby));
        std::size_t total = 0;
        for (int r = 0; r < l.nby; ++r) {
            cs.offset[static_cast<std::size_t>(r)] = static_cast<std::uint32_t>(total);
            total += cs.rows[static_cast<std::size_t>(r)].size();
        }
        if (total > std::numeric_limits<std::uint32_t>::max())
            throw std::length_error("object placement: more than 2^32 candidates");
        cs.state.assign(total, kLive);
        if (near_applies(rp, l))
            rivals_near(rp, l, cs, threads);
        else
            for_each_item(l.nby, threads, [&](int lby) { rivals_of_row(rp, l, lby, cs); });
        run_rounds(cs, threads);
        for (std::size_t r = 0; r < cs.rows.size(); ++r)
            for (std::size_t i = 0; i < cs.rows[r].size(); ++i) {
                const Candidate& c = cs.rows[r][i];
                if (cs.state[cs.offset[r] + i] != kPlaced) continue;
                for (int fy = c.y; fy < c.y + rp.fh[c.sprite]; ++fy)
                    set_bits(occupied.row(fy), c.x, c.x + rp.fw[c.sprite] - 1);
                out.push_back({rp.sprite_index[c.sprite], static_cast<int>(l.fx + c.x),
                               static_cast<int>(l.fy + c.y), rp.index});
            }
    }
};

} // namespace

// A counting sort by bottom row, then each row by x.
void sort_for_drawing(std::vector<PlacedObject>& objects, const SpriteSheet& sheet, int threads) {
    if (objects.empty()) return;
    auto bottom = [&](const PlacedObject& o) {
        return static_cast<long long>(o.y) +
               sheet.sprites[static_cast<std::size_t>(o.sprite)].footprint_h;
    };
    long long lo = std::numeric_limits<long long>::max(),
              hi = std::numeric_limits<long long>::min();
    for (const PlacedObject& o : objects) {
        lo = std::min(lo, bottom(o));
        hi = std::max(hi, bottom(o));
    }
    const auto rows = static_cast<std::size_t>(hi - lo + 1);
    std::vector<std::size_t> start(rows + 1, 0);
    for (const PlacedObject& o : objects)
        ++start[static_cast<std::size_t>(bottom(o) - lo) + 1];
    for (std::size_t r = 0; r < rows; ++r)
        start[r + 1] += start[r];
    std::vector<PlacedObject> sorted(objects.size());
    {
        std::vector<std::size_t> at(start.begin(), start.end() - 1);
        for (const PlacedObject& o : objects)
            sorted[at[static_cast<std::size_t>(bottom(o) - lo)]++] = o;
    }
    for_each_item(static_cast<int>((rows + 255) / 256), threads, [&](int chunk) {
        const std::size_t r0 = static_cast<std::size_t>(chunk) * 256, r1 = std::min(rows, r0 + 256);
        for (std::size_t r = r0; r < r1; ++r)
            std::sort(sorted.begin() + static_cast<std::ptrdiff_t>(start[r]),
                      sorted.begin() + static_cast<std::ptrdiff_t>(start[r + 1]),
                      [](const PlacedObject& a, const PlacedObject& b) { return a.x < b.x; });
    });
    objects = std::move(sorted);
}

std::vector<PlacedObject> place_objects(const ClassGrid& classes, const NamedMaps& maps,
                                        const std::vector<ObjectRule>& rules,
                                        const SpriteSheet& sheet, std::uint64_t seed, int threads,
                                        const PlacementFrame& frame) {
    std::vector<PlacedObject> placed;
    const int w = classes.width(), h = classes.height();
    if (w == 0 || h == 0) return placed;
    BitRows allowed(w, h), occupied(w, h);
    Placer placer{classes, allowed, occupied, frame, w, h, (w + 63) / 64};
    // More workers than cores would only wait for each other (the result depends on neither
    // number).
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    const int workers = std::max(1, cores > 0 ? std::min(threads, cores) : threads);
    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        const RulePlan rp = plan_rule(rules[ri], static_cast<int>(ri), maps, sheet, w, h, seed);
        if (!rule_active(rules[ri], rp.sprite_index)) continue;
        placer.place_rule(rp, workers, placed);
    }
    if (frame.keep) {
        const Region k = *frame.keep;
        std::erase_if(placed, [&](const PlacedObject& o) {
            return o.x < k.x || o.y < k.y || o.x - static_cast<long long>(k.x) >= k.width ||
                   o.y - static_cast<long long>(k.y) >= k.height;
        });
    }
    sort_for_drawing(placed, sheet, workers);
    return placed;
}

int object_margin(const std::vector<ObjectRule>& rules, const SpriteSheet& sheet) {
    long long margin = 0;
    for (const ObjectRule& rule : rules) {
        const std::vector<int> found = found_sprites(rule, sheet);
        if (!rule_active(rule, found)) continue;
        const RuleGeometry g = rule_geometry(rule, sheet, found);
        // A candidate's state after a round depends on the candidates up to two ranges further
        // than before the round (who outranks it; who is placed near them); a candidate on the
        // grid's cells within its footprint (a range) and on the earlier rules' objects there.
        margin += (2ll * kRounds + 2) * g.range() + 2;
    }
    return static_cast<int>(std::min<long long>(margin, 1 << 24));
}

} // namespace tilegen
