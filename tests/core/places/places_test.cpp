// The places' fast paths against plain references: AnchorRows against for_each_covered_anchor per
// rule, float_at_or_below against the double compare, slope_row against the four-neighbour loop,
// near_class_within against a scan of every cell, and place_places (the least-candidate lists,
// cut short to force the plain bucket scan too) against the decision written out as
// places.hpp states it: every rule's own scan with the places so far on the map.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/hash.hpp"
#include "core/places/anchor_rows.hpp"
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

// The decision as places.hpp states it, rule by rule: the scan place_places made per rule before
// the least-candidate lists (covered anchors with the places so far on the map, face, near by
// class_distance, each bucket's least (score, index), greedy acceptance).
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
        const std::uint64_t stream = hash_values(seed, 0x706c61636573ull, ri);
        const int side = std::max(8, static_cast<int>(std::ceil(rule.min_distance)));
        const int bw = (w + side - 1) / side, bh = (h + side - 1) / side;
        using Candidate = std::pair<std::uint64_t, std::uint32_t>; // (score, index)
        const Candidate none{std::numeric_limits<std::uint64_t>::max(), 0};
        std::vector<Candidate> best(static_cast<std::size_t>(bw) * bh, none);
        const bool flat = rule.flat > 0 && !heights.empty();
        for (int y = 0; y + fh <= h; ++y)
            for (int x = 0; x + fw <= w; ++x) {
                bool ok = true, close = !rule.near;
                for (int yy = y; yy < y + fh; ++yy)
                    for (int xx = x; xx < x + fw; ++xx) {
                        const std::size_t c = static_cast<std::size_t>(yy) * w + xx;
                        ok = ok && (rule.on >> classes.cells()[c] & 1u) && !occupied[c] &&
                             !(flat && slope(xx, yy) > rule.flat);
                        close = close || near[c] <= rule.near_distance;
                    }
                if (rule.face) {
                    ok = ok && y + fh < h;
                    for (int xx = x; ok && xx < x + fw; ++xx)
                        ok = (rule.face >> classes(xx, y + fh) & 1u) != 0;
                }
                if (!ok || !close) continue;
                const Candidate c{hash_position(stream, x, y),
                                  static_cast<std::uint32_t>(y * w + x)};
                Candidate& b = best[static_cast<std::size_t>(y / side) * bw + x / side];
                b = std::min(b, c);
            }
        std::vector<Candidate> kept;
        for (const Candidate& c : best)
            if (c.first != none.first) kept.push_back(c);
        std::sort(kept.begin(), kept.end());
        for (const Candidate& c : kept) {
            if (result.placed.back() >= rule.count) break;
            const int x = static_cast<int>(c.second % w), y = static_cast<int>(c.second / w);
            bool ok = true;
            for (const Place& p : result.places) {
                const double dx = p.x - x, dy = p.y - y;
                if (dx * dx + dy * dy < rule.min_distance * rule.min_distance) ok = false;
                if (x < p.x + p.w && p.x < x + fw && y < p.y + p.h && p.y < y + fh) ok = false;
            }
            if (!ok) continue;
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

TEST_CASE("float_at_or_below: a float compare decides as the double one") {
    std::vector<double> limits = {0.0,   0.5,   1.0 / 3.0, 3.0,
                                  4.0,   0.1,   100.0,     -0.1,
                                  1e-45, 1e300, -1e300,    std::numeric_limits<double>::infinity()};
    for (std::uint64_t i = 0; i < 200; ++i)
        limits.push_back(static_cast<double>(hash_values(i, 1) % 100000) / 977.0);
    for (double limit : limits) {
        const float t = float_at_or_below(limit);
        CHECK(static_cast<double>(t) <= limit);
        if (!std::isinf(t)) // and the next float is above it
            CHECK(static_cast<double>(std::nextafter(t, std::numeric_limits<float>::infinity())) >
                  limit);
        for (float s :
             {t, std::nextafter(t, 0.0f), std::nextafter(t, 1e30f), static_cast<float>(limit), 0.0f,
              std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()})
            CHECK((static_cast<double>(s) > limit) == (s > t));
    }
    const float nan = float_at_or_below(std::numeric_limits<double>::quiet_NaN());
    CHECK(!(1.0f > nan));
}

TEST_CASE("AnchorRows: per rule, the anchors of for_each_covered_anchor with the face row below, "
          "in any band") {
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const int w = 1 + static_cast<int>(hash_values(seed, 1) % 40);
        const int h = 1 + static_cast<int>(hash_values(seed, 2) % 30);
        const ClassGrid g = blobby_classes(w, h, seed, 3);
        std::vector<float> slopes(static_cast<std::size_t>(w) * h);
        for (std::size_t i = 0; i < slopes.size(); ++i)
            slopes[i] = static_cast<float>(hash_values(seed, i, 3) % 7) * 0.75f;
        const bool with_slopes = seed % 4 != 0;
        const int n = 1 + static_cast<int>(seed % AnchorRows::kMaxRules);
        std::vector<AnchorRule> rules(n);
        for (int k = 0; k < n; ++k) {
            AnchorRule& r = rules[k];
            r.on = static_cast<std::uint32_t>(hash_values(seed, k, 4) % 7) + 1;
            r.limited = hash_values(seed, k, 5) % 2 == 0;
            r.steeper = static_cast<float>(hash_values(seed, k, 6) % 5) * 0.75f;
            const bool big = hash_values(seed, k, 9) % 5 == 0;
            r.fw = 1 + static_cast<int>(hash_values(seed, k, 7) % (big ? 16 : 4));
            r.fh = 1 + static_cast<int>(hash_values(seed, k, 8) % (big ? 16 : 4));
            if (hash_values(seed, k, 10) % 3 == 0)
                r.face = static_cast<std::uint32_t>(hash_values(seed, k, 11) % 7) + 1;
        }
        // want[k][y * w + x]: rule k's anchor by for_each_covered_anchor.
        std::vector<std::vector<std::uint8_t>> want(n);
        for (int k = 0; k < n; ++k) {
            const AnchorRule& r = rules[k];
            want[k].assign(static_cast<std::size_t>(w) * h, 0);
            std::vector<std::uint16_t> buffer;
            for_each_covered_anchor(
                w, h, r.fw, r.fh, buffer,
                [&](std::size_t c) {
                    return (r.on >> g.cells()[c] & 1u) &&
                           !(with_slopes && r.limited && slopes[c] > r.steeper);
                },
                [&](int x, int y) {
                    bool face = y + r.fh < h || !r.face;
                    for (int xx = x; r.face && face && xx < x + r.fw; ++xx)
                        face = (r.face >> g(xx, y + r.fh) & 1u) != 0;
                    want[k][static_cast<std::size_t>(y) * w + x] = face ? 1 : 0;
                });
        }
        const int band = 1 + static_cast<int>(seed % 5);
        AnchorRows rows(rules, w);
        int calls = 0;
        for (int y0 = 0; y0 < h; y0 += band) {
            AnchorRows fresh(rules, w);
            AnchorRows& use = seed % 2 ? rows : fresh; // a reused one, too
            use.scan(g.cells().data(), with_slopes ? slopes.data() : nullptr, h, y0,
                     std::min(h, y0 + band), [&](int y, const std::uint8_t* bits) {
                         CHECK(y == calls++);
                         for (int x = 0; x < w; ++x)
                             for (int k = 0; k < n; ++k)
                                 CHECK((bits[x] >> k & 1u) ==
                                       want[k][static_cast<std::size_t>(y) * w + x]);
                     });
        }
        CHECK(calls == h);
    }
}

TEST_CASE("low_scores: the anchors scoring at most the limit, and whether one scored above") {
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const int n = static_cast<int>(hash_values(seed, 1) % 70); // 0 .. 69: odd tails too
        const int x0 = static_cast<int>(hash_values(seed, 2) % 5000) - 100;
        const int y = static_cast<int>(hash_values(seed, 3) % 5000);
        const std::uint64_t stream = hash_values(seed, 4);
        std::vector<std::uint8_t> bits(static_cast<std::size_t>(n) + 1), low(bits.size(), 9);
        for (int i = 0; i < n; ++i)
            bits[i] = static_cast<std::uint8_t>(hash_values(seed, i, 5));
        const int k = static_cast<int>(seed % 8);
        // A limit at one of the scores (ties), or below or above them all.
        const std::uint64_t limit = seed % 5 == 0   ? 0
                                    : seed % 5 == 1 ? ~std::uint64_t{0}
                                    : n > 0
                                        ? hash_position(stream, x0 + static_cast<int>(seed % n), y)
                                        : 0;
        bool want_high = false;
        for (int i = 0; i < n; ++i)
            want_high =
                want_high || ((bits[i] >> k & 1u) && hash_position(stream, x0 + i, y) > limit);
        CHECK(low_scores(stream, x0, y, n, bits.data(), k, limit, low.data()) == want_high);
        for (int i = 0; i < n; ++i)
            CHECK(low[i] ==
                  ((bits[i] >> k & 1u) && hash_position(stream, x0 + i, y) <= limit ? 1 : 0));
        CHECK(low[n] == 9); // nothing past the run
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

TEST_CASE("place_places: the plain per-rule decision, at any thread count and list cut") {
    int needs_plain = 0, placed = 0;
    for (std::uint64_t seed = 1; seed <= 24; ++seed) {
        const int w = 40 + static_cast<int>(seed % 5) * 9, h = 30 + static_cast<int>(seed % 3) * 11;
        const ClassGrid g = blobby_classes(w, h, seed, 4);
        const Grid<float> heights = seed % 5 == 0 ? Grid<float>() : bumpy_heights(g, seed);
        // 3..11 rules (more than AnchorRows::kMaxRules at times): overlapping classes, so later
        // rules' best anchors often lie under earlier places.
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
            for (int cut : {1, 2, 5}) {
                const PlacesResult got =
                    place_places_cut(g, heights, rules, seed, nullptr, threads, cut);
                CHECK(got == want);
            }
        }
        for (int k = 0; k < n; ++k)
            needs_plain += want.placed[k] > 1; // with cut 1 these take the plain scan
    }
    CHECK(placed > 50); // the maps make room for many places
    CHECK(needs_plain > 10);
}
