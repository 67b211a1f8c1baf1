// Descriptor: a neighbourhood pattern of 1x1, 3x3 or 5x5 cells, the left-hand side of a rule, or a
// 2x2 corner pattern (a corner layer's rule: the four cells around one corner of the map grid).
// Like Tiled's WangId, a small value: each cell is a mask of the classes it accepts; `?` accepts
// all. Invariants: size is 1, 2, 3 or 5; cells beyond size*size are kAnyClass; for odd sizes the
// centre cell is the one being tiled. A 2x2 pattern has radius 1 and its bottom-right cell at
// offset (0, 0): at(dx, dy) reads it as the 3x3 pattern whose cells (-1..0, -1..0) are the 2x2 and
// the others `?`, so corner (i, j) (between cells i-1, i and rows j-1, j) is matched as the cell
// (i, j) of the class grid (matchers, checks and explain need nothing else).
#pragma once

#include <array>
#include <cstdint>

namespace tilegen {

using ClassMask = std::uint32_t;
inline constexpr ClassMask kAnyClass = 0xFFFFFFFFu;

class Descriptor {
  public:
    static constexpr int kMaxSize = 5;

    Descriptor() { cells_.fill(kAnyClass); }
    explicit Descriptor(int size) : size_(size) { cells_.fill(kAnyClass); }

    int size() const { return size_; }
    int radius() const { return size_ / 2; }

    // Cell at offset (dx, dy) from the centre, |dx|, |dy| <= radius().
    ClassMask at(int dx, int dy) const { return cells_[index(dx + radius(), dy + radius())]; }
    void set(int dx, int dy, ClassMask m) { cells_[index(dx + radius(), dy + radius())] = m; }
    // Cell by row-major position in the size x size pattern.
    ClassMask cell(int column, int row) const { return cells_[index(column, row)]; }
    void set_cell(int column, int row, ClassMask m) { cells_[index(column, row)] = m; }

    // A 2x2 corner pattern (a corner layer's rule).
    bool corner() const { return size_ == 2; }
    // Number of cells that are not `?`: rules with more go first.
    int specificity() const;
    // The pattern turned 90 degrees clockwise.
    Descriptor rotated() const;
    // The pattern mirrored left-right.
    Descriptor mirrored() const;

    bool operator==(const Descriptor&) const = default;

  private:
    static std::size_t index(int column, int row) {
        return static_cast<std::size_t>(row) * kMaxSize + static_cast<std::size_t>(column);
    }
    int size_ = 3;
    std::array<ClassMask, kMaxSize * kMaxSize> cells_{};
};

} // namespace tilegen
