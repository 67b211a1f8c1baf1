#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "core/classes/class_cleanup.hpp"
#include "core/classes/class_grid_rows.hpp"
#include "core/classes/class_map_text.hpp"
#include "core/heightfield/harmonic_noise.hpp"

using namespace tilegen;
using tilegen::test::grid_of;

namespace {

// Rows of symbols; a cell's class is its symbol's position in `symbols`.

std::string text_of(const std::vector<std::string>& rows) {
    std::string s;
    for (const auto& r : rows)
        s += r + "\n";
    return s;
}

// ---- Plain references: the semantics of class_cleanup.hpp written the slow, obvious way. ----

int side_of(const std::vector<ClassCleanup>& s, ClassId c) {
    return c < s.size() && s[c].min_width >= 2 ? s[c].min_width : 0;
}
int need_of(const std::vector<ClassCleanup>& s, ClassId c) {
    return c < s.size() && s[c].min_area >= 2 ? s[c].min_area : 0;
}

// Most common class among `classes`, ties to the lowest id (counted over all 256 ids).
ClassId majority(const std::vector<ClassId>& classes) {
    std::array<int, 256> n{};
    for (ClassId c : classes)
        ++n[c];
    int best = 0;
    for (int c = 1; c < 256; ++c)
        if (n[static_cast<std::size_t>(c)] > n[static_cast<std::size_t>(best)]) best = c;
    return static_cast<ClassId>(best);
}

// Each cell the majority of the (2 * radius + 1)² box around it (cells off the map left out):
// blobs with ragged edges from random cells.
ClassGrid majority_of_boxes(const ClassGrid& g, int radius) {
    ClassGrid next = g;
    for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x) {
            std::vector<ClassId> box;
            for (int dy = -radius; dy <= radius; ++dy)
                for (int dx = -radius; dx <= radius; ++dx)
                    if (g.contains(x + dx, y + dy)) box.push_back(g(x + dx, y + dy));
            next(x, y) = majority(box);
        }
    return next;
}

// Opening: every square position is tried for every cell; then whole-grid synchronous rounds.
ClassGrid reference_open(ClassGrid g, const std::vector<ClassCleanup>& s, std::uint64_t* changed) {
    const int w = g.width(), h = g.height();
    Grid<char> removed(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const ClassId c = g(x, y);
            const int n = side_of(s, c);
            if (n == 0) continue;
            bool covered = false;
            for (int sy = y - n + 1; sy <= y; ++sy)
                for (int sx = x - n + 1; sx <= x; ++sx) {
                    if (sx < 0 || sy < 0 || sx + n > w || sy + n > h) continue;
                    bool all = true;
                    for (int yy = sy; yy < sy + n; ++yy)
                        for (int xx = sx; xx < sx + n; ++xx)
                            all = all && g(xx, yy) == c;
                    covered = covered || all;
                }
            removed(x, y) = covered ? 0 : 1;
        }
    for (;;) {
        std::vector<std::pair<std::pair<int, int>, ClassId>> decisions;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                if (!removed(x, y)) continue;
                std::vector<ClassId> around;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int nx = x + dx, ny = y + dy;
                        if ((dx == 0 && dy == 0) || !g.contains(nx, ny) || removed(nx, ny) ||
                            g(nx, ny) == g(x, y))
                            continue;
                        around.push_back(g(nx, ny));
                    }
                if (!around.empty()) decisions.push_back({{x, y}, majority(around)});
            }
        if (decisions.empty()) break;
        for (const auto& [p, c] : decisions) {
            g(p.first, p.second) = c;
            removed(p.first, p.second) = 0;
        }
        if (changed) *changed += decisions.size();
    }
    return g;
}

struct RegionInfo {
    std::vector<std::pair<int, int>> cells; // cells[0] is the first in reading order
    ClassId cls = 0;
};

// 4-connected regions, in order of their first cell in reading order.
std::vector<RegionInfo> regions_of(const ClassGrid& g) {
    Grid<char> done(g.width(), g.height(), 0);
    std::vector<RegionInfo> out;
    for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x) {
            if (done(x, y)) continue;
            RegionInfo r;
            r.cls = g(x, y);
            r.cells.push_back({x, y});
            done(x, y) = 1;
            for (std::size_t k = 0; k < r.cells.size(); ++k) {
                const auto [cx, cy] = r.cells[k];
                const int nb[4][2] = {{cx + 1, cy}, {cx - 1, cy}, {cx, cy + 1}, {cx, cy - 1}};
                for (const auto& p : nb)
                    if (g.contains(p[0], p[1]) && !done(p[0], p[1]) && g(p[0], p[1]) == r.cls) {
                        done(p[0], p[1]) = 1;
                        r.cells.push_back({p[0], p[1]});
                    }
            }
            out.push_back(std::move(r));
        }
    return out;
}

// Min area: relabel the whole grid before every merge; merge the first too-small region.
ClassGrid reference_merge(ClassGrid g, const std::vector<ClassCleanup>& s, std::uint64_t* merges) {
    for (;;) {
        const auto regions = regions_of(g);
        const RegionInfo* small = nullptr;
        for (const auto& r : regions)
            if (static_cast<int>(r.cells.size()) < need_of(s, r.cls) && regions.size() > 1) {
                small = &r;
                break;
            }
        if (!small) return g;
        Grid<char> in(g.width(), g.height(), 0), counted(g.width(), g.height(), 0);
        for (const auto& [x, y] : small->cells)
            in(x, y) = 1;
        std::vector<ClassId> border;
        for (const auto& [x, y] : small->cells) {
            const int nb[4][2] = {{x + 1, y}, {x - 1, y}, {x, y + 1}, {x, y - 1}};
            for (const auto& p : nb)
                if (g.contains(p[0], p[1]) && !in(p[0], p[1]) && !counted(p[0], p[1])) {
                    counted(p[0], p[1]) = 1;
                    border.push_back(g(p[0], p[1]));
                }
        }
        const ClassId to = majority(border);
        for (const auto& [x, y] : small->cells)
            g(x, y) = to;
        if (merges) ++*merges;
    }
}

// Random grids of a few kinds: noise (specks everywhere), blobs (smoothed noise), stripes.
ClassGrid random_grid(std::mt19937& rng, int classes) {
    const int w = std::uniform_int_distribution<int>(1, 36)(rng);
    const int h = std::uniform_int_distribution<int>(1, 36)(rng);
    const int kind = std::uniform_int_distribution<int>(0, 2)(rng);
    ClassGrid g(w, h);
    std::uniform_int_distribution<int> pick(0, classes - 1);
    for (auto& c : g.cells())
        c = static_cast<ClassId>(pick(rng));
    if (kind == 1) { // majority of the 5x5 box, twice: blobs with ragged edges and some specks
        for (int pass = 0; pass < 2; ++pass)
            g = majority_of_boxes(g, 2);
        for (int k = 0; k < w * h / 20; ++k)
            g(std::uniform_int_distribution<int>(0, w - 1)(rng),
              std::uniform_int_distribution<int>(0, h - 1)(rng)) = static_cast<ClassId>(pick(rng));
    } else if (kind == 2) { // stripes of widths 1..4 in either direction
        const bool vertical = rng() % 2 == 0;
        std::vector<ClassId> band;
        while (static_cast<int>(band.size()) < std::max(w, h)) {
            const auto c = static_cast<ClassId>(pick(rng));
            const int width = std::uniform_int_distribution<int>(1, 4)(rng);
            for (int i = 0; i < width; ++i)
                band.push_back(c);
        }
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                g(x, y) = band[static_cast<std::size_t>(vertical ? x : y)];
    }
    return g;
}

std::vector<ClassCleanup> random_settings(std::mt19937& rng, int classes) {
    static const int areas[] = {0, 0, 1, 2, 3, 4, 6, 9, 25, 400, kMaxMinArea};
    static const int widths[] = {0, 0, 0, 1, 2, 2, 3, 4, 7, 40};
    std::vector<ClassCleanup> s(static_cast<std::size_t>(classes));
    for (auto& c : s) {
        c.min_area = areas[rng() % std::size(areas)];
        c.min_width = widths[rng() % std::size(widths)];
    }
    return s;
}

} // namespace

TEST_CASE("clean-up: a one-cell speck inside grass becomes grass") {
    const std::vector<ClassCleanup> s{{2, 0}, {0, 0}}; // water: min_area 2
    ClassGrid g = grid_of({"ggggg", "ggggg", "ggwgg", "ggggg"}, "wg");
    const CleanupReport r = clean_up_classes(g, s);
    CHECK(class_map_text(g, "wg") == text_of({"ggggg", "ggggg", "ggggg", "ggggg"}));
    CHECK(r.merged_regions == 1);
    CHECK(r.merged_cells == 1);
    CHECK(r.opened_cells == 0);
    // A two-cell puddle is big enough.
    ClassGrid two = grid_of({"ggggg", "ggwwg", "ggggg"}, "wg");
    const ClassGrid before = two;
    clean_up_classes(two, s);
    CHECK(two == before);
}

TEST_CASE("clean-up: a region bordering two classes equally goes to the lower index") {
    // The two c cells border b b b (above and right) and a a a (left and below).
    const std::vector<std::string> rows{"bbbb", "accb", "aaaa"};
    const std::vector<ClassCleanup> s{{0, 0}, {0, 0}, {3, 0}};
    ClassGrid g = grid_of(rows, "abc");
    clean_up_classes(g, s);
    CHECK(class_map_text(g, "abc") == text_of({"bbbb", "aaab", "aaaa"}));
    // With b as class 0 instead, they go to b: the index decides, not the position.
    ClassGrid h = grid_of(rows, "bac");
    clean_up_classes(h, s);
    CHECK(class_map_text(h, "bac") == text_of({"bbbb", "abbb", "aaaa"}));
}

TEST_CASE("clean-up: border cells count once each, not once per side they touch") {
    // The L-shaped c region borders 4 b cells and 3 a cells; the a cell in its inner corner
    // touches it on two sides. Counted per cell b wins; counted per side it would be a 4-4 tie
    // going to a.
    const std::vector<ClassCleanup> s{{0, 0}, {0, 0}, {4, 0}};
    ClassGrid l = grid_of({"bbbbb", "bccab", "bcabb", "babbb"}, "abc");
    clean_up_classes(l, s);
    CHECK(class_map_text(l, "abc") == text_of({"bbbbb", "bbbab", "bbabb", "babbb"}));
}

TEST_CASE("clean-up: min_width 2 removes a one-cell-wide strip and keeps a two-wide one") {
    const std::vector<std::string> rows{"ggfggffggg", "ggfggffggg", "ggfggffggg",
                                        "ggfggffggg", "ggfggffggg", "ggfggffggg"};
    const std::vector<ClassCleanup> s{{0, 0}, {0, 2}}; // g = 0, f = 1 (min_width 2)
    ClassGrid g = grid_of(rows, "gf");
    const CleanupReport r = clean_up_classes(g, s);
    CHECK(class_map_text(g, "gf") == text_of({"gggggffggg", "gggggffggg", "gggggffggg",
                                              "gggggffggg", "gggggffggg", "gggggffggg"}));
    CHECK(r.opened_cells == 6);
    // A spur on a block is cut off and takes the class around it, not the block's.
    ClassGrid spur = grid_of({"gggggg", "gffffg", "gfffff", "gffffg", "gggggg"}, "gf");
    clean_up_classes(spur, s);
    CHECK(class_map_text(spur, "gf") ==
          text_of({"gggggg", "gffffg", "gffffg", "gffffg", "gggggg"}));
}

TEST_CASE("clean-up: the map edge, maps smaller than the square, and the whole map") {
    // A 2-wide strip along the edge stays; 1-wide rows along the top and bottom edges go.
    const std::vector<ClassCleanup> s{{0, 0}, {0, 2}};
    ClassGrid g = grid_of({"ffff", "gggg", "ffgg", "ffgg", "gggg", "ffff"}, "gf");
    clean_up_classes(g, s);
    CHECK(class_map_text(g, "gf") == text_of({"gggg", "gggg", "ffgg", "ffgg", "gggg", "gggg"}));
    // A map one cell high holds no 2x2 square: every f cell goes, to the class beside it.
    ClassGrid line = grid_of({"gffgf"}, "gf");
    clean_up_classes(line, s);
    CHECK(class_map_text(line, "gf") == text_of({"ggggg"}));
    // ... unless nothing else is there: a map of one class stays whatever the settings.
    const std::vector<ClassCleanup> strict{{kMaxMinArea, kMaxMinWidth}, {0, 0}};
    ClassGrid one = grid_of({"ggg", "ggg"}, "gf");
    const CleanupReport r = clean_up_classes(one, strict);
    CHECK(class_map_text(one, "gf") == text_of({"ggg", "ggg"}));
    CHECK(r.merged_regions == 0);
    CHECK(r.opened_cells == 0);
}

TEST_CASE("clean-up: settings 0 and 1 change nothing") {
    std::mt19937 rng(5);
    for (int t = 0; t < 20; ++t) {
        ClassGrid g = random_grid(rng, 4);
        const ClassGrid before = g;
        const std::vector<ClassCleanup> s{{0, 1}, {1, 0}, {1, 1}, {0, 0}};
        CHECK_FALSE(cleanup_needed(s));
        const CleanupReport r = clean_up_classes(g, s);
        CHECK(g == before);
        CHECK(r.merged_regions + r.opened_cells == 0);
    }
}

namespace {

// The clean-up in bands of rows on each of `thread_counts` threads gives `grid` and `report`, as
// one scan did.
void check_banded(const ClassGrid& input, const std::vector<ClassCleanup>& s, const ClassGrid& grid,
                  const CleanupReport& report, std::initializer_list<int> thread_counts) {
    for (const int threads : thread_counts) {
        CAPTURE(threads);
        ClassGrid banded = input;
        const CleanupReport r = clean_up_classes(banded, s, 0, threads);
        CHECK(banded == grid);
        CHECK(r == report);
    }
}

} // namespace

TEST_CASE("clean-up agrees with the plain reference on random grids") {
    std::mt19937 rng(12345);
    for (int t = 0; t < 1500; ++t) {
        const int classes = std::uniform_int_distribution<int>(2, 5)(rng);
        const ClassGrid input = random_grid(rng, classes);
        const std::vector<ClassCleanup> s = random_settings(rng, classes);
        CAPTURE(t);
        CAPTURE(class_map_text(input, "abcde"));

        std::uint64_t ref_opened = 0, ref_merges = 0;
        const ClassGrid opened = reference_open(input, s, &ref_opened);
        const ClassGrid merged = reference_merge(opened, s, &ref_merges);

        ClassGrid a = input;
        CleanupReport ra;
        open_thin_parts(a, s, ra);
        REQUIRE(class_map_text(a, "abcde") == class_map_text(opened, "abcde"));
        CHECK(ra.opened_cells == ref_opened);
        ClassGrid b = opened;
        CleanupReport rb;
        merge_small_regions(b, s, rb);
        REQUIRE(class_map_text(b, "abcde") == class_map_text(merged, "abcde"));
        CHECK(rb.merged_regions == ref_merges);
        ClassGrid all = input;
        const CleanupReport r = clean_up_classes(all, s);
        CHECK(all == merged);
        CHECK(r.merged_regions == ref_merges);
        // In bands of rows on threads (bands as short as one row): the same grid and report.
        check_banded(input, s, merged, r, {2, 3, 7});

        // Independently: no region smaller than its class's min_area remains (unless it is the
        // whole map), counted by a flood fill of its own.
        const auto regions = regions_of(all);
        for (const auto& reg : regions)
            if (regions.size() > 1)
                CHECK(static_cast<int>(reg.cells.size()) >= need_of(s, reg.cls));
    }
}

TEST_CASE("clean-up: any class id up to 255, and ids past the settings have none") {
    std::mt19937 rng(777);
    const ClassId ids[] = {3, 64, 130, 200, 255};
    for (int t = 0; t < 300; ++t) {
        const int classes = std::uniform_int_distribution<int>(2, 5)(rng);
        ClassGrid input = random_grid(rng, classes);
        for (auto& c : input.cells())
            c = ids[c];
        const std::vector<ClassCleanup> few = random_settings(rng, classes);
        // Settings for ids 0..255, the five ids taking the random ones; then the same cut short
        // before the last id (255 has none).
        std::vector<ClassCleanup> s(256);
        for (int i = 0; i < classes; ++i)
            s[ids[i]] = few[static_cast<std::size_t>(i)];
        for (const std::size_t size : {std::size_t{256}, std::size_t{255}}) {
            const std::vector<ClassCleanup> settings(s.begin(),
                                                     s.begin() + static_cast<std::ptrdiff_t>(size));
            CAPTURE(t);
            ClassGrid g = input;
            clean_up_classes(g, settings);
            CHECK(g ==
                  reference_merge(reference_open(input, settings, nullptr), settings, nullptr));
        }
    }
}

TEST_CASE("clean-up: specks of a noisy larger grid all go") {
    std::mt19937 rng(99);
    ClassGrid g(150, 100);
    for (auto& c : g.cells())
        c = static_cast<ClassId>(rng() % 3 == 0 ? 1 + rng() % 3 : 0);
    const std::vector<ClassCleanup> s{{4, 0}, {4, 2}, {5, 0}, {6, 3}};
    const ClassGrid input = g;
    clean_up_classes(g, s);
    const auto regions = regions_of(g);
    REQUIRE(regions.size() > 1);
    for (const auto& r : regions)
        CHECK(static_cast<int>(r.cells.size()) >= need_of(s, r.cls));
    CHECK(g == reference_merge(reference_open(input, s, nullptr), s, nullptr));
}

TEST_CASE("clean-up of classes cut from harmonic noise: the reference's result, no small regions") {
    for (std::uint64_t seed : {1ull, 2ull, 3ull}) {
        CAPTURE(seed);
        const Grid<float> heights = harmonic_noise({}, seed, 160, 120, {0, 0, 160, 120});
        const ClassGrid input =
            classify(heights, thresholds_from_shares(heights, {0.3, 0.1, 0.2, 0.25, 0.15}));
        const std::vector<ClassCleanup> s{{8, 2}, {6, 2}, {4, 0}, {12, 3}, {0, 2}};
        ClassGrid g = input;
        const CleanupReport r = clean_up_classes(g, s);
        CHECK(r.opened_cells > 0);
        CHECK(r.merged_regions > 0);
        CHECK(g == reference_merge(reference_open(input, s, nullptr), s, nullptr));
        const auto regions = regions_of(g);
        for (const auto& reg : regions)
            CHECK(static_cast<int>(reg.cells.size()) >= need_of(s, reg.cls));
    }
}

namespace tilegen {
namespace {

// A tall grid of overlapping random rectangles (up to 90 cells a side, so squares of every
// min_width fit and column counts reach their cap of 64) and a sprinkle of single cells.
ClassGrid tall_grid(std::mt19937& rng, int classes) {
    const int w = std::uniform_int_distribution<int>(1, 70)(rng);
    const int h = std::uniform_int_distribution<int>(130, 420)(rng);
    ClassGrid g(w, h, 0);
    std::uniform_int_distribution<int> pick(0, classes - 1);
    const int rects = std::uniform_int_distribution<int>(5, 40)(rng);
    for (int r = 0; r < rects; ++r) {
        const int rw = std::uniform_int_distribution<int>(1, 90)(rng);
        const int rh = std::uniform_int_distribution<int>(1, 90)(rng);
        const int x0 = std::uniform_int_distribution<int>(0, w - 1)(rng);
        const int y0 = std::uniform_int_distribution<int>(0, h - 1)(rng);
        const auto c = static_cast<ClassId>(pick(rng));
        for (int y = y0; y < std::min(h, y0 + rh); ++y)
            for (int x = x0; x < std::min(w, x0 + rw); ++x)
                g(x, y) = c;
    }
    const int specks = std::uniform_int_distribution<int>(0, w * h / 200)(rng);
    for (int s = 0; s < specks; ++s)
        g(std::uniform_int_distribution<int>(0, w - 1)(rng),
          std::uniform_int_distribution<int>(0, h - 1)(rng)) = static_cast<ClassId>(pick(rng));
    return g;
}

} // namespace

TEST_CASE("clean-up in bands of rows: the same as one scan on tall grids, any min_width") {
    std::mt19937 rng(2026);
    for (int t = 0; t < 80; ++t) {
        const int classes = std::uniform_int_distribution<int>(2, 4)(rng);
        const ClassGrid input = tall_grid(rng, classes);
        std::vector<ClassCleanup> s(static_cast<std::size_t>(classes));
        for (ClassCleanup& c : s) {
            const int kind = std::uniform_int_distribution<int>(0, 2)(rng);
            c.min_width = kind == 0   ? 0
                          : kind == 1 ? std::uniform_int_distribution<int>(2, 8)(rng)
                                      : std::uniform_int_distribution<int>(20, kMaxMinWidth)(rng);
            c.min_area = std::uniform_int_distribution<int>(0, 200)(rng);
        }
        CAPTURE(t);
        ClassGrid one = input;
        const CleanupReport r1 = clean_up_classes(one, s);
        CHECK(r1.opened_cells + r1.merged_regions > 0); // the case does exercise the passes
        check_banded(input, s, one, r1, {2, 3, 5});
    }
}

} // namespace tilegen

namespace tilegen {
namespace {

// A wide grid (past one 64-bit word of a row's run bits, and the 16-cell SSE2 chunks) of noise,
// blobs (a 3x3 majority of noise) or stripes of widths 1..5, from `classes` classes.
ClassGrid wide_grid(std::mt19937& rng, int classes) {
    const int w = std::uniform_int_distribution<int>(1, 200)(rng);
    const int h = std::uniform_int_distribution<int>(1, 50)(rng);
    const int kind = std::uniform_int_distribution<int>(0, 2)(rng);
    std::uniform_int_distribution<int> pick(0, classes - 1);
    ClassGrid g(w, h);
    for (auto& c : g.cells())
        c = static_cast<ClassId>(pick(rng));
    if (kind == 1) {
        g = majority_of_boxes(g, 1);
    } else if (kind == 2) {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w;) {
                const int run = std::uniform_int_distribution<int>(1, 5)(rng);
                const auto c = static_cast<ClassId>(pick(rng));
                for (int k = 0; k < run && x < w; ++k, ++x)
                    g(x, y) = c;
            }
    }
    return g;
}

} // namespace

TEST_CASE("clean-up: min_area up to kLocalMinArea by small floods, the same as labelling runs") {
    std::mt19937 rng(4242);
    static const int areas[] = {0, 0, 1, 2, 3, 4, 5, 6, 9, 12, 16};
    int merged = 0;
    for (int t = 0; t < 600; ++t) {
        const int classes = std::uniform_int_distribution<int>(2, 5)(rng);
        const ClassGrid input = wide_grid(rng, classes);
        std::vector<ClassCleanup> s(static_cast<std::size_t>(classes));
        for (ClassCleanup& c : s)
            c.min_area = areas[rng() % std::size(areas)];
        // Sometimes a frozen class (the overlays' rule: neither merged nor taken).
        const std::uint32_t frozen = rng() % 3 == 0 ? 1u << (rng() % classes) : 0u;
        CAPTURE(t);
        CAPTURE(frozen);
        ClassGrid by_runs = input;
        CleanupReport r_runs;
        merge_small_regions_by_runs(by_runs, s, r_runs, frozen);
        for (const int threads : {1, 2, 3}) {
            CAPTURE(threads);
            ClassGrid local = input;
            CleanupReport r_local;
            merge_small_regions(local, s, r_local, frozen, threads);
            REQUIRE(local == by_runs);
            CHECK(r_local == r_runs);
        }
        if (frozen == 0) CHECK(by_runs == reference_merge(input, s, nullptr));
        merged += r_runs.merged_regions > 0 ? 1 : 0;
    }
    CHECK(merged > 300); // the cases do merge
}

TEST_CASE("clean-up: a min_area past kLocalMinArea labels runs (a region of 16 cells merges)") {
    // A 4x4 block of class 1 (16 cells) in class 0: merged exactly when its min_area is above 16.
    ClassGrid g(12, 12, 0);
    for (int y = 4; y < 8; ++y)
        for (int x = 4; x < 8; ++x)
            g(x, y) = 1;
    for (const int area : {static_cast<int>(kLocalMinArea), static_cast<int>(kLocalMinArea) + 1}) {
        ClassGrid a = g;
        CleanupReport r;
        merge_small_regions(a, std::vector<ClassCleanup>{{0, 0}, {area, 0}}, r);
        CHECK(r.merged_regions == (area > 16 ? 1u : 0u));
        CHECK(a(5, 5) == (area > 16 ? 0 : 1));
    }
}

} // namespace tilegen
