// The places against plain references: AnchorOrder is a permutation (every cell once),
// slope_row against the four-neighbour loop, near_class_within against a scan of every cell, and
// place_places (walking cell by cell, and marking the anchors in a scan from the start) against the
// decision written out as places.hpp states it: every rule's anchors, tested plainly with the
// places so far on the map, taken in the order of the rule's AnchorOrder while they keep apart.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/hash.hpp"
#include "core/places/anchor_order.hpp"
#include "core/places/places.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

using test::blobby_classes;

// Heights in steps of 0.01 per class plus a little per-cell noise: slopes near the limits.
Grid<float> bumpy_heights(const ClassGrid& g, std::uint64_t seed) {
    Grid<float> heights(g.width(), g.height());
    for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x)
            heights(x, y) = static_cast<float>(g(x, y)) * 0.01f +
                            static_cast<float>(hash_values(seed, x, y) % 5) * 0.002f;
    return heights;
}

// The decision as places.hpp states it, rule by rule: every cell in the order of the rule's
// AnchorOrder (the permutation listed whole), each anchor tested plainly (footprint cells on the
// map, on `on`, not steeper than `flat`, on no place so far; the row below on `face`; a `near`
// class cell within near_distance steps by class_distance) and taken while it keeps min_distance.
PlacesResult reference_places(const ClassGrid& classes, const Grid<float>& heights,
                              const std::vector<PlaceRule>& rules, std::uint64_t seed) {
    PlacesResult result;
    const int w = classes.width(), h = classes.height();
    std::vector<std::uint8_t> occupied(classes.size(), 0);
    const Grid<float> slope = slope_of(heights);
    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        const PlaceRule& rule = rules[ri];
        result.placed.push_back(0);
        if (rule.count <= 0) continue;
        const int fw = rule.footprint_w, fh = rule.footprint_h;
        GridCells<std::uint16_t> near;
        if (rule.near) near = class_distance(classes, rule.near, rule.near_distance);
        const AnchorOrder order(hash_values(seed, 0x706c61636573ull, ri), classes.size());
        const bool flat = rule.flat > 0 && !heights.empty();
        for (std::uint64_t rank = 0; rank < order.domain(); ++rank) {
            if (result.placed.back() >= rule.count) break;
            const std::uint64_t c = order.cell(rank);
            if (c >= classes.size()) continue;
            const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
            if (x + fw > w || y + fh > h) continue;
            bool ok = true, close = !rule.near;
            for (int yy = y; yy < y + fh; ++yy)
                for (int xx = x; xx < x + fw; ++xx) {
                    const std::size_t i = static_cast<std::size_t>(yy) * w + xx;
                    ok = ok && (rule.on >> classes.cells()[i] & 1u) && !occupied[i] &&
                         !(flat && slope(xx, yy) > rule.flat);
                    close = close || near[i] <= rule.near_distance;
                }
            if (rule.face) {
                ok = ok && y + fh < h;
                for (int xx = x; ok && xx < x + fw; ++xx)
                    ok = (rule.face >> classes(xx, y + fh) & 1u) != 0;
            }
            for (const Place& p : result.places) {
                const double dx = p.x - x, dy = p.y - y;
                if (dx * dx + dy * dy < rule.min_distance * rule.min_distance) ok = false;
            }
            if (!ok || !close) continue;
            result.places.push_back({static_cast<int>(ri), x, y, fw, fh});
            for (int yy = y; yy < y + fh; ++yy)
                for (int xx = x; xx < x + fw; ++xx)
                    occupied[static_cast<std::size_t>(yy) * w + xx] = 1;
            ++result.placed.back();
        }
    }
    return result;
}

} // namespace

TEST_CASE("AnchorOrder: every cell exactly once, seeded, the same for the same stream") {
    for (std::uint64_t n :
         {1ull, 2ull, 3ull, 4ull, 5ull, 17ull, 64ull, 1000ull, 6144ull, 65537ull}) {
        for (std::uint64_t stream : {1ull, 99ull}) {
            const AnchorOrder order(stream, n);
            CHECK(order.domain() >= n);
            CHECK(order.domain() <= 4 * n);
            std::vector<std::uint8_t> seen(order.domain(), 0);
            std::uint64_t cells = 0, in_order = 0;
            for (std::uint64_t rank = 0; rank < order.domain(); ++rank) {
                const std::uint64_t c = order.cell(rank);
                REQUIRE(c < order.domain());
                CHECK(seen[c] == 0);
                seen[c] = 1;
                cells += c < n ? 1 : 0;
                in_order += c == rank ? 1 : 0;
                CHECK(AnchorOrder(stream, n).cell(rank) == c);
            }
            CHECK(cells == n);
            if (n >= 1000) CHECK(in_order * 100 < n); // not the identity
        }
        if (n >= 64) { // another stream, another order
            std::uint64_t same = 0;
            for (std::uint64_t rank = 0; rank < n; ++rank)
                same += AnchorOrder(1, n).cell(rank) == AnchorOrder(2, n).cell(rank) ? 1 : 0;
            CHECK(same * 10 < n);
        }
    }
}

TEST_CASE("slope_row / slope_of: the largest step to a 4-neighbour times 100, edges, inf, NaN") {
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        const int w = 1 + static_cast<int>(seed % 13), h = 1 + static_cast<int>(seed / 3 % 7);
        Grid<float> heights(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const std::uint64_t r = hash_values(seed, x, y);
                heights(x, y) = r % 17 == 0   ? std::numeric_limits<float>::infinity()
                                : r % 19 == 0 ? std::numeric_limits<float>::quiet_NaN()
                                              : static_cast<float>(r % 1000) * 0.001f;
            }
        const Grid<float> s = slope_of(heights, 1 + static_cast<int>(seed % 3));
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const float v = heights(x, y);
                float m = 0;
                if (x > 0) m = std::max(m, std::abs(v - heights(x - 1, y)));
                if (x + 1 < w) m = std::max(m, std::abs(v - heights(x + 1, y)));
                if (y > 0) m = std::max(m, std::abs(v - heights(x, y - 1)));
                if (y + 1 < h) m = std::max(m, std::abs(v - heights(x, y + 1)));
                const float want = m * 100.0f;
                CHECK(std::memcmp(&want, &s(x, y), sizeof want) == 0); // bit for bit
            }
    }
}

TEST_CASE(
    "near_class_within: some class cell within d steps of the footprint, against every cell") {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const int w = 5 + static_cast<int>(seed % 20), h = 4 + static_cast<int>(seed / 2 % 15);
        const ClassGrid g = blobby_classes(w, h, seed, 9);
        const std::uint32_t mask = 1u << (seed % 9);
        const int fw = 1 + static_cast<int>(seed % 3), fh = 1 + static_cast<int>(seed / 3 % 3);
        const int d = static_cast<int>(seed % 7);
        for (int y = 0; y + fh <= h; ++y)
            for (int x = 0; x + fw <= w; ++x) {
                bool want = false;
                for (int yy = 0; yy < h; ++yy)
                    for (int xx = 0; xx < w; ++xx) {
                        const int dx = std::max({0, x - xx, xx - (x + fw - 1)});
                        const int dy = std::max({0, y - yy, yy - (y + fh - 1)});
                        want = want || ((mask >> g(xx, yy) & 1u) && dx + dy <= d);
                    }
                CHECK(near_class_within(g, mask, x, y, fw, fh, d) == want);
            }
    }
}

TEST_CASE("place_places: the plain per-rule decision, walked or marked, at any thread count") {
    int needs_scan = 0, placed = 0;
    for (std::uint64_t seed = 1; seed <= 24; ++seed) {
        const int w = 40 + static_cast<int>(seed % 5) * 9, h = 30 + static_cast<int>(seed % 3) * 11;
        const ClassGrid g = blobby_classes(w, h, seed, 4);
        const Grid<float> heights = seed % 5 == 0 ? Grid<float>() : bumpy_heights(g, seed);
        // 3..11 rules: overlapping classes, so later rules' first anchors often lie under
        // earlier places.
        const int n = 3 + static_cast<int>(seed % 9);
        std::vector<PlaceRule> rules(n);
        for (int k = 0; k < n; ++k) {
            PlaceRule& r = rules[k];
            const auto pick = [&](int salt, int mod) {
                return static_cast<int>(hash_values(seed, k, salt) % static_cast<unsigned>(mod));
            };
            r.name = "r" + std::to_string(k);
            r.on = static_cast<std::uint32_t>(pick(1, 15) + 1);
            r.footprint_w = 1 + pick(2, 3);
            r.footprint_h = 1 + pick(3, 3);
            r.count = pick(4, 6); // 0 .. 5
            r.min_distance = pick(5, 3) == 0 ? 0.0 : 2.0 + pick(6, 14);
            if (pick(7, 3) == 0) {
                r.near = 1u << pick(8, 4);
                r.near_distance = pick(9, 4) == 0 ? 33 + pick(10, 5) : 1 + pick(10, 5);
            }
            if (pick(11, 3) == 0) r.flat = pick(12, 2) == 0 ? 0.5 : 1.0;
            if (pick(13, 4) == 0) r.face = 1u << pick(14, 4);
        }
        const PlacesResult want = reference_places(g, heights, rules, seed);
        for (const Place& p : want.places)
            placed += p.w * p.h > 0;
        for (int threads : {1, 2, 3}) {
            CHECK(place_places(g, heights, rules, seed, nullptr, threads) == want);
            // The scan from the start, and after a few cells walked one by one.
            for (std::uint64_t budget : {0, 1, 7, 100})
                CHECK(place_places_walked(g, heights, rules, seed, nullptr, threads, budget) ==
                      want);
        }
        for (int k = 0; k < n; ++k)
            needs_scan += want.placed[k] > 1; // with budget 1 these go on over the marks
    }
    CHECK(placed > 50); // the maps make room for many places
    CHECK(needs_scan > 10);
}
