// Class maps from files, so a layout painted by hand can be autotiled:
//   FILE.txt           one line per row, one terrain symbol per cell
//   FILE.png / .bmp    one pixel per cell, coloured with the recipe's [[terrain]] color values
//   FILE.tmx[:LAYER]   a Tiled map's tile layer (default: the first); each tile's class comes from
//   its tileset:
//                      the tile property `terrain` (a symbol or a class name, as tilegen's own TSX
//                      writes), else the Wang colour (named like a class) its Wang id shows most
// Errors point at the file, and at line:column for text and TMX/TSX, or the pixel for images.
#pragma once

#include <optional>
#include <string>

#include "core/classes/terrain_classes.hpp"
#include "core/diagnostic.hpp"
#include "core/recipe/recipe.hpp"

namespace tilegen::io {

std::optional<ClassGrid> read_class_map(const std::string& spec, const Recipe& recipe,
                                        Diagnostics& diags);

} // namespace tilegen::io
