// Map: the last stage's output, what writers (TMX, PNG) and the viewer consume.
// Input: tile layers (grids of gids) and the atlas the gids index. Invariants: every layer is width x height;
// a gid is 0 (empty) or (atlas index + 1) | flip flags, exactly as Tiled's global tile ids with firstgid = 1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/image.hpp"

namespace tilegen {

using Gid = std::uint32_t;

// Tiled's flip flags, in the top bits of a gid.
inline constexpr Gid kFlipHorizontal = 0x80000000u;
inline constexpr Gid kFlipVertical = 0x40000000u;
inline constexpr Gid kFlipDiagonal = 0x20000000u;
inline constexpr Gid kFlipMask = kFlipHorizontal | kFlipVertical | kFlipDiagonal;

inline constexpr Gid gid_of(int atlas_index, Gid flips = 0) { return static_cast<Gid>(atlas_index + 1) | flips; }
inline constexpr int atlas_index_of(Gid gid) { return static_cast<int>(gid & ~kFlipMask) - 1; }

// The tiles a map uses, packed in one image: columns x rows tiles, row-major; tile i has name names[i].
struct Atlas {
    Image image;
    int tile_width = 16;
    int tile_height = 16;
    int columns = 1;
    std::vector<std::string> names; // size == tile count
    int tile_count() const { return static_cast<int>(names.size()); }
};

struct TileLayer {
    std::string name;
    Grid<Gid> tiles;
};

struct MapProperty {
    std::string name;
    std::string type; // "string", "int", "float", "bool" (Tiled's property types)
    std::string value;
};

struct Map {
    int width = 0;
    int height = 0;
    Atlas atlas;
    std::vector<TileLayer> layers; // drawn first to last
    std::vector<MapProperty> properties;
};

// Draws every layer of the map, first to last, into an image of (width*tile_width) x (height*tile_height),
// transparent where no layer has a tile; flip flags applied as Tiled applies them; alpha blended "over".
Image render_map(const Map& map);

} // namespace tilegen
