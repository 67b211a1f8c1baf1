#include "core/classes/class_cleanup.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>
#include <functional>
#include <queue>
#include <vector>

#include "core/parallel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tilegen {

namespace {

constexpr std::size_t kIds = 256; // every value a ClassId can hold
// Rows a band of the opening's passes reads beyond its own: more than the 64 rows after which the
// column counts (capped at kMaxMinWidth = 64) no longer depend on where a scan started.
constexpr int kOpeningWarmUp = 65;
static_assert(kMaxMinWidth <= 64);

// Among the cells of classes[i] with eligible[i] = 1 (i < 9; eligible 0 or 1), the class most
// common, ties to the lowest id; -1 when none is eligible. Branch-free: keys (count, 255 - class)
// compared as one number. counts: all 0, left all 0.
int eligible_majority(const ClassId* classes, const std::uint32_t* eligible,
                      std::array<std::uint32_t, 256>& counts) {
    // Most often the eligible cells are all of one class (or none is eligible).
    std::uint64_t present = 0;
    std::uint32_t below_64 = 1;
    for (int i = 0; i < 9; ++i) {
        below_64 &= classes[i] < 64;
        present |= std::uint64_t{eligible[i]} << (classes[i] & 63);
    }
    if (below_64 && (present & (present - 1)) == 0)
        return present == 0 ? -1 : std::countr_zero(present);
    for (int i = 0; i < 9; ++i)
        counts[classes[i]] += eligible[i];
    std::uint32_t key = 0;
    for (int i = 0; i < 9; ++i)
        key = std::max(key, (counts[classes[i]] << 8 | (255u - classes[i])) * eligible[i]);
    for (int i = 0; i < 9; ++i)
        counts[classes[i]] = 0;
    return key == 0 ? -1 : static_cast<int>(255u - (key & 255u));
}

// The end of the run of equal classes starting at x (the first x1 > x with row[x1] != row[x], or
// w): eight cells at a time.
int run_end(const ClassId* row, int x, int w) {
    const ClassId c = row[x++];
    if constexpr (std::endian::native == std::endian::little) {
        const std::uint64_t pattern = 0x0101010101010101ull * c;
        for (; x + 8 <= w; x += 8) {
            std::uint64_t v;
            std::memcpy(&v, row + x, 8);
            if (const std::uint64_t diff = v ^ pattern; diff != 0)
                return x + std::countr_zero(diff) / 8;
        }
    }
    while (x < w && row[x] == c)
        ++x;
    return x;
}

// Calls f(x0, x1, class) for each run of the row, left to right.
template <class F> void for_each_run(const ClassId* row, int w, F&& f) {
    for (int x = 0; x < w;) {
        const int x1 = run_end(row, x, w);
        f(x, x1, row[x]);
        x = x1;
    }
}

// Union-find over the runs of a class grid (a run: cells of one class side by side in a row),
// labelled in reading order; runs of one class that touch across rows share a set. The root of a
// set is its smallest label, so the run holding the set's first cell in reading order; sizes (in
// cells, saturating) and classes are kept at the roots. A cell's label is found by a binary search
// among its row's runs; it stays valid when cells change class (the sets then follow the merges).
// Per run, from the grid pool (grid.hpp: millions of runs on a large map).
struct RunSets {
    GridCells<std::uint32_t> parent;
    GridCells<std::uint32_t> size;
    GridCells<std::uint16_t> x0;         // the run's first column (widths are at most 65536)
    GridCells<ClassId> cls;              // the set's class (valid at roots)
    std::vector<std::uint32_t> row_runs; // label of each row's first run, and the run count last

    std::uint32_t find(std::uint32_t a) {
        while (parent[a] != a) {
            parent[a] = parent[parent[a]];
            a = parent[a];
        }
        return a;
    }
    // Joins the sets of roots a and b; returns the new root.
    std::uint32_t join_roots(std::uint32_t a, std::uint32_t b) {
        if (a == b) return a;
        if (b < a) std::swap(a, b);
        parent[b] = a;
        const std::uint64_t sum = std::uint64_t{size[a]} + size[b];
        size[a] = static_cast<std::uint32_t>(std::min<std::uint64_t>(sum, 0xFFFFFFFFu));
        return a;
    }
    std::uint32_t label_of(int x, int y) const {
        const auto first = x0.begin() + row_runs[static_cast<std::size_t>(y)];
        const auto last = x0.begin() + row_runs[static_cast<std::size_t>(y) + 1];
        return static_cast<std::uint32_t>(
            std::upper_bound(first, last, static_cast<std::uint16_t>(x)) - x0.begin() - 1);
    }
    int row_of(std::uint32_t label) const {
        return static_cast<int>(std::upper_bound(row_runs.begin(), row_runs.end(), label) -
                                row_runs.begin() - 1);
    }
};

// The runs of a row: 1 + the cells whose class differs from their left neighbour's.
std::uint32_t count_runs(const ClassId* row, int w) {
    std::uint32_t n = 1;
    for (int x = 1; x < w; ++x)
        n += row[x] != row[x - 1] ? 1u : 0u;
    return n;
}

// Joins the runs of row y - 1 and row y (labels already set) that touch and share a class.
// Both rows partition 0..w-1: walk them together; runs met at once overlap. The steps are taken
// without branches (which run ends first follows no pattern).
void join_rows(RunSets& sets, int y, int w) {
    const auto y_index = static_cast<std::size_t>(y);
    const std::uint32_t above0 = sets.row_runs[y_index - 1], row0 = sets.row_runs[y_index];
    const std::uint32_t row_end = sets.row_runs[y_index + 1];
    const auto end_of = [&](std::uint32_t label, std::uint32_t last) {
        return label + 1 < last ? int{sets.x0[label + 1]} : w;
    };
    for (std::uint32_t i = above0, j = row0; i < row0 && j < row_end;) {
        if (sets.cls[i] == sets.cls[j]) sets.join_roots(sets.find(i), sets.find(j));
        const int a = end_of(i, row0), b = end_of(j, row_end);
        i += a <= b ? 1 : 0;
        j += a >= b ? 1 : 0;
    }
}

// Bands of rows on the threads: each band counts its rows' runs, then (once every row's first
// label is known) labels its runs and joins its rows; the rows at the bands' seams are joined
// last. A set's root is its smallest label whatever the order of the joins, so the sets, roots
// and sizes are those of one scan at any thread count.
RunSets label_runs(const ClassGrid& g, int threads) {
    const int w = g.width(), h = g.height();
    RunSets sets;
    sets.row_runs.assign(static_cast<std::size_t>(h) + 1, 0);
    const std::vector<int> band_starts = parallel_bands(h, threads, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y)
            sets.row_runs[static_cast<std::size_t>(y) + 1] = count_runs(g.row(y), w);
        return y0;
    });
    for (std::size_t y = 1; y < sets.row_runs.size(); ++y)
        sets.row_runs[y] += sets.row_runs[y - 1];
    const std::size_t runs = sets.row_runs.back();
    sets.parent.resize(runs);
    sets.size.resize(runs);
    sets.x0.resize(runs);
    sets.cls.resize(runs);
    parallel_for(h, threads, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y) {
            auto label = sets.row_runs[static_cast<std::size_t>(y)];
            for_each_run(g.row(y), w, [&](int x0, int x1, ClassId c) {
                sets.parent[label] = label;
                sets.size[label] = static_cast<std::uint32_t>(x1 - x0);
                sets.x0[label] = static_cast<std::uint16_t>(x0);
                sets.cls[label] = c;
                ++label;
            });
            if (y > y0) join_rows(sets, y, w);
        }
    });
    for (const int y : band_starts)
        if (y > 0) join_rows(sets, y, w);
    return sets;
}

// Opening, pass 1 on one row (branch-free, vectorised): up[x] counts the rows ending here whose
// run at x reaches N (reach[x] = N there, else 0) in one class; m[x] marks square corners.
void corner_row(const ClassId* __restrict row, const ClassId* __restrict above,
                const std::uint8_t* __restrict reach, std::uint8_t* __restrict up,
                std::uint8_t* __restrict m, std::size_t width) {
    for (std::size_t x = 0; x < width; ++x) {
        const std::uint8_t r = reach[x], u = up[x];
        const bool stack = above[x] == row[x] && u != 0;
        const std::uint8_t next = r == 0 ? 0 : stack ? static_cast<std::uint8_t>(u + (u < 64)) : 1;
        up[x] = next;
        m[x] = r != 0 && next >= r ? 1 : 0;
    }
}

// Opening, pass 2 on one row (branch-free, vectorised): down[x] = N at a corner (side[x] = N of
// the cell's class), else one less than the cell below's (0 stays 0); cover[x] = N where down[x]
// is not 0, else 0.
void down_row(const std::uint8_t* __restrict side, const std::uint8_t* __restrict corner,
              std::uint8_t* __restrict down, std::uint8_t* __restrict cover, std::size_t width) {
    for (std::size_t x = 0; x < width; ++x) {
        const std::uint8_t d = down[x];
        const auto at_corner = static_cast<std::uint8_t>(-(corner[x] != 0)); // 0 or ~0
        const auto carried = static_cast<std::uint8_t>(d - (d != 0));
        const auto next = static_cast<std::uint8_t>((side[x] & at_corner) | (carried & ~at_corner));
        down[x] = next;
        cover[x] = static_cast<std::uint8_t>(side[x] & -(next != 0));
    }
}

// cover[x] = max(cover[x], cover[x + k] - k) (0 at least) for x < count: after the steps k = 1,
// 2, 4, ..., cover[x] is the largest cover[x + d] - d over d < 2k (a max-minus-distance
// transform), vectorised.
void spread_left(std::uint8_t* cover, std::size_t count, int k) {
    const auto step = static_cast<std::size_t>(k);
    for (std::size_t x = 0; x < count; ++x) {
        const std::uint8_t from = cover[x + step];
        const auto reached = static_cast<std::uint8_t>(from > k ? from - k : 0);
        cover[x] = std::max(cover[x], reached);
    }
}

// m[x] = removed (1 | queued 2) where the class opens (side[x] != 0) and no square covers x.
void removed_row(const std::uint8_t* __restrict side, const std::uint8_t* __restrict cover,
                 std::uint8_t* __restrict m, std::size_t width) {
    for (std::size_t x = 0; x < width; ++x)
        m[x] = static_cast<std::uint8_t>(3 & -((side[x] != 0) & (cover[x] == 0)));
}

// Whether all 8 bytes at p are 0.
bool no_nonzero_byte(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v == 0;
}

// One setting of ClassCleanup (min_width or min_area) per class id, capped at `cap`; 0 where the
// class has it off (below 2) or has no entry.
template <class T>
std::array<T, kIds> per_class_setting(std::span<const ClassCleanup> per_class,
                                      int ClassCleanup::*setting, int cap,
                                      std::uint32_t frozen = 0) {
    std::array<T, kIds> out{};
    for (std::size_t i = 0; i < std::min(per_class.size(), kIds); ++i)
        if (per_class[i].*setting >= 2 && !(i < 32 && ((frozen >> i) & 1u)))
            out[i] = static_cast<T>(std::min(per_class[i].*setting, cap));
    return out;
}

template <class T> bool all_zero(const std::array<T, kIds>& a) {
    return std::all_of(a.begin(), a.end(), [](T v) { return v == 0; });
}

} // namespace

bool cleanup_needed(std::span<const ClassCleanup> per_class) {
    for (const ClassCleanup& c : per_class)
        if (c.min_area >= 2 || c.min_width >= 2) return true;
    return false;
}

void open_thin_parts(ClassGrid& g, std::span<const ClassCleanup> per_class, CleanupReport& report,
                     std::uint32_t frozen, int threads) {
    // The square's side per class id, 0 = no opening.
    const auto side =
        per_class_setting<std::uint8_t>(per_class, &ClassCleanup::min_width, kMaxMinWidth, frozen);
    if (all_zero(side) || g.empty()) return;
    const int w = g.width(), h = g.height();
    constexpr std::uint8_t kRemoved = 1, kQueued = 2;
    Grid<std::uint8_t> mark = Grid<std::uint8_t>::uninitialised(w, h);

    // Pass 1, top to bottom: mark the bottom-right corner of every N x N square of one class.
    // reach[x]: N where the row's run ending at x (same-class cells up to x) has N cells or more,
    // else 0; up[x]: the rows ending at y where that holds in column x, in one class (capped at
    // 64 = kMaxMinWidth). By bands of rows on the threads: a band first runs over the
    // kOpeningWarmUp rows above it without marking them, which sets up[] as one scan from the
    // top would (a count started late at 0 reaches the cap, or is reset, within 64 rows).
    const auto width = static_cast<std::size_t>(w);
    const std::vector<int> band_starts = parallel_bands(h, threads, [&](int y0, int y1) {
        std::vector<std::uint8_t> reach(width), up(width, 0), scratch(width);
        for (int y = std::max(0, y0 - kOpeningWarmUp); y < y1; ++y) {
            const ClassId* row = g.row(y);
            const ClassId* above = y > 0 ? g.row(y - 1) : row; // row 0: up[] is all 0 anyway
            std::uint8_t* m = y >= y0 ? mark.row(y) : scratch.data();
            for_each_run(row, w, [&](int x0, int x1, ClassId c) {
                const int n = side[c];
                if (n == 0 || x1 - x0 < n) {
                    std::memset(reach.data() + x0, 0, static_cast<std::size_t>(x1 - x0));
                } else {
                    std::memset(reach.data() + x0, 0, static_cast<std::size_t>(n - 1));
                    std::memset(reach.data() + x0 + n - 1, n,
                                static_cast<std::size_t>(x1 - x0 - n + 1));
                }
            });
            corner_row(row, above, reach.data(), up.data(), m, width);
        }
        return y0;
    });

    // Pass 2, bottom to top: spread each corner's square up (down[x]: rows left to cover in column
    // x, counting down from N at the corner) and then left (cover[x]: the most columns left to
    // cover from x on); cells of an opened class no square covers are removed. No class checks
    // are needed: a count still above 0 is inside its square, whose cells are all of its class.
    // By the same bands: a band first carries down[] over the kOpeningWarmUp rows below it (a
    // count falls to 0 within 64 rows), reading their corners from a copy taken before any band
    // overwrites its corners with the removed cells.
    int most = 0;
    for (const std::uint8_t n : side)
        most = std::max<int>(most, n);
    struct Cell {
        int x, y;
    };
    std::vector<std::vector<std::uint8_t>> corners_below(band_starts.size());
    for (std::size_t b = 0; b + 1 < band_starts.size(); ++b) {
        const int y1 = band_starts[b + 1], y_end = std::min(h, y1 + kOpeningWarmUp);
        corners_below[b].assign(mark.row(y1),
                                mark.row(y1) + width * static_cast<std::size_t>(y_end - y1));
    }
    const std::vector<std::vector<Cell>> removed_by_band =
        parallel_bands(h, threads, [&](int y0, int y1) {
            const auto band = static_cast<std::size_t>(
                std::find(band_starts.begin(), band_starts.end(), y0) - band_starts.begin());
            std::vector<std::uint8_t> reach(width), down(width, 0), cover(width);
            std::vector<Cell> removed;
            const std::vector<std::uint8_t>& below = corners_below[band];
            for (int y = std::min(h, y1 + kOpeningWarmUp) - 1; y >= y0; --y) {
                const ClassId* row = g.row(y);
                for (std::size_t x = 0; x < width; ++x)
                    reach[x] = side[row[x]];
                if (y >= y1) { // warm-up: carry down[] only
                    down_row(reach.data(), below.data() + width * static_cast<std::size_t>(y - y1),
                             down.data(), cover.data(), width);
                    continue;
                }
                std::uint8_t* m = mark.row(y);
                down_row(reach.data(), m, down.data(), cover.data(), width);
                for (int k = 1; k < most && static_cast<std::size_t>(k) < width; k *= 2)
                    spread_left(cover.data(), width - static_cast<std::size_t>(k), k);
                removed_row(reach.data(), cover.data(), m, width);
                for (std::size_t x = 0; x < width; x += 8) {
                    if (x + 8 <= width && no_nonzero_byte(m + x)) continue;
                    for (std::size_t i = x; i < std::min(x + 8, width); ++i)
                        if (m[i] != 0) removed.push_back({static_cast<int>(i), y});
                }
            }
            return removed;
        });
    // The removed cells bottom row first, as one scan up the map finds them (the refill's rounds
    // are synchronous, so this order changes nothing but is kept plain).
    std::vector<Cell> frontier;
    for (auto band = removed_by_band.rbegin(); band != removed_by_band.rend(); ++band)
        frontier.insert(frontier.end(), band->begin(), band->end());

    // Refill in synchronous rounds; the next round looks only at removed cells beside a cell just
    // decided (the only ones whose eligible neighbours changed).
    std::vector<std::pair<Cell, ClassId>> decided;
    std::array<std::uint32_t, kIds> counts{};
    while (!frontier.empty()) {
        decided.clear();
        for (const Cell& p : frontier) {
            mark(p.x, p.y) = kRemoved;
            const ClassId own = g(p.x, p.y);
            // The 3 x 3 block (the cell itself is removed, so not eligible); cells off the map
            // read a cell on it and are not eligible.
            const int xs[3] = {std::max(p.x - 1, 0), p.x, std::min(p.x + 1, w - 1)};
            const std::uint32_t x_in[3] = {p.x > 0, 1, p.x + 1 < w};
            ClassId around[9];
            std::uint32_t eligible[9];
            for (int dy = -1, n = 0; dy <= 1; ++dy) {
                const int ny = std::clamp(p.y + dy, 0, h - 1);
                const std::uint32_t y_in = ny == p.y + dy;
                const ClassId* row = g.row(ny);
                const std::uint8_t* m = mark.row(ny);
                for (int k = 0; k < 3; ++k, ++n) {
                    around[n] = row[xs[k]];
                    eligible[n] = y_in & x_in[k] & ((m[xs[k]] & kRemoved) == 0) &
                                  (around[n] != own) &
                                  (around[n] >= 32 || ((frozen >> around[n]) & 1u) == 0);
                }
            }
            const int best = eligible_majority(around, eligible, counts);
            if (best >= 0) decided.push_back({p, static_cast<ClassId>(best)});
        }
        for (const auto& [p, c] : decided) {
            g(p.x, p.y) = c;
            mark(p.x, p.y) = 0;
        }
        report.opened_cells += decided.size();
        frontier.clear();
        for (const auto& [p, c] : decided)
            for (int ny = std::max(p.y - 1, 0); ny <= std::min(p.y + 1, h - 1); ++ny)
                for (int nx = std::max(p.x - 1, 0); nx <= std::min(p.x + 1, w - 1); ++nx)
                    if (mark(nx, ny) == kRemoved) {
                        mark(nx, ny) = kRemoved | kQueued;
                        frontier.push_back({nx, ny});
                    }
    }
}

namespace {

// A cell of a class grid, as its index (y * width + x).
using CellIndex = std::size_t;

// The 4-connected cells of one class holding `start`, flooded breadth first (N, W, E, S) into
// `cells` (cells[0] = start) until `limit` cells are found: fewer means `cells` is the whole
// region. Stops early, returning false, at a cell before `start` in reading order when
// `from_first` (then start is not the region's first cell). Membership by a linear search: meant
// for limits of at most kLocalMinArea cells.
bool flood_small_region(const ClassGrid& g, CellIndex start, std::size_t limit, bool from_first,
                        std::vector<CellIndex>& cells) {
    const auto w = static_cast<CellIndex>(g.width()), n = g.size();
    const ClassId* cls = g.cells().data();
    const ClassId c = cls[start];
    cells.assign(1, start);
    for (std::size_t k = 0; k < cells.size() && cells.size() < limit; ++k) {
        const CellIndex p = cells[k], x = p % w;
        bool before = false;
        auto visit = [&](CellIndex q) {
            if (cls[q] != c || std::find(cells.begin(), cells.end(), q) != cells.end()) return;
            before = before || q < start;
            cells.push_back(q);
        };
        if (p >= w) visit(p - w);
        if (x > 0) visit(p - 1);
        if (x + 1 < w) visit(p + 1);
        if (p + w < n) visit(p + w);
        if (before && from_first) return false;
    }
    return true;
}

// The runs of a row (w cells) shorter than `limit` (2..kLocalMinArea), as bits: bit x of
// words[0..w / 64] set where such a run starts; `starts` gets bit x set where any run starts
// (x = 0 or row[x] != row[x - 1]), and bit w (the row's end). Both hold w / 64 + 1 words. The
// starts 16 cells at a time (SSE2), then a start is short when another one follows within
// limit - 1 cells.
void short_runs(const ClassId* row, int w, std::uint32_t limit, std::uint64_t* starts,
                std::uint64_t* words) {
    const auto uw = static_cast<std::size_t>(w);
    const std::size_t count = uw / 64 + 1;
    std::fill_n(starts, count, 0);
    std::size_t x = 1;
#if defined(__SSE2__)
    for (x = 16; x + 16 <= uw; x += 16) { // aligned chunks of 16 bits (x = 0..15 below)
        const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + x));
        const __m128i left = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + x - 1));
        const auto same = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(here, left)));
        starts[x / 64] |= static_cast<std::uint64_t>(~same & 0xffffu) << (x % 64);
    }
    for (std::size_t i = 1; i < std::min<std::size_t>(16, uw); ++i)
        starts[0] |= static_cast<std::uint64_t>(row[i] != row[i - 1]) << i;
    if (uw < 16) x = uw;
#endif
    for (; x < uw; ++x)
        starts[x / 64] |= static_cast<std::uint64_t>(row[x] != row[x - 1]) << (x % 64);
    starts[0] |= 1;
    starts[uw / 64] |= std::uint64_t{1} << (uw % 64);
    for (std::size_t k = 0; k < count; ++k) {
        const std::uint64_t next = k + 1 < count ? starts[k + 1] : 0;
        std::uint64_t near = 0; // bit x: a start at x + 1 .. x + limit - 1
        for (std::uint32_t d = 1; d < limit; ++d)
            near |= starts[k] >> d | next << (64 - d);
        words[k] = starts[k] & near;
    }
    words[uw / 64] &= (std::uint64_t{1} << (uw % 64)) - 1; // not the end bit
}

// The first start in `starts` after x (the row's end bit w at the latest).
std::size_t next_start(const std::uint64_t* starts, std::size_t x) {
    ++x;
    std::size_t k = x / 64;
    std::uint64_t m = starts[k] >> (x % 64);
    if (m != 0) return x + static_cast<std::size_t>(std::countr_zero(m));
    for (++k;; ++k)
        if (starts[k] != 0) return 64 * k + static_cast<std::size_t>(std::countr_zero(starts[k]));
}

// Whether the run [x0, x1) of class c and one run of c in the row below (`below`, w cells; null:
// none) that touches it hold at least `need` cells together: then its region is not too small,
// without a flood (most short runs with no cell of their class above are tips of large regions).
bool big_with_run_below(const ClassId* below, int w, int x0, int x1, ClassId c, int need) {
    if (!below) return false;
    for (int x = x0; x < x1; ++x) {
        if (below[x] != c) continue;
        int l = x, r = x + 1;
        while (l > 0 && below[l - 1] == c && (x1 - x0) + (r - l) < need)
            --l;
        while (r < w && below[r] == c && (x1 - x0) + (r - l) < need)
            ++r;
        if ((x1 - x0) + (r - l) >= need) return true;
        x = r; // the next run of c below starts past r
    }
    return false;
}

// merge_small_regions when every min_area is at most kLocalMinArea: a too-small region has fewer
// than kLocalMinArea cells, so it is found and merged by small floods instead of labelling every
// run of the map (merge_small_regions_by_runs). Its first run (in reading order) is shorter than
// its min_area and has no cell of its class above it; the bands of rows flood from those runs
// only. Then, as there, the too-small region whose first cell comes first takes the most common
// bordering class, and the region it joins is flooded again to tell whether it is still too small
// (it holds the merged one's first cell or an earlier one). The same grid and report.
void merge_small_regions_local(ClassGrid& g, const std::array<std::uint32_t, kIds>& need,
                               CleanupReport& report, std::uint32_t frozen, int threads) {
    const auto is_frozen = [frozen](ClassId c) { return c < 32 && ((frozen >> c) & 1u); };
    const int w = g.width();
    const std::size_t total = g.size();
    const auto uw = static_cast<CellIndex>(w);
    const std::uint32_t most = *std::max_element(need.begin(), need.end());
    // The first cells of the too-small regions, in reading order (bands joined in order).
    std::vector<CellIndex> initial;
    for (const std::vector<CellIndex>&band :
         parallel_bands(g.height(), threads, [&](int y0, int y1) {
             std::vector<CellIndex> firsts, cells;
             std::vector<std::uint64_t> starts(uw / 64 + 1), short_starts(uw / 64 + 1);
             for (int y = y0; y < y1; ++y) {
                 const ClassId* row = g.row(y);
                 const ClassId* above = y > 0 ? g.row(y - 1) : nullptr;
                 short_runs(row, w, most, starts.data(), short_starts.data());
                 for (std::size_t k = 0; k < short_starts.size(); ++k)
                     for (std::uint64_t m = short_starts[k]; m != 0; m &= m - 1) {
                         const std::size_t x0 = 64 * k + std::countr_zero(m);
                         const std::size_t x1 = next_start(starts.data(), x0);
                         const ClassId c = row[x0];
                         const std::uint32_t n = need[c];
                         if (x1 - x0 >= n) continue;
                         if (above && std::find(above + x0, above + x1, c) != above + x1) continue;
                         if (big_with_run_below(y + 1 < g.height() ? g.row(y + 1) : nullptr, w,
                                                static_cast<int>(x0), static_cast<int>(x1), c,
                                                static_cast<int>(n)))
                             continue;
                         const CellIndex start = static_cast<CellIndex>(y) * uw + x0;
                         if (flood_small_region(g, start, n, true, cells) && cells.size() < n &&
                             cells.size() != total)
                             firsts.push_back(start);
                     }
             }
             return firsts;
         }))
        initial.insert(initial.end(), band.begin(), band.end());
    std::priority_queue<CellIndex, std::vector<CellIndex>, std::greater<>> queue(
        std::greater<>{}, std::move(initial));
    ClassId* cls = g.cells().data();
    std::vector<CellIndex> region, border, merged;
    std::array<std::uint32_t, kIds> counts{};
    while (!queue.empty()) {
        const CellIndex first = queue.top();
        queue.pop();
        // Stale entries: the cell is no longer a too-small region's first cell.
        const std::uint32_t n = need[cls[first]];
        if (!flood_small_region(g, first, n, true, region) || region.size() >= n ||
            region.size() == total)
            continue;
        // The distinct cells bordering the region.
        border.clear();
        for (const CellIndex p : region) {
            const CellIndex x = p % uw;
            auto visit = [&](CellIndex q) {
                if (std::find(region.begin(), region.end(), q) != region.end() ||
                    std::find(border.begin(), border.end(), q) != border.end())
                    return;
                border.push_back(q);
            };
            if (p >= uw) visit(p - uw);
            if (x > 0) visit(p - 1);
            if (x + 1 < uw) visit(p + 1);
            if (p + uw < total) visit(p + uw);
        }
        if (border.empty()) continue;
        ClassId best = 0;
        std::uint32_t best_count = 0;
        for (const CellIndex p : border) {
            const ClassId b = cls[p];
            if (is_frozen(b)) continue;
            const std::uint32_t k = ++counts[b];
            if (k > best_count || (k == best_count && b < best)) {
                best = b;
                best_count = k;
            }
        }
        for (const CellIndex p : border)
            counts[cls[p]] = 0;
        if (best_count == 0) continue; // every bordering cell is frozen: the region stays
        for (const CellIndex p : region)
            cls[p] = best;
        ++report.merged_regions;
        report.merged_cells += region.size();
        // The region it joined: too small still, it is queued by its first cell.
        const std::uint32_t joined_need = need[best];
        if (flood_small_region(g, first, joined_need, false, merged) &&
            merged.size() < joined_need && merged.size() != total)
            queue.push(*std::min_element(merged.begin(), merged.end()));
    }
}

} // namespace

void merge_small_regions(ClassGrid& g, std::span<const ClassCleanup> per_class,
                         CleanupReport& report, std::uint32_t frozen, int threads) {
    const auto need =
        per_class_setting<std::uint32_t>(per_class, &ClassCleanup::min_area, kMaxMinArea, frozen);
    if (all_zero(need) || g.empty()) return;
    if (*std::max_element(need.begin(), need.end()) <= kLocalMinArea)
        merge_small_regions_local(g, need, report, frozen, threads);
    else
        merge_small_regions_by_runs(g, per_class, report, frozen, threads);
}

void merge_small_regions_by_runs(ClassGrid& g, std::span<const ClassCleanup> per_class,
                                 CleanupReport& report, std::uint32_t frozen, int threads) {
    // min_area per class id, 0 = off.
    const auto need =
        per_class_setting<std::uint32_t>(per_class, &ClassCleanup::min_area, kMaxMinArea, frozen);
    const auto is_frozen = [frozen](ClassId c) { return c < 32 && ((frozen >> c) & 1u); };
    if (all_zero(need) || g.empty()) return;
    const int w = g.width(), h = g.height();
    const std::uint64_t total = g.size();

    RunSets sets = label_runs(g, threads);
    auto too_small = [&](std::uint32_t root) {
        const std::uint32_t n = need[sets.cls[root]];
        return sets.size[root] < n && sets.size[root] != total;
    };
    // Too-small regions by their root, smallest (= first in reading order) on top. Entries go
    // stale when their region merges; they are skipped when met.
    std::vector<std::uint32_t> initial;
    for (std::uint32_t l = 0; l < sets.parent.size(); ++l)
        if (sets.parent[l] == l && too_small(l)) initial.push_back(l);
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> queue(
        std::greater<>{}, std::move(initial));
    if (queue.empty()) return;

    // Cells met by the current region's flood, a bit per cell (cleared again after each region):
    // a byte per cell was 16 MiB at 4096x4096, alive beside the hydrology's flood.
    struct SeenBits {
        std::vector<std::uint64_t> bits;
        std::size_t width;
        bool get(int x, int y) const {
            const std::size_t i = static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x);
            return (bits[i >> 6] >> (i & 63)) & 1u;
        }
        void set(int x, int y, bool on) {
            const std::size_t i = static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x);
            const std::uint64_t bit = std::uint64_t{1} << (i & 63);
            bits[i >> 6] = on ? bits[i >> 6] | bit : bits[i >> 6] & ~bit;
        }
    };
    SeenBits seen{std::vector<std::uint64_t>((g.size() + 63) / 64, 0), static_cast<std::size_t>(w)};
    struct Cell {
        int x, y;
    };
    std::vector<Cell> region, border;
    std::array<std::uint32_t, kIds> counts{};
    while (!queue.empty()) {
        const std::uint32_t root = queue.top();
        queue.pop();
        if (sets.parent[root] != root || !too_small(root)) continue;
        const Cell first{sets.x0[root], sets.row_of(root)};
        const ClassId c = sets.cls[root];
        // The region (flood over its class) and the distinct cells bordering it.
        region.assign(1, first);
        border.clear();
        seen.set(first.x, first.y, true);
        for (std::size_t k = 0; k < region.size(); ++k) {
            const Cell p = region[k];
            auto visit = [&](int x, int y) {
                if (seen.get(x, y)) return;
                seen.set(x, y, true);
                (g(x, y) == c ? region : border).push_back({x, y});
            };
            if (p.y > 0) visit(p.x, p.y - 1);
            if (p.x > 0) visit(p.x - 1, p.y);
            if (p.x + 1 < w) visit(p.x + 1, p.y);
            if (p.y + 1 < h) visit(p.x, p.y + 1);
        }
        if (border.empty()) { // the whole map (too_small excludes it): stays
            for (const Cell& p : region)
                seen.set(p.x, p.y, false);
            continue;
        }
        ClassId best = 0;
        std::uint32_t best_count = 0;
        for (const Cell& p : border) {
            const ClassId b = g(p.x, p.y);
            if (is_frozen(b)) continue;
            const std::uint32_t n = ++counts[b];
            if (n > best_count || (n == best_count && b < best)) {
                best = b;
                best_count = n;
            }
        }
        for (const Cell& p : border) {
            counts[g(p.x, p.y)] = 0;
            seen.set(p.x, p.y, false);
        }
        if (best_count == 0) { // every bordering cell is frozen: the region stays
            for (const Cell& p : region)
                seen.set(p.x, p.y, false);
            continue;
        }
        for (const Cell& p : region) {
            g(p.x, p.y) = best;
            seen.set(p.x, p.y, false);
        }
        std::uint32_t merged = root;
        for (const Cell& p : border)
            if (g(p.x, p.y) == best)
                merged = sets.join_roots(merged, sets.find(sets.label_of(p.x, p.y)));
        sets.cls[merged] = best;
        ++report.merged_regions;
        report.merged_cells += region.size();
        if (too_small(merged)) queue.push(merged);
    }
}

CleanupReport clean_up_classes(ClassGrid& classes, std::span<const ClassCleanup> per_class,
                               std::uint32_t frozen, int threads) {
    CleanupReport report;
    if (!cleanup_needed(per_class)) return report;
    open_thin_parts(classes, per_class, report, frozen, threads);
    merge_small_regions(classes, per_class, report, frozen, threads);
    return report;
}

} // namespace tilegen
