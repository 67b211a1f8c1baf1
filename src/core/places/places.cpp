#include "core/places/places.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/hash.hpp"
#include "core/parallel.hpp"

namespace tilegen {

Grid<float> slope_of(const Grid<float>& heights, int threads) {
    Grid<float> s(heights.width(), heights.height(), 0.0f);
    const int w = heights.width(), h = heights.height();
    parallel_for(h, threads, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < w; ++x) {
                const float v = heights(x, y);
                float m = 0;
                if (x > 0) m = std::max(m, std::abs(v - heights(x - 1, y)));
                if (x + 1 < w) m = std::max(m, std::abs(v - heights(x + 1, y)));
                if (y > 0) m = std::max(m, std::abs(v - heights(x, y - 1)));
                if (y + 1 < h) m = std::max(m, std::abs(v - heights(x, y + 1)));
                s(x, y) = m * 100.0f;
            }
    });
    return s;
}

GridCells<std::uint8_t> place_mask(int width, int height, const std::vector<Place>& places) {
    GridCells<std::uint8_t> m(static_cast<std::size_t>(width) * height, 0);
    for (const Place& p : places)
        for (int y = p.y; y < p.y + p.h; ++y)
            for (int x = p.x; x < p.x + p.w; ++x)
                if (x >= 0 && y >= 0 && x < width && y < height)
                    m[static_cast<std::size_t>(y) * width + x] = 1;
    return m;
}

GridCells<std::uint16_t> class_distance(const ClassGrid& classes, std::uint32_t mask, int cap,
                                        int threads) {
    const int w = classes.width(), h = classes.height();
    const auto far = static_cast<std::uint16_t>(cap + 1);
    GridCells<std::uint16_t> d(classes.size()); // every cell written below
    // Row y's distance within the row (capped at far): the nearest class cell to the left and to
    // the right.
    const auto row_distance = [&](int y, std::uint16_t* out) {
        const ClassId* cr = classes.row(y);
        int last = -far; // x - last >= far: none within reach
        for (int x = 0; x < w; ++x) {
            if (mask >> cr[x] & 1u) last = x;
            out[x] = static_cast<std::uint16_t>(std::min(x - last, static_cast<int>(far)));
        }
        int next = w + far;
        for (int x = w - 1; x >= 0; --x) {
            if (mask >> cr[x] & 1u) next = x;
            if (next - x < out[x]) out[x] = static_cast<std::uint16_t>(next - x);
        }
    };
    // Then per column: min over rows y' of (row distance at y') + |y - y'|, as a sweep up (rows
    // below) and a sweep down (rows above) over the band and `cap` rows either side of it (a row
    // further away is more than cap steps from every cell of the band).
    parallel_for(h, threads, [&](int y0, int y1) {
        const int top = std::max(0, y0 - cap), bottom = std::min(h, y1 + cap);
        // Rows outside the band: in a buffer of the band's own (the neighbours' rows are theirs).
        std::vector<std::uint16_t> halo(static_cast<std::size_t>(y0 - top + bottom - y1) * w);
        const auto row = [&](int y) {
            if (y < y0) return halo.data() + static_cast<std::size_t>(y - top) * w;
            if (y >= y1) return halo.data() + static_cast<std::size_t>(y0 - top + y - y1) * w;
            return d.data() + static_cast<std::size_t>(y) * w;
        };
        const std::uint16_t* below = nullptr;
        for (int y = bottom - 1; y >= top; --y) {
            std::uint16_t* r = row(y);
            row_distance(y, r);
            if (below)
                for (int x = 0; x < w; ++x)
                    r[x] = std::min(r[x], static_cast<std::uint16_t>(below[x] + 1));
            below = r;
        }
        for (int y = top + 1; y < y1; ++y) {
            std::uint16_t* r = row(y);
            const std::uint16_t* above = row(y - 1);
            for (int x = 0; x < w; ++x)
                r[x] = std::min(r[x], static_cast<std::uint16_t>(above[x] + 1));
        }
    });
    return d;
}

PlacesResult place_places(const ClassGrid& classes, const Grid<float>& heights,
                          const std::vector<PlaceRule>& rules, std::uint64_t seed,
                          const Grid<float>* slope_given, int threads) {
    PlacesResult result;
    const int w = classes.width(), h = classes.height();
    const std::size_t n = classes.size();
    GridCells<std::uint8_t> occupied(n, 0); // pooled map-sized buffers (grid.hpp)
    Grid<float> slope;
    bool need_slope = false;
    for (const PlaceRule& r : rules)
        need_slope = need_slope || (r.flat > 0 && !heights.empty());
    if (need_slope && !slope_given) slope = slope_of(heights);
    const Grid<float>& slopes = slope_given ? *slope_given : slope;

    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        const PlaceRule& rule = rules[ri];
        result.placed.push_back(0);
        if (rule.count <= 0) continue;
        const int fw = rule.footprint_w, fh = rule.footprint_h;
        GridCells<std::uint16_t> near;
        if (rule.near) near = class_distance(classes, rule.near, rule.near_distance, threads);
        const std::uint64_t stream = hash_values(seed, 0x706c61636573ull /* "places" */, ri);
        const int side = std::max(8, static_cast<int>(std::ceil(rule.min_distance)));
        const int bw = (w + side - 1) / side, bh = (h + side - 1) / side;
        struct Candidate {
            std::uint64_t score = std::numeric_limits<std::uint64_t>::max();
            std::uint32_t index = 0;
        };
        std::vector<Candidate> best(static_cast<std::size_t>(bw) * bh);
        // A footprint cell: on the rule's classes, free, and (with `flat`) no steeper than it.
        const bool flat = need_slope && rule.flat > 0;
        const ClassId* cls = classes.cells().data();
        const float* slope_cells = flat ? slopes.cells().data() : nullptr;
        const auto covered = [&](std::size_t c) {
            return (rule.on >> cls[c] & 1u) && !occupied[c] &&
                   !(flat && slope_cells[c] > rule.flat);
        };
        std::vector<int> column_bucket(static_cast<std::size_t>(w)); // x / side
        for (int x = 0; x < w; ++x)
            column_bucket[static_cast<std::size_t>(x)] = x / side;
        // Groups of kBucketRowsPerItem bucket rows handed out one at a time to the threads (the
        // anchors lie unevenly over the map: halves of it made unequal bands): each group writes
        // only its own buckets, and a bucket keeps the least (score, index) whatever order its
        // candidates come in.
        constexpr int kBucketRowsPerItem = 2;
        const int items = (bh + kBucketRowsPerItem - 1) / kBucketRowsPerItem;
        for_each_item(items, threads, [&](int item) {
            const int by0 = item * kBucketRowsPerItem;
            const int by1 = std::min(bh, by0 + kBucketRowsPerItem);
            std::vector<std::uint16_t> rows; // for_each_covered_anchor's buffer
            int bucket_y = -1;               // the row of the last candidate
            std::size_t bucket_row = 0;      // (bucket_y / side) * bw
            for_each_covered_anchor(
                w, h, fw, fh, by0 * side, std::min(h, by1 * side), rows, covered,
                [&](int x, int y) {
                    if (rule.face && y + fh >= h) return;
                    bool ok = true;
                    if (ok && rule.face)
                        for (int xx = x; ok && xx < x + fw; ++xx)
                            ok = (rule.face >> classes(xx, y + fh) & 1u) != 0;
                    if (ok && rule.near) {
                        bool close = false;
                        for (int yy = y; !close && yy < y + fh; ++yy)
                            for (int xx = x; !close && xx < x + fw; ++xx)
                                close = near[static_cast<std::size_t>(yy) * w + xx] <=
                                        rule.near_distance;
                        ok = close;
                    }
                    if (!ok) return;
                    const Candidate c{hash_position(stream, x, y),
                                      static_cast<std::uint32_t>(y * w + x)};
                    if (y != bucket_y) {
                        bucket_y = y;
                        bucket_row = static_cast<std::size_t>(y / side) * bw;
                    }
                    Candidate& b =
                        best[bucket_row +
                             static_cast<std::size_t>(column_bucket[static_cast<std::size_t>(x)])];
                    if (c.score < b.score || (c.score == b.score && c.index < b.index)) b = c;
                });
        });
        std::vector<Candidate> kept;
        for (const Candidate& c : best)
            if (c.score != std::numeric_limits<std::uint64_t>::max()) kept.push_back(c);
        std::sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) {
            return a.score != b.score ? a.score < b.score : a.index < b.index;
        });
        const double md2 = rule.min_distance * rule.min_distance;
        for (const Candidate& c : kept) {
            if (result.placed.back() >= rule.count) break;
            const int x = static_cast<int>(c.index % w), y = static_cast<int>(c.index / w);
            bool ok = true;
            for (const Place& p : result.places) {
                const double dx = p.x - x, dy = p.y - y;
                if (dx * dx + dy * dy < md2) ok = false;
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

} // namespace tilegen
