#include <doctest/doctest.h>

#include <cmath>

#include "core/heightfield/harmonic_noise.hpp"
#include "core/objects/object_placement.hpp"

using namespace tilegen;

namespace {
SpriteSheet sheet() {
    Diagnostics d;
    auto s = parse_sprite_sheet("image = \"o.png\"\nsprite_width = 32\nsprite_height = 48\n[sprites]\n"
                                "oak = { index = 0, footprint = [2, 2] }\nrock = { index = 1, footprint = [1, 1] }\n",
                                "o.toml", d);
    REQUIRE(s);
    REQUIRE(attach_sprite_image(*s, Image(64, 48), 16, 16, d));
    return *s;
}
} // namespace

TEST_CASE("objects stand on their classes, never overlap, keep their spacing, and are y-sorted") {
    const SpriteSheet sprites = sheet();
    const int w = 90, h = 70;
    auto heights = harmonic_noise({}, 3, w, h, {0, 0, w, h});
    ClassGrid classes(w, h);
    for (std::size_t i = 0; i < classes.size(); ++i) classes.cells()[i] = heights.cells()[i] < 0.5f ? 0 : 1;
    NamedMaps maps{{"trees", harmonic_noise({}, 4, w, h, {0, 0, w, h})}};
    ObjectRule trees;
    trees.sprites = {"oak"};
    trees.weights = {1};
    trees.on = 0b10;
    trees.density = "trees";
    trees.threshold = 0.3;
    trees.spacing = 3;
    ObjectRule rocks;
    rocks.sprites = {"rock"};
    rocks.weights = {1};
    rocks.on = 0b11;
    rocks.chance = 0.3;
    rocks.spacing = 5;
    const std::vector<ObjectRule> rules{trees, rocks};
    auto placed = place_objects(classes, maps, rules, sprites, 11);
    REQUIRE(placed.size() > 20);
    CHECK(placed == place_objects(classes, maps, rules, sprites, 11));
    CHECK(placed != place_objects(classes, maps, rules, sprites, 12));

    Grid<int> cover(w, h, 0);
    int oaks = 0, rock_count = 0;
    for (const auto& o : placed) {
        const SpriteInfo& s = sprites.sprites[static_cast<std::size_t>(o.sprite)];
        (s.name == "oak" ? oaks : rock_count)++;
        for (int y = 0; y < s.footprint_h; ++y)
            for (int x = 0; x < s.footprint_w; ++x) {
                REQUIRE(classes.contains(o.x + x, o.y + y));
                const bool allowed = (rules[static_cast<std::size_t>(o.rule)].on >> classes(o.x + x, o.y + y)) & 1u;
                CHECK(allowed);
                ++cover(o.x + x, o.y + y);
            }
        if (s.name == "oak") CHECK(maps[0].second(o.x, o.y) >= 0.3f);
    }
    CHECK(oaks > 5);
    CHECK(rock_count > 5);
    for (int v : cover.cells()) CHECK(v <= 1);
    for (std::size_t i = 0; i < placed.size(); ++i)
        for (std::size_t j = i + 1; j < placed.size(); ++j)
            if (placed[i].rule == placed[j].rule) {
                const double dx = placed[i].x - placed[j].x, dy = placed[i].y - placed[j].y;
                CHECK(std::sqrt(dx * dx + dy * dy) >= rules[static_cast<std::size_t>(placed[i].rule)].spacing);
            }
    for (std::size_t i = 1; i < placed.size(); ++i) {
        auto bottom = [&](const PlacedObject& o) { return o.y + sprites.sprites[static_cast<std::size_t>(o.sprite)].footprint_h; };
        const bool ordered = bottom(placed[i - 1]) < bottom(placed[i]) ||
                             (bottom(placed[i - 1]) == bottom(placed[i]) && placed[i - 1].x <= placed[i].x);
        CHECK(ordered);
    }
}

TEST_CASE("sprite sheets: bad manifests point at the problem") {
    struct Bad {
        const char* text;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {"sprite_width = 32\n[sprites]\n", 1, 1, "sprite sheet has no 'image'"},
        {"image = \"o.png\"\n[sprites]\noak = 3\n", 3, 7, "sprite 'oak' must be a table"},
        {"image = \"o.png\"\n[sprites]\noak = { index = 0, footprint = [0, 2] }\n", 3, 32, "footprint' must be [width, height]"},
        {"image = \"o.png\"\n[sprites]\noak = { footprint = [1, 1] }\n", 3, 7, "sprite 'oak' has no 'index'"},
        {"image = \"o.png\"\n[sprites]\noak = { index = 0, size = 2 }\n", 3, 20, "unknown key 'sprites.oak.size'"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics d;
        CHECK_FALSE(parse_sprite_sheet(b.text, "o.toml", d));
        REQUIRE(!d.empty());
        CHECK(d[0].line == b.line);
        CHECK(d[0].column == b.column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
    }
    Diagnostics d;
    auto s = parse_sprite_sheet("image = \"o.png\"\nsprite_width = 16\nsprite_height = 16\n[sprites]\n"
                                "big = { index = 0, footprint = [2, 1] }\nfar = { index = 5, footprint = [1, 1] }\n",
                                "o.toml", d);
    REQUIRE(s);
    CHECK_FALSE(attach_sprite_image(*s, Image(32, 16), 16, 16, d));
    REQUIRE(d.size() == 2);
    CHECK(d[0].message.find("footprint of 2x1 tiles, larger than its 16x16 pixel cell") != std::string::npos);
    CHECK(d[1].message.find("has index 5 but the image holds 2 sprites") != std::string::npos);
}
