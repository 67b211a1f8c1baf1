// The two-terrain set: rules/two-terrain-17.rules (every tile named) and
// rules/two-terrain-rotated.rules (7 drawn tiles turned with `rotate` and @r90...) render
// pixel-identical maps, for a class map holding every 3x3 neighbourhood of grass and water and for
// random and noisy ones.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "core/hash.hpp"
#include "core/map.hpp"
#include "core/pipeline.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"

using namespace tilegen;
namespace fs = std::filesystem;

namespace {

std::optional<Project> load(const test::TempDir& tmp, const std::string& rules) {
    const fs::path src = test::source_dir();
    const std::string recipe =
        "[map]\nwidth = 8\nheight = 8\n\n"
        "[[terrain]]\nname = \"water\"\nsymbol = \"w\"\nshare = 0.5\n\n"
        "[[terrain]]\nname = \"grass\"\nsymbol = \"g\"\nshare = 0.5\n\n"
        "[rules]\nfiles = [\"" +
        (src / "rules" / rules).generic_string() + "\"]\n\n[tileset]\npath = \"" +
        (src / "tilesets/two-terrain/tileset.toml").generic_string() + "\"\n";
    const fs::path path = tmp / (rules + ".toml");
    test::write_text(path, recipe);
    Diagnostics d;
    auto project = io::load_project(path, io::DiskFiles{}, d);
    for (const auto& e : d)
        MESSAGE(format_diagnostic(e));
    return project;
}

Image render(const Project& p, const ClassGrid& classes) {
    GenerateOptions options;
    options.classes = classes;
    const auto result = generate_map(p, options);
    CHECK(result.unmatched == 0);
    return render_map(result.map);
}

} // namespace

TEST_CASE("paint: the 17-tile rules and the rotated rules render the same pixels") {
    test::TempDir tmp;
    auto named = load(tmp, "two-terrain-17.rules");
    auto rotated = load(tmp, "two-terrain-rotated.rules");
    REQUIRE(named);
    REQUIRE(rotated);
    // The rotated file draws only 7 tiles; the named one uses all 17 (+ no error tile).
    std::set<std::string> drawn;
    for (const Rule& r : rotated->rules)
        for (const Target& t : r.targets)
            drawn.insert(t.name);
    CHECK(drawn == std::set<std::string>{"grass", "water", "grass-edge-n", "grass-corner-ne",
                                         "grass-inner-ne", "grass-band-ns", "grass-island"});
    std::set<std::string> used;
    for (const Rule& r : named->rules)
        for (const Target& t : r.targets) {
            used.insert(t.name);
            CHECK(t.flips == 0);
        }
    CHECK(used.size() == 17);
    CHECK(named->tileset.index_of.size() == 17);

    // Every 3x3 neighbourhood of w and g: 512 blocks of 3x3 cells, each centre with its own
    // neighbourhood.
    ClassGrid every(32 * 3, 16 * 3, 0);
    for (int code = 0; code < 512; ++code)
        for (int i = 0; i < 9; ++i)
            every((code % 32) * 3 + i % 3, (code / 32) * 3 + i / 3) =
                static_cast<ClassId>((code >> i) & 1);
    const Image a = render(*named, every);
    CHECK(a == render(*rotated, every));
    CHECK(a.width() == 96 * 16);

    // Random cells, and blobs (thresholded smooth noise).
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        ClassGrid random(40, 30, 0), blobs(40, 30, 0);
        for (int y = 0; y < 30; ++y)
            for (int x = 0; x < 40; ++x) {
                random(x, y) = static_cast<ClassId>(hash_values(seed, static_cast<std::uint64_t>(x),
                                                                static_cast<std::uint64_t>(y)) &
                                                    1);
                const double v = std::sin(x * 0.31 + static_cast<double>(seed)) +
                                 std::cos(y * 0.27 - 2.0 * static_cast<double>(seed)) +
                                 std::sin((x + y) * 0.11);
                blobs(x, y) = static_cast<ClassId>(v > 0.2 ? 1 : 0);
            }
        CAPTURE(seed);
        CHECK(render(*named, random) == render(*rotated, random));
        CHECK(render(*named, blobs) == render(*rotated, blobs));
    }
}
