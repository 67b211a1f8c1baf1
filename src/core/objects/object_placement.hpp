// Object placement: ClassGrid + density maps -> objects on top of the ground (trees, rocks).
// Input: a class grid (the whole map, or a window of a larger or endless world: PlacementFrame),
// the named maps over the same cells, the recipe's object rules, the sprite sheet, the seed.
// Output: placed objects (sprite, footprint top-left cell in world cells), sorted for drawing: by
// footprint bottom, then x.
// Invariants: every footprint lies inside the grid and the world's bounds, on cells of the rule's
// classes, and overlaps no other footprint; anchors of objects of one rule are at least `spacing`
// cells apart; rules earlier in the recipe place first.
//
// Position-based (Poisson-disk-like: a bounded number of rounds of Luby's maximal independent set
// over hashed priorities, an approximation of random-order sequential placement): per rule, a
// jittered grid of blocks of side floor(spacing / sqrt 2) (a block holds one anchor at most), two
// attempts per block at hashed cells of it; a block's first attempt that stands on the rule's
// classes, is free of the earlier rules' footprints, passes chance and density and whose picked
// sprite's footprint fits is its candidate. Two candidates conflict when they share a block, lie
// closer than the spacing, or their footprints overlap. Then 8 rounds: every live candidate that
// outranks each live candidate it conflicts with (a higher hashed block priority; ties by block
// order) is placed, then every live candidate that conflicts with a placed one is out; what is
// still live after the last round is not placed (almost nothing: most rules settle in 4-6 rounds).
// A candidate's fate depends only on the candidates within 2 x 8 reaches of it, never on an order
// of the whole map, so:
// - every choice is a hash of (seed, rule, world position): identical at every thread count (the
//   rounds run rows in parallel, each reading the state the previous pass left);
// - there are no seams or directions: no place starts "fresh" (an earlier scan-order placer cut
//   into bands or cells packs each band's first rows in lockstep);
// - a window of the world placed with object_margin() cells around it (clipped to the world's
//   bounds) has exactly the world's objects: infinite maps, `--region` jobs and endless worlds
//   place objects piece by piece, with no seams.
#pragma once

#include <cstdint>
#include <optional>
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
    int x = 0, y = 0; // footprint's top-left cell (world cells)
    int rule = 0;     // index into the object rules
    bool operator==(const PlacedObject&) const = default;
};

using NamedMaps = std::vector<std::pair<std::string, Grid<float>>>;

// Where the class grid lies in the world. Default: the grid is the whole world (a finite map).
struct PlacementFrame {
    int x = 0, y = 0; // the world cell of the grid's cell (0, 0)
    // Every footprint lies inside these world cells; nullopt: the grid's own cells (a finite map).
    // `unbounded`: no bound but the grid (an endless world).
    std::optional<Region> bounds;
    bool unbounded = false;
    // Only objects anchored in these world cells are returned; nullopt: all.
    std::optional<Region> keep;
};

// `maps` must hold every density map a rule names, at least the class grid's size and over the
// same cells (throws std::logic_error otherwise: the caller's bug). threads: workers to use (1 or
// less: the calling thread only); the result never depends on it. Objects anchored within
// object_margin() cells of a grid edge that is not a world bound may differ from the world's
// (their neighbourhood is cut off): place a window with that margin around it.
std::vector<PlacedObject> place_objects(const ClassGrid& classes, const NamedMaps& maps,
                                        const std::vector<ObjectRule>& rules,
                                        const SpriteSheet& sheet, std::uint64_t seed,
                                        int threads = 1, const PlacementFrame& frame = {});

// Cells the class grid must reach beyond a window, on every side (or up to the world's bounds),
// for place_objects to give the window's objects exactly as the whole world has them: per rule,
// (2 x rounds + 2) times its reach (the spacing, a footprint) plus 2, summed over the rules (a
// rule's candidates depend on the earlier rules' objects). 0 without rules.
int object_margin(const std::vector<ObjectRule>& rules, const SpriteSheet& sheet);

// Objects in drawing order: by footprint bottom row, then x (no two objects share both: they would
// overlap, so the order is total). place_objects returns them so; for lists joined from windows.
void sort_for_drawing(std::vector<PlacedObject>& objects, const SpriteSheet& sheet,
                      int threads = 1);

} // namespace tilegen
