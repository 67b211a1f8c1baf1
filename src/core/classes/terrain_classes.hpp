// Terrain classes: Heightfield -> ClassGrid.
// Input: a heightfield (values in [0, 1]) and per-class shares (lowest class first, adding up to
// 1). Output: thresholds read off the heightfield's histogram, and a ClassGrid where cell = index
// of its class. Invariant: each class gets its share of cells to within one cell per class, except
// where equal heights straddle a threshold (ties go to the higher class). Near-linear time: a
// histogram pass, then a pass collecting the values of the few buckets that hold a threshold and a
// selection inside each (no full sort). Classifying can count the cells of each class as it writes
// them (what class_counts would give, without another pass over the grid).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/grid.hpp"

namespace tilegen {

using ClassId = std::uint8_t;
using ClassGrid = Grid<ClassId>;

inline constexpr int kMaxClasses = 32; // class masks in rules are 32-bit

struct TerrainClass {
    std::string name; // e.g. "water"
    char symbol =
        '?'; // one character used in rule files; never '?', '!', '[', ']', '@', '*', '#' or space
    double share = 0; // fraction of cells, in [0, 1]; the shares of a recipe add up to 1
    std::optional<std::uint32_t>
        color;            // 0xRRGGBB: the class's color in PNG class maps and overlays (optional)
    bool walkable = true; // false for blockers (water, walls, ...): map statistics count the
                          // 4-connected regions of walkable cells; default true
    bool overlay = false; // a terrain without a share (percentile recipes), or named by [rivers]
                          // or as [roads] class or bridge_class and in no biome table row:
                          // never cut from the heightfield, written only by a stage (hydrology,
                          // roads) or a given class map; never changed or produced by class
                          // passes, clean-up and legalisation
};

// thresholds[i] is the smallest height of class i + 1 (size: classes - 1), non-decreasing.
// `threads` splits the histogram and classify passes by rows; results never depend on it.
// `range`, when given, gets the lowest and highest height that is not NaN (+inf, -inf when none),
// found by the histogram's pass over every height (quantise_heights takes it: no pass of its own).
std::vector<float> thresholds_from_shares(const Grid<float>& heights,
                                          const std::vector<double>& shares, int threads = 1,
                                          std::pair<float, float>* range = nullptr);

// Band of a height: the number of thresholds it reaches (height >= threshold).
inline std::size_t band_of(float height, std::span<const float> thresholds) {
    std::size_t band = 0;
    for (float t : thresholds)
        band += height >= t ? 1 : 0;
    return band;
}

// Class of each height: its band_of. With `counts`, also the cells of each class id below
// counts->size() (the caller sizes it; the entries are overwritten).
ClassGrid classify(const Grid<float>& heights, const std::vector<float>& thresholds,
                   int threads = 1, std::vector<std::uint64_t>* counts = nullptr);

// Class of each cell of two maps of one size through a table: table[band_of(row) * columns +
// band_of(column)], where columns = column_thresholds.size() + 1 (row-major, rows =
// row_thresholds.size() + 1). `counts` as in classify.
ClassGrid classify_table(const Grid<float>& rows, const std::vector<float>& row_thresholds,
                         const Grid<float>& columns, const std::vector<float>& column_thresholds,
                         std::span<const ClassId> table, int threads = 1,
                         std::vector<std::uint64_t>* counts = nullptr);

// Cells of each class id below class_count (size: class_count; other ids are not counted).
std::vector<std::uint64_t> class_counts(const ClassGrid& classes, int class_count, int threads = 1);

// Fractions from counts of a grid of `cells` cells: counts[i] / cells (all 0 for an empty grid).
std::vector<double> fractions_of_counts(const std::vector<std::uint64_t>& counts,
                                        std::size_t cells);

// Fraction of cells in each class (size: class_count): fractions_of_counts(class_counts(...)).
std::vector<double> class_fractions(const ClassGrid& classes, int class_count, int threads = 1);

} // namespace tilegen
