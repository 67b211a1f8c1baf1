// Least-cost routes over a grid of integer step costs, with straight bridge jumps.
// Input: a CostGrid (per cell, a SearchCell: the cost of entering it by a 4-neighbour step,
// 1..65534, or kBlocked; whether it is spannable water; the longest bridge and the cost per bridged
// cell; the cells also hold the search's own state, CostGrid::search_base), source cells
// (distance 0), a target mask and a weight w = RouteWeight (1 by default; range 1..1.2 for roads).
// Output: a cheap route from any source to a target: its cells in order (source first, target
// last), which of them are bridged, its total cost.
// Moves: a step to a 4-neighbour that is neither blocked nor spannable (cost: the neighbour's
// cost); a jump from a cell that is not spannable, straight over k spannable cells (1 <= k <=
// max_bridge) to the next cell, which must be neither blocked nor spannable (cost: k * bridge_cost
// + the landing cell's cost). So every bridge is straight, spans at most max_bridge cells and has
// land (a non-water cell) at both ends.
// Invariants: with w = 1 the least cost (A* with a consistent heuristic when the caller gives
// boxes covering the targets — the least cost of any move per cell of Manhattan distance to the
// nearest box — else Dijkstra). With w > 1 (weighted A*: key = cost so far + w * heuristic, each
// cell expanded at most once, never reopened) the cost is at most w times the least (the bound of
// weighted A* with a consistent heuristic); w * heuristic is a whole number per cell of distance
// (RouteWeight::per_cell), so keys are exact. Both over a bucket queue (entries of one key come
// out last in, first out; a cell's parent is the first that reached it at its final cost), so the
// result is a pure function of the inputs; the grid's search state and the Router's queue are
// reused between calls (a call's costs so far are stored above the last call's, so none is set
// back), so a call costs what it explores, not the map's size. Costs so far stay below 2^31 (a
// route dearer than that is not found).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "core/grid.hpp"

namespace tilegen {

inline constexpr std::uint16_t kBlocked = 0xFFFF;
inline constexpr std::uint32_t kUnreached = 0xFFFFFFFFu; // SearchCell::dist of a cell not reached
inline constexpr std::uint8_t kSpanWater = 1; // SearchCell::span bit: water a bridge may span
inline constexpr std::uint8_t kSpanMark = 2;  // SearchCell::span bit: a search's own mark

// One cell of a grid search: its input (the cost of entering it, whether a bridge may span it) and
// the search's state (cost so far, the move that reached it) in one 8-byte record, so the one cache
// line that holds a cell serves both (a popped cell and its 4 neighbours touch the lines of 3 rows,
// not 3 rows per array). The same 8 bytes per cell as four separate arrays. A fresh cell's dist
// is kUnreached; parent is unspecified until reached.
struct SearchCell {
    std::uint32_t dist;  // cost so far (kUnreached: not reached); the router's is offset by
                         // CostGrid::search_base, and 0 (the base) once the cell is expanded
                         // (closed), so one compare rejects a move onto a closed cell as onto one
                         // reached as cheaply
    std::uint16_t cost;  // cost of entering by a step (at least 1); kBlocked: never
    std::uint8_t span;   // kSpanWater: water a bridge may span (never stepped on); kSpanMark: a
                         // caller's mark that moves ignore (reachability: a big region's cell)
    std::uint8_t parent; // bits 0-1: direction back to the parent; 2-7: jump length; 0xFF: a source
};
// A cell before any search: blocked, not spannable, unreached. (SearchCell has no default member
// values, so a builder that writes every cell can allocate the grid without filling it first.)
inline constexpr SearchCell kFreshCell{kUnreached, kBlocked, 0, 0xFF};
static_assert(sizeof(SearchCell) == 8);

struct CostGrid {
    int width = 0, height = 0;
    // Map-sized, so from the grid pool (grid.hpp: reused between stages, not paged in afresh).
    GridCells<SearchCell> cells;    // row-major; the cost and span read and written below
    int max_bridge = 0;             // longest span in cells; 0: no bridges; range 0..32
    std::uint32_t bridge_cost = 16; // per spanned cell
    // Bounds on the costs of the cells that are not blocked: 0 = not known (the router scans the
    // grid). min_cost must not exceed, max_cost not fall below, any such cell's cost (blocking
    // more cells keeps them valid).
    std::uint16_t min_cost = 0, max_cost = 0;
    // The router's (Router::route): each call stores its costs so far as search_base + cost, so
    // a cell is unreached in a call unless dist - search_base (mod 2^32) is below 2^31; the call
    // then moves search_base past every value it stored. Below 2^31; 0 for a fresh grid.
    std::uint32_t search_base = 0;

    // width x height cells, every one kFreshCell (blocked, not spannable, unreached).
    void reset(int w, int h) {
        width = w;
        height = h;
        search_base = 0;
        cells.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), kFreshCell);
    }
    // width x height cells left unset: for a builder that writes every cell (one pass over the
    // map's 8 bytes per cell instead of a fill and then a rewrite).
    void reset_unset(int w, int h) {
        width = w;
        height = h;
        search_base = 0;
        cells = GridCells<SearchCell>(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    }
    std::size_t size() const { return cells.size(); }
    std::uint16_t& cost(std::size_t i) { return cells[i].cost; }
    std::uint16_t cost(std::size_t i) const { return cells[i].cost; }
    std::uint8_t& span(std::size_t i) { return cells[i].span; }
    std::uint8_t span(std::size_t i) const { return cells[i].span; }
};

// A priority queue of cells keyed by whole numbers (Dial's buckets in a ring): pop gives an entry
// of the least key. Entries of one key come out last in, first out. Built for keys that mostly
// grow (a search's): the ring holds the keys from the least one queued up to the largest one
// pushed since reset, and grows (by powers of two, keeping every entry and its order) when a push
// would leave that span; a key below the current least one is allowed (weighted A*).
// Storage: each bucket is a stack of 64-byte chunks of 14 entries (only its top chunk may be part
// full) from one pool of chunks (an emptied chunk is the next one taken), so a bucket's entries lie
// together as in an array and the memory is about the most entries queued at once plus 4 bytes per
// bucket, kept between resets; large blocks come from the grid pool (grid.hpp).
class BucketQueue {
  public:
    // Empty, the next key >= `first`; the ring sized for keys up to `first + span`.
    void reset(std::uint64_t first, std::uint64_t span);
    void push(std::uint64_t key, std::uint32_t cell) {
        if (key < cur_) {
            if (top_ - key > mask_) grow(top_ - key + 1);
            cur_ = key;
        } else if (key - cur_ > mask_) {
            grow(key - cur_ + 1);
        }
        top_ = std::max(top_, key);
        std::uint32_t& head = heads_[key & mask_];
        if (head == kNone || chunks_[head].count == kChunkCells) {
            const std::uint32_t c = take_chunk();
            chunks_[c].next = head;
            chunks_[c].count = 0;
            head = c;
        }
        Chunk& chunk = chunks_[head];
        chunk.cells[chunk.count++] = cell;
        ++size_;
    }
    bool empty() const { return size_ == 0; }
    // Buckets in the ring (it grows to hold every key pushed): for tests of its memory.
    std::size_t buckets() const { return heads_.size(); }
    // The entry of the least key (must not be empty).
    std::pair<std::uint64_t, std::uint32_t> pop() {
        while (heads_[cur_ & mask_] == kNone)
            ++cur_;
        std::uint32_t& head = heads_[cur_ & mask_];
        Chunk& chunk = chunks_[head];
        const std::uint32_t cell = chunk.cells[--chunk.count];
        if (chunk.count == 0) { // back to the pool
            const std::uint32_t c = head;
            head = chunk.next;
            chunk.next = free_;
            free_ = c;
        }
        --size_;
        return {cur_, cell};
    }
    // The entry `skip` pops after the next one would return if nothing were pushed meanwhile, when
    // it has the same key; 0xFFFFFFFF otherwise. A hint (for prefetching), never needed.
    std::uint32_t ahead(std::size_t skip) const {
        for (std::uint32_t c = heads_[cur_ & mask_]; c != kNone; c = chunks_[c].next) {
            const Chunk& chunk = chunks_[c];
            if (skip < chunk.count) return chunk.cells[chunk.count - 1 - skip];
            skip -= chunk.count;
        }
        return 0xFFFFFFFFu;
    }

  private:
    static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    static constexpr std::uint32_t kChunkCells = 14;
    struct alignas(64) Chunk {
        std::uint32_t next;  // the chunk below it in its bucket (or the next free one); kNone: none
        std::uint32_t count; // entries held, the last pushed at cells[count - 1]
        std::uint32_t cells[kChunkCells];
    };
    static_assert(sizeof(Chunk) == 64);
    std::uint32_t take_chunk() {
        if (free_ == kNone) {
            chunks_.emplace_back();
            return static_cast<std::uint32_t>(chunks_.size() - 1);
        }
        const std::uint32_t c = free_;
        free_ = chunks_[c].next;
        return c;
    }
    void grow(std::uint64_t span);   // a ring of at least `span` buckets, entries kept
    GridCells<std::uint32_t> heads_; // per bucket: its top chunk; kNone: empty
    GridCells<Chunk> chunks_;        // the chunks; those not in a bucket are chained from free_
    std::uint32_t free_ = kNone;
    std::uint64_t mask_ = 0, cur_ = 0; // cur_: no entry has a smaller key
    std::uint64_t top_ = 0;            // the largest key pushed since reset (or `first`)
    std::size_t size_ = 0;
};

// The cheapest and dearest cost of a cell that is not blocked (1 and 1 when every cell is).
std::pair<std::uint16_t, std::uint16_t> cost_bounds(const CostGrid& grid);

// The four step directions: +x, -x, +y, -y (a parent entry stores the index).
inline constexpr int kRouteDx[4] = {1, -1, 0, 0};
inline constexpr int kRouteDy[4] = {0, 0, 1, -1};

// A hint for a grid search: fetch the lines of cell `c` and of the cells above and below it (its
// left and right share those lines) in each of the per-cell arrays given, while the current cell
// is expanded. `w` cells per row.
// The rows above and below may lie outside the arrays (the first and last rows): a prefetch never
// faults, and the addresses are made as integers (no pointer leaves its array), so no test is
// needed.
template <class Cell> inline void prefetch_near(const Cell* cells, std::uint32_t c, int offset) {
    const std::uintptr_t at =
        reinterpret_cast<std::uintptr_t>(cells) +
        static_cast<std::uintptr_t>(static_cast<std::intptr_t>(c) + offset) * sizeof(Cell);
    __builtin_prefetch(reinterpret_cast<const void*>(at));
}
template <class... Cells>
inline void prefetch_cell_and_rows(std::uint32_t c, int w, const Cells*... cells) {
    (__builtin_prefetch(cells + c), ...);
    (prefetch_near(cells, c, -w), ...);
    (prefetch_near(cells, c, w), ...);
}

// One move of the Moves above from cell (x, y) in direction `dir`: the cell it lands on and the
// cells it bridges (0 for a step). Nothing when the move leaves the map, starts on water and would
// cross water, spans more than max_bridge cells or lands on water. Whether the landing cell is
// blocked is the caller's to check (its cost).
struct RouteMove {
    std::uint32_t cell = 0;
    int bridged = 0;
};
inline std::optional<RouteMove> route_move(const CostGrid& grid, int x, int y, int dir,
                                           bool from_water) {
    const int w = grid.width, h = grid.height;
    const auto inside = [&](int cx, int cy) { return cx >= 0 && cy >= 0 && cx < w && cy < h; };
    int nx = x + kRouteDx[dir], ny = y + kRouteDy[dir];
    if (!inside(nx, ny)) return std::nullopt;
    auto nc = static_cast<std::uint32_t>(ny * w + nx);
    int k = 0;
    if (grid.span(nc) & kSpanWater) { // a bridge: straight over water to the next land cell
        if (from_water) return std::nullopt;
        // The cells it may cross, fetched together (a hint: down a column each is a row of its
        // own, and the walk below would wait for them one by one).
        for (int j = 1; j <= grid.max_bridge; ++j)
            prefetch_near(grid.cells.data(), nc, j * (kRouteDx[dir] + kRouteDy[dir] * w));
        while (k < grid.max_bridge && (grid.span(nc) & kSpanWater)) {
            ++k;
            nx += kRouteDx[dir];
            ny += kRouteDy[dir];
            if (!inside(nx, ny)) return std::nullopt;
            nc = static_cast<std::uint32_t>(ny * w + nx);
        }
        if (grid.span(nc) & kSpanWater) return std::nullopt;
    }
    return RouteMove{nc, k};
}

// The weight of weighted A*: w = num / den, num >= den >= 1. The search uses per_cell(c) =
// floor(c * num / den) per cell of distance where the heuristic has c, so its keys stay whole
// numbers; the result's cost is at most per_cell(c) / c <= w times the least.
struct RouteWeight {
    std::uint32_t num = 1, den = 1;
    std::uint64_t per_cell(std::uint64_t c) const { return c * num / den; }
};

struct Route {
    std::vector<std::uint32_t> cells;  // y * width + x, source first, target last
    std::vector<std::uint8_t> bridged; // parallel to cells: 1 where the cell is a bridge span
    std::uint64_t cost = 0;
    bool found = false;
};

// A rectangle of cells [x0, x1) x [y0, y1) (Router::route's target boxes).
struct RouteBox {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// Manhattan distance in cells from (x, y) to the nearest of the first 64 boxes (0 inside one;
// 0x7FFFFFFF when there is none): the A* heuristic's count of cells. The bounds are kept as arrays
// and each axis' distance is max(0, lo - v, v - last), with no branch, as the search takes it at
// every push.
class BoxDistance {
  public:
    static constexpr std::size_t kMaxBoxes = 64;
    explicit BoxDistance(std::span<const RouteBox> boxes)
        : count_(std::min(boxes.size(), kMaxBoxes)) {
        for (std::size_t i = 0; i < count_; ++i) {
            x0_[i] = boxes[i].x0;
            x_last_[i] = boxes[i].x1 - 1;
            y0_[i] = boxes[i].y0;
            y_last_[i] = boxes[i].y1 - 1;
        }
    }
    int operator()(int x, int y) const {
        // One box (the last routes of a network, the longest ones): no loop.
        if (count_ == 1) return axis(x, x0_[0], x_last_[0]) + axis(y, y0_[0], y_last_[0]);
        int best = 0x7FFFFFFF;
        for (std::size_t i = 0; i < count_; ++i)
            best = std::min(best, axis(x, x0_[i], x_last_[i]) + axis(y, y0_[i], y_last_[i]));
        return best;
    }

  private:
    static int axis(int v, int lo, int last) { return std::max(0, std::max(lo - v, v - last)); }
    std::size_t count_;
    int x0_[kMaxBoxes], x_last_[kMaxBoxes], y0_[kMaxBoxes], y_last_[kMaxBoxes];
};

class CostPotential; // cost_potential.hpp

class Router {
  public:
    // The cheapest route from `sources` to a cell whose target[] has a bit of `target_bits` set
    // (target.size() == cells; target_bits default: any).
    // Sources that are blocked still start (a place's footprint); a source that is a target gives
    // the route of that one cell.
    // `boxes` (may be empty: Dijkstra): rectangles [x0, x1) x [y0, y1) holding every target cell;
    // with at most 64 of them the search is A* towards them.
    // The search's state lives in `grid`'s cells (SearchCell::dist and parent, read against
    // grid.search_base, which the call advances); their cost and span are only read.
    using Box = RouteBox;
    [[nodiscard]] Route route(CostGrid& grid, const std::vector<std::uint32_t>& sources,
                              std::span<const std::uint8_t> target,
                              const std::vector<Box>& boxes = {}, RouteWeight weight = {},
                              std::uint8_t target_bits = 0xFF);
    // The same, A* by the bound `toward`: a CostPotential of the target cells (of the grid's
    // LeastMoveCosts, or of one taken before cells were blocked), whose values past its cap are
    // still lower bounds; taken at most 2^22 cost units above the least source's (so the bucket
    // ring never holds a wider spread of the sources' keys). With weight w, at most w times the
    // least cost.
    [[nodiscard]] Route route(CostGrid& grid, const std::vector<std::uint32_t>& sources,
                              std::span<const std::uint8_t> target, const CostPotential& toward,
                              RouteWeight weight = {}, std::uint8_t target_bits = 0xFF);

    // The same search run from the other end: the cheapest route from a cell whose network[] has
    // a bit of `network_bits` set to any of `ends`, found by searching from `ends` (each move
    // costing the cell it leaves, which the route enters), towards the network's cells by the
    // bound `toward` (a CostPotential of those cells, as for route()).
    // The result is as route()'s from the network cells to `ends`: network cell first, an end
    // last, the cost of the cells entered after the first; with weight w at most w times the least
    // such cost. For a grown network (many cells) and a few small places: route() from the
    // network starts a search at every network cell, this one at the places' cells only.
    [[nodiscard]] Route route_back(CostGrid& grid, const std::vector<std::uint32_t>& ends,
                                   std::span<const std::uint8_t> network,
                                   const CostPotential& toward, RouteWeight weight = {},
                                   std::uint8_t network_bits = 0xFF);

    // The queue route() uses, lent to a search of its own (reachability's connect search) so a
    // run grows one set of buckets. The borrower resets it before use.
    BucketQueue& queue() { return queue_; }

    // Cells explored (popped) by the last call: for benchmarks and tests.
    std::uint64_t explored() const { return explored_; }

  private:
    BucketQueue queue_;
    std::uint64_t explored_ = 0;
};

} // namespace tilegen
