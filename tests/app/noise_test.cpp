// tilegen noise, run as a user would.
#include <doctest/doctest.h>

#include "app/fixture.hpp"
#include "io/heightfield_files.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;

TEST_CASE("noise writes PNG and PFM, a --region equals the same window of the whole map") {
    Fixture f;
    REQUIRE(f.tilegen("noise map.toml -o all.pfm").exit_code == 0);
    REQUIRE(f.tilegen("noise map.toml -o all.png").exit_code == 0);
    CHECK(read_text(f.dir / "all.png").starts_with("\x89PNG"));
    auto r = f.tilegen("noise map.toml -o part.pfm --region 7,5,20,9");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    Diagnostics d;
    auto all = io::parse_pfm(read_text(f.dir / "all.pfm"), "all", d);
    auto part = io::parse_pfm(read_text(f.dir / "part.pfm"), "part", d);
    REQUIRE(all);
    REQUIRE(part);
    CHECK(all->width() == 40);
    CHECK(part->width() == 20);
    bool same = true;
    for (int y = 0; y < 9; ++y)
        for (int x = 0; x < 20; ++x)
            same = same && (*part)(x, y) == (*all)(7 + x, 5 + y);
    CHECK(same);
    // Seed and size change the field.
    REQUIRE(f.tilegen("noise map.toml -o s.pfm --seed 99").exit_code == 0);
    CHECK(read_text(f.dir / "s.pfm") != read_text(f.dir / "all.pfm"));
    REQUIRE(f.tilegen("noise map.toml -o z.pfm --size 10x4").exit_code == 0);
    CHECK(read_text(f.dir / "z.pfm").starts_with("Pf\n10 4\n"));
}

TEST_CASE("noise: named maps, errors and usage") {
    Fixture f;
    write_text(f.dir / "maps.toml",
               read_text(f.dir / "map.toml") + "[maps.moisture]\nkind = \"worley\"\n");
    REQUIRE(f.tilegen("noise maps.toml --map moisture -o m.pfm").exit_code == 0);
    REQUIRE(f.tilegen("noise maps.toml --map elevation -o e.pfm").exit_code == 0);
    CHECK(read_text(f.dir / "m.pfm") != read_text(f.dir / "e.pfm"));
    auto r = f.tilegen("noise maps.toml --map rain -o x.pfm");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("the recipe has no map 'rain' (its maps: elevation, moisture)") !=
          std::string::npos);
    CHECK(f.tilegen("noise map.toml").exit_code == 2);
    CHECK(f.tilegen("noise map.toml -o x.jpg").exit_code == 2);
    CHECK(f.tilegen("noise map.toml -o x.png --region 1,2,3").exit_code == 2);
    CHECK(f.tilegen("noise map.toml -o x.png --region 1,2,0,3").exit_code == 2);
    write_text(f.dir / "bad.toml", "[noise]\nkind = \"plasma\"\n");
    auto b = f.tilegen("noise bad.toml -o x.png");
    CHECK(b.exit_code == 1);
    CHECK(b.err.find("bad.toml:2:8: error: 'noise.kind' is \"plasma\"") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(f.dir / "x.png"));
    CHECK(f.tilegen("noise -o d.png --size 16x16").exit_code == 0); // the built-in default recipe
}
