// Leaning tiles: a parallel schedule of a scan (rows top to bottom, each left to right) in which
// every decision sees what a single scan would have decided before it, so the result is the one
// scan's at every thread count and there are no seams where parallel work meets. (Bands that each
// start with nothing above them, or fill in between finished bands, would pack their first rows and
// thin their last ones.)
// Input: the scan's size in columns x rows (of whatever units the caller scans: cells, blocks),
// how far a decision reads and writes around itself, the thread count. Output: a tiling of the scan
// and a run of it. Invariant: a tile runs only after every tile whose cells it can see and which
// comes earlier in the scan, and never at the same time as one whose cells it can touch.
//
// The tiles: a group of rows (tile height) by a strip of columns whose edges lean left by `skew`
// columns per row. With the skew at least a decision's horizontal reach and the group at least
// twice its vertical reach, a cell never sees the cells of the tile to its right in the rows above
// (earlier in the scan, not decided yet) nor those of the tile to its left in the rows below
// (decided already, but later in the scan). So a tile may run once the tile to its left and the
// tile above and to its right (which follows the ones above it) are done. Two tiles that may run at
// the same time are then a strip's width minus its lean apart; `gap` keeps that far enough for them
// never to touch the same data. Strips only split the work: one thread scans one strip.
#pragma once

#include <functional>

namespace tilegen {

struct LeaningTiles {
    int columns = 0, rows = 0; // the scan
    int group_rows = 1;        // tile height in rows
    int groups = 0;            // tile rows
    int skew = 1;              // columns a tile's edges move left per row (within its group)
    int strips = 1;            // tile columns
    int strip_width = 0;       // in columns, at a tile's first row

    // Column where strip k's tiles start in row `row` (k == strips: the scan's end).
    int edge(int k, int row) const {
        return k == 0 ? 0 : k == strips ? columns : k * strip_width - skew * (row % group_rows);
    }
};

// group_rows: tile height, at least twice the vertical reach of a decision (plus what else the
// caller needs); skew: at least its horizontal reach, and 1 or more; gap: columns between two
// tiles that may run at the same time, beyond the lean. One strip for one thread; on more, as many
// as fit (at least skew * group_rows + gap columns each), two per thread at most: about half of
// them can run at a time, and narrower ones cost more per cell.
LeaningTiles plan_leaning_tiles(int columns, int rows, int group_rows, int skew, int gap,
                                int threads);

// Runs prepare(group) for every group and tile(strip, group, worker) for every tile on `threads`
// workers (worker in 0..threads-1). A tile runs once its group and the next are prepared, and the
// tile to its left and the tile above and to its right (above, for the last strip) are done. Of the
// tasks ready, the one nearest the top left goes first; a group is prepared a little before the
// tiles above it need it, or earlier by a worker with nothing else to do. One thread: groups in
// order, each prepared before the tiles above it, tiles left to right.
void run_leaning_tiles(const LeaningTiles& tiles, int threads,
                       const std::function<void(int group)>& prepare,
                       const std::function<void(int strip, int group, int worker)>& tile);

// Items 0..n-1 handed out one at a time to `threads` workers (dynamic, for balance). Items must be
// independent.
void for_each_item(int n, int threads, const std::function<void(int item)>& item);

} // namespace tilegen
