// Roads: ClassGrid + slopes + places -> a network of cheap roads with bridges.
// Input: the class grid (before roads), the per-cell slope (slope_of; may be empty), the places,
// the [roads] settings resolved to class ids and place rule indices, per class whether it is
// walkable, the seed. Output: the roads in the order they were built, each a route of cells (the
// first and last are cells of the network or of a place's footprint), with the cells that are
// bridge spans marked; the places that could not be reached.
// Algorithm: a spanning tree grown like Prim's: starting from the first `connect` place (the start
// place when it is one), each step routes (route.hpp: weighted A* with kRoadWeight, ties by the
// bucket queue's order) from every cell of the network so far (road cells and connected
// footprints; not bridge spans) to the nearest footprint of a place not yet connected (nearest
// within kRoadWeight: see below), and adds that route. The search starts from the side with fewer
// cells: the network (Router::route) or, once the network is larger, the footprints not yet
// connected (Router::route_back); either gives a route from the network to one of those
// footprints within the same bound. Each search is A* by the CostPotential (cost_potential.hpp) of
// the cells it goes to, from the grid's LeastMoveCosts (made in road_cost_grid's pass). Then
// `extra_links` loops: place i (in order of hash(seed, i)) routes to the nearest connected place
// that is not its neighbour in the tree, over costs where road cells cost road_discount times as
// much (their squares' least move costs lowered alike), so the loop merges into existing road
// where that is cheap.
// Invariants: each road costs at most kRoadWeight (13/10) times the least cost from the cells it
// could start on to the footprints it could end on, so at most 13/10 times the least-cost path
// between its two ends on the grid it was routed on (issue 17 asks 1.3); road cells are
// 4-connected along each road; bridges are straight, span only bridge_over cells, at most
// max_bridge of them, with non-water cells at both ends; no road or bridge cell is on an avoid
// class or on a place's footprint; every connected place's footprint touches (4-neighbour) a road
// cell or the footprint of the place it was routed from. Pure.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/grid.hpp"
#include "core/places/places.hpp"
#include "core/roads/cost_potential.hpp"
#include "core/roads/route.hpp"

namespace tilegen {

struct RoadSettings {
    ClassId road_class = 0;        // the road terrain ('+'), an overlay
    ClassId bridge_class = 0;      // the bridge terrain ('H'), an overlay
    std::vector<int> connect;      // place rule indices; default: every rule
    std::uint32_t avoid = 0;       // classes a road never enters
    std::vector<double> costs;     // per class id: cost of a cell; < 0: default (walkable 1,
                                   // else never); range 0.1..1000
    std::uint32_t bridge_over = 0; // classes a bridge may span (rivers, water)
    double bridge_cost = 4;        // per spanned cell; default 4, range 0.1..1000
    int max_bridge = 6;            // longest span; default 6, range 0..32
    double slope_cost = 1;         // added per slope unit (slope_of); default 1, range 0..1000
    double road_discount = 0.25;   // cost factor on road cells for loops; default 0.25, 0.05..1
    int extra_links = 2;           // loops beyond the spanning tree; default 2, range 0..64
};

struct Road {
    std::vector<std::uint32_t> cells;  // y * width + x, in order
    std::vector<std::uint8_t> bridged; // parallel: 1 = bridge span
    std::uint64_t cost = 0;            // on the cost grid it was routed on (CostGrid units)
    int to_place = -1;                 // index into places of the footprint it ends on
    int from_place = -1;               // loops: the place it starts from; tree roads: -1
    int network_place = -1;            // the place whose part of the network the first cell is (its
                                       // footprint or a road built to it); loops: from_place
    bool loop = false;
};

struct RoadsResult {
    std::vector<Road> roads;
    std::vector<int> unreached; // indices into places of connect places no road reaches
};

// The weight of the roads' weighted A* (route.hpp): 13/10, the most issue 17 allows. At 4096x4096
// (the default overworld, seed 7), searched from the network, the two longest routes settle 8.1
// million cells where exact A* (w = 1) settles 10.6 million and w = 6/5 8.8 million, for roads that
// cost at most a few units more (docs/places-and-roads.md, "Session 16": searched from the places
// instead, as build_roads now does, they settle 6.0 million).
inline constexpr RouteWeight kRoadWeight{13, 10};

// 16 cost units per unit of recipe cost.
inline constexpr double kCostScale = 16;

// A recipe cost in cost units: std::round(cost * kCostScale) (halves away from zero) clamped to
// 1..65534, without a library call (the cost grids convert one per cell).
inline std::uint16_t cost_units(double cost) {
    const double v = cost * kCostScale;
    if (!(v >= 1.0)) return 1; // rounds below 1 (or is not a number)
    if (v >= 65534.0) return 65534;
    const auto whole = static_cast<std::uint32_t>(v); // v - whole is exact below 2^52
    return static_cast<std::uint16_t>(whole + (v - whole >= 0.5 ? 1u : 0u));
}

// The cost grid roads are routed on: per class as in RoadSettings, plus slope_cost * slope, in
// units of 1/16, clamped to 1..65534; the footprints of `connect` places cost 16, other places are
// blocked; cells marked in `discounted` (may be empty) cost road_discount times as much. Its
// min_cost and max_cost are exactly the least and dearest open cell's cost (cost_bounds).
// `least_moves` (may be null): set to the grid's LeastMoveCosts, taken in the same pass (what
// LeastMoveCosts(grid) gives). `threads`: bands of rows; neither result depends on it.
CostGrid road_cost_grid(const ClassGrid& classes, const Grid<float>& slope,
                        const std::vector<Place>& places, const RoadSettings& settings,
                        const std::vector<bool>& walkable, std::span<const std::uint8_t> discounted,
                        int threads = 1, LeastMoveCosts* least_moves = nullptr);

// `after_cost_grid`, when set, is called once, after the cost grid (a pass on `threads`) is made
// and before the routes (one thread's work) start: the caller starts work beside the routes there.
RoadsResult build_roads(const ClassGrid& classes, const Grid<float>& slope,
                        const std::vector<Place>& places, const std::vector<PlaceRule>& rules,
                        const RoadSettings& settings, const std::vector<bool>& walkable,
                        std::uint64_t seed, Router& router, int threads = 1,
                        const std::function<void()>& after_cost_grid = {});

// Writes road cells as road_class and bridge spans as bridge_class (footprint cells untouched).
void write_roads(ClassGrid& classes, const RoadsResult& roads, const std::vector<Place>& places,
                 const RoadSettings& settings);

} // namespace tilegen
