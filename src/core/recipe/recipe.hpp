// Recipe: one map's description (TOML), parsed into a value. Pure: the caller reads the file.
// Input: the recipe text and its path (paths inside are relative to the recipe's folder).
// Output: a Recipe with every default filled in, or diagnostics at the offending key's line:column.
// Invariants (when no error): 1 <= width, height <= 65536; 2..32 terrain classes with distinct
// symbols and names, shares in [0, 1] adding up to 1 (within 1e-6; not needed with a biome table);
// one cleanup entry per class (min_area 0..65536, min_width 0..64); at least one rule file; every
// map a combine or the classes refer to exists, and maps do not depend on themselves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/classes/class_cleanup.hpp"
#include "core/classes/terrain_classes.hpp"
#include "core/diagnostic.hpp"
#include "core/heightfield/heightfield.hpp"
#include "core/hydrology/river_settings.hpp"
#include "core/objects/object_placement.hpp"
#include "core/recipe/places_parser.hpp"
#include "core/recipe/search_parser.hpp"

namespace tilegen {

struct SourcePosition {
    int line = 0;
    int column = 0;
};

struct MapSettings {
    int width = 128;        // cells; default 128, range 1..65536
    int height = 128;       // cells; default 128, range 1..65536
    std::uint64_t seed = 1; // default 1, range 0..2^63-1
};

// How terrain classes are cut from the maps: percentile shares of one map (default), or a biome
// table over two.
struct BiomeTable {
    std::string rows_map = "elevation";   // bands of this map are the table's rows, lowest first
    std::vector<double> row_shares;       // fraction of cells per row band; add up to 1
    std::string columns_map = "moisture"; // bands of this map are the columns, lowest first
    std::vector<double> column_shares;
    std::vector<std::string> table; // one string per row band, one terrain symbol per column band
    SourcePosition position;
};

struct ClassSettings {
    std::string map =
        "elevation"; // the map whose percentiles give the [[terrain]] shares; default "elevation"
    SourcePosition position;
    std::optional<BiomeTable>
        biomes; // when set, classes come from the table and [[terrain]] shares are unused
    bool keep_shares = true; // after class passes and clean-up moved cells between classes, move
                             // cells back along class borders so every class keeps its share
                             // (class_shares.hpp); default true
};

struct RuleFileRef {
    std::string path; // as written, relative to the recipe's folder
    SourcePosition position;
};

struct RulesSettings {
    std::vector<RuleFileRef> files; // required, at least one
    std::string outside = "clamp";  // "clamp" (default) or a terrain symbol
    SourcePosition outside_position;
    bool legalise = false; // rewrite the class grid so the rules can draw every cell
                           // (legalise.hpp); default false
};

struct TilesetSettings {
    std::string path; // required: the tileset manifest (TOML), relative to the recipe's folder
    SourcePosition position;
    std::string objects; // optional: the sprite sheet manifest for [[objects]], relative to the
                         // recipe's folder
    SourcePosition objects_position;
};

struct OutputSettings {
    std::string encoding = "csv"; // tile layer data: "csv" (default), "base64", "base64+zlib",
                                  // "base64+gzip", "base64+zstd"
    SourcePosition position;
};

// [screens] size = [W, H]: the map is also written as a Tiled world of W x H-cell screens
// (io/screens_writer.hpp); W, H in 1..65536; absent = no screens.
struct ScreenSettings {
    int width = 0, height = 0;
    SourcePosition position;
};

struct Recipe {
    std::string path; // the recipe file, as given
    std::string name; // the file's stem, e.g. "overworld"; names default outputs
    MapSettings map;
    std::vector<MapDefinition>
        maps; // [noise] is the map "elevation"; [maps.NAME] add more; at least one
    ClassSettings classes;
    std::vector<TerrainClass> terrain; // lowest first
    std::vector<SourcePosition> terrain_positions;
    std::vector<ClassCleanup> cleanup; // per [[terrain]], same order: its min_area and min_width
    RulesSettings rules;
    TilesetSettings tileset;
    std::vector<ObjectRule> objects; // [[objects]]: what to scatter on top, in order of priority
    PlacesRecipe places; // [[places]], [roads], [constraints] (places_parser.hpp; issue 17)
    OutputSettings output;
    std::optional<RiverSettings> rivers;   // [rivers]: the hydrology stage (docs/hydrology.md)
    std::optional<SearchSettings> search;  // [search]: parameters evolved (search_parser.hpp)
    std::optional<ScreenSettings> screens; // [screens]: a world of screens (docs/tiled.md)
    std::string source;                    // the recipe's TOML text: [search] writes values into it
};

// The terrains [rivers] writes (class, lake_class, waterfall_class) as a mask over class ids.
std::uint32_t overlay_mask(const Recipe& recipe);

// The map of the given name, or nullptr.
const MapDefinition* find_map(const Recipe& recipe, const std::string& name);

[[nodiscard]] std::optional<Recipe> parse_recipe(std::string_view text, const std::string& path,
                                                 Diagnostics& diags);

// A symbol a terrain class may use: printable ASCII, not whitespace nor a character rule syntax
// reserves.
bool is_valid_symbol(char c);

// The terrain symbols in class order, e.g. "wsg" (symbols[class id] is the class's symbol).
std::string terrain_symbols(const Recipe& recipe);

} // namespace tilegen
