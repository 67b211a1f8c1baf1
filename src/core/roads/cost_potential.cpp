#include "core/roads/cost_potential.hpp"

#include <algorithm>
#include <bit>

namespace tilegen {

std::uint32_t LeastMoveCosts::square_move_cost(const CostGrid& grid, int i, int j) {
    std::uint32_t least = kNoMove;
    for (int y = j * kSpacing; y <= std::min(grid.height - 1, (j + 1) * kSpacing); ++y)
        for (int x = i * kSpacing; x <= std::min(grid.width - 1, (i + 1) * kSpacing); ++x) {
            const SearchCell& c = grid.cells[static_cast<std::size_t>(y) * grid.width + x];
            if (c.cost != kBlocked)
                least = std::min<std::uint32_t>(least, c.cost);
            else if (c.span & kSpanWater)
                least = std::min(least, grid.bridge_cost);
        }
    return least;
}

namespace {

// Every square's square_move_cost, as LeastMoveCosts' second constructor takes them.
std::vector<std::uint16_t> square_move_costs(const CostGrid& grid) {
    const int sx = LeastMoveCosts::squares_along(grid.width);
    const int sy = LeastMoveCosts::squares_along(grid.height);
    std::vector<std::uint16_t> out(static_cast<std::size_t>(std::max(sx, 0)) * std::max(sy, 0));
    for (int j = 0; j < sy; ++j)
        for (int i = 0; i < sx; ++i)
            out[static_cast<std::size_t>(j) * sx + i] = static_cast<std::uint16_t>(
                std::min<std::uint32_t>(LeastMoveCosts::square_move_cost(grid, i, j), kBlocked));
    return out;
}

} // namespace

LeastMoveCosts::LeastMoveCosts(const CostGrid& grid)
    : LeastMoveCosts(grid.width, grid.height, square_move_costs(grid)) {}

LeastMoveCosts::LeastMoveCosts(int width, int height, std::span<const std::uint16_t> square_least)
    : width_(width), height_(height) {
    if (width_ <= 0 || height_ <= 0) return;
    squares_x_ = squares_along(width_);
    squares_y_ = squares_along(height_);
    least_.resize(static_cast<std::size_t>(squares_x_) * squares_y_);
    for (std::size_t k = 0; k < least_.size(); ++k) {
        const std::uint32_t v = square_least[k];
        least_[k] = v == kBlocked ? kNoMove : std::max<std::uint32_t>(v, 1) - 1;
    }
    make_edges();
}

void LeastMoveCosts::make_edges() {
    const int cx = cols(), cy = rows();
    edges_.assign(static_cast<std::size_t>(cx) * cy, Edges{kNoMove, kNoMove});
    const auto square = [&](int i, int j) {
        if (i < 0 || j < 0 || i >= squares_x_ || j >= squares_y_) return kNoMove;
        return at(i, j);
    };
    for (int j = 0; j < cy; ++j)
        for (int i = 0; i < cx; ++i) {
            const std::size_t p = static_cast<std::size_t>(j) * cx + i;
            if (i + 1 < cx) edges_[p].right = std::min(square(i, j - 1), square(i, j));
            if (j + 1 < cy) edges_[p].down = std::min(square(i - 1, j), square(i, j));
        }
    dearest_ = 0;
    for (const std::uint32_t v : least_)
        if (v != kNoMove) dearest_ = std::max(dearest_, v);
}

void LeastMoveCosts::lower(int x, int y, std::uint32_t cost) {
    const std::uint32_t v = std::max<std::uint32_t>(cost, 1) - 1;
    const auto cx = static_cast<std::size_t>(cols());
    const int i1 = std::min(x >> kShift, squares_x_ - 1),
              j1 = std::min(y >> kShift, squares_y_ - 1);
    const int i0 = (x & (kSpacing - 1)) == 0 && x > 0 ? i1 - 1 : i1;
    const int j0 = (y & (kSpacing - 1)) == 0 && y > 0 ? j1 - 1 : j1;
    for (int j = j0; j <= j1; ++j)
        for (int i = i0; i <= i1; ++i) {
            std::uint32_t& least = least_[static_cast<std::size_t>(j) * squares_x_ + i];
            if (v >= least) continue;
            least = v;
            const std::size_t p = static_cast<std::size_t>(j) * cx + i; // top left corner
            edges_[p].right = std::min(edges_[p].right, v);             // top edge
            edges_[p + cx].right = std::min(edges_[p + cx].right, v);   // bottom edge
            edges_[p].down = std::min(edges_[p].down, v);               // left edge
            edges_[p + 1].down = std::min(edges_[p + 1].down, v);       // right edge
        }
}

CostPotential::CostPotential(const LeastMoveCosts& least, std::span<const std::uint32_t> cells,
                             std::span<const std::uint32_t> starts)
    : cols_(least.cols()), rows_(least.rows()) {
    at_.assign(static_cast<std::size_t>(cols_) * rows_, kFar);
    if (cells.empty() || least.width() <= 0) return;
    // Dijkstra over the points, keyed by the sum of least move costs per cell (the values are
    // kSpacing times it), with Dial's buckets: a ring of lists, one per key modulo the ring's
    // size, which is larger than any edge's cost, so the ring holds keys of one turn only. A
    // point whose key falls is listed again; its older entries are skipped (stale) when reached.
    // (At least 64 lists: next_key reads the lists' bits a word at a time.)
    const std::size_t ring =
        std::max<std::size_t>(64, std::bit_ceil(std::size_t{least.dearest_edge()} + 1));
    std::vector<std::vector<std::uint32_t>> lists(ring);
    std::vector<std::uint64_t> occupied((ring + 63) / 64, 0); // per list: a bit when not empty
    // at_ holds the sums (kFar: none yet); a sum that would reach kFar stays just below it (a
    // lower bound is still one, and the slopes only fall).
    std::uint32_t* sum = at_.data();
    std::size_t listed = 0;
    const auto offer = [&](std::size_t p, std::uint64_t d) {
        if (d >= sum[p]) return;
        d = std::min<std::uint64_t>(d, kFar - 1);
        sum[p] = static_cast<std::uint32_t>(d);
        const std::size_t k = d & (ring - 1);
        lists[k].push_back(static_cast<std::uint32_t>(p));
        occupied[k >> 6] |= std::uint64_t{1} << (k & 63);
        ++listed;
    };
    const auto w = static_cast<std::uint32_t>(least.width());
    const auto corner = [&](std::uint32_t c) { // the top left corner of the cell's square
        return static_cast<std::size_t>((c / w) >> kShift) * cols_ + ((c % w) >> kShift);
    };
    // The starts' squares' corners: once one is settled, at key d0, the lattice is settled up to
    // kCapFactor * d0 + kCapMargin only.
    std::vector<std::uint8_t> start_corner(starts.empty() ? 0 : at_.size(), 0);
    for (const std::uint32_t c : starts) {
        const std::size_t p = corner(c);
        start_corner[p] = start_corner[p + 1] = 1;
        start_corner[p + cols_] = start_corner[p + cols_ + 1] = 1;
    }
    std::uint64_t cap = ~std::uint64_t{0};
    const std::uint64_t margin = std::uint64_t{kCapMargin} * least.dearest_edge();
    for (const std::uint32_t c : cells) {
        const std::size_t p = corner(c);
        offer(p, 0);
        offer(p + 1, 0);
        offer(p + cols_, 0);
        offer(p + cols_ + 1, 0);
    }
    const auto edge = [&](std::size_t p, std::uint64_t d, std::uint32_t per_cell) {
        if (per_cell != LeastMoveCosts::kNoMove) offer(p, d + per_cell);
    };
    const auto cols = static_cast<std::size_t>(cols_);
    // The next key with a list: the first bit set from d's on, around the ring.
    const auto next_key = [&](std::uint64_t d) {
        const std::size_t words = occupied.size();
        std::size_t k = d & (ring - 1);
        if (const std::uint64_t bits = occupied[k >> 6] >> (k & 63); bits != 0)
            return d + static_cast<std::uint64_t>(std::countr_zero(bits));
        d += 64 - (k & 63);
        for (std::size_t word = (k >> 6) + 1;; ++word, d += 64)
            if (const std::uint64_t b = occupied[word % words]; b != 0)
                return d + static_cast<std::uint64_t>(std::countr_zero(b));
    };
    std::uint64_t d = 0;
    for (; listed > 0; ++d) {
        d = next_key(d);
        if (d > cap) break;
        const std::size_t k = d & (ring - 1);
        std::vector<std::uint32_t>& list = lists[k];
        // By index: an edge of cost 0 lists a point here again while the list is read.
        for (std::size_t e = 0; e < list.size(); ++e) {
            const std::size_t p = list[e];
            if (sum[p] != d) continue; // stale: listed again at a lower key
            if (!start_corner.empty() && start_corner[p] && cap == ~std::uint64_t{0})
                cap = kCapFactor * d + margin;
            // right() is kNoMove from the last column (so from the point before a row's first)
            // and down() from the last row: only the first point and row need a test.
            const LeastMoveCosts::Edges& out = least.edges(p);
            edge(p + 1, d, out.right);
            if (p > 0) edge(p - 1, d, least.edges(p - 1).right);
            edge(p + cols, d, out.down);
            if (p >= cols) edge(p - cols, d, least.edges(p - cols).down);
        }
        listed -= list.size();
        list.clear();
        occupied[k >> 6] &= ~(std::uint64_t{1} << (k & 63));
    }
    // Stopped at the cap: every point not settled has a least sum of at least d, and takes d
    // (the least of the two is still a consistent lower bound).
    if (listed > 0)
        for (std::uint32_t& v : at_)
            v = static_cast<std::uint32_t>(std::min<std::uint64_t>(v, d));
}

} // namespace tilegen
