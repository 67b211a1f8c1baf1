// The small hand-built map behind the map writer's golden cases (tests/data/writer-*/): 6x4 cells
// of 8x8 tiles, two tile layers (the second with flip bits and empty cells), a Wang set, map
// properties that need escaping, and two sprites with three objects; for infinite cases the same
// gids as a function of the world cell, over chunks of 4 around the origin. Its tiles are
// asymmetric and opaque or clear, so a wrong flip or a wrong cell shows in a rendering.
#pragma once

#include <string>
#include <vector>

#include "core/map.hpp"
#include "io/tmx_writer.hpp"

namespace tilegen::test {

inline int floor_mod(int a, int m) {
    return ((a % m) + m) % m;
}

// The gid of world cell (x, y) in tile layer 0 ("ground": tiles 1..3) or 1 ("over & <detail>":
// tile 4, flipped by the cell's parity, on some cells; else empty).
inline Gid writer_sample_gid(std::size_t layer, int x, int y) {
    if (layer == 0) return static_cast<Gid>(1 + floor_mod(x + 2 * y, 3));
    if (floor_mod(x * y + x, 5) != 0) return 0;
    return 4 | (floor_mod(x, 2) ? kFlipHorizontal : 0) | (floor_mod(y, 2) ? kFlipVertical : 0) |
           (floor_mod(x + y, 4) == 0 ? kFlipDiagonal : 0);
}

// Layers, tiles, properties; objects only when asked (infinite maps have none).
inline Map writer_sample_map(bool objects, int width = 6, int height = 4, int x0 = 0, int y0 = 0) {
    Map m;
    m.width = width;
    m.height = height;
    Atlas& a = m.atlas;
    a.tile_width = 8;
    a.tile_height = 8;
    a.columns = 2;
    a.names = {"grass", "water", "sand", "flower"};
    a.terrain = {'g', 'w', 's', 0};
    a.probability = {1, 0.5, 1, 0.25};
    a.wang_colors = {"grass", "water"};
    a.wang_rgb = {0x40a040, 0x3060c0};
    a.wang = {{1, 1, 1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2, 2, 2}, {}, {}};
    a.image = Image(16, 16);
    const Rgba base[4] = {{60, 170, 70, 255}, {40, 90, 200, 255}, {210, 190, 120, 255}, {}};
    for (int t = 0; t < 4; ++t)
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 8; ++x) {
                Rgba c = base[t];
                if (t == 3) // a flower: an L of red on clear
                    c = (x == 1 && y < 6) || (y == 5 && x < 5) ? Rgba{220, 40, 40, 255} : Rgba{};
                else if (x < 3 && y < 2)
                    c = {250, 250, 250, 255}; // a mark in one corner: flips show
                a.image.set((t % 2) * 8 + x, (t / 2) * 8 + y, c);
            }
    m.layers.push_back({"ground", Grid<Gid>(width, height)});
    m.layers.push_back({"over & <detail>", Grid<Gid>(width, height)});
    for (std::size_t l = 0; l < 2; ++l)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                m.layers[l].tiles(x, y) = writer_sample_gid(l, x0 + x, y0 + y);
    m.properties = {{"generator", "string", "tilegen golden"},
                    {"note", "string", "a \"quoted\" <tag> & more"},
                    {"count", "int", "7"}};
    if (objects) {
        m.sprites.sprite_width = 8;
        m.sprites.sprite_height = 16;
        m.sprites.columns = 2;
        m.sprites.names = {"tree", "rock <big>"};
        m.sprites.image = Image(16, 16);
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 8; ++x) {
                if ((x - 4) * (x - 4) + (y - 5) * (y - 5) < 12 || (x >= 3 && x < 5 && y >= 8))
                    m.sprites.image.set(x, y,
                                        Rgba{30, static_cast<std::uint8_t>(100 + y * 5), 40, 255});
                if (y >= 10 && (x + y) % 5 != 0)
                    m.sprites.image.set(8 + x, y,
                                        Rgba{130, 130, static_cast<std::uint8_t>(100 + x), 255});
            }
        // In y order (the order tilegen places them), bottom-left anchored, inside the map.
        m.object_layers.push_back({"objects", {{0, 8, 16}, {0, 40, 24}, {1, 24, 32}}});
    }
    return m;
}

// The infinite cases' chunks: region x -8..7, y -4..3 in chunks of 4.
struct WriterSampleChunks {
    std::vector<Gid> cells;
    io::MapChunks chunks;
    WriterSampleChunks() {
        chunks.chunk = 4;
        chunks.region = {-8, -4, 16, 8};
        chunks.gids = [this](std::size_t layer, const Region& area) -> std::span<const Gid> {
            cells.clear();
            for (int y = area.y; y < area.y + area.height; ++y)
                for (int x = area.x; x < area.x + area.width; ++x)
                    cells.push_back(writer_sample_gid(layer, x, y));
            return cells;
        };
    }
    WriterSampleChunks(const WriterSampleChunks&) = delete;
    WriterSampleChunks& operator=(const WriterSampleChunks&) = delete;
};

// One golden case: tests/data/<dir>/ holds the map (map.tmx or map.tmj) and the files beside it.
struct WriterCase {
    std::string dir;
    std::string map_file; // map.tmx or map.tmj
    bool infinite = false;
    io::TilesetPlacement tilesets = io::TilesetPlacement::external;
    io::LayerEncoding encoding = io::LayerEncoding::csv;
};

// TMX/TMJ x finite/infinite x external/embedded in csv, and two in plain base64 (compressed data
// would tie the files to a zlib or zstd version).
inline std::vector<WriterCase> writer_cases() {
    std::vector<WriterCase> out;
    for (const char* format : {"tmx", "tmj"})
        for (bool infinite : {false, true})
            for (auto t : {io::TilesetPlacement::external, io::TilesetPlacement::embedded})
                out.push_back(
                    {std::string("writer-") + format + (infinite ? "-infinite" : "-finite") +
                         (t == io::TilesetPlacement::external ? "-external" : "-embedded"),
                     std::string("map.") + format, infinite, t, io::LayerEncoding::csv});
    out.push_back({"writer-tmx-finite-embedded-base64", "map.tmx", false,
                   io::TilesetPlacement::embedded, io::LayerEncoding::base64});
    out.push_back({"writer-tmj-infinite-external-base64", "map.tmj", true,
                   io::TilesetPlacement::external, io::LayerEncoding::base64});
    return out;
}

// Writes the case's bundle into `dir`.
[[nodiscard]] inline bool write_writer_case(const WriterCase& c, const std::filesystem::path& dir,
                                            int threads, Diagnostics& diags) {
    io::MapOutputOptions options;
    options.encoding = c.encoding;
    options.threads = threads;
    options.tilesets = c.tilesets;
    if (!c.infinite)
        return io::write_tmx_bundle(writer_sample_map(true), dir / c.map_file, diags, options);
    WriterSampleChunks chunks;
    Map header = writer_sample_map(false, 0, 0);
    header.width = 13; // the size asked for (inside the chunks' 16 x 8), as the map's size
    header.height = 7;
    return io::write_tmx_bundle(header, dir / c.map_file, diags, options, &chunks.chunks);
}

} // namespace tilegen::test
