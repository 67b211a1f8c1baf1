#include "core/quality/fitness.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>

#include "core/parallel.hpp"

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
                         const std::vector<Place>& places, int start_rule, int threads) {
    Fitness f;
    const int w = classes.width(), h = classes.height();
    const std::size_t n = classes.size();
    if (n == 0) return f;
    std::array<bool, 256> walk_class{};
    for (std::size_t c = 0; c < walkable.size() && c < walk_class.size(); ++c)
        walk_class[c] = walkable[c];
    const ClassId* cells = classes.cells().data();
    auto walk = [&](std::size_t i) { return walk_class[cells[i]]; };
    // Counted by bands of rows on the threads (whole numbers: the sums do not depend on them).
    std::atomic<std::uint64_t> walkable_cells{0}, edges{0};
    parallel_for(h, threads, [&](int y0, int y1) {
        std::uint64_t band_walkable = 0, band_edges = 0;
        for (int y = y0; y < y1; ++y) {
            const std::size_t row = static_cast<std::size_t>(y) * w;
            for (int x = 0; x < w; ++x) {
                const std::size_t i = row + x;
                const bool a = walk(i);
                band_walkable += a ? 1 : 0;
                if (x + 1 < w && a != walk(i + 1)) ++band_edges;
                if (y + 1 < h && a != walk(i + w)) ++band_edges;
            }
        }
        walkable_cells += band_walkable;
        edges += band_edges;
    });
    f.accessibility = static_cast<double>(walkable_cells.load()) / static_cast<double>(n);
    f.obstacle_edges = static_cast<double>(edges.load()) / static_cast<double>(n);

    // Fairness: a breadth-first search from the start cells, one distance level at a time, that
    // stops once every place has a start cell reached (the first level that reaches one is its
    // distance). Memory: a bit per cell and the frontiers.
    struct Goal {
        std::vector<std::uint32_t> cells; // the place's start cells
        std::uint32_t dist = std::numeric_limits<std::uint32_t>::max();
    };
    std::vector<Goal> goals;
    for (const Place& p : places)
        if (p.rule != start_rule) goals.push_back({start_cells_of(p, w, h)});
    std::vector<std::uint64_t> seen((n + 63) / 64, 0);
    const auto test_and_set = [&](std::uint32_t c) {
        std::uint64_t& word = seen[c >> 6];
        const std::uint64_t bit = 1ull << (c & 63);
        if (word & bit) return false;
        word |= bit;
        return true;
    };
    const auto reached = [&](std::uint32_t c) { return (seen[c >> 6] >> (c & 63)) & 1ull; };
    std::vector<std::uint32_t> frontier, next;
    for (std::uint32_t c : start_cells)
        if (c < n && walk(c) && test_and_set(c)) frontier.push_back(c);
    if (frontier.empty()) return f;
    std::size_t open = goals.size(); // places not reached yet
    for (std::uint32_t level = 0; !frontier.empty() && open > 0; ++level) {
        // The places this level reaches first (every cell of the level is marked already).
        for (Goal& g : goals)
            if (g.dist == std::numeric_limits<std::uint32_t>::max() &&
                std::any_of(g.cells.begin(), g.cells.end(), reached)) {
                g.dist = level;
                --open;
            }
        if (open == 0) break;
        next.clear();
        for (const std::uint32_t c : frontier) {
            const int x = static_cast<int>(c % static_cast<std::uint32_t>(w));
            const int y = static_cast<int>(c / static_cast<std::uint32_t>(w));
            const std::uint32_t nbs[4] = {x > 0 ? c - 1 : c, x + 1 < w ? c + 1 : c,
                                          y > 0 ? c - w : c, y + 1 < h ? c + w : c};
            for (const std::uint32_t nb : nbs)
                if (walk(nb) && test_and_set(nb)) next.push_back(nb);
        }
        std::swap(frontier, next);
    }
    double lo = std::numeric_limits<double>::max(), hi = 0;
    for (const Goal& g : goals) {
        if (g.dist == std::numeric_limits<std::uint32_t>::max()) {
            f.fairness = 0;
            return f;
        }
        lo = std::min(lo, static_cast<double>(g.dist) + 1);
        hi = std::max(hi, static_cast<double>(g.dist) + 1);
    }
    f.fairness = goals.size() >= 2 ? lo / hi : 1;
    return f;
}

} // namespace tilegen
