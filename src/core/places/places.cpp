#include "core/places/places.hpp"

#include <algorithm>
#include <cmath>

#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/places/anchor_order.hpp"

namespace tilegen {

void slope_row(const float* row, const float* up, const float* down, int w, float* out) {
    // A missing neighbour row is the row itself: max(m, |v - v|) is m (m >= 0; an infinite or
    // NaN v gives NaN, and std::max keeps m), so every cell takes the same steps.
    if (!up) up = row;
    if (!down) down = row;
    const auto cell = [&](int x, bool left, bool right) {
        const float v = row[x];
        float m = 0;
        if (left) m = std::max(m, std::abs(v - row[x - 1]));
        if (right) m = std::max(m, std::abs(v - row[x + 1]));
        m = std::max(m, std::abs(v - up[x]));
        m = std::max(m, std::abs(v - down[x]));
        return m * 100.0f;
    };
    if (w <= 0) return;
    out[0] = cell(0, false, w > 1);
    for (int x = 1; x + 1 < w; ++x) // no test per cell: the compiler vectorises this loop
        out[x] = cell(x, true, true);
    if (w > 1) out[w - 1] = cell(w - 1, true, false);
}

Grid<float> slope_of(const Grid<float>& heights, int threads) {
    const int w = heights.width(), h = heights.height();
    Grid<float> s = Grid<float>::uninitialised(w, h); // every cell written below
    parallel_for(h, threads, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y)
            slope_row(heights.row(y), y > 0 ? heights.row(y - 1) : nullptr,
                      y + 1 < h ? heights.row(y + 1) : nullptr, w, s.row(y));
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

bool near_class_within(const ClassGrid& classes, std::uint32_t mask, int x, int y, int fw, int fh,
                       int d) {
    const int w = classes.width(), h = classes.height();
    for (int yy = std::max(0, y - d); yy < std::min(h, y + fh + d); ++yy) {
        const int dy = yy < y ? y - yy : yy >= y + fh ? yy - (y + fh - 1) : 0;
        const int reach = d - dy; // columns x - reach .. x + fw - 1 + reach are within d
        const ClassId* row = classes.row(yy);
        for (int xx = std::max(0, x - reach); xx < std::min(w, x + fw + reach); ++xx)
            if (mask >> row[xx] & 1u) return true;
    }
    return false;
}

namespace {

// Up to this near_distance `near` is looked up around each anchor tested (near_class_within);
// beyond it the marks' scan makes class_distance's grid (a look-up per footprint cell).
constexpr int kDirectNear = 32;

std::uint64_t rule_stream(std::uint64_t seed, std::size_t ri) {
    return hash_values(seed, 0x706c61636573ull /* "places" */, ri);
}

// `face` and `near` for the anchor (x, y) of a covered footprint; near_ok(x, y): the near test
// (read only with `near`).
template <class NearOk>
bool face_and_near_ok(const PlaceRule& rule, const ClassGrid& classes, int x, int y,
                      NearOk&& near_ok) {
    const int fw = rule.footprint_w, fh = rule.footprint_h;
    if (rule.face) {
        if (y + fh >= classes.height()) return false;
        for (int xx = x; xx < x + fw; ++xx)
            if ((rule.face >> classes(xx, y + fh) & 1u) == 0) return false;
    }
    return !rule.near || near_ok(x, y);
}

// Whether some footprint cell of `rule` anchored at (x, y) has a class_distance (`near`, of a
// w-wide map) within the rule's near_distance.
bool near_in_grid(const GridCells<std::uint16_t>& near, int w, const PlaceRule& rule, int x,
                  int y) {
    for (int yy = y; yy < y + rule.footprint_h; ++yy)
        for (int xx = x; xx < x + rule.footprint_w; ++xx)
            if (near[static_cast<std::size_t>(yy) * w + xx] <= rule.near_distance) return true;
    return false;
}

bool overlaps(const Place& p, int x, int y, int w, int h) {
    return x < p.x + p.w && p.x < x + w && y < p.y + p.h && p.y < y + h;
}

// Whether cell c may lie under the rule's footprint: on `on`, not steeper than `flat` (slopes:
// null without a limit). Occupancy is the caller's.
bool cell_fits(const PlaceRule& rule, const ClassId* cells, const float* slopes, std::size_t c) {
    return (rule.on >> cells[c] & 1u) && !(slopes && slopes[c] > rule.flat);
}

// The tests of the anchor (x, y) that the places still to come do not change: the footprint
// inside the map, every cell of it fits (cell_fits); `face`; `near` within kDirectNear (looked at
// around the footprint). Not overlapping a place is keeps_apart's, which every taken anchor passes.
bool anchor_ok(const PlaceRule& rule, const ClassGrid& classes, const float* slopes, int x, int y) {
    const int w = classes.width(), fw = rule.footprint_w, fh = rule.footprint_h;
    if (x + fw > w || y + fh > classes.height()) return false;
    const ClassId* cells = classes.cells().data();
    for (int yy = y; yy < y + fh; ++yy)
        for (int xx = x; xx < x + fw; ++xx)
            if (!cell_fits(rule, cells, slopes, static_cast<std::size_t>(yy) * w + xx))
                return false;
    return face_and_near_ok(rule, classes, x, y, [&](int ax, int ay) {
        return near_class_within(classes, rule.near, ax, ay, fw, fh, rule.near_distance);
    });
}

// Whether the anchor (x, y) keeps min_distance to every place so far and overlaps none.
bool keeps_apart(const PlaceRule& rule, const std::vector<Place>& places, int x, int y) {
    const double md2 = rule.min_distance * rule.min_distance;
    for (const Place& p : places) {
        const double dx = p.x - x, dy = p.y - y;
        if (dx * dx + dy * dy < md2 || overlaps(p, x, y, rule.footprint_w, rule.footprint_h))
            return false;
    }
    return true;
}

// Per cell: 1 where anchor_ok holds and the footprint is on no cell of `places` (any
// near_distance): one scan of the map's covered anchors (for_each_covered_anchor), bands of rows
// on the threads, each writing the marks of its own anchor rows.
GridCells<std::uint8_t> anchor_marks(const PlaceRule& rule, const ClassGrid& classes,
                                     const float* slopes, const std::vector<Place>& places,
                                     int threads) {
    const int w = classes.width(), h = classes.height();
    const GridCells<std::uint8_t> occupied = place_mask(w, h, places);
    GridCells<std::uint16_t> near;
    const bool direct = rule.near_distance <= kDirectNear;
    if (rule.near && !direct)
        near = class_distance(classes, rule.near, rule.near_distance, threads);
    const auto near_ok = [&](int x, int y) {
        if (direct)
            return near_class_within(classes, rule.near, x, y, rule.footprint_w, rule.footprint_h,
                                     rule.near_distance);
        return near_in_grid(near, w, rule, x, y);
    };
    const ClassId* cls = classes.cells().data();
    const auto covered = [&](std::size_t c) {
        return !occupied[c] && cell_fits(rule, cls, slopes, c);
    };
    GridCells<std::uint8_t> marks(classes.size(), 0);
    parallel_for(h, threads, [&](int y0, int y1) {
        std::vector<std::uint16_t> rows;
        for_each_covered_anchor(w, h, rule.footprint_w, rule.footprint_h, y0, y1, rows, covered,
                                [&](int x, int y) {
                                    if (face_and_near_ok(rule, classes, x, y, near_ok))
                                        marks[static_cast<std::size_t>(y) * w + x] = 1;
                                });
    });
    return marks;
}

// One rule's walk: the anchors in the rule's AnchorOrder, each taken when it passes anchor_ok and
// keeps_apart, until the count is met or every rank is walked. The first `budget` ranks are
// tested one by one; then the rule's anchors are marked in one scan (anchor_marks, the places so
// far on the map) and the walk goes on over the marks: the same anchors either way.
void walk_rule(const PlaceRule& rule, int ri, std::uint64_t seed, const ClassGrid& classes,
               const float* slopes, std::uint64_t budget, int threads, PlacesResult& result) {
    const int w = classes.width();
    const std::uint64_t n = classes.size();
    const AnchorOrder order(rule_stream(seed, static_cast<std::size_t>(ri)), n);
    const std::uint64_t domain = order.domain();
    const auto take = [&](std::uint64_t c) {
        const int x = static_cast<int>(c % static_cast<std::uint64_t>(w));
        const int y = static_cast<int>(c / static_cast<std::uint64_t>(w));
        if (!keeps_apart(rule, result.places, x, y)) return;
        result.places.push_back({ri, x, y, rule.footprint_w, rule.footprint_h});
        ++result.placed.back();
    };
    // A far-reaching `near` is read from class_distance's grid: the scan from the start.
    const bool direct = !rule.near || rule.near_distance <= kDirectNear;
    const std::uint64_t tested = direct ? std::min(domain, budget) : 0;
    std::uint64_t rank = 0;
    for (; rank < tested && result.placed.back() < rule.count; ++rank) {
        const std::uint64_t c = order.cell(rank);
        if (c >= n) continue;
        const int x = static_cast<int>(c % static_cast<std::uint64_t>(w));
        const int y = static_cast<int>(c / static_cast<std::uint64_t>(w));
        if (anchor_ok(rule, classes, slopes, x, y)) take(c);
    }
    if (result.placed.back() >= rule.count || rank >= domain) return;
    const GridCells<std::uint8_t> marks =
        anchor_marks(rule, classes, slopes, result.places, threads);
    for (; rank < domain && result.placed.back() < rule.count; ++rank)
        if (const std::uint64_t c = order.cell(rank); c < n && marks[c]) take(c);
}

} // namespace

PlacesResult place_places_walked(const ClassGrid& classes, const Grid<float>& heights,
                                 const std::vector<PlaceRule>& rules, std::uint64_t seed,
                                 const Grid<float>* slope_given, int threads,
                                 std::uint64_t walk_budget) {
    PlacesResult result;
    Grid<float> slope;
    bool need_slope = false;
    for (const PlaceRule& r : rules)
        need_slope = need_slope || (r.flat > 0 && !heights.empty());
    if (need_slope && !slope_given) slope = slope_of(heights, threads);
    const float* slopes =
        need_slope ? (slope_given ? *slope_given : slope).cells().data() : nullptr;
    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        const PlaceRule& rule = rules[ri];
        result.placed.push_back(0);
        if (rule.count <= 0 || classes.size() == 0) continue;
        walk_rule(rule, static_cast<int>(ri), seed, classes, rule.flat > 0 ? slopes : nullptr,
                  walk_budget, threads, result);
    }
    return result;
}

PlacesResult place_places(const ClassGrid& classes, const Grid<float>& heights,
                          const std::vector<PlaceRule>& rules, std::uint64_t seed,
                          const Grid<float>* slope_given, int threads) {
    return place_places_walked(classes, heights, rules, seed, slope_given, threads,
                               kPlacesWalkBudget);
}

} // namespace tilegen
