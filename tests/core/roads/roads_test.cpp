// Roads, places and reachability against plain references: a textbook Dijkstra over an explicit
// edge list (steps and bridge jumps enumerated cell by cell), and recounts of the invariants the
// headers state, over random class grids.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include "core/hash.hpp"
#include "core/places/places.hpp"
#include "core/quality/reachability.hpp"
#include "core/roads/cost_potential.hpp"
#include "core/roads/roads.hpp"
#include "core/roads/route.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

// Textbook Dijkstra: std::set of (distance, cell); edges listed from the rules in route.hpp.
std::uint64_t reference_cost(const CostGrid& g, const std::vector<std::uint32_t>& sources,
                             const std::vector<std::uint8_t>& target) {
    const int w = g.width, h = g.height;
    const std::uint64_t inf = std::numeric_limits<std::uint64_t>::max();
    std::vector<std::uint64_t> d(static_cast<std::size_t>(w) * h, inf);
    std::set<std::pair<std::uint64_t, std::uint32_t>> open;
    for (auto s : sources) {
        d[s] = 0;
        open.insert({0, s});
    }
    while (!open.empty()) {
        auto [dist, c] = *open.begin();
        open.erase(open.begin());
        if (target[c]) return dist;
        const int x = static_cast<int>(c) % w, y = static_cast<int>(c) / w;
        const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; ++k) {
            // steps
            int nx = x + dx[k], ny = y + dy[k];
            if (nx >= 0 && ny >= 0 && nx < w && ny < h) {
                const std::uint32_t nc = ny * w + nx;
                if (!g.span(nc) && g.cost(nc) != kBlocked && dist + g.cost(nc) < d[nc]) {
                    open.erase({d[nc], nc});
                    d[nc] = dist + g.cost(nc);
                    open.insert({d[nc], nc});
                }
            }
            // jumps over 1..max_bridge water cells, from land only
            if (g.span(c)) continue;
            for (int len = 1; len <= g.max_bridge; ++len) {
                bool water = true;
                for (int i = 1; i <= len; ++i) {
                    const int wx = x + dx[k] * i, wy = y + dy[k] * i;
                    if (wx < 0 || wy < 0 || wx >= w || wy >= h || !g.span(wy * w + wx))
                        water = false;
                }
                const int lx = x + dx[k] * (len + 1), ly = y + dy[k] * (len + 1);
                if (!water || lx < 0 || ly < 0 || lx >= w || ly >= h) continue;
                const std::uint32_t lc = ly * w + lx;
                if (g.span(lc) || g.cost(lc) == kBlocked) continue;
                const std::uint64_t nd = dist + len * g.bridge_cost + g.cost(lc);
                if (nd < d[lc]) {
                    open.erase({d[lc], lc});
                    d[lc] = nd;
                    open.insert({nd, lc});
                }
            }
        }
    }
    return inf;
}

using test::blobby_classes;

// [constraints] walkable_regions = 1 with min_region = 12 and the policy.
ConstraintSettings one_region(ReachPolicy policy) {
    ConstraintSettings cs;
    cs.walkable_regions = 1;
    cs.min_region = 12;
    cs.policy = policy;
    return cs;
}

} // namespace

namespace {

// A route's cost recounted from its cells (the cells entered after the first: a bridged cell
// costs bridge_cost, any other its own cost), checking each move: 4-neighbours, bridged cells
// spannable and at most max_bridge in a row, the others open land.
std::uint64_t recounted_cost(const CostGrid& g, const Route& r) {
    const int w = g.width;
    std::uint64_t cost = 0;
    int span = 0;
    for (std::size_t i = 1; i < r.cells.size(); ++i) {
        const int ax = static_cast<int>(r.cells[i - 1]) % w,
                  ay = static_cast<int>(r.cells[i - 1]) / w;
        const int bx = static_cast<int>(r.cells[i]) % w, by = static_cast<int>(r.cells[i]) / w;
        CHECK(std::abs(ax - bx) + std::abs(ay - by) == 1); // 4-connected
        if (r.bridged[i]) {
            CHECK(g.span(r.cells[i]) == 1);
            cost += g.bridge_cost;
            CHECK(++span <= g.max_bridge);
        } else {
            CHECK(g.span(r.cells[i]) == 0);
            CHECK(g.cost(r.cells[i]) != kBlocked);
            cost += g.cost(r.cells[i]);
            span = 0;
        }
    }
    return cost;
}

// Runs the route cases below with `weight`: exact least cost when it is 1, else a cost between the
// least and weight times it (weighted A* with a consistent heuristic, route.hpp). Cell costs are
// least_cost .. least_cost + 49 (16: a recipe cost of 1, where the weight changes the keys).
int check_routes(RouteWeight weight, std::uint16_t least_cost) {
    int dearer = 0; // cases whose cost is above the least
    const bool exact = weight.num == weight.den;
    Router router; // one router: its stamped buffers are reused between calls and sizes
    for (std::uint64_t seed = 1; seed <= 120; ++seed) {
        const int w = 24 + static_cast<int>(seed % 7) * 6, h = 17 + static_cast<int>(seed % 5) * 5;
        CostGrid g;
        g.width = w;
        g.height = h;
        g.max_bridge = static_cast<int>(seed % 5);
        g.bridge_cost = static_cast<std::uint32_t>(1 + seed % 40);
        g.reset(w, h);
        for (int i = 0; i < w * h; ++i) {
            const std::uint64_t r = hash_values(seed, i);
            const int kind = static_cast<int>(r % 10);
            g.span(i) = kind < 3 ? 1 : 0;
            g.cost(i) =
                kind == 3 ? kBlocked : static_cast<std::uint16_t>(least_cost + (r >> 8) % 50);
        }
        std::vector<std::uint32_t> sources = {static_cast<std::uint32_t>(seed % (w * h))};
        g.span(sources[0]) = 0;
        std::vector<std::uint8_t> target(w * h, 0);
        const std::uint32_t t = static_cast<std::uint32_t>((seed * 7919) % (w * h));
        target[t] = 1;
        // Half the cases A* towards boxes around the targets (one around the target, one
        // elsewhere), a quarter A* by the targets' CostPotential, the rest Dijkstra; a second
        // target makes the boxes two.
        std::vector<Router::Box> boxes;
        if (seed % 2 == 0 || seed % 4 == 1) {
            const int tx = static_cast<int>(t) % w, ty = static_cast<int>(t) / w;
            boxes.push_back({tx, ty, tx + 1, ty + 1});
            const std::uint32_t t2 = static_cast<std::uint32_t>((seed * 104729) % (w * h));
            target[t2] = 1;
            boxes.push_back({static_cast<int>(t2) % w, static_cast<int>(t2) / w,
                             static_cast<int>(t2) % w + 1, static_cast<int>(t2) / w + 1});
        }
        Route r;
        if (seed % 4 == 1) {
            std::vector<std::uint32_t> targets;
            for (int i = 0; i < w * h; ++i)
                if (target[i]) targets.push_back(static_cast<std::uint32_t>(i));
            const LeastMoveCosts least(g);
            r = router.route(g, sources, target, CostPotential(least, targets, sources), weight);
            boxes.clear();
        } else {
            r = router.route(g, sources, target, boxes, weight);
        }
        const std::uint64_t ref = reference_cost(g, sources, target);
        CHECK(r.found == (ref != std::numeric_limits<std::uint64_t>::max()));
        if (!r.found) continue;
        if (exact) CHECK(r.cost == ref);
        CHECK(r.cost >= ref);
        dearer += r.cost > ref ? 1 : 0;
        CHECK(r.cost * weight.den <= ref * weight.num);
        CHECK(r.cells.front() == sources[0]);
        CHECK(target[r.cells.back()] == 1);
        if (boxes.empty() && seed % 4 != 1) CHECK(r.cells.back() == t);
        CHECK(recounted_cost(g, r) == r.cost);
    }
    return dearer;
}

} // namespace

TEST_CASE("route: exact least cost and valid moves, against a textbook Dijkstra") {
    CHECK(check_routes({}, 1) == 0);
    CHECK(check_routes({}, 16) == 0);
}

TEST_CASE("route: weighted A* (the roads' weight, and 2) within its bound of the textbook "
          "Dijkstra's least cost, valid moves") {
    check_routes(kRoadWeight, 16);            // as often as not the least on these grids
    const int two = check_routes({2, 1}, 16); // keys fall further below the current one
    CHECK(two > 0); // the weight is used (a weight 3 times the stated one fails the bounds)
}

namespace {

// route_back's cases: a random grid, a network (a few scattered cells and a straight run of open
// cells) and 1-3 ends; the route must be one route() could give from the network to the ends:
// network cell first, an end last, valid moves, its cost the cells entered after the first, between
// the textbook Dijkstra's least cost from the network and weight times it. Returns how many cases
// cost more than the least.
int check_back_routes(RouteWeight weight) {
    int dearer = 0;
    const bool exact = weight.num == weight.den;
    Router router;
    for (std::uint64_t seed = 1; seed <= 120; ++seed) {
        // Up to 140 x 99 cells: routes long enough for the potential's lattice (8 cells) to
        // steer the search.
        const int w = 20 + static_cast<int>(seed % 9) * 15,
                  h = 15 + static_cast<int>(seed % 4) * 28;
        const int n = w * h;
        CostGrid g;
        g.max_bridge = static_cast<int>(seed % 4);
        g.bridge_cost = static_cast<std::uint32_t>(8 + seed % 30);
        g.reset(w, h);
        for (int i = 0; i < n; ++i) {
            const std::uint64_t r = hash_values(seed, i, 11);
            const int kind = static_cast<int>(r % 10);
            g.span(i) = kind < 2 ? 1 : 0;
            g.cost(i) = kind == 2 ? kBlocked : static_cast<std::uint16_t>(16 + (r >> 8) % 40);
        }
        std::vector<std::uint8_t> network(n, 0), is_end(n, 0);
        std::vector<std::uint32_t> network_cells, ends;
        const auto open_up = [&](std::uint32_t c) { // network and end cells: land, enterable
            g.span(c) = 0;
            if (g.cost(c) == kBlocked) g.cost(c) = 16;
        };
        for (int i = 0; i < 1 + static_cast<int>(seed % 4); ++i)
            network_cells.push_back(static_cast<std::uint32_t>(hash_values(seed, i, 12) % n));
        const int row = static_cast<int>(hash_values(seed, 13) % h);
        for (int x = w / 4; x < w / 2; ++x) // a road's straight run
            network_cells.push_back(static_cast<std::uint32_t>(row * w + x));
        for (const std::uint32_t c : network_cells) {
            open_up(c);
            network[c] = 2; // the bit route_back is given
        }
        for (int i = 0; i < 1 + static_cast<int>(seed % 3); ++i) {
            const auto c = static_cast<std::uint32_t>(hash_values(seed, i, 14) % n);
            if (network[c]) continue;
            open_up(c);
            is_end[c] = 1;
            ends.push_back(c);
        }
        if (ends.empty()) continue;
        std::sort(ends.begin(), ends.end());
        // The potential settled only as far as the ends need (every other seed), or whole.
        const LeastMoveCosts least(g);
        const CostPotential toward(least, network_cells,
                                   seed % 2 ? std::span<const std::uint32_t>(ends)
                                            : std::span<const std::uint32_t>());
        const Route r = router.route_back(g, ends, network, toward, weight, 2);
        const std::uint64_t ref = reference_cost(g, network_cells, is_end);
        REQUIRE(r.found == (ref != std::numeric_limits<std::uint64_t>::max()));
        if (!r.found) continue;
        if (exact) CHECK(r.cost == ref);
        CHECK(r.cost >= ref);
        CHECK(r.cost * weight.den <= ref * weight.num);
        dearer += r.cost > ref ? 1 : 0;
        CHECK(network[r.cells.front()] == 2);
        CHECK(is_end[r.cells.back()] == 1);
        CHECK(recounted_cost(g, r) == r.cost);
    }
    return dearer;
}

} // namespace

TEST_CASE("route_back: from the ends towards a network, the route route() would give from the "
          "network (exact, and within the roads' weight), against a textbook Dijkstra") {
    CHECK(check_back_routes({}) == 0);
    check_back_routes(kRoadWeight);
    CHECK(check_back_routes({3, 1}) > 0); // the weight is used (keys fall below the current one)
}

TEST_CASE("places: on their classes, apart, flat, facing, deterministic") {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const ClassGrid g = blobby_classes(64, 48, seed, 4);
        Grid<float> heights(64, 48);
        for (int y = 0; y < 48; ++y)
            for (int x = 0; x < 64; ++x)
                heights(x, y) = static_cast<float>(g(x, y)) * 0.01f;
        std::vector<PlaceRule> rules(3);
        rules[0].name = "town";
        rules[0].on = 0b0010;
        rules[0].footprint_w = 2;
        rules[0].footprint_h = 2;
        rules[0].count = 4;
        rules[0].min_distance = 10;
        rules[0].near = 0b0001;
        rules[0].near_distance = 3;
        rules[1].name = "cave";
        rules[1].on = 0b1000;
        rules[1].face = 0b0010;
        rules[1].min_distance = 6;
        rules[2].name = "start";
        rules[2].on = 0b0110;
        rules[2].start = true;
        rules[2].flat = 0.5;
        const PlacesResult res = place_places(g, heights, rules, seed);
        CHECK(res == place_places(g, heights, rules, seed));
        const Grid<float> slope = slope_of(heights);
        for (int threads : {2, 3}) { // bands of bucket rows on threads: the same places
            CHECK(slope_of(heights, threads) == slope);
            CHECK(res == place_places(g, heights, rules, seed, nullptr, threads));
        }
        for (std::size_t i = 0; i < res.places.size(); ++i) {
            const Place& p = res.places[i];
            const PlaceRule& r = rules[p.rule];
            bool near = !r.near;
            for (int y = p.y; y < p.y + p.h; ++y)
                for (int x = p.x; x < p.x + p.w; ++x) {
                    REQUIRE(g.contains(x, y));
                    CHECK((r.on >> g(x, y) & 1u) == 1u);
                    if (r.flat > 0) CHECK(slope(x, y) <= r.flat);
                    for (int yy = 0; yy < 48; ++yy)
                        for (int xx = 0; xx < 64; ++xx)
                            if ((r.near >> g(xx, yy) & 1u) &&
                                std::abs(xx - x) + std::abs(yy - y) <= r.near_distance)
                                near = true;
                }
            CHECK(near);
            if (r.face)
                for (int x = p.x; x < p.x + p.w; ++x) {
                    REQUIRE(g.contains(x, p.y + p.h));
                    CHECK((r.face >> g(x, p.y + p.h) & 1u) == 1u);
                }
            for (std::size_t j = 0; j < i; ++j) {
                const Place& q = res.places[j];
                const double d = std::hypot(p.x - q.x, p.y - q.y);
                CHECK(d >= r.min_distance);
            }
        }
        int total = 0;
        for (int k : res.placed)
            total += k;
        CHECK(total == static_cast<int>(res.places.size()));
    }
}

TEST_CASE("class_distance: capped 4-connected steps to a class, against a plain BFS, on 1-5 "
          "threads") {
    for (std::uint64_t seed = 1; seed <= 24; ++seed) {
        const int w = 3 + static_cast<int>(seed % 7) * 9, h = 2 + static_cast<int>(seed % 5) * 7;
        ClassGrid g = blobby_classes(w, h, seed, 6);
        const std::uint32_t mask = seed % 3 == 0 ? 0b100000u : 0b000101u; // rare or common
        if (seed % 8 == 0) g = ClassGrid(w, h, 1);                        // no class cell at all
        // Reference: a multi-source BFS over every cell.
        const std::size_t n = g.size();
        std::vector<int> dist(n, -1);
        std::vector<std::size_t> queue;
        for (std::size_t i = 0; i < n; ++i)
            if (mask >> g.cells()[i] & 1u) {
                dist[i] = 0;
                queue.push_back(i);
            }
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const std::size_t c = queue[q];
            const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
            for (int k = 0; k < 4; ++k) {
                const int nx = x + kRouteDx[k], ny = y + kRouteDy[k];
                if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                const std::size_t nb = static_cast<std::size_t>(ny) * w + nx;
                if (dist[nb] < 0) {
                    dist[nb] = dist[c] + 1;
                    queue.push_back(nb);
                }
            }
        }
        for (int cap : {0, 1, 3, 8, 40}) // up to more rows than a band holds
            for (int threads : {1, 2, 3, 5}) {
                CAPTURE(seed);
                CAPTURE(cap);
                CAPTURE(threads);
                const GridCells<std::uint16_t> d = class_distance(g, mask, cap, threads);
                REQUIRE(d.size() == n);
                int wrong = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    const int want = dist[i] < 0 || dist[i] > cap ? cap + 1 : dist[i];
                    wrong += d[i] != want ? 1 : 0;
                }
                CHECK(wrong == 0);
            }
    }
}

namespace {
struct RoadCase {
    ClassGrid classes;
    std::vector<bool> walkable{true, true, false, false, true, true};
    std::vector<PlaceRule> rules;
    RoadSettings roads;
    PlacesResult places;
};
// Classes: 0 grass, 1 forest, 2 water (bridgeable), 3 mountain (avoided), 4 road, 5 bridge.
RoadCase road_case(std::uint64_t seed, int towns = 5, int extra_links = 2, int width = 72,
                   int height = 56) {
    RoadCase rc;
    rc.classes = blobby_classes(width, height, seed, 4);
    rc.rules.resize(2);
    rc.rules[0].name = "start";
    rc.rules[0].on = 0b0001;
    rc.rules[0].start = true;
    rc.rules[1].name = "town";
    rc.rules[1].on = 0b0001;
    rc.rules[1].footprint_w = 2;
    rc.rules[1].count = towns;
    rc.rules[1].min_distance = 12;
    rc.places = place_places(rc.classes, {}, rc.rules, seed);
    rc.roads.road_class = 4;
    rc.roads.bridge_class = 5;
    rc.roads.avoid = 0b1000;
    rc.roads.bridge_over = 0b0100;
    rc.roads.costs = {1, 3, -1, -1, 1, 1};
    rc.roads.max_bridge = 3;
    rc.roads.extra_links = extra_links;
    return rc;
}
} // namespace

namespace {

// The loops as build_roads made them before it patched one grid per road cell: per loop a fresh
// road_cost_grid with the road cells so far discounted and their bridges blocked (roads.hpp).
std::vector<Road> loops_on_fresh_grids(const RoadCase& rc, const RoadsResult& res,
                                       std::uint64_t seed) {
    const int w = rc.classes.width();
    const std::vector<Place>& places = rc.places.places;
    std::vector<std::uint8_t> road(rc.classes.size(), 0), bridge(rc.classes.size(), 0);
    std::set<std::pair<int, int>> edges;
    std::vector<int> order;
    for (int i = 0; i < static_cast<int>(places.size()); ++i)
        if (std::find(res.unreached.begin(), res.unreached.end(), i) == res.unreached.end())
            order.push_back(i);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const std::uint64_t ha = hash_values(seed, 0x6c6f6f70ull, a);
        const std::uint64_t hb = hash_values(seed, 0x6c6f6f70ull, b);
        return ha != hb ? ha < hb : a < b;
    });
    const auto cells_of = [&](int pi, auto&& f) {
        const Place& p = places[pi];
        for (int y = p.y; y < p.y + p.h; ++y)
            for (int x = p.x; x < p.x + p.w; ++x)
                f(static_cast<std::uint32_t>(y * w + x));
    };
    const auto mark = [&](const Road& r, std::size_t first, std::size_t end) {
        for (std::size_t i = first; i < end; ++i) {
            road[r.cells[i]] = 1;
            if (r.bridged[i]) bridge[r.cells[i]] = 1;
        }
    };
    const auto fp = place_mask(w, rc.classes.height(), places);
    // Tree road cells as build_roads marks them: all but footprints and the network cell each
    // starts on.
    for (const Road& r : res.roads)
        if (!r.loop) {
            edges.insert(
                {std::min(r.network_place, r.to_place), std::max(r.network_place, r.to_place)});
            for (std::size_t i = 1; i < r.cells.size(); ++i)
                if (!fp[r.cells[i]]) {
                    road[r.cells[i]] = 1;
                    if (r.bridged[i]) bridge[r.cells[i]] = 1;
                }
        }
    std::vector<Road> loops;
    Router router;
    int made = 0;
    if (order.size() < 3) return loops;
    for (int from : order) {
        if (made >= rc.roads.extra_links) break;
        // Its least move costs from the same pass, before the bridges are blocked (build_roads
        // lowers the tree grid's for each road cell it discounts: the same squares).
        LeastMoveCosts least;
        CostGrid g = road_cost_grid(rc.classes, {}, places, rc.roads, rc.walkable, road, 1, &least);
        for (std::size_t c = 0; c < g.size(); ++c)
            if (bridge[c]) {
                g.span(c) = 0;
                g.cost(c) = kBlocked;
            }
        std::vector<std::uint8_t> target(rc.classes.size(), 0);
        std::vector<std::uint32_t> targets;
        for (int m : order) {
            if (m == from) continue;
            const bool neighbour = edges.count({std::min(from, m), std::max(from, m)}) > 0;
            cells_of(m, [&](std::uint32_t c) {
                if (neighbour) {
                    g.cost(c) = kBlocked;
                } else {
                    target[c] = 1;
                    targets.push_back(c);
                }
            });
        }
        if (targets.empty()) continue;
        std::vector<std::uint32_t> start;
        cells_of(from, [&](std::uint32_t c) { start.push_back(c); });
        const Route r =
            router.route(g, start, target, CostPotential(least, targets, start), kRoadWeight);
        if (!r.found) continue;
        int reached = -1;
        for (int m : order) {
            const Place& p = places[m];
            const int x = static_cast<int>(r.cells.back()) % w;
            const int y = static_cast<int>(r.cells.back()) / w;
            if (x >= p.x && x < p.x + p.w && y >= p.y && y < p.y + p.h) reached = m;
        }
        edges.insert({std::min(from, reached), std::max(from, reached)});
        Road loop;
        loop.cells = r.cells;
        loop.bridged = r.bridged;
        loop.cost = r.cost;
        mark(loop, 1, loop.cells.size() - 1);
        loops.push_back(loop);
        ++made;
    }
    return loops;
}

} // namespace

TEST_CASE("roads: a least-cost network touching every place, bridges over water only") {
    int bridges = 0, loops = 0;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        // Few towns and many links in a third of the cases: places whose every other place is a
        // neighbour in the tree (no loop from them) come before others.
        RoadCase rc =
            seed % 3 == 0 ? road_case(seed, 2 + static_cast<int>(seed % 2), 8) : road_case(seed);
        Router router;
        const RoadsResult res = build_roads(rc.classes, {}, rc.places.places, rc.rules, rc.roads,
                                            rc.walkable, seed, router);
        std::vector<Road> made_loops;
        for (const Road& road : res.roads)
            if (road.loop) made_loops.push_back(road);
        const std::vector<Road> fresh = loops_on_fresh_grids(rc, res, seed);
        CHECK(made_loops.size() == fresh.size());
        for (std::size_t i = 0; i < std::min(made_loops.size(), fresh.size()); ++i) {
            CHECK(made_loops[i].cells == fresh[i].cells);
            CHECK(made_loops[i].cost == fresh[i].cost);
        }
        const int w = rc.classes.width();
        const auto fp = place_mask(w, rc.classes.height(), rc.places.places);
        std::vector<std::uint8_t> built(rc.classes.size(), 0), built_bridge(rc.classes.size(), 0);
        std::set<std::pair<int, int>> edges; // places joined by a road so far
        for (const Road& road : res.roads) {
            // Same cost grid as it was routed on: earlier road cells discounted for loops.
            CostGrid g = road_cost_grid(rc.classes, {}, rc.places.places, rc.roads, rc.walkable,
                                        road.loop ? built : std::vector<std::uint8_t>{});
            // What a road may not cross: earlier bridges, and places other than its two ends.
            for (std::size_t c = 0; c < g.size(); ++c)
                if (built_bridge[c]) {
                    g.span(c) = 0;
                    g.cost(c) = kBlocked;
                }
            for (const Place& p : rc.places.places) {
                const auto inside = [&](std::uint32_t c) {
                    const int x = c % w, y = c / w;
                    return x >= p.x && x < p.x + p.w && y >= p.y && y < p.y + p.h;
                };
                if (inside(road.cells.front()) || inside(road.cells.back())) continue;
                for (int y = p.y; y < p.y + p.h; ++y)
                    for (int x = p.x; x < p.x + p.w; ++x)
                        g.cost(y * w + x) = kBlocked;
            }
            if (road.loop) {
                // A loop reaches the cheapest place that is not yet its neighbour: from its
                // footprint to every other joined place's footprint, over a grid where the
                // neighbours' footprints are blocked and the others are targets.
                CostGrid lg =
                    road_cost_grid(rc.classes, {}, rc.places.places, rc.roads, rc.walkable, built);
                for (std::size_t c = 0; c < lg.size(); ++c)
                    if (built_bridge[c]) {
                        lg.span(c) = 0;
                        lg.cost(c) = kBlocked;
                    }
                std::vector<std::uint32_t> from;
                std::vector<std::uint8_t> targets(rc.classes.size(), 0);
                for (int pi = 0; pi < static_cast<int>(rc.places.places.size()); ++pi) {
                    if (std::find(res.unreached.begin(), res.unreached.end(), pi) !=
                        res.unreached.end())
                        continue;
                    const Place& p = rc.places.places[pi];
                    const bool neighbour =
                        edges.count({std::min(pi, road.from_place), std::max(pi, road.from_place)});
                    for (int y = p.y; y < p.y + p.h; ++y)
                        for (int x = p.x; x < p.x + p.w; ++x) {
                            const auto c = static_cast<std::uint32_t>(y * w + x);
                            if (pi == road.from_place)
                                from.push_back(c);
                            else if (neighbour)
                                lg.cost(c) = kBlocked;
                            else
                                targets[c] = 1;
                        }
                }
                // Within the roads' weight of the least cost to any of those places.
                const std::uint64_t least = reference_cost(lg, from, targets);
                CHECK(road.cost >= least);
                CHECK(road.cost * kRoadWeight.den <= least * kRoadWeight.num);
            }
            edges.insert({std::min(road.network_place, road.to_place),
                          std::max(road.network_place, road.to_place)});
            std::vector<std::uint8_t> target(rc.classes.size(), 0);
            target[road.cells.back()] = 1;
            const std::uint64_t ref = reference_cost(g, {road.cells.front()}, target);
            CHECK(static_cast<double>(road.cost) <= 1.3 * static_cast<double>(ref));
            // Within what roads.hpp guarantees: the road is a path of this grid (the loops' grid
            // is patched per road cell, not rebuilt: this rebuilds it) costing at most
            // kRoadWeight times the least between its ends.
            CHECK(road.cost >= ref);
            CHECK(road.cost * kRoadWeight.den <= ref * kRoadWeight.num);
            int span = 0;
            for (std::size_t i = 0; i < road.cells.size(); ++i) {
                const std::uint32_t c = road.cells[i];
                const ClassId k = rc.classes.cells()[c];
                CHECK(k != 3); // avoid
                if (road.bridged[i]) {
                    CHECK(k == 2);
                    ++span;
                    ++bridges;
                    CHECK(span <= rc.roads.max_bridge);
                } else {
                    if (span > 0) CHECK(k != 2); // land at the far end
                    span = 0;
                }
                if (i > 0 && i + 1 < road.cells.size()) CHECK(fp[c] == 0);
            }
            for (std::size_t i = 1; i + 1 < road.cells.size(); ++i) {
                built[road.cells[i]] = 1;
                if (road.bridged[i]) built_bridge[road.cells[i]] = 1;
            }
            loops += road.loop ? 1 : 0;
        }
        // Write and recount: one 4-connected network of road/bridge cells + footprints holding
        // every place.
        ClassGrid out = rc.classes;
        write_roads(out, res, rc.places.places, rc.roads);
        if (!res.unreached.empty()) continue;
        std::vector<std::uint8_t> net(out.size(), 0);
        for (std::size_t i = 0; i < out.size(); ++i)
            net[i] = out.cells()[i] == 4 || out.cells()[i] == 5 || fp[i];
        std::vector<std::uint32_t> queue;
        std::vector<std::uint8_t> seen(out.size(), 0);
        const Place& p0 = rc.places.places.front();
        queue.push_back(p0.y * w + p0.x);
        seen[queue[0]] = 1;
        for (std::size_t head = 0; head < queue.size(); ++head) {
            const std::uint32_t c = queue[head];
            const int x = c % w, y = c / w;
            const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
            for (int k = 0; k < 4; ++k)
                if (out.contains(x + dx[k], y + dy[k])) {
                    const std::uint32_t nc = (y + dy[k]) * w + x + dx[k];
                    if (net[nc] && !seen[nc]) {
                        seen[nc] = 1;
                        queue.push_back(nc);
                    }
                }
        }
        for (const Place& p : rc.places.places)
            CHECK(seen[p.y * w + p.x] == 1);
    }
    CHECK(bridges > 0);
    CHECK(loops > 0);
}

TEST_CASE("reachability: connect and fill leave one big walkable region holding the start") {
    for (std::uint64_t seed = 1; seed <= 30; ++seed)
        for (ReachPolicy policy : {ReachPolicy::connect, ReachPolicy::fill}) {
            RoadCase rc = road_case(seed);
            const ConstraintSettings cs = one_region(policy);
            ClassGrid g = rc.classes;
            Router router;
            const std::vector<std::uint32_t> start = {0};
            const std::vector<std::uint8_t> protect;
            const ReachReport rep =
                make_reachable(g, rc.walkable, start, cs, rc.roads, protect, router);
            for (int threads : {2, 3}) { // the passes on bands of rows: the same grid and report
                ClassGrid t = rc.classes;
                const ReachReport trep =
                    make_reachable(t, rc.walkable, start, cs, rc.roads, protect, router, threads);
                CHECK(t == g);
                CHECK(trep == rep); // every field
            }
            // Independent recount.
            const Regions regions = walkable_regions(g, rc.walkable);
            int big = 0;
            for (std::uint64_t s : regions.size)
                big += s >= 12 ? 1 : 0;
            if (!rep.met) continue;
            CHECK(big <= 1);
            CHECK(static_cast<std::uint64_t>(big) == rep.big_after);
            // Only water cells became bridges, only blockers were carved into road.
            for (std::size_t i = 0; i < g.size(); ++i) {
                if (g.cells()[i] == 5) CHECK(rc.classes.cells()[i] == 2);
                if (g.cells()[i] == 4) CHECK(rc.classes.cells()[i] != 3);
            }
        }
}

TEST_CASE("reachability: the fill turns whole regions but their protected cells, and before_search "
          "runs once, before the connect search") {
    for (std::uint64_t seed = 1; seed <= 30; ++seed)
        for (ReachPolicy policy : {ReachPolicy::connect, ReachPolicy::fill}) {
            RoadCase rc = road_case(seed);
            const ConstraintSettings cs = one_region(policy);
            std::vector<std::uint8_t> protect(rc.classes.size(), 0);
            for (std::size_t i = 0; i < protect.size(); ++i)
                protect[i] = hash_values(seed, i, 77) % 13 == 0 ? 1 : 0;
            const std::vector<std::uint32_t> start = {0};
            Router router;
            ClassGrid plain = rc.classes;
            const ReachReport rep =
                make_reachable(plain, rc.walkable, start, cs, rc.roads, protect, router);
            ClassGrid hooked = rc.classes;
            int calls = 0;
            const ReachReport hrep =
                make_reachable(hooked, rc.walkable, start, cs, rc.roads, protect, router, 2,
                               prepare_reachable(rc.classes, rc.walkable), [&] { ++calls; });
            CHECK(hooked == plain);
            CHECK(hrep == rep);
            // The search runs under connect once the main region is found (cell 0 walkable).
            const bool searched =
                policy == ReachPolicy::connect && rc.walkable[rc.classes.cells()[0]];
            CHECK(calls == (searched ? 1 : 0));
            if (policy != ReachPolicy::fill) continue;
            // Under fill only the fill changes cells: whole regions of the original grid (but
            // their protected cells, which keep their class), each to one blocker class.
            const Regions regions = walkable_regions(rc.classes, rc.walkable);
            std::vector<int> changed(regions.size.size(), 0), to(regions.size.size(), -1);
            std::uint64_t count = 0;
            for (std::size_t i = 0; i < plain.size(); ++i) {
                const ClassId before = rc.classes.cells()[i], after = plain.cells()[i];
                if (before == after) continue;
                REQUIRE(regions.label[i] >= 0); // only walkable cells change
                CHECK(protect[i] == 0);
                CHECK_FALSE(rc.walkable[after]);
                const auto r = static_cast<std::size_t>(regions.label[i]);
                changed[r] = 1;
                CHECK((to[r] < 0 || to[r] == after));
                to[r] = after;
                ++count;
            }
            CHECK(count == rep.filled);
            for (std::size_t i = 0; i < plain.size(); ++i) {
                const std::int32_t l = regions.label[i];
                if (l >= 0 && changed[static_cast<std::size_t>(l)] && !protect[i])
                    CHECK(plain.cells()[i] != rc.classes.cells()[i]);
            }
        }
}

TEST_CASE("walkable_regions: the labels and sizes of a plain flood fill from each region's first "
          "cell") {
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        const int w = 5 + static_cast<int>(seed % 13) * 3, h = 3 + static_cast<int>(seed % 7) * 4;
        const ClassGrid g = blobby_classes(w, h, seed, 3);
        const std::vector<bool> walkable = {true, false, seed % 2 == 0};
        const Regions r = walkable_regions(g, walkable);
        // Reference: row-major scan; a walkable unlabelled cell starts a flood fill.
        std::vector<std::int32_t> label(g.size(), -1);
        std::vector<std::uint64_t> size;
        for (std::size_t i = 0; i < g.size(); ++i) {
            if (label[i] >= 0 || !walkable[g.cells()[i]]) continue;
            const auto id = static_cast<std::int32_t>(size.size());
            size.push_back(0);
            std::vector<std::size_t> stack{i};
            label[i] = id;
            while (!stack.empty()) {
                const std::size_t c = stack.back();
                stack.pop_back();
                ++size.back();
                const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
                const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
                for (int k = 0; k < 4; ++k) {
                    const int nx = x + dx[k], ny = y + dy[k];
                    if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                    const std::size_t nb = static_cast<std::size_t>(ny) * w + nx;
                    if (label[nb] < 0 && walkable[g.cells()[nb]]) {
                        label[nb] = id;
                        stack.push_back(nb);
                    }
                }
            }
        }
        CHECK(std::vector<std::int32_t>(r.label.begin(), r.label.end()) == label);
        CHECK(r.size == size);
        for (int threads : {2, 3, 7}) { // bands joined across their seams: the same labels
            CAPTURE(threads);
            const Regions t = walkable_regions(g, walkable, threads);
            CHECK(std::vector<std::int32_t>(t.label.begin(), t.label.end()) == label);
            CHECK(t.size == size);
        }
    }
}

TEST_CASE("route: calls that reuse a grid (search_base advanced, and wrapped back to 0 near "
          "2^31) give the routes of a fresh grid") {
    // Each call leaves its costs so far in the cells and moves search_base past them; the next
    // call must read them all as unreached. Started near the limit, a call makes every cell
    // unreached again and search_base 0.
    const int w = 40, h = 30;
    CostGrid fresh;
    fresh.max_bridge = 3;
    fresh.bridge_cost = 24;
    fresh.reset(w, h);
    for (int i = 0; i < w * h; ++i) {
        const std::uint64_t r = hash_values(77, i);
        fresh.span(i) = r % 9 == 0 ? 1 : 0;
        fresh.cost(i) = r % 13 == 0 ? kBlocked : static_cast<std::uint16_t>(16 + (r >> 8) % 40);
    }
    for (const std::uint32_t start_base : {0u, 0x7FFFFF00u}) {
        CostGrid reused = fresh;
        reused.search_base = start_base;
        bool wrapped = false;
        Router router, fresh_router;
        for (std::uint64_t call = 0; call < 40; ++call) {
            const auto s = static_cast<std::uint32_t>(hash_values(call, 1) % (w * h));
            const auto t = static_cast<std::uint32_t>(hash_values(call, 2) % (w * h));
            std::vector<std::uint8_t> target(static_cast<std::size_t>(w) * h, 0);
            target[t] = 1;
            std::vector<Router::Box> boxes;
            if (call % 2 == 0)
                boxes.push_back({static_cast<int>(t) % w, static_cast<int>(t) / w,
                                 static_cast<int>(t) % w + 1, static_cast<int>(t) / w + 1});
            const RouteWeight weight = call % 3 == 0 ? kRoadWeight : RouteWeight{};
            const std::uint32_t base_before = reused.search_base;
            const Route a = router.route(reused, {s}, target, boxes, weight);
            CostGrid once = fresh;
            const Route b = fresh_router.route(once, {s}, target, boxes, weight);
            CHECK(a.found == b.found);
            CHECK(a.cost == b.cost);
            CHECK(a.cells == b.cells);
            CHECK(a.bridged == b.bridged);
            CHECK(reused.search_base < 0x80000000u);
            if (reused.search_base <= base_before) wrapped = true;
        }
        CHECK(wrapped == (start_base != 0));
    }
}

TEST_CASE("route: many sources far apart (a grown network) still give the least cost") {
    // The sources' heuristics differ by far more than the largest move: the queue must hold all
    // of them (a wrapped key came out too early and settled cells at costs above their least).
    Router router;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const int w = 160, h = 48;
        CostGrid g;
        g.width = w;
        g.height = h;
        g.max_bridge = static_cast<int>(seed % 3);
        g.bridge_cost = 20;
        g.reset(w, h);
        for (int i = 0; i < w * h; ++i) {
            const std::uint64_t r = hash_values(seed, i, 3);
            g.span(i) = r % 13 == 0 ? 1 : 0;
            g.cost(i) = (r % 11 == 0 ? kBlocked : static_cast<std::uint16_t>(16 + (r >> 8) % 9));
        }
        // A long diagonal line of sources (a road built before) and a target box at one end.
        std::vector<std::uint32_t> sources;
        for (int x = 4; x < w - 8; x += 3) {
            const auto c = static_cast<std::uint32_t>((4 + x * (h - 10) / w) * w + x);
            g.span(c) = 0;
            sources.push_back(c);
        }
        std::vector<std::uint8_t> target(static_cast<std::size_t>(w) * h, 0);
        const int tx = static_cast<int>(hash_values(seed, 9) % 20), ty = h - 3;
        target[static_cast<std::size_t>(ty) * w + tx] = 1;
        const Route r = router.route(g, sources, target, {{tx, ty, tx + 1, ty + 1}});
        const std::uint64_t ref = reference_cost(g, sources, target);
        CHECK(r.found == (ref != std::numeric_limits<std::uint64_t>::max()));
        if (r.found) CHECK(r.cost == ref);
    }
}

TEST_CASE(
    "for_each_covered_anchor: every block whose cells are all covered, against a plain scan") {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const int w = 13 + static_cast<int>(seed % 9), h = 7 + static_cast<int>(seed % 6);
        const int fw = 1 + static_cast<int>(seed % 4), fh = 1 + static_cast<int>(seed / 4 % 3);
        std::vector<std::uint8_t> on(static_cast<std::size_t>(w) * h);
        for (std::size_t i = 0; i < on.size(); ++i)
            on[i] = hash_values(seed, i) % 5 != 0 ? 1 : 0; // mostly covered: many blocks
        std::set<std::pair<int, int>> want, got;
        for (int y = 0; y + fh <= h; ++y)
            for (int x = 0; x + fw <= w; ++x) {
                bool all = true;
                for (int yy = y; yy < y + fh; ++yy)
                    for (int xx = x; xx < x + fw; ++xx)
                        all = all && on[static_cast<std::size_t>(yy) * w + xx];
                if (all) want.insert({x, y});
            }
        std::vector<std::uint16_t> rows;
        int calls = 0;
        for_each_covered_anchor(
            w, h, fw, fh, rows, [&](std::size_t c) { return on[c] != 0; },
            [&](int x, int y) {
                got.insert({x, y});
                ++calls;
            });
        CHECK(got == want);
        CHECK(calls == static_cast<int>(want.size())); // each anchor once
        // Bands of anchor rows, scanned apart, give the anchors of their rows and nothing else.
        std::set<std::pair<int, int>> banded;
        const int band = 1 + static_cast<int>(seed % 4);
        for (int y0 = 0; y0 < h; y0 += band)
            for_each_covered_anchor(
                w, h, fw, fh, y0, std::min(h, y0 + band), rows,
                [&](std::size_t c) { return on[c] != 0; },
                [&](int x, int y) {
                    CHECK(y >= y0);
                    CHECK(y < y0 + band);
                    CHECK(banded.insert({x, y}).second);
                });
        CHECK(banded == want);
    }
}

TEST_CASE("BoxDistance: the Manhattan distance to the nearest box, against a plain per-box "
          "case analysis") {
    // The plain form: left of, right of or over the box on each axis.
    const auto reference = [](int x, int y, const std::vector<RouteBox>& boxes) {
        int best = 0x7FFFFFFF;
        for (const RouteBox& b : boxes) {
            const int dx = x < b.x0 ? b.x0 - x : (x >= b.x1 ? x - b.x1 + 1 : 0);
            const int dy = y < b.y0 ? b.y0 - y : (y >= b.y1 ? y - b.y1 + 1 : 0);
            best = std::min(best, dx + dy);
        }
        return best;
    };
    CHECK(BoxDistance({})(3, 4) == 0x7FFFFFFF);
    for (std::uint64_t trial = 0; trial < 200; ++trial) {
        std::vector<RouteBox> boxes;
        const int count = 1 + static_cast<int>(hash_values(trial, 1) % 8);
        for (int i = 0; i < count; ++i) {
            const int x0 = static_cast<int>(hash_values(trial, i, 2) % 60);
            const int y0 = static_cast<int>(hash_values(trial, i, 3) % 60);
            boxes.push_back({x0, y0, x0 + 1 + static_cast<int>(hash_values(trial, i, 4) % 9),
                             y0 + 1 + static_cast<int>(hash_values(trial, i, 5) % 9)});
        }
        const BoxDistance distance(boxes);
        for (int y = -3; y < 72; y += 2)
            for (int x = -3; x < 72; ++x)
                REQUIRE(distance(x, y) == reference(x, y, boxes));
    }
    // Only the first 64 boxes count.
    std::vector<RouteBox> many(64, RouteBox{0, 0, 1, 1});
    many.push_back({50, 50, 51, 51});
    CHECK(BoxDistance(many)(50, 50) == 100);
}

TEST_CASE("cost_units: std::round(cost * 16) clamped to 1..65534, halves and bounds included") {
    const auto plain = [](double cost) {
        return static_cast<std::uint16_t>(std::clamp(std::round(cost * kCostScale), 1.0, 65534.0));
    };
    std::vector<double> costs = {0,       0.01,  1.0 / 32, 0.0625,   0.09375,      1,
                                 1.03125, 2.5,   4095.97,  4095.96,  4096,         5000,
                                 -3,      1e300, 0.5 / 16, 1.5 / 16, 65533.5 / 16, 65534.5 / 16};
    for (std::uint64_t i = 0; i < 20000; ++i) // halves (k + 0.5) / 16 and their neighbours
        costs.push_back(static_cast<double>(hash_values(i, 5) % 70000) / 16 +
                        (i % 3 == 0 ? 0.5 / 16 : static_cast<double>(hash_values(i) % 1000) / 1e6));
    for (double c : costs)
        CHECK(cost_units(c) == plain(c));
}

TEST_CASE("BucketQueue: least key first, last in first out within a key, keys below the current "
          "one and spans beyond the ring, against a plain ordered map of stacks") {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        BucketQueue q;
        const std::uint64_t first = hash_values(seed, 1) % 1000;
        q.reset(first, 1 + seed % 8); // a small ring: most cases grow it
        std::map<std::uint64_t, std::vector<std::uint32_t>> ref;
        std::size_t ref_size = 0;
        std::uint64_t last = first;
        for (int op = 0; op < 600; ++op) {
            const std::uint64_t r = hash_values(seed, op, 2);
            if (r % 3 != 0 || ref_size == 0) {
                // Around the last key popped: mostly above it, sometimes below (weighted A*),
                // sometimes far above (beyond the ring's span).
                const std::uint64_t spread = r % 17 == 0 ? 300 : 12;
                const std::uint64_t below =
                    (r >> 8) % 4 == 0 ? std::min<std::uint64_t>(last, 5) : 0;
                const std::uint64_t key = last - below + (r >> 16) % spread;
                const auto cell = static_cast<std::uint32_t>(op);
                q.push(key, cell);
                ref[key].push_back(cell);
                ++ref_size;
            } else {
                REQUIRE(!q.empty());
                auto it = ref.begin();
                const auto [key, cell] = q.pop();
                CHECK(key == it->first);
                CHECK(cell == it->second.back());
                // The hint names what the next pop gives when nothing is pushed before it.
                it->second.pop_back();
                if (it->second.empty()) ref.erase(it);
                --ref_size;
                if (ref_size > 0 && q.ahead(0) != 0xFFFFFFFFu)
                    CHECK(q.ahead(0) == ref.begin()->second.back());
                last = key;
            }
            CHECK(q.empty() == (ref_size == 0));
        }
    }
}

TEST_CASE("road_cost_grid: min_cost and max_cost are the least and dearest open cell's cost, "
          "against a plain scan") {
    // The grid's bounds come from its one building pass (footprints replace some cells after
    // it): varied costs so the cheapest or dearest cell is sometimes under a footprint, sometimes
    // a footprint itself, sometimes elsewhere.
    const double grass[] = {0.5, 1, 2}, forest[] = {0.25, 3, 1};
    for (std::uint64_t seed = 1; seed <= 36; ++seed) {
        // Sizes that are and are not multiples of the least move costs' squares (8 cells).
        const int sizes[][2] = {{72, 56}, {67, 45}, {41, 73}, {9, 17}};
        RoadCase rc = road_case(seed, 5, 2, sizes[seed % 4][0], sizes[seed % 4][1]);
        rc.roads.costs[0] = grass[seed % 3];
        rc.roads.costs[1] = forest[seed / 3 % 3];
        if (seed % 3 == 0) { // the footprints' grass between the cheapest and dearest class
            rc.roads.costs = {1, 0.25, -1, 5, 1, 1};
            rc.roads.avoid = 0;
        }
        if (seed % 4 == 0) rc.roads.connect = {1}; // the start's footprint blocked
        rc.roads.road_discount = 0.5;
        std::vector<std::uint8_t> discounted(rc.classes.size(), 0);
        for (std::size_t i = 0; i < discounted.size(); ++i)
            discounted[i] = seed % 2 == 0 && hash_values(seed, i, 5) % 9 == 0 ? 1 : 0;
        if (seed % 2 == 1 && !rc.places.places.empty()) {
            // The one cheapest (or dearest) cell before the footprints: under a footprint.
            const Place& p = rc.places.places.front();
            discounted[static_cast<std::size_t>(p.y) * rc.classes.width() + p.x] = 1;
            rc.roads.road_discount = seed % 4 == 1 ? 0.5 : 3;
        }
        const CostGrid g =
            road_cost_grid(rc.classes, {}, rc.places.places, rc.roads, rc.walkable, discounted);
        std::uint16_t lo = kBlocked, hi = 0;
        for (std::size_t i = 0; i < g.size(); ++i)
            if (g.cost(i) != kBlocked) {
                lo = std::min(lo, g.cost(i));
                hi = std::max(hi, g.cost(i));
            }
        CHECK(g.min_cost == lo);
        CHECK(g.max_cost == hi);
        // Its least move costs per square, taken in the same pass: as a plain scan of the
        // finished grid gives them (footprints, blocked ones among them, included).
        const LeastMoveCosts plain(g);
        for (int threads : {1, 2, 3, 7}) { // bands of rows: the same cells and bounds
            LeastMoveCosts least;
            const CostGrid t = road_cost_grid(rc.classes, {}, rc.places.places, rc.roads,
                                              rc.walkable, discounted, threads, &least);
            REQUIRE(least.squares_x() == plain.squares_x());
            REQUIRE(least.squares_y() == plain.squares_y());
            int squares_differ = 0;
            for (int j = 0; j < plain.squares_y(); ++j)
                for (int i = 0; i < plain.squares_x(); ++i)
                    squares_differ += least.at(i, j) != plain.at(i, j) ? 1 : 0;
            CHECK(squares_differ == 0);
            CHECK(least.dearest_edge() == plain.dearest_edge());
            CHECK(t.min_cost == g.min_cost);
            CHECK(t.max_cost == g.max_cost);
            int differ = 0;
            for (std::size_t i = 0; i < g.size(); ++i)
                differ += t.cost(i) != g.cost(i) || t.span(i) != g.span(i) ? 1 : 0;
            CHECK(differ == 0);
        }
    }
}

namespace {

// A preparation made plainly: a flood fill's labels (checked against walkable_regions above) and
// per region the walkable cells with a blocker 4-neighbour, in cell order.
void check_prep_is_plain(const ReachPrep& p, const ClassGrid& g,
                         const std::vector<bool>& walkable) {
    const int w = g.width(), h = g.height();
    const Regions plain = walkable_regions(g, walkable);
    CHECK(std::vector<std::int32_t>(p.regions.label.begin(), p.regions.label.end()) ==
          std::vector<std::int32_t>(plain.label.begin(), plain.label.end()));
    CHECK(p.regions.size == plain.size);
    std::vector<std::vector<std::uint32_t>> border(plain.size.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const auto i = static_cast<std::uint32_t>(y * w + x);
            if (!walkable[g.cells()[i]]) continue;
            const bool edge = (x > 0 && !walkable[g.cells()[i - 1]]) ||
                              (x + 1 < w && !walkable[g.cells()[i + 1]]) ||
                              (y > 0 && !walkable[g.cells()[i - w]]) ||
                              (y + 1 < h && !walkable[g.cells()[i + w]]);
            if (edge) border[static_cast<std::size_t>(plain.label[i])].push_back(i);
        }
    REQUIRE(p.border_start.size() == plain.size.size() + 1);
    for (std::size_t r = 0; r < border.size(); ++r)
        CHECK(std::vector<std::uint32_t>(p.border_cells.begin() + p.border_start[r],
                                         p.border_cells.begin() + p.border_start[r + 1]) ==
              border[r]);
    CHECK(p.border_start.back() == p.border_cells.size());
}

} // namespace

TEST_CASE("patch_reachable: the preparation made before the roads and patched for their cells "
          "equals one made from scratch after them") {
    int patched = 0, refused = 0, joins = 0;
    for (std::uint64_t seed = 1; seed <= 24; ++seed) {
        CAPTURE(seed);
        RoadCase rc = road_case(seed);
        // Forest (1) is a blocker on odd seeds (roads over it join regions); on every fourth seed
        // the road class itself is a blocker (the patch must refuse: a region may split).
        rc.walkable[1] = seed % 2 == 0;
        rc.walkable[4] = seed % 4 != 3;
        rc.roads.costs = {1, 3, -1, -1, 1, 1};
        Router router;
        const RoadsResult res = build_roads(rc.classes, {}, rc.places.places, rc.rules, rc.roads,
                                            rc.walkable, seed, router);
        ClassGrid after = rc.classes;
        write_roads(after, res, rc.places.places, rc.roads);
        std::vector<std::uint32_t> changed;
        for (const Road& road : res.roads)
            changed.insert(changed.end(), road.cells.begin(), road.cells.end());
        const ReachPrep fresh = prepare_reachable(after, rc.walkable);
        check_prep_is_plain(fresh, after, rc.walkable);
        for (int threads : {1, 2, 3}) {
            CAPTURE(threads);
            ReachPrep p = prepare_reachable(rc.classes, rc.walkable, threads);
            const std::size_t before = p.regions.size.size();
            if (!patch_reachable(p, after, rc.walkable, changed, threads)) {
                ++refused;
                CHECK(!rc.walkable[4]); // refused only when road cells block walkable land
                continue;
            }
            ++patched;
            joins += p.regions.size.size() < before ? 1 : 0;
            check_prep_is_plain(p, after, rc.walkable);
            // make_reachable from it: what it makes from scratch.
            ConstraintSettings cs;
            cs.walkable_regions = 1;
            cs.min_region = 12;
            const std::vector<std::uint32_t> start = {0};
            ClassGrid a = after, b = after;
            const ReachReport ra = make_reachable(a, rc.walkable, start, cs, rc.roads, {}, router,
                                                  threads, std::move(p));
            const ReachReport rb =
                make_reachable(b, rc.walkable, start, cs, rc.roads, {}, router, threads);
            CHECK(a == b);
            CHECK(ra == rb);
        }
    }
    CHECK(patched > 0);
    CHECK(refused > 0);
    CHECK(joins > 0); // bridges and roads over forest did join regions
}

TEST_CASE("patch_reachable: random cells made walkable (joins, new regions, cell 0), against a "
          "preparation from scratch") {
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        CAPTURE(seed);
        const int w = 3 + static_cast<int>(seed % 11) * 3, h = 2 + static_cast<int>(seed % 5) * 4;
        const ClassGrid before = blobby_classes(w, h, seed, 3);
        const std::vector<bool> walkable = {true, false, seed % 3 == 0};
        ClassGrid after = before;
        std::vector<std::uint32_t> changed;
        const int changes = 1 + static_cast<int>(hash_values(seed, 5) % 12);
        for (int k = 0; k < changes; ++k) {
            const auto c = static_cast<std::uint32_t>(hash_values(seed, k, 6) % after.size());
            after.cells()[c] = static_cast<ClassId>(walkable[2] ? 2 : 0); // walkable now
            changed.push_back(c);
            changed.push_back(c); // duplicates allowed
        }
        if (seed % 4 == 0) { // cell 0 made walkable: a region's first cell that is on no border
            after.cells()[0] = 0;
            changed.push_back(0);
        }
        // A blocker made blocker of another kind, and walkable land of another walkable class:
        // nothing to patch for them.
        after.cells()[after.size() - 1] =
            walkable[after.cells()[after.size() - 1]] ? 0 : static_cast<ClassId>(1);
        changed.push_back(static_cast<std::uint32_t>(after.size() - 1));
        for (int threads : {1, 2, 5}) {
            CAPTURE(threads);
            ReachPrep p = prepare_reachable(before, walkable, threads);
            check_prep_is_plain(p, before, walkable);
            REQUIRE(patch_reachable(p, after, walkable, changed, threads));
            check_prep_is_plain(p, after, walkable);
        }
        // A walkable cell made a blocker: refused.
        for (std::uint32_t c = 0; c < after.size(); ++c)
            if (walkable[after.cells()[c]]) {
                ClassGrid blocked = after;
                blocked.cells()[c] = 1;
                ReachPrep p = prepare_reachable(after, walkable);
                const std::vector<std::uint32_t> one = {c};
                CHECK(!patch_reachable(p, blocked, walkable, one));
                break;
            }
    }
}
