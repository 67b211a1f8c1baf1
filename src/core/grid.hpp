// Grid<T>: the one value type every stage passes along.
// Row-major, width * height cells, (0,0) top-left. Invariant: cells.size() == width * height.
#pragma once

#include <cassert>
#include <cstddef>
#include <vector>

namespace tilegen {

template <class T> class Grid {
public:
    Grid() = default;
    Grid(int width, int height, const T& fill = T{})
        : width_(width), height_(height), cells_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), fill) {}

    int width() const { return width_; }
    int height() const { return height_; }
    std::size_t size() const { return cells_.size(); }
    bool empty() const { return cells_.empty(); }
    bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < width_ && y < height_; }

    T& operator()(int x, int y) {
        assert(contains(x, y));
        return cells_[index(x, y)];
    }
    const T& operator()(int x, int y) const {
        assert(contains(x, y));
        return cells_[index(x, y)];
    }
    T* row(int y) { return cells_.data() + index(0, y); }
    const T* row(int y) const { return cells_.data() + index(0, y); }

    std::vector<T>& cells() { return cells_; }
    const std::vector<T>& cells() const { return cells_; }

    bool operator==(const Grid&) const = default;

private:
    std::size_t index(int x, int y) const {
        return static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x);
    }
    int width_ = 0;
    int height_ = 0;
    std::vector<T> cells_;
};

// A window of a larger (possibly unbounded) map: cells x..x+width-1, y..y+height-1.
struct Region {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
};

} // namespace tilegen
