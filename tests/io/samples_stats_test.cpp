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
        // or clean-up moves them; samples_test checks how far those go).
        for (std::size_t c = 0; c < shares.size(); ++c)
            if (!std::isnan(shares[c]))
                CHECK(std::abs(result.classified_fractions[c] - shares[c]) * 100 <
                      800.0 / static_cast<double>(one.cells));
    }
    CHECK(samples >= 8);
}
