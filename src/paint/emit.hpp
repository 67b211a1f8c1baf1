// Text outputs of `tilegen paint`: the tileset manifest (tileset.toml) and the descriptor rules
// that use it.
#pragma once

#include <string>
#include <string_view>

#include "paint/description.hpp"
#include "paint/painter.hpp"

namespace tilegen::paint {

// tileset.toml: image, tile_width, tile_height and [tiles] name = index (row-major slot in the
// image). `source` names the description in the header comment.
std::string tileset_manifest(const PaintedTileset& tileset, std::string_view image_file,
                             std::string_view source);

// The descriptor rules for a set of the description's terrains (output.terrains; empty = all), one
// rule per line (see rules/overworld.rules): for every terrain of the set that is the upper of a
// "blob" pair over a terrain of the set, its 47 blob cases (the plain case lists the base tile and
// its variants with their weights); for every other terrain one catch-all rule "??? ?x? ???"; then
// "?  @error". A neighbour of an upper cell is "lower" when its terrain is lower than the cell's
// (any class other than the cell's own when it is the highest terrain of the set), else "same".
// With several pairs, lowest lower terrain first, pair j's rules come right before pair j+1's for
// each blob case and accept as lower only terrains below pair j+1's lower terrain: the rim shows
// the texture of the highest pair whose lower terrain is at or below the highest lower neighbour.
// Overlay terrains (draws_as) take part like any other terrain, at their own heights: with the
// pairs repeated over them (grass-river beside grass-water) the terrains above draw the same rims
// next to them as next to the terrain they draw as; their own pairs draw what lies below them (a
// river beside the sea draws the water rim: the mouth).
std::string rules_text(const Description& d, const RulesOutput& output, std::string_view source);
// The same for all terrains.
std::string rules_text(const Description& d, std::string_view source);

// objects.toml: image, sprite_width, sprite_height and [sprites] name = { index, footprint },
// sprites in description order (index = position in [[sprite]]).
std::string objects_manifest(const Description& d, std::string_view source);

// "0.15", "1", "2.5": shortest round-trip text of a weight.
std::string format_weight(double w);

} // namespace tilegen::paint
