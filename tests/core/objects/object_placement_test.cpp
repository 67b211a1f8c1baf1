#include <doctest/doctest.h>
#include <stdexcept>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/heightfield/harmonic_noise.hpp"
#include "core/objects/object_placement.hpp"

using namespace tilegen;

namespace {
// A sprite sheet from its manifest text and an image of the given size (16x16 tiles).
SpriteSheet sheet_from(const std::string& manifest, int image_width, int image_height) {
    Diagnostics d;
    auto s = parse_sprite_sheet(manifest, "o.toml", d);
    REQUIRE(s);
    REQUIRE(attach_sprite_image(*s, Image(image_width, image_height), 16, 16, d));
    return *s;
}

SpriteSheet sheet() {
    return sheet_from(
        "image = \"o.png\"\nsprite_width = 32\nsprite_height = 48\n[sprites]\n"
        "oak = { index = 0, footprint = [2, 2] }\nrock = { index = 1, footprint = [1, 1] }\n",
        64, 48);
}
} // namespace

TEST_CASE("objects stand on their classes, never overlap, keep their spacing, and are y-sorted") {
    const SpriteSheet sprites = sheet();
    const int w = 90, h = 70;
    auto heights = harmonic_noise({}, 3, w, h, {0, 0, w, h});
    ClassGrid classes(w, h);
    for (std::size_t i = 0; i < classes.size(); ++i)
        classes.cells()[i] = heights.cells()[i] < 0.5f ? 0 : 1;
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
                const bool allowed =
                    (rules[static_cast<std::size_t>(o.rule)].on >> classes(o.x + x, o.y + y)) & 1u;
                CHECK(allowed);
                ++cover(o.x + x, o.y + y);
            }
        if (s.name == "oak") CHECK(maps[0].second(o.x, o.y) >= 0.3f);
    }
    CHECK(oaks > 5);
    CHECK(rock_count > 5);
    for (int v : cover.cells())
        CHECK(v <= 1);
    for (std::size_t i = 0; i < placed.size(); ++i)
        for (std::size_t j = i + 1; j < placed.size(); ++j)
            if (placed[i].rule == placed[j].rule) {
                const double dx = placed[i].x - placed[j].x, dy = placed[i].y - placed[j].y;
                CHECK(std::sqrt(dx * dx + dy * dy) >=
                      rules[static_cast<std::size_t>(placed[i].rule)].spacing);
            }
    for (std::size_t i = 1; i < placed.size(); ++i) {
        auto bottom = [&](const PlacedObject& o) {
            return o.y + sprites.sprites[static_cast<std::size_t>(o.sprite)].footprint_h;
        };
        const bool ordered =
            bottom(placed[i - 1]) < bottom(placed[i]) ||
            (bottom(placed[i - 1]) == bottom(placed[i]) && placed[i - 1].x <= placed[i].x);
        CHECK(ordered);
    }
}

namespace {
// Every object on allowed classes (whole footprint), inside the map, no overlaps, same-rule anchors
// at least their spacing apart (checked against every anchor within reach, through a grid of
// buckets), drawing order.
void check_invariants(const std::vector<PlacedObject>& placed, const ClassGrid& classes,
                      const std::vector<ObjectRule>& rules, const SpriteSheet& sprites) {
    const int w = classes.width(), h = classes.height();
    Grid<int> cover(w, h, 0);
    bool on_classes = true, inside = true, overlap_free = true, ordered = true, spaced = true;
    for (const auto& o : placed) {
        const SpriteInfo& s = sprites.sprites[static_cast<std::size_t>(o.sprite)];
        for (int y = 0; y < s.footprint_h; ++y)
            for (int x = 0; x < s.footprint_w; ++x) {
                if (!classes.contains(o.x + x, o.y + y)) {
                    inside = false;
                    continue;
                }
                on_classes =
                    on_classes &&
                    ((rules[static_cast<std::size_t>(o.rule)].on >> classes(o.x + x, o.y + y)) &
                     1u);
                overlap_free = overlap_free && ++cover(o.x + x, o.y + y) == 1;
            }
    }
    auto bottom = [&](const PlacedObject& o) {
        return o.y + sprites.sprites[static_cast<std::size_t>(o.sprite)].footprint_h;
    };
    for (std::size_t i = 1; i < placed.size(); ++i)
        ordered = ordered &&
                  (bottom(placed[i - 1]) < bottom(placed[i]) ||
                   (bottom(placed[i - 1]) == bottom(placed[i]) && placed[i - 1].x < placed[i].x));
    for (std::size_t r = 0; r < rules.size(); ++r) {
        const double spacing = rules[r].spacing;
        const int cell = std::max(1, static_cast<int>(std::ceil(spacing)));
        const int gw = w / cell + 1, gh = h / cell + 1;
        std::vector<std::vector<const PlacedObject*>> bucket(static_cast<std::size_t>(gw * gh));
        for (const auto& o : placed)
            if (o.rule == static_cast<int>(r))
                bucket[static_cast<std::size_t>(o.y / cell * gw + o.x / cell)].push_back(&o);
        for (const auto& o : placed) {
            if (o.rule != static_cast<int>(r)) continue;
            for (int gy = std::max(0, o.y / cell - 1); gy <= std::min(gh - 1, o.y / cell + 1); ++gy)
                for (int gx = std::max(0, o.x / cell - 1); gx <= std::min(gw - 1, o.x / cell + 1);
                     ++gx)
                    for (const PlacedObject* q : bucket[static_cast<std::size_t>(gy * gw + gx)]) {
                        if (q == &o) continue;
                        const double dx = q->x - o.x, dy = q->y - o.y;
                        if (dx * dx + dy * dy < spacing * spacing) {
                            if (spaced)
                                MESSAGE("rule " << r << ": anchors (" << o.x << "," << o.y
                                                << ") and (" << q->x << "," << q->y
                                                << ") closer than " << spacing);
                            spaced = false;
                        }
                    }
        }
    }
    CHECK(inside);
    CHECK(on_classes);
    CHECK(overlap_free);
    CHECK(ordered);
    CHECK(spaced);
}
} // namespace

TEST_CASE("objects: identical at every thread count, spacing kept where tiles meet") {
    const SpriteSheet sprites = sheet();
    // Tall enough for several tile rows of every rule (64 rows or more, 2 * spacing for wide
    // spacings), and wide enough for several strips of tiles on more than one thread for the
    // spacings up to 9.
    const int w = 640,
              h = 704; // a multiple of 64: the last tile row and chunk end at the map's edge
    auto heights = harmonic_noise({}, 5, w, h, {0, 0, w, h});
    ClassGrid classes(w, h);
    for (std::size_t i = 0; i < classes.size(); ++i)
        classes.cells()[i] = heights.cells()[i] < 0.35f ? 0 : 1;
    NamedMaps maps{{"trees", harmonic_noise({}, 6, w, h, {0, 0, w, h})}};
    std::vector<ObjectRule> rules;
    for (double spacing : {2.0, 1.0, 3.5, 5.0, 9.0, 40.0, 150.0}) {
        ObjectRule r;
        r.sprites = {"oak", "rock"};
        r.weights = {1, 2};
        r.on = spacing == 2.0 ? 0b10 : 0b11;
        r.density = spacing == 2.0 ? "trees" : "";
        r.threshold = spacing == 2.0 ? 0.3 : 0;
        r.chance = spacing == 1.0 ? 0.2 : 0.9;
        r.spacing = spacing;
        rules.push_back(r);
    }
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        CAPTURE(seed);
        const auto one = place_objects(classes, maps, rules, sprites, seed, 1);
        REQUIRE(one.size() > 1000);
        for (int threads : {2, 3, 8}) {
            CAPTURE(threads);
            CHECK(place_objects(classes, maps, rules, sprites, seed, threads) == one);
        }
        check_invariants(one, classes, rules, sprites);
        // Objects of every rule, including near tile borders (rows around multiples of 64).
        for (std::size_t r = 0; r < rules.size(); ++r) {
            CAPTURE(r);
            CHECK(std::count_if(one.begin(), one.end(), [&](const PlacedObject& o) {
                      return o.rule == static_cast<int>(r);
                  }) > 0);
        }
        const auto near_border = std::count_if(one.begin(), one.end(), [](const PlacedObject& o) {
            return o.rule == 0 && (o.y % 64 <= 1 || o.y % 64 >= 62);
        });
        CHECK(near_border > 20);
    }
}

TEST_CASE("objects: no seams: every row away from the edges holds as many objects as the others") {
    // A dense forest on one class, spacing 2. A placer that decides in scan order over bands (or
    // cells) that start with nothing above them packs their first rows in lockstep and thins the
    // next ones: rows with too many or too few trees every band. Rounds over hashed priorities have
    // no such rows: away from the map's edges (which have fewer neighbours) every row is alike.
    const SpriteSheet sprites = sheet();
    const int w = 1024, h = 1024;
    const ClassGrid classes(w, h, 0);
    ObjectRule trees;
    trees.sprites = {"oak"};
    trees.weights = {1};
    trees.on = 1;
    trees.spacing = 2;
    trees.chance = 0.6;
    // Trees per row by row mod 128, from row 128 to row h - 129 (the map's first and last rows
    // have fewer neighbours).
    std::vector<double> trees_at(128, 0), rows_at(128, 0);
    for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
        const auto placed = place_objects(classes, {}, {trees}, sprites, seed, 2);
        for (const auto& o : placed)
            if (o.y >= 128 && o.y < h - 128) ++trees_at[static_cast<std::size_t>(o.y % 128)];
        for (int y = 128; y < h - 128; ++y)
            ++rows_at[static_cast<std::size_t>(y % 128)];
    }
    auto per_row = [&](int r) {
        return trees_at[static_cast<std::size_t>(r)] / rows_at[static_cast<std::size_t>(r)];
    };
    double interior = 0;
    int n = 0;
    for (int r = 16; r < 48; ++r, n += 2)
        interior += per_row(r) + per_row(r + 64);
    interior /= n;
    CHECK(interior > 0.3 * w / 4); // dense: a third of the 2x2 packing at least
    for (int r : {0, 1, 2, 3, 61, 62, 63, 64, 65, 66, 67, 124, 125, 126, 127}) {
        CAPTURE(r);
        CHECK(per_row(r) == doctest::Approx(interior).epsilon(0.05));
    }
}

TEST_CASE("objects: chance and density scale the acceptance of each attempt") {
    // One class, 1x1 sprites, spacing 1 (no neighbour excludes another): a cell gets an object when
    // either of its two attempts is accepted, so the share of cells with an object is 1 - (1 -
    // p)^2.
    const SpriteSheet pebbles =
        sheet_from("image = \"o.png\"\nsprite_width = 16\nsprite_height = 16\n[sprites]\n"
                   "pebble = { index = 0, footprint = [1, 1] }\n",
                   16, 16);
    const int w = 300, h = 300;
    const ClassGrid classes(w, h, 0);
    NamedMaps maps{{"flat", Grid<float>(w, h, 0.65f)}, {"low", Grid<float>(w, h, 0.25f)}};
    auto share = [&](double chance, const std::string& density, double threshold) {
        ObjectRule r;
        r.sprites = {"pebble"};
        r.weights = {1};
        r.on = 1;
        r.spacing = 1;
        r.chance = chance;
        r.density = density;
        r.threshold = threshold;
        return static_cast<double>(place_objects(classes, maps, {r}, pebbles, 5, 2).size()) /
               (w * h);
    };
    CHECK(share(1, "", 0) == 1);
    CHECK(share(0, "", 0) == 0);
    CHECK(share(0.3, "", 0) == doctest::Approx(1 - 0.7 * 0.7).epsilon(0.03));
    // Density 0.65 over a threshold of 0.3: (0.65 - 0.3) / (1 - 0.3) = half the chance.
    CHECK(share(0.6, "flat", 0.3) == doctest::Approx(1 - 0.7 * 0.7).epsilon(0.03));
    CHECK(share(1, "low", 0.3) == 0); // density below the threshold
    CHECK(share(1, "flat", 1) == 0);  // threshold 1: nothing
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
        {"image = \"o.png\"\n[sprites]\noak = { index = 0, footprint = [0, 2] }\n", 3, 32,
         "footprint' must be [width, height]"},
        {"image = \"o.png\"\n[sprites]\noak = { footprint = [1, 1] }\n", 3, 7,
         "sprite 'oak' has no 'index'"},
        {"image = \"o.png\"\n[sprites]\noak = { index = 0, size = 2 }\n", 3, 20,
         "unknown key 'sprites.oak.size'"},
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
    auto s = parse_sprite_sheet(
        "image = \"o.png\"\nsprite_width = 16\nsprite_height = 16\n[sprites]\n"
        "big = { index = 0, footprint = [2, 1] }\nfar = { index = 5, footprint = [1, 1] }\n",
        "o.toml", d);
    REQUIRE(s);
    CHECK_FALSE(attach_sprite_image(*s, Image(32, 16), 16, 16, d));
    REQUIRE(d.size() == 2);
    CHECK(d[0].message.find("footprint of 2x1 tiles, larger than its 16x16 pixel cell") !=
          std::string::npos);
    CHECK(d[1].message.find("has index 5 but the image holds 2 sprites") != std::string::npos);
}

TEST_CASE("objects: a missing or too small density map is the caller's bug, never read as none") {
    const SpriteSheet pebbles =
        sheet_from("image = \"o.png\"\nsprite_width = 16\nsprite_height = 16\n[sprites]\n"
                   "pebble = { index = 0, footprint = [1, 1] }\n",
                   16, 16);
    const ClassGrid classes(20, 10, 0);
    ObjectRule r;
    r.sprites = {"pebble"};
    r.weights = {1};
    r.on = 1;
    r.density = "trees";
    CHECK_THROWS_AS(place_objects(classes, {}, {r}, pebbles, 5, 1), std::logic_error);
    const NamedMaps small{{"trees", Grid<float>(20, 9, 1.0f)}};
    CHECK_THROWS_AS(place_objects(classes, small, {r}, pebbles, 5, 1), std::logic_error);
    const NamedMaps exact{{"trees", Grid<float>(20, 10, 1.0f)}};
    CHECK_FALSE(place_objects(classes, exact, {r}, pebbles, 5, 1).empty());
}
