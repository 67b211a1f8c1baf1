// The shipped samples, loaded from disk as a user's recipe would be: they load cleanly, cover every
// neighbourhood, leave no cell unmatched for any seed, and keep their class shares.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/pipeline.hpp"
#include "core/quality/map_stats_of.hpp"
#include "core/rules/rule_check.hpp"
#include "core/rules/rule_matcher.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"

using namespace tilegen;
namespace fs = std::filesystem;

namespace {} // namespace

TEST_CASE("every sample: every 3x3 neighbourhood is decided by a real rule, not the catch-all") {
    // (A recipe with [rules] legalise draws only some neighbourhoods on purpose: legalise keeps
    // the others out of its class grids; the next test case checks that on 200 seeds.)
    for (const fs::path& recipe : test::sample_recipes()) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        for (const auto& x : d)
            FAIL_CHECK(format_diagnostic(x));
        REQUIRE(project);
        if (project->recipe.rules.legalise) continue;
        const int k = static_cast<int>(project->recipe.terrain.size());
        const double cases = std::pow(k, 9);
        if (cases > 2e6) continue; // exhaustive only where it is small
        auto layers = build_layers(*project, std::vector<int>(project->images.size(), 0), 0);
        for (const LayerRules& layer : layers) {
            ClassGrid g(3, 3);
            long uncovered = 0;
            for (long code = 0; code < static_cast<long>(cases); ++code) {
                long c = code;
                for (int i = 0; i < 9; ++i, c /= k)
                    g.cells()[static_cast<std::size_t>(i)] = static_cast<ClassId>(c % k);
                int r = first_match(g, 1, 1, layer.ordered, {});
                if (r == kNoRule ||
                    layer.ordered[static_cast<std::size_t>(r)].pattern.specificity() == 0)
                    ++uncovered;
            }
            CHECK_MESSAGE(uncovered == 0, "layer " << layer.name << ": " << uncovered
                                                   << " neighbourhoods uncovered");
        }
    }
}

namespace {

// Every 4-connected region of one class: (class, cells), by a plain flood fill. With `overlays`
// (a class mask), regions of overlay classes and regions every bordering cell of which is overlay
// (land a river encloses) are left out, and so are regions of the `mouths` classes that touch an
// overlay cell (the water a river ends in, which the hydrology keeps where the clean-up would
// merge it away: keep_river_ends in pipeline.cpp).
// With `cutters` (a class mask: the roads and bridges, drawn over the cleaned-up classes), regions
// that touch one of their cells are left out too.
std::vector<std::pair<ClassId, std::size_t>> region_sizes(const ClassGrid& g,
                                                          std::uint32_t overlays = 0,
                                                          std::uint32_t mouths = 0,
                                                          std::uint32_t cutters = 0) {
    const auto is_overlay = [overlays](ClassId c) { return c < 32 && ((overlays >> c) & 1u); };
    std::vector<std::pair<ClassId, std::size_t>> out;
    Grid<int> seen(g.width(), g.height(), 0);
    for (int y0 = 0; y0 < g.height(); ++y0)
        for (int x0 = 0; x0 < g.width(); ++x0) {
            if (seen(x0, y0)) continue;
            const ClassId c = g(x0, y0);
            std::vector<std::pair<int, int>> stack{{x0, y0}};
            seen(x0, y0) = 1;
            std::size_t cells = 0;
            bool bordered = false, by_land = false, by_overlay = false, by_cutter = false;
            while (!stack.empty()) {
                const auto [x, y] = stack.back();
                stack.pop_back();
                ++cells;
                const int dx[] = {1, -1, 0, 0}, dy[] = {0, 0, 1, -1};
                for (int k = 0; k < 4; ++k) {
                    const int nx = x + dx[k], ny = y + dy[k];
                    if (!g.contains(nx, ny)) continue;
                    if (g(nx, ny) != c) {
                        bordered = true;
                        by_land = by_land || !is_overlay(g(nx, ny));
                        by_overlay = by_overlay || is_overlay(g(nx, ny));
                        by_cutter = by_cutter || (g(nx, ny) < 32 && ((cutters >> g(nx, ny)) & 1u));
                    } else if (!seen(nx, ny)) {
                        seen(nx, ny) = 1;
                        stack.emplace_back(nx, ny);
                    }
                }
            }
            if (is_overlay(c) || (bordered && !by_land)) continue;
            if (by_overlay && c < 32 && ((mouths >> c) & 1u)) continue;
            if (by_cutter) continue;
            out.emplace_back(c, cells);
        }
    return out;
}

} // namespace

TEST_CASE("every sample, 200 seeds: no unmatched cell, shares kept, objects on their classes and "
          "never overlapping") {
    for (const fs::path& recipe : test::sample_recipes()) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        REQUIRE(project);
        std::uint64_t objects = 0;
        for (std::uint64_t seed = 1; seed <= std::uint64_t(test::cases(200)); ++seed) {
            GenerateOptions options;
            options.seed = seed * 7919;
            options.width = 32 + static_cast<int>(seed % 5) * 8;
            options.height = 28;
            options.threads = 2;
            auto result = generate_map(*project, options);
            CAPTURE(seed);
            REQUIRE(result.unmatched == 0);
            // No cell is decided by a rule whose targets are all the error tile (the catch-all).
            const Gid error_gid = gid_of(result.map.atlas.tile_count() - 1);
            for (const TileLayer& layer : result.map.layers)
                for (const Gid g : layer.tiles.cells())
                    REQUIRE((g & ~kFlipMask) != error_gid);
            if (project->recipe.rules.legalise) CHECK(result.legalise.undrawable == 0);
            // The percentiles give each class its share to within a cell or so (the class passes
            // and clean-ups after them move it: the next test case; rivers written over the cut
            // classes move it too, and keep_shares hands it back: share_error below).
            if (!project->recipe.classes.biomes && !project->recipe.rivers)
                for (std::size_t i = 0; i < project->recipe.terrain.size(); ++i)
                    CHECK(std::abs(result.classified_fractions[i] -
                                   project->recipe.terrain[i].share) <= 0.005);
            // No region smaller than its class's min_area remains (an independent count), but
            // land a river encloses (every cell around it overlay: the clean-up leaves it, as
            // class_cleanup.hpp says) and, with [roads], land a road or bridge cuts off (they
            // are drawn over the cleaned-up classes): the same seed without places and roads
            // has none either.
            std::uint32_t cutters = 0;
            if (const auto& roads = project->recipe.places.roads)
                cutters = (1u << roads->road_class) | (1u << roads->bridge_class);
            std::vector<const ClassGrid*> grids{&result.classes};
            GenerateResult bare_result;
            if (cutters) {
                Project bare = *project;
                bare.recipe.places = {};
                GenerateOptions bare_options = options;
                bare_options.seed = result.seed; // the seed the constraints kept
                bare_result = generate_map(bare, bare_options);
                grids.push_back(&bare_result.classes);
            }
            for (const ClassGrid* grid : grids)
                for (const auto& [cls, cells] :
                     region_sizes(*grid, overlay_mask(project->recipe), 0, cutters)) {
                    const int min_area = project->recipe.cleanup[cls].min_area;
                    if (cells != grid->size()) CHECK(cells >= std::max(min_area, 1));
                }
            Grid<int> cover(result.classes.width(), result.classes.height(), 0);
            for (const PlacedObject& o : result.objects) {
                ++objects;
                const SpriteInfo& s = project->sprites->sprites[static_cast<std::size_t>(o.sprite)];
                const ObjectRule& rule = project->recipe.objects[static_cast<std::size_t>(o.rule)];
                for (int y = o.y; y < o.y + s.footprint_h; ++y)
                    for (int x = o.x; x < o.x + s.footprint_w; ++x) {
                        REQUIRE(result.classes.contains(x, y));
                        const bool allowed = (rule.on >> result.classes(x, y)) & 1u;
                        REQUIRE(allowed);
                        REQUIRE(++cover(x, y) == 1);
                    }
            }
        }
        if (!project->recipe.objects.empty()) CHECK(objects > std::uint64_t(test::cases(200)));
    }
}

TEST_CASE("every sample at its own size, 200 seeds: every class within a point of its share "
          "(share_error)") {
    for (const fs::path& recipe : test::sample_recipes()) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        REQUIRE(project);
        double worst = 0;
        for (std::uint64_t seed = 1; seed <= std::uint64_t(test::cases(200)); ++seed) {
            GenerateOptions options;
            options.seed = seed;
            options.threads = 2;
            options.keep_details = false;
            // Roads, bridges and the reachability fill ([[places]], [roads], [constraints]) move
            // cells after the shares stage on purpose: the shares are those the class stages
            // leave, the same seed without them.
            Project bare = *project;
            bare.recipe.places = {};
            const GenerateResult result = generate_map(bare, options);
            std::vector<double> targets = share_targets(project->recipe, result);
            // An independent count of the final classes; shares are of the cells that are not
            // overlay terrain (rivers, lakes, waterfalls), the targets renormalised alike.
            const std::uint32_t overlays = overlay_mask(project->recipe);
            std::vector<double> count(project->recipe.terrain.size(), 0.0);
            double cut = 0, target_sum = 0;
            for (const ClassId c : result.classes.cells()) {
                count[c] += 1;
                cut += (overlays >> c) & 1u ? 0 : 1;
            }
            for (std::size_t c = 0; c < targets.size(); ++c) {
                if ((overlays >> c) & 1u) targets[c] = std::nan("");
                if (!std::isnan(targets[c])) target_sum += targets[c];
            }
            for (std::size_t c = 0; c < count.size(); ++c) {
                if (std::isnan(targets[c])) continue;
                const double error = (count[c] / cut - targets[c] / target_sum) * 100;
                CAPTURE(seed);
                CAPTURE(c);
                CHECK(std::abs(error) <= 1.0);
                worst = std::max(worst, std::abs(error));
            }
        }
        MESSAGE(recipe.filename().string() << ": largest share_error " << worst << " points");
    }
}

TEST_CASE(
    "overworld and archipelago: no specks, and the clean-up moves no class share by more than "
    "a point (256x256, seeds 1-8)") {
    for (const char* name : {"overworld.toml", "archipelago.toml"}) {
        CAPTURE(name);
        Diagnostics d;
        auto project = io::load_project(test::source_dir() / "samples" / name, io::DiskFiles{}, d);
        REQUIRE(project);
        // Every class cut from the heightfield; the overlays (river, lake, waterfall: written by
        // the hydrology stage; road, bridge: by the roads stage; never cut) have no cells here.
        for (std::size_t i = 0; i < project->recipe.cleanup.size(); ++i) {
            const std::string& terrain = project->recipe.terrain[i].name;
            CAPTURE(terrain);
            if (terrain != "river" && terrain != "lake" && terrain != "waterfall" &&
                terrain != "road" && terrain != "bridge")
                CHECK(project->recipe.cleanup[i].min_area >= 4);
        }
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            GenerateOptions options;
            options.seed = seed;
            options.width = options.height = 256;
            options.threads = 2;
            const GenerateResult result = generate_map(*project, options);
            CAPTURE(seed);
            // Roads, bridges and the reachability fill are drawn over the cleaned-up classes:
            // land they cut off may be small, and they move cells between classes on purpose. The
            // same seed without places and roads (`bare`) has no specks and keeps the shares.
            std::uint32_t cutters = 0;
            if (const auto& roads = project->recipe.places.roads)
                cutters = (1u << roads->road_class) | (1u << roads->bridge_class);
            GenerateResult bare_result;
            if (cutters) {
                Project bare = *project;
                bare.recipe.places = {};
                GenerateOptions bare_options = options;
                bare_options.seed = result.seed; // the seed the constraints kept
                bare_result = generate_map(bare, bare_options);
            }
            const GenerateResult& classes_result = cutters ? bare_result : result;
            // share_error (over the cells that are not overlay terrain): within a point.
            const MapStats stats = map_stats_of(*project, classes_result, 2);
            for (std::size_t i = 0; i < project->recipe.terrain.size(); ++i)
                if (!std::isnan(stats.share_error[i])) CHECK(std::abs(stats.share_error[i]) <= 1.0);
            // No specks (overlay terrains are drawn features: a waterfall is one or two cells).
            for (const auto& [cls, cells] :
                 region_sizes(classes_result.classes, overlay_mask(project->recipe)))
                CHECK(cells > 3);
            for (const auto& [cls, cells] :
                 region_sizes(result.classes, overlay_mask(project->recipe), 0, cutters))
                CHECK(cells > 3);
        }
    }
}

TEST_CASE("every shipped rule file passes check --strict (through the samples that use it), "
          "class passes included") {
    std::set<std::string> checked;
    for (const fs::path& recipe : test::sample_recipes()) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        REQUIRE(project);
        auto layers = build_layers(*project, std::vector<int>(project->images.size(), 0), 0);
        auto report = check_rules(layers, static_cast<int>(project->recipe.terrain.size()));
        for (const auto& c : report.coverage)
            CHECK(c.exact);
        CHECK(report.clean());
        auto passes = check_class_passes(project->class_passes,
                                         static_cast<int>(project->recipe.terrain.size()));
        for (const auto& c : passes.coverage)
            CHECK(c.exact);
        CHECK(passes.clean());
        for (const auto& ref : project->recipe.rules.files)
            checked.insert(fs::path(ref.path).filename().string());
    }
    for (const auto& e : fs::directory_iterator(test::source_dir() / "rules")) {
        CAPTURE(e.path().string());
        CHECK(checked.contains(e.path().filename().string()));
    }
}

TEST_CASE("the built-in default recipe is the same as samples/overworld.toml") {
    Diagnostics d;
    auto builtin = io::EmbeddedFiles{}.read(io::kDefaultRecipePath, d);
    REQUIRE(builtin);
    CHECK(*builtin == test::read_text(test::source_dir() / "samples" / "overworld.toml"));
    CHECK(io::EmbeddedFiles{}.read("rules/overworld-full.rules", d) ==
          std::optional<std::string>(
              test::read_text(test::source_dir() / "rules" / "overworld-full.rules")));
    auto project = io::load_project(io::kDefaultRecipePath, io::EmbeddedFiles{}, d);
    for (const auto& x : d)
        FAIL_CHECK(format_diagnostic(x));
    CHECK(project);
}
