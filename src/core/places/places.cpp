#include "core/places/places.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/places/anchor_rows.hpp"

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

struct Candidate {
    std::uint64_t score = std::numeric_limits<std::uint64_t>::max();
    std::uint32_t index = 0;
    bool none() const { return score == std::numeric_limits<std::uint64_t>::max(); }
    // The decision's order: lower (score, index) first.
    bool before(const Candidate& o) const {
        return score != o.score ? score < o.score : index < o.index;
    }
};
constexpr auto kBefore = [](const Candidate& a, const Candidate& b) { return a.before(b); };

// Up to this near_distance `near` is looked up around each candidate that gets that far
// (near_class_within); beyond it class_distance's grid is made (a look-up per footprint cell).
constexpr int kDirectNear = 32;

std::uint64_t rule_stream(std::uint64_t seed, std::size_t ri) {
    return hash_values(seed, 0x706c61636573ull /* "places" */, ri);
}
int bucket_side(const PlaceRule& rule) {
    return std::max(8, static_cast<int>(std::ceil(rule.min_distance)));
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

// The plain decision's buckets for one rule with `places` on the map: one scan of the map for the
// rule's anchors (bands of bucket rows on the threads), each bucket keeping its least candidate.
std::vector<Candidate> plain_buckets(const PlaceRule& rule, std::uint64_t stream,
                                     const ClassGrid& classes, const float* slopes,
                                     const std::vector<Place>& places, int threads) {
    const int w = classes.width(), h = classes.height();
    const int fw = rule.footprint_w, fh = rule.footprint_h;
    const GridCells<std::uint8_t> occupied = place_mask(w, h, places);
    GridCells<std::uint16_t> near;
    if (rule.near) near = class_distance(classes, rule.near, rule.near_distance, threads);
    const auto near_ok = [&](int x, int y) { return near_in_grid(near, w, rule, x, y); };
    const int side = bucket_side(rule);
    const int bw = (w + side - 1) / side, bh = (h + side - 1) / side;
    std::vector<Candidate> best(static_cast<std::size_t>(bw) * bh);
    const ClassId* cls = classes.cells().data();
    const auto covered = [&](std::size_t c) {
        return (rule.on >> cls[c] & 1u) && !occupied[c] && !(slopes && slopes[c] > rule.flat);
    };
    // Pairs of bucket rows handed out one at a time (anchors lie unevenly over the map); each
    // writes only its own buckets.
    const int items = (bh + 1) / 2;
    for_each_item(items, threads, [&](int item) {
        const int by0 = item * 2, by1 = std::min(bh, by0 + 2);
        std::vector<std::uint16_t> rows;
        for_each_covered_anchor(
            w, h, fw, fh, by0 * side, std::min(h, by1 * side), rows, covered, [&](int x, int y) {
                if (!face_and_near_ok(rule, classes, x, y, near_ok)) return;
                const Candidate c{hash_position(stream, x, y),
                                  static_cast<std::uint32_t>(y * w + x)};
                Candidate& b = best[static_cast<std::size_t>(y / side) * bw + x / side];
                if (c.before(b)) b = c;
            });
    });
    return best;
}

// For x in 0..w-1 with bit k of bits[x] set: the score hash_position(stream, x, y), and
// take(x, score) when score <= limit (read once per run of 64 cells: take may lower it, and a
// higher limit only takes more). Returns whether some such x scored above the limit. Runs with
// the bit somewhere in them are scored by low_scores (vectorised); the few low ones hashed again.
template <class Take>
bool for_each_low_hash(const std::uint8_t* bits, int w, int k, std::uint64_t stream, int y,
                       const std::uint64_t& limit, Take&& take) {
    constexpr int kRun = 64;
    const std::uint64_t any = 0x0101010101010101ull << k;
    std::uint8_t low[kRun + 8] = {};
    bool above = false;
    for (int x0 = 0; x0 < w; x0 += kRun) {
        const int n = std::min(kRun, w - x0);
        std::uint64_t seen = 0; // bit k of the run's cells, ORed (a byte at a time)
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            std::uint64_t word;
            std::memcpy(&word, bits + x0 + i, sizeof word);
            seen |= word;
        }
        for (; i < n; ++i)
            seen |= bits[x0 + i];
        if ((seen & any) == 0) continue;
        above = low_scores(stream, x0, y, n, bits + x0, k, limit, low) || above;
        for (i = 0; i < n; i += 8) { // the few low scores: eight flags at a time
            std::uint64_t word;
            std::memcpy(&word, low + i, sizeof word);
            if (n - i < 8) word &= (std::uint64_t{1} << 8 * (n - i)) - 1; // past the run: stale
            for (; word; word &= word - 1) {
                const int at = i + std::countr_zero(word) / 8;
                take(x0 + at, hash_position(stream, x0 + at, y));
            }
        }
    }
    return above;
}

// A rule's least candidates with no place on the map, by (score, index).
struct Least {
    std::vector<Candidate> list; // sorted; every candidate before the last one listed is listed
    bool complete = true;        // every candidate is listed
};

// The least candidates of the rules `group` (at most AnchorRows::kMaxRules, at most one with a
// near_distance above kDirectNear) with no place on the map, at most `cut` per rule unless all
// are listed: one pass of AnchorRows over the map in bands of rows handed out to the threads.
// Each band hashes its anchors and keeps those not beaten by `cut` others known so far (of its
// own, or of a band finished earlier: a shared bound); only those get the `face` and `near`
// tests. Whatever the order of the bands, the least `cut` candidates of the map are never
// dropped, so the lists are the same at any thread count.
void least_candidates(const std::vector<PlaceRule>& rules, const std::vector<std::size_t>& group,
                      std::uint64_t seed, const ClassGrid& classes, const float* slopes,
                      std::size_t cut, std::vector<Least>& least, int threads) {
    const int w = classes.width(), h = classes.height();
    const int n = static_cast<int>(group.size());
    GridCells<std::uint16_t> near; // the group's one far-reaching near rule's class_distance
    std::vector<AnchorRule> spec;
    std::vector<std::uint64_t> stream(n);
    for (int k = 0; k < n; ++k) {
        const PlaceRule& r = rules[group[k]];
        if (r.near && r.near_distance > kDirectNear)
            near = class_distance(classes, r.near, r.near_distance, threads);
        const bool limited = slopes && r.flat > 0;
        spec.push_back({r.on, limited, limited ? float_at_or_below(r.flat) : 0.0f, r.footprint_w,
                        r.footprint_h, r.face});
        stream[k] = rule_stream(seed, group[k]);
    }
    std::vector<std::atomic<std::uint64_t>> bound(n); // per rule: `cut` candidates score <= it
    for (auto& b : bound)
        b.store(std::numeric_limits<std::uint64_t>::max(), std::memory_order_relaxed);
    const auto lower_bound_to = [&](int k, std::uint64_t v) {
        std::uint64_t cur = bound[k].load(std::memory_order_relaxed);
        while (v < cur && !bound[k].compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
        }
    };
    constexpr int kRowsPerItem = 64; // anchor rows per work item
    const int items = (h + kRowsPerItem - 1) / kRowsPerItem;
    std::mutex merge;
    for_each_item(items, threads, [&](int item) {
        const int a0 = item * kRowsPerItem, a1 = std::min(h, a0 + kRowsPerItem);
        std::vector<std::vector<Candidate>> kept(n);
        std::vector<std::uint64_t> limit(n,
                                         std::numeric_limits<std::uint64_t>::max()); // drop above
        std::vector<char> dropped(n, 0); // (1 when something was dropped)
        // Down to the least `cut`: the cut-th least score bounds every later keeper.
        const auto shrink = [&](int k) {
            std::vector<Candidate>& v = kept[k];
            if (v.size() <= cut) return;
            std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(cut - 1), v.end(),
                             kBefore);
            const std::uint64_t at = v[cut - 1].score;
            v.resize(cut);
            dropped[k] = 1;
            limit[k] = std::min(limit[k], at);
            lower_bound_to(k, at);
        };
        AnchorRows anchor_rows(spec, w);
        anchor_rows.scan(
            classes.cells().data(), slopes, h, a0, a1, [&](int y, const std::uint8_t* bits) {
                for (int k = 0; k < n; ++k) {
                    const PlaceRule& rule = rules[group[k]];
                    const int fw = rule.footprint_w, fh = rule.footprint_h;
                    const auto near_ok = [&](int x) {
                        if (rule.near_distance <= kDirectNear)
                            return near_class_within(classes, rule.near, x, y, fw, fh,
                                                     rule.near_distance);
                        return near_in_grid(near, w, rule, x, y);
                    };
                    limit[k] = std::min(limit[k], bound[k].load(std::memory_order_relaxed));
                    // The anchor rows passed `face` already (AnchorRule::face): only `near` left.
                    const auto take = [&](int x, std::uint64_t score) {
                        if (rule.near && !near_ok(x)) return;
                        kept[k].push_back({score, static_cast<std::uint32_t>(y * w + x)});
                        if (kept[k].size() >= 2 * cut) shrink(k);
                    };
                    dropped[k] |= for_each_low_hash(bits, w, k, stream[k], y, limit[k], take);
                }
            });
        for (int k = 0; k < n; ++k)
            shrink(k);
        const std::lock_guard lock(merge);
        for (int k = 0; k < n; ++k) {
            Least& l = least[group[k]];
            l.list.insert(l.list.end(), kept[k].begin(), kept[k].end());
            l.complete = l.complete && !dropped[k];
        }
    });
    for (std::size_t ri : group) {
        Least& l = least[ri];
        std::sort(l.list.begin(), l.list.end(), kBefore);
        if (!l.complete && l.list.size() > cut) l.list.resize(cut);
    }
}

// Takes `kept` (one candidate per bucket, in order) while the rule's count is not met and each
// keeps min_distance to every place so far and overlaps none.
void accept(const PlaceRule& rule, int ri, int w, const std::vector<Candidate>& kept,
            PlacesResult& result) {
    const double md2 = rule.min_distance * rule.min_distance;
    for (const Candidate& c : kept) {
        if (result.placed.back() >= rule.count) break;
        const int x = static_cast<int>(c.index % w), y = static_cast<int>(c.index / w);
        bool ok = true;
        for (const Place& p : result.places) {
            const double dx = p.x - x, dy = p.y - y;
            if (dx * dx + dy * dy < md2) ok = false;
            if (overlaps(p, x, y, rule.footprint_w, rule.footprint_h)) ok = false;
        }
        if (!ok) continue;
        result.places.push_back({ri, x, y, rule.footprint_w, rule.footprint_h});
        ++result.placed.back();
    }
}

} // namespace

PlacesResult place_places_cut(const ClassGrid& classes, const Grid<float>& heights,
                              const std::vector<PlaceRule>& rules, std::uint64_t seed,
                              const Grid<float>* slope_given, int threads, int cut) {
    PlacesResult result;
    const int w = classes.width(), h = classes.height();
    Grid<float> slope;
    bool need_slope = false;
    for (const PlaceRule& r : rules)
        need_slope = need_slope || (r.flat > 0 && !heights.empty());
    if (need_slope && !slope_given) slope = slope_of(heights);
    const float* slopes =
        need_slope ? (slope_given ? *slope_given : slope).cells().data() : nullptr;

    // Every rule's least candidates with no place on the map, in groups of rules sharing a pass
    // (one class_distance grid alive at a time: a second far-reaching `near` starts a group).
    std::vector<Least> least(rules.size());
    std::vector<std::vector<std::size_t>> groups;
    bool group_grid = false;
    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        const PlaceRule& rule = rules[ri];
        if (rule.count <= 0) continue;
        const bool grid = rule.near && rule.near_distance > kDirectNear;
        if (groups.empty() || groups.back().size() == AnchorRows::kMaxRules ||
            (grid && group_grid)) {
            groups.emplace_back();
            group_grid = false;
        }
        groups.back().push_back(ri);
        group_grid = group_grid || grid;
    }
    for (const std::vector<std::size_t>& group : groups) {
        int most = 0;
        for (std::size_t ri : group)
            most = std::max(most, rules[ri].count);
        const std::size_t c =
            cut > 0 ? static_cast<std::size_t>(cut) : static_cast<std::size_t>(256 + 16 * most);
        least_candidates(rules, group, seed, classes, slopes, c, least, threads);
    }

    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        const PlaceRule& rule = rules[ri];
        result.placed.push_back(0);
        if (rule.count <= 0) continue;
        const int side = bucket_side(rule), bw = (w + side - 1) / side;
        // The listed candidates on free cells, the first of each bucket: the buckets' least
        // candidates, in order, up to the last one listed (a bucket with none listed has its least
        // after it).
        std::vector<Candidate> kept;
        std::vector<char> seen(static_cast<std::size_t>(bw) * ((h + side - 1) / side), 0);
        for (const Candidate& c : least[ri].list) {
            const int x = static_cast<int>(c.index % w), y = static_cast<int>(c.index / w);
            bool free = true;
            for (const Place& p : result.places)
                free = free && !overlaps(p, x, y, rule.footprint_w, rule.footprint_h);
            if (!free) continue;
            char& bucket = seen[static_cast<std::size_t>(y / side) * bw + x / side];
            if (bucket) continue;
            bucket = 1;
            kept.push_back(c);
        }
        const std::size_t before = result.places.size();
        accept(rule, static_cast<int>(ri), w, kept, result);
        if (result.placed.back() >= rule.count || least[ri].complete) continue;
        // The list ran out first: the plain scan of every bucket.
        result.places.resize(before);
        result.placed.back() = 0;
        const std::vector<Place> earlier = result.places;
        kept.clear();
        for (const Candidate& c : plain_buckets(rule, rule_stream(seed, ri), classes,
                                                rule.flat > 0 ? slopes : nullptr, earlier, threads))
            if (!c.none()) kept.push_back(c);
        std::sort(kept.begin(), kept.end(), kBefore);
        accept(rule, static_cast<int>(ri), w, kept, result);
    }
    return result;
}

PlacesResult place_places(const ClassGrid& classes, const Grid<float>& heights,
                          const std::vector<PlaceRule>& rules, std::uint64_t seed,
                          const Grid<float>* slope_given, int threads) {
    return place_places_cut(classes, heights, rules, seed, slope_given, threads, 0);
}

} // namespace tilegen
