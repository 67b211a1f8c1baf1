// The Godot 4 writer: a generated map -> a scene X.tscn and its TileSet X.tres (`-o X.tscn`),
// docs/godot.md.
//   input   the Map (atlas with tile names, terrain symbols and Wang ids, tile layers, sprites and
//           object layers), the terrain classes' names (terrain set names)
//   output  X.tres: a TileSet (tile size, a custom data layer "terrain" holding each tile's class
//           symbol, one terrain set "matching corners and sides" with a terrain per class when the
//           atlas has Wang ids, and one TileSetAtlasSource (id 0) over X-tiles.png declaring every
//           atlas tile, with its terrain and peering bits from its Wang id);
//           X.tscn: a Node2D with one TileMapLayer per tile layer (a corner layer: (W+1) x (H+1)
//           cells at position (-tile_width/2, -tile_height/2), as the TMX's offset;
//           tile_map_data in Godot 4.3's PackedByteArray format 0: a uint16 0, then per cell
//           int16 x, int16 y, uint16 source,
//           uint16 atlas x, uint16 atlas y, uint16 alternative, little-endian; Tiled's flips become
//           the alternative's transform flags flip_h 0x1000, flip_v 0x2000, transpose 0x4000), then
//           per object layer a y-sorted Node2D of Sprite2D nodes (position = the sprite's
//           bottom-left, offset up by its height, so y-sorting follows the base) and, for places
//           without a sprite, Marker2D nodes at their footprint's top-left; a place's properties
//           (index, cell_x, ..., start) are its node's metadata.
//   invariants  the bytes depend only on the inputs; paths inside the files are relative to the
//           scene (X.tres, X-tiles.png, X-objects.png), so the folder can sit anywhere in a Godot
//           project. Cells keep Godot's 16-bit coordinates: maps up to 32768 cells a side.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "core/classes/terrain_classes.hpp"
#include "core/diagnostic.hpp"
#include "core/map.hpp"

namespace tilegen::io {

// Godot's transform flags in a cell's alternative id.
inline constexpr unsigned kGodotFlipH = 0x1000, kGodotFlipV = 0x2000, kGodotTranspose = 0x4000;

struct GodotPaths {
    std::filesystem::path scene, tileset, tiles, objects; // X.tscn, X.tres, X-tiles.png, ...
};
GodotPaths godot_paths(const std::filesystem::path& scene);

// Whether write_godot writes X-objects.png: some object is drawn by a sprite.
bool godot_writes_objects(const Map& map);

// Why this map cannot be a Godot scene (larger than Godot's 16-bit cell coordinates), or nullopt.
std::optional<std::string> godot_unsupported(const Map& map);

std::string godot_tileset_text(const Map& map, std::span<const TerrainClass> terrain,
                               const std::filesystem::path& scene);
std::string godot_scene_text(const Map& map, const std::filesystem::path& scene);

// Writes X-tiles.png, X-objects.png (with sprite objects), X.tres and X.tscn, each atomically.
[[nodiscard]] bool write_godot(const Map& map, std::span<const TerrainClass> terrain,
                               const std::filesystem::path& scene, Diagnostics& diags);

} // namespace tilegen::io
