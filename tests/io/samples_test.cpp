// The shipped samples, loaded from disk as a user's recipe would be: they load cleanly, cover every
// neighbourhood, leave no cell unmatched for any seed, and keep their class shares.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/pipeline.hpp"
#include "core/rules/rule_check.hpp"
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
        for (const auto& x : d)
            FAIL_CHECK(format_diagnostic(x));
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

TEST_CASE("every sample, 200 seeds: no unmatched cell, shares kept, objects on their classes and "
          "never overlapping") {
    for (const fs::path& recipe : sample_recipes()) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        REQUIRE(project);
        std::uint64_t objects = 0;
        for (std::uint64_t seed = 1; seed <= 200; ++seed) {
            GenerateOptions options;
            options.seed = seed * 7919;
            options.width = 32 + static_cast<int>(seed % 5) * 8;
            options.height = 28;
            options.threads = 2;
            auto result = generate_map(*project, options);
            CAPTURE(seed);
            REQUIRE(result.unmatched == 0);
            if (!project->recipe.classes.biomes)
                for (std::size_t i = 0; i < project->recipe.terrain.size(); ++i)
                    CHECK(std::abs(result.class_fractions[i] - project->recipe.terrain[i].share) <=
                          0.005);
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
        if (!project->recipe.objects.empty()) CHECK(objects > 200);
    }
}

TEST_CASE("every shipped rule file passes check --strict (through the samples that use it)") {
    std::set<std::string> checked;
    for (const fs::path& recipe : sample_recipes()) {
        CAPTURE(recipe.string());
        Diagnostics d;
        auto project = io::load_project(recipe, io::DiskFiles{}, d);
        REQUIRE(project);
        auto layers = build_layers(*project, std::vector<int>(project->images.size(), 0), 0);
        auto report = check_rules(layers, static_cast<int>(project->recipe.terrain.size()));
        for (const auto& c : report.coverage)
            CHECK(c.exact);
        CHECK(report.clean());
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
