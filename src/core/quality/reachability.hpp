// Reachability: ClassGrid -> a class grid whose walkable land is one region (walkable_regions = 1).
// Input: the class grid (roads already written), per class whether it is walkable, the start cells
// (the start place's footprint and its 4-neighbours; empty: the largest region is the start's),
// the [constraints] settings, the road settings (road and bridge classes, bridge_over, avoid,
// max_bridge, bridge_cost), cells that must not change (place footprints).
// Output: the grid rewritten in place and a report. Regions are 4-connected sets of walkable cells;
// a region is big when it has at least min_region cells. The main region holds the first walkable
// start cell.
// Policies: connect — one Dijkstra (bucket queue, route.hpp) grows from the main region's
// border over blockers (pass_cost per blocker cell, straight bridges over bridge_over classes as
// for roads (route.hpp), never through avoid classes or protected cells); reaching a cell of
// another big region carves the route back (spans become bridge_class, blocker cells road_class:
// a pass) and joins that region (its border enters at the distance it was reached at), so the
// routes form one tree and joined interiors are never explored; big regions no route reaches are
// filled (the search stops once every big region is joined: nothing is left to carve).
// fill — every region but the main one is filled.
// reseed — nothing is changed. Filling turns a region's cells into the blocker class most common
// among its outside 4-neighbours (ties: lowest class id). Small regions are left as secrets under
// connect. Invariant: after connect or fill, exactly one big region (the main one) remains, unless
// report.met is false. Deterministic (index order; route.hpp ties by cell index).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/roads/roads.hpp"

namespace tilegen {

enum class ReachPolicy { connect, fill, reseed };

struct ConstraintSettings {
    int walkable_regions = 0; // 1: one big walkable region; 0 (default): not asked
    int min_region = 64;      // cells; default 64, range 1..2^30
    bool from_start = true;   // reachable_from = "start" (default) or "" (the largest region)
    ReachPolicy policy = ReachPolicy::connect; // default connect
    double pass_cost = 8;     // per blocker cell a connect route carves; default 8, 0.1..1000
    int tries = 1;            // derived seeds to try until the constraints are met; 1..1000
    int line = 0, column = 0; // of the [constraints] table
};

struct Regions {
    GridCells<std::int32_t> label;   // per cell: region index, -1 for blockers (grid pool)
    std::vector<std::uint64_t> size; // per region: cells
};

// Walkable regions in order of their first cell (row-major). `threads`: bands of rows (joined
// across their seams); the result never depends on it.
Regions walkable_regions(const ClassGrid& classes, const std::vector<bool>& walkable,
                         int threads = 1);

// Reachability's preparation: the walkable regions and each region's border cells (walkable
// cells with a blocker among their 4-neighbours; map edges are not blockers), region r's in cell
// order at border_cells[border_start[r] .. border_start[r + 1]). A function of the class grid and
// the walkable flags only (not of `threads`).
struct ReachPrep {
    Regions regions;
    std::vector<std::size_t> border_start; // regions + 1 entries
    GridCells<std::uint32_t> border_cells;
};
ReachPrep prepare_reachable(const ClassGrid& classes, const std::vector<bool>& walkable,
                            int threads = 1);

// Brings `prep`, made on a class grid `before`, up to date for `after` (the same size), where
// `changed` lists every cell whose class differs (duplicates allowed; other cells may be listed
// too). The result is what prepare_reachable(after) gives: a changed cell that became walkable
// joins the regions around it (labels renumbered in order of their first cell, border lists
// merged in cell order, sizes added). Returns false, leaving `prep` unspecified, when a listed
// cell turned from walkable to blocked (a region could split): then prepare again from scratch.
// `threads`: the relabelling pass on bands of rows; the result never depends on it.
[[nodiscard]] bool patch_reachable(ReachPrep& prep, const ClassGrid& after,
                                   const std::vector<bool>& walkable,
                                   std::span<const std::uint32_t> changed, int threads = 1);

struct ReachReport {
    bool met = true;
    std::uint64_t regions_before = 0; // walkable regions before
    std::uint64_t big_before = 0;     // of them, big
    std::uint64_t big_after = 0;      // big regions after
    std::uint64_t carved = 0;         // cells made road or bridge by connect
    std::uint64_t filled = 0;         // cells filled
    std::uint64_t main_size = 0;      // cells of the main region after
    bool start_found = true;          // a start cell is walkable
    bool operator==(const ReachReport&) const = default;
};

// `router`: its queue holds the connect search's entries (Router::queue: one set of buckets per
// run). `threads`: the passes over the map (labels, borders, the search's grid) on
// bands of rows; the search itself is one thread. The result never depends on it.
ReachReport make_reachable(ClassGrid& classes, const std::vector<bool>& walkable,
                           const std::vector<std::uint32_t>& start_cells,
                           const ConstraintSettings& settings, const RoadSettings& roads,
                           std::span<const std::uint8_t> protect, Router& router, int threads = 1);
// The same from a preparation made on (or patched to) `classes` as they are now: the same result.
// `before_search` (may be empty) is called once the connect search's grid is made (a pass on every
// thread), just before the search (one thread's work) starts: a caller starts work of its own
// there to run beside the search (it must not touch `classes`). Not called under fill or reseed.
ReachReport make_reachable(ClassGrid& classes, const std::vector<bool>& walkable,
                           const std::vector<std::uint32_t>& start_cells,
                           const ConstraintSettings& settings, const RoadSettings& roads,
                           std::span<const std::uint8_t> protect, Router& router, int threads,
                           ReachPrep prep, const std::function<void()>& before_search = {});

} // namespace tilegen
