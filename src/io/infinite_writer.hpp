// Infinite maps: a TMX with infinite="1" whose layers are written as chunks, generated chunk by
// chunk and streamed to the file, so the whole map is never in memory (only one chunk and, if
// asked, the PNG preview).
#pragma once

#include <filesystem>
#include <optional>

#include "core/diagnostic.hpp"
#include "core/pipeline.hpp"
#include "io/layer_encoding.hpp"

namespace tilegen::io {

struct InfiniteMapOptions {
    int chunk = 16; // chunk side in cells; default 16, range 1..1024
    Region region;  // the world cells to write; rounded out to whole chunks
    LayerEncoding encoding = LayerEncoding::csv;
};

struct InfiniteMapResult {
    Region written; // the region actually written (whole chunks)
    std::uint64_t unmatched = 0;
    std::size_t chunks = 0;
};

// Writes the atlas PNG and TSX beside `tmx_path`, then the TMX; and the PNG preview when `png_path`
// is given.
std::optional<InfiniteMapResult> write_infinite_map(
    const Project& project, const WorldSetup& world, const std::filesystem::path& tmx_path,
    const std::optional<std::filesystem::path>& png_path, const InfiniteMapOptions& options,
    const std::vector<MapProperty>& properties, Diagnostics& diags);

} // namespace tilegen::io
