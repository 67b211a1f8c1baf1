// The shipped samples, loaded from disk as a user's recipe would be: they load cleanly, cover every
// neighbourhood, leave no cell unmatched for any seed, and keep their class shares.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "core/pipeline.hpp"
#include "core/rules/rule_matcher.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"

using namespace tilegen;
namespace fs = std::filesystem;

namespace {
std::vector<fs::path> sample_recipes() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(test::source_dir() / "samples"))
        if (e.path().extension() == ".toml") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}
} // namespace

TEST_CASE("every sample: every 3x3 neighbourhood is decided by a real rule, not the catch-all") {
    for (const fs::path& recipe : sample_recipes()) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        for (const auto& x : d) FAIL_CHECK(format_diagnostic(x));
        REQUIRE(project);
        const int k = static_cast<int>(project->recipe.terrain.size());
        const double cases = std::pow(k, 9);
        if (cases > 2e6) continue; // exhaustive only where it is small
        auto layers = build_layers(*project, std::vector<int>(project->images.size(), 0), 0);
        for (const LayerRules& layer : layers) {
            ClassGrid g(3, 3);
            long uncovered = 0;
            for (long code = 0; code < static_cast<long>(cases); ++code) {
                long c = code;
                for (int i = 0; i < 9; ++i, c /= k) g.cells()[static_cast<std::size_t>(i)] = static_cast<ClassId>(c % k);
                int r = first_match(g, 1, 1, layer.ordered, {});
                if (r == kNoRule || layer.ordered[static_cast<std::size_t>(r)].pattern.specificity() == 0) ++uncovered;
            }
            CHECK_MESSAGE(uncovered == 0, "layer " << layer.name << ": " << uncovered << " neighbourhoods uncovered");
        }
    }
}

TEST_CASE("every sample: no unmatched cell and shares within 0.5 points, for 40 seeds") {
    for (const fs::path& recipe : sample_recipes()) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        REQUIRE(project);
        for (std::uint64_t seed = 1; seed <= 40; ++seed) {
            GenerateOptions options;
            options.seed = seed * 7919;
            options.width = 48 + static_cast<int>(seed % 5) * 16;
            options.height = 40;
            auto result = generate_map(*project, options);
            CAPTURE(seed);
            CHECK(result.unmatched == 0);
            for (std::size_t i = 0; i < project->recipe.terrain.size(); ++i)
                CHECK(std::abs(result.class_fractions[i] - project->recipe.terrain[i].share) <= 0.005);
        }
    }
}

TEST_CASE("the built-in default recipe is the same as samples/overworld.toml") {
    Diagnostics d;
    auto builtin = io::EmbeddedFiles{}.read(io::kDefaultRecipePath, d);
    REQUIRE(builtin);
    CHECK(*builtin == test::read_text(test::source_dir() / "samples" / "overworld.toml"));
    CHECK(io::EmbeddedFiles{}.read("rules/overworld.rules", d) ==
          std::optional<std::string>(test::read_text(test::source_dir() / "rules" / "overworld.rules")));
    auto project = io::load_project(io::kDefaultRecipePath, io::EmbeddedFiles{}, d);
    for (const auto& x : d) FAIL_CHECK(format_diagnostic(x));
    CHECK(project);
}
