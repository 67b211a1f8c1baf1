// The viewer's map pieces (src/viewer/map_pixels.hpp) and the worker that makes them. A chunk must
// be exactly render_map()'s pixels for its cells (the window shows them at zoom 1, so the
// screenshot equals generate's PNG): odd tile sizes, every flip, translucent tiles, hidden layers,
// objects over chunk and map edges.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "core/hash.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"
#include "viewer/build.hpp"
#include "viewer/map_pixels.hpp"
#include "viewer/piece_worker.hpp"

namespace {

using namespace tilegen;
using namespace tilegen::viewer;

Rgba color_of(std::uint64_t h, std::uint8_t alpha) {
    return {static_cast<std::uint8_t>(h), static_cast<std::uint8_t>(h >> 8),
            static_cast<std::uint8_t>(h >> 16), alpha};
}

// A 70 x 45 map of 6 x 4 px tiles (not square: the diagonal flip drops pixels, as in render_map),
// two layers, objects sorted by y in one object layer and shuffled in another.
std::shared_ptr<Build> test_build() {
    auto build = std::make_shared<Build>();
    Map& map = build->result.map;
    map.width = 70;
    map.height = 45;
    Atlas& atlas = map.atlas;
    atlas.tile_width = 6;
    atlas.tile_height = 4;
    atlas.columns = 2;
    atlas.names = {"opaque", "translucent", "holes", "opaque-2"};
    atlas.image = Image(12, 8);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 12; ++x) {
            const int tile = (y / 4) * 2 + x / 6;
            const std::uint64_t h =
                hash_values(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
            const std::uint8_t alpha = tile == 1   ? 120
                                       : tile == 2 ? ((x + y) % 3 == 0 ? 0 : 255)
                                                   : 255;
            atlas.image.set(x, y, color_of(h, alpha));
        }
    const Gid flips[] = {0,
                         kFlipHorizontal,
                         kFlipVertical,
                         kFlipDiagonal,
                         kFlipHorizontal | kFlipVertical,
                         kFlipHorizontal | kFlipDiagonal,
                         kFlipVertical | kFlipDiagonal,
                         kFlipMask};
    for (int layer = 0; layer < 2; ++layer) {
        TileLayer tiles{layer == 0 ? "ground" : "decor", Grid<Gid>(map.width, map.height)};
        for (int y = 0; y < map.height; ++y)
            for (int x = 0; x < map.width; ++x) {
                const std::uint64_t h =
                    hash_values(7, static_cast<std::uint64_t>(layer), static_cast<std::uint64_t>(x),
                                static_cast<std::uint64_t>(y));
                if (layer == 1 && h % 3 != 0) continue;  // decor is sparse
                if (layer == 0 && h % 17 == 0) continue; // a few holes in the ground
                tiles.tiles(x, y) = gid_of(static_cast<int>(h % 4), flips[(h >> 8) % 8]);
            }
        map.layers.push_back(std::move(tiles));
    }
    SpriteAtlas& sprites = map.sprites;
    sprites.sprite_width = 9;
    sprites.sprite_height = 14;
    sprites.columns = 2;
    sprites.names = {"tree", "rock"};
    sprites.image = Image(18, 14);
    for (int y = 0; y < 14; ++y)
        for (int x = 0; x < 18; ++x) {
            const std::uint64_t h =
                hash_values(3, static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
            sprites.image.set(x, y,
                              color_of(h, static_cast<std::uint8_t>(h % 4 == 0   ? 0
                                                                    : h % 4 == 1 ? 90
                                                                                 : 255)));
        }
    const int map_w = map.width * 6, map_h = map.height * 4;
    for (int layer = 0; layer < 2; ++layer) {
        ObjectLayer objects;
        for (int i = 0; i < 400; ++i) {
            const std::uint64_t h =
                hash_values(11, static_cast<std::uint64_t>(layer), static_cast<std::uint64_t>(i));
            // Some hang over the map's edges (render_map clips them).
            objects.objects.push_back(
                {static_cast<int>(h % 2),
                 static_cast<int>((h >> 8) % static_cast<std::uint64_t>(map_w + 12)) - 6,
                 static_cast<int>((h >> 24) % static_cast<std::uint64_t>(map_h + 20)) - 2});
        }
        if (layer == 0)
            std::stable_sort(objects.objects.begin(), objects.objects.end(),
                             [](const MapObject& a, const MapObject& b) { return a.y < b.y; });
        map.object_layers.push_back(std::move(objects));
    }
    build->objects_by_y = {true, false};
    for (int i = 0; i < atlas.tile_count(); ++i)
        build->tile_opaque.push_back(i == 0 || i == 3);
    return build;
}

Image crop(const Image& image, int x, int y, int w, int h) {
    Image out(w, h);
    out.copy_from(image, x, y, w, h, 0, 0);
    return out;
}

// Every chunk of `build` with layer mask `layers` against the same cells of
// render_map(`reference`).
void check_chunks(const Build& build, std::uint64_t layers, const Map& reference) {
    const Image full = render_map(reference);
    const int cells = chunk_cells(build);
    const int tw = build.tile_width(), th = build.tile_height();
    for (int cy = 0; cy * cells < build.height(); ++cy)
        for (int cx = 0; cx * cells < build.width(); ++cx) {
            CAPTURE(cx);
            CAPTURE(cy);
            const Image piece = make_piece(build, {kChunk, 0, cx, cy, layers});
            const int w = std::min(cells, build.width() - cx * cells),
                      h = std::min(cells, build.height() - cy * cells);
            REQUIRE(piece.width() == w * tw);
            REQUIRE(piece.height() == h * th);
            CHECK(piece == crop(full, cx * cells * tw, cy * cells * th, w * tw, h * th));
        }
}

} // namespace

TEST_CASE("map pieces: a chunk is render_map's pixels for its cells (flips, translucency, objects "
          "over edges)") {
    const auto build = test_build();
    CHECK(chunk_cells(*build) ==
          32); // 32 x 6 px fits 512: chunks 32 x 32 cells, the last ones smaller
    check_chunks(*build, ~std::uint64_t{0}, build->result.map);
    // A hidden layer is left out, as if the map did not have it.
    Map ground_only = build->result.map;
    ground_only.layers.pop_back();
    check_chunks(*build, 1, ground_only);
}

TEST_CASE("map pieces: a corner layer's chunks are render_map's pixels (without its margin)") {
    auto build = test_build();
    Map& map = build->result.map;
    // The decor layer becomes a corner layer: (W+1) x (H+1) tiles, drawn half a tile up and left.
    TileLayer corners{"corners", Grid<Gid>(map.width + 1, map.height + 1), true};
    for (int j = 0; j <= map.height; ++j)
        for (int i = 0; i <= map.width; ++i) {
            const std::uint64_t h =
                hash_values(9, static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(j));
            if (h % 5 != 0)
                corners.tiles(i, j) =
                    gid_of(static_cast<int>(h % 4), (h >> 8) % 2 ? kFlipHorizontal : 0);
        }
    map.layers[1] = std::move(corners);
    const Image full = render_map(map);
    const int tw = build->tile_width(), th = build->tile_height();
    REQUIRE(full.width() == map.width * tw + tw / 2);
    REQUIRE(full.height() == map.height * th + th / 2);
    const int cells = chunk_cells(*build);
    for (int cy = 0; cy * cells < build->height(); ++cy)
        for (int cx = 0; cx * cells < build->width(); ++cx) {
            CAPTURE(cx);
            CAPTURE(cy);
            const Image piece = make_piece(*build, {kChunk, 0, cx, cy, ~std::uint64_t{0}});
            const int w = std::min(cells, build->width() - cx * cells),
                      h = std::min(cells, build->height() - cy * cells);
            CHECK(piece ==
                  crop(full, tw / 2 + cx * cells * tw, th / 2 + cy * cells * th, w * tw, h * th));
        }
}

TEST_CASE("map pieces: chunk size follows the tile size") {
    auto build = test_build();
    build->result.map.atlas.tile_width = 16;
    CHECK(chunk_cells(*build) == 32);
    build->result.map.atlas.tile_width = 17;
    CHECK(chunk_cells(*build) == 16);
    build->result.map.atlas.tile_height = 600;
    CHECK(chunk_cells(*build) == 1);
}

TEST_CASE("map pieces: blocks and the overview stop at the map's edge, a class block shows class "
          "colors") {
    auto build = test_build();
    Grid<ClassId> classes(build->width(), build->height());
    for (int y = 0; y < build->height(); ++y)
        for (int x = 0; x < build->width(); ++x)
            classes(x, y) = static_cast<ClassId>((x / 3 + y) % 2);
    build->result.classes = classes;
    build->class_color = {{10, 20, 30, 255}, {200, 100, 50, 255}};
    const Image level0 = make_piece(*build, {kModeClasses, 0, 0, 0, 0});
    REQUIRE(level0.width() == 70); // one texel per cell, 70 x 45 cells: less than a block
    REQUIRE(level0.height() == 45);
    for (int y = 0; y < 45; ++y)
        for (int x = 0; x < 70; ++x)
            REQUIRE(level0.get(x, y) == build->class_color[classes(x, y)]);
    const Image level3 = make_piece(*build, {kModeClasses, 3, 0, 0, 0});
    CHECK(level3.width() == 9); // ceil(70 / 8)
    CHECK(level3.height() == 6);
    CHECK(overview_level(70, 45, 16) == 3);
    CHECK(overview_level(4096, 4096, kOverviewTexels) == 2);
    CHECK(overview_level(1, 1, kOverviewTexels) == 0);
    build->tile_average = {{1, 2, 3, 255}, {4, 5, 6, 255}, {7, 8, 9, 255}, {10, 11, 12, 255}};
    const Image overview = make_overview(*build, 3);
    CHECK(overview.width() == 9);
    CHECK(overview.height() == 6);
}

TEST_CASE(
    "piece worker: makes the wanted pieces (BGRA when asked) and drops those of a replaced build") {
    const auto build = test_build();
    PieceWorker worker;
    worker.set_bgra(true);
    const std::vector<PieceKey> keys = {{kChunk, 0, 1, 0, ~std::uint64_t{0}},
                                        {kChunk, 0, 2, 1, ~std::uint64_t{0}}};
    worker.want(build, keys);
    std::vector<MadePiece> made;
    for (int wait = 0; wait < 2000 && made.size() < keys.size(); ++wait) {
        for (MadePiece& m : worker.take(build.get()))
            made.push_back(std::move(m));
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    REQUIRE(made.size() == keys.size());
    for (const MadePiece& m : made) {
        Image expected = make_piece(*build, m.key);
        CHECK(m.opaque == is_opaque(expected));
        swap_red_blue(expected);
        CHECK(m.pixels == expected);
    }
    // Pieces of the first build are not handed out for another one.
    const auto other = test_build();
    worker.want(build, {{kChunk, 0, 0, 0, 1}});
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(worker.take(other.get()).empty());
}

TEST_CASE("the inspector shows the four corners around a cell of a corner layer, as explain") {
    Diagnostics d;
    auto project = io::load_project(test::source_dir() / "samples" / "two-terrain-corners.toml",
                                    io::DiskFiles{}, d);
    REQUIRE(project);
    GenerateOptions options;
    options.keep_details = true;
    const auto build = make_build(std::move(*project), options);
    const std::vector<std::string> lines = inspect_cell(*build, 5, 7);
    const GenerateResult& r = build->result;
    const char* names[4] = {"nw", "ne", "sw", "se"};
    for (int k = 0; k < 4; ++k) {
        const int i = 5 + k % 2, j = 7 + k / 2;
        const std::string head = std::string("ground ") + names[k] + " corner (" +
                                 std::to_string(i) + ", " + std::to_string(j) + "): ";
        const auto it = std::find_if(lines.begin(), lines.end(),
                                     [&](const std::string& l) { return l.starts_with(head); });
        REQUIRE(it != lines.end());
        CHECK(it->ends_with(", gid " + std::to_string(r.map.layers[0].tiles(i, j))));
    }
}
