// The plain basin flood (session 5's flood_basins, kept as the tests' reference for the fast
// steps in src/core/hydrology/basin_flood.hpp): descent by cell, basins by walking each cell's
// descent path, every pair of neighbours in different basins counted then placed by a counting
// sort over the 65 536 levels, Kruskal's algorithm looking the basins up in the grid.
// Output: `down` (after breaching), `filled`, `basin` and `basins` as flood_basins gives them
// (basins numbered in reading order of the first cell reaching each pit).
#pragma once

#include "core/hydrology/priority_flood.hpp"

namespace tilegen::test {

FlowField reference_flood_basins(Grid<std::uint16_t> level);

} // namespace tilegen::test
