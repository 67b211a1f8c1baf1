#include "core/quality/fitness.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>

#include "core/byte_bits.hpp"
#include "core/grid.hpp"
#include "core/parallel.hpp"

namespace tilegen {

std::vector<std::uint32_t> start_cells_of(const Place& p, int width, int height) {
    std::vector<std::uint32_t> cells;
    for (int y = p.y; y < p.y + p.h; ++y)
        for (int x = p.x; x < p.x + p.w; ++x)
            cells.push_back(static_cast<std::uint32_t>(y * width + x));
    for (int y = p.y - 1; y <= p.y + p.h; ++y)
        for (int x = p.x - 1; x <= p.x + p.w; ++x) {
            const bool inside = x >= p.x && x < p.x + p.w && y >= p.y && y < p.y + p.h;
            const bool corner = (x < p.x || x >= p.x + p.w) && (y < p.y || y >= p.y + p.h);
            if (inside || corner || x < 0 || y < 0 || x >= width || y >= height) continue;
            cells.push_back(static_cast<std::uint32_t>(y * width + x));
        }
    return cells;
}

namespace {} // namespace

Fitness evaluate_fitness(const ClassGrid& classes, const std::vector<bool>& walkable,
                         const std::vector<std::uint32_t>& start_cells,
                         const std::vector<Place>& places, int start_rule, int threads) {
    Fitness f;
    const int w = classes.width(), h = classes.height();
    const std::size_t n = classes.size();
    if (n == 0) return f;
    std::array<bool, 256> walk_class{};
    for (std::size_t c = 0; c < walkable.size() && c < walk_class.size(); ++c)
        walk_class[c] = walkable[c];
    const ClassId* cells = classes.cells().data();
    auto walk = [&](std::size_t i) { return walk_class[cells[i]]; };
    // The walkable cells as rows of bits, framed by bits of 0 (the map's edge): cell (x, y) is
    // bit b = (y + 1) * stride + x + 1, so its 4-neighbours are b - 1, b + 1, b - stride and
    // b + stride without a test for the edge. Made by bands of rows on the threads.
    const std::size_t words = (static_cast<std::size_t>(w) + 2 + 63) / 64, stride = words * 64;
    GridCells<std::uint64_t> open((static_cast<std::size_t>(h) + 2) * words); // uninitialised
    std::fill_n(open.begin(), words, 0);
    std::fill_n(open.begin() + static_cast<std::ptrdiff_t>((h + 1) * words), words, 0);
    const auto row_bits = [&](int y) {
        return open.data() + static_cast<std::size_t>(y + 1) * words;
    };
    parallel_for(h, threads, [&](int y0, int y1) {
        std::vector<std::uint8_t> bytes(stride, 0); // 0 past the row and at byte 0: the frame
        for (int y = y0; y < y1; ++y) {
            const ClassId* row = classes.row(y);
            for (int x = 0; x < w; ++x)
                bytes[static_cast<std::size_t>(x) + 1] = walk_class[row[x]];
            pack_nonzero_bytes(bytes.data(), words, row_bits(y));
        }
    });
    // The counts (whole numbers: the sums do not depend on the threads). Along a row of bits,
    // t = b XOR (b shifted by one) marks where bit p differs from bit p + 1; the frame's bits
    // add the two pairs (0, 1) and (w, w + 1), which are no cell pairs. Between rows y and y + 1,
    // b XOR the next row's b (the frame's bits are 0 in both).
    std::atomic<std::uint64_t> walkable_cells{0}, edges{0};
    parallel_for(h, threads, [&](int y0, int y1) {
        std::uint64_t band_walkable = 0, band_edges = 0;
        for (int y = y0; y < y1; ++y) {
            const std::uint64_t* b = row_bits(y);
            const std::uint64_t* below = y + 1 < h ? row_bits(y + 1) : nullptr;
            for (std::size_t i = 0; i < words; ++i) {
                band_walkable += static_cast<std::uint64_t>(__builtin_popcountll(b[i]));
                const std::uint64_t next = (b[i] >> 1) | (i + 1 < words ? b[i + 1] << 63 : 0);
                band_edges += static_cast<std::uint64_t>(__builtin_popcountll(b[i] ^ next));
                if (below)
                    band_edges += static_cast<std::uint64_t>(__builtin_popcountll(b[i] ^ below[i]));
            }
            band_edges -= (b[0] >> 1) & 1u; // the pair (0, 1): cell 0 against the frame
            band_edges -= (b[static_cast<std::size_t>(w) / 64] >> (w % 64)) & 1u; // (w, w + 1)
        }
        walkable_cells += band_walkable;
        edges += band_edges;
    });
    f.accessibility = static_cast<double>(walkable_cells.load()) / static_cast<double>(n);
    f.obstacle_edges = static_cast<double>(edges.load()) / static_cast<double>(n);

    // Fairness: a breadth-first search from the start cells, one distance level at a time, that
    // stops once every place has a start cell reached (the first level that reaches one is its
    // distance). `open` is the walkable cells not reached yet: a cell is reached when it is
    // walkable and its bit is 0. Memory: the bits and the frontiers.
    struct Goal {
        std::vector<std::uint32_t> cells; // the place's start cells
        std::uint32_t dist = std::numeric_limits<std::uint32_t>::max();
    };
    std::vector<Goal> goals;
    for (const Place& p : places)
        if (p.rule != start_rule) goals.push_back({start_cells_of(p, w, h)});
    const auto bit_of = [&](std::uint32_t c) {
        const auto uw = static_cast<std::uint32_t>(w);
        return (static_cast<std::size_t>(c / uw) + 1) * stride + c % uw + 1;
    };
    const auto reached = [&](std::uint32_t c) {
        if (!walk(c)) return false;
        const std::size_t b = bit_of(c);
        return ((open[b >> 6] >> (b & 63)) & 1u) == 0;
    };
    // Clears bit b; whether it was set.
    const auto take = [&](std::size_t b) {
        std::uint64_t& word = open[b >> 6];
        const std::uint64_t hit = word & (std::uint64_t{1} << (b & 63));
        word ^= hit;
        return hit != 0;
    };
    // Frontiers of bit numbers (uninitialised storage: a level writes before it reads).
    GridCells<std::size_t> frontier, next;
    std::size_t frontier_size = 0;
    for (std::uint32_t c : start_cells)
        if (c < n && walk(c) && take(bit_of(c))) {
            frontier.push_back(bit_of(c));
            ++frontier_size;
        }
    if (frontier_size == 0) return f;
    std::size_t open_goals = goals.size(); // places not reached yet
    for (std::uint32_t level = 0; frontier_size > 0 && open_goals > 0; ++level) {
        // The places this level reaches first (every cell of the level is marked already).
        for (Goal& g : goals)
            if (g.dist == std::numeric_limits<std::uint32_t>::max() &&
                std::any_of(g.cells.begin(), g.cells.end(), reached)) {
                g.dist = level;
                --open_goals;
            }
        if (open_goals == 0) break;
        // Every neighbour is written, and kept (the count advances) when its bit was set.
        if (next.size() < 4 * frontier_size) next.resize(4 * frontier_size);
        std::size_t count = 0;
        for (std::size_t k = 0; k < frontier_size; ++k) {
            const std::size_t b = frontier[k];
            const std::size_t nbs[4] = {b - 1, b + 1, b - stride, b + stride};
            for (const std::size_t nb : nbs) {
                next[count] = nb;
                count += take(nb) ? 1 : 0;
            }
        }
        std::swap(frontier, next);
        frontier_size = count;
    }
    double lo = std::numeric_limits<double>::max(), hi = 0;
    for (const Goal& g : goals) {
        if (g.dist == std::numeric_limits<std::uint32_t>::max()) {
            f.fairness = 0;
            return f;
        }
        lo = std::min(lo, static_cast<double>(g.dist) + 1);
        hi = std::max(hi, static_cast<double>(g.dist) + 1);
    }
    f.fairness = goals.size() >= 2 ? lo / hi : 1;
    return f;
}

} // namespace tilegen
