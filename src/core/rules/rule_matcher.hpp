// Rule matching: ClassGrid -> which rule decides each cell, per layer.
// Input: a class grid, one layer's rules, the class count and the outside policy.
// Output: Grid<int> of rule indices into the layer's ordered rules (kNoRule where none matches).
// Invariants: rules are tried most specific first (most non-`?` cells), ties in order of
// appearance; the first match wins. The decision depends only on the cell's neighbourhood, so it is
// computed once per distinct neighbourhood (a lookup table keyed by the neighbourhood's classes),
// and its cost does not grow with rule count. For 3x3 rules the key only tells apart the classes
// the rules of the cell's centre class tell apart, so even 16 classes give a small flat table.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/grid.hpp"
#include "core/rules/rule.hpp"

namespace tilegen {

inline constexpr int kNoRule = -1;

// What neighbours outside the map count as: the nearest cell inside (clamp), or a fixed class.
struct OutsidePolicy {
    std::optional<ClassId> fixed_class; // nullopt = clamp (default)
};

// The class grid a corner layer is matched on: (W+1) x (H+1), cell (i, j) the class of (i, j) by
// the outside policy. Its cell (i, j) with neighbours (-1..0, -1..0) (outside again by the policy)
// are the four cells around corner (i, j) of the map, which a 2x2 pattern reads (descriptor.hpp).
ClassGrid corner_class_grid(const ClassGrid& classes, OutsidePolicy outside);

// The order rules are tried in: indices into `rules`, most specific first (most cells that are not
// `?`), ties in order of appearance. The one place that order is decided.
std::vector<std::size_t> specificity_order(std::span<const Rule> rules);
// The layer's rules in the order they are tried (specificity_order applied).
std::vector<Rule> order_by_specificity(std::vector<Rule> rules);

// Index of the first rule in `ordered` whose pattern matches the neighbourhood of (x, y), or
// kNoRule.
int first_match(const ClassGrid& classes, int x, int y, std::span<const Rule> ordered,
                OutsidePolicy outside);

// The first matching rule for a neighbourhood given as (2 radius + 1)^2 class ids, row-major,
// centre in the middle (radius at least every rule's), or kNoRule.
int first_match_of(std::span<const Rule> ordered, std::span<const ClassId> cells, int radius);

// One layer's matcher over one class grid: decision tables are built once and shared; match_rows
// may be called from several threads at once for disjoint row ranges. `classes` and `ordered` must
// outlive it.
class LayerMatcher {
  public:
    LayerMatcher(const ClassGrid& classes, std::span<const Rule> ordered, int class_count,
                 OutsidePolicy outside);
    ~LayerMatcher();
    LayerMatcher(const LayerMatcher&) = delete;
    LayerMatcher& operator=(const LayerMatcher&) = delete;
    // Calls row_done(y, decisions) for y = y0 .. y1-1 in order; decisions has classes.width()
    // entries (rule indices into `ordered`, or kNoRule) and is valid during the call only.
    void match_rows(int y0, int y1, const std::function<void(int, const int*)>& row_done) const;

    struct Impl;

  private:
    template <int Bits>
    void reduced_rows(int y0, int y1, const std::function<void(int, const int*)>& row_done) const;
    std::unique_ptr<Impl> impl_;
};

// The first matching rule for every cell. `class_count` bounds the class ids in `classes`.
// Rows are split over `threads`; the result does not depend on the thread count.
Grid<int> match_rules(const ClassGrid& classes, std::span<const Rule> ordered, int class_count,
                      OutsidePolicy outside, int threads = 1);

} // namespace tilegen
