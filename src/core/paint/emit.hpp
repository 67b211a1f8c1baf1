// Text outputs of `tilegen paint`: the tileset manifest (tileset.toml) and the descriptor rules that use it.
#pragma once

#include <string>
#include <string_view>

#include "core/paint/description.hpp"
#include "core/paint/painter.hpp"

namespace tilegen::paint {

// tileset.toml: image, tile_width, tile_height and [tiles] name = index (row-major slot in the image).
// `source` names the description in the header comment.
std::string tileset_manifest(const Tileset& tileset, std::string_view image_file, std::string_view source);

// The descriptor rules for the description's terrains, one rule per line (see rules/overworld.rules):
// for every terrain that is the upper of a pair, its 47 blob cases (the plain case lists the base tile and
// its variants with their weights); for every other terrain one catch-all rule "??? ?x? ???"; then "?
// @error". A neighbour of an upper cell is "lower" when its terrain is lower than the cell's (any class other
// than the cell's own when it is the highest terrain), else "same".
std::string rules_text(const Description& d, std::string_view source);

// "0.15", "1", "2.5": shortest round-trip text of a weight.
std::string format_weight(double w);

} // namespace tilegen::paint
