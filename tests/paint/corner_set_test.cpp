// Corner sets (set = "corner" / "corner-layer"): the 14 marching-squares tiles of a pair. Their
// borders meet across tile edges, turned cases are turned tiles, the shipped tilesets are what
// the descriptions paint, and the corner Wang ids agree with the corner rules (so Tiled's terrain
// brush, which picks the tile whose corner colours match, places the same tiles as the rules).
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "core/pipeline.hpp"
#include "core/tileset/wang.hpp"
#include "io/file_source.hpp"
#include "io/png.hpp"
#include "io/project_loader.hpp"
#include "paint/paint_support.hpp"
#include "paint/painter.hpp"

using namespace tilegen;
using namespace tilegen::paint;

namespace {
// Quadrant mask bit of corner k (0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right).
int bit_of(int k) {
    return 1 << (3 - k);
}
// The mask turned a quarter clockwise: top-left -> top-right -> bottom-right -> bottom-left.
int turn(int m) {
    auto up = [&](int k) { return (m & bit_of(k)) != 0; };
    return (up(2) ? bit_of(0) : 0) | (up(0) ? bit_of(1) : 0) | (up(3) ? bit_of(2) : 0) |
           (up(1) ? bit_of(3) : 0);
}
} // namespace

TEST_CASE("corner field: upper at upper corners, borders agree across shared tile edges, straight "
          "45-degree borders") {
    const int n = 16;
    for (int m = 0; m < 16; ++m) {
        CAPTURE(m);
        // At each tile corner (a cell centre) the sign is that cell's.
        const double cx[4] = {0.5, n - 0.5, 0.5, n - 0.5}, cy[4] = {0.5, 0.5, n - 0.5, n - 0.5};
        for (int k = 0; k < 4; ++k)
            CHECK((corner_field(n, m, cx[k], cy[k]) >= 0) == ((m & bit_of(k)) != 0));
        // The right edge of tile m and the left edge of any tile m2 whose left corners are m's
        // right corners: the same sign all along (the border continues).
        for (int m2 = 0; m2 < 16; ++m2) {
            const bool tl2 = m2 & bit_of(0), bl2 = m2 & bit_of(2);
            if (tl2 != ((m & bit_of(1)) != 0) || bl2 != ((m & bit_of(3)) != 0)) continue;
            for (double y = 0.25; y < n; y += 0.5) {
                const double a = corner_field(n, m, n, y), b = corner_field(n, m2, 0, y);
                if (std::abs(a) < 1e-9 || std::abs(b) < 1e-9) continue;
                CHECK((a > 0) == (b > 0));
            }
        }
    }
    // One upper corner: the border is the straight line x + y = n/2 (a 45-degree diagonal).
    for (double t = 0.5; t < 8; t += 0.5)
        CHECK(std::abs(corner_field(n, bit_of(0), t, 8 - t)) < 1e-9);
}

TEST_CASE("corner sets: 14 tiles per pair, in a symmetric set turned cases are turned tiles, the "
          "shipped corner tilesets are what their descriptions paint") {
    const Description& d = test::paint::description("two-terrain-corners");
    REQUIRE(d.pairs.size() == 1);
    const auto tiles = rim_tiles(d, d.pairs[0]);
    REQUIRE(tiles.size() == 14);
    CHECK(tiles.front().name == "grass-water-corner-lllu");
    for (const RimTile& t : tiles) {
        CAPTURE(t.name);
        const Image turned = turn_image(paint_transition(d, d.pairs[0], t.mask));
        CHECK(turned == paint_transition(d, d.pairs[0], static_cast<std::uint8_t>(turn(t.mask))));
    }
    for (const char* set : {"two-terrain-corners", "overworld-corners"}) {
        CAPTURE(set);
        const PaintedTileset painted = paint_tileset(test::paint::description(set));
        Diagnostics diags;
        auto shipped = io::load_image(test::source_dir() / "tilesets" / set / "tileset.png", diags);
        REQUIRE(shipped);
        CHECK(*shipped == painted.image);
    }
    // corner-layer: the lower side is transparent (but for the lower lines).
    const Description& o = test::paint::description("overworld-corners");
    const Image sand = paint_transition(o, o.pairs[1], static_cast<std::uint8_t>(bit_of(0)));
    CHECK(sand.get(15, 15).a == 0);
    CHECK(sand.get(0, 0).a == 255);
}

TEST_CASE("corner Wang ids match the corner rules: the brush's tile for four corner colours is the "
          "rule's tile") {
    Diagnostics d;
    auto project = io::load_project(test::source_dir() / "samples" / "two-terrain-corners.toml",
                                    io::DiskFiles{}, d);
    REQUIRE(project);
    GenerateOptions options;
    options.width = 40;
    options.height = 30;
    const GenerateResult r = generate_map(*project, options);
    const Atlas& atlas = r.map.atlas;
    REQUIRE(atlas.wang_corner);
    REQUIRE(atlas.wang.size() == static_cast<std::size_t>(atlas.tile_count()));
    const TileLayer& layer = r.map.layers.front();
    REQUIRE(layer.corner);
    long checked = 0;
    for (int j = 0; j <= r.map.height; ++j)
        for (int i = 0; i <= r.map.width; ++i) {
            auto cls = [&](int x, int y) {
                return r.classes(std::clamp(x, 0, r.map.width - 1),
                                 std::clamp(y, 0, r.map.height - 1));
            };
            const WangId& id =
                atlas.wang[static_cast<std::size_t>(atlas_index_of(layer.tiles(i, j)))];
            // wangid corners: 7 top-left, 1 top-right, 5 bottom-left, 3 bottom-right; colour =
            // class + 1.
            CHECK(id[7] == cls(i - 1, j - 1) + 1);
            CHECK(id[1] == cls(i, j - 1) + 1);
            CHECK(id[5] == cls(i - 1, j) + 1);
            CHECK(id[3] == cls(i, j) + 1);
            CHECK(id[0] == 0);
            ++checked;
        }
    CHECK(checked == 41 * 31);
    // Every combination of four corner colours has exactly one tile (the brush has no choice).
    std::set<WangId> seen;
    for (const WangId& id : atlas.wang)
        if (id != WangId{}) CHECK(seen.insert(id).second);
    CHECK(seen.size() == 16);
}
