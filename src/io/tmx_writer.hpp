// Tiled output: a map (TMX, or TMJ = Tiled's JSON) with external tilesets (TSX/TSJ) and their
// images, side by side and referenced by relative paths, so the folder opens in Tiled as it is.
// Files for map path X.tmx (X.tmj): X.tsx (X.tsj) + X-tiles.png; with objects also X-objects.tsx
// (.tsj) and X-objects.png, a second tileset of sprite-sized tiles whose firstgid follows the
// ground atlas. Tiles carry properties `name` and `terrain` (the class symbol the rules place them
// on) and `probability` (relative weight among a rule's alternatives), so Tiled users can keep
// painting and tilegen can read maps back.
#pragma once

#include <filesystem>
#include <string>

#include "core/diagnostic.hpp"
#include "core/map.hpp"
#include "io/byte_sink.hpp"
#include "io/layer_encoding.hpp"

namespace tilegen::io {

enum class MapFormat { tmx, tmj };

struct MapOutputOptions {
    LayerEncoding encoding = LayerEncoding::csv; // default csv
    int threads =
        1; // for formatting layer data (csv, base64); the bytes are the same for any count
};

struct TmxBundlePaths {
    MapFormat format = MapFormat::tmx;
    std::filesystem::path tmx, tsx, atlas, objects_tsx,
        objects_atlas; // tmx/tsx are .tmj/.tsj for TMJ
};
// The format comes from the extension: .tmj or .json -> TMJ, anything else TMX.
TmxBundlePaths tmx_bundle_paths(const std::filesystem::path& map_path);

std::string tsx_text(const Atlas& atlas, const std::string& name, const std::string& image_file);
std::string sprites_tsx_text(const SpriteAtlas& sprites, const std::string& name,
                             const std::string& image_file);
std::string tmx_text(const Map& map, const std::string& tsx_file,
                     const std::string& objects_tsx_file = "",
                     const MapOutputOptions& options = {});
// tmx_text streamed into a sink, piece by piece (the layer data in chunks): the whole text is never
// in memory.
void write_tmx(ByteSink& sink, const Map& map, const std::string& tsx_file,
               const std::string& objects_tsx_file = "", const MapOutputOptions& options = {});

std::string tsj_text(const Atlas& atlas, const std::string& name, const std::string& image_file);
std::string sprites_tsj_text(const SpriteAtlas& sprites, const std::string& name,
                             const std::string& image_file);
std::string tmj_text(const Map& map, const std::string& tsj_file,
                     const std::string& objects_tsj_file = "",
                     const MapOutputOptions& options = {});
// tmj_text streamed into a sink (the layer data in chunks; the rest of the document is built
// first).
void write_tmj(ByteSink& sink, const Map& map, const std::string& tsj_file,
               const std::string& objects_tsj_file = "", const MapOutputOptions& options = {});

bool has_objects(const Map& map);

// Writes atlas, tileset(s), then the map, each atomically (the map streamed into its temporary
// file). Returns false (diagnostics appended) on failure.
bool write_tmx_bundle(const Map& map, const std::filesystem::path& map_path, Diagnostics& diags,
                      const MapOutputOptions& options = {});

} // namespace tilegen::io
