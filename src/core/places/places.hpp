// Places: ClassGrid + heights -> named places (towns, villages, a dungeon entrance, the start).
// Input: the class grid, the heightfield the classes were cut from (may be empty: no slope
// limits apply), the [[places]] rules in recipe order, the seed.
// Output: the places, rule by rule, and per rule how many could be placed (fewer than `count`
// when the map has no room: the caller reports it as an unmet constraint).
// Invariants: every footprint lies inside the map with every cell on the rule's `on` classes and
// overlaps no other place; with `flat`, no footprint cell's slope exceeds it; with `near`, some
// footprint cell lies within near_distance (4-connected steps) of a `near` class cell; with `face`,
// every cell of the row just below the footprint is inside the map and of a `face` class (a cliff
// with walkable land in front of it); the anchors (top-left cells) of a new place and of every
// place placed before it (any rule) are at least the new rule's min_distance apart (Euclidean).
// Decisions: each rule, in recipe order, walks the map's cells in a seeded random order (an
// AnchorOrder of the stream hash(seed, "places", rule): a Feistel permutation of the cells) and
// takes each anchor that passes the tests above and keeps min_distance, until its count is met
// or every cell has been walked. So the result is a pure function of the inputs, and a place
// depends only on the cells walked before it (a change elsewhere on the map leaves it).
// Cost: a few tests per place when anchors are common (a few hundred cells read per place, not
// the map). After kPlacesWalkBudget cells without meeting its count, a rule marks its anchors in
// one scan of the map (bands of rows on the threads) and walks on over the marks: the same
// places, at the cost of a map pass, for rules whose anchors are rare. A `near_distance` above
// 32 takes the scan from the start (class_distance's grid instead of a look around each anchor).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/grid.hpp"

namespace tilegen {

struct PlaceRule {
    std::string name;         // required; names the place in `connect`, JSON and the TMX
    std::string sprite;       // objects sheet sprite drawn on it; empty: none (1x1 footprint)
    int footprint_w = 1;      // from the sprite's footprint; 1..16
    int footprint_h = 1;      // 1..16
    std::uint32_t on = 0;     // class mask every footprint cell stands on; required
    int count = 1;            // places to make; default 1, range 0..256
    double min_distance = 16; // anchor distance to every earlier place; default 16, 0..4096
    std::uint32_t near = 0;   // classes to be near (0: no preference)
    int near_distance = 8;    // 4-connected steps; default 8, range 1..256
    double flat = 0;          // max slope (slope_of) per footprint cell; 0: no limit; 0..100
    std::uint32_t face = 0;   // classes of the row in front (below) the footprint; 0: none
    bool start = false;       // the player's start (at most one rule, count 1)
    int line = 0, column = 0; // of the [[places]] table
};

struct Place {
    int rule = 0;     // index into the rules
    int x = 0, y = 0; // footprint's top-left cell
    int w = 1, h = 1; // footprint
    bool operator==(const Place&) const = default;
};

struct PlacesResult {
    std::vector<Place> places; // rule by rule, in order of acceptance
    std::vector<int> placed;   // per rule: places made (== count when the rule is met)
    bool operator==(const PlacesResult&) const = default;
};

// The slope of a cell: the largest absolute height difference to a 4-neighbour, times 100
// (percent of the height range per cell). Empty heights: all 0.
Grid<float> slope_of(const Grid<float>& heights, int threads = 1);
// One row of slope_of: row y of the heights, the rows above and below (null: none), w cells.
void slope_row(const float* row, const float* up, const float* down, int w, float* out);

// Per cell: the 4-connected steps to the nearest cell whose class is in `mask` (no cell blocks a
// step, so the Manhattan distance), capped at cap + 1 (range of cap: 0..65533). A row pass (the
// nearest class cell left and right), then a sweep up and a sweep down per column, on bands of
// rows (each reads the `cap` rows beyond its ends): the result never depends on `threads`.
GridCells<std::uint16_t> class_distance(const ClassGrid& classes, std::uint32_t mask, int cap,
                                        int threads = 1);

// Cells a rule's walk tests one by one before it marks its anchors in one scan.
inline constexpr std::uint64_t kPlacesWalkBudget = std::uint64_t{1} << 16;

// `slope` (may be null): slope_of(heights), when the caller has it already. `threads`: workers
// for the scans (bands of rows); the result never depends on it.
PlacesResult place_places(const ClassGrid& classes, const Grid<float>& heights,
                          const std::vector<PlaceRule>& rules, std::uint64_t seed,
                          const Grid<float>* slope = nullptr, int threads = 1);

// place_places with `walk_budget` cells walked one by one before the scan (kPlacesWalkBudget in
// place_places; 0: the scan from the start). The same result for any budget (tests force the
// scan).
PlacesResult place_places_walked(const ClassGrid& classes, const Grid<float>& heights,
                                 const std::vector<PlaceRule>& rules, std::uint64_t seed,
                                 const Grid<float>* slope, int threads, std::uint64_t walk_budget);

// Whether some cell within d 4-connected steps (Manhattan: nothing blocks) of the fw x fh
// footprint at (x, y) has a class in `mask`: a plain look over the cells around it.
bool near_class_within(const ClassGrid& classes, std::uint32_t mask, int x, int y, int fw, int fh,
                       int d);

// Calls f(x, y) for every anchor (top-left cell) of an fw x fh block inside a w x h map whose
// cells all pass covered(cell index) and whose row y lies in [y_begin, y_end), ordered by the
// block's last row, then by x. One streaming pass over rows y_begin .. y_end + fh - 2: per row,
// the run of covered cells ending at each x (capped at fw), and per column the rows in a row whose
// run reached fw (capped at fh). `rows` is a buffer (w entries, reused). So bands of anchor rows
// can be scanned apart (each reads fh - 1 rows past its end).
template <class Covered, class F>
void for_each_covered_anchor(int w, int h, int fw, int fh, int y_begin, int y_end,
                             std::vector<std::uint16_t>& rows, Covered&& covered, F&& f) {
    rows.assign(static_cast<std::size_t>(w), 0);
    const auto cap_w = static_cast<std::uint16_t>(fw), cap_h = static_cast<std::uint16_t>(fh);
    const int y_last = std::min(h, y_end + fh - 1);
    for (int y = std::max(0, y_begin); y < y_last; ++y) {
        const std::size_t row = static_cast<std::size_t>(y) * w;
        std::uint16_t run = 0;
        for (int x = 0; x < w; ++x) {
            run = covered(row + x) ? static_cast<std::uint16_t>(run + (run < cap_w ? 1 : 0))
                                   : std::uint16_t{0};
            std::uint16_t& up = rows[static_cast<std::size_t>(x)];
            up = run == cap_w ? static_cast<std::uint16_t>(up + (up < cap_h ? 1 : 0))
                              : std::uint16_t{0};
            if (up == cap_h) f(x - fw + 1, y - fh + 1);
        }
    }
}

// Every anchor of the map (all rows).
template <class Covered, class F>
void for_each_covered_anchor(int w, int h, int fw, int fh, std::vector<std::uint16_t>& rows,
                             Covered&& covered, F&& f) {
    for_each_covered_anchor(w, h, fw, fh, 0, h, rows, covered, f);
}

// Per cell: 1 where a place's footprint covers it.
GridCells<std::uint8_t> place_mask(int width, int height, const std::vector<Place>& places);

} // namespace tilegen
