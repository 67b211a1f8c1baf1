// The description of a procedural tileset (`tilegen paint DESCRIPTION.toml`): terrains with their palettes,
// texture styles and variants, and the transition pairs (upper terrain drawn over lower terrain).
// Parsed from TOML text; every problem is a Diagnostic with the line and column of the offending key or
// value. Unknown keys are errors. Defaults and ranges of every field are documented beside it.
//
// TOML layout (see tilesets/overworld/paint.toml for a complete example):
//   tile_size, columns, seed                      top-level numbers
//   [error]                                       the red error tile
//   [rules]  path = "..."                         optional: also write a descriptor rules file
//   [[terrain]] name, symbol, height, style, palette, density, weight
//   [[terrain.variant]] name, weight, decoration, count, colors
//   [[pair]] upper, lower, rim_depth, wobble, wobble_period, corner_radius, upper_lines, lower_lines, shadow
// A colour is "#rrggbb", or "TERRAIN.N": entry N (0 = darkest) of that terrain's palette.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/image.hpp"

namespace tilegen::paint {

// How a terrain's base texture is drawn (all styles are seamless: they tile with themselves).
enum class Style {
    blades, // grass: mottled light/dark patches and small dark blade marks
    grain,  // sand, dirt: patches of shade and scattered grains with a light top
    waves,  // water: deeper patches and light wave crests
};

// A decoration drawn on a variant tile, kept 2 px away from the tile border (so borders equal the base tile).
enum class Decoration {
    none,
    flowers, // small four-petal flowers; colors = [petal, centre, ...more petal colours]
    tuft,    // a clump of tall grass blades; colors = [dark, light]
    pebbles, // small round stones; colors = [shadow, stone, highlight]
    sparkle, // light glints on water; colors = [glint, bright]
};

struct Variant {
    std::string name;                         // tile name: [A-Za-z0-9_-]+, unique in the tileset; required
    double weight = 1.0;                      // rule weight relative to the base tile; range (0, 1000]
    Decoration decoration = Decoration::none; // "none", "flowers", "tuft", "pebbles", "sparkle"; required
    int count = 2;                            // decorations per tile; range 1..8
    std::vector<Rgba> colors;                 // decoration colours; default per decoration (see above); 0..4
};

struct Terrain {
    std::string name;  // base tile name: [A-Za-z0-9_-]+; required
    char symbol = '?'; // class symbol used in rules: one ASCII letter, unique; required
    int height = 0;    // layering: higher terrains draw lower ones as rims; unique; range -1000..1000
    Style style = Style::grain;    // "blades", "grain" or "waves"; required
    std::vector<Rgba> palette;     // 3..5 shades, darkest first; required
    double density = 0.5;          // how many marks (blades, grains, crests) the texture has; range 0..1
    double weight = 1.0;           // rule weight of the base tile among its variants; range (0, 1000]
    std::vector<Variant> variants; // [[terrain.variant]]; 0..8
};

struct Pair {
    int upper = 0;          // index into terrains: the terrain whose cells draw the rim; required (by name)
    int lower = 0;          // index into terrains: the texture of the rim; required (by name)
    double rim_depth = 4.5; // mean rim width in px from the cell edge; range 1..tile_size/2-1
    double wobble = 1.0;    // max deviation of the rim width from rim_depth in px; range 0..rim_depth-1,
                            // rim_depth + wobble <= tile_size/2 - 1 and wobble <= wobble_period / 8
    int wobble_period = 16; // px; must divide tile_size; range 4..tile_size
    double corner_radius = 3.0;    // rounding of outer corners in px; range 0..tile_size/2 - 1
    std::vector<Rgba> upper_lines; // 1-px lines on the upper side of the boundary, outermost first; 0..3
    std::vector<Rgba> lower_lines; // 1-px lines on the lower side of the boundary, nearest first; 0..3
    // Extra width (px) of the lower lines where the upper terrain lies to the north (a cast shadow); 0..2.
    double shadow = 1.0;
};

struct ErrorTile {
    std::string name = "error";   // tile name; [A-Za-z0-9_-]+
    Rgba color{216, 32, 32, 255}; // fill; default "#d82020"
    Rgba mark{64, 0, 0, 255};     // the X; default "#400000"
};

struct Description {
    int tile_size = 16;     // px, square tiles; range 8..64, a multiple of 8
    int columns = 16;       // tiles per row of the image; range 1..64
    std::uint64_t seed = 1; // seed of all position hashes; range 0..2^63-1
    ErrorTile error;        // [error]
    std::string rules_path; // [rules] path: rules file, relative to the description's folder; "" = none
    std::vector<Terrain> terrains; // [[terrain]]; 1..16
    std::vector<Pair> pairs;       // [[pair]]; 0..16; each terrain is the upper of at most one pair
};

// Parses a description. `path` is only used in diagnostics. Returns nullopt (and appends at least one
// error) when the text is not valid TOML or does not describe a valid tileset.
std::optional<Description> parse_description(std::string_view text, const std::string& path,
                                             Diagnostics& diags);

// "#rrggbb" -> colour (opaque); nullopt when malformed.
std::optional<Rgba> parse_hex_color(std::string_view s);

// True for [A-Za-z0-9_-]+ (valid as a bare TOML key and as a rule target).
bool is_valid_tile_name(std::string_view s);

} // namespace tilegen::paint
