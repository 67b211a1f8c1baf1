// A small tilegen project in a temporary folder, for tests that run the program.
#pragma once

#include <doctest/doctest.h>

#include "core/image.hpp"
#include "io/png.hpp"
#include "test_support.hpp"

namespace tilegen::test {

// A small project in a temp folder: 4 coloured 8x8 tiles, two classes, rules covering everything.
struct Fixture {
    TempDir dir;
    Fixture() {
        Image img(32, 8);
        const Rgba colours[4] = {
            {30, 80, 200, 255}, {60, 100, 230, 255}, {40, 160, 60, 255}, {200, 190, 90, 255}};
        for (int t = 0; t < 4; ++t)
            for (int y = 0; y < 8; ++y)
                for (int x = 0; x < 8; ++x) {
                    Rgba c = colours[t];
                    if ((x + y) % 4 == 0) c.r = static_cast<std::uint8_t>(c.r / 2); // some texture
                    img.set(t * 8 + x, y, c);
                }
        tilegen::Diagnostics d;
        REQUIRE(io::save_png(dir / "tiles.png", img, d));
        write_text(dir / "tiles.toml", "image = \"tiles.png\"\ntile_width = 8\ntile_height = "
                                       "8\n[tiles]\nwater = 0\nwater-2 = 1\n"
                                       "grass = 2\nshore = 3\n");
        write_text(dir / "map.rules", "# test rules\n??? ?w? ???  water water-2*0.3\n"
                                      "?w? ?g? ???  shore\n??? ?g? ???  grass\n");
        write_recipe("map.toml", "map.rules");
    }
    void write_recipe(const std::string& name, const std::string& rules,
                      const std::string& extra_map = "") {
        write_text(dir / name, "[map]\nwidth = 40\nheight = 24\nseed = 3\n" + extra_map +
                                   "[[terrain]]\nname = \"water\"\nsymbol = \"w\"\nshare = 0.4\n"
                                   "[[terrain]]\nname = \"grass\"\nsymbol = \"g\"\nshare = 0.6\n"
                                   "[rules]\nfiles = [\"" +
                                   rules + "\"]\n[tileset]\npath = \"tiles.toml\"\n");
    }
    RunResult generate(const std::string& args) {
        return run_tilegen("generate " + args, dir.path());
    }
    RunResult tilegen(const std::string& args) { return run_tilegen(args, dir.path()); }
};

} // namespace tilegen::test
