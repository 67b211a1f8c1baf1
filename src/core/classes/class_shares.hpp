// Keeping class shares: ClassGrid -> ClassGrid, run after the class passes and the clean-up.
// Input: a class grid, per class id its target share (a fraction of the cells, or NaN for a class
// without one) and its ClassCleanup settings (min_area), and the run's seed. Output: the same grid
// with cells moved across class borders so that every class with a target holds as many cells as
// its share asks, as far as borders allow.
//
// Why: class passes (cellular automata) and the clean-up (small regions merged, thin parts opened)
// move cells between classes, so a recipe's shares (percentiles of the heightfield, or the biome
// table's classification) drift by a point or more on small maps. This stage hands the cells back
// along the borders where the drift happened, growing the classes that lost cells into the classes
// that gained them, concave border cells first, so the shapes the earlier stages made stay.
//
// Definitions: M = the cells whose class has a target; class c wants want(c) = M * share(c) / S
// cells, S = the sum of the targets (1 for a recipe's shares). Class c is short while
// count(c) < want(c) - 0.5 and can give a cell while count(c) - 1 >= want(c) - 0.5 (a class at its
// target to within half a cell neither takes nor gives).
// Order (single-threaded, deterministic): for each short class A in class-id order, repeatedly
// move to A the best cell that
//   - is of a class B (B != A) that can give a cell,
//   - has at least one 4-neighbour of class A,
//   - is a simple cell of B: its 4-connected B neighbours within its 8-neighbourhood form one
//     4-connected run around it, so taking it never splits a region of B,
//   - leaves its B region at least B's min_area cells (when B sets min_area >= 2),
//   - passes the caller's check, if any (after legalise: the rules still draw every cell near it
//     that they drew),
// until A is no longer short or no such cell exists. Best: the highest score
// 2 * (A among its 4 edge neighbours) + (A among its 4 diagonal neighbours), ties by
// hash(seed, x, y), then by reading order. Scores are kept current as cells move.
// Invariants: only classes with a target move (cells of other classes, such as overlay terrains,
// are never taken nor given); a class that is short only gains, one that gives never falls short;
// no region of a class with min_area A is left with fewer than A cells by this stage (and no new
// region is made: a moved cell joins a region of A); same input => same output.
// Cost: one scan of the grid for its border cells (cells that differ from a 4-neighbour: a bit
// per cell, border_cells.hpp), then one pass over those per growth (the candidates by score, of
// which the best are kept; only cells whose class gives beside a growing class are looked at) and
// O(log n) per cell taken or re-offered.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "core/classes/class_cleanup.hpp"
#include "core/classes/terrain_classes.hpp"

namespace tilegen {

struct ShareReport {
    std::uint64_t moved_cells = 0; // cells that took another class
};

// A further condition on a move: whether cell (x, y) of the grid may take class `to` (e.g. that the
// tile rules can still draw its neighbourhood, after legalise).
using ShareMoveCheck = std::function<bool(const ClassGrid&, int x, int y, ClassId to)>;

// The stage above. targets[c] is class id c's share in [0, 1] or NaN (no target; ids past the end
// have none); per_class[c] its clean-up settings (ids past the end: min_area off). When `allowed`
// is given, a cell moves only when it also says yes. The scans for candidates split rows over
// `threads`; the result does not depend on it.
ShareReport keep_class_shares(ClassGrid& classes, std::span<const double> targets,
                              std::span<const ClassCleanup> per_class, std::uint64_t seed,
                              const ShareMoveCheck& allowed = {}, int threads = 1);

} // namespace tilegen
