#include "core/classes/class_cleanup.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>
#include <queue>
#include <vector>

namespace tilegen {

namespace {

constexpr std::size_t kIds = 256; // every value a ClassId can hold

// The class most common among classes[0..count) (count >= 1), ties to the lowest id.
ClassId most_common(const ClassId* classes, int count) {
    ClassId best = 0;
    int best_count = 0;
    for (int i = 0; i < count; ++i) {
        int n = 0;
        for (int j = 0; j < count; ++j)
            n += classes[j] == classes[i] ? 1 : 0;
        if (n > best_count || (n == best_count && classes[i] < best)) {
            best = classes[i];
            best_count = n;
        }
    }
    return best;
}

// Union-find over the runs of a class grid (a run: cells of one class side by side in a row),
// labelled in reading order. The root of a set is its smallest label, so the run holding the set's
// first cell in reading order; sizes (in cells, saturating) are kept at the roots.
struct RunSets {
    std::vector<std::uint32_t> parent;
    std::vector<std::uint32_t> size;
    std::vector<std::uint32_t> start; // the run's first cell (index in the grid)

    std::uint32_t find(std::uint32_t a) {
        while (parent[a] != a) {
            parent[a] = parent[parent[a]];
            a = parent[a];
        }
        return a;
    }
    void unite(std::uint32_t a, std::uint32_t b) {
        a = find(a);
        b = find(b);
        if (a == b) return;
        if (b < a) std::swap(a, b);
        parent[b] = a;
        const std::uint64_t sum = std::uint64_t{size[a]} + size[b];
        size[a] = static_cast<std::uint32_t>(std::min<std::uint64_t>(sum, 0xFFFFFFFFu));
    }
};

// Labels every cell with its run; runs of one class that touch across rows share a set.
RunSets label_runs(const ClassGrid& g, Grid<std::uint32_t>& labels) {
    struct Run {
        int x0, x1; // cells x0..x1-1
        std::uint32_t label;
        ClassId cls;
    };
    const int w = g.width();
    RunSets sets;
    std::vector<Run> prev, cur;
    for (int y = 0; y < g.height(); ++y) {
        const ClassId* row = g.row(y);
        std::uint32_t* lab = labels.row(y);
        cur.clear();
        for (int x = 0; x < w;) {
            const ClassId c = row[x];
            int x1 = x + 1;
            while (x1 < w && row[x1] == c)
                ++x1;
            const auto label = static_cast<std::uint32_t>(sets.parent.size());
            sets.parent.push_back(label);
            sets.size.push_back(static_cast<std::uint32_t>(x1 - x));
            sets.start.push_back(static_cast<std::uint32_t>(static_cast<std::size_t>(y) * w + x));
            std::fill(lab + x, lab + x1, label);
            cur.push_back({x, x1, label, c});
            x = x1;
        }
        // Both rows partition 0..w-1: walk them together; runs met at once overlap.
        for (std::size_t i = 0, j = 0; i < prev.size() && j < cur.size();) {
            if (prev[i].cls == cur[j].cls) sets.unite(prev[i].label, cur[j].label);
            if (prev[i].x1 < cur[j].x1)
                ++i;
            else if (prev[i].x1 > cur[j].x1)
                ++j;
            else {
                ++i;
                ++j;
            }
        }
        std::swap(prev, cur);
    }
    return sets;
}

} // namespace

bool cleanup_needed(std::span<const ClassCleanup> per_class) {
    for (const ClassCleanup& c : per_class)
        if (c.min_area >= 2 || c.min_width >= 2) return true;
    return false;
}

void open_thin_parts(ClassGrid& g, std::span<const ClassCleanup> per_class, CleanupReport& report) {
    std::array<std::uint8_t, kIds> side{}; // the square's side per class id, 0 = no opening
    bool any = false;
    for (std::size_t i = 0; i < std::min(per_class.size(), kIds); ++i)
        if (per_class[i].min_width >= 2) {
            side[i] = static_cast<std::uint8_t>(std::min(per_class[i].min_width, kMaxMinWidth));
            any = true;
        }
    if (!any || g.empty()) return;
    const int w = g.width(), h = g.height();
    constexpr std::uint8_t kCorner = 1, kRemoved = 1, kQueued = 2;
    Grid<std::uint8_t> mark = Grid<std::uint8_t>::uninitialised(w, h);

    // Pass 1, top to bottom: mark the bottom-right corner of every N x N square of one class.
    // run: same-class cells ending at x in the row (capped); up[x]: rows ending at y whose run at x
    // reaches N (0 when it does not).
    std::vector<std::uint8_t> up(static_cast<std::size_t>(w), 0);
    for (int y = 0; y < h; ++y) {
        const ClassId* row = g.row(y);
        const ClassId* above = y > 0 ? g.row(y - 1) : nullptr;
        std::uint8_t* m = mark.row(y);
        std::uint8_t run = 0;
        for (int x = 0; x < w; ++x) {
            const ClassId c = row[x];
            const std::uint8_t n = side[c];
            run = x > 0 && row[x - 1] == c ? static_cast<std::uint8_t>(std::min(run + 1, 64)) : 1;
            std::uint8_t& u = up[static_cast<std::size_t>(x)];
            if (n != 0 && run >= n)
                u = above && above[x] == c && u != 0
                        ? static_cast<std::uint8_t>(std::min(u + 1, 64))
                        : 1;
            else
                u = 0;
            m[x] = n != 0 && u >= n ? kCorner : 0;
        }
    }

    // Pass 2, bottom to top: spread each corner's square up (down[x]: rows left to cover in column
    // x) and then left (left: columns left to cover); cells of an opened class no square covers are
    // removed.
    std::vector<std::size_t> frontier;
    std::vector<std::uint8_t> down(static_cast<std::size_t>(w), 0);
    for (int y = h - 1; y >= 0; --y) {
        const ClassId* row = g.row(y);
        const ClassId* below = y + 1 < h ? g.row(y + 1) : nullptr;
        std::uint8_t* m = mark.row(y);
        for (int x = 0; x < w; ++x) {
            std::uint8_t& d = down[static_cast<std::size_t>(x)];
            const ClassId c = row[x];
            d = m[x] == kCorner                    ? side[c]
                : below && below[x] == c && d != 0 ? static_cast<std::uint8_t>(d - 1)
                                                   : 0;
        }
        std::uint8_t left = 0;
        for (int x = w - 1; x >= 0; --x) {
            const ClassId c = row[x];
            left = down[static_cast<std::size_t>(x)] != 0      ? side[c]
                   : x + 1 < w && row[x + 1] == c && left != 0 ? static_cast<std::uint8_t>(left - 1)
                                                               : 0;
            const bool removed = side[c] != 0 && left == 0;
            m[x] = removed ? static_cast<std::uint8_t>(kRemoved | kQueued) : 0;
            if (removed) frontier.push_back(static_cast<std::size_t>(y) * w + x);
        }
    }

    // Refill in synchronous rounds; the next round looks only at removed cells beside a cell just
    // decided (the only ones whose eligible neighbours changed).
    auto& cells = g.cells();
    std::vector<std::pair<std::size_t, ClassId>> decided;
    while (!frontier.empty()) {
        decided.clear();
        for (const std::size_t i : frontier) {
            mark.cells()[i] = kRemoved;
            const int x = static_cast<int>(i % static_cast<std::size_t>(w));
            const int y = static_cast<int>(i / static_cast<std::size_t>(w));
            const ClassId own = cells[i];
            ClassId found[8];
            int count = 0;
            for (int ny = std::max(y - 1, 0); ny <= std::min(y + 1, h - 1); ++ny)
                for (int nx = std::max(x - 1, 0); nx <= std::min(x + 1, w - 1); ++nx) {
                    const std::size_t j = static_cast<std::size_t>(ny) * w + nx;
                    if (j == i || (mark.cells()[j] & kRemoved) || cells[j] == own) continue;
                    found[count++] = cells[j];
                }
            if (count > 0) decided.emplace_back(i, most_common(found, count));
        }
        for (const auto& [i, c] : decided) {
            cells[i] = c;
            mark.cells()[i] = 0;
        }
        report.opened_cells += decided.size();
        frontier.clear();
        for (const auto& [i, c] : decided) {
            const int x = static_cast<int>(i % static_cast<std::size_t>(w));
            const int y = static_cast<int>(i / static_cast<std::size_t>(w));
            for (int ny = std::max(y - 1, 0); ny <= std::min(y + 1, h - 1); ++ny)
                for (int nx = std::max(x - 1, 0); nx <= std::min(x + 1, w - 1); ++nx) {
                    const std::size_t j = static_cast<std::size_t>(ny) * w + nx;
                    if (mark.cells()[j] == kRemoved) {
                        mark.cells()[j] = kRemoved | kQueued;
                        frontier.push_back(j);
                    }
                }
        }
    }
}

void merge_small_regions(ClassGrid& g, std::span<const ClassCleanup> per_class,
                         CleanupReport& report) {
    std::array<std::uint32_t, kIds> need{}; // min_area per class id, 0 = off
    bool any = false;
    for (std::size_t i = 0; i < std::min(per_class.size(), kIds); ++i)
        if (per_class[i].min_area >= 2) {
            need[i] = static_cast<std::uint32_t>(std::min(per_class[i].min_area, kMaxMinArea));
            any = true;
        }
    if (!any || g.empty()) return;
    const int w = g.width(), h = g.height();
    const std::uint64_t total = g.size();
    auto& cells = g.cells();

    Grid<std::uint32_t> labels = Grid<std::uint32_t>::uninitialised(w, h);
    RunSets sets = label_runs(g, labels);
    auto too_small = [&](std::uint32_t root) {
        const std::uint32_t n = need[cells[sets.start[root]]];
        return sets.size[root] < n && sets.size[root] != total;
    };
    // Too-small regions by their root, smallest (= first in reading order) on top. Entries go
    // stale when their region merges; they are skipped when met.
    std::vector<std::uint32_t> initial;
    for (std::uint32_t l = 0; l < sets.parent.size(); ++l)
        if (sets.parent[l] == l && too_small(l)) initial.push_back(l);
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> queue(
        std::greater<>{}, std::move(initial));
    if (queue.empty()) return;

    std::vector<std::uint8_t> seen(cells.size(), 0);
    std::vector<std::size_t> region, border;
    std::array<std::uint32_t, kIds> counts{};
    while (!queue.empty()) {
        const std::uint32_t root = queue.top();
        queue.pop();
        if (sets.parent[root] != root || !too_small(root)) continue;
        const std::size_t first = sets.start[root];
        const ClassId c = cells[first];
        // The region (flood over its class) and the distinct cells bordering it.
        region.assign(1, first);
        border.clear();
        seen[first] = 1;
        for (std::size_t k = 0; k < region.size(); ++k) {
            const std::size_t i = region[k];
            const int x = static_cast<int>(i % static_cast<std::size_t>(w));
            const int y = static_cast<int>(i / static_cast<std::size_t>(w));
            auto visit = [&](std::size_t j) {
                if (seen[j]) return;
                seen[j] = 1;
                (cells[j] == c ? region : border).push_back(j);
            };
            if (y > 0) visit(i - static_cast<std::size_t>(w));
            if (x > 0) visit(i - 1);
            if (x + 1 < w) visit(i + 1);
            if (y + 1 < h) visit(i + static_cast<std::size_t>(w));
        }
        if (border.empty()) { // the whole map (too_small excludes it): stays
            for (const std::size_t i : region)
                seen[i] = 0;
            continue;
        }
        ClassId best = 0;
        std::uint32_t best_count = 0;
        for (const std::size_t j : border) {
            const ClassId b = cells[j];
            const std::uint32_t n = ++counts[b];
            if (n > best_count || (n == best_count && b < best)) {
                best = b;
                best_count = n;
            }
        }
        for (const std::size_t j : border) {
            counts[cells[j]] = 0;
            seen[j] = 0;
        }
        for (const std::size_t i : region) {
            cells[i] = best;
            seen[i] = 0;
        }
        for (const std::size_t j : border)
            if (cells[j] == best) sets.unite(root, labels.cells()[j]);
        ++report.merged_regions;
        report.merged_cells += region.size();
        const std::uint32_t merged = sets.find(root);
        if (too_small(merged)) queue.push(merged);
    }
}

CleanupReport clean_up_classes(ClassGrid& classes, std::span<const ClassCleanup> per_class) {
    CleanupReport report;
    if (!cleanup_needed(per_class)) return report;
    open_thin_parts(classes, per_class, report);
    merge_small_regions(classes, per_class, report);
    return report;
}

} // namespace tilegen
