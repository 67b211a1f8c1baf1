// A map as a Tiled world of screens ([screens] size = [W, H]).
//   input   the generated Map, the path of its TMX/TMJ (X.tmx), the screen size in cells, the
//           map writer's options
//   output  X.world (Tiled's world file: JSON, each map's file name and pixel offset) and one map
//           per screen beside X.tmx, X-screen-SX-SY.tmx (or .tmj), screens row-major. Each screen
//           map holds the screen's cells of every tile layer, the objects whose anchor cell lies
//           in it (the cell of a sprite's bottom-right pixel: the last drawn of the screens it
//           covers; a named rectangle's top-left cell) moved
//           by the screen's offset, the map's properties plus `screen` = "SX,SY"; it uses the
//           whole map's tilesets (X.tsx, X-objects.tsx: the same files, same firstgids).
//   invariants  the screens' tiles at their offsets are the whole map's tiles cell for cell;
//           every object is in exactly one screen; the bytes depend only on the inputs.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/map.hpp"
#include "core/quality/screen_graph.hpp"
#include "io/tmx_writer.hpp"

namespace tilegen::io {

// The cell an object of `layer` belongs to when the map is cut into screens: the cell of a
// sprite's bottom-right pixel (of the screens it covers, the one Tiled draws last, so no later
// screen's tiles cover it; (x, y) is its bottom-left corner), a rectangle's top-left cell;
// clamped to the map.
std::pair<int, int> object_anchor_cell(const Map& map, const ObjectLayer& layer, std::size_t i);

// The map of one screen (cells `s.x`.. `s.x + s.width`, `s.y`.. `s.y + s.height`).
Map screen_map(const Map& map, const ScreenCell& s);

// X-screen-SX-SY.tmx (the extension of `map_path`) beside `map_path`.
std::filesystem::path screen_path(const std::filesystem::path& map_path, int sx, int sy);
// X.world beside `map_path`.
std::filesystem::path world_path(const std::filesystem::path& map_path);

// The .world text for the screens of the map at `map_path`.
std::string world_text(const std::vector<ScreenCell>& screens,
                       const std::filesystem::path& map_path, int tile_width, int tile_height);

// Writes every screen map, then the .world file, each atomically. False with diagnostics on
// failure.
[[nodiscard]] bool write_screens(const Map& map, const std::filesystem::path& map_path,
                                 int screen_w, int screen_h, const MapOutputOptions& options,
                                 Diagnostics& diags);

} // namespace tilegen::io
