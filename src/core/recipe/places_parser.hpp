// Reading [[places]], [roads] and [constraints] (issue 17) from a recipe's TOML, with every
// default filled in and every value checked (docs/places-and-roads.md lists the keys):
//   [[places]]  name (required, unique), sprite (objects sheet; its footprint is resolved by the
//               project loader), on (terrain symbols, required), count 0..256 (1), min_distance
//               0..4096 (16), near (symbols) with near_distance 1..256 (8), flat 0..100 (0: no
//               limit), face (symbols), start (false; at most one place, with count 1)
//   [roads]     class and bridge_class (terrain symbols, required), connect (place names; default
//               all), avoid (symbols), costs { symbol = 0.1..1000 }, bridge_over (symbols),
//               bridge_cost 0.1..1000 (4), max_bridge 0..32 (6), slope_cost 0..1000 (1),
//               road_discount 0.05..1 (0.25), extra_links 0..64 (2)
//   [constraints] walkable_regions 0..1 (0), min_region 1..2^30 (64), reachable_from "start" |
//               "largest" ("start"; "start" needs a start place), policy "connect" | "fill" |
//               "reseed" ("connect"), pass_cost 0.1..1000 (8), tries 1..1000 (1)
// Input: the reader, the document root, the terrain classes already read. Output: the fields of
// the recipe; errors at the offending value's line:column.
#pragma once

#include <optional>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/places/places.hpp"
#include "core/quality/reachability.hpp"
#include "core/roads/roads.hpp"
#include "core/toml_reader.hpp"

namespace tilegen {

struct PlacesRecipe {
    std::vector<PlaceRule> places;
    std::optional<RoadSettings> roads;
    std::optional<ConstraintSettings> constraints;
};

PlacesRecipe parse_places_recipe(TomlReader& reader, const toml::table& root,
                                 const std::vector<TerrainClass>& terrain);

} // namespace tilegen
