// The plain recount of the map statistics, see map_stats_recount.hpp.
#include "core/quality/map_stats_recount.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "core/grid.hpp"

namespace tilegen::test {

namespace {

bool is_walkable(const std::vector<bool>& walkable, ClassId c) {
    return c < walkable.size() && walkable[c];
}

// Sizes of the 4-connected regions of cells where `same(a, b)` joins neighbours a and b, over the
// cells where `member` holds.
template <class Member, class Same>
std::vector<std::uint64_t> flood_regions(const ClassGrid& g, Member member, Same same) {
    std::vector<std::uint64_t> sizes;
    Grid<int> seen(g.width(), g.height(), 0);
    for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x) {
            if (seen(x, y) || !member(g(x, y))) continue;
            std::uint64_t size = 0;
            std::vector<std::pair<int, int>> stack{{x, y}};
            seen(x, y) = 1;
            while (!stack.empty()) {
                const auto [cx, cy] = stack.back();
                stack.pop_back();
                ++size;
                const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
                for (int k = 0; k < 4; ++k) {
                    const int nx = cx + dx[k], ny = cy + dy[k];
                    if (!g.contains(nx, ny) || seen(nx, ny) || !member(g(nx, ny)) ||
                        !same(g(cx, cy), g(nx, ny)))
                        continue;
                    seen(nx, ny) = 1;
                    stack.push_back({nx, ny});
                }
            }
            sizes.push_back(size);
        }
    return sizes;
}

} // namespace

double MapStatsRecount::thin() const {
    return cells ? static_cast<double>(thin_cells) / static_cast<double>(cells) : 0.0;
}
double MapStatsRecount::largest_walkable() const {
    return walkable_cells
               ? static_cast<double>(largest_walkable_cells) / static_cast<double>(walkable_cells)
               : 0.0;
}
double MapStatsRecount::corner_density() const {
    return boundary_edges
               ? static_cast<double>(corner_windows) / static_cast<double>(boundary_edges)
               : 0.0;
}
double MapStatsRecount::fraction(std::size_t cls) const {
    return cells ? static_cast<double>(counts.at(cls)) / static_cast<double>(cells) : 0.0;
}

MapStatsRecount recount_map_stats(const ClassGrid& g, const std::vector<bool>& walkable) {
    MapStatsRecount r;
    r.cells = g.size();
    r.counts.assign(walkable.size(), 0);
    const auto class_sizes = flood_regions(
        g, [](ClassId) { return true; }, [](ClassId a, ClassId b) { return a == b; });
    r.class_regions = class_sizes.size();
    for (auto s : class_sizes)
        r.specks += s <= 3 ? 1 : 0;
    const auto walk_sizes = flood_regions(
        g, [&](ClassId c) { return is_walkable(walkable, c); },
        [](ClassId, ClassId) { return true; });
    r.walkable_regions = walk_sizes.size();
    for (auto s : walk_sizes) {
        r.walkable_cells += s;
        r.largest_walkable_cells = std::max(r.largest_walkable_cells, s);
    }
    const int w = g.width(), h = g.height();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const ClassId c = g(x, y);
            if (c < r.counts.size()) ++r.counts[c];
            const bool ew = g.contains(x - 1, y) && g.contains(x + 1, y) && g(x - 1, y) != c &&
                            g(x + 1, y) != c;
            const bool ns = g.contains(x, y - 1) && g.contains(x, y + 1) && g(x, y - 1) != c &&
                            g(x, y + 1) != c;
            if (ew || ns) ++r.thin_cells;
            if (x + 1 < w && g(x + 1, y) != c) ++r.boundary_edges;
            if (y + 1 < h && g(x, y + 1) != c) ++r.boundary_edges;
            if (x + 1 < w && y + 1 < h) {
                std::map<ClassId, int> in_window;
                ++in_window[g(x, y)];
                ++in_window[g(x + 1, y)];
                ++in_window[g(x, y + 1)];
                ++in_window[g(x + 1, y + 1)];
                for (const auto& [cls, n] : in_window)
                    if (n == 3) ++r.corner_windows;
            }
        }
    return r;
}

} // namespace tilegen::test
