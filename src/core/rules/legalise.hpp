// Legalisation: ClassGrid -> ClassGrid whose every cell the tile rules can draw.
// Input: a class grid, the tile layers' rules (LayerRules::ordered, most specific first), the class
// count, the outside policy, settings and a thread count. Output: the rewritten grid and a report
// (cells changed, rounds run, undrawable cells before and after).
//
// Drawable. A cell is drawable when, in every layer, the rule that decides it (the first match, as
// autotile decides) exists and has at least one target that is not `@error` (`@none` is drawable).
// A rule whose targets are all `@error` (the usual `?  @error` catch-all) or that has no target
// counts as not drawable. The whole grid is decided by the tile matcher's tables (LayerMatcher), so
// the first pass costs one matching pass per layer, flat in rule count; later checks of single
// neighbourhoods go through a per-thread memo keyed by the packed neighbourhood (the rules are
// tried once per distinct neighbourhood).
//
// Class distances. Classes a and b *meet* when both straight borders between them are drawable: a
// half plane of a beside a half plane of b (vertically and horizontally, either side), every cell
// drawable. dist(a, b) is the length of the shortest path of meeting classes (a chain deep - water
// - sand - grass gives dist(deep, grass) = 3). Two cells d apart (Chebyshev) of classes a and b
// fall short by gap_d(a, b) = max(0, dist(a, b) - d) (class_count when no path exists): grass
// beside deep water by 2, grass two cells from deep water by 1. The gaps give the search a slope
// where the count of undrawable cells is flat: grass beside deep water first turns to sand, then
// the deep side turns to water.
//
// Search. R = max(1, the largest rule radius). Each round sweeps the (2R+1)^2 colours of the
// grid, colour (x mod (2R+1), y mod (2R+1)) in row-major order. In a colour's turn every
// position of that colour considers each other class c, in the order of |c - class| then c. A
// change's score is (d_count, d_gap): d_count the change in the number of undrawable cells within
// distance R (Chebyshev) of the position, d_gap the change in the sum of gap_d(class, other) over
// the 24 cells within distance d <= 2 of the position, read as the rules read them (outside policy;
// a clamped cell that is the position itself counts 0). The best score wins (earlier candidates win
// ties); the position changes only when its score is below (0, 0) lexicographically. All accepted
// changes of a colour's turn are applied together: positions of one colour are at least 2R+1 >= 3
// apart, so no change reads another's cell, no pair within distance 2 holds two of them, and the
// scores add up. The potential (undrawable cells, sum of gaps) therefore falls with every turn that
// changes something: the search terminates, never leaves more undrawable cells than it found, and
// its result does not depend on the thread count. Positions are the undrawable cells. A round that
// changes nothing is followed by one whose positions are all cells within R of an undrawable cell
// (the drawable side of a border may give way); when that round changes nothing either, the search
// stops. It also stops when no cell is undrawable or after max_rounds rounds.
//
// What remains. Neighbourhoods no single-cell step can repair (a class no rule draws at all next
// to anything, or a local optimum of the potential) stay as they are: report.undrawable counts
// them, and autotile still draws their error tiles and reports them as unmatched or error cells.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/rules/autotile.hpp"
#include "core/rules/rule_matcher.hpp"

namespace tilegen {

struct LegaliseSettings {
    int max_rounds = 64; // sweeps over the colours at most; default 64, range 1..1024
};

struct LegaliseReport {
    std::uint64_t undrawable_before = 0; // undrawable cells of the input
    std::uint64_t undrawable = 0;        // undrawable cells left in the output
    std::uint64_t changed = 0;           // cells whose class differs from the input's
    int rounds = 0;                      // rounds run (0 when nothing was undrawable)
};

struct LegaliseResult {
    ClassGrid classes;
    LegaliseReport report;
};

// Per class pair (a * class_count + b): dist(a, b) as defined above, -1 when no path exists.
std::vector<int> class_distances(const std::vector<LayerRules>& layers, int class_count);

// Whether each cell is drawable (1) or not (0), decided by the layers' matchers; rows are split
// over `threads`, the result does not depend on it.
Grid<std::uint8_t> drawable_cells(const ClassGrid& classes, const std::vector<LayerRules>& layers,
                                  int class_count, OutsidePolicy outside, int threads = 1);

// `class_count` bounds the class ids in `classes` (1..kMaxClasses). Rows are split over `threads`.
[[nodiscard]] LegaliseResult legalise(ClassGrid classes, const std::vector<LayerRules>& layers,
                                      int class_count, OutsidePolicy outside,
                                      LegaliseSettings settings = {}, int threads = 1);

// Whether changing one cell keeps the grid as drawable as it was: used by later stages that edit a
// legal grid (keep_shares after legalise). Single-threaded; remembers neighbourhoods it has seen.
class DrawableCheck {
  public:
    DrawableCheck(const std::vector<LayerRules>& layers, int class_count, OutsidePolicy outside);
    ~DrawableCheck();
    DrawableCheck(const DrawableCheck&) = delete;
    DrawableCheck& operator=(const DrawableCheck&) = delete;
    // True when setting cell (x, y) of `classes` to `to` leaves drawable every cell within the
    // rules' radius (at least 1) of it that is drawable now.
    bool keeps_drawable(const ClassGrid& classes, int x, int y, ClassId to);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace tilegen
