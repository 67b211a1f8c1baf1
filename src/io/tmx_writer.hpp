// The map writer (one, as Tiled's MapWriter): a Map -> a Tiled map document, TMX (XML) or TMJ
// (Tiled's JSON), finite or infinite, with its tilesets external or embedded.
//   input   a Map (atlas, tile layers, sprites and object layers, properties), the map's path (its
//           extension picks the format, its stem names the tilesets and images), options; for an
//           infinite map a MapChunks that yields the tile layers chunk by chunk
//   output  the document streamed into a ByteSink; with write_tmx_bundle also the files beside it:
//           X.tmx (X.tmj) + X-tiles.png and, external, X.tsx (X.tsj); with objects X-objects.png
//           and, external, X-objects.tsx (.tsj): a second tileset of sprite-sized tiles whose
//           firstgid follows the ground atlas. Embedded: the tilesets are written inside the map
//           (<tileset firstgid=..> with its <image> in TMX, a full tileset object in TMJ's
//           "tilesets"), and no TSX/TSJ is written.
//   invariants  the bytes depend only on the inputs, never on the thread count; the layer data is
//           streamed (finite: formatted in fixed chunks on `threads` threads; infinite: one chunk
//           at a time, so memory stays one chunk); the rest of the document is built first.
// Tiles carry properties `name` and `terrain` (the class symbol the rules place them on) and
// `probability` (relative weight among a rule's alternatives), so Tiled users can keep painting and
// tilegen can read maps back (io/class_map_reader.hpp, embedded tilesets included).
#pragma once

#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "core/diagnostic.hpp"
#include "core/grid.hpp"
#include "core/map.hpp"
#include "io/byte_sink.hpp"
#include "io/layer_encoding.hpp"

namespace tilegen::io {

enum class MapFormat { tmx, tmj };

// Where the tilesets go: their own TSX/TSJ files beside the map, or inside the map.
enum class TilesetPlacement { external, embedded };

struct MapOutputOptions {
    LayerEncoding encoding = LayerEncoding::csv; // default csv
    // for formatting layer data (csv, base64) and objects; default 1, range 1..256; the bytes are
    // the same for any count
    int threads = 1;
    TilesetPlacement tilesets = TilesetPlacement::external; // default external
};

// An infinite map's tile layers, chunk by chunk. The map is written with infinite="1" (TMX) or
// "infinite":true (TMJ); its width and height are the chunk side, each layer spans `region` and
// holds one <chunk> (TMX) or "chunks" entry (TMJ) per chunk.
struct MapChunks {
    int chunk = 16; // chunk side in cells; default 16, range 1..1024
    Region region;  // whole chunks: x, y, width and height multiples of `chunk`
    // The gids (chunk x chunk, row by row) of tile layer `layer` in `area`. Called for each layer
    // in order, and within a layer for each chunk by rows (top to bottom, left to right); the span
    // must stay valid until the next call.
    std::function<std::span<const Gid>(std::size_t layer, const Region& area)> gids;
};

struct TmxBundlePaths {
    MapFormat format = MapFormat::tmx;
    std::filesystem::path tmx, tsx, atlas, objects_tsx,
        objects_atlas; // tmx/tsx are .tmj/.tsj for TMJ
};
// The format comes from the extension: .tmj or .json -> TMJ, anything else TMX.
TmxBundlePaths tmx_bundle_paths(const std::filesystem::path& map_path);

// The external tileset files (TSX / TSJ) of the ground atlas and of the sprites.
std::string tsx_text(const Atlas& atlas, const std::string& name, const std::string& image_file);
std::string sprites_tsx_text(const SpriteAtlas& sprites, const std::string& name,
                             const std::string& image_file);
std::string tsj_text(const Atlas& atlas, const std::string& name, const std::string& image_file);
std::string sprites_tsj_text(const SpriteAtlas& sprites, const std::string& name,
                             const std::string& image_file);

bool has_objects(const Map& map);

// The map document for a map file at `map_path` (only its name is used: the format from the
// extension, tileset and image names from the stem), streamed into the sink. With `chunks` the map
// is infinite and its tile layers come from chunks->gids (map.layers give only their names);
// without, the layers' grids are written whole (map.width x map.height; a corner layer one more
// column and row, with offsetx/offsety = -tile_width/2, -tile_height/2).
void write_map(ByteSink& sink, const Map& map, const std::filesystem::path& map_path,
               const MapOutputOptions& options = {}, const MapChunks* chunks = nullptr);
// write_map into a string.
std::string map_text(const Map& map, const std::filesystem::path& map_path,
                     const MapOutputOptions& options = {}, const MapChunks* chunks = nullptr);

// Writes the atlas PNG, the sprites PNG (with objects), the external tilesets (unless embedded),
// then the map streamed into its temporary file; each file atomically. Returns false (diagnostics
// appended) on failure.
[[nodiscard]] bool write_tmx_bundle(const Map& map, const std::filesystem::path& map_path,
                                    Diagnostics& diags, const MapOutputOptions& options = {},
                                    const MapChunks* chunks = nullptr);

} // namespace tilegen::io
