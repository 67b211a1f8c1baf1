// Object sprites (trees, rocks, bushes, stalagmites, crystals) painted from a description's
// [[sprite]] tables into a sprite sheet. Pure: a Description in, images out; shapes are jittered by
// hashes of the seed and the sprite's name, so the same description gives the same bytes.
//
// Convention (the sprite sheet manifest, objects.toml): every sprite cell is sprite_width x
// sprite_height px; the sprite's footprint (footprint_w * tile_size x footprint_h * tile_size px)
// sits at the bottom-left of its cell; what is above the footprint is overhang (a tree's crown);
// everything else is transparent (alpha 0). A sprite is shaded from the top-left with its palette,
// has a 1-px dark outline and a soft contact shadow (translucent dark pixels) on the ground inside
// its footprint.
#pragma once

#include "core/image.hpp"
#include "paint/description.hpp"

namespace tilegen::paint {

// One sprite cell: sprite_width x sprite_height of the description's [objects].
Image paint_sprite(const Description& d, const Sprite& sprite);

// The sprite sheet: sprites in description order, row-major, min(columns, count) cells per row.
Image paint_objects(const Description& d);

} // namespace tilegen::paint
