// Infinite maps: the world generated chunk by chunk and written by the map writer
// (io/tmx_writer.hpp) as an infinite TMX or TMJ (by the extension), so the whole map is never in
// memory (only one chunk of every layer and, if asked, the PNG preview).
//   input   a project and its prepared world (core/pipeline.hpp), the region to write, options
//   output  the map bundle (map, atlas PNG, tileset unless embedded) and the optional PNG preview
//   invariants  chunks are whole (the region is rounded out to them); every layer of a chunk is
//           generated again for each layer written (memory stays one chunk); the bytes do not
//           depend on the chunk order of generation, only on the inputs and the chunk side.
#pragma once

#include <filesystem>
#include <optional>

#include "core/diagnostic.hpp"
#include "core/pipeline.hpp"
#include "io/layer_encoding.hpp"
#include "io/tmx_writer.hpp"

namespace tilegen::io {

struct InfiniteMapOptions {
    int chunk = 16; // chunk side in cells; default 16, range 1..1024
    Region region;  // the world cells to write; rounded out to whole chunks
    LayerEncoding encoding = LayerEncoding::csv;
    TilesetPlacement tilesets = TilesetPlacement::external; // default external
    int threads = 1; // for the objects' placement; the output never depends on it
};

struct InfiniteMapResult {
    Region written; // the region actually written (whole chunks)
    std::uint64_t unmatched = 0;
    std::size_t chunks = 0;
    std::size_t objects = 0; // objects placed (world_objects: inside the region)
};

// Writes the atlas PNG and the tileset beside `map_path` (unless embedded), then the map; and the
// PNG preview when `png_path` is given.
std::optional<InfiniteMapResult> write_infinite_map(
    const Project& project, const WorldSetup& world, const std::filesystem::path& map_path,
    const std::optional<std::filesystem::path>& png_path, const InfiniteMapOptions& options,
    const std::vector<MapProperty>& properties, Diagnostics& diags);

} // namespace tilegen::io
