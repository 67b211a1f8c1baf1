// Fuzz target: tileset manifests (parse_tileset_manifest), then make_tileset and build_atlas
// against a fixed 64 x 48 image. Properties: no crash/UB/leak; failures come with errors; tile
// sizes in range; every tile of a tileset that make_tileset accepts is inside the image.
#include <cstdint>

#include "core/tileset/tileset.hpp"
#include "fuzz_support.hpp"

using namespace tilegen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 64 * 1024) return -1;
    Diagnostics diags;
    std::optional<TilesetManifest> manifest =
        parse_tileset_manifest(fuzz::text_of(data, size), "fuzz/tileset.toml", diags);
    fuzz::check_diagnostics(manifest.has_value(), diags);
    if (!manifest) return 0;
    FUZZ_CHECK(manifest->tile_width >= 1 && manifest->tile_width <= 1024, "tile_width range");
    FUZZ_CHECK(manifest->tile_height >= 1 && manifest->tile_height <= 1024, "tile_height range");
    Diagnostics tdiags;
    std::optional<Tileset> tileset =
        make_tileset(std::move(*manifest), Image(64, 48, {10, 20, 30, 255}), tdiags);
    fuzz::check_diagnostics(tileset.has_value(), tdiags);
    if (!tileset) return 0;
    FUZZ_CHECK(tileset->columns * tileset->manifest.tile_width <= 64, "columns inside the image");
    FUZZ_CHECK(tileset->rows * tileset->manifest.tile_height <= 48, "rows inside the image");
    for (const auto& [name, index] : tileset->index_of)
        FUZZ_CHECK(index >= 0 && index < tileset->columns * tileset->rows,
                   "tile index inside the image");
    if (tileset->manifest.tile_width * tileset->manifest.tile_height <= 4096) {
        std::vector<std::pair<std::string, Image>> extra{
            {"extra.png",
             Image(tileset->manifest.tile_width, tileset->manifest.tile_height, {1, 2, 3, 255})}};
        std::vector<int> extra_index;
        int error_index = -1;
        const Atlas atlas = build_atlas(*tileset, extra, extra_index, error_index);
        FUZZ_CHECK(extra_index.size() == 1 && error_index >= 0, "atlas indices");
        (void)atlas;
    }
    return 0;
}
