// Same inputs and seed give byte-identical outputs, at any thread count.
#include <doctest/doctest.h>

#include <filesystem>

#include "app/fixture.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

TEST_CASE("byte-identical TMX, TSX and PNG for 1, 2, 3 and 8 threads, and across runs") {
    TempDir dir;
    std::string reference_tmx, reference_png;
    for (int threads : {1, 2, 3, 8, 1}) {
        const fs::path sub =
            dir / ("t" + std::to_string(threads) + (reference_tmx.empty() ? "" : "b"));
        fs::create_directories(sub);
        auto r = run_tilegen(
            "generate --size 203x117 --seed 99 -o m.tmx --threads " + std::to_string(threads), sub);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const std::string tmx = read_text(sub / "m.tmx"), png = read_text(sub / "m.png");
        if (reference_tmx.empty()) {
            reference_tmx = tmx;
            reference_png = png;
            continue;
        }
        CAPTURE(threads);
        CHECK(tmx == reference_tmx);
        CHECK(png == reference_png);
    }
    // Another seed is another map.
    auto other = run_tilegen("generate --size 203x117 --seed 100 -o o.tmx", dir.path());
    REQUIRE(other.exit_code == 0);
    CHECK(read_text(dir / "o.tmx") != reference_tmx);
}

TEST_CASE("bench prints every stage and valid JSON keys") {
    auto r = run_tilegen("bench --size 64x48 --repeat 2 --threads 2 --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (const char* key :
         {"\"stages\":[", "\"stage\":\"noise\"", "\"stage\":\"classes\"", "\"stage\":\"rules\"",
          "\"stage\":\"tmx\"", "\"stage\":\"png\"", "\"stage\":\"total\"",
          "\"median_ms\":", "\"min_ms\":", "\"png_bytes\":", "\"ns_per_cell\":",
          "\"peak_memory_bytes\":", "\"bytes_per_cell\":"})
        CHECK_MESSAGE(r.out.find(key) != std::string::npos, key);
    // The png stage encodes exactly the preview generate writes for the same map.
    {
        TempDir dir;
        REQUIRE(run_tilegen("generate --size 64x48 -o x.tmx", dir.path()).exit_code == 0);
        const std::size_t at = r.out.find("\"png_bytes\":");
        REQUIRE(at != std::string::npos);
        CHECK(std::stoull(r.out.substr(at + 12)) == std::filesystem::file_size(dir / "x.png"));
    }
    auto text = run_tilegen("bench --size 32x32 --repeat 1");
    CHECK(text.exit_code == 0);
    CHECK(text.out.find("peak memory") != std::string::npos);
    // --seed: the seed is reported, and another seed times another map (its TMX is another size).
    auto seeded = run_tilegen("bench --size 64x48 --repeat 1 --seed 11 --json");
    REQUIRE(seeded.exit_code == 0);
    CHECK(seeded.out.find("\"seed\":11,") != std::string::npos);
    CHECK(r.out.find("\"seed\":7,") != std::string::npos); // the default recipe's [map] seed
    const auto tmx_bytes = [](const std::string& out) {
        const std::size_t at = out.find("\"tmx_bytes\":");
        return at == std::string::npos ? std::string() : out.substr(at, out.find(',', at) - at);
    };
    CHECK(tmx_bytes(seeded.out) != tmx_bytes(r.out));
    CHECK(run_tilegen("bench --size 32x32 --repeat 1 --seed 11").out.find(", seed 11, ") !=
          std::string::npos);
    CHECK(run_tilegen("bench --seed x").exit_code == 2);
    CHECK(run_tilegen("bench --repeat 0").exit_code == 2);
    CHECK(run_tilegen("bench --frobnicate").exit_code == 2);
}

TEST_CASE("corner layers: byte-identical TMX, TSX and PNG for 1, 2 and 8 threads") {
    TempDir dir;
    const std::string recipe =
        shell_quote((source_dir() / "samples/overworld-corners.toml").string());
    std::string reference_tmx, reference_tsx, reference_png;
    for (int threads : {1, 2, 8}) {
        const fs::path sub = dir / ("t" + std::to_string(threads));
        fs::create_directories(sub);
        auto r = run_tilegen("generate " + recipe + " --size 77x53 --seed 5 -o m.tmx --threads " +
                                 std::to_string(threads),
                             sub);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        const std::string tmx = read_text(sub / "m.tmx"), tsx = read_text(sub / "m.tsx"),
                          png = read_text(sub / "m.png");
        if (reference_tmx.empty()) {
            reference_tmx = tmx;
            reference_tsx = tsx;
            reference_png = png;
            CHECK(tmx.find("width=\"78\" height=\"54\" offsetx=\"-8\" offsety=\"-8\"") !=
                  std::string::npos);
            continue;
        }
        CAPTURE(threads);
        CHECK(tmx == reference_tmx);
        CHECK(tsx == reference_tsx);
        CHECK(png == reference_png);
    }
}
