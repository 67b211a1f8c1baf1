// Tiled is the judge: every sample's TMX must load in Tiled and render exactly like tilegen's own
// PNG.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "core/image.hpp"
#include "io/png.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

namespace {

bool tiled_available() {
    if (have_program("tmxrasterizer") && have_program("tiled")) return true;
    if (std::getenv("CI"))
        FAIL("tmxrasterizer/tiled are missing; .ci/run must install the Debian package 'tiled'");
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

// Generates, renders with tmxrasterizer, compares pixels, loads with tiled; returns the TMX text.
std::string check_with_tiled(const fs::path& recipe, const std::string& extra_args) {
    TempDir dir;
    auto r = run_tilegen("generate " + shell_quote(recipe.string()) + " -o " +
                         shell_quote((dir / "m.tmx").string()) + " " + extra_args);
    INFO(r.err);
    if (r.exit_code != 0) {
        FAIL_CHECK("tilegen generate failed");
        return {};
    }
    auto raster =
        run("QT_QPA_PLATFORM=offscreen tmxrasterizer " + shell_quote((dir / "m.tmx").string()) +
            " " + shell_quote((dir / "tiled.png").string()));
    INFO(raster.err);
    CHECK(raster.exit_code == 0);
    Diagnostics d;
    auto ours = io::load_image(dir / "m.png", d);
    auto theirs = io::load_image(dir / "tiled.png", d);
    CHECK((ours && theirs && differing_pixels(*ours, *theirs) == 0));

    auto json =
        run("QT_QPA_PLATFORM=offscreen tiled --export-map json " +
            shell_quote((dir / "m.tmx").string()) + " " + shell_quote((dir / "m.json").string()));
    INFO(json.err);
    CHECK(json.exit_code == 0);
    const std::string exported = read_text(dir / "m.json");
    CHECK(exported.find("\"tilelayer\"") != std::string::npos);
    return read_text(dir / "m.tmx");
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

TEST_CASE("flip bits from rotate, mirror and @r/@f targets render in Tiled as in tilegen's PNG") {
    if (!tiled_available()) return;
    TempDir dir;
    // Asymmetric 8x8 tiles, so any wrong flip shows.
    Image img(24, 8);
    for (int t = 0; t < 3; ++t)
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 8; ++x)
                img.set(t * 8 + x, y,
                        Rgba{static_cast<std::uint8_t>(x * 30), static_cast<std::uint8_t>(y * 30),
                             static_cast<std::uint8_t>(t * 100 + (x > y ? 50 : 0)), 255});
    Diagnostics d;
    REQUIRE(io::save_png(dir / "t.png", img, d));
    write_text(
        dir / "t.toml",
        "image = \"t.png\"\ntile_width = 8\ntile_height = 8\n[tiles]\na = 0\nb = 1\nc = 2\n");
    write_text(dir / "r.rules", "mirror rotate w?? ?g? ???  a\nrotate ?w? ?g? ???  b@fy b@r90*0.5\n"
                                "??? ?g? ???  c c@fx c@fy c@r90 c@r180 c@r270\n?  a@r270\n[over]\n"
                                "rotate ?w? wg? ???  c@fx\n?  @none\n");
    write_text(
        dir / "m.toml",
        "[map]\nwidth = 30\nheight = 20\n[[terrain]]\nname = \"w\"\nsymbol = \"w\"\nshare = 0.5\n"
        "[[terrain]]\nname = \"g\"\nsymbol = \"g\"\nshare = 0.5\n[rules]\nfiles = [\"r.rules\"]\n"
        "[tileset]\npath = \"t.toml\"\n");
    const std::string tmx = check_with_tiled(dir / "m.toml", "");
    CHECK(tmx.find("<layer id=\"2\" name=\"over\"") != std::string::npos);
    CHECK(tmx.find("2147483") != std::string::npos); // a horizontal flip bit is in the data
}

TEST_CASE("objects: a second tileset and an object layer that Tiled draws exactly like tilegen") {
    if (!tiled_available()) return;
    TempDir dir;
    Image tiles(16, 8);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 16; ++x)
            tiles.set(x, y,
                      x < 8 ? Rgba{40, 90, 200, 255}
                            : Rgba{60, 170, 70, static_cast<std::uint8_t>(255)});
    // Two sprites in 16x24 cells: a "tree" with a 2x2 footprint and overhang, a "rock" of 1x1;
    // opaque or clear.
    Image sprites(32, 24);
    for (int y = 0; y < 24; ++y)
        for (int x = 0; x < 16; ++x)
            if ((x - 8) * (x - 8) + (y - 9) * (y - 9) < 56 || (x >= 6 && x < 10 && y >= 12))
                sprites.set(x, y, Rgba{static_cast<std::uint8_t>(20 + y * 4), 110, 30, 255});
    for (int y = 16; y < 24; ++y)
        for (int x = 16; x < 24; ++x)
            if ((x + y) % 7 != 0)
                sprites.set(x, y, Rgba{120, 120, static_cast<std::uint8_t>(110 + x), 255});
    Diagnostics d;
    REQUIRE(io::save_png(dir / "t.png", tiles, d));
    REQUIRE(io::save_png(dir / "o.png", sprites, d));
    write_text(
        dir / "t.toml",
        "image = \"t.png\"\ntile_width = 8\ntile_height = 8\n[tiles]\nwater = 0\ngrass = 1\n");
    write_text(
        dir / "o.toml",
        "image = \"o.png\"\nsprite_width = 16\nsprite_height = 24\n[sprites]\n"
        "tree = { index = 0, footprint = [2, 2] }\nrock = { index = 1, footprint = [1, 1] }\n");
    write_text(dir / "r.rules", "w water\ng grass\n");
    write_text(
        dir / "m.toml",
        "[map]\nwidth = 40\nheight = 30\n[maps.trees]\nkind = \"simplex\"\n"
        "[[terrain]]\nname = \"w\"\nsymbol = \"w\"\nshare = 0.4\n"
        "[[terrain]]\nname = \"g\"\nsymbol = \"g\"\nshare = 0.6\n[rules]\nfiles = [\"r.rules\"]\n"
        "[tileset]\npath = \"t.toml\"\nobjects = \"o.toml\"\n"
        "[[objects]]\nsprite = \"tree\"\non = \"g\"\ndensity = \"trees\"\nthreshold = 0.4\nspacing "
        "= 2\n"
        "[[objects]]\nsprite = \"rock\"\non = \"wg\"\nchance = 0.2\nspacing = 3\n");
    const std::string tmx = check_with_tiled(dir / "m.toml", "");
    CHECK(tmx.find("<objectgroup id=\"2\" name=\"objects\" draworder=\"index\">") !=
          std::string::npos);
    CHECK(tmx.find("source=\"m-objects.tsx\"") != std::string::npos);
    CHECK(tmx.find("name=\"tree\" gid=\"") != std::string::npos);
    CHECK(tmx.find("name=\"rock\" gid=\"") != std::string::npos);
}

TEST_CASE("corner layers: Tiled draws the offset layer exactly like tilegen's PNG (TMX and TMJ)") {
    if (!tiled_available()) return;
    TempDir dir;
    // Asymmetric 8x8 tiles (any wrong flip or half-tile shift shows), 4 of them.
    Image img(32, 8);
    for (int t = 0; t < 4; ++t)
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 8; ++x)
                img.set(t * 8 + x, y,
                        Rgba{static_cast<std::uint8_t>(x * 30 + t * 10),
                             static_cast<std::uint8_t>(y * 30),
                             static_cast<std::uint8_t>(t * 60 + (x > y ? 50 : 0)), 255});
    Diagnostics d;
    REQUIRE(io::save_png(dir / "t.png", img, d));
    write_text(dir / "t.toml", "image = \"t.png\"\ntile_width = 8\ntile_height = 8\n[tiles]\n"
                               "a = 0\nb = 1\nc = 2\ne = 3\n");
    // A cell layer below, a corner layer over it with turned and flipped tiles.
    write_text(dir / "r.rules", "w a\ng b\n[corners]\ngg gg c c@fx*0.5\nww ww @none\n"
                                "rotate mirror gw ww e@fy\nrotate gg wg b@r90\nrotate gw gw a\n"
                                "?? ?? e\n");
    write_text(
        dir / "m.toml",
        "[map]\nwidth = 30\nheight = 20\n[[terrain]]\nname = \"w\"\nsymbol = \"w\"\nshare = 0.5\n"
        "[[terrain]]\nname = \"g\"\nsymbol = \"g\"\nshare = 0.5\n[rules]\nfiles = [\"r.rules\"]\n"
        "[tileset]\npath = \"t.toml\"\n");
    const std::string tmx = check_with_tiled(dir / "m.toml", "");
    CHECK(tmx.find("<layer id=\"2\" name=\"corners\" width=\"31\" height=\"21\" offsetx=\"-4\" "
                   "offsety=\"-4\">") != std::string::npos);
    check_with_tiled(dir / "m.toml", "--encoding base64+zlib --seed 9 --size 13x7");
    // The same map as TMJ renders to the same pixels.
    auto r = run_tilegen("generate " + shell_quote((dir / "m.toml").string()) + " -o " +
                         shell_quote((dir / "j.tmj").string()));
    REQUIRE(r.exit_code == 0);
    auto raster =
        run("QT_QPA_PLATFORM=offscreen tmxrasterizer " + shell_quote((dir / "j.tmj").string()) +
            " " + shell_quote((dir / "tiled-j.png").string()));
    REQUIRE(raster.exit_code == 0);
    auto ours = io::load_image(dir / "j.png", d);
    auto theirs = io::load_image(dir / "tiled-j.png", d);
    REQUIRE(ours);
    REQUIRE(theirs);
    CHECK(ours->width() == 30 * 8 + 4);
    CHECK(ours->height() == 20 * 8 + 4);
    CHECK(differing_pixels(*ours, *theirs) == 0);
}
