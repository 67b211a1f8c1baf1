// compute_map_stats against a plain recount (flood fill with an explicit stack, every window and
// neighbour pair counted one by one) and against values worked out by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "core/quality/map_stats.hpp"
#include "core/quality/map_stats_recount.hpp"

using namespace tilegen;

namespace {

void check_against_reference(const ClassGrid& g, const std::vector<bool>& walkable,
                             const MapStats& s) {
    const test::MapStatsRecount r = test::recount_map_stats(g, walkable);
    CHECK(s.cells == g.size());
    CHECK(s.class_regions == r.class_regions);
    CHECK(s.specks == r.specks);
    CHECK(s.thin_cells == r.thin_cells);
    CHECK(s.walkable_regions == r.walkable_regions);
    CHECK(s.walkable_cells == r.walkable_cells);
    CHECK(s.largest_walkable_cells == r.largest_walkable_cells);
    CHECK(s.corner_windows == r.corner_windows);
    CHECK(s.boundary_edges == r.boundary_edges);
    const double cells = static_cast<double>(g.size());
    CHECK(s.thin == doctest::Approx(static_cast<double>(r.thin_cells) / cells));
    CHECK(s.largest_walkable ==
          doctest::Approx(r.walkable_cells ? static_cast<double>(r.largest_walkable_cells) /
                                                 static_cast<double>(r.walkable_cells)
                                           : 0.0));
    CHECK(s.corner_density == doctest::Approx(r.boundary_edges
                                                  ? static_cast<double>(r.corner_windows) /
                                                        static_cast<double>(r.boundary_edges)
                                                  : 0.0));
    REQUIRE(s.class_fractions.size() == walkable.size());
    for (std::size_t c = 0; c < walkable.size(); ++c)
        CHECK(s.class_fractions[c] == doctest::Approx(static_cast<double>(r.counts[c]) / cells));
}

// Every thread count gives the reference's numbers (and the same numbers).
MapStats stats_at_every_thread_count(const ClassGrid& g, const std::vector<bool>& walkable,
                                     const std::vector<double>& shares = {}) {
    const MapStats one = compute_map_stats(g, walkable, shares, 0, 1);
    check_against_reference(g, walkable, one);
    for (int threads : {2, 3, 8, 64}) {
        CAPTURE(threads);
        const MapStats s = compute_map_stats(g, walkable, shares, 0, threads);
        check_against_reference(g, walkable, s);
        CHECK(s.specks == one.specks);
        CHECK(s.walkable_regions == one.walkable_regions);
        CHECK(s.largest_walkable_cells == one.largest_walkable_cells);
        CHECK(s.class_regions == one.class_regions);
    }
    return one;
}

template <class F> ClassGrid make_grid(int w, int h, F f) {
    ClassGrid g(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            g(x, y) = static_cast<ClassId>(f(x, y));
    return g;
}

} // namespace

TEST_CASE("map stats: a checkerboard is all specks, thin inside, without corners") {
    const int w = 8, h = 6;
    const ClassGrid g = make_grid(w, h, [](int x, int y) { return (x + y) % 2; });
    const MapStats s = stats_at_every_thread_count(g, {true, false}, {0.5, 0.5});
    CHECK(s.specks == 48); // every cell a region of 1
    CHECK(s.class_regions == 48);
    // Every cell but the 4 corners (which have no two opposite neighbours) is thin.
    CHECK(s.thin_cells == 44);
    CHECK(s.corner_windows == 0); // every window holds 2 + 2
    CHECK(s.boundary_edges == 7 * 6 + 8 * 5);
    CHECK(s.corner_density == 0);
    CHECK(s.walkable_cells == 24);
    CHECK(s.walkable_regions == 24);
    CHECK(s.largest_walkable == doctest::Approx(1.0 / 24));
    CHECK(s.share_error[0] == doctest::Approx(0));
    CHECK(s.share_error[1] == doctest::Approx(0));
}

TEST_CASE("map stats: an axis-aligned half plane") {
    const int w = 20, h = 13;
    const ClassGrid g = make_grid(w, h, [](int x, int) { return x < 7 ? 0 : 1; });
    const MapStats s = stats_at_every_thread_count(g, {true, true}, {0.4, 0.6});
    CHECK(s.specks == 0);
    CHECK(s.class_regions == 2);
    CHECK(s.thin_cells == 0);
    CHECK(s.boundary_edges == 13);
    CHECK(s.corner_windows == 0);
    CHECK(s.corner_density == 0);
    CHECK(s.walkable_regions == 1);
    CHECK(s.largest_walkable == 1.0);
    CHECK(s.class_fractions[0] == doctest::Approx(7.0 / 20));
    CHECK(s.share_error[0] == doctest::Approx((7.0 / 20 - 0.4) * 100)); // -5 points
    CHECK(s.share_error[1] == doctest::Approx(5.0));

    // The same, turned: rows instead of columns.
    const ClassGrid t = make_grid(h, w, [](int, int y) { return y < 7 ? 0 : 1; });
    const MapStats u = stats_at_every_thread_count(t, {true, false});
    CHECK(u.corner_windows == 0);
    CHECK(u.boundary_edges == 13);
    CHECK(u.walkable_regions == 1);
    CHECK(u.walkable_cells == 7 * 13);
    CHECK(std::isnan(u.share_error[0])); // no shares given
}

TEST_CASE("map stats: a 45-degree half plane is a staircase of corners") {
    const int n = 40;
    const ClassGrid g = make_grid(n, n, [&](int x, int y) { return x + y < n ? 0 : 1; });
    const MapStats s = stats_at_every_thread_count(g, {false, true});
    CHECK(s.class_regions == 2);
    CHECK(s.specks == 0);
    CHECK(s.thin_cells == 0);
    // Rows 1..n-1 and columns 1..n-1 each cross the diagonal once.
    CHECK(s.boundary_edges == 2 * (n - 1));
    // Windows with top-left x + y = n - 2 (three of class 0) or n - 1 (three of class 1).
    CHECK(s.corner_windows == (n - 1) + (n - 2));
    CHECK(s.corner_density == doctest::Approx((2.0 * n - 3) / (2.0 * n - 2)));
    CHECK(s.corner_density > 0.95);
    CHECK(s.walkable_regions == 1);
    CHECK(s.walkable_cells == n * (n - 1) / 2);

    // Slope 1/2: corner_density tends to 2m / (1 + m) = 2/3.
    const ClassGrid half = make_grid(200, 100, [](int x, int y) { return 2 * y < x ? 0 : 1; });
    const MapStats h = stats_at_every_thread_count(half, {true, true});
    CHECK(h.corner_density == doctest::Approx(2.0 / 3).epsilon(0.02));
}

TEST_CASE("map stats: two discs") {
    const int w = 64, h = 48;
    auto in_disc = [](int x, int y, int cx, int cy, int r) {
        return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
    };
    const ClassGrid g = make_grid(w, h, [&](int x, int y) {
        return in_disc(x, y, 16, 24, 10) || in_disc(x, y, 46, 24, 8) ? 1 : 0;
    });
    const MapStats s = stats_at_every_thread_count(g, {true, false}, {0.8, 0.2});
    CHECK(s.class_regions == 3); // the background and two discs
    CHECK(s.specks == 0);
    // Only the four tips of each disc (rows or columns one cell wide) are thin.
    CHECK(s.thin_cells == 8);
    CHECK(s.walkable_regions == 1);
    CHECK(s.largest_walkable == 1.0);
    CHECK(s.corner_density > 0);
    CHECK(s.corner_density < 1);
    CHECK(s.class_fractions[0] + s.class_fractions[1] == doctest::Approx(1.0));
    CHECK(s.share_error[1] == doctest::Approx((s.class_fractions[1] - 0.2) * 100));
}

TEST_CASE("map stats: edge cases") {
    SUBCASE("empty grid") {
        const MapStats s = compute_map_stats(ClassGrid{}, {true, false}, {0.5, 0.5}, 0, 4);
        CHECK(s.cells == 0);
        CHECK(s.specks == 0);
        CHECK(s.thin == 0);
        CHECK(s.walkable_regions == 0);
        CHECK(s.largest_walkable == 0);
        CHECK(s.corner_density == 0);
        CHECK(s.class_fractions == std::vector<double>{0, 0});
    }
    SUBCASE("no walkable cell, no boundary") {
        const MapStats s =
            stats_at_every_thread_count(ClassGrid(5, 4, 1), {true, false}, {0.25, 0.75});
        CHECK(s.walkable_regions == 0);
        CHECK(s.largest_walkable == 0);
        CHECK(s.boundary_edges == 0);
        CHECK(s.corner_density == 0);
        CHECK(s.class_regions == 1);
        CHECK(s.share_error[1] == doctest::Approx(25));
    }
    SUBCASE("a lone cell") {
        ClassGrid g(5, 5, 0);
        g(2, 2) = 1;
        const MapStats s = stats_at_every_thread_count(g, {true, true});
        CHECK(s.specks == 1);
        CHECK(s.thin_cells == 1);
        CHECK(s.boundary_edges == 4);
        CHECK(s.corner_windows == 4);
        CHECK(s.corner_density == 1);
    }
    SUBCASE("unmatched is passed through; ids beyond the classes are not walkable") {
        ClassGrid g(3, 1, 0);
        g(1, 0) = 7;
        const MapStats s = compute_map_stats(g, {true, true}, {}, 42, 2);
        CHECK(s.unmatched == 42);
        CHECK(s.walkable_regions == 2);
        CHECK(s.class_fractions[0] == doctest::Approx(2.0 / 3));
        check_against_reference(g, {true, true}, s);
    }
    SUBCASE("a region that winds through many bands") {
        // A serpentine of class 1 through a 9x16 grid: one region of many cells, joined across
        // every band border several times.
        const ClassGrid g = make_grid(9, 16, [](int x, int y) {
            if (y % 2 == 0) return 1;
            return (y % 4 == 1 ? x == 8 : x == 0) ? 1 : 0;
        });
        const MapStats s = stats_at_every_thread_count(g, {false, true});
        CHECK(s.walkable_regions == 1);
        CHECK(s.walkable_cells == 8 * 9 + 8);
        CHECK(s.class_regions == 1 + 8);
    }
}

TEST_CASE("map stats: random grids agree with the recount at any thread count") {
    std::mt19937 rng(12345);
    const std::pair<int, int> sizes[] = {{1, 1},  {1, 37},  {37, 1},   {2, 2},  {3, 5},
                                         {17, 9}, {64, 64}, {100, 33}, {5, 120}};
    for (const auto& [w, h] : sizes)
        for (int classes : {2, 3, 6})
            for (double keep : {0.0, 0.6, 0.85}) {
                CAPTURE(w);
                CAPTURE(h);
                CAPTURE(classes);
                CAPTURE(keep);
                // Each cell copies its left or upper neighbour with probability `keep`, giving
                // regions from specks to large blobs.
                std::uniform_real_distribution<double> u(0, 1);
                std::uniform_int_distribution<int> pick(0, classes - 1);
                ClassGrid g(w, h);
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x) {
                        const double p = u(rng);
                        if (p < keep / 2 && x > 0)
                            g(x, y) = g(x - 1, y);
                        else if (p < keep && y > 0)
                            g(x, y) = g(x, y - 1);
                        else
                            g(x, y) = static_cast<ClassId>(pick(rng));
                    }
                std::vector<bool> walkable;
                for (int c = 0; c < classes; ++c)
                    walkable.push_back(c % 3 != 1);
                stats_at_every_thread_count(g, walkable);
            }
}

TEST_CASE("map stats: JSON keys") {
    CHECK(kMapStatsKeys[0] == "specks");
    CHECK(kMapStatsKeys[5] == "share_error");
    TerrainClass water, grass;
    water.share = 0.3;
    water.walkable = false;
    grass.share = 0.7;
    CHECK(walkable_flags({water, grass}) == std::vector<bool>{false, true});
    const auto none = target_shares({water, grass}, false);
    CHECK(std::isnan(none[0]));
    CHECK(std::isnan(none[1]));
    CHECK(target_shares({water, grass}, true) == std::vector<double>{0.3, 0.7});
}

TEST_CASE("map stats: the JSON object") {
    // water water grass: water a region of 2, grass of 1 (two specks); only grass walkable.
    ClassGrid g(3, 1, 0);
    g(2, 0) = 1;
    TerrainClass water, grass;
    water.name = "water";
    water.share = 0.5;
    water.walkable = false;
    grass.name = "grass";
    grass.share = 0.5;
    const std::vector<TerrainClass> terrain{water, grass};
    const MapStats s =
        compute_map_stats(g, walkable_flags(terrain), target_shares(terrain, true), 5, 2);
    JsonWriter json;
    write_map_stats_json(json, s, terrain);
    CHECK(json.str() == R"({"specks":2,"thin":0,"walkable_regions":1,"largest_walkable":1,)"
                        R"("corner_density":0,"share_error":{"water":16.6667,"grass":-16.6667},)"
                        R"("unmatched":5})");
    JsonWriter none;
    write_map_stats_json(none, compute_map_stats(g, {true, true}, {}, 0, 1), terrain);
    CHECK(none.str().find(R"("share_error":{})") != std::string::npos);
}
