// [rivers] as a user meets it: --json rivers and lakes, the TMX property, explain, noise writes the
// carved heightfield, and the whole-map refusals (--infinite, noise --region).
#include <doctest/doctest.h>

#include "app/json_reader.hpp"
#include "core/pipeline.hpp"
#include "io/file_source.hpp"
#include "io/heightfield_files.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;

namespace {
std::string recipe() {
    return shell_quote((source_dir() / "samples/overworld.toml").string());
}
} // namespace

TEST_CASE("rivers: --json lists rivers and lakes, the TMX says how many, explain names them") {
    TempDir dir;
    auto r = run_tilegen("generate " + recipe() + " --seed 2 -o " +
                         shell_quote((dir / "m.tmx").string()) + " --png none --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Json j = JsonReader::parse(r.out);
    const Json& rivers = j["rivers"];
    REQUIRE(rivers.kind == Json::array);
    REQUIRE(!rivers.items.empty());
    CHECK(rivers.items.size() >= 2);
    CHECK(rivers.items.size() <= 5); // count = [2, 5]
    for (const Json& river : rivers.items) {
        CHECK(river.keys() ==
              std::vector<std::string>{"source", "mouth", "length", "max_width", "ends_in"});
        CHECK(river["source"].items.size() == 2);
        CHECK(river["length"].num >= 10); // min_length
        CHECK(river["max_width"].num >= 1);
        CHECK(river["max_width"].num <= 3);
        const std::string ends = river["ends_in"].str;
        CHECK((ends == "D" || ends == "w" || ends == "o" || ends == "edge"));
    }
    REQUIRE(j["lakes"].kind == Json::array);
    for (const Json& lake : j["lakes"].items)
        CHECK(lake["cells"].num >= 1);
    CHECK(j["timings_ms"].has("hydrology"));
    const std::string tmx = read_text(dir / "m.tmx");
    CHECK(tmx.find("<property name=\"rivers\" type=\"int\" value=\"" +
                   std::to_string(rivers.items.size()) + "\"/>") != std::string::npos);

    // explain at the first river's source names it.
    const Json& first = rivers.items.front();
    const int sx = static_cast<int>(first["source"][0].num),
              sy = static_cast<int>(first["source"][1].num);
    auto e = run_tilegen("explain " + recipe() + " " + std::to_string(sx) + " " +
                         std::to_string(sy) + " --seed 2");
    REQUIRE(e.exit_code == 0);
    CHECK(e.out.find("river 1 of " + std::to_string(rivers.items.size()) + ": source (" +
                     std::to_string(sx) + ", " + std::to_string(sy) + ")") != std::string::npos);
}

TEST_CASE("rivers: noise writes the carved heightfield the classes are cut from") {
    TempDir dir;
    REQUIRE(
        run_tilegen("noise " + recipe() + " --seed 3 -o " + shell_quote((dir / "c.pfm").string()))
            .exit_code == 0);
    Diagnostics d;
    const auto carved = io::parse_pfm(read_text(dir / "c.pfm"), "c", d);
    REQUIRE(carved);
    const auto project =
        io::load_project(source_dir() / "samples/overworld.toml", io::DiskFiles{}, d);
    REQUIRE(project);
    GenerateOptions options;
    options.seed = 3;
    const GenerateResult result = generate_map(*project, options);
    CHECK(*carved == result.heights);
    // Carving only lowers cells off the rivers (river beds breach rims; bank cells lie flat at
    // the river's surface, which may raise them), and changes no cell without [rivers] carve
    // away from the rivers.
    const Grid<float> raw = compute_map(project->recipe, "elevation", 3, carved->width(),
                                        carved->height(), Region{0, 0, 96, 64});
    const std::string symbols = terrain_symbols(project->recipe);
    int changed = 0;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const char c = symbols[result.classes.cells()[i]];
        // Bridges (H) and fords (+) of the roads stage stand on river cells.
        if (c == '~' || c == '=' || c == 'H' || c == '+') {
            changed += carved->cells()[i] != raw.cells()[i];
            continue;
        }
        CHECK(carved->cells()[i] == raw.cells()[i]); // carve = 0: no valley
    }
    CHECK(changed > 0);
}

TEST_CASE(
    "rivers: --infinite, generate --region and noise --region refuse a recipe with [rivers]") {
    TempDir dir;
    auto inf = run_tilegen("generate " + recipe() + " --infinite -o " +
                           shell_quote((dir / "i.tmx").string()));
    CHECK(inf.exit_code == 1);
    CHECK(inf.err.find("error: [rivers] routes water over the whole map") != std::string::npos);
    auto window = run_tilegen("generate " + recipe() + " --region 0,0,32,32 -o " +
                              shell_quote((dir / "w.tmx").string()));
    CHECK(window.exit_code == 1);
    CHECK(window.err.find("infinite maps and --region windows cannot have rivers") !=
          std::string::npos);
    auto part = run_tilegen("noise " + recipe() + " --region 0,0,10,10 -o " +
                            shell_quote((dir / "p.png").string()));
    CHECK(part.exit_code == 1);
    CHECK(part.err.find("--region cannot compute a window of it alone") != std::string::npos);
    // Another map of the recipe is position-based as before.
    CHECK(run_tilegen("noise " + recipe() + " --map moisture --region 0,0,10,10 -o " +
                      shell_quote((dir / "m.png").string()))
              .exit_code == 0);
}
