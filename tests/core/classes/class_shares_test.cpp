#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/classes/class_grid_rows.hpp"
#include "core/classes/class_shares.hpp"

using namespace tilegen;
using tilegen::test::grid_of;

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

std::vector<int> counts_of(const ClassGrid& g, int classes) {
    std::vector<int> n(static_cast<std::size_t>(classes), 0);
    for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x)
            ++n[g(x, y)];
    return n;
}

// 4-connected regions, the plain way: per region (in order of first cell) its class and size.
std::vector<std::pair<ClassId, int>> regions_of(const ClassGrid& g) {
    Grid<int> label(g.width(), g.height(), -1);
    std::vector<std::pair<ClassId, int>> regions;
    for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x) {
            if (label(x, y) >= 0) continue;
            const int id = static_cast<int>(regions.size());
            regions.push_back({g(x, y), 0});
            std::vector<std::pair<int, int>> todo{{x, y}};
            label(x, y) = id;
            while (!todo.empty()) {
                auto [cx, cy] = todo.back();
                todo.pop_back();
                ++regions.back().second;
                const int dx[] = {1, -1, 0, 0}, dy[] = {0, 0, 1, -1};
                for (int k = 0; k < 4; ++k) {
                    const int nx = cx + dx[k], ny = cy + dy[k];
                    if (g.contains(nx, ny) && label(nx, ny) < 0 && g(nx, ny) == g(cx, cy)) {
                        label(nx, ny) = id;
                        todo.push_back({nx, ny});
                    }
                }
            }
        }
    return regions;
}

int regions_of_class(const ClassGrid& g, ClassId c) {
    int n = 0;
    for (const auto& [cls, size] : regions_of(g))
        n += cls == c;
    return n;
}

} // namespace

TEST_CASE("keep_class_shares: a straight border moves by the missing cells, concave cells first") {
    // a holds 3 columns of 4 (12 of 32 cells) but wants half: it takes a whole column of b, and
    // a second column too (16 cells).
    ClassGrid g = grid_of({"aaabbbbb", "aaabbbbb", "aaabbbbb", "aaabbbbb"}, "ab");
    const std::vector<double> targets = {0.5, 0.5};
    const ShareReport report = keep_class_shares(g, targets, {}, 1);
    CHECK(report.moved_cells == 4);
    CHECK(counts_of(g, 2) == std::vector<int>{16, 16});
    // The border stays straight: the first cell moved made its column's others concave.
    for (int y = 0; y < 4; ++y)
        CHECK(g(3, y) == 0);
}

TEST_CASE("keep_class_shares: a notch is filled before a straight border moves") {
    ClassGrid g = grid_of({"aaaaaa", "aaaaaa", "aabaaa", "bbbbbb", "bbbbbb", "bbbbbb"}, "ab");
    // a: 17 cells, wants 18 of 36.
    const std::vector<double> targets = {0.5, 0.5};
    (void)keep_class_shares(g, targets, {}, 7);
    CHECK(g(2, 2) == 0); // the notch (three a edge neighbours) went first
    CHECK(counts_of(g, 2) == std::vector<int>{18, 18});
}

TEST_CASE("keep_class_shares: classes at their share, and classes without one, never move") {
    ClassGrid g = grid_of({"aaaa", "aaab", "accb", "cccb"}, "abc");
    const ClassGrid before = g;
    // a holds 8 of the 13 cells of a and c, c 5; b (3 cells) has no target.
    CHECK(keep_class_shares(g, std::vector<double>{8.0 / 13, kNone, 5.0 / 13}, {}, 3).moved_cells ==
          0);
    CHECK(g == before);
    // a is short (wants 3.2 of the 4 cells of a and c per row) but touches only b, which has
    // no target: nothing moves.
    ClassGrid h = grid_of({"aabcc", "aabcc"}, "abc");
    const ClassGrid h_before = h;
    CHECK(keep_class_shares(h, std::vector<double>{0.8, kNone, 0.2}, {}, 3).moved_cells == 0);
    CHECK(h == h_before);
}

TEST_CASE("keep_class_shares: never splits a region, never leaves one under min_area") {
    // b is a one-cell-wide bridge between two blobs: taking a bridge cell would split it.
    ClassGrid g = grid_of({"bbaaaabb", "bbbbbbbb", "bbaaaabb", "aaaaaaaa"}, "ab");
    const std::vector<double> targets = {0.9, 0.1};
    (void)keep_class_shares(g, targets, {}, 5);
    CHECK(regions_of_class(g, 1) <= 1);
    // min_area: b's region keeps at least 6 cells.
    ClassGrid h = grid_of({"aaaaaaaa", "aabbbbaa", "aabbbbaa", "aaaaaaaa"}, "ab");
    const std::vector<ClassCleanup> cleanup = {{}, {6, 0}};
    (void)keep_class_shares(h, std::vector<double>{1.0, 0.0}, cleanup, 5);
    CHECK(counts_of(h, 2)[1] == 6);
    CHECK(regions_of_class(h, 1) == 1);
}

TEST_CASE("keep_class_shares: the caller's check vetoes moves") {
    ClassGrid g = grid_of({"aaabbbbb", "aaabbbbb"}, "ab");
    const ShareMoveCheck never_row_0 = [](const ClassGrid&, int, int y, ClassId) { return y != 0; };
    (void)keep_class_shares(g, std::vector<double>{0.5, 0.5}, {}, 1, never_row_0);
    for (int x = 3; x < 8; ++x)
        CHECK(g(x, 0) == 1);
    CHECK(counts_of(g, 2)[0] > 6); // row 1 still grew
}

TEST_CASE("keep_class_shares: a relay through a class at its share reaches a short class") {
    // c is short but touches only b (at its share); a has cells to spare and touches only b.
    ClassGrid g = grid_of({"aaaabbcc", "aaaabbcc", "aaaabbcc", "aaaabbcc"}, "abc");
    // a 16 wants 12, b 8 wants 8, c 8 wants 12.
    const std::vector<double> targets = {12.0 / 32, 8.0 / 32, 12.0 / 32};
    (void)keep_class_shares(g, targets, {}, 9);
    CHECK(counts_of(g, 3) == std::vector<int>{12, 8, 12});
}

TEST_CASE("keep_class_shares on random grids: the invariants of class_shares.hpp") {
    std::mt19937 rng(2024);
    for (int trial = 0; trial < 300; ++trial) {
        CAPTURE(trial);
        const int w = 4 + static_cast<int>(rng() % 20), h = 4 + static_cast<int>(rng() % 20);
        const int classes = 2 + static_cast<int>(rng() % 4);
        // Blobby grids: random cells, then a few majority smoothings.
        ClassGrid g(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                g(x, y) = static_cast<ClassId>(rng() % static_cast<unsigned>(classes));
        for (int pass = 0; pass < 2; ++pass) {
            ClassGrid next = g;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    std::map<ClassId, int> votes;
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx)
                            if (g.contains(x + dx, y + dy)) ++votes[g(x + dx, y + dy)];
                    int best = -1;
                    for (const auto& [c, n] : votes)
                        if (n > best) best = n, next(x, y) = c;
                }
            g = next;
        }
        std::vector<double> targets(static_cast<std::size_t>(classes));
        double sum = 0;
        for (double& t : targets)
            sum += (t = 0.05 + static_cast<double>(rng() % 100) / 100.0);
        for (double& t : targets)
            t /= sum;
        const bool untargeted = rng() % 3 == 0; // the last class has no target
        if (untargeted) targets.back() = kNone;
        std::vector<ClassCleanup> cleanup(static_cast<std::size_t>(classes));
        for (ClassCleanup& c : cleanup)
            c.min_area = static_cast<int>(rng() % 4);

        const ClassGrid before = g;
        const auto regions_before = regions_of(before);
        const auto count_before = counts_of(before, classes);
        ClassGrid one = g;
        const ShareReport report = keep_class_shares(one, targets, cleanup, trial);
        ClassGrid again = g;
        (void)keep_class_shares(again, targets, cleanup, trial);
        CHECK(one == again);

        const auto count_after = counts_of(one, classes);
        std::uint64_t changed = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (one(x, y) != before(x, y)) {
                    ++changed;
                    // Only classes with a target move.
                    CHECK(!std::isnan(targets[before(x, y)]));
                    CHECK(!std::isnan(targets[one(x, y)]));
                }
        CHECK(report.moved_cells >= changed);
        // No class ends further from its share than it started, and classes with a target end
        // no further from it than they were or within half a cell.
        double m = 0;
        for (int c = 0; c < classes; ++c)
            if (!std::isnan(targets[c])) m += count_before[c];
        double tsum = 0;
        for (double t : targets)
            if (!std::isnan(t)) tsum += t;
        for (int c = 0; c < classes; ++c) {
            if (std::isnan(targets[c])) {
                CHECK(count_after[c] == count_before[c]);
                continue;
            }
            const double want = m * targets[c] / tsum;
            CHECK(std::abs(count_after[c] - want) <=
                  std::max(0.5, std::abs(count_before[c] - want)) + 1e-9);
        }
        // Regions: no class gains regions that were not there; none left under its min_area
        // unless it started there.
        std::map<ClassId, int> regions_n_before, regions_n_after;
        for (const auto& [c, n] : regions_before)
            ++regions_n_before[c];
        for (const auto& [c, n] : regions_of(one))
            ++regions_n_after[c];
        for (const auto& [c, n] : regions_n_after)
            CHECK(n <= regions_n_before[c]);
        int smallest_before = 1 << 30;
        for (const auto& [c, n] : regions_before)
            if (n < cleanup[c].min_area) smallest_before = std::min(smallest_before, n);
        for (const auto& [c, n] : regions_of(one))
            if (n < cleanup[c].min_area) CHECK(n >= smallest_before);
    }
}
