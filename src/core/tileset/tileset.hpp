// Tileset: a manifest (TOML) naming the tiles of one image, and the atlas a map is drawn from.
// Manifest input: text + path. Output: image path (relative to the manifest), tile size, name ->
// tile. Atlas invariants: the tileset's tiles keep their indices (row-major in its image); tiles
// made from image targets follow, then the built-in red error tile; the atlas has the tileset
// image's column count.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/image.hpp"
#include "core/map.hpp"

namespace tilegen {

struct TilesetManifest {
    std::string path;     // the manifest file, as given
    std::string image;    // relative to the manifest's folder
    int tile_width = 16;  // pixels; default 16, range 1..1024
    int tile_height = 16; // pixels; default 16, range 1..1024
    struct Entry {
        std::string name;
        int index = -1;            // when given as an index
        int column = -1, row = -1; // when given as [column, row]
        int line = 0, col = 0;     // where it was written
    };
    std::vector<Entry> tiles;
    int image_line = 0, image_col = 0;
};

[[nodiscard]] std::optional<TilesetManifest>
parse_tileset_manifest(std::string_view text, const std::string& path, Diagnostics& diags);

struct Tileset {
    TilesetManifest manifest;
    Image image;
    int columns = 0;
    int rows = 0;
    std::map<std::string, int> index_of; // tile name -> index in the image
};

// Checks the image against the manifest (size, tile positions in range); nullopt + diagnostics when
// wrong.
[[nodiscard]] std::optional<Tileset> make_tileset(TilesetManifest manifest, Image image,
                                                  Diagnostics& diags);

// The built-in error tile: red with a dark cross, w x h pixels.
Image error_tile_image(int w, int h);

// Builds the atlas: tileset tiles, then `extra` tile images (each must be tile-sized), then the
// error tile. Returns the atlas; `extra_index[i]` and `error_index` tell where those landed.
Atlas build_atlas(const Tileset& tileset, const std::vector<std::pair<std::string, Image>>& extra,
                  std::vector<int>& extra_index, int& error_index);

} // namespace tilegen
