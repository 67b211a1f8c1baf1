// River settings: the recipe's [rivers] table as a value (parsed by recipe.cpp, documented with
// every key, default and range in docs/hydrology.md).
// Input: none (plain data). Invariants after parsing: count_min <= count_max, width_min <=
// width_max, the symbols name [[terrain]] classes (class and lake_class and waterfall_class are
// overlay terrains: never cut from the heightfield), every `into` symbol names a terrain, `rain`
// names a map of the recipe.
#pragma once

#include <cstdint>
#include <string>

namespace tilegen {

enum class RiverMethod {
    flow,  // Priority-Flood, flow accumulation, rivers where the flow passes `threshold`
    agents // river agents (shared/reference/003, 4.4): start at the coast, climb, dig back down
};

struct RiverSettings {
    RiverMethod method = RiverMethod::flow; // "flow" (default) or "agents"
    bool has_count = false; // count given; without it (flow) every river meeting min_length stays
    int count_min = 3, count_max = 6; // rivers kept, a number in [min, max] picked by the seed;
                                      // default [3, 6], range 0..4096 (agents: always used)
    double threshold = 50; // flow: catchment (cells, weighted by rain) where a river starts;
                           // default 50, range 1..1e9
    int min_length = 12;   // cells from source to mouth; shorter rivers are dropped; default 12,
                           // range 1..65536
    int width_min = 1, width_max = 3; // cells across; grows with flow (never shrinks downstream);
                                      // default [1, 3], range 1..16
    int lake_min_area = 0;   // depressions of at least this many cells stay as lakes (lake_class);
                             // default 0 (no lakes), range 0..1e8
    double carve = 0;        // river beds lowered by this much (banks by half), in height units;
                             // default 0, range 0..1
    std::string rain;        // flow: a map weighting each cell's rain (its value / its mean); "" =
                             // uniform (default)
    char river_symbol = '~'; // the overlay terrain rivers are written as; default "~"
    char lake_symbol = 0;    // the overlay terrain of lakes; default none (0)
    char waterfall_symbol = 0;    // the overlay terrain of waterfalls; default none (0)
    std::string into;             // terrain symbols a river may end in; default: the lowest terrain
    double waterfall_drop = 0.05; // a river cell at least this much above the next one is a
                                  // waterfall (as is the cell where a river leaves the highest
                                  // band); default 0.05, range 0..1 (0: only the band rule)
    // Agents (method = "agents"):
    int agent_attempts = 200;   // start positions tried before giving up; default 200, 1..1e6
    double agent_widen = 0.1;   // widening frequency: width + 1 every 1/this cells downstream;
                                // default 0.1, range 0..1
    double agent_slope = 0.002; // each cell dug at least this much below the one upstream;
                                // default 0.002, range 0..0.1
    int line = 0, column = 0;   // the [rivers] table in the recipe
};

} // namespace tilegen
