// The shipped samples mark their blockers (water, deep water, rivers, lakes, waterfalls, rock,
// pits, walls) walkable = false, and their map statistics do not depend on the thread count.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/pipeline.hpp"
#include "core/quality/map_stats.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"

using namespace tilegen;
namespace fs = std::filesystem;

TEST_CASE("every sample marks exactly its blockers as not walkable") {
    const std::set<std::string> blockers = {"deep", "water", "rock", "pit",
                                            "wall", "river", "lake", "waterfall"};
    int samples = 0;
    for (const auto& e : fs::directory_iterator(test::source_dir() / "samples")) {
        if (e.path().extension() != ".toml") continue;
        CAPTURE(e.path().string());
        ++samples;
        Diagnostics d;
        auto project = io::load_project(e.path(), io::DiskFiles{}, d);
        REQUIRE(project);
        for (const TerrainClass& t : project->recipe.terrain) {
            CAPTURE(t.name);
            CHECK(t.walkable == !blockers.contains(t.name));
        }
        GenerateOptions options;
        options.width = 97;
        options.height = 61;
        options.seed = 3;
        const GenerateResult result = generate_map(*project, options);
        const auto walkable = walkable_flags(project->recipe.terrain);
        const auto shares =
            target_shares(project->recipe.terrain, !project->recipe.classes.biomes.has_value());
        const MapStats one =
            compute_map_stats(result.classes, walkable, shares, result.unmatched, 1);
        CHECK(one.cells == 97u * 61u);
        CHECK(one.unmatched == 0);
        for (int threads : {2, 5}) {
            const MapStats s =
                compute_map_stats(result.classes, walkable, shares, result.unmatched, threads);
            CHECK(s.specks == one.specks);
            CHECK(s.thin_cells == one.thin_cells);
            CHECK(s.walkable_regions == one.walkable_regions);
            CHECK(s.largest_walkable_cells == one.largest_walkable_cells);
            CHECK(s.corner_windows == one.corner_windows);
            CHECK(s.boundary_edges == one.boundary_edges);
        }
        // Percentile classes keep their shares to within a cell per class (before any class pass
        // or clean-up moves them; samples_test checks how far those go). With [rivers], the
        // classes are cut from the carved map with the uncarved map's thresholds and the overlays
        // written over them: the same recipe without [rivers] keeps the shares, and (carve = 0:
        // only river and bank cells are lowered, and they become overlay) every cell that is not
        // overlay has the class it has without rivers.
        GenerateResult bare_result;
        const GenerateResult* cut = &result;
        if (project->recipe.rivers) {
            Project bare = *project;
            bare.recipe.rivers.reset();
            bare_result = generate_map(bare, options);
            cut = &bare_result;
            if (project->recipe.rivers->carve == 0) {
                REQUIRE(result.classes_before_cleanup.size() == result.classes.size());
                REQUIRE(bare_result.classes_before_cleanup.size() == result.classes.size());
                std::size_t differ = 0, overlay = 0;
                for (std::size_t i = 0; i < result.classes.size(); ++i) {
                    const ClassId c = result.classes_before_cleanup.cells()[i];
                    if (project->recipe.terrain[c].overlay)
                        ++overlay;
                    else if (c != bare_result.classes_before_cleanup.cells()[i])
                        ++differ;
                }
                CHECK(overlay > 0);
                CHECK(differ == 0);
            }
        }
        for (std::size_t c = 0; c < shares.size(); ++c)
            if (!std::isnan(shares[c]))
                CHECK(std::abs(cut->classified_fractions[c] - shares[c]) * 100 <
                      800.0 / static_cast<double>(one.cells));
    }
    CHECK(samples >= 8);
}
