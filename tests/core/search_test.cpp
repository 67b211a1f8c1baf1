// [search] (issue 17, reference 003 4.5): the evolutionary loop over tests/data/search/search.toml
// — its values stay in their ranges and are deterministic, a progress line per generation, the
// kept values in the TMX properties reproduce the map when written into the recipe by hand (text
// replacement, [search] cut off), and bad [search] values give path:line:col.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "io/project_loader.hpp"
#include "io/tmx_writer.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

const std::filesystem::path kData = test::source_dir() / "tests/data/search";

// The TMX's map properties named "search.*", by name.
std::map<std::string, std::string> search_properties(const std::string& tmx) {
    std::map<std::string, std::string> out;
    const std::string open = "<property name=\"search.";
    for (auto at = tmx.find(open); at != std::string::npos; at = tmx.find(open, at + 1)) {
        const auto name_end = tmx.find('"', at + open.size());
        const std::string name = tmx.substr(at + open.size(), name_end - at - open.size());
        const auto v = tmx.find("value=\"", name_end) + 7;
        out[name] = tmx.substr(v, tmx.find('"', v) - v);
    }
    return out;
}

void replace_once(std::string& text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, from);
    text.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("search: values in range, deterministic, a line per generation, reproducible from "
          "the TMX") {
    Diagnostics d;
    const auto project = io::load_project(kData / "search.toml", io::DiskFiles{}, d);
    REQUIRE(project);
    REQUIRE(project->recipe.search);
    const SearchSettings& s = *project->recipe.search;
    GenerateOptions options;
    std::vector<std::string> lines;
    options.progress = [&](const std::string& line) { lines.push_back(line); };
    const GenerateResult r = generate_map(*project, options);
    REQUIRE(r.search.ran);
    CHECK(lines.size() == static_cast<std::size_t>(s.generations));
    CHECK(lines.front().rfind("search generation 1/3: best score ", 0) == 0);
    // population, then (population - elites) per later generation
    CHECK(r.search.evaluations == s.population + (s.generations - 1) * (s.population / 2));
    REQUIRE(r.search.values.size() == s.ranges.size());
    for (std::size_t k = 0; k < s.ranges.size(); ++k) {
        CHECK(r.search.values[k].first == s.ranges[k].path);
        CHECK(r.search.values[k].second >= s.ranges[k].low);
        CHECK(r.search.values[k].second <= s.ranges[k].high);
    }
    CHECK(r.constraints.met);
    // The score is the weighted sum of the kept map's evaluation functions.
    const Fitness& f = r.constraints.fitness;
    CHECK(r.search.score ==
          doctest::Approx(1 * f.accessibility + 2 * f.obstacle_edges + 1 * f.fairness));
    // Same inputs, same search.
    GenerateOptions again;
    const GenerateResult r2 = generate_map(*project, again);
    CHECK(r2.search.values == r.search.values);
    CHECK(r2.classes == r.classes);

    // Reproduce: the TMX's search.* values and seed written into the recipe by hand.
    const std::string tmx = io::map_text(r.map, "m.tmx");
    const auto props = search_properties(tmx);
    REQUIRE(props.size() == 4);
    std::string text = test::read_text(kData / "search.toml");
    text = text.substr(0, text.find("\n[search]"));
    replace_once(text, "scale = 64 ", "scale = " + props.at("noise.scale") + " ");
    replace_once(text, "octaves = 5", "octaves = " + props.at("noise.octaves"));
    replace_once(text, "scale = 40", "scale = " + props.at("maps.moisture.scale"));
    replace_once(text, "min_distance = 20", "min_distance = " + props.at("places[1].min_distance"));
    replace_once(text, "seed = 7 ", "seed = " + std::to_string(r.seed) + " ");
    replace_once(text, "\"../roads/roads.rules\"",
                 "\"" + (test::source_dir() / "tests/data/roads/roads.rules").generic_string() +
                     "\"");
    for (int i = 0; i < 2; ++i)
        replace_once(text, "\"../../../tilesets/",
                     "\"" + (test::source_dir() / "tilesets/").generic_string());
    const test::TempDir dir;
    test::write_text(dir / "by-hand.toml", text);
    const auto by_hand = io::load_project(dir / "by-hand.toml", io::DiskFiles{}, d);
    REQUIRE(by_hand);
    CHECK_FALSE(by_hand->recipe.search);
    const GenerateResult b = generate_map(*by_hand, GenerateOptions{});
    CHECK(b.classes == r.classes);
    REQUIRE(b.map.layers.size() == r.map.layers.size());
    for (std::size_t i = 0; i < b.map.layers.size(); ++i)
        CHECK(b.map.layers[i].tiles == r.map.layers[i].tiles);
    CHECK(b.places == r.places);
    CHECK(b.objects.size() == r.objects.size());
}

TEST_CASE("search: bad values give path:line:col") {
    const std::string base = test::read_text(kData / "search.toml");
    struct Bad {
        std::string from, to;
        const char* at; // the text where the error points (line and column found in the text)
        const char* message;
    };
    const Bad cases[] = {
        {"generations = 3", "generations = 0", "0\n", "'search.generations' is 0"},
        {"population = 4", "population = 1", "1\n", "'search.population' is 1"},
        {"population = 4", "populace = 4", "populace", "unknown key 'search.populace'"},
        {"obstacle_edges = 2", "obstacle_edges = -1", "-1", "'search.weights.obstacle_edges'"},
        {"\"noise.scale\" = [32, 96]", "\"noise.scale\" = [96, 32]", "[96", "LOW must not exceed"},
        {"\"noise.scale\" = [32, 96]", "\"noise.scale\" = 5", "5\n", "must be [LOW, HIGH]"},
        {"\"noise.scale\" = [32, 96]", "\"noise.scales\" = [32, 96]", "[32",
         "the recipe sets no number at 'noise.scales'"},
        {"\"noise.scale\" = [32, 96]", "\"map.seed\" = [1, 9]", "[1,", "[map] values are not"},
        {"\"noise.octaves\" = [3, 6]", "\"noise.octaves\" = [3, 40]", "[3, 40]",
         "'search.ranges.\"noise.octaves\"' at 40: "},
    };
    for (const Bad& b : cases) {
        std::string text = base;
        replace_once(text, b.from, b.to);
        CAPTURE(text.substr(text.find("\n[search]\n")));
        const auto at = text.find(b.at, text.find("\n[search]\n"));
        REQUIRE(at != std::string::npos);
        const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
        const int column = static_cast<int>(at - text.rfind('\n', at - 1));
        Diagnostics d;
        CHECK_FALSE(parse_recipe(text, "bad.toml", d));
        REQUIRE(!d.empty());
        CHECK(d[0].file == "bad.toml");
        CHECK(d[0].line == line);
        CHECK(d[0].column == column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
    }
}

TEST_CASE("search over places and roads only: the heightfield and classes are computed once, and "
          "each individual scores as a full run does") {
    std::string text = test::read_text(kData / "search.toml");
    text = text.substr(0, text.find("\n[search.ranges]\n")) +
           "\n[search.ranges]\n\"places[1].min_distance\" = [12, 30]\n\"roads.extra_links\" = "
           "[0, 3]\n";
    replace_once(text, "\"../roads/roads.rules\"",
                 "\"" + (test::source_dir() / "tests/data/roads/roads.rules").generic_string() +
                     "\"");
    for (int i = 0; i < 2; ++i)
        replace_once(text, "\"../../../tilesets/",
                     "\"" + (test::source_dir() / "tilesets/").generic_string());
    const test::TempDir dir;
    test::write_text(dir / "places-only.toml", text);
    Diagnostics d;
    const auto project = io::load_project(dir / "places-only.toml", io::DiskFiles{}, d);
    REQUIRE(project);
    std::vector<std::string> lines;
    GenerateOptions options;
    options.progress = [&](const std::string& line) { lines.push_back(line); };
    const GenerateResult r = generate_map(*project, options);
    REQUIRE(r.search.ran);
    REQUIRE(r.constraints.tries == 1);
    // The last generation's best (scored from the shared state) is what the full run of the kept
    // values measures.
    std::ostringstream want;
    want << "best score " << r.search.score << " (accessibility "
         << r.constraints.fitness.accessibility << ", obstacle_edges "
         << r.constraints.fitness.obstacle_edges << ", fairness " << r.constraints.fitness.fairness
         << ")";
    CHECK_MESSAGE(lines.back().find(want.str()) != std::string::npos, lines.back());
    // And every value a generation line names, run in full, scores as that line says.
    for (const std::string& line : lines) {
        const auto md = line.find("places[1].min_distance = ");
        const auto el = line.find("roads.extra_links = ");
        REQUIRE(md != std::string::npos);
        REQUIRE(el != std::string::npos);
        std::string changed = text.substr(0, text.find("\n[search]\n"));
        replace_once(changed, "min_distance = 20",
                     "min_distance = " + std::to_string(std::stoi(line.substr(md + 25))));
        replace_once(changed, "extra_links = 1",
                     "extra_links = " + std::to_string(std::stoi(line.substr(el + 20))));
        test::write_text(dir / "one.toml", changed);
        const auto one = io::load_project(dir / "one.toml", io::DiskFiles{}, d);
        REQUIRE(one);
        const SearchEvaluation e = evaluate_constraints(*one, GenerateOptions{}, 7);
        std::ostringstream got;
        got << "(accessibility " << e.fitness.accessibility << ", obstacle_edges "
            << e.fitness.obstacle_edges << ", fairness " << e.fitness.fairness << ")";
        CHECK_MESSAGE(line.find(got.str()) != std::string::npos, line << " vs " << got.str());
    }
}
