#include "core/roads/route.hpp"

#include <algorithm>
#include <cstdlib>
#include <tuple>

namespace tilegen {

namespace {
constexpr std::uint8_t kSource = 0xFF;
constexpr std::uint32_t kInfinite = 0xFFFFFFFFu;
} // namespace

void BucketQueue::reset(std::uint64_t first, std::uint64_t span) {
    std::uint64_t size = 1;
    while (size < span + 1)
        size <<= 1;
    if (ring_.size() < size) ring_.resize(size);
    for (auto& bucket : ring_)
        bucket.clear();
    mask_ = ring_.size() - 1;
    cur_ = first;
    size_ = 0;
}

std::pair<std::uint16_t, std::uint16_t> cost_bounds(const CostGrid& grid) {
    std::uint16_t lo = kBlocked, hi = 0;
    for (std::size_t i = 0; i < grid.cost.size(); ++i) {
        const std::uint16_t c = grid.cost[i];
        if (c == kBlocked) continue;
        lo = std::min(lo, c);
        hi = std::max(hi, c);
    }
    if (hi == 0) return {1, 1};
    return {lo, hi};
}

Route Router::route(const CostGrid& grid, const std::vector<std::uint32_t>& sources,
                    const std::vector<std::uint8_t>& target, const std::vector<Box>& boxes) {
    const std::size_t n = static_cast<std::size_t>(grid.width) * grid.height;
    if (node_.size() != n) {
        node_.assign(n, 0);
        parent_.assign(n, kSource);
        generation_ = 0;
    }
    if (++generation_ == 0x80000000u) { // wrapped: clear the stamps once
        std::fill(node_.begin(), node_.end(), 0);
        generation_ = 1;
    }
    // node_: bits 32-62 the generation that touched the cell, bit 63 settled, bits 0-31 its
    // cost so far (valid when touched in this generation).
    const std::uint64_t touched = static_cast<std::uint64_t>(generation_) << 32;
    constexpr std::uint64_t kSettled = std::uint64_t{1} << 63;
    const auto dist = [&](std::uint32_t c) {
        const std::uint64_t v = node_[c];
        return (v & ~kSettled) >> 32 == generation_ ? static_cast<std::uint32_t>(v) : kInfinite;
    };
    explored_ = 0;
    std::uint16_t lo = grid.min_cost, hi = grid.max_cost;
    if (lo == 0 || hi == 0) std::tie(lo, hi) = cost_bounds(grid);
    // The heuristic: per cell of Manhattan distance to the nearest box, the least a move can cost
    // per cell it advances (a step: a cell's cost; a jump over k cells: k * bridge_cost + a
    // cell's cost for k + 1 cells). Consistent, so each cell is settled once at its least cost.
    const bool astar = !boxes.empty() && boxes.size() <= 64;
    const std::uint64_t per_cell =
        astar ? (grid.max_bridge > 0 ? std::min<std::uint64_t>(lo, grid.bridge_cost) : lo) : 0;
    const int w = grid.width;
    const auto heuristic = [&](int x, int y) -> std::uint64_t {
        if (!astar) return 0;
        int best = 0x7FFFFFFF;
        for (const Box& b : boxes) {
            const int dx = x < b.x0 ? b.x0 - x : (x >= b.x1 ? x - b.x1 + 1 : 0);
            const int dy = y < b.y0 ? b.y0 - y : (y >= b.y1 ? y - b.y1 + 1 : 0);
            best = std::min(best, dx + dy);
        }
        return per_cell * static_cast<std::uint64_t>(best);
    };
    const auto heuristic_of = [&](std::uint32_t c) {
        return heuristic(static_cast<int>(c % static_cast<std::uint32_t>(w)),
                         static_cast<int>(c / static_cast<std::uint32_t>(w)));
    };
    // The largest move: a step onto the dearest cell after the longest bridge; the key (cost plus
    // heuristic) grows by at most twice that.
    const std::uint64_t max_move = static_cast<std::uint64_t>(hi) +
                                   static_cast<std::uint64_t>(grid.max_bridge) * grid.bridge_cost;
    std::uint64_t first = ~std::uint64_t{0};
    for (std::uint32_t s : sources)
        first = std::min(first, heuristic_of(s));
    queue_.reset(sources.empty() ? 0 : first, 2 * max_move + 2);
    for (std::uint32_t s : sources) {
        if (dist(s) == 0) continue;
        node_[s] = touched;
        parent_[s] = kSource;
        queue_.push(heuristic_of(s), s);
    }
    Route r;
    std::uint32_t found = kInfinite;
    const std::uint16_t* cost = grid.cost.data();
    const std::uint8_t* span = grid.span.data();
    while (!queue_.empty()) {
        const std::uint32_t c = queue_.pop().second;
        if (node_[c] & kSettled) continue; // stale entry
        node_[c] |= kSettled;
        const auto d = static_cast<std::uint32_t>(node_[c]);
        ++explored_;
        if (target[c]) {
            found = c;
            break;
        }
        const int x = static_cast<int>(c % static_cast<std::uint32_t>(w));
        const int y = static_cast<int>(c / static_cast<std::uint32_t>(w));
        const bool from_water = span[c] != 0;
        for (int dir = 0; dir < 4; ++dir) {
            const std::optional<RouteMove> move = route_move(grid, x, y, dir, from_water);
            if (!move) continue;
            const std::uint32_t nc = move->cell;
            const std::uint16_t step = cost[nc];
            if (step == kBlocked) continue;
            const int k = move->bridged;
            const std::uint32_t nd = d + static_cast<std::uint32_t>(k) * grid.bridge_cost + step;
            const std::uint64_t v = node_[nc];
            const bool seen = (v & ~kSettled) >> 32 == generation_;
            if (seen && ((v & kSettled) || nd >= static_cast<std::uint32_t>(v))) continue;
            node_[nc] = touched | nd;
            parent_[nc] = static_cast<std::uint8_t>(dir | (k << 2));
            const int len = k + 1;
            queue_.push(nd + heuristic(x + kRouteDx[dir] * len, y + kRouteDy[dir] * len), nc);
        }
    }
    if (found == kInfinite) return r;
    r.found = true;
    r.cost = dist(found);
    std::uint32_t c = found;
    while (true) {
        r.cells.push_back(c);
        r.bridged.push_back(0);
        const std::uint8_t p = parent_[c];
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
    std::reverse(r.cells.begin(), r.cells.end());
    std::reverse(r.bridged.begin(), r.bridged.end());
    return r;
}

} // namespace tilegen
