#include "core/roads/route.hpp"

#include "core/roads/cost_potential.hpp"

#include <algorithm>
#include <cstdlib>
#include <tuple>

namespace tilegen {

namespace {
constexpr std::uint8_t kSource = 0xFF;
constexpr std::uint32_t kInfinite = kUnreached;
constexpr std::uint32_t kCostLimit = 0x80000000u; // costs so far stay below it

} // namespace

void BucketQueue::reset(std::uint64_t first, std::uint64_t span) {
    std::uint64_t size = 1;
    while (size < span + 1)
        size <<= 1;
    if (heads_.size() < size) heads_.resize(size);
    std::fill(heads_.begin(), heads_.end(), kNone);
    chunks_.clear();
    free_ = kNone;
    mask_ = heads_.size() - 1;
    cur_ = first;
    top_ = first;
    size_ = 0;
}

void BucketQueue::grow(std::uint64_t span) {
    std::uint64_t size = std::max<std::uint64_t>(heads_.size(), 1);
    while (size < span)
        size <<= 1;
    GridCells<std::uint32_t> heads(size, kNone);
    for (std::uint64_t p = 0; p < heads_.size(); ++p) { // bucket p holds key cur_ + (p - cur_)
        const std::uint64_t key = cur_ + ((p - cur_) & mask_);
        heads[key & (size - 1)] = heads_[p];
    }
    heads_ = std::move(heads);
    mask_ = size - 1;
}

std::pair<std::uint16_t, std::uint16_t> cost_bounds(const CostGrid& grid) {
    std::uint16_t lo = kBlocked, hi = 0;
    for (const SearchCell& cell : grid.cells) {
        const std::uint16_t c = cell.cost;
        if (c == kBlocked) continue;
        lo = std::min(lo, c);
        hi = std::max(hi, c);
    }
    if (hi == 0) return {1, 1};
    return {lo, hi};
}

namespace {

// The search of Router::route (kBackward false) and Router::route_back (true). `bound.key(x, y)`:
// the weighted A* bound of cell (x, y), 0 on every target, kNoPath where no target can be reached
// (the cell is never entered); `bound.max_rise`: the most a key's bound part can rise over one
// move. With bound.key 0 everywhere, Dijkstra.
constexpr std::uint64_t kNoPath = ~std::uint64_t{0};

// `hi`: at least the dearest open cell's cost (known_cost_bounds).
template <bool kBackward, class Bound>
Route search(BucketQueue& queue_, std::uint64_t& explored_, CostGrid& grid,
             const std::vector<std::uint32_t>& sources, std::span<const std::uint8_t> target,
             const Bound& bound, std::uint16_t hi, std::uint8_t target_bits) {
    explored_ = 0;
    const int w = grid.width, h = grid.height;
    const auto heuristic = [&](int x, int y) -> std::uint64_t { return bound.key(x, y); };
    const auto heuristic_of = [&](std::uint32_t c) {
        return heuristic(static_cast<int>(c % static_cast<std::uint32_t>(w)),
                         static_cast<int>(c / static_cast<std::uint32_t>(w)));
    };
    // The largest move: a step onto the dearest cell after the longest bridge; the key (cost plus
    // weighted heuristic) grows by at most that plus the bound's rise (the queue grows if a key
    // goes further).
    const std::uint64_t max_move = static_cast<std::uint64_t>(hi) +
                                   static_cast<std::uint64_t>(grid.max_bridge) * grid.bridge_cost +
                                   bound.max_rise;
    // The sources enter with keys first..last (their heuristics): the ring must hold that spread
    // too, or a far source's key would wrap onto a nearer bucket and come out too early.
    std::uint64_t first = ~std::uint64_t{0}, last = 0;
    for (std::uint32_t s : sources) {
        if (heuristic_of(s) == kNoPath) continue;
        first = std::min(first, heuristic_of(s));
        last = std::max(last, heuristic_of(s));
    }
    if (first > last) first = last = 0;
    queue_.reset(first, last - first + max_move + 2);
    SearchCell* cells = grid.cells.data();
    // This call's costs so far are stored as base + cost: a cell whose dist - base (mod 2^32) is
    // below kCostLimit was reached by this call, any other (kUnreached, or an earlier call's
    // value, all below base) was not, so nothing is set back after the call
    // (CostGrid::search_base).
    const std::uint32_t base = grid.search_base;
    std::uint32_t most = 0; // the largest cost so far stored
    const auto reach = [&](std::uint32_t c, std::uint32_t d, std::uint8_t from) {
        cells[c].dist = base + d;
        cells[c].parent = from;
        most = std::max(most, d);
    };
    for (std::uint32_t s : sources) {
        if (cells[s].dist == base) continue;      // a source listed twice
        if (heuristic_of(s) == kNoPath) continue; // no target beyond it
        reach(s, 0, kSource);
        queue_.push(heuristic_of(s), s);
    }
    Route r;
    std::uint32_t found = kInfinite, found_cost = 0;
    const std::uint8_t* is_target = target.data();
    while (!queue_.empty()) {
        const std::uint32_t c = queue_.pop().second;
        // The next entry's cells, fetched while this one is expanded, and below each pushed
        // cell's (hints: the queue's order over the whole frontier makes each expansion read cold
        // cells, and a pushed cell with a lower key is the very next one popped).
        if (const std::uint32_t next = queue_.ahead(0); next != kInfinite)
            prefetch_cell_and_rows(next, w, cells);
        // A cell's entries have strictly falling keys (each push lowers its cost so far; its
        // heuristic is fixed), so the one of its current cost comes out first and closes the
        // cell: an entry of a closed cell is stale (no key or heuristic to compare).
        SearchCell& cell = cells[c];
        const std::uint32_t d = cell.dist - base;
        if (d == 0 && cell.parent != kSource) continue; // closed (a source has one entry)
        const int x = static_cast<int>(c % static_cast<std::uint32_t>(w));
        const int y = static_cast<int>(c / static_cast<std::uint32_t>(w));
        ++explored_;
        // Every target lies in a box, where the heuristic is 0 (Dijkstra: 0 everywhere).
        if ((is_target[c] & target_bits) && heuristic(x, y) == 0) {
            found = c;
            found_cost = d;
            break;
        }
        // Closed, never reopened (with weight 1 it was expanded at its least cost): its cost so
        // far 0 fails every move's `nd < dist` below (a move costs at least 1), and marks its
        // later entries stale (every other reached cell's cost so far is at least 1).
        cell.dist = base;
        const bool from_water = (cell.span & kSpanWater) != 0;
        // The move in direction `dir` (kRouteDx/kRouteDy) to the neighbour (nx, ny) = cell nc,
        // which is inside the map. Inlined at its four calls (as an out-of-line call it cost more
        // instructions than the loop over directions it replaces).
        const auto relax = [&](int dir, int nx, int ny, std::uint32_t nc)
            __attribute__((always_inline)) {
            std::uint32_t k = 0;
            if (cells[nc].span & kSpanWater) { // a bridge (rare): the general move
                const std::optional<RouteMove> move = route_move(grid, x, y, dir, from_water);
                if (!move) return;
                nc = move->cell;
                k = static_cast<std::uint32_t>(move->bridged);
                nx += kRouteDx[dir] * move->bridged;
                ny += kRouteDy[dir] * move->bridged;
            }
            const SearchCell& next = cells[nc];
            if (next.cost == kBlocked) return;
            // d < 2^31, a jump's spans cost < 2^22 and a cell < 2^16: no 32-bit overflow. The
            // move is kept when it is cheaper than the cell's cost so far (not reached by this
            // call: 2^31 or more; closed: 0) and than kCostLimit (a dearer route is not found).
            // Forward, a move costs the cell it enters; backward (a route searched from its end),
            // the cell it leaves, which the route enters.
            const std::uint32_t nd = d + grid.bridge_cost * k + (kBackward ? cell.cost : next.cost);
            if (nd >= std::min(next.dist - base, kCostLimit)) return;
            const std::uint64_t rest = heuristic(nx, ny);
            if (rest == kNoPath) return;
            reach(nc, nd, static_cast<std::uint8_t>(dir | (k << 2)));
            queue_.push(nd + rest, nc);
            prefetch_cell_and_rows(nc, w, cells);
        };
        // The four directions in kRouteDx/kRouteDy's order: +x, -x, +y, -y.
        if (x + 1 < w) relax(0, x + 1, y, c + 1);
        if (x > 0) relax(1, x - 1, y, c - 1);
        if (y + 1 < h) relax(2, x, y + 1, c + static_cast<std::uint32_t>(w));
        if (y > 0) relax(3, x, y - 1, c - static_cast<std::uint32_t>(w));
    }
    if (found != kInfinite) {
        r.found = true;
        r.cost = found_cost;
        std::uint32_t c = found;
        while (true) { // back along the parents
            r.cells.push_back(c);
            r.bridged.push_back(0);
            const std::uint8_t p = cells[c].parent;
            if (p == kSource) break;
            const int dir = p & 3, k = p >> 2;
            int x = static_cast<int>(c % static_cast<std::uint32_t>(w));
            int y = static_cast<int>(c / static_cast<std::uint32_t>(w));
            for (int i = 0; i < k; ++i) {
                x -= kRouteDx[dir];
                y -= kRouteDy[dir];
                r.cells.push_back(static_cast<std::uint32_t>(y * w + x));
                r.bridged.push_back(1);
            }
            x -= kRouteDx[dir];
            y -= kRouteDy[dir];
            c = static_cast<std::uint32_t>(y * w + x);
        }
        if (!kBackward) { // back along the parents is the route's own order when backward
            std::reverse(r.cells.begin(), r.cells.end());
            std::reverse(r.bridged.begin(), r.bridged.end());
        }
    }
    // The next call's base lies past every value stored; when it would reach kCostLimit, every
    // cell is made unreached again (after about 2^31 / (a route's cost) calls).
    if (std::uint64_t{base} + most + 1 + kCostLimit > 0xFFFFFFFFull) {
        for (SearchCell& c : grid.cells)
            c.dist = kUnreached;
        grid.search_base = 0;
    } else {
        grid.search_base = base + most + 1;
    }
    return r;
}

// The A* bound of Router::route: the Manhattan distance to the nearest target box times the least
// a move can cost per cell it advances (a step: a cell's cost; a jump over k cells: k *
// bridge_cost + a cell's cost for k + 1 cells; backward, the cell left is one of those), times the
// weight. Consistent, so with weight 1 each cell is settled once at its least cost.
struct BoxBound {
    BoxDistance distance;
    std::uint64_t per_cell = 0;
    std::uint64_t max_rise = 0;
    std::uint64_t key(int x, int y) const {
        return per_cell * static_cast<std::uint64_t>(distance(x, y));
    }
};

// The A* bound by a CostPotential, times the weight, and at most `ceiling` (the least of two
// consistent lower bounds is one).
struct PotentialBound {
    const CostPotential& potential;
    RouteWeight weight;
    std::uint64_t ceiling = 0;
    std::uint64_t max_rise = 0;
    std::uint64_t key(int x, int y) const {
        const std::uint64_t p = potential.at(x, y);
        return p >= CostPotential::kFar ? kNoPath : weight.per_cell(std::min(p, ceiling));
    }
};

// How far apart, in cost units, the bounds of a search's sources may lie: the sources enter the
// bucket ring with keys that far apart, so the ring holds that spread. A source's bound above the
// least source's plus this is taken as that (no bound reaches it on any map tilegen makes: 16 384
// cells of the least cost 16 are 262 144; extreme costs could make it billions).
constexpr std::uint64_t kSourceSpread = std::uint64_t{1} << 22;

// The grid's min_cost and max_cost, or, when they are not known (0), a scan's (cost_bounds).
std::pair<std::uint16_t, std::uint16_t> known_cost_bounds(const CostGrid& grid) {
    if (grid.min_cost == 0 || grid.max_cost == 0) return cost_bounds(grid);
    return {grid.min_cost, grid.max_cost};
}

// The bound by `toward` for a search from `sources`, whose key rises over a move by at most the
// weight times the move's cost (and one for the rounding); `hi` as for search().
PotentialBound potential_bound(const CostGrid& grid, std::uint16_t hi, const CostPotential& toward,
                               RouteWeight weight, const std::vector<std::uint32_t>& sources) {
    const std::uint64_t most_move =
        hi + static_cast<std::uint64_t>(grid.max_bridge) * grid.bridge_cost;
    std::uint64_t least = CostPotential::kFar;
    const auto w = static_cast<std::uint32_t>(grid.width);
    for (const std::uint32_t s : sources)
        if (w > 0)
            least = std::min(least, toward.at(static_cast<int>(s % w), static_cast<int>(s / w)));
    return PotentialBound{toward, weight, least + kSourceSpread, weight.per_cell(most_move) + 1};
}

} // namespace

Route Router::route(CostGrid& grid, const std::vector<std::uint32_t>& sources,
                    std::span<const std::uint8_t> target, const std::vector<Box>& boxes,
                    RouteWeight weight, std::uint8_t target_bits) {
    const bool astar = !boxes.empty() && boxes.size() <= 64;
    BoxBound bound{BoxDistance(astar ? std::span<const Box>(boxes) : std::span<const Box>())};
    const auto [lo, hi] = known_cost_bounds(grid);
    if (astar) {
        const std::uint64_t least_per_cell =
            grid.max_bridge > 0 ? std::min<std::uint64_t>(lo, grid.bridge_cost) : lo;
        bound.per_cell = weight.per_cell(least_per_cell);
        bound.max_rise = bound.per_cell * static_cast<std::uint64_t>(grid.max_bridge + 1);
    }
    return search<false>(queue_, explored_, grid, sources, target, bound, hi, target_bits);
}

Route Router::route(CostGrid& grid, const std::vector<std::uint32_t>& sources,
                    std::span<const std::uint8_t> target, const CostPotential& toward,
                    RouteWeight weight, std::uint8_t target_bits) {
    const std::uint16_t hi = known_cost_bounds(grid).second;
    return search<false>(queue_, explored_, grid, sources, target,
                         potential_bound(grid, hi, toward, weight, sources), hi, target_bits);
}

Route Router::route_back(CostGrid& grid, const std::vector<std::uint32_t>& ends,
                         std::span<const std::uint8_t> network, const CostPotential& toward,
                         RouteWeight weight, std::uint8_t network_bits) {
    const std::uint16_t hi = known_cost_bounds(grid).second;
    return search<true>(queue_, explored_, grid, ends, network,
                        potential_bound(grid, hi, toward, weight, ends), hi, network_bits);
}

} // namespace tilegen
