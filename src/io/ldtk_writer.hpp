// The LDtk writer: a generated map -> an LDtk 1.5 project (`-o X.ldtk`), docs/ldtk.md.
//   input   the Map (atlas, tile layers, sprites, object layers), the final class grid, each tile
//           layer's rules as ordered and resolved for the run (and, when kept, the deciding rule of
//           every cell), the terrain classes (names, symbols, colours), the `outside` class (or
//           clamp), the seed
//   output  one JSON document (LDtk 1.5.3, validated against LDtk's published schema by the
//           tests): one level of the map's size (with [screens]: one level per screen, GridVania);
//           an IntGrid layer "Classes" (value = class index
//           + 1, identifier and colour from the recipe; value groups for the class sets the rules
//           use most, disjoint); per tile layer an AutoLayer fed by it,
//           whose rules are the descriptor rules translated (docs/ldtk.md) and whose
//           autoLayerTiles are the tiles tilegen chose, baked (a corner layer: a Tiles layer of
//           (W+1) x (H+1) baked gridTiles, no rules, its instance offset by -grid/2 in x and y;
//           with [screens] corner tile (i, j) in the level of cell (min(i, W-1), min(j, H-1)));
//           an Entities layer per object layer;
//           the tileset definitions. Beside it X-ldtk-tiles.png: the atlas, then one copy per
//           turned tile (LDtk flips only X and Y; a tile with Tiled's diagonal bit, or any tile a
//           rule target turns, gets its own copy, its source and flips in the tileset's
//           customData as "tilegen:source=I;flips=dhv"), and with objects X-objects.png.
//   invariants  the bytes depend only on the inputs; every identifier and uid is derived from
//           positions and names (no clock, no random iids). A baked tile, its copy's flips and
//           the tile's X/Y flip bits `f` combined give exactly the TMX's gid at that cell.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/diagnostic.hpp"
#include "core/map.hpp"
#include "core/rules/autotile.hpp"

namespace tilegen::io {

struct LdtkSource {
    const Map* map = nullptr;
    const ClassGrid* classes = nullptr;     // map->width x map->height
    std::span<const LayerRules> layers;     // parallel to map->layers
    std::span<const Grid<int>> decisions;   // parallel to layers, or empty (then recomputed)
    std::span<const TerrainClass> terrain;  // the recipe's classes, in class order
    std::span<const std::uint32_t> colours; // per class 0xRRGGBB
    std::optional<ClassId> outside;         // [rules] outside: a class, or nullopt = clamp
    std::uint64_t seed = 0;
    // [screens] size in cells: one level per screen, row-major, in a GridVania world of
    // screen-sized cells (levels at the edges are smaller when the map does not divide); 0: the
    // whole map as one level in a Free world.
    int screen_width = 0, screen_height = 0;
};

// The atlas as LDtk sees it: the map's atlas image, then rows of turned copies.
struct LdtkAtlas {
    Image image;
    int columns = 1;          // tiles per row (the map atlas's columns)
    std::vector<Gid> copies;  // copy k (LDtk tile id first_copy + k): (index + 1) | flips
    int first_copy = 0;       // the map atlas's image_tile_count()
    int id_of(Gid gid) const; // LDtk tile id showing `gid` (flips included); -1 if none
};

// The files of an LDtk export at `path` (X.ldtk): the tiles image and the sprites image.
struct LdtkPaths {
    std::filesystem::path ldtk, tiles, objects;
};
LdtkPaths ldtk_paths(const std::filesystem::path& path);

// Whether write_ldtk writes X-objects.png: an object layer has objects and the map has sprites.
bool ldtk_writes_objects(const Map& map);

// Why this map cannot be an LDtk project (non-square tiles), or nullopt.
std::optional<std::string> ldtk_unsupported(const Map& map);

// The document and its atlas (the atlas is written to `tiles` by write_ldtk).
struct LdtkDocument {
    std::string json;
    LdtkAtlas atlas;
    int rules = 0;         // LDtk rules written, all layers
    int inexpressible = 0; // tilegen rules LDtk cannot express (written inactive)
};
LdtkDocument ldtk_document(const LdtkSource& source, const std::filesystem::path& path);

// Writes X-ldtk-tiles.png, X-objects.png (with objects) and X.ldtk, each atomically. Returns false
// (diagnostics appended) on failure.
[[nodiscard]] bool write_ldtk(const LdtkSource& source, const std::filesystem::path& path,
                              Diagnostics& diags);

} // namespace tilegen::io
