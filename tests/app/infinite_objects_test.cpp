// Objects in infinite maps: placed band by band, each band with the margin its objects depend on
// (position-based), so a map within the threshold sample has exactly the finite map's objects
// (and draws them in its preview).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/fixture.hpp"
#include "core/image.hpp"
#include "io/png.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;

namespace {

// Every <object .../> line of a TMX, in order.
std::vector<std::string> object_lines(const std::string& tmx) {
    std::vector<std::string> lines;
    for (std::size_t p = tmx.find("<object "); p != std::string::npos;
         p = tmx.find("<object ", p + 1))
        lines.push_back(tmx.substr(p, tmx.find('\n', p) - p));
    return lines;
}

} // namespace

TEST_CASE("infinite maps place the finite map's objects, at any thread count, and draw them") {
    Fixture f;
    const std::string recipe =
        (source_dir() / "tests" / "data" / "infinite-objects" / "woods.toml").string();
    REQUIRE(f.tilegen("generate " + recipe + " -o fin.tmx --png fin.png").exit_code == 0);
    const auto finite = object_lines(read_text(f.dir / "fin.tmx"));
    REQUIRE(finite.size() > 100);
    for (const char* threads : {"1", "2", "8"}) {
        CAPTURE(threads);
        const std::string out = std::string("inf-") + threads;
        const auto r = f.tilegen("generate " + recipe + " --infinite --chunk 16 --threads " +
                                 threads + " -o " + out + ".tmx --png " + out + ".png --json");
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.find("\"objects\":" + std::to_string(finite.size())) != std::string::npos);
        CHECK(object_lines(read_text(f.dir / (out + ".tmx"))) == finite);
        // The preview: the finite map's pixels (both cover whole chunks of 16 here: 64 x 48),
        // but for the cells on the map's edge: the finite map reads outside cells by its
        // `outside` policy (clamp), the infinite map reads the world there.
        Diagnostics d;
        const auto a = io::load_image(f.dir / "fin.png", d);
        const auto b = io::load_image(f.dir / (out + ".png"), d);
        REQUIRE(a);
        REQUIRE(b);
        REQUIRE(a->width() == b->width());
        REQUIRE(a->height() == b->height());
        bool same = true;
        const int edge = 16; // one tile
        for (int y = edge; y < a->height() - edge && same; ++y)
            for (int x = edge; x < a->width() - edge && same; ++x)
                same = a->get(x, y) == b->get(x, y);
        CHECK(same);
    }
}

TEST_CASE("infinite maps place objects band by band with no seams: the finite map's, every one") {
    // Large enough for several bands of rows (each placed with the margin its objects depend on),
    // small enough for one threshold sample (so finite and infinite maps have the same classes).
    Fixture f;
    const std::string recipe =
        (source_dir() / "tests" / "data" / "infinite-objects" / "woods.toml").string();
    REQUIRE(f.tilegen("generate " + recipe + " --size 300x700 -o fin.tmx --png none").exit_code ==
            0);
    const auto finite = object_lines(read_text(f.dir / "fin.tmx"));
    REQUIRE(finite.size() > 2000);
    const auto r = f.tilegen("generate " + recipe +
                             " --size 300x700 --infinite --chunk 32 -o inf.tmx --png none");
    REQUIRE(r.exit_code == 0);
    CHECK(object_lines(read_text(f.dir / "inf.tmx")) == finite);
}
