// Map: the last stage's output, what writers (TMX, PNG) and the viewer consume.
// Input: tile layers (grids of gids) and the atlas the gids index. Invariants: every layer is width
// x height, or (width+1) x (height+1) for a corner layer (TileLayer::corner); a gid is 0 (empty) or
// (atlas index + 1) | flip flags, exactly as Tiled's global tile ids with firstgid = 1.
#pragma once

#include <array>
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

inline constexpr Gid gid_of(int atlas_index, Gid flips = 0) {
    return static_cast<Gid>(atlas_index + 1) | flips;
}
inline constexpr int atlas_index_of(Gid gid) {
    return static_cast<int>(gid & ~kFlipMask) - 1;
}

// The tiles a map uses, packed in one image: columns x rows tiles, row-major; tile i has name
// names[i].
struct Atlas {
    Image image;
    int tile_width = 16;
    int tile_height = 16;
    int columns = 1;
    std::vector<std::string> names; // size == tile count
    std::vector<char>
        terrain; // per tile: the class symbol the rules place it on, or 0 (empty = none)
    std::vector<double>
        probability; // per tile: relative chance among a rule's alternatives (empty = all 1)
    // A "mixed" Wang set for Tiled's terrain brush: color names and RGB, and per tile 8 color
    // indices (1-based; all 0 = the tile is not in the set). Empty when no tile follows the naming
    // convention.
    std::vector<std::string> wang_colors;
    std::vector<std::uint32_t> wang_rgb;
    std::vector<std::array<std::uint8_t, 8>> wang;
    bool wang_corner = false; // the Wang set is of type "corner" (a map with corner layers)
    int tile_count() const { return static_cast<int>(names.size()); }
    // The tiles the image holds as Tiled counts them: columns x rows of the image, the empty
    // cells after the last tile included (a TSX's tilecount; the next tileset's firstgid follows).
    int image_tile_count() const {
        return tile_height > 0 ? columns * (image.height() / tile_height) : tile_count();
    }
};

struct TileLayer {
    std::string name;
    Grid<Gid> tiles;
    // A corner layer (2x2 rules): (width+1) x (height+1) tiles, tile (i, j) centred on the corner
    // shared by cells (i-1, j-1) and (i, j), so drawn at offset (-tile_width/2, -tile_height/2).
    bool corner = false;
};

// Sprites larger than a tile (trees, rocks): a grid of sprite_width x sprite_height cells,
// row-major.
struct SpriteAtlas {
    Image image;
    int sprite_width = 32;
    int sprite_height = 48;
    int columns = 1;
    std::vector<std::string> names; // per cell; size == sprite count
    int sprite_count() const { return static_cast<int>(names.size()); }
    // The cells the image holds: columns x rows (a TSX's tilecount), see Atlas::image_tile_count.
    int image_sprite_count() const {
        return sprite_height > 0 ? columns * (image.height() / sprite_height) : sprite_count();
    }
};

// A sprite on top of the ground: drawn with its cell's bottom-left corner at (x, y) pixels (as
// Tiled places tile objects), so the sprite's footprint covers the map cells just above y.
struct MapObject {
    int sprite = 0; // cell of the SpriteAtlas
    int x = 0, y = 0;
};

struct MapProperty {
    std::string name;
    std::string type; // "string", "int", "float", "bool" (Tiled's property types)
    std::string value;
};

struct ObjectLayer {
    std::string name = "objects";
    std::vector<MapObject> objects; // in drawing order (by y, then x)
    // Named objects (the "places" layer): when not empty, parallel to `objects`: each object's
    // name, type and properties, and its size in pixels; an object whose sprite is -1 is a
    // rectangle (x, y its top-left), drawn by nobody.
    struct Named {
        std::string name, type;
        int width = 0, height = 0;
        std::vector<MapProperty> properties;
    };
    std::vector<Named> named = {};
};

struct Map {
    int width = 0;
    int height = 0;
    Atlas atlas;
    std::vector<TileLayer> layers;          // drawn first to last
    SpriteAtlas sprites;                    // used when object_layers has objects
    std::vector<ObjectLayer> object_layers; // drawn after the tile layers, objects in order
    std::vector<MapProperty> properties;
};

// Draws every tile layer of the map, first to last, then every object layer's sprites in order,
// into an image of (width*tile_width) x (height*tile_height), transparent where nothing is drawn;
// flip flags applied as Tiled applies them; alpha blended "over"; sprites clipped at the map's
// edges. A map with a corner layer is drawn as tmxrasterizer draws a map whose layer has offset
// (-tile_width/2, -tile_height/2): the image has a margin of corner_margin_x/y pixels on the left
// and top (so (width*tile_width + tile_width/2) x (height*tile_height + tile_height/2)), every
// layer and object shifted by it, corner tile (i, j) at map pixel (i*tile_width - tile_width/2,
// j*tile_height - tile_height/2), clipped at the image's edges.
Image render_map(const Map& map);
bool has_corner_layer(const Map& map);
// tile_width/2 (tile_height/2) when the map has a corner layer, else 0.
int corner_margin_x(const Map& map);
int corner_margin_y(const Map& map);
// draw_tile, clipped at `out`'s edges (the tile may lie partly or wholly outside).
void draw_tile_clipped(const Atlas& atlas, Gid gid, Image& out, int x, int y);

// render_map's two steps, for renderers of parts of a map (the viewer's pieces):
// Blends tile `gid` of `atlas` over `out` with its top-left at pixel (x, y), flip flags applied as
// Tiled applies them; gid 0 and gids outside the atlas draw nothing. The tile lies inside `out`.
void draw_tile(const Atlas& atlas, Gid gid, Image& out, int x, int y);
// Blends sprite `index` of `sprites` over `out` with its top-left at pixel (x, y), clipped at
// `out`'s edges; an index outside the sheet draws nothing.
void draw_sprite(const SpriteAtlas& sprites, int index, Image& out, int x, int y);

// A preview whose sides are at most `max_side` pixels: render_map() when the map fits, else every
// factor-th pixel of it (nearest neighbour; factor = the smallest whole number that fits), tile
// layers only. `factor` is set to the reduction used (1 = full size).
Image render_map_preview(const Map& map, int max_side, int& factor);
// render_map_preview's reduction: the smallest whole factor that brings both sides (in pixels)
// within max_side.
int preview_factor(const Map& map, int max_side);
// Pixel (x, y) of the reduced preview at `factor` > 1: the tile layers' pixel at the centre of
// the factor x factor block, nearest neighbour (what render_map_preview draws there).
Rgba reduced_preview_pixel(const Map& map, int factor, int x, int y);

} // namespace tilegen
