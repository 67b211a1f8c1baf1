// Object placement: ClassGrid + density maps -> objects on top of the ground (trees, rocks).
// Input: the class grid, the named maps, the recipe's object rules, the sprite sheet, the seed.
// Output: placed objects (sprite, footprint top-left cell), sorted for drawing: by footprint
// bottom, then x. Invariants: every footprint lies inside the map, on cells of the rule's classes,
// and overlaps no other footprint; anchors of objects of one rule are at least `spacing` cells
// apart (Poisson-disk-like: a jittered grid of candidates, accepted in scan order: rows top to
// bottom, left to right); rules earlier in the recipe place first. Deterministic: every choice is a
// hash of (seed, rule, position), and every decision is the one a single scan makes, however the
// work is split, so the result is identical at every thread count and has no seams.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/grid.hpp"
#include "core/objects/sprite_sheet.hpp"

namespace tilegen {

struct ObjectRule {
    std::vector<std::string> sprites; // one is picked per object by hash; all from the sprite sheet
    std::vector<double> weights;      // parallel to sprites; default 1 each
    std::uint32_t on = 0;             // class mask the whole footprint must stand on
    std::string density;              // a named map (empty: uniform)
    double threshold = 0;             // density below this places nothing; default 0, range 0..1
    double chance = 1;                // acceptance at full density; default 1, range 0..1
    double spacing = 2;               // minimum anchor distance in cells; default 2, range 1..256
    int line = 0, column = 0;
};

struct PlacedObject {
    int sprite = 0;   // index into SpriteSheet::sprites
    int x = 0, y = 0; // footprint's top-left cell
    int rule = 0;     // index into the object rules
    bool operator==(const PlacedObject&) const = default;
};

using NamedMaps = std::vector<std::pair<std::string, Grid<float>>>;

// `maps` must hold every density map a rule names, at least the class grid's size (throws
// std::logic_error otherwise: the caller's bug). threads: workers to use (1 or less: the calling
// thread only); the result never depends on it.
std::vector<PlacedObject> place_objects(const ClassGrid& classes, const NamedMaps& maps,
                                        const std::vector<ObjectRule>& rules,
                                        const SpriteSheet& sheet, std::uint64_t seed,
                                        int threads = 1);

} // namespace tilegen
