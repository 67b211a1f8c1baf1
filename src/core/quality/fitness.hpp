// Evaluation functions (reference 003, 4.5: search-based generation): numbers that score a map's
// playability, reported under `constraints.fitness` and used to compare search tries.
// Input: the class grid, per class whether it is walkable, the start cells (the start place's
// footprint and its 4-neighbours; may be empty), the places. Output:
//   accessibility  walkable cells / cells, in [0, 1] (0 for an empty grid)
//   obstacle_edges pairs of 4-neighbours of which exactly one is walkable, per cell
//   fairness       over the places other than the start: (shortest walkable 4-connected path from
//                  a start cell to a walkable cell beside or under the place) min / max, in [0, 1];
//                  0 when one is unreachable; 1 without a start or with fewer than two places
// Invariants: pure (the walkable cells become a bit per cell, framed by a bit of 0 on every side,
// by rows split over `threads`; the counts are popcounts over those rows; the result does not
// depend on the threads); for fairness one breadth-first search from the start, level by level,
// over the same bits, that stops at the level where the last place is reached (the bits and the
// frontiers).
#pragma once

#include <cstdint>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/places/places.hpp"

namespace tilegen {

struct Fitness {
    double accessibility = 0;
    double obstacle_edges = 0;
    double fairness = 1;
};

Fitness evaluate_fitness(const ClassGrid& classes, const std::vector<bool>& walkable,
                         const std::vector<std::uint32_t>& start_cells,
                         const std::vector<Place>& places, int start_rule, int threads = 1);

// The start cells of a place: its footprint, then its 4-neighbours inside the map (row-major).
std::vector<std::uint32_t> start_cells_of(const Place& place, int width, int height);

} // namespace tilegen
