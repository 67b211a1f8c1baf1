// Screens of a map ([screens] size = [W, H]) and how a walker crosses them.
// Input: the class grid, per class whether it is walkable, the screen size in cells.
// Output: the screens (row-major, the last column and row cut short where the map's size is not a
// multiple) and the screen graph over the map's main walkable region (the largest 4-connected
// region of walkable cells; ties: the one holding the lowest cell index): a screen holds the region
// when one of its cells is in it; two 4-adjacent screens are joined by an exit when a cell of the
// region on one side of their border has a 4-neighbour of the region on the other side.
// Invariants: deterministic; `connected` is true when the screens holding the region form one
// component of the graph (trivially with one such screen).
#pragma once

#include <cstdint>
#include <vector>

#include "core/classes/terrain_classes.hpp"

namespace tilegen {

struct ScreenCell {
    int sx = 0, sy = 0;        // the screen's column and row
    int x = 0, y = 0;          // its top-left cell
    int width = 0, height = 0; // in cells
    bool has_region = false;   // holds cells of the main walkable region
    std::vector<int> exits;    // indices of the screens an exit joins it to, ascending
};

struct ScreenGraph {
    int columns = 0, rows = 0;
    std::vector<ScreenCell> screens; // row-major
    bool connected = true;
    int with_region = 0; // screens holding the main region
};

// The screen grid alone (no graph): screens of `screen_w` x `screen_h` cells over the map.
std::vector<ScreenCell> screen_grid(int map_width, int map_height, int screen_w, int screen_h);

ScreenGraph screen_graph(const ClassGrid& classes, const std::vector<bool>& walkable, int screen_w,
                         int screen_h);

} // namespace tilegen
