// Rule: a descriptor (left) and the targets it may place (right), with where it was written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/map.hpp"
#include "core/rules/descriptor.hpp"

namespace tilegen {

struct Target {
    enum class Kind {
        tile,  // a tile of the tileset, by name
        image, // an image file (path relative to the rule file), packed into the atlas
        error, // @error: the built-in red error tile
        none,  // @none: leave the cell empty
    };
    Kind kind = Kind::tile;
    std::string name;  // tile name or image path as written
    double weight = 1; // relative chance among the rule's targets; default 1, range [0, 1e9]
    Gid flips = 0;     // Tiled flip flags applied to the tile
    int column = 0;    // 1-based column of the target in its line
};

struct Rule {
    Descriptor pattern;
    std::vector<Target> targets;
    std::string layer = "ground";
    std::string file; // as given to the parser (used in messages and stats)
    int line = 0;
    std::uint64_t identity =
        0; // hash of the rule's text: seeds its choice of target, stable under edits elsewhere
    std::string
        variant; // "" for the rule as written; "r90", "r180", "r270", "m", "m r90", ... for the
                 // variants `rotate` and `mirror` add (pattern and targets turned alike)
};

} // namespace tilegen
