// The pipeline as named stages: which stages run, in which order, and what a stage may not guess.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/pipeline.hpp"
#include "core/rules/rule_parser.hpp"
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
    // README "How it works": heightfield (noise) -> hydrology -> classes -> class passes ->
    // clean-up -> legalise -> shares -> places -> roads -> reachability -> objects on top ->
    // rules -> map.
    CHECK(pipeline_stage_names() ==
          std::vector<std::string>{"noise", "hydrology", "classes", "class_passes", "cleanup",
                                   "legalise", "shares", "places", "roads", "reachability",
                                   "objects", "rules", "map"});
    // The shipped overworld has [rivers] (hydrology), no [classes] sections (that stage does not
    // apply), sets min_area (the clean-up does, and keep_shares after it), has [[places]],
    // [roads] and [constraints] walkable_regions = 1 (places, roads, reachability) and objects.
    // The constraints' check (and the evaluation functions) is timed too, after reachability.
    const std::vector<std::string> diagram{"noise",       "hydrology", "classes", "cleanup",
                                           "shares",      "places",    "roads",   "reachability",
                                           "constraints", "objects",   "rules",   "map"};

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
    // The overworld's objects follow its tree density map. Without its places and roads: a
    // given class map already has its roads, and places are not made again on it.
    auto overworld = sample("overworld.toml");
    REQUIRE(overworld);
    overworld->recipe.places = {};
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
    // No map to cut classes from: the noise stage does not run; the objects stage computes the
    // density map.
    const std::vector<std::string> stages = stages_of(result);
    CHECK(std::find(stages.begin(), stages.end(), "noise") == stages.end());
    CHECK(std::find(stages.begin(), stages.end(), "objects") != stages.end());
    REQUIRE(result.maps.size() == 1);
    CHECK(result.maps[0].first == "trees");
    CHECK(result.maps[0].second.width() == 48);
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

TEST_CASE("class passes rewrite the classified grid before objects and tiles, their history") {
    auto project = sample("meadows.toml");
    REQUIRE(project);
    REQUIRE(project->class_passes.empty());
    GenerateOptions options;
    options.width = 64;
    options.height = 48;
    const GenerateResult plain = generate_map(*project, options);
    // Every cell whose four sides share one other class takes it, twice over.
    const std::string symbols = [&] {
        std::string s;
        for (const auto& t : project->recipe.terrain)
            s += t.symbol;
        return s;
    }();
    std::string text = "[classes 2]\n";
    for (char c : symbols)
        text += std::string("?") + c + "? " + c + "!" + c + c + " ?" + c + "?  " + c + "\n";
    Diagnostics diags;
    RuleFile file = parse_rule_file(text, "clean.rules", project->symbols, diags);
    REQUIRE(diags.empty());
    REQUIRE(file.passes.size() == 1);
    project->class_passes = file.passes;
    const GenerateResult passed = generate_map(*project, options);
    CHECK(std::find_if(passed.timings.begin(), passed.timings.end(), [](const StageTiming& t) {
              return t.stage == "class_passes";
          }) != passed.timings.end());
    const int classes = static_cast<int>(symbols.size());
    const ClassGrid want = run_class_passes(plain.classes, file.passes, classes,
                                            outside_policy(project->recipe), plain.seed);
    // The passes' output, as the next stage got it (meadows' terrains keep their shares: the
    // `shares` stage then moves cells back along the borders, e.g. one cell at seed 7).
    const ClassGrid& after_passes = passed.classes_before_shares;
    REQUIRE(after_passes == want);
    CHECK(passed.classes_before_passes == plain.classes);
    CHECK(passed.classified_fractions == plain.class_fractions);
    CHECK(passed.class_fractions == class_fractions(passed.classes, classes));
    REQUIRE(passed.pass_runs == std::vector<int>{2});
    CHECK(passed.pass_changed[0][0] > 0); // harmonic noise at 64x48 has one-cell specks
    // The tiles are chosen from the rewritten grid.
    std::uint64_t differ = 0;
    for (int y = 0; y < 48; ++y)
        for (int x = 0; x < 64; ++x)
            differ += after_passes(x, y) != plain.classes(x, y) ? 1 : 0;
    CHECK(differ > 0);
    CHECK(differ <= passed.pass_changed[0][0] + passed.pass_changed[0][1]);
    // The replayed history of every cell ends in its class after the passes.
    for (int y = 0; y < 48; ++y)
        for (int x = 0; x < 64; ++x) {
            const auto steps = class_history(*project, passed, x, y);
            REQUIRE(steps.size() == 2);
            CHECK(steps.front().before == plain.classes(x, y));
            CHECK(steps.back().after == after_passes(x, y));
        }
}

TEST_CASE("class_change_lines: classified, each pass, the clean-up, legalise and keep_shares, "
          "ending in the final class") {
    for (const char* name : {"caverns.toml", "pairwise.toml", "overworld.toml"}) {
        CAPTURE(name);
        auto project = sample(name);
        REQUIRE(project);
        GenerateOptions options;
        options.width = 48;
        options.height = 40;
        options.seed = 2;
        const GenerateResult result = generate_map(*project, options);
        const auto& terrain = project->recipe.terrain;
        const auto named = [&](ClassId c) {
            return terrain[c].name + " (" + std::string(1, terrain[c].symbol) + ")";
        };
        const ClassGrid& classified =
            !result.classes_before_passes.empty()    ? result.classes_before_passes
            : !result.classes_before_cleanup.empty() ? result.classes_before_cleanup
                                                     : result.classes_before_legalise;
        REQUIRE_FALSE(classified.empty());
        std::size_t changed = 0;
        for (int y = 0; y < 40; ++y)
            for (int x = 0; x < 48; ++x) {
                const auto lines = class_change_lines(*project, result, x, y);
                const std::size_t stages = project->class_passes.size() +
                                           (result.classes_before_cleanup.empty() ? 0 : 1) +
                                           (result.classes_before_legalise.empty() ? 0 : 1) +
                                           (result.classes_before_shares.empty() ? 0 : 1) +
                                           (result.classes_before_roads.empty() ? 0 : 1);
                // Then, on a river or lake cell (the overworld's [rivers]), the hydrology's
                // lines, and on a place, road or carved cell, the places' and roads' lines.
                const std::size_t water = hydrology_lines(*project, result, x, y).size() +
                                          place_road_lines(*project, result, x, y).size();
                REQUIRE(lines.size() == 1 + stages + water);
                CHECK(lines.front() == "classified as " + named(classified(x, y)));
                for (std::size_t i = 1 + stages; i < lines.size(); ++i)
                    CHECK((lines[i].starts_with("river ") || lines[i].starts_with("lake ") ||
                           lines[i].starts_with("place '") || lines[i].starts_with("road ") ||
                           lines[i].starts_with("bridge") || lines[i].starts_with("pass ")));
                const std::string& last = lines[stages];
                CHECK(last.ends_with(named(result.classes(x, y))));
                changed += classified(x, y) != result.classes(x, y) ? 1 : 0;
            }
        CHECK(changed > 0);
    }
}

TEST_CASE("keep_details keeps more of a run, never changes the map") {
    // Without details the stages free the maps, the slope and the search buffers as soon as no
    // later stage reads them (their grid-pool blocks serve the stages after); the map must not
    // notice: the overworld (places, roads, reachability, rivers, a density map) both ways.
    auto overworld = sample("overworld.toml");
    REQUIRE(overworld);
    for (std::uint64_t seed : {3u, 11u}) {
        CAPTURE(seed);
        GenerateOptions kept;
        kept.width = 192;
        kept.height = 144;
        kept.seed = seed;
        GenerateOptions lean = kept;
        lean.keep_details = false;
        const GenerateResult a = generate_map(*overworld, kept);
        const GenerateResult b = generate_map(*overworld, lean);
        REQUIRE(!a.roads.roads.empty());
        REQUIRE(!a.objects.empty());
        CHECK(a.seed == b.seed);
        CHECK(a.classes.cells() == b.classes.cells());
        CHECK(a.places == b.places);
        CHECK(a.objects == b.objects);
        REQUIRE(a.roads.roads.size() == b.roads.roads.size());
        for (std::size_t i = 0; i < a.roads.roads.size(); ++i)
            CHECK(a.roads.roads[i].cells == b.roads.roads[i].cells);
        CHECK(!a.maps.empty());
        CHECK(b.maps.empty());
    }
}
