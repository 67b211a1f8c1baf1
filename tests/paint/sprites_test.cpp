// Object sprites: the sheet follows the convention of objects.toml (footprint at the bottom-left of
// its cell, overhang above it only, everything else transparent), sprites have a dark outline and a
// soft contact shadow inside the footprint, painting is deterministic, and the manifest loads with
// the library's sprite-sheet reader.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include <toml++/toml.h>

#include "core/objects/sprite_sheet.hpp"
#include "paint/emit.hpp"
#include "paint/paint_support.hpp"
#include "paint/sprites.hpp"

using namespace tilegen;
using namespace tilegen::paint;
namespace tp = tilegen::test::paint;

TEST_CASE("paint: sprites follow the objects.toml convention") {
    int sprites = 0;
    for (const char* set : {"overworld", "cave"}) {
        const Description& d = tp::description(set);
        REQUIRE(d.objects);
        const Objects& o = *d.objects;
        const Image sheet = paint_objects(d);
        const int columns = std::min(o.columns, static_cast<int>(d.sprites.size()));
        CHECK(sheet.width() == columns * o.sprite_width);
        CHECK(sheet.height() ==
              ((static_cast<int>(d.sprites.size()) + columns - 1) / columns) * o.sprite_height);
        CHECK(sheet == paint_objects(d)); // deterministic
        for (std::size_t i = 0; i < d.sprites.size(); ++i) {
            const Sprite& s = d.sprites[i];
            CAPTURE(s.name);
            ++sprites;
            const int x0 = static_cast<int>(i % static_cast<std::size_t>(columns)) * o.sprite_width;
            const int y0 =
                static_cast<int>(i / static_cast<std::size_t>(columns)) * o.sprite_height;
            const int fw = s.footprint_w * d.tile_size, fh = s.footprint_h * d.tile_size;
            const Image cell = paint_sprite(d, s);
            int opaque_in_footprint = 0, shadow_pixels = 0, opaque = 0;
            for (int y = 0; y < o.sprite_height; ++y)
                for (int x = 0; x < o.sprite_width; ++x) {
                    const Rgba c = cell.get(x, y);
                    CHECK(sheet.get(x0 + x, y0 + y) == c);
                    const bool in_footprint = x < fw && y >= o.sprite_height - fh;
                    // Right of the footprint's columns: nothing at all (overhang only goes up).
                    if (x >= fw) CHECK(c.a == 0);
                    if (c.a == 255) {
                        ++opaque;
                        if (in_footprint) ++opaque_in_footprint;
                        // The silhouette's edge is the outline colour.
                        auto clear = [&](int nx, int ny) {
                            return nx < 0 || ny < 0 || nx >= o.sprite_width ||
                                   ny >= o.sprite_height || cell.get(nx, ny).a < 255;
                        };
                        if (clear(x + 1, y) || clear(x - 1, y) || clear(x, y + 1) ||
                            clear(x, y - 1))
                            CHECK_MESSAGE(c == s.outline, "at " << x << "," << y);
                    } else if (c.a > 0) {
                        ++shadow_pixels; // translucent pixels would blend differently in Tiled,
                                         // SFML and tilegen: sprites are opaque or clear (the
                                         // shadow is dithered)
                    }
                }
            CHECK(opaque_in_footprint > 20);
            CHECK(shadow_pixels == 0);
            CHECK(opaque > 40);
            // Painted from its palette: it uses several shades of it.
            std::set<std::uint32_t> used;
            for (int y = 0; y < o.sprite_height; ++y)
                for (int x = 0; x < o.sprite_width; ++x) {
                    const Rgba c = cell.get(x, y);
                    if (c.a == 255 &&
                        std::find(s.palette.begin(), s.palette.end(), c) != s.palette.end())
                        used.insert(static_cast<std::uint32_t>(c.r << 16 | c.g << 8 | c.b));
                }
            CHECK(used.size() >= 3);
            // Trees overhang their footprint; rocks and bushes stay on it.
            bool above = false;
            for (int y = 0; y < o.sprite_height - fh; ++y)
                for (int x = 0; x < fw; ++x)
                    above = above || cell.get(x, y).a > 0;
            if (s.shape == Shape::oak || s.shape == Shape::pine) CHECK(above);
            if (s.shape == Shape::rock || s.shape == Shape::bush) CHECK_FALSE(above);
        }
    }
    CHECK(sprites >= 8);
}

TEST_CASE("paint: the sprite manifest has the agreed format and loads with the library's reader") {
    for (const char* set : {"overworld", "cave"}) {
        CAPTURE(set);
        const Description& d = tp::description(set);
        const std::string manifest = objects_manifest(d, "paint.toml");
        toml::table t = toml::parse(manifest);
        CHECK(t["image"].value_or(std::string()) == "objects.png");
        CHECK(t["sprite_width"].value_or(0) == d.objects->sprite_width);
        CHECK(t["sprite_height"].value_or(0) == d.objects->sprite_height);
        const toml::table* sprites = t["sprites"].as_table();
        REQUIRE(sprites);
        CHECK(sprites->size() == d.sprites.size());
        for (std::size_t i = 0; i < d.sprites.size(); ++i) {
            const auto* s = (*sprites)[d.sprites[i].name].as_table();
            REQUIRE(s);
            CHECK(s->size() == 2);
            CHECK((*s)["index"].value_or(-1) == static_cast<int>(i));
            CHECK((*s)["footprint"][0].value_or(0) == d.sprites[i].footprint_w);
            CHECK((*s)["footprint"][1].value_or(0) == d.sprites[i].footprint_h);
        }
        Diagnostics diags;
        auto sheet = parse_sprite_sheet(manifest, "objects.toml", diags);
        for (const auto& e : diags)
            MESSAGE(format_diagnostic(e));
        REQUIRE(sheet);
        CHECK(attach_sprite_image(*sheet, paint_objects(d), d.tile_size, d.tile_size, diags));
        CHECK(diags.empty());
    }
    const Description& ow = tp::description("overworld");
    std::set<std::string> names;
    for (const auto& s : ow.sprites)
        names.insert(s.name);
    for (const char* needed : {"oak", "pine", "rock", "bush"})
        CHECK(names.count(needed) == 1);
    std::set<std::string> cave;
    for (const auto& s : tp::description("cave").sprites)
        cave.insert(s.name);
    for (const char* needed : {"stalagmite", "crystal"})
        CHECK(cave.count(needed) == 1);
}
