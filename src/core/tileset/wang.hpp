// Wang ids for Tiled's terrain brush, derived from tile names that follow the painter's convention:
//   TERRAIN or TERRAIN-VARIANT      a plain tile of TERRAIN (all eight Wang positions TERRAIN)
//   UPPER-LOWER-DIRS                an UPPER cell with LOWER rims on the listed sides, DIRS from n
//   ne e se s sw w nw
// Output: a "mixed" Wang id per tile (top, top-right, right, bottom-right, bottom, bottom-left,
// left, top-left; 1-based color = terrain index + 1; 0 = no Wang id for this tile).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/rules/autotile.hpp"

namespace tilegen {

using WangId = std::array<std::uint8_t, 8>;

// One entry per name; all zeros where the name does not follow the convention.
// A corner Wang set (Tiled's type "corner": only the corner entries 1, 3, 5, 7 = top-right,
// bottom-right, bottom-left, top-left are set) from the corner painter's names:
// UPPER-LOWER-corner-ABCD (A..D top-left, top-right, bottom-left, bottom-right: `u` or `l`) gets
// those corners; a tile named TERRAIN or TERRAIN-VARIANT gets TERRAIN on all four corners; any
// other tile all zeros.
std::vector<WangId> corner_wang_ids_from_names(const std::vector<std::string>& tile_names,
                                               const std::vector<std::string>& terrain_names);

std::vector<WangId> wang_ids_from_names(const std::vector<std::string>& tile_names,
                                        const std::vector<std::string>& terrain_names);

// Wang ids read off the rules of one layer (ordered by specificity, resolved to gids), for
// `tile_count` atlas tiles: a tile that some rule places unturned (no flip bits) on a single-class
// centre C with a 1x1 or 3x3 pattern gets, from the first such rule, the blob id of that pattern:
// an edge is its neighbour's class when that is one class, else C (a `?` edge, or a set holding
// C); a corner is the class of an adjacent edge that is not C, else its diagonal neighbour's class
// when that is one class, else C. A rule whose edge is a set without C gives no id. All zeros for
// tiles no rule gives an id.
std::vector<WangId> wang_ids_from_rules(const LayerRules& layer, int class_count, int tile_count);

} // namespace tilegen
