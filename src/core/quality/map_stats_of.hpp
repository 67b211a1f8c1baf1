// Map statistics of a generated map, as tilegen reports them (`tilegen stats`, `generate --json`
// under "stats", the viewer's status bar). Input: a loaded project and one map generate_map made
// from it (its final class grid, its unmatched cell count and the class fractions its
// classification produced). Output: MapStats (map_stats.hpp, where every number is defined),
// measured on the final class grid with the recipe's `walkable` flags against share_targets.
// Invariants: the numbers depend only on the map and the recipe, never on the thread count.
#pragma once

#include <vector>

#include "core/pipeline.hpp"
#include "core/project.hpp"
#include "core/quality/map_stats.hpp"

namespace tilegen {

// Where the targets of share_error come from (the `share_target` key of `stats --json`).
enum class ShareTarget {
    recipe,        // the recipe's [[terrain]] shares (classes cut by percentiles)
    classification // a biome table has no shares: the fractions the classification produced
};

ShareTarget share_target_kind(const Recipe& recipe);
const char* share_target_name(ShareTarget kind); // "recipe" or "classification"

// The target share of each terrain class that share_error is measured against:
// - a recipe with [[terrain]] shares: those shares (with a hand-made class map too);
// - a biome-table recipe (no shares): the class fractions the classification produced, before
//   any pass that rewrites the class grid (GenerateResult::classified_fractions; with a hand-made
//   class map, the map's own fractions), so share_error measures how far the class passes and
//   clean-ups moved each class.
std::vector<double> share_targets(const Recipe& recipe, const GenerateResult& result);

// `classes` with every overlay terrain (rivers, lakes, waterfalls, roads, bridges) replaced by the
// first overlay terrain of the same walkability: the drawn features count as one water body and
// one road network for specks, thin cells, regions and corners (a lake a river crosses, a
// waterfall on its river, are not specks).
ClassGrid joined_overlays(const ClassGrid& classes, const std::vector<TerrainClass>& terrain);

// compute_map_stats over the result's final class grid with the recipe's walkable flags, the
// share_targets and the result's unmatched cells, on `threads` threads; with overlay terrains
// the shapes are measured on joined_overlays of it. With overlay terrains
// ([rivers]), share_error counts shares over the non-overlay cells: each class's fraction of the
// cells that are not river, lake or waterfall, against its target renormalised alike; overlays
// get none (NaN, left out of the JSON).
MapStats map_stats_of(const Project& project, const GenerateResult& result, int threads);

} // namespace tilegen
