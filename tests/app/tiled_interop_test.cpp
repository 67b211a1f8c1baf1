// Tiled is the judge: every sample's TMX must load in Tiled and render exactly like tilegen's own PNG.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "io/png.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

namespace {

bool tiled_available() {
    if (have_program("tmxrasterizer") && have_program("tiled")) return true;
    if (std::getenv("CI")) FAIL("tmxrasterizer/tiled are missing; .ci/run must install the Debian package 'tiled'");
    MESSAGE("skipped: Tiled is not installed (apt-get install tiled)");
    return false;
}

// Counts pixels that differ; transparent pixels compare equal whatever their colour.
long differing_pixels(const Image& a, const Image& b) {
    if (a.width() != b.width() || a.height() != b.height()) return -1;
    long n = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x) {
            Rgba p = a.get(x, y), q = b.get(x, y);
            if (p.a == 0 && q.a == 0) continue;
            if (!(p == q)) ++n;
        }
    return n;
}

void check_with_tiled(const fs::path& recipe, const std::string& extra_args) {
    TempDir dir;
    auto r = run_tilegen("generate " + shell_quote(recipe.string()) + " -o " + shell_quote((dir / "m.tmx").string()) +
                         " " + extra_args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto raster = run("QT_QPA_PLATFORM=offscreen tmxrasterizer " + shell_quote((dir / "m.tmx").string()) + " " +
                      shell_quote((dir / "tiled.png").string()));
    INFO(raster.err);
    REQUIRE(raster.exit_code == 0);
    Diagnostics d;
    auto ours = io::load_image(dir / "m.png", d);
    auto theirs = io::load_image(dir / "tiled.png", d);
    REQUIRE(ours);
    REQUIRE(theirs);
    CHECK(differing_pixels(*ours, *theirs) == 0);

    auto json = run("QT_QPA_PLATFORM=offscreen tiled --export-map json " + shell_quote((dir / "m.tmx").string()) +
                    " " + shell_quote((dir / "m.json").string()));
    INFO(json.err);
    CHECK(json.exit_code == 0);
    const std::string exported = read_text(dir / "m.json");
    CHECK(exported.find("\"tilelayer\"") != std::string::npos);
}

} // namespace

TEST_CASE("every sample's TMX renders in Tiled exactly like tilegen's PNG") {
    if (!tiled_available()) return;
    int samples = 0;
    for (const auto& e : fs::directory_iterator(source_dir() / "samples")) {
        if (e.path().extension() != ".toml") continue;
        CAPTURE(e.path().string());
        check_with_tiled(e.path(), "");
        check_with_tiled(e.path(), "--seed 12345 --size 50x30");
        ++samples;
    }
    CHECK(samples >= 1);
}

TEST_CASE("the built-in default map renders in Tiled like its PNG") {
    if (!tiled_available()) return;
    TempDir dir;
    auto r = run_tilegen("generate -o m.tmx", dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto raster = run("QT_QPA_PLATFORM=offscreen tmxrasterizer m.tmx tiled.png", dir.path());
    REQUIRE(raster.exit_code == 0);
    Diagnostics d;
    auto ours = io::load_image(dir / "m.png", d);
    auto theirs = io::load_image(dir / "tiled.png", d);
    REQUIRE(ours);
    REQUIRE(theirs);
    CHECK(differing_pixels(*ours, *theirs) == 0);
}
