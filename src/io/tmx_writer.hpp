// Tiled output: a TMX map (orthogonal, CSV layer data) with an external TSX tileset and the atlas PNG,
// all side by side and referenced by relative paths, so the folder opens in Tiled as it is.
#pragma once

#include <filesystem>
#include <string>

#include "core/diagnostic.hpp"
#include "core/map.hpp"

namespace tilegen::io {

// The files of one map: X.tmx, X.tsx, X-tiles.png for tmx path X.tmx; with objects also X-objects.tsx and
// X-objects.png (a second tileset of sprite-sized tiles, firstgid after the ground atlas).
struct TmxBundlePaths {
    std::filesystem::path tmx, tsx, atlas, objects_tsx, objects_atlas;
};
TmxBundlePaths tmx_bundle_paths(const std::filesystem::path& tmx_path);

std::string tsx_text(const Atlas& atlas, const std::string& name, const std::string& image_file);
std::string sprites_tsx_text(const SpriteAtlas& sprites, const std::string& name, const std::string& image_file);
// objects_tsx_file is used when the map has objects.
std::string tmx_text(const Map& map, const std::string& tsx_file, const std::string& objects_tsx_file = "");
bool has_objects(const Map& map);

// Writes atlas, TSX, then TMX, each atomically. Returns false (diagnostics appended) on failure.
bool write_tmx_bundle(const Map& map, const std::filesystem::path& tmx_path, Diagnostics& diags);

} // namespace tilegen::io
