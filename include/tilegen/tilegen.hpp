// tilegen's public API: a small facade over the generator for games and tools.
//
//   input   a recipe (TOML; a file, or text with a base directory for its relative paths), its rule
//           files, tileset manifest and images; optional overrides of the seed and the map size
//   output  maps in memory: the class grid, each layer's tiles (tile ids and flip bits), objects,
//           places and statistics; TMX/TMJ files with their tilesets and a PNG preview
//   invariants  same recipe + seed + size => the same map, at any thread count, on any build;
//           a region of a position-based recipe equals the same window of the whole map's tiles
//           (when the whole map's thresholds are read from the same sample window, see World);
//           errors are Diagnostic values, never exceptions or text on stderr.
//
// The header includes only the C++ standard library: no toml++, tinyxml2, zlib, libpng or SFML
// (the generator's state lives behind a pointer). Link with the CMake target tilegen::tilegen
// (find_package(tilegen)) or pkg-config's `tilegen`. Example: docs/library.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilegen::api {

////////////////////////////////////////////////////////////
/// One problem found: in a file at a line and column (0 when not known), with a severity.
////////////////////////////////////////////////////////////
struct Diagnostic {
    enum class Severity { error, warning, note };
    Severity severity = Severity::error; ///< error: the call failed; warning, note: it did not
    std::string file;                    ///< the file concerned (may be empty)
    int line = 0;                        ///< 1-based line, 0 when not known
    int column = 0;                      ///< 1-based column, 0 when not known
    std::string message;                 ///< what is wrong, in one sentence

    /// "file:line:column: error: message", as the tilegen program prints it.
    std::string text() const;
};
using Diagnostics = std::vector<Diagnostic>;

////////////////////////////////////////////////////////////
/// A cell's tile in a layer, as Tiled's global tile ids with firstgid 1 store it.
////////////////////////////////////////////////////////////
struct Tile {
    std::uint32_t gid = 0; ///< 0: no tile; else (tile index + 1) | flip bits (Tiled's layout)

    static constexpr std::uint32_t flip_horizontal = 0x80000000u; ///< mirrored left-right
    static constexpr std::uint32_t flip_vertical = 0x40000000u;   ///< mirrored top-bottom
    static constexpr std::uint32_t flip_diagonal = 0x20000000u;   ///< transposed (x <-> y)

    bool empty() const { return gid == 0; } ///< no tile in this cell
    /// Index of the tile in the tileset atlas (Tileset::names), or -1 when empty.
    int id() const { return static_cast<int>(gid & 0x1fffffffu) - 1; }
    bool flipped_horizontally() const { return (gid & flip_horizontal) != 0; }
    bool flipped_vertically() const { return (gid & flip_vertical) != 0; }
    bool flipped_diagonally() const { return (gid & flip_diagonal) != 0; }
};

////////////////////////////////////////////////////////////
/// One tile layer: width x height tiles, row by row.
////////////////////////////////////////////////////////////
struct Layer {
    std::string name;                ///< the rule files' layer name ("ground", "decor", ...)
    std::vector<std::uint32_t> gids; ///< width * height gids, row-major (Tile::gid)
    /// A corner layer (2x2 rules, docs/rules.md): (width + 1) * (height + 1) gids, tile (i, j)
    /// centred on the corner between cells (i - 1, j - 1) and (i, j), drawn half a tile up and
    /// left.
    bool corner = false;
};

////////////////////////////////////////////////////////////
/// A sprite on top of the tiles (a tree, a rock): its footprint's top-left cell.
////////////////////////////////////////////////////////////
struct Object {
    std::string sprite;        ///< the sprite's name in the objects sheet
    int sprite_index = 0;      ///< its cell in the objects sheet (Sprites::names)
    int x = 0, y = 0;          ///< footprint's top-left cell, in the map's cells
    int width = 1, height = 1; ///< footprint, in cells
};

////////////////////////////////////////////////////////////
/// A place of [[places]] (a town, a dungeon entrance, the start).
////////////////////////////////////////////////////////////
struct Place {
    std::string name;          ///< the [[places]] rule's name
    int x = 0, y = 0;          ///< footprint's top-left cell
    int width = 1, height = 1; ///< footprint, in cells
};

////////////////////////////////////////////////////////////
/// A terrain class of the recipe ([[terrain]]), in recipe order: class id = index.
////////////////////////////////////////////////////////////
struct Terrain {
    std::string name;     ///< e.g. "water"
    char symbol = '?';    ///< its character in rule files and class maps
    bool walkable = true; ///< false for blockers (water, cliffs, walls)
};

////////////////////////////////////////////////////////////
/// An 8-bit RGBA image, row-major, 4 bytes per pixel.
////////////////////////////////////////////////////////////
struct Pixels {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba; ///< width * height * 4 bytes
};

////////////////////////////////////////////////////////////
/// The tile images: tile i is at column i % columns, row i / columns of the atlas.
////////////////////////////////////////////////////////////
struct Tileset {
    int tile_width = 16, tile_height = 16; ///< pixels per tile
    int columns = 1;                       ///< tiles per atlas row
    std::vector<std::string> names;        ///< per tile id
    Pixels atlas;                          ///< the packed tiles
};

////////////////////////////////////////////////////////////
/// The objects' sprite sheet: sprite i at column i % columns, row i / columns of the image, drawn
/// with its bottom-left corner at its footprint's bottom-left cell corner (Object). Empty (no
/// names) when the recipe has no objects sheet.
////////////////////////////////////////////////////////////
struct Sprites {
    int sprite_width = 0, sprite_height = 0; ///< pixels per sprite
    int columns = 1;                         ///< sprites per image row
    std::vector<std::string> names;          ///< per sheet cell ("" for an unused cell)
    Pixels image;                            ///< the sheet
};

////////////////////////////////////////////////////////////
/// What a run measured.
////////////////////////////////////////////////////////////
struct Stats {
    std::uint64_t seed = 0;              ///< the seed used (the kept try's, with constraints)
    std::vector<double> class_fractions; ///< per terrain class: share of the cells
    std::uint64_t unmatched = 0;         ///< cells no tile rule matched (they hold the error tile)
    double total_ms = 0;                 ///< wall time of the generation
    /// Per pipeline stage that ran: its name and wall time in ms (whole maps only).
    std::vector<std::pair<std::string, double>> stage_ms;
};

////////////////////////////////////////////////////////////
/// A generated map or region, in memory.
////////////////////////////////////////////////////////////
class Map {
  public:
    Map();
    ~Map();
    Map(Map&&) noexcept;
    Map& operator=(Map&&) noexcept;

    int x() const;      ///< the area's left column in world cells (0 for whole maps)
    int y() const;      ///< the area's top row in world cells (0 for whole maps)
    int width() const;  ///< cells per row
    int height() const; ///< rows

    /// The class id (index into Generator::terrains()) of cell (cx, cy), 0 <= cx < width().
    int class_at(int cx, int cy) const;
    /// Every cell's class id, row-major (width * height).
    const std::vector<std::uint8_t>& classes() const;

    const std::vector<Layer>& layers() const; ///< tile layers, drawn first to last
    /// Layer `layer`'s tile at cell (cx, cy) (a corner layer: at corner (cx, cy), 0 <= cx <=
    /// width(), 0 <= cy <= height()).
    Tile tile(std::size_t layer, int cx, int cy) const;

    const std::vector<Object>& objects() const; ///< sprites, in drawing order
    const std::vector<Place>& places() const;   ///< [[places]] (whole maps only)
    const Stats& stats() const;

    /// Writes the map as Tiled reads it: PATH.tmx (or .tmj, by the extension) with the tileset
    /// files beside it (PATH-tiles.png, PATH.tsx, and the objects' sheet). False on failure, with
    /// diagnostics appended.
    [[nodiscard]] bool write_tiled(const std::filesystem::path& path, Diagnostics& diags) const;
    /// Writes the PNG preview (every layer and object drawn; reduced to at most 16384 pixels a
    /// side). False on failure, with diagnostics appended.
    [[nodiscard]] bool write_png(const std::filesystem::path& path, Diagnostics& diags) const;
    /// The map drawn in memory at full size (tile layers, then objects).
    Pixels render() const;

    struct Impl;

  private:
    friend class Generator;
    friend class World;
    std::unique_ptr<Impl> impl_;
};

class World;

////////////////////////////////////////////////////////////
/// A loaded recipe: generates whole maps, or a World for chunk-by-chunk generation.
/// Copies share the loaded inputs; a const Generator may be used from several threads.
////////////////////////////////////////////////////////////
class Generator {
  public:
    /// Loads the recipe at `path` with its rule files, tileset and images (relative paths from the
    /// recipe's directory). Nullopt on failure, with diagnostics appended.
    static std::optional<Generator> from_file(const std::filesystem::path& path,
                                              Diagnostics& diags);
    /// Loads a recipe given as TOML text; relative paths in it are resolved from `base_dir`
    /// (diagnostics name the recipe `base_dir/<recipe>.toml`).
    static std::optional<Generator>
    from_string(const std::string& toml, const std::filesystem::path& base_dir, Diagnostics& diags);
    /// tilegen's built-in default recipe (samples/overworld.toml, compiled in).
    static std::optional<Generator> builtin(Diagnostics& diags);

    Generator(const Generator&);
    Generator& operator=(const Generator&);
    Generator(Generator&&) noexcept;
    Generator& operator=(Generator&&) noexcept;
    ~Generator();

    /// Overrides [map] seed (range 0..2^63-1).
    void set_seed(std::uint64_t seed);
    /// Overrides [map] width and height (cells, 1..65536 each; generate() and world() report other
    /// values as an error). For a World this is the size that
    /// sets map-relative noise scales and the threshold sample.
    void set_size(int width, int height);
    /// Worker threads for the heavy stages (default 1; 0: one per core). Outputs never depend on
    /// it.
    void set_threads(int threads);

    std::uint64_t seed() const; ///< the seed a run uses
    int width() const;          ///< the map width a run uses
    int height() const;         ///< the map height a run uses

    const std::vector<Terrain>& terrains() const; ///< the recipe's terrain classes, by class id
    const Tileset& tileset() const;               ///< the tiles the layers' ids index
    const Sprites& sprites() const;               ///< the sheet objects' sprite_index names

    /// Generates the whole map (every stage of the pipeline). Nullopt on failure (a constraint
    /// not met, an input problem), with diagnostics appended.
    std::optional<Map> generate(Diagnostics& diags) const;

    /// A World for generating any region on its own (endless worlds). Only recipes whose maps are
    /// position-based have one (noise kinds computed per cell; no whole-map stage such as erosion,
    /// [rivers], clean-up by min_area/min_width or [classes *] passes): nullopt
    /// otherwise, with a diagnostic at what needs the whole map.
    std::optional<World> world(Diagnostics& diags) const;

    struct Impl;

  private:
    explicit Generator(std::shared_ptr<Impl> impl);
    std::shared_ptr<Impl> impl_;
};

////////////////////////////////////////////////////////////
/// An endless world: thresholds are read once from a sample window (the top-left
/// min(width, 1024) x min(height, 1024) cells of the Generator's size), then any region of the
/// unbounded plane generates on its own, to the same classes and tiles every time. Thread-safe:
/// several threads may call region() at once.
////////////////////////////////////////////////////////////
class World {
  public:
    World(const World&);
    World& operator=(const World&);
    World(World&&) noexcept;
    World& operator=(World&&) noexcept;
    ~World();

    /// Classes and tiles of the cells [x, x + width) x [y, y + height) (negative x, y allowed;
    /// width, height >= 1: std::invalid_argument otherwise), and the objects anchored there
    /// (position-based: the same wherever the region is cut). No places: they need the whole
    /// map.
    Map region(int x, int y, int width, int height) const;

    const std::vector<Terrain>& terrains() const; ///< by class id
    const Tileset& tileset() const;               ///< the tiles the layers' ids index
    const Sprites& sprites() const;               ///< the sheet objects' sprite_index names

    struct Impl;

  private:
    friend class Generator;
    explicit World(std::shared_ptr<const Impl> impl);
    std::shared_ptr<const Impl> impl_;
};

/// The library's version, e.g. "0.1.0".
const char* version();

} // namespace tilegen::api
