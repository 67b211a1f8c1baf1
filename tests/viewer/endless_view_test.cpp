// tilegen view --endless: the endless-world game (examples/endless/endless_game.hpp) over a
// recipe's World, under Xvfb. Its screenshot after a scripted walk of 10 000 cells shows the same
// pixels as `tilegen generate --region` of that window (apart from the character); recipes that
// need the whole map are refused before any window opens.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "app/fixture.hpp"
#include "io/png.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;

TEST_CASE("view --endless: refuses whole-map recipes, walks 10000 cells and draws the world") {
    Fixture f;
    const RunResult refused = f.tilegen("view --endless");
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find("needs a position-based recipe") != std::string::npos);
    CHECK(refused.err.find("[rivers]") != std::string::npos); // what needs the whole map
    CHECK(f.tilegen("view --endless --zoom 2").exit_code == 2);

    if (!have_program("xvfb-run")) {
        if (std::getenv("CI")) FAIL("xvfb-run is missing: the viewer tests need it on CI");
        MESSAGE("skipped: xvfb-run is not installed (the viewer needs a display)");
        return;
    }
    const std::string meadows = shell_quote((source_dir() / "samples/meadows.toml").string());
    const RunResult walk = run("xvfb-run -a -s '-screen 0 640x480x24' " + shell_quote(TILEGEN_EXE) +
                                   " view --endless " + meadows +
                                   " --frames 40 --window 320x240 --screenshot shot.png",
                               f.dir.path());
    REQUIRE_MESSAGE(walk.exit_code == 0, walk.err);
    CHECK(walk.out.find("frames 40 walked 10000 cells: frame ms mean ") == 0);
    CHECK(walk.out.find("memory MiB: rss at 10% ") != std::string::npos);
    // The character starts at cell (64, 64) and ends 10 000 cells east: the 320 x 240 window
    // centred on pixel (10064 x 16, 64 x 16) shows cells x 10054..10073, y 56.5..71.5.
    REQUIRE(f.tilegen("generate " + meadows + " --region 10054,56,20,16 -o r.tmx --png r.png")
                .exit_code == 0);
    Diagnostics d;
    const auto shot = io::load_image(f.dir / "shot.png", d);
    const auto region = io::load_image(f.dir / "r.png", d);
    REQUIRE((shot && region));
    REQUIRE(shot->width() == 320);
    REQUIRE(shot->height() == 240);
    long differing = 0, compared = 0;
    for (int y = 0; y < 240; ++y)
        for (int x = 0; x < 320; ++x) {
            if (std::abs(x - 160) <= 10 && std::abs(y - 120) <= 10) continue; // the character
            const Rgba a = shot->get(x, y), b = region->get(x, y + 8);
            differing += (a.r != b.r || a.g != b.g || a.b != b.b) ? 1 : 0;
            ++compared;
        }
    CHECK(compared > 70000);
    CHECK(differing == 0);
}
