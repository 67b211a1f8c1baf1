// LeastMoveCosts and CostPotential (cost_potential.hpp) against plain references: the least move
// cost of each square by a scan of its cells, and the least cost to the set by a textbook Dijkstra
// run backwards from the set over every move route_move allows, on random grids with water
// (bridges) and blocked cells.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "core/hash.hpp"
#include "core/roads/cost_potential.hpp"
#include "core/roads/roads.hpp"
#include "core/roads/route.hpp"

using namespace tilegen;

namespace {

constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

// A random grid: water (spannable) about 2 in 10 cells, blocked 1 in 10, the rest 16..16+spread.
CostGrid random_grid(std::uint64_t seed, int w, int h, int spread) {
    CostGrid g;
    g.reset(w, h);
    g.max_bridge = static_cast<int>(seed % 4);
    g.bridge_cost = static_cast<std::uint32_t>(6 + seed % 30);
    for (int i = 0; i < w * h; ++i) {
        const std::uint64_t r = hash_values(seed, i, 21);
        const int kind = static_cast<int>(r % 10);
        g.span(i) = kind < 2 && g.max_bridge > 0 ? kSpanWater : 0;
        g.cost(i) =
            kind == 2 || kind < 2 ? kBlocked : static_cast<std::uint16_t>(16 + (r >> 8) % spread);
    }
    return g;
}

// Every move from cell c (route_move's steps and bridge jumps onto open land), with its cost
// forward (the cell entered and the spans) and backward (the cell left and the spans).
struct Move {
    std::uint32_t to;
    std::uint64_t forward, backward;
};
std::vector<Move> moves_from(const CostGrid& g, std::uint32_t c) {
    std::vector<Move> out;
    if (g.span(c) || g.cost(c) == kBlocked) return out;
    const int x = static_cast<int>(c) % g.width, y = static_cast<int>(c) / g.width;
    for (int dir = 0; dir < 4; ++dir) {
        const auto m = route_move(g, x, y, dir, false);
        if (!m || g.cost(m->cell) == kBlocked) continue;
        const std::uint64_t spans = static_cast<std::uint64_t>(m->bridged) * g.bridge_cost;
        out.push_back({m->cell, spans + g.cost(m->cell), spans + g.cost(c)});
    }
    return out;
}

// The least cost from every cell to the set (forward: each move costs what it enters), by a
// textbook Dijkstra over the reversed moves.
std::vector<std::uint64_t> least_cost_to(const CostGrid& g, const std::vector<std::uint32_t>& set,
                                         bool backward) {
    const std::size_t n = g.size();
    std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> into(n);
    for (std::uint32_t c = 0; c < n; ++c)
        for (const Move& m : moves_from(g, c))
            into[m.to].push_back({c, backward ? m.backward : m.forward});
    std::vector<std::uint64_t> d(n, kNone);
    std::set<std::pair<std::uint64_t, std::uint32_t>> open;
    for (const std::uint32_t s : set) {
        d[s] = 0;
        open.insert({0, s});
    }
    while (!open.empty()) {
        const auto [dist, c] = *open.begin();
        open.erase(open.begin());
        for (const auto& [from, cost] : into[c])
            if (dist + cost < d[from]) {
                open.erase({d[from], from});
                d[from] = dist + cost;
                open.insert({d[from], from});
            }
    }
    return d;
}

// The set: a few scattered open cells and a run along a row; with `above` > 0, only the run, in a
// row above that one.
std::vector<std::uint32_t> random_set(CostGrid& g, std::uint64_t seed, int above = 0) {
    const int w = g.width, h = g.height;
    std::vector<std::uint32_t> set;
    for (int i = 0; i < (above > 0 ? 0 : 1 + static_cast<int>(seed % 3)); ++i)
        set.push_back(static_cast<std::uint32_t>(hash_values(seed, i, 22) % g.size()));
    const int row = static_cast<int>(hash_values(seed, 23) % (above > 0 ? above : h));
    for (int x = w / 3; x < w / 2; ++x)
        set.push_back(static_cast<std::uint32_t>(row * w + x));
    for (const std::uint32_t c : set) { // enterable land
        g.span(c) = 0;
        if (g.cost(c) == kBlocked) g.cost(c) = 16;
    }
    return set;
}

} // namespace

TEST_CASE("LeastMoveCosts: each closed square's least move cost less one, against a plain scan, "
          "and lower() as a scan of the lowered grid") {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const int w = 1 + static_cast<int>(seed * 7 % 45), h = 1 + static_cast<int>(seed * 5 % 38);
        CostGrid g = random_grid(seed, w, h, 1 + static_cast<int>(seed % 60));
        const auto check = [&](const LeastMoveCosts& least) {
            constexpr int s = LeastMoveCosts::kSpacing;
            REQUIRE(least.squares_x() == (w + s - 1) / s);
            REQUIRE(least.squares_y() == (h + s - 1) / s);
            int wrong = 0;
            std::uint32_t dearest = 0;
            for (int j = 0; j < least.squares_y(); ++j)
                for (int i = 0; i < least.squares_x(); ++i) {
                    std::uint32_t m = LeastMoveCosts::kNoMove;
                    for (int y = j * s; y <= std::min(h - 1, j * s + s); ++y)
                        for (int x = i * s; x <= std::min(w - 1, i * s + s); ++x) {
                            const std::size_t c = static_cast<std::size_t>(y) * w + x;
                            if (g.cost(c) != kBlocked)
                                m = std::min<std::uint32_t>(m, g.cost(c) - 1);
                            else if (g.span(c) & kSpanWater)
                                m = std::min(m, g.bridge_cost - 1);
                        }
                    wrong += least.at(i, j) != m ? 1 : 0;
                    if (m != LeastMoveCosts::kNoMove) dearest = std::max(dearest, m);
                }
            CHECK(wrong == 0);
            CHECK(least.dearest_edge() == dearest);
        };
        LeastMoveCosts least(g);
        check(least);
        // Lower a few cells (a road discounted): lower() gives what a scan of the new grid gives.
        for (int k = 0; k < 12; ++k) {
            const auto c = static_cast<std::uint32_t>(hash_values(seed, k, 24) % g.size());
            if (g.cost(c) == kBlocked) continue;
            g.cost(c) =
                std::min(g.cost(c), static_cast<std::uint16_t>(1 + hash_values(seed, k, 25) % 20));
            least.lower(static_cast<int>(c) % w, static_cast<int>(c) / w, g.cost(c));
        }
        const std::uint32_t dearest_before = least.dearest_edge();
        const LeastMoveCosts rescanned(g);
        for (int j = 0; j < least.squares_y(); ++j)
            for (int i = 0; i < least.squares_x(); ++i)
                CHECK(least.at(i, j) == rescanned.at(i, j));
        CHECK(dearest_before >= rescanned.dearest_edge()); // still no edge dearer
    }
}

TEST_CASE("CostPotential: 0 on the set, changes by less than each move's cost (so by at most the "
          "roads' weight times it once weighted), never above the least cost to the set, and far "
          "only where the set cannot be reached") {
    std::uint64_t far_cells = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const int w = 3 + static_cast<int>(seed * 11 % 70), h = 2 + static_cast<int>(seed * 7 % 50);
        CostGrid g = random_grid(seed, w, h, seed % 3 == 0 ? 1 : 60);
        // Every third grid of 30 rows or more: a wall of 10 blocked rows below the set.
        const bool wall = seed % 3 == 1 && h >= 30;
        const std::vector<std::uint32_t> set = random_set(g, seed, wall ? h / 2 - 5 : 0);
        if (wall)
            for (int y = h / 2 - 5; y < h / 2 + 5; ++y)
                for (int x = 0; x < w; ++x) {
                    g.cost(static_cast<std::size_t>(y) * w + x) = kBlocked;
                    g.span(static_cast<std::size_t>(y) * w + x) = 0;
                }
        const LeastMoveCosts least(g);
        const CostPotential potential(least, set);
        const std::vector<std::uint64_t> forward = least_cost_to(g, set, false);
        const std::vector<std::uint64_t> backward = least_cost_to(g, set, true);
        const auto at = [&](std::uint32_t c) {
            return potential.at(static_cast<int>(c) % w, static_cast<int>(c) / w);
        };
        const auto weighted = [](std::uint64_t v) { return kRoadWeight.per_cell(v); };
        int failures = 0;
        std::uint64_t positive = 0, far = 0;
        for (const std::uint32_t c : set)
            failures += at(c) != 0 ? 1 : 0;
        for (std::uint32_t c = 0; c < g.size(); ++c) {
            if (g.span(c) || g.cost(c) == kBlocked) continue;
            const std::uint64_t p = at(c);
            // Far only where no sequence of moves reaches the set (a cell walled in within its
            // square may be unreachable and still have a bound).
            failures += p == CostPotential::kFar && forward[c] != kNone ? 1 : 0;
            far += p == CostPotential::kFar ? 1 : 0;
            if (p == CostPotential::kFar) continue;
            failures += p > forward[c] || p > backward[c] ? 1 : 0;
            positive += p > 0 ? 1 : 0;
            for (const Move& m : moves_from(g, c)) {
                const std::uint64_t q = at(m.to);
                REQUIRE(q != CostPotential::kFar); // linked through the moves
                const std::uint64_t cost = std::min(m.forward, m.backward);
                failures += p > q && p - q >= cost ? 1 : 0;
                // Weighted: floor(13 p / 10) - floor(13 q / 10) <= 13 cost / 10.
                failures +=
                    weighted(p) > weighted(q) &&
                            (weighted(p) - weighted(q)) * kRoadWeight.den > cost * kRoadWeight.num
                        ? 1
                        : 0;
            }
        }
        CHECK(failures == 0);
        if (w * h > 400) CHECK(positive > 0); // the bound is used, not 0 everywhere
        far_cells += far;
    }
    CHECK(far_cells > 0); // some cells are walled off from the set, and known to be
}

TEST_CASE("CostPotential: settled only as far as the starts need, still a consistent lower bound, "
          "and the same wherever the whole lattice's value is below twice the starts' least") {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const int w = 20 + static_cast<int>(seed * 13 % 140),
                  h = 20 + static_cast<int>(seed * 3 % 90);
        CostGrid g = random_grid(seed, w, h, 40);
        const std::vector<std::uint32_t> set = random_set(g, seed);
        std::vector<std::uint32_t> starts;
        for (int i = 0; i < 1 + static_cast<int>(seed % 3); ++i) {
            const auto c = static_cast<std::uint32_t>(hash_values(seed, i, 26) % g.size());
            g.span(c) = 0;
            if (g.cost(c) == kBlocked) g.cost(c) = 16;
            starts.push_back(c);
        }
        const LeastMoveCosts least(g);
        const CostPotential whole(least, set), capped(least, set, starts);
        // d0: the least sum at a corner of a start's square (the cap is twice it and more).
        constexpr int s = CostPotential::kSpacing;
        std::uint64_t d0 = kNone;
        for (const std::uint32_t c : starts) {
            const int i = static_cast<int>(c) % w / s, j = static_cast<int>(c) / w / s;
            for (const auto& [di, dj] : {std::pair{0, 0}, {1, 0}, {0, 1}, {1, 1}})
                d0 = std::min<std::uint64_t>(d0, whole.point(i + di, j + dj));
        }
        int failures = 0, same = 0;
        for (int j = 0; j < least.rows(); ++j)
            for (int i = 0; i < least.cols(); ++i) {
                const std::uint64_t a = whole.point(i, j), b = capped.point(i, j);
                failures += b > a ? 1 : 0;
                if (a <= 2 * d0) {
                    failures += b != a ? 1 : 0;
                    ++same;
                }
            }
        for (std::uint32_t c = 0; c < g.size(); ++c) {
            if (g.span(c) || g.cost(c) == kBlocked) continue;
            const std::uint64_t p = capped.at(static_cast<int>(c) % w, static_cast<int>(c) / w);
            if (p == CostPotential::kFar) continue;
            for (const Move& m : moves_from(g, c)) {
                const std::uint64_t q =
                    capped.at(static_cast<int>(m.to) % w, static_cast<int>(m.to) / w);
                failures +=
                    q != CostPotential::kFar && p > q && p - q >= std::min(m.forward, m.backward)
                        ? 1
                        : 0;
            }
        }
        CHECK(failures == 0);
        CHECK(same > 0);
    }
}

TEST_CASE("route_back by a CostPotential on the dearest costs: the ends' bounds far apart do not "
          "size the bucket ring by their spread, and the route is still within the weight") {
    // Every cell costs 65 534 (the most a cost can be): the potentials of an end beside the network
    // and one at the far corner differ by about 550 cells' worth, 36 million units, which the ring
    // would have to hold.
    const int w = 300, h = 300;
    CostGrid g;
    g.reset(w, h);
    g.max_bridge = 0;
    for (std::size_t i = 0; i < g.size(); ++i)
        g.cost(i) = 65534;
    std::vector<std::uint8_t> network(g.size(), 0), is_end(g.size(), 0);
    std::vector<std::uint32_t> network_cells, ends = {0, static_cast<std::uint32_t>(w * h - 1)};
    for (int x = 10; x < 30; ++x) { // a short road near the first corner
        const auto c = static_cast<std::uint32_t>(10 * w + x);
        network_cells.push_back(c);
        network[c] = 1;
    }
    for (const std::uint32_t e : ends)
        is_end[e] = 1;
    const LeastMoveCosts least(g);
    const CostPotential toward(least, network_cells); // whole: the far end's bound not capped
    Router router;
    const Route r = router.route_back(g, ends, network, toward, kRoadWeight, 1);
    REQUIRE(r.found);
    const std::vector<std::uint64_t> to_network = least_cost_to(g, network_cells, false);
    const std::uint64_t best = std::min(to_network[ends[0]], to_network[ends[1]]);
    CHECK(r.cost >= best);
    CHECK(r.cost * kRoadWeight.den <= best * kRoadWeight.num);
    CHECK(router.queue().buckets() <= (std::size_t{1} << 23)); // 2^26 without the ceiling
}
