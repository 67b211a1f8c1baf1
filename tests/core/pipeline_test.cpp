// The pipeline as named stages: which stages run, in which order, and what a stage may not guess.
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/pipeline.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

std::vector<std::string> stages_of(const GenerateResult& result) {
    std::vector<std::string> names;
    for (const StageTiming& t : result.timings)
        names.push_back(t.stage);
    return names;
}

std::optional<Project> sample(const std::string& name) {
    Diagnostics d;
    return io::load_project(test::source_dir() / "samples" / name, io::DiskFiles{}, d);
}

} // namespace

TEST_CASE("the pipeline runs the stages of README's diagram, in order, each timed once") {
    // README "How it works": heightfield (noise) -> classes -> objects on top -> rules -> map.
    const std::vector<std::string> diagram{"noise", "classes", "objects", "rules", "map"};
    CHECK(pipeline_stage_names() == diagram);

    auto overworld = sample("overworld.toml"); // scatters objects
    REQUIRE(overworld);
    GenerateOptions options;
    options.width = 40;
    options.height = 30;
    auto with_objects = diagram;
    with_objects.push_back("total");
    CHECK(stages_of(generate_map(*overworld, options)) == with_objects);

    auto meadows = sample("meadows.toml"); // no objects: that stage does not apply
    REQUIRE(meadows);
    REQUIRE(meadows->recipe.objects.empty());
    CHECK(stages_of(generate_map(*meadows, options)) ==
          std::vector<std::string>{"noise", "classes", "rules", "map", "total"});

    // A given class map without objects computes no map at all.
    options.classes = generate_map(*meadows, options).classes;
    CHECK(stages_of(generate_map(*meadows, options)) ==
          std::vector<std::string>{"classes", "rules", "map", "total"});
}

TEST_CASE("a given class map gets the objects' density maps at its own size") {
    auto overworld = sample("overworld.toml");
    REQUIRE(overworld);
    GenerateOptions options;
    options.width = 48;
    options.height = 36;
    options.seed = 5;
    const GenerateResult generated = generate_map(*overworld, options);
    REQUIRE(!generated.objects.empty());
    // The same classes given by hand: the same objects (density maps are computed either way).
    GenerateOptions given;
    given.seed = 5;
    given.classes = generated.classes;
    const GenerateResult result = generate_map(*overworld, given);
    CHECK(result.objects == generated.objects);
    CHECK(stages_of(result).front() == "noise");
}

TEST_CASE("map names the recipe does not define are bugs past loading, never a silent grid") {
    auto meadows = sample("meadows.toml");
    REQUIRE(meadows);
    CHECK_THROWS_AS(compute_map(meadows->recipe, "nowhere", 1, 8, 8, Region{0, 0, 8, 8}),
                    std::logic_error);
    // A recipe changed after loading so that the classes name a map it does not define.
    Recipe broken = meadows->recipe;
    broken.classes.map = "nowhere";
    std::vector<float> thresholds;
    CHECK_THROWS_AS(classes_from_maps(broken, {{"elevation", Grid<float>(4, 4, 0.5f)}}, thresholds),
                    std::logic_error);
}

TEST_CASE("map properties: thresholds read back as the very floats, finite and infinite alike") {
    auto meadows = sample("meadows.toml");
    REQUIRE(meadows);
    const std::vector<float> thresholds{0.1f, 1.0f / 3.0f, 0.123456789f, 0.99999994f};
    auto value_of = [](const std::vector<MapProperty>& props, const std::string& name) {
        for (const auto& p : props)
            if (p.name == name) return p.value;
        return std::string("(none)");
    };
    const auto finite = map_properties(*meadows, {7, 30, 20, &thresholds, std::nullopt});
    const auto infinite = map_properties(*meadows, {7, 30, 20, &thresholds, Region{0, 0, 30, 20}});
    CHECK(value_of(finite, "thresholds") == value_of(infinite, "thresholds"));
    CHECK(value_of(infinite, "threshold_sample") == "0,0,30,20");
    std::istringstream in(value_of(infinite, "thresholds"));
    for (float expected : thresholds) {
        std::string word;
        in >> word;
        REQUIRE(!word.empty());
        CHECK(std::strtof(word.c_str(), nullptr) == expected);
    }
    // A given class map has no thresholds.
    CHECK(value_of(map_properties(*meadows, {7, 30, 20, nullptr, std::nullopt}), "thresholds") ==
          "(none)");
}
