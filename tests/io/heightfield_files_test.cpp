#include <doctest/doctest.h>

#include <cmath>

#include "core/heightfield/harmonic_noise.hpp"
#include "io/heightfield_files.hpp"
#include "io/png.hpp"
#include "test_support.hpp"

using namespace tilegen;

TEST_CASE("PFM round trip is exact") {
    auto g = harmonic_noise({}, 3, 37, 21, {0, 0, 37, 21});
    Diagnostics d;
    auto back = io::parse_pfm(io::pfm_bytes(g), "x.pfm", d);
    REQUIRE(back);
    CHECK(*back == g);
    CHECK(io::pfm_bytes(g).starts_with("Pf\n37 21\n-1.0\n"));
    CHECK_FALSE(io::parse_pfm("P6\n1 1\n255\n", "y.pfm", d));
    CHECK_FALSE(io::parse_pfm("Pf\n4 4\n-1.0\nabc", "z.pfm", d));
}

TEST_CASE("greyscale PNG decodes (by SFML) to round(v * 255)") {
    auto g = harmonic_noise({}, 4, 33, 17, {0, 0, 33, 17});
    g(0, 0) = 0.0f;
    g(1, 0) = 1.0f;
    Diagnostics d;
    auto img = io::decode_image(io::grey_png_bytes(g), "g.png", d);
    REQUIRE(img);
    REQUIRE(img->width() == 33);
    REQUIRE(img->height() == 17);
    bool same = true;
    for (int y = 0; y < 17; ++y)
        for (int x = 0; x < 33; ++x) {
            const auto p = img->get(x, y);
            const auto expect = static_cast<std::uint8_t>(std::lround(g(x, y) * 255.0f));
            same = same && p.r == expect && p.g == expect && p.b == expect && p.a == 255;
        }
    CHECK(same);
}
