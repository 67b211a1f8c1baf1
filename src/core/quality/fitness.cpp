#include "core/quality/fitness.hpp"

#include <algorithm>
#include <limits>

namespace tilegen {

std::vector<std::uint32_t> start_cells_of(const Place& p, int width, int height) {
    std::vector<std::uint32_t> cells;
    for (int y = p.y; y < p.y + p.h; ++y)
        for (int x = p.x; x < p.x + p.w; ++x)
            cells.push_back(static_cast<std::uint32_t>(y * width + x));
    for (int y = p.y - 1; y <= p.y + p.h; ++y)
        for (int x = p.x - 1; x <= p.x + p.w; ++x) {
            const bool inside = x >= p.x && x < p.x + p.w && y >= p.y && y < p.y + p.h;
            const bool corner = (x < p.x || x >= p.x + p.w) && (y < p.y || y >= p.y + p.h);
            if (inside || corner || x < 0 || y < 0 || x >= width || y >= height) continue;
            cells.push_back(static_cast<std::uint32_t>(y * width + x));
        }
    return cells;
}

Fitness evaluate_fitness(const ClassGrid& classes, const std::vector<bool>& walkable,
                         const std::vector<std::uint32_t>& start_cells,
                         const std::vector<Place>& places, int start_rule) {
    Fitness f;
    const int w = classes.width(), h = classes.height();
    const std::size_t n = classes.size();
    if (n == 0) return f;
    auto walk = [&](std::size_t i) {
        const ClassId c = classes.cells()[i];
        return c < walkable.size() && walkable[c];
    };
    std::uint64_t walkable_cells = 0, edges = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            const bool a = walk(i);
            walkable_cells += a ? 1 : 0;
            if (x + 1 < w && a != walk(i + 1)) ++edges;
            if (y + 1 < h && a != walk(i + w)) ++edges;
        }
    f.accessibility = static_cast<double>(walkable_cells) / static_cast<double>(n);
    f.obstacle_edges = static_cast<double>(edges) / static_cast<double>(n);
    std::vector<std::uint32_t> dist(n, std::numeric_limits<std::uint32_t>::max());
    std::vector<std::uint32_t> queue;
    for (std::uint32_t c : start_cells)
        if (c < n && walk(c) && dist[c] != 0) {
            dist[c] = 0;
            queue.push_back(c);
        }
    if (queue.empty()) return f;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t c = queue[head];
        const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
        const std::uint32_t nbs[4] = {x > 0 ? c - 1 : c, x + 1 < w ? c + 1 : c, y > 0 ? c - w : c,
                                      y + 1 < h ? c + w : c};
        for (std::uint32_t nb : nbs)
            if (dist[nb] == std::numeric_limits<std::uint32_t>::max() && walk(nb)) {
                dist[nb] = dist[c] + 1;
                queue.push_back(nb);
            }
    }
    double lo = std::numeric_limits<double>::max(), hi = 0;
    int counted = 0;
    for (const Place& p : places) {
        if (p.rule == start_rule) continue;
        std::uint32_t best = std::numeric_limits<std::uint32_t>::max();
        for (std::uint32_t c : start_cells_of(p, w, h))
            best = std::min(best, dist[c]);
        const double d = best == std::numeric_limits<std::uint32_t>::max() ? -1 : best;
        if (d < 0) {
            f.fairness = 0;
            return f;
        }
        lo = std::min(lo, d + 1);
        hi = std::max(hi, d + 1);
        ++counted;
    }
    f.fairness = counted >= 2 ? lo / hi : 1;
    return f;
}

} // namespace tilegen
