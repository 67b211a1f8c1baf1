// Rim tiles laid side by side as the rules lay them: random maps of "same" and "lower" cells for
// every pair of every shipped description, the tiles composed into one picture. The boundary
// continues across every seam, faces are exactly the upper terrain extruded downwards over the
// composed picture (so they continue from one cell into the next), and symmetric sets are exact
// quarter turns.
#include <doctest/doctest.h>

#include <map>
#include <tuple>

#include "core/hash.hpp"
#include "paint/blob.hpp"
#include "paint/paint_support.hpp"
#include "paint/painter.hpp"

using namespace tilegen;
using namespace tilegen::paint;
namespace tp = tilegen::test::paint;

namespace {

struct Composed {
    int cells = 0, size = 0;
    Grid<std::uint8_t> lower; // per cell: 1 = lower terrain
    Grid<Material> pixels;    // upper cells' rim materials, lower cells all Material::lower
    Grid<BlobMask> masks;
};

Composed compose(const Description& d, const Pair& p, std::uint64_t seed, int cells) {
    Composed c;
    c.cells = cells;
    c.size = d.tile_size;
    c.lower = Grid<std::uint8_t>(cells, cells, 0);
    for (int y = 0; y < cells; ++y)
        for (int x = 0; x < cells; ++x)
            c.lower(x, y) = unit_double(hash_values(seed, static_cast<std::uint64_t>(x),
                                                    static_cast<std::uint64_t>(y))) < 0.42;
    c.masks = Grid<BlobMask>(cells, cells, 0);
    c.pixels = Grid<Material>(cells * c.size, cells * c.size, Material::lower);
    for (int y = 1; y + 1 < cells; ++y)
        for (int x = 1; x + 1 < cells; ++x) {
            if (c.lower(x, y)) continue;
            BlobMask m = 0;
            for (int k = 0; k < 8; ++k)
                if (c.lower(x + kNeighbourOffset[static_cast<std::size_t>(k)][0],
                            y + kNeighbourOffset[static_cast<std::size_t>(k)][1]))
                    m |= bit(k);
            m = reduce_blob(m);
            c.masks(x, y) = m;
            static std::map<std::tuple<const Description*, const Pair*, BlobMask>, Grid<Material>>
                cache;
            auto it = cache.find({&d, &p, m});
            if (it == cache.end())
                it = cache.emplace(std::make_tuple(&d, &p, m), rim_materials(d, p, m)).first;
            const Grid<Material>& tile = it->second;
            for (int py = 0; py < c.size; ++py)
                for (int px = 0; px < c.size; ++px)
                    c.pixels(x * c.size + px, y * c.size + py) = tile(px, py);
        }
    return c;
}

bool is_rim(Material m) {
    return m == Material::lower || m == Material::lower_line;
}

std::vector<std::pair<const Description*, const Pair*>> all_pairs() {
    std::vector<std::pair<const Description*, const Pair*>> out;
    for (const char* set : {"overworld", "cave", "two-terrain"}) {
        const Description& d = tp::description(set);
        for (const Pair& p : d.pairs)
            out.emplace_back(&d, &p);
    }
    return out;
}

std::string pair_name(const Description& d, const Pair& p) {
    return d.terrains[static_cast<std::size_t>(p.upper)].name + " over " +
           d.terrains[static_cast<std::size_t>(p.lower)].name;
}

} // namespace

TEST_CASE("paint: every pair of every description: the boundary continues across every seam") {
    for (auto [d, p] : all_pairs()) {
        CAPTURE(pair_name(*d, *p));
        int compared = 0;
        for (std::uint64_t seed = 1; seed <= 12; ++seed) {
            const Composed c = compose(*d, *p, seed * 7919, 10);
            const int n = c.size;
            for (int y = 1; y + 1 < c.cells; ++y)
                for (int x = 1; x + 1 < c.cells; ++x) {
                    if (c.lower(x, y)) continue;
                    // The field agrees on both sides of the seam with the next upper cell east and
                    // south, and a seam with a lower cell is all lower terrain on the upper cell's
                    // side.
                    for (int dir = 0; dir < 2; ++dir) {
                        const int nx = x + (dir == 0), ny = y + (dir == 1);
                        if (nx + 1 >= c.cells || ny + 1 >= c.cells) continue;
                        for (int i = 0; i < n; ++i) {
                            const int ax = dir == 0 ? x * n + n - 1 : x * n + i;
                            const int ay = dir == 0 ? y * n + i : y * n + n - 1;
                            const int bx = dir == 0 ? ax + 1 : ax, by = dir == 0 ? ay : ay + 1;
                            if (c.lower(nx, ny)) {
                                CHECK(c.pixels(ax, ay) == Material::lower);
                                continue;
                            }
                            const double t = i + 0.5;
                            const double ha = dir == 0 ? rim_field(*d, *p, c.masks(x, y), n, t)
                                                       : rim_field(*d, *p, c.masks(x, y), t, n);
                            const double hb = dir == 0 ? rim_field(*d, *p, c.masks(nx, ny), 0, t)
                                                       : rim_field(*d, *p, c.masks(nx, ny), t, 0);
                            if (std::min(ha, hb) > 8.0) continue;
                            ++compared;
                            CHECK(std::abs(ha - hb) < 1e-9);
                            (void)bx;
                            (void)by;
                        }
                    }
                }
        }
        CHECK(compared > 100);
    }
}

TEST_CASE("paint: faces are the upper terrain extruded downwards, across cells") {
    int pairs_with_faces = 0;
    for (auto [d, p] : all_pairs()) {
        if (p->face == Face::none) continue;
        ++pairs_with_faces;
        CAPTURE(pair_name(*d, *p));
        CHECK(p->wobble == 0.0);
        std::uint64_t face_pixels = 0;
        for (std::uint64_t seed = 1; seed <= 30; ++seed) {
            const Composed c = compose(*d, *p, seed * 104729, 10);
            const int n = c.size;
            // Upper cells whose cell below is composed too.
            for (int y = 1; y + 2 < c.cells; ++y)
                for (int x = 1; x + 1 < c.cells; ++x) {
                    if (c.lower(x, y)) continue;
                    for (int py = 0; py < n; ++py)
                        for (int px = 0; px < n; ++px) {
                            const int gx = x * n + px, gy = y * n + py;
                            const Material m = c.pixels(gx, gy);
                            if (is_rim(m)) continue;
                            bool rim_below = false;
                            for (int k = 1; k <= p->face_depth && !rim_below; ++k)
                                rim_below = is_rim(c.pixels(gx, gy + k));
                            CAPTURE(x);
                            CAPTURE(y);
                            CAPTURE(px);
                            CAPTURE(py);
                            CAPTURE(blob_suffix(c.masks(x, y)));
                            CHECK((m == Material::face) == rim_below);
                            face_pixels += m == Material::face;
                        }
                }
        }
        CHECK(face_pixels > 1000);
    }
    CHECK(pairs_with_faces >=
          6); // rock over dirt, grass, forest; cave floor over water, pit; wall over floor
}

TEST_CASE(
    "paint: a symmetric set: turned tiles are exact quarter turns, textures survive turning") {
    const Description& d = tp::description("two-terrain");
    REQUIRE(d.symmetric);
    for (std::size_t t = 0; t < d.terrains.size(); ++t) {
        const Image base = paint_base(d, static_cast<int>(t));
        CHECK(turn_image(base) == base);
    }
    const Pair& p = d.pairs.front();
    const PaintedTileset ts = paint_tileset(d);
    auto tile = [&](const std::string& name) {
        const auto it = std::find(ts.names.begin(), ts.names.end(), name);
        REQUIRE(it != ts.names.end());
        const int i = static_cast<int>(it - ts.names.begin());
        Image img(16, 16);
        img.copy_from(ts.image, (i % ts.columns) * 16, (i / ts.columns) * 16, 16, 16, 0, 0);
        return img;
    };
    const std::vector<std::vector<std::string>> turns = {
        {"grass-edge-n", "grass-edge-e", "grass-edge-s", "grass-edge-w"},
        {"grass-corner-ne", "grass-corner-se", "grass-corner-sw", "grass-corner-nw"},
        {"grass-inner-ne", "grass-inner-se", "grass-inner-sw", "grass-inner-nw"},
        {"grass-band-ns", "grass-band-ew"},
    };
    for (const auto& cycle : turns)
        for (std::size_t i = 0; i + 1 < cycle.size(); ++i) {
            CAPTURE(cycle[i + 1]);
            CHECK(tile(cycle[i + 1]) == turn_image(tile(cycle[i])));
        }
    CHECK(tile("grass-island") == turn_image(tile("grass-island")));
    // Every mask, not only the 15 named ones.
    for (BlobMask m : blob_cases()) {
        if (m == 0) continue;
        CAPTURE(blob_suffix(m));
        CHECK(paint_transition(d, p, turn_mask(m)) == turn_image(paint_transition(d, p, m)));
    }
    // Exactly the 17 tiles of the article's set, in one row.
    CHECK(ts.tile_count() == 17);
    CHECK(ts.image.height() == 16);
}
