// Sprite sheets: the manifest (TOML) of sprites larger than a tile (trees, rocks), and its image.
// Manifest input: text + path. Output: sprite cell size and name -> (cell index, footprint in map
// cells). Convention: a sprite's footprint (footprint_w x footprint_h map tiles) sits at the
// bottom-left of its cell; what is above is overhang (a tree's crown); the rest of the cell is
// transparent.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/image.hpp"

namespace tilegen {

struct SpriteInfo {
    std::string name;
    int index = 0;                        // row-major cell of the image
    int footprint_w = 1, footprint_h = 1; // map cells covered at the base; 1..16
    int line = 0, column = 0;
};

struct SpriteSheet {
    std::string path;       // the manifest, as given
    std::string image_path; // relative to the manifest
    int image_line = 0, image_column = 0;
    int sprite_width = 32;  // pixels; default 32, range 1..1024
    int sprite_height = 48; // pixels; default 48, range 1..1024
    std::vector<SpriteInfo> sprites;
    Image image; // filled by make_sprite_sheet
    int columns = 0;

    const SpriteInfo* find(const std::string& name) const;
};

std::optional<SpriteSheet> parse_sprite_sheet(std::string_view text, const std::string& path,
                                              Diagnostics& diags);

// Attaches the image and checks sprite indices and footprints against it.
bool attach_sprite_image(SpriteSheet& sheet, Image image, int tile_width, int tile_height,
                         Diagnostics& diags);

} // namespace tilegen
