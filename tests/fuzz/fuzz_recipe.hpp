// The fixed recipe the class map readers of the fuzz targets use: water/sand/grass with colours
// (the names and symbols of samples/overworld.toml, so tilegen's own TMX and TSX files are valid
// seeds).
#pragma once

#include <cstdlib>

#include "core/recipe/recipe.hpp"
#include "fuzz_support.hpp"

namespace tilegen::fuzz {

inline const Recipe& class_map_recipe() {
    static const Recipe recipe = [] {
        Diagnostics diags;
        auto r = parse_recipe(R"([map]
width = 16
height = 12
[[terrain]]
name = "water"
symbol = "w"
share = 0.35
color = "#3060c0"
[[terrain]]
name = "sand"
symbol = "s"
share = 0.15
color = "#d0c080"
[[terrain]]
name = "grass"
symbol = "g"
share = 0.5
color = "#40a040"
[rules]
files = ["fuzz.rules"]
[tileset]
path = "fuzz-tileset.toml"
)",
                              "fuzz.toml", diags);
        FUZZ_CHECK(r.has_value(), "the fixed fuzz recipe parses");
        return *r;
    }();
    return recipe;
}

} // namespace tilegen::fuzz
