#include "core/roads/route.hpp"

#include <algorithm>
#include <functional>

namespace tilegen {

namespace {
constexpr std::uint8_t kSource = 0xFF;
constexpr std::uint32_t kInfinite = 0xFFFFFFFFu;
} // namespace

Route Router::route(const CostGrid& grid, const std::vector<std::uint32_t>& sources,
                    const std::vector<std::uint8_t>& target) {
    const std::size_t n = static_cast<std::size_t>(grid.width) * grid.height;
    if (dist_.size() != n) {
        dist_.assign(n, kInfinite);
        stamp_.assign(n, 0);
        parent_.assign(n, kSource);
        generation_ = 0;
    }
    if (++generation_ == 0) { // wrapped: clear the stamps once
        std::fill(stamp_.begin(), stamp_.end(), 0);
        generation_ = 1;
    }
    const std::uint32_t gen = generation_;
    auto dist = [&](std::uint32_t c) { return stamp_[c] == gen ? dist_[c] : kInfinite; };
    heap_.clear();
    explored_ = 0;
    auto push = [&](std::uint32_t d, std::uint32_t c) {
        heap_.push_back((static_cast<std::uint64_t>(d) << 32) | c);
        std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
    };
    for (std::uint32_t s : sources) {
        if (dist(s) == 0) continue;
        stamp_[s] = gen;
        dist_[s] = 0;
        parent_[s] = kSource;
        push(0, s);
    }
    Route r;
    const int w = grid.width;
    std::uint32_t found = kInfinite;
    while (!heap_.empty()) {
        std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
        const std::uint64_t top = heap_.back();
        heap_.pop_back();
        const auto d = static_cast<std::uint32_t>(top >> 32);
        const auto c = static_cast<std::uint32_t>(top & 0xFFFFFFFFu);
        if (d != dist(c)) continue; // stale entry
        ++explored_;
        if (target[c]) {
            found = c;
            break;
        }
        const int x = static_cast<int>(c % static_cast<std::uint32_t>(w));
        const int y = static_cast<int>(c / static_cast<std::uint32_t>(w));
        const bool from_water = grid.span[c] != 0;
        for (int dir = 0; dir < 4; ++dir) {
            const std::optional<RouteMove> move = route_move(grid, x, y, dir, from_water);
            if (!move) continue;
            const std::uint32_t nc = move->cell;
            const int k = move->bridged;
            const std::uint32_t extra = static_cast<std::uint32_t>(k) * grid.bridge_cost;
            const std::uint16_t step = grid.cost[nc];
            if (step == kBlocked) continue;
            const std::uint32_t nd = d + extra + step;
            if (nd < dist(nc)) {
                stamp_[nc] = gen;
                dist_[nc] = nd;
                parent_[nc] = static_cast<std::uint8_t>(dir | (k << 2));
                push(nd, nc);
            }
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
