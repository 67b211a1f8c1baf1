// Grid<T>: the one value type every stage passes along.
// Row-major, width * height cells, (0,0) top-left. Invariant: cells.size() == width * height.
// Storage: blocks of 4 MiB and more are mapped on their own, aligned to 2 MiB and marked for
// transparent huge pages (Linux), so a 64 MiB grid costs a few dozen page faults instead of 16 384;
// freed ones are kept for later grids (the viewer's next generation reuses the last one's memory):
// a grid takes the smallest kept block that holds it and the rest stays kept, freed neighbours
// join, never more than the largest set of grids alive at once so far (grid.cpp).
// Grid::uninitialised skips the fill for stages that write every cell, so their threads first-touch
// their own rows in parallel.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace tilegen {

namespace grid_memory {
constexpr std::size_t kLargeBlock = std::size_t{4} << 20;
void* allocate_large(std::size_t bytes); // nullptr on failure
void deallocate_large(void* p, std::size_t bytes);
} // namespace grid_memory

template <class T> struct GridAllocator {
    using value_type = T;
    GridAllocator() = default;
    template <class U> GridAllocator(const GridAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        if (bytes >= grid_memory::kLargeBlock && alignof(T) <= 4096) {
            if (void* p = grid_memory::allocate_large(bytes)) return static_cast<T*>(p);
            throw std::bad_alloc();
        }
        return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
    }
    void deallocate(T* p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (bytes >= grid_memory::kLargeBlock && alignof(T) <= 4096)
            grid_memory::deallocate_large(p, bytes);
        else
            ::operator delete (p, std::align_val_t{alignof(T)});
    }
    // Cells made without a value are default-initialised (left as they are for numbers):
    // Grid::uninitialised.
    template <class U> void construct(U* p) noexcept(noexcept(::new (static_cast<void*>(p)) U)) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
    friend bool operator==(const GridAllocator&, const GridAllocator&) { return true; }
};

template <class T> using GridCells = std::vector<T, GridAllocator<T>>;

template <class T> class Grid {
  public:
    Grid() = default;
    Grid(int width, int height, const T& fill = T{})
        : width_(width), height_(height),
          cells_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), fill) {}
    // Cells left unset (numbers hold garbage): for stages that write every cell before reading any.
    static Grid uninitialised(int width, int height) {
        Grid g;
        g.width_ = width;
        g.height_ = height;
        g.cells_ = GridCells<T>(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
        return g;
    }

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

    GridCells<T>& cells() { return cells_; }
    const GridCells<T>& cells() const { return cells_; }

    bool operator==(const Grid&) const = default;

  private:
    std::size_t index(int x, int y) const {
        return static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) +
               static_cast<std::size_t>(x);
    }
    int width_ = 0;
    int height_ = 0;
    GridCells<T> cells_;
};

// A window of a larger (possibly unbounded) map: cells x..x+width-1, y..y+height-1.
struct Region {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
};

// The cells of `grid` inside `r` (which must lie inside the grid), as a grid of r's size.
template <typename T> Grid<T> crop(const Grid<T>& grid, Region r) {
    Grid<T> out = Grid<T>::uninitialised(r.width, r.height);
    for (int y = 0; y < r.height; ++y)
        std::copy_n(grid.row(r.y + y) + r.x, r.width, out.row(y));
    return out;
}

} // namespace tilegen
