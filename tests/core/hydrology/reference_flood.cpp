#include "core/hydrology/reference_flood.hpp"

#include <algorithm>

namespace tilegen::test {

FlowField reference_flood_basins(Grid<std::uint16_t> level) {
    FlowField f;
    const int w = level.width(), h = level.height();
    const std::size_t n = level.size();
    f.down = Grid<std::uint8_t>::uninitialised(w, h);
    f.filled = Grid<std::uint16_t>::uninitialised(w, h);
    if (n == 0) {
        f.level = std::move(level);
        return f;
    }
    constexpr std::uint8_t kPit = 0xff;
    constexpr std::uint32_t kNone = 0xffffffffu;
    const std::uint16_t* lv = level.cells().data();
    std::uint8_t* down = f.down.cells().data();
    const std::int64_t offset[4] = {-static_cast<std::int64_t>(w), -1, 1, w};

    // 1. Descent.
    for (int y = 0; y < h; ++y) {
        const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
        for (int x = 0; x < w; ++x) {
            const std::size_t c = row + static_cast<std::size_t>(x);
            if (y == 0 || y == h - 1 || x == 0 || x == w - 1) {
                down[c] = kDrainOff | (y == 0       ? drain_north
                                       : y == h - 1 ? drain_south
                                       : x == 0     ? drain_west
                                                    : drain_east);
                continue;
            }
            std::uint16_t best = lv[c];
            std::uint8_t d = kPit;
            const std::uint16_t around[4] = {lv[c - static_cast<std::size_t>(w)], lv[c - 1],
                                             lv[c + 1], lv[c + static_cast<std::size_t>(w)]};
            for (std::uint8_t k = 0; k < 4; ++k)
                if (around[k] < best) {
                    best = around[k];
                    d = k;
                }
            down[c] = d;
        }
    }

    // 2. Basins.
    Grid<std::uint32_t> basin_grid(w, h, kNone);
    std::uint32_t* basin = basin_grid.cells().data();
    std::uint32_t basins = 1;
    std::vector<std::uint32_t> path;
    for (std::size_t c = 0; c < n; ++c) {
        if (basin[c] != kNone) continue;
        path.clear();
        std::size_t cur = c;
        while (basin[cur] == kNone) {
            const std::uint8_t d = down[cur];
            if (d == kPit) {
                basin[cur] = basins++;
                break;
            }
            if (d & kDrainOff) {
                basin[cur] = 0;
                break;
            }
            path.push_back(static_cast<std::uint32_t>(cur));
            cur = static_cast<std::size_t>(static_cast<std::int64_t>(cur) + offset[d]);
        }
        const std::uint32_t b = basin[cur];
        for (std::uint32_t p : path)
            basin[p] = b;
    }

    // 3. Priority-Flood over basins, as Kruskal's algorithm: the 4-neighbour pairs of cells in
    // different basins, by cost max(level p, level q) (a counting sort, stable in scan order),
    // join components; a basin's water level is the cost of the pair that first joins its
    // component to the ocean's (the minimax height of a path to the edge, as the flood gives it).
    struct Pair {
        std::uint32_t p, q; // 4-neighbour cells, p before q in reading order
    };
    std::vector<std::uint32_t> count(65537, 0);
    const std::uint32_t uw = static_cast<std::uint32_t>(w);
    // A pair is left out when the last pair emitted for the same two basins (along the row for
    // vertical pairs, down the column for horizontal ones) cost no more: that one comes first in
    // Kruskal's order and joins the two basins, so the result is the same with fewer pairs.
    std::vector<std::uint32_t> col_a(uw), col_b(uw), col_cost(uw);
    auto each_pair = [&](auto&& body) {
        std::fill(col_a.begin(), col_a.end(), kNone);
        for (std::uint32_t y = 0; y < static_cast<std::uint32_t>(h); ++y) {
            const std::uint32_t row = y * uw;
            std::uint32_t row_a = kNone, row_b = kNone, row_cost = 0;
            for (std::uint32_t x = 0; x < uw; ++x) {
                const std::uint32_t c = row + x;
                const std::uint32_t a = basin[c];
                if (x + 1 < uw && a != basin[c + 1]) {
                    const std::uint32_t b = basin[c + 1], cost = std::max(lv[c], lv[c + 1]);
                    if (col_a[x] != a || col_b[x] != b || cost < col_cost[x]) {
                        col_a[x] = a;
                        col_b[x] = b;
                        col_cost[x] = cost;
                        body(c, c + 1);
                    }
                }
                if (y + 1 < static_cast<std::uint32_t>(h) && a != basin[c + uw]) {
                    const std::uint32_t b = basin[c + uw], cost = std::max(lv[c], lv[c + uw]);
                    if (row_a != a || row_b != b || cost < row_cost) {
                        row_a = a;
                        row_b = b;
                        row_cost = cost;
                        body(c, c + uw);
                    }
                }
            }
        }
    };
    each_pair([&](std::uint32_t p, std::uint32_t q) { ++count[std::max(lv[p], lv[q]) + 1u]; });
    for (std::size_t i = 1; i < count.size(); ++i)
        count[i] += count[i - 1];
    GridCells<Pair> pairs(count.back()); // pooled like a grid: no fresh pages per run
    each_pair([&](std::uint32_t p, std::uint32_t q) {
        pairs[count[std::max(lv[p], lv[q])]++] = {p, q};
    });
    // Union-find over basins; each component lists its basins (linked through next_member).
    std::vector<std::uint32_t> parent(basins), size(basins, 1), next_member(basins, kNone),
        last_member(basins);
    for (std::uint32_t b = 0; b < basins; ++b) {
        parent[b] = b;
        last_member[b] = b;
    }
    auto find = [&](std::uint32_t b) {
        while (parent[b] != b) {
            parent[b] = parent[parent[b]];
            b = parent[b];
        }
        return b;
    };
    // The tree of joining pairs, rooted at the ocean afterwards: adjacency per basin.
    std::vector<Pair> tree;
    tree.reserve(basins);
    std::vector<std::uint16_t> water(basins, 0);
    std::uint32_t ocean = 0;
    for (const Pair& e : pairs) {
        const std::uint32_t a = find(basin[e.p]), b = find(basin[e.q]);
        if (a == b) continue;
        tree.push_back(e);
        if (a == ocean || b == ocean) {
            const std::uint16_t cost = std::max(lv[e.p], lv[e.q]);
            for (std::uint32_t m = a == ocean ? b : a; m != kNone; m = next_member[m])
                water[m] = cost;
        }
        // Union by size; the members' lists are joined.
        std::uint32_t big = a, small = b;
        if (size[big] < size[small]) std::swap(big, small);
        parent[small] = big;
        size[big] += size[small];
        next_member[last_member[big]] = small;
        last_member[big] = last_member[small];
        if (small == ocean) ocean = big;
        if (size[big] == basins) break;
    }
    // Root the tree at basin 0: each basin drains through the pair linking it to its parent.
    std::vector<std::uint32_t> degree(static_cast<std::size_t>(basins) + 1, 0);
    for (const Pair& e : tree) {
        ++degree[basin[e.p] + 1];
        ++degree[basin[e.q] + 1];
    }
    for (std::uint32_t b = 0; b < basins; ++b)
        degree[b + 1] += degree[b];
    std::vector<std::uint32_t> links(2 * tree.size());
    {
        std::vector<std::uint32_t> fill(degree.begin(), degree.end() - 1);
        for (std::uint32_t i = 0; i < tree.size(); ++i) {
            links[fill[basin[tree[i].p]]++] = i;
            links[fill[basin[tree[i].q]]++] = i;
        }
    }
    std::vector<std::uint32_t> outlet_from(basins, kNone), outlet_into(basins, kNone);
    std::vector<std::uint8_t> reached(basins, 0);
    std::vector<std::uint32_t> queue{0};
    reached[0] = 1;
    for (std::size_t k = 0; k < queue.size(); ++k) {
        const std::uint32_t b = queue[k];
        for (std::uint32_t j = degree[b]; j < degree[b + 1]; ++j) {
            const Pair& e = tree[links[j]];
            const bool p_here = basin[e.p] == b;
            const std::uint32_t inner = p_here ? e.p : e.q, outer = p_here ? e.q : e.p;
            const std::uint32_t child = basin[outer];
            if (reached[child]) continue;
            reached[child] = 1;
            outlet_from[child] = outer; // the child's cell drains into this basin's
            outlet_into[child] = inner;
            queue.push_back(child);
        }
    }

    // 4. Breaching: reverse each pit basin's descent path from its outlet cell to its pit.
    auto towards = [&](std::uint32_t from, std::uint32_t to) -> std::uint8_t {
        const std::int64_t d = static_cast<std::int64_t>(to) - from;
        return d == -static_cast<std::int64_t>(w) ? drain_north
               : d == -1                          ? drain_west
               : d == 1                           ? drain_east
                                                  : drain_south;
    };
    for (std::uint32_t b = 1; b < basins; ++b) {
        std::uint32_t prev = outlet_into[b], cur = outlet_from[b];
        for (;;) {
            const std::uint8_t d = down[cur];
            down[cur] = towards(cur, prev);
            if (d == kPit) break;
            prev = cur;
            cur = static_cast<std::uint32_t>(static_cast<std::int64_t>(cur) + offset[d]);
        }
    }

    std::uint16_t* filled = f.filled.cells().data();
    for (std::size_t c = 0; c < n; ++c)
        filled[c] = std::max(lv[c], water[basin[c]]);
    f.level = std::move(level);
    f.basin = std::move(basin_grid);
    f.basins = basins;
    return f;
}

} // namespace tilegen::test
