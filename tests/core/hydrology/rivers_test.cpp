// Rivers over many seeds (issue 16's "done when"), checked from the final class grid and the
// carved heightfield with plain loops, independently of how the hydrology found them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

// The samples with [rivers], and the overworld with method "agents" (tests/data/rivers). Without
// their [[places]], [roads] and [constraints]: the bridges, roads and fords those write over
// river cells afterwards are checked by places_pipeline_test.cpp; here, the rivers as the
// hydrology leaves them through the class stages, the objects and the rules.
std::optional<Project> rivers_recipe(const std::string& path) {
    Diagnostics d;
    auto project = io::load_project(test::source_dir() / path, io::DiskFiles{}, d);
    if (project) project->recipe.places = {};
    return project;
}

struct Ids {
    int river = -1, lake = -1, waterfall = -1;
    std::uint32_t into = 0;
};

Ids ids_of(const Recipe& recipe) {
    Ids ids;
    const std::string symbols = terrain_symbols(recipe);
    const RiverSettings& s = *recipe.rivers;
    ids.river = static_cast<int>(symbols.find(s.river_symbol));
    if (s.lake_symbol) ids.lake = static_cast<int>(symbols.find(s.lake_symbol));
    if (s.waterfall_symbol) ids.waterfall = static_cast<int>(symbols.find(s.waterfall_symbol));
    for (char c : s.into)
        ids.into |= 1u << symbols.find(c);
    return ids;
}

bool adjacent(std::int64_t a, std::int64_t b, int w) {
    const std::int64_t ax = a % w, ay = a / w, bx = b % w, by = b / w;
    return std::abs(ax - bx) + std::abs(ay - by) == 1;
}

struct Tally {
    int maps = 0, count_in_range = 0, rivers = 0, waterfalls = 0;
    std::uint64_t lake_cells = 0;
};

void check_map(const Project& project, std::uint64_t seed, Tally& tally) {
    const Recipe& recipe = project.recipe;
    const Ids ids = ids_of(recipe);
    GenerateOptions options;
    options.seed = seed;
    const GenerateResult r = generate_map(project, options);
    CAPTURE(recipe.name);
    CAPTURE(seed);
    REQUIRE(r.hydrology);
    const ClassGrid& g = r.classes;
    const Grid<float>& carved = r.heights;
    const int w = g.width(), h = g.height();
    REQUIRE(carved.width() == w);
    const auto cls = [&](std::int64_t c) {
        return static_cast<int>(g.cells()[static_cast<std::size_t>(c)]);
    };
    const auto is_river = [&](std::int64_t c) {
        return cls(c) == ids.river || (ids.waterfall >= 0 && cls(c) == ids.waterfall);
    };
    const auto ends_ok = [&](std::int64_t c) {
        return c < 0 || ((ids.into >> cls(c)) & 1u) || (ids.lake >= 0 && cls(c) == ids.lake);
    };
    CHECK(r.unmatched == 0);
    // No lake beside the sea: a depression that reaches an `into` class holds that water, not a
    // lake (else slivers of lake line the shores).
    if (ids.lake >= 0)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                if (g(x, y) != ids.lake) continue;
                ++tally.lake_cells;
                const int dx[4] = {0, -1, 1, 0}, dy[4] = {-1, 0, 0, 1};
                for (int k = 0; k < 4; ++k)
                    if (g.contains(x + dx[k], y + dy[k]))
                        CHECK(((ids.into >> g(x + dx[k], y + dy[k])) & 1u) == 0);
            }
    ++tally.maps;
    const auto& rivers = r.hydrology->rivers;
    tally.rivers += static_cast<int>(rivers.size());
    if (static_cast<int>(rivers.size()) >= recipe.rivers->count_min &&
        static_cast<int>(rivers.size()) <= recipe.rivers->count_max)
        ++tally.count_in_range;

    std::vector<int> owner(g.size(), -1);
    std::vector<std::int64_t> down(g.size(), -2); // -2: no river cell
    for (std::size_t ri = 0; ri < rivers.size(); ++ri) {
        const RiverReport& river = rivers[ri];
        REQUIRE(!river.stem.empty());
        CHECK(river.length == static_cast<int>(river.stem.size()));
        CHECK(river.length >= 1);
        for (std::size_t i = 0; i < river.stem.size(); ++i) {
            const std::uint32_t c = river.stem[i];
            CHECK(owner[c] == -1);
            owner[c] = static_cast<int>(ri);
            down[c] = i + 1 < river.stem.size() ? static_cast<std::int64_t>(river.stem[i + 1])
                                                : river.end;
            if (i + 1 < river.stem.size()) {
                // Never rises, 4-connected, never narrower downstream.
                CHECK(adjacent(c, river.stem[i + 1], w));
                CHECK(carved.cells()[river.stem[i + 1]] <= carved.cells()[c]);
                CHECK(river.widths[i + 1] >= river.widths[i]);
            }
        }
        // Where it ends: the map edge (the mouth on it), or a 4-neighbour of an `into` class or
        // a lake.
        const std::uint32_t mouth = river.stem.back();
        CHECK(river.mouth_x == static_cast<int>(mouth % w));
        CHECK(river.mouth_y == static_cast<int>(mouth / w));
        CHECK(river.max_width == river.widths.back());
        if (river.end < 0) {
            const int mx = river.mouth_x, my = river.mouth_y;
            CHECK((mx == 0 || my == 0 || mx == w - 1 || my == h - 1));
            CHECK(river.ends_in == -1);
        } else {
            CHECK(adjacent(mouth, river.end, w));
            CHECK(ends_ok(river.end));
            CHECK(river.ends_in == cls(river.end));
        }
        // Waterfalls: exactly the stem cells at least waterfall_drop above the next cell, or in
        // the highest band with the next cell below it (and the bank cells they claimed).
        const std::size_t row_cuts = recipe.classes.biomes
                                         ? recipe.classes.biomes->row_shares.size() - 1
                                         : r.thresholds.size();
        const float top = r.thresholds[row_cuts - 1];
        const float drop = static_cast<float>(recipe.rivers->waterfall_drop);
        std::vector<bool> falls(river.stem.size());
        for (std::size_t i = 0; i < river.stem.size(); ++i) {
            const std::int64_t next = i + 1 < river.stem.size()
                                          ? static_cast<std::int64_t>(river.stem[i + 1])
                                          : river.end;
            const float a = carved.cells()[river.stem[i]];
            const float b = next < 0 ? a : carved.cells()[static_cast<std::size_t>(next)];
            falls[i] = next >= 0 && ((drop > 0 && a - b >= drop) || (a >= top && b < top));
            CHECK((cls(river.stem[i]) == ids.waterfall) == falls[i]);
            tally.waterfalls += falls[i] ? 1 : 0;
        }
        for (const RiverPath::Bank& b : river.banks)
            CHECK((cls(b.cell) == ids.waterfall) == falls[b.stem_index]);
        for (const RiverPath::Bank& b : river.banks) {
            CHECK(owner[b.cell] == -1);
            CHECK(owner[b.down] == static_cast<int>(ri)); // drains into its own river
            CHECK(adjacent(b.cell, b.down, w));
            CHECK(carved.cells()[b.down] <= carved.cells()[b.cell]);
            owner[b.cell] = static_cast<int>(ri);
            down[b.cell] = b.down;
        }
        // One 4-connected piece.
        std::vector<std::uint32_t> cells(river.stem.begin(), river.stem.end());
        for (const auto& b : river.banks)
            cells.push_back(b.cell);
        std::set<std::uint32_t> in(cells.begin(), cells.end()), seen{cells.front()};
        std::vector<std::uint32_t> todo{cells.front()};
        while (!todo.empty()) {
            const std::uint32_t c = todo.back();
            todo.pop_back();
            const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
            const int dx[4] = {0, -1, 1, 0}, dy[4] = {-1, 0, 0, 1};
            for (int k = 0; k < 4; ++k) {
                if (!g.contains(x + dx[k], y + dy[k])) continue;
                const auto n = static_cast<std::uint32_t>((y + dy[k]) * w + x + dx[k]);
                if (in.count(n) && seen.insert(n).second) todo.push_back(n);
            }
        }
        CHECK(seen.size() == in.size());
    }
    // The final river cells are exactly the hydrology's, and each has a downstream neighbour
    // that is river, lake or `into` (or it drains off the map).
    std::uint64_t lake_cells = 0;
    for (std::size_t c = 0; c < g.size(); ++c) {
        const auto i = static_cast<std::int64_t>(c);
        if (ids.lake >= 0 && cls(i) == ids.lake) ++lake_cells;
        CHECK(is_river(i) == (owner[c] >= 0));
        if (owner[c] < 0) continue;
        const std::int64_t d = down[c];
        CHECK((d < 0 || is_river(d) || ends_ok(d)));
    }
    std::uint64_t reported = 0;
    for (const LakeReport& l : r.hydrology->lakes)
        reported += l.cells;
    CHECK(lake_cells == reported);
    // No object on river, lake or waterfall cells.
    for (const PlacedObject& o : r.objects) {
        const SpriteInfo& info = project.sprites->sprites[static_cast<std::size_t>(o.sprite)];
        for (int y = o.y; y < o.y + info.footprint_h; ++y)
            for (int x = o.x; x < o.x + info.footprint_w; ++x)
                CHECK(!recipe.terrain[g(x, y)].overlay);
    }
}

} // namespace

TEST_CASE("rivers: 200 seeds of overworld and archipelago flow downhill into the sea or lakes") {
    for (const char* name :
         {"samples/overworld.toml", "samples/archipelago.toml", "samples/overworld-corners.toml",
          "tests/data/rivers/overworld-agents.toml"}) {
        const auto project = rivers_recipe(name);
        REQUIRE(project);
        Tally tally;
        // (50 seeds in the sanitizer build: enough for waterfalls and lakes in every recipe.)
        for (std::uint64_t seed = 1; seed <= std::uint64_t(test::cases(200, 50)); ++seed)
            check_map(*project, seed, tally);
        CAPTURE(name);
        CAPTURE(tally.rivers);
        CHECK(tally.count_in_range * 100 >= tally.maps * 99);
        CHECK(tally.waterfalls > 0); // the rule is exercised
        CHECK(tally.lake_cells > 0); // lakes = { min_area = ... } keeps lakes, with either method
    }
}

TEST_CASE("rivers: the same map at 1, 2 and 8 threads") {
    for (const char* name : {"samples/overworld.toml", "samples/archipelago.toml"}) {
        const auto project = rivers_recipe(name);
        REQUIRE(project);
        for (std::uint64_t seed = 1; seed <= 12; ++seed) {
            GenerateOptions options;
            options.seed = seed;
            options.threads = 1;
            const GenerateResult one = generate_map(*project, options);
            for (int threads : {2, 8}) {
                options.threads = threads;
                const GenerateResult many = generate_map(*project, options);
                CHECK(many.classes == one.classes);
                CHECK(many.heights == one.heights);
                REQUIRE(many.map.layers.size() == one.map.layers.size());
                for (std::size_t i = 0; i < one.map.layers.size(); ++i)
                    CHECK(many.map.layers[i].tiles == one.map.layers[i].tiles);
                CHECK(many.objects == one.objects);
            }
        }
    }
}

TEST_CASE("rivers: the classes stage gives the carved map's classes (cut again only near rivers)") {
    // The classes stage reuses the uncarved classes and cuts again only the cells around the
    // rivers; against cutting the whole carved map (classes_with_thresholds), on every cell the
    // overlay (rivers, lakes, waterfalls) left. With carve > 0 the valleys change classes too.
    for (const char* name : {"samples/overworld.toml", "tests/data/rivers/overworld-agents.toml"}) {
        auto project = rivers_recipe(name);
        REQUIRE(project);
        std::size_t changed = 0; // cells whose class the carving changed
        for (double carve : {0.0, 0.1}) {
            project->recipe.rivers->carve = carve;
            for (std::uint64_t seed = 1; seed <= 4; ++seed) {
                GenerateOptions options;
                options.seed = seed;
                const GenerateResult r = generate_map(*project, options);
                CAPTURE(name);
                CAPTURE(seed);
                const ClassGrid& cut = r.classes_before_passes.empty() ? r.classes_before_cleanup
                                                                       : r.classes_before_passes;
                REQUIRE(!cut.empty());
                const ClassGrid whole =
                    classes_with_thresholds(project->recipe, r.maps, r.thresholds);
                std::vector<std::pair<std::string, Grid<float>>> uncarved = r.maps;
                REQUIRE(r.hydrology);
                for (std::size_t c = 0; c < cut.size(); ++c) {
                    if (project->recipe.terrain[cut.cells()[c]].overlay) continue;
                    CHECK(cut.cells()[c] == whole.cells()[c]);
                }
                for (auto& [map_name, grid] : uncarved)
                    if (map_name == class_maps(project->recipe).front())
                        grid = compute_map(project->recipe, map_name, r.seed, grid.width(),
                                           grid.height(), {0, 0, grid.width(), grid.height()});
                const ClassGrid before =
                    classes_with_thresholds(project->recipe, uncarved, r.thresholds);
                for (std::size_t c = 0; c < cut.size(); ++c)
                    changed += !project->recipe.terrain[cut.cells()[c]].overlay &&
                               before.cells()[c] != whole.cells()[c];
            }
        }
        CHECK(changed > 0); // the carving changed some classes the overlay left
    }
}
