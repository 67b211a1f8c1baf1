#include "core/roads/roads.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/roads/cost_potential.hpp"

namespace tilegen {

namespace {

std::uint16_t units(double cost) {
    return cost_units(cost);
}

// A cell's cost before the footprints, in recipe units: per class (RoadSettings::costs, else 1 on
// walkable classes; avoid classes never) plus slope_cost * slope; < 0: never entered.
struct CellCost {
    std::vector<double> base; // per class id; < 0: never
    bool use_slope = false;
    double slope_cost = 0;
    const float* slope = nullptr;
    const ClassId* classes = nullptr;

    CellCost(const ClassGrid& grid, const Grid<float>& slopes, const RoadSettings& settings,
             const std::vector<bool>& walkable)
        : base(kMaxClasses, -1), use_slope(!slopes.empty() && settings.slope_cost > 0),
          slope_cost(settings.slope_cost), slope(slopes.cells().data()),
          classes(grid.cells().data()) {
        for (int c = 0; c < kMaxClasses; ++c) {
            const double given =
                c < static_cast<int>(settings.costs.size()) ? settings.costs[c] : -1;
            const bool walk = c < static_cast<int>(walkable.size()) && walkable[c];
            base[c] = given >= 0 ? given : (walk ? 1.0 : -1.0);
            if (settings.avoid >> c & 1u) base[c] = -1;
        }
    }
    double operator()(std::size_t i) const {
        double cost = base[classes[i]];
        if (cost >= 0 && use_slope) cost += slope_cost * slope[i];
        return cost;
    }
};

// Per class: the cell it gives when that does not depend on the cell (avoided: blocked; spanned
// by bridges: water), else (costed) kFreshCell and its recipe cost (>= 0), to which the cell's
// slope is added. Ids past kMaxClasses are in no mask and have no cost: blocked.
struct ClassCosts {
    std::array<SearchCell, 256> cell;
    std::array<double, 256> cost;
    std::array<std::uint8_t, 256> costed{};
};

// Rows [y0, y1) of the roads' cost grid (`width` cells each), and the least and largest cost
// written (kBlocked and 0 when none). `slopes`: null when the slope adds nothing; `discount_at`:
// null when no cell is discounted. `open_least` and `top_least` (null: not wanted), per lattice
// square row j and column i (LeastMoveCosts): the least move cost (a cell's cost, `water` for water
// a bridge may span, else kBlocked) of the cells x in [i * s, (i + 1) * s] (s = kSpacing) of rows
// [j * s, (j + 1) * s) (lowered by each row of the band), and of row j * s alone (set when the band
// has that row); taken from each row's move costs once it is written. The inputs are parameters,
// held in registers: captured in a closure, they would be read again after every cell's store (a
// store of byte fields may alias any object).
std::pair<std::uint16_t, std::uint16_t>
write_cost_cells(const ClassId* cells, SearchCell* out, int width, int y0, int y1,
                 const ClassCosts& costs, const float* slopes, double slope_cost,
                 const std::uint8_t* discount_at, double discount, std::uint16_t* open_least,
                 std::uint16_t* top_least, std::uint16_t water) {
    constexpr int kSpacing = LeastMoveCosts::kSpacing;
    const int squares = LeastMoveCosts::squares_along(width);
    const bool least = open_least != nullptr;
    std::vector<std::uint16_t> moves(least ? static_cast<std::size_t>(width) : 0);
    std::uint16_t lo = kBlocked, hi = 0;
    for (int y = y0; y < y1; ++y) {
        const std::size_t row = static_cast<std::size_t>(y) * width;
        for (std::size_t i = row; i < row + width; ++i) {
            const ClassId c = cells[i];
            SearchCell cell = costs.cell[c];
            if (costs.costed[c]) {
                double cost = costs.cost[c]; // CellCost's sum, in its order
                if (slopes) cost += slope_cost * slopes[i];
                if (cost >= 0) {
                    if (discount_at && discount_at[i]) cost *= discount;
                    cell.cost = cost_units(cost);
                    lo = std::min(lo, cell.cost);
                    hi = std::max(hi, cell.cost);
                }
            }
            std::memcpy(out + i, &cell, sizeof cell); // one 8-byte store (a copy was 3)
            if (least) moves[i - row] = (cell.span & kSpanWater) ? water : cell.cost;
        }
        if (!least) continue;
        // Each square's closed piece of the row: its kSpacing cells and the next one's first.
        const std::size_t j = static_cast<std::size_t>(y >> LeastMoveCosts::kShift);
        std::uint16_t* open = open_least + j * squares;
        std::uint16_t* top = (y & (kSpacing - 1)) == 0 ? top_least + j * squares : nullptr;
        for (int s = 0; s < squares; ++s) {
            const int x0 = s * kSpacing, x1 = std::min(x0 + kSpacing, width - 1);
            std::uint16_t piece = kBlocked;
            for (int x = x0; x <= x1; ++x)
                piece = std::min(piece, moves[x]);
            open[s] = std::min(open[s], piece);
            if (top) top[s] = piece;
        }
    }
    return {lo, hi};
}

} // namespace

CostGrid road_cost_grid(const ClassGrid& classes, const Grid<float>& slope,
                        const std::vector<Place>& places, const RoadSettings& settings,
                        const std::vector<bool>& walkable, std::span<const std::uint8_t> discounted,
                        int threads, LeastMoveCosts* least_moves) {
    CostGrid g;
    g.reset_unset(classes.width(), classes.height()); // every cell written below
    g.max_bridge = settings.max_bridge;
    g.bridge_cost = units(settings.bridge_cost);
    const CellCost cell_cost(classes, slope, settings, walkable);
    ClassCosts costs;
    for (int c = 0; c < 256; ++c) {
        const bool in_class_masks = c < kMaxClasses;
        SearchCell cell = kFreshCell;
        costs.cost[c] = -1;
        if (in_class_masks && (settings.avoid >> c & 1u)) {
            // blocked
        } else if (in_class_masks && (settings.bridge_over >> c & 1u)) {
            cell.span = settings.max_bridge > 0 ? kSpanWater : 0;
        } else if (in_class_masks && cell_cost.base[c] >= 0) {
            costs.costed[c] = 1;
            costs.cost[c] = cell_cost.base[c];
        }
        costs.cell[c] = cell;
    }
    const ClassId* cells = classes.cells().data();
    SearchCell* out = g.cells.data();
    // Bands of rows on the threads, each with the bounds of the costs it wrote (cost_bounds): the
    // least and largest of them are the grid's whatever the bands.
    const int w = classes.width(), h = classes.height();
    const float* slopes = cell_cost.use_slope ? cell_cost.slope : nullptr;
    const std::uint8_t* discount_at = discounted.empty() ? nullptr : discounted.data();
    // Per lattice square, the least move cost of its open rows and of its first row (least_moves):
    // the bands are whole rows of squares, each writing its own.
    const int squares_x = LeastMoveCosts::squares_along(w);
    const int squares_y = LeastMoveCosts::squares_along(h);
    std::vector<std::uint16_t> open_least, top_least;
    if (least_moves) {
        open_least.assign(static_cast<std::size_t>(squares_x) * squares_y, kBlocked);
        top_least.assign(open_least.size(), kBlocked);
    }
    // A move over water a bridge may span (only marked so when max_bridge > 0).
    const auto water = static_cast<std::uint16_t>(std::min<std::uint32_t>(g.bridge_cost, kBlocked));
    const auto band_bounds = parallel_bands(squares_y, threads, [&](int j0, int j1) {
        return write_cost_cells(cells, out, w, j0 * LeastMoveCosts::kSpacing,
                                std::min(h, j1 * LeastMoveCosts::kSpacing), costs, slopes,
                                cell_cost.slope_cost, discount_at, settings.road_discount,
                                least_moves ? open_least.data() : nullptr,
                                least_moves ? top_least.data() : nullptr, water);
    });
    std::uint16_t lo = kBlocked, hi = 0;
    for (const auto& [band_lo, band_hi] : band_bounds) {
        lo = std::min(lo, band_lo);
        hi = std::max(hi, band_hi);
    }
    std::vector<bool> connect_rule(64, settings.connect.empty());
    for (int r : settings.connect)
        if (r >= 0 && r < 64) connect_rule[r] = true;
    // The footprints replace their cells' costs: the bounds above hold for the other cells unless
    // a footprint covers a cell at either bound (then the grid is scanned: cost_bounds).
    bool rescan = false, any_joins = false;
    for (const Place& p : places) {
        const bool joins = p.rule < 64 && connect_rule[p.rule];
        any_joins = any_joins || joins;
        for (int y = p.y; y < p.y + p.h; ++y)
            for (int x = p.x; x < p.x + p.w; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * g.width + x;
                rescan = rescan || g.cost(i) == lo || g.cost(i) == hi;
                g.cost(i) = joins ? units(1) : kBlocked;
                g.span(i) = 0;
            }
    }
    if (any_joins) {
        lo = std::min(lo, units(1));
        hi = std::max(hi, units(1));
    }
    if (least_moves) {
        // Each square: its open rows' least and the next square row's first row's (its closed
        // rows); then the squares holding a footprint's cells, taken again from the cells now.
        std::vector<std::uint16_t> square_least(open_least.size());
        for (int j = 0; j < squares_y; ++j)
            for (int i = 0; i < squares_x; ++i) {
                const std::size_t k = static_cast<std::size_t>(j) * squares_x + i;
                square_least[k] = j + 1 < squares_y
                                      ? std::min(open_least[k], top_least[k + squares_x])
                                      : open_least[k];
            }
        for (const Place& p : places) {
            const int i0 = std::max(0, (p.x - 1) >> LeastMoveCosts::kShift);
            const int i1 = std::min(squares_x - 1, (p.x + p.w - 1) >> LeastMoveCosts::kShift);
            const int j0 = std::max(0, (p.y - 1) >> LeastMoveCosts::kShift);
            const int j1 = std::min(squares_y - 1, (p.y + p.h - 1) >> LeastMoveCosts::kShift);
            for (int j = j0; j <= j1; ++j)
                for (int i = i0; i <= i1; ++i)
                    square_least[static_cast<std::size_t>(j) * squares_x + i] =
                        static_cast<std::uint16_t>(std::min<std::uint32_t>(
                            LeastMoveCosts::square_move_cost(g, i, j), kBlocked));
        }
        *least_moves = LeastMoveCosts(w, h, square_least);
    }
    if (rescan)
        std::tie(g.min_cost, g.max_cost) = cost_bounds(g);
    else if (hi == 0) // no cell open (cost_bounds' answer)
        g.min_cost = g.max_cost = 1;
    else
        std::tie(g.min_cost, g.max_cost) = std::pair{lo, hi};
    return g;
}

RoadsResult build_roads(const ClassGrid& classes, const Grid<float>& slope,
                        const std::vector<Place>& places, const std::vector<PlaceRule>& rules,
                        const RoadSettings& settings, const std::vector<bool>& walkable,
                        std::uint64_t seed, Router& router, int threads,
                        const std::function<void()>& after_cost_grid) {
    RoadsResult result;
    const int w = classes.width();
    std::vector<int> members; // indices into places that the network connects
    for (std::size_t i = 0; i < places.size(); ++i) {
        const int r = places[i].rule;
        const bool in = settings.connect.empty() ||
                        std::find(settings.connect.begin(), settings.connect.end(), r) !=
                            settings.connect.end();
        if (in) members.push_back(static_cast<int>(i));
    }
    if (members.size() < 2) return result;
    // The start place first, when it is a member.
    std::stable_partition(members.begin(), members.end(), [&](int i) {
        return places[i].rule < static_cast<int>(rules.size()) && rules[places[i].rule].start;
    });
    LeastMoveCosts least_moves;
    CostGrid grid =
        road_cost_grid(classes, slope, places, settings, walkable, {}, threads, &least_moves);
    if (after_cost_grid) after_cost_grid();
    // Per cell: a place's footprint (1, place_mask), road (kRoadCell), bridge span (kBridgeCell),
    // the footprint of a place routed to (kTarget): one map-sized grid for the four (memory:
    // reachability's preparation runs beside the routes).
    constexpr std::uint8_t kFootprint = 1, kRoadCell = 2, kBridgeCell = 4, kTarget = 8,
                           kNetwork = 16;
    GridCells<std::uint8_t> mark = place_mask(classes.width(), classes.height(), places);
    // The place a network cell belongs to (road cells: the place their road ends on); a map, as
    // the network is a few thousand cells of the map's millions.
    std::unordered_map<std::uint32_t, std::int32_t> owner;
    std::vector<std::uint32_t> sources;
    auto footprint = [&](int pi, auto&& f) {
        const Place& p = places[pi];
        for (int y = p.y; y < p.y + p.h; ++y)
            for (int x = p.x; x < p.x + p.w; ++x)
                f(static_cast<std::uint32_t>(y * w + x));
    };
    footprint(members[0], [&](std::uint32_t c) {
        sources.push_back(c);
        owner[c] = members[0];
        mark[c] |= kNetwork;
    });
    std::vector<bool> joined(places.size(), false);
    joined[members[0]] = true;
    for (std::size_t k = 1; k < members.size(); ++k)
        footprint(members[k], [&](std::uint32_t c) { mark[c] |= kTarget; });
    std::set<std::pair<int, int>> tree_edges;
    for (std::size_t step = 1; step < members.size(); ++step) {
        std::sort(sources.begin(), sources.end());
        // From the side with fewer cells to start at: the network, or the places not joined yet
        // (then towards the network's cells). Either way A* by the potential of the cells the
        // search goes to, settled as far as the cells it starts from need.
        std::vector<std::uint32_t> ends;
        for (int m : members)
            if (!joined[m]) footprint(m, [&](std::uint32_t c) { ends.push_back(c); });
        std::sort(ends.begin(), ends.end());
        Route r;
        if (ends.size() < sources.size()) {
            const CostPotential toward(least_moves, sources, ends);
            r = router.route_back(grid, ends, mark, toward, kRoadWeight, kNetwork);
        } else {
            const CostPotential toward(least_moves, ends, sources);
            r = router.route(grid, sources, mark, toward, kRoadWeight, kTarget);
        }
        if (!r.found) break;
        const std::uint32_t end = r.cells.back();
        int reached = -1;
        for (int m : members)
            if (!joined[m]) {
                const Place& p = places[m];
                const int x = static_cast<int>(end % w), y = static_cast<int>(end / w);
                if (x >= p.x && x < p.x + p.w && y >= p.y && y < p.y + p.h) reached = m;
            }
        if (reached < 0) break; // cannot happen: targets are exactly the unjoined footprints
        const int from = owner.at(r.cells.front()); // routes start on the network
        tree_edges.insert({std::min(from, reached), std::max(from, reached)});
        joined[reached] = true;
        footprint(reached, [&](std::uint32_t c) {
            mark[c] &= static_cast<std::uint8_t>(~kTarget);
            mark[c] |= kNetwork;
            sources.push_back(c);
            owner[c] = reached;
        });
        for (std::size_t i = 0; i < r.cells.size(); ++i) {
            const std::uint32_t c = r.cells[i];
            if (i == 0 && owner.contains(c)) continue; // the network cell it starts from
            if (mark[c] & kFootprint) continue;        // a footprint (only the ends can be)
            mark[c] |= kRoadCell;
            if (r.bridged[i]) { // no later bridge crosses this one
                mark[c] |= kBridgeCell;
                grid.span(c) = 0;
                grid.cost(c) = kBlocked;
            } else {
                sources.push_back(c);
                owner[c] = reached;
                mark[c] |= kNetwork;
            }
        }
        Road road;
        road.cells = std::move(r.cells);
        road.bridged = std::move(r.bridged);
        road.cost = r.cost;
        road.to_place = reached;
        road.network_place = from;
        result.roads.push_back(std::move(road));
    }
    for (int m : members)
        if (!joined[m]) result.unreached.push_back(m);

    // Loops: extra links over costs that favour existing road.
    if (settings.extra_links > 0 && members.size() >= 3) {
        std::vector<int> order;
        for (int m : members)
            if (joined[m]) order.push_back(m);
        std::sort(order.begin(), order.end(), [&](int a, int b) {
            const std::uint64_t ha = hash_values(seed, 0x6c6f6f70ull, a);
            const std::uint64_t hb = hash_values(seed, 0x6c6f6f70ull, b);
            return ha != hb ? ha < hb : a < b;
        });
        // The loops' grid: what road_cost_grid(..., road_cell) gives with bridge cells blocked,
        // made from the tree's grid (its bridges are blocked already) by discounting each road
        // cell once, as it is built, instead of rebuilding the map's grid per loop.
        CostGrid looped = std::move(grid);
        const CellCost cell_cost(classes, slope, settings, walkable);
        const std::uint16_t tree_min = looped.min_cost;
        std::uint16_t road_min = kBlocked; // least cost of a discounted road cell
        const auto patch = [&](std::uint32_t c) {
            if (mark[c] & kFootprint) return; // footprints keep their cost
            if (mark[c] & kBridgeCell) {
                looped.span(c) = 0;
                looped.cost(c) = kBlocked;
            } else {
                looped.cost(c) = units(cell_cost(c) * settings.road_discount);
                road_min = std::min(road_min, looped.cost(c));
                least_moves.lower(static_cast<int>(c % w), static_cast<int>(c / w), looped.cost(c));
            }
        };
        // The road cells are the tree roads' cells (patch is the same however often a cell is
        // met: a road's first cell may be another's).
        for (const Road& road : result.roads)
            for (const std::uint32_t c : road.cells)
                if (mark[c] & kRoadCell) patch(c);
        int made = 0;
        for (int from : order) {
            if (made >= settings.extra_links) break;
            // The least cost: a road cell's when none is above the tree's least (every other
            // cell costs at least that), else counted.
            if (road_min <= tree_min)
                looped.min_cost = road_min;
            else
                std::tie(looped.min_cost, looped.max_cost) = cost_bounds(looped);
            for (int m : members) // targets are only ever members' footprints
                footprint(m,
                          [&](std::uint32_t c) { mark[c] &= static_cast<std::uint8_t>(~kTarget); });
            std::vector<std::uint32_t> targets; // the footprints of the places it may join
            for (int m : order) {
                if (m == from) continue;
                const bool neighbour = tree_edges.count({std::min(from, m), std::max(from, m)});
                footprint(m, [&](std::uint32_t c) {
                    if (neighbour) {
                        looped.cost(c) = kBlocked;
                    } else {
                        mark[c] |= kTarget;
                        targets.push_back(c);
                    }
                });
            }
            const auto unblock = [&] { // the neighbours' footprints cost what a member's does again
                for (int m : order)
                    if (m != from)
                        footprint(m, [&](std::uint32_t c) { looped.cost(c) = units(1); });
            };
            if (targets.empty()) {
                unblock();
                continue;
            }
            std::vector<std::uint32_t> start;
            footprint(from, [&](std::uint32_t c) { start.push_back(c); });
            const CostPotential toward(least_moves, targets, start);
            Route r = router.route(looped, start, mark, toward, kRoadWeight, kTarget);
            unblock();
            if (!r.found) continue;
            int reached = -1;
            for (int m : order) {
                const Place& p = places[m];
                const int x = static_cast<int>(r.cells.back() % w);
                const int y = static_cast<int>(r.cells.back() / w);
                if (x >= p.x && x < p.x + p.w && y >= p.y && y < p.y + p.h) reached = m;
            }
            tree_edges.insert({std::min(from, reached), std::max(from, reached)});
            for (std::size_t i = 1; i + 1 < r.cells.size(); ++i) {
                mark[r.cells[i]] |= kRoadCell;
                if (r.bridged[i]) mark[r.cells[i]] |= kBridgeCell;
                patch(r.cells[i]);
            }
            Road road;
            road.cells = std::move(r.cells);
            road.bridged = std::move(r.bridged);
            road.cost = r.cost;
            road.to_place = reached;
            road.from_place = from;
            road.network_place = from;
            road.loop = true;
            result.roads.push_back(std::move(road));
            ++made;
        }
    }
    return result;
}

void write_roads(ClassGrid& classes, const RoadsResult& roads, const std::vector<Place>& places,
                 const RoadSettings& settings) {
    // Whether a cell is on a place's footprint (a few places: no map-sized mask).
    const int w = classes.width();
    const auto on_footprint = [&](std::uint32_t c) {
        const int x = static_cast<int>(c % static_cast<std::uint32_t>(w));
        const int y = static_cast<int>(c / static_cast<std::uint32_t>(w));
        return std::any_of(places.begin(), places.end(), [&](const Place& p) {
            return x >= p.x && x < p.x + p.w && y >= p.y && y < p.y + p.h;
        });
    };
    for (const Road& r : roads.roads)
        for (std::size_t i = 0; i < r.cells.size(); ++i) {
            const std::uint32_t c = r.cells[i];
            if (on_footprint(c)) continue;
            ClassId& cell = classes.cells()[c];
            if (r.bridged[i])
                cell = settings.bridge_class;
            else if (cell != settings.bridge_class)
                cell = settings.road_class;
        }
}

} // namespace tilegen
