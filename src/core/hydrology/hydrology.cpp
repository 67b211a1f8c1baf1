#include "core/hydrology/hydrology.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <future>
#include <limits>
#include <unordered_map>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/hash.hpp"
#include "core/hydrology/basin_flood.hpp"
#include "core/parallel.hpp"

namespace tilegen {

namespace {

// Filled depressions (4-connected cells the fill raised) of at least min_area cells that hold
// and touch no `into` cell: flood_basins groups the basins whose raised cells touch
// (FlowField::depression), so a lake is the raised cells of a group. A basin's raised cells are
// connected, its pit among them (each descends to the pit through raised cells, the levels
// falling), so a flood from the pit over the basin's raised cells finds them. Each basin is
// flooded until one of its cells is wet (in or beside an `into` cell: its group is no lake; sea
// basins stop at their pit), so only the dry depressions (a few % of the cells) are read whole,
// never the whole map. Ranges of basins on `threads` threads: a basin's flood marks its own cells
// only; a range skips the basins of groups it found wet, so ranges may flood more basins than one
// pass, whose cells are unmarked again like any other of a wet group: the same lakes at any count.
void find_lakes(const FlowField& f, int min_area, HydrologyResult& out, int threads) {
    const int w = f.level.width(), h = f.level.height();
    const std::size_t basins = f.basins;
    const std::uint16_t* lv = f.level.cells().data();
    const std::uint16_t* water = f.water.data();
    const std::uint32_t* basin = f.basin.cells().data();
    const std::uint32_t* group = f.depression.data();
    const std::uint8_t* into = out.into.cells().data();
    const std::size_t uw = static_cast<std::size_t>(w);
    // Raised (filled > level) cells of basin b: filled = max(level, water[b]).
    // A depression whose raised cells hold or touch an `into` cell (sea, lakes of water) is no
    // lake: its water is that sea's, and a lake there would be a sliver along the shore.
    // Only interior cells are flooded (the edge cells are all of basin 0): their 4-neighbours
    // lie on the map.
    auto wet = [&](std::size_t c) {
        return (into[c] | into[c - uw] | into[c - 1] | into[c + 1] | into[c + uw]) != 0;
    };
    // Marks the cells flooded (1), then keeps the mark on the lakes' cells only.
    out.lake_mask = Grid<std::uint8_t>(w, h, 0);
    std::uint8_t* mask = out.lake_mask.cells().data();
    struct Flooded {
        std::uint32_t basin;
        std::size_t begin, end; // its cells in `cells`
        bool whole;             // all its raised cells (no wet one met)
    };
    struct Floods {
        std::vector<std::uint8_t> group_wet; // per group: a basin of it met a wet cell
        std::vector<std::uint64_t> area;     // per group: the cells of its whole floods
        std::vector<std::uint32_t> cells;    // flooded cells, basin after basin
        std::vector<Flooded> flooded;
    };
    // Basins 1.. in `parts` ranges, one per thread.
    const int parts = std::max(1, threads);
    auto range_start = [&](int p) {
        return static_cast<std::uint32_t>(1 + (basins - 1) * static_cast<std::size_t>(p) /
                                                  static_cast<std::size_t>(parts));
    };
    const std::vector<Floods> ranges = parallel_bands(parts, parts, [&](int p0, int p1) {
        Floods r{
            std::vector<std::uint8_t>(basins, 0), std::vector<std::uint64_t>(basins, 0), {}, {}};
        for (std::uint32_t b = range_start(p0); b < range_start(p1); ++b) {
            const std::uint32_t g = group[b], pit = f.pit[b];
            const std::uint16_t wb = water[b];
            if (r.group_wet[g] || !(wb > lv[pit])) continue;
            const std::size_t begin = r.cells.size();
            r.cells.push_back(pit);
            mask[pit] = 1;
            bool whole = true;
            for (std::size_t k = begin; k < r.cells.size(); ++k) {
                const std::size_t c = r.cells[k];
                if (wet(c)) {
                    whole = false;
                    break;
                }
                // The basin first: another range's thread may be marking a cell of another basin.
                auto visit = [&](std::size_t q) {
                    if (basin[q] == b && !mask[q] && wb > lv[q]) {
                        mask[q] = 1;
                        r.cells.push_back(static_cast<std::uint32_t>(q));
                    }
                };
                visit(c - uw);
                visit(c - 1);
                visit(c + 1);
                visit(c + uw);
            }
            if (whole)
                r.area[g] += r.cells.size() - begin;
            else
                r.group_wet[g] = 1;
            r.flooded.push_back({b, begin, r.cells.size(), whole});
        }
        return r;
    });
    // The ranges' findings joined: a group is wet when any range found it so; the area of a dry
    // group is the sum of its basins' floods (no range skipped one of them).
    std::vector<std::uint8_t> group_wet(basins, 0);
    std::vector<std::uint64_t> area(basins, 0);
    for (const Floods& r : ranges)
        for (std::size_t g = 0; g < basins; ++g) {
            group_wet[g] |= r.group_wet[g];
            area[g] += r.area[g];
        }
    // Lakes: the dry groups of at least min_area cells. Per lake its open cells (not `into`: the
    // ones the lake class takes; none, as it holds no `into` cell) and its first cell.
    constexpr std::uint32_t kNone = 0xffffffffu;
    std::vector<std::uint32_t> first(basins, kNone);
    std::vector<std::uint64_t> open(basins, 0);
    for (const Floods& r : ranges)
        for (const Flooded& fl : r.flooded) {
            const std::uint32_t g = group[fl.basin];
            const bool lake =
                fl.whole && !group_wet[g] && area[g] >= static_cast<std::uint64_t>(min_area);
            for (std::size_t k = fl.begin; k < fl.end; ++k) {
                const std::uint32_t c = r.cells[k];
                if (!lake) {
                    mask[c] = 0;
                    continue;
                }
                first[g] = std::min(first[g], c);
                open[g] += into[c] ? 0 : 1;
            }
        }
    for (std::size_t g = 0; g < basins; ++g)
        if (first[g] != kNone) out.lakes.push_back({first[g], open[g]});
    std::sort(out.lakes.begin(), out.lakes.end(),
              [](const HydrologyResult::Lake& a, const HydrologyResult::Lake& b) {
                  return a.first < b.first;
              });
}

// The carving and banks shared by both methods: rivers' stems are set; carves `heights` in place
// (each cell written at most once before it is read: a stem cell's own height is read just before
// it is lowered, and the valley's cells are lowered once each, after the rivers') and fills banks.
void carve_and_widen(Grid<float>& heights, const RiverSettings& s, HydrologyResult& out) {
    const std::uint8_t* into = out.into.cells().data();
    auto is_into = [into](std::size_t c) { return into[c] != 0; };
    const int w = heights.width(), h = heights.height();
    const std::uint32_t uw = static_cast<std::uint32_t>(w);
    float* carved = heights.cells().data();
    const float* raw = carved; // a cell's height until it is carved
    const float depth = static_cast<float>(s.carve);
    const float slope = s.method == RiverMethod::agents ? static_cast<float>(s.agent_slope) : 0.0f;
    const bool lakes = !out.lake_mask.empty();
    auto is_lake = [&](std::uint32_t c) { return lakes && out.lake_mask.cells()[c] != 0; };
    // Running minimum along each stem and past it.
    for (RiverPath& r : out.rivers) {
        float prev = std::numeric_limits<float>::infinity();
        for (std::uint32_t c : r.stem) {
            prev = std::min(raw[c] - depth, prev - slope);
            carved[c] = prev;
        }
    }
    // Owner of each river cell (river index).
    std::unordered_map<std::uint32_t, std::uint32_t> owner;
    struct StemCell {
        float carved;
        std::uint32_t cell, river, index;
    };
    std::vector<StemCell> stems;
    for (std::uint32_t ri = 0; ri < out.rivers.size(); ++ri)
        for (std::uint32_t i = 0; i < out.rivers[ri].stem.size(); ++i) {
            const std::uint32_t c = out.rivers[ri].stem[i];
            owner.emplace(c, ri);
            stems.push_back({carved[c], c, ri, i});
        }
    std::sort(stems.begin(), stems.end(), [](const StemCell& a, const StemCell& b) {
        return a.carved != b.carved ? a.carved < b.carved : a.cell < b.cell;
    });
    // Square offsets of each width, nearest first (Chebyshev ring, then Manhattan, dy, dx).
    struct Offset {
        int dx, dy;
    };
    std::vector<std::vector<Offset>> squares(static_cast<std::size_t>(s.width_max) + 1);
    for (int wd = 2; wd <= s.width_max; ++wd) {
        auto& sq = squares[static_cast<std::size_t>(wd)];
        for (int dy = -(wd - 1) / 2; dy <= wd / 2; ++dy)
            for (int dx = -(wd - 1) / 2; dx <= wd / 2; ++dx)
                if (dx || dy) sq.push_back({dx, dy});
        std::sort(sq.begin(), sq.end(), [](const Offset& a, const Offset& b) {
            const auto key = [](const Offset& o) {
                return std::tuple(std::max(std::abs(o.dx), std::abs(o.dy)),
                                  std::abs(o.dx) + std::abs(o.dy), o.dy, o.dx);
            };
            return key(a) < key(b);
        });
    }
    for (const StemCell& sc : stems) {
        RiverPath& r = out.rivers[sc.river];
        const int wd = r.width[sc.index];
        if (wd < 2) continue;
        const int x = static_cast<int>(sc.cell % uw), y = static_cast<int>(sc.cell / uw);
        for (const Offset& o : squares[static_cast<std::size_t>(wd)]) {
            const int px = x + o.dx, py = y + o.dy;
            if (px < 0 || py < 0 || px >= w || py >= h) continue;
            const std::uint32_t p =
                static_cast<std::uint32_t>(py) * uw + static_cast<std::uint32_t>(px);
            if (owner.count(p) || is_lake(p) || is_into(p)) continue;
            // One step towards the stem cell: along the larger offset (x on the diagonal).
            int dx = o.dx, dy = o.dy;
            if (std::abs(dx) >= std::abs(dy))
                dx -= dx > 0 ? 1 : -1;
            else
                dy -= dy > 0 ? 1 : -1;
            const std::uint32_t down =
                static_cast<std::uint32_t>(y + dy) * uw + static_cast<std::uint32_t>(x + dx);
            const auto it = owner.find(down);
            if (it == owner.end() || it->second != sc.river) continue;
            owner.emplace(p, sc.river);
            carved[p] = std::max(carved[sc.cell], carved[down]);
            r.banks.push_back({p, down, sc.index});
        }
    }
    // The valley: cells beside the river (none of them carved yet) lowered by carve / 2, once.
    if (depth > 0) {
        const float half = depth * 0.5f;
        std::vector<std::uint32_t> valley;
        for (const auto& [c, ri] : owner) {
            (void)ri;
            const int x = static_cast<int>(c % uw), y = static_cast<int>(c / uw);
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int px = x + dx, py = y + dy;
                    if (px < 0 || py < 0 || px >= w || py >= h) continue;
                    const std::uint32_t p =
                        static_cast<std::uint32_t>(py) * uw + static_cast<std::uint32_t>(px);
                    if (owner.count(p) || is_into(p)) continue;
                    valley.push_back(p);
                }
        }
        std::sort(valley.begin(), valley.end());
        valley.erase(std::unique(valley.begin(), valley.end()), valley.end());
        for (std::uint32_t p : valley)
            carved[p] = std::min(carved[p], raw[p] - half);
    }
}

std::uint8_t width_of(float flow, double threshold, double largest, const RiverSettings& s) {
    double t = 0;
    if (largest > threshold && flow > threshold)
        t = std::log(flow / threshold) / std::log(largest / threshold);
    const int extra = static_cast<int>(std::floor((s.width_max - s.width_min + 1) * t));
    return static_cast<std::uint8_t>(std::clamp(s.width_min + extra, s.width_min, s.width_max));
}

int river_count(const RiverSettings& s, std::uint64_t seed) {
    const std::uint64_t span = static_cast<std::uint64_t>(s.count_max - s.count_min) + 1;
    return s.count_min + static_cast<int>(hash_values(seed, 0x72697665727321ull) % span);
}

// The cells of row y where a river may end, as bits (see river_end_cells) in words[0..(w + 63) /
// 64). Interior rows 16 cells at a time (SSE2: a byte compare per drain direction selects the
// neighbour drained into); the edge rows and the rest cell by cell.
void river_end_row(const std::uint8_t* down, const std::uint8_t* into, const std::uint8_t* lake,
                   std::size_t w, std::size_t h, std::size_t y, std::uint64_t* words) {
    const std::size_t row = y * w;
    std::fill_n(words, (w + 63) / 64, 0);
    const std::int64_t step[4] = {-static_cast<std::int64_t>(w), -1, 1,
                                  static_cast<std::int64_t>(w)};
    auto ends_at = [&](std::size_t c) {
        const std::uint8_t d = down[c];
        const bool off = (d & kDrainOff) != 0;
        const auto t = static_cast<std::size_t>(off ? static_cast<std::int64_t>(c)
                                                    : static_cast<std::int64_t>(c) + step[d & 3u]);
        return (into[c] | lake[c]) == 0 && (off || (into[t] | lake[t]) != 0);
    };
    std::size_t x = 0;
#if defined(__SSE2__)
    // Interior rows: the loads at c - 1 and c + 16 stay on the map (rows y - 1 and y + 1).
    if (y > 0 && y + 1 < h) {
        auto sink = [&](std::size_t c) {
            return _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(into + c)),
                                _mm_loadu_si128(reinterpret_cast<const __m128i*>(lake + c)));
        };
        auto is = [](__m128i d, int k) {
            return _mm_cmpeq_epi8(d, _mm_set1_epi8(static_cast<char>(k)));
        };
        const __m128i zero = _mm_setzero_si128();
        for (; x + 16 <= w; x += 16) {
            const std::size_t c = row + x;
            const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(down + c));
            // Not 0 where the cell drained into is a sink, or the cell drains off the map.
            __m128i ends = _mm_and_si128(d, _mm_set1_epi8(static_cast<char>(kDrainOff)));
            ends = _mm_or_si128(ends, _mm_and_si128(is(d, drain_north), sink(c - w)));
            ends = _mm_or_si128(ends, _mm_and_si128(is(d, drain_west), sink(c - 1)));
            ends = _mm_or_si128(ends, _mm_and_si128(is(d, drain_east), sink(c + 1)));
            ends = _mm_or_si128(ends, _mm_and_si128(is(d, drain_south), sink(c + w)));
            const __m128i yes =
                _mm_andnot_si128(_mm_cmpeq_epi8(ends, zero), _mm_cmpeq_epi8(sink(c), zero));
            words[x / 64] |=
                static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(yes)))
                << (x % 64);
        }
    }
#endif
    for (; x < w; ++x)
        words[x / 64] |= static_cast<std::uint64_t>(ends_at(row + x)) << (x % 64);
}

// The rivers of one threshold: mouths by flow, each stem climbing to the upstream neighbour of
// most flow; stems shorter than min_length are skipped; at most `wanted`.
// `ends`: the cells where a river may end (river_end_cells), in reading order.
// `flow(c)`: the flow accumulation of cell c.
template <class FlowFn, class IntoFn, class LakeFn>
void pick_rivers(const FlowField& f, const FlowFn& flow, float threshold, int min_length,
                 std::size_t wanted, const std::vector<std::uint32_t>& ends, const IntoFn& is_into,
                 const LakeFn& is_lake, HydrologyResult& out) {
    const int w = f.down.width(), h = f.down.height();
    struct Mouth {
        float flow;
        std::uint32_t cell;
    };
    // A mouth: a cell where a river may end whose flow is not below the threshold (NaN counts
    // as over). Branch-free: each is written and kept by advancing the count.
    std::vector<Mouth> mouths(ends.size());
    std::size_t kept = 0;
    for (std::uint32_t c : ends) {
        const float fc = flow(c);
        mouths[kept] = {fc, c};
        kept += fc < threshold ? 0u : 1u;
    }
    mouths.resize(kept);
    std::sort(mouths.begin(), mouths.end(), [](const Mouth& a, const Mouth& b) {
        return a.flow != b.flow ? a.flow > b.flow : a.cell < b.cell;
    });
    const std::uint32_t uw = static_cast<std::uint32_t>(w);
    for (const Mouth& m : mouths) {
        if (out.rivers.size() >= wanted) break;
        RiverPath r;
        r.mouth_flow = m.flow;
        r.end = drain_target(f, m.cell);
        std::uint32_t cur = m.cell;
        r.stem.push_back(cur);
        for (;;) {
            const std::uint32_t x = cur % uw, y = cur / uw;
            std::int64_t best = -1;
            float best_flow = 0;
            auto consider = [&](std::uint32_t nb) {
                const float fn = flow(nb);
                if (drain_target(f, nb) != cur || fn < threshold || is_lake(nb) || is_into(nb))
                    return;
                if (best < 0 || fn > best_flow || (fn == best_flow && nb < best)) {
                    best = nb;
                    best_flow = fn;
                }
            };
            if (y > 0) consider(cur - uw);
            if (x > 0) consider(cur - 1);
            if (x + 1 < uw) consider(cur + 1);
            if (y + 1 < static_cast<std::uint32_t>(h)) consider(cur + uw);
            if (best < 0) break;
            cur = static_cast<std::uint32_t>(best);
            r.stem.push_back(cur);
        }
        if (r.stem.size() < static_cast<std::size_t>(min_length)) continue;
        std::reverse(r.stem.begin(), r.stem.end());
        out.rivers.push_back(std::move(r));
    }
}

// `f`: the flood of the heights (flood_basins without the filled grid).
void flow_rivers(const Grid<float>& heights, const Grid<float>* rain, const RiverSettings& s,
                 std::uint64_t seed, bool keep_flow, int threads, FlowField f,
                 HydrologyResult& out) {
    const std::uint8_t* into = out.into.cells().data();
    auto is_into = [into](std::size_t c) { return into[c] != 0; };
    const int w = heights.width(), h = heights.height();
    const std::size_t n = heights.size();
    if (s.lake_min_area > 0) find_lakes(f, s.lake_min_area, out, threads);
    // Only the drainage is read from here on: the rest's memory serves the accumulation.
    f.basin = Grid<std::uint32_t>();
    f.level = Grid<std::uint16_t>();
    const bool lakes = !out.lake_mask.empty();
    auto is_lake = [&](std::int64_t c) {
        return lakes && out.lake_mask.cells()[static_cast<std::size_t>(c)] != 0;
    };

    // Flow accumulation: each cell's rain (its value over the mean, or 1) plus its inflows.
    Grid<float> acc_grid;
    if (rain) {
        double total = 0;
        for (float v : rain->cells())
            total += std::max(v, 0.0f);
        const float scale = total > 0 ? static_cast<float>(static_cast<double>(n) / total) : 0.0f;
        Grid<float> weights = Grid<float>::uninitialised(w, h);
        const float* rv = rain->cells().data();
        float* wv = weights.cells().data();
        for (std::size_t i = 0; i < n; ++i)
            wv[i] = std::max(rv[i], 0.0f) * scale;
        acc_grid = accumulate_rain(f, std::move(weights));
    }
    // Without rain, the counts of count_upstream (maps of at most 2^24 cells: whole numbers,
    // flow_accumulation) are read from its words at the few cells the rivers read, unless the
    // flow is kept: no pass turning every word into a float.
    const bool words = !rain && !keep_flow && n <= (std::size_t{1} << 24);
    if (!rain)
        acc_grid = words ? count_upstream(f.down, threads, kUpstreamBand, false)
                         : flow_accumulation(f, nullptr, threads);
    const float* acc = acc_grid.cells().data();
    auto flow = [acc, words](std::size_t c) { return words ? upstream_count(acc + c) : acc[c]; };

    // Mouths: land cells with enough flow draining into `into`, a lake or off the map. When
    // fewer rivers than the count reach min_length, the threshold is halved (not below 1 cell).
    const std::size_t wanted = s.has_count ? static_cast<std::size_t>(river_count(s, seed))
                                           : std::numeric_limits<std::size_t>::max();
    // The cells where a river may end do not depend on the threshold: found once.
    const std::vector<std::uint32_t> ends =
        river_end_cells(f.down, into, lakes ? out.lake_mask.cells().data() : into, threads);
    double used = s.threshold;
    for (;;) {
        out.rivers.clear();
        pick_rivers(f, flow, static_cast<float>(used), s.min_length, wanted, ends, is_into, is_lake,
                    out);
        if (!s.has_count || out.rivers.size() >= wanted || used <= 1) break;
        used = std::max(1.0, used / 2);
    }
    double largest = 0;
    for (const RiverPath& r : out.rivers)
        largest = std::max(largest, static_cast<double>(r.mouth_flow));
    for (RiverPath& r : out.rivers)
        for (std::uint32_t c : r.stem)
            r.width.push_back(width_of(flow(c), used, largest, s));
    if (keep_flow) out.flow = std::move(acc_grid);
}

// River agents (shared/reference/003, 4.4): from a coast cell (a hash of seed and attempt) climb
// to the highest 4-neighbour while it is higher; the path read from the top is the river, its
// width growing by one every 1 / widen cells. Attempts whose climb is shorter than min_length, or
// that start on a cell another river holds, are dropped; at most `count` rivers.
void agent_rivers(const Grid<float>& heights, const RiverSettings& s, std::uint64_t seed,
                  HydrologyResult& out) {
    const int w = heights.width(), h = heights.height();
    const std::uint32_t uw = static_cast<std::uint32_t>(w),
                        n = static_cast<std::uint32_t>(heights.size());
    const std::uint8_t* into = out.into.cells().data();
    const float* hv = heights.cells().data();
    auto neighbours = [&](std::uint32_t c, auto&& body) {
        const std::uint32_t x = c % uw, y = c / uw;
        if (y > 0) body(c - uw);
        if (x > 0) body(c - 1);
        if (x + 1 < uw) body(c + 1);
        if (y + 1 < static_cast<std::uint32_t>(h)) body(c + uw);
    };
    std::vector<std::uint32_t> coast;
    for (std::uint32_t c = 0; c < n; ++c) {
        if (into[c]) continue;
        bool shore = false;
        neighbours(c, [&](std::uint32_t q) { shore = shore || into[q]; });
        if (shore) coast.push_back(c);
    }
    if (coast.empty()) return;
    const std::size_t wanted = static_cast<std::size_t>(river_count(s, seed));
    std::vector<std::uint8_t> taken(n, 0);
    for (int attempt = 0; attempt < s.agent_attempts && out.rivers.size() < wanted; ++attempt) {
        const std::uint32_t start =
            coast[hash_values(seed, 0x6167656e74ull, static_cast<std::uint64_t>(attempt)) %
                  coast.size()];
        if (taken[start]) continue;
        std::vector<std::uint32_t> path{start};
        std::uint32_t cur = start;
        for (;;) {
            std::int64_t best = -1;
            neighbours(cur, [&](std::uint32_t q) {
                if (into[q] || taken[q] || hv[q] <= hv[cur]) return;
                if (best < 0 || hv[q] > hv[best]) best = q;
            });
            if (best < 0) break;
            cur = static_cast<std::uint32_t>(best);
            path.push_back(cur);
        }
        if (path.size() < static_cast<std::size_t>(s.min_length)) continue;
        RiverPath r;
        r.stem.assign(path.rbegin(), path.rend());
        r.mouth_flow = static_cast<float>(path.size());
        std::int64_t end = -1;
        neighbours(start, [&](std::uint32_t q) {
            if (into[q] && end < 0) end = q;
        });
        r.end = end;
        for (std::size_t i = 0; i < r.stem.size(); ++i) {
            const int grown =
                s.width_min + static_cast<int>(std::floor(static_cast<double>(i) * s.agent_widen));
            r.width.push_back(static_cast<std::uint8_t>(std::min(grown, s.width_max)));
        }
        // The river and the cells beside it are taken: the next agents keep apart.
        for (std::uint32_t c : path) {
            taken[c] = 1;
            neighbours(c, [&](std::uint32_t q) { taken[q] = 1; });
        }
        out.rivers.push_back(std::move(r));
    }
}

} // namespace

std::vector<std::uint32_t> river_end_cells(const Grid<std::uint8_t>& down, const std::uint8_t* into,
                                           const std::uint8_t* lake, int threads) {
    const std::size_t w = static_cast<std::size_t>(down.width()),
                      h = static_cast<std::size_t>(down.height());
    const std::size_t row_words = (w + 63) / 64;
    // Per band of rows its cells, joined in band order: reading order at any thread count.
    std::vector<std::uint32_t> cells;
    for (const std::vector<std::uint32_t>&band :
         parallel_bands(down.height(), threads, [&](int y0, int y1) {
             std::vector<std::uint32_t> found;
             std::vector<std::uint64_t> words(row_words);
             for (std::size_t y = static_cast<std::size_t>(y0); y < static_cast<std::size_t>(y1);
                  ++y) {
                 river_end_row(down.cells().data(), into, lake, w, h, y, words.data());
                 for (std::size_t k = 0; k < row_words; ++k)
                     for (std::uint64_t m = words[k]; m != 0; m &= m - 1)
                         found.push_back(static_cast<std::uint32_t>(
                             y * w + 64 * k + static_cast<std::size_t>(std::countr_zero(m))));
             }
             return found;
         }))
        cells.insert(cells.end(), band.begin(), band.end());
    return cells;
}

// SSE2: one byte compare per `into` class, 16 cells at a time; the rest cell by cell.
void mark_into_classes(ClassId* cells, std::size_t count, std::uint32_t into) {
    std::size_t i = 0;
#if defined(__SSE2__)
    for (; i + 16 <= count; i += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cells + i));
        __m128i out = _mm_setzero_si128();
        for (std::uint32_t m = into; m != 0; m &= m - 1) {
            const int c = std::countr_zero(m);
            const __m128i is_c = _mm_cmpeq_epi8(v, _mm_set1_epi8(static_cast<char>(c)));
            out = _mm_or_si128(out, _mm_and_si128(is_c, _mm_set1_epi8(static_cast<char>(c + 1))));
        }
        _mm_storeu_si128(reinterpret_cast<__m128i*>(cells + i), out);
    }
#endif
    for (; i < count; ++i)
        cells[i] =
            static_cast<ClassId>(cells[i] < 32 && ((into >> cells[i]) & 1u) ? cells[i] + 1 : 0);
}

HydrologyResult run_hydrology_in_place(Grid<float>& heights, const Grid<float>* rain,
                                       const RiverSettings& settings, std::uint64_t seed,
                                       const IntoSource& into, bool keep_flow, int threads) {
    HydrologyResult out;
    // Lakes (both methods) and method "flow" need the flood; agents climb from the coast, so they
    // never enter a lake (its rim lies above it and it never touches an `into` cell).
    const bool flood = settings.method == RiverMethod::flow || settings.lake_min_area > 0;
    if (heights.empty() || !flood) {
        out.into = into(threads).cells;
        if (heights.empty()) return out;
    } else {
        // The flood's first steps (quantising, descent, basin labels) read no `into` cell: with
        // two threads or more `into` runs beside them on a thread of its own and is collected
        // before the pairs are listed, so its temporaries are gone before the flood's largest set
        // is made. One thread: `into` first, then the flood (as the grids alive at once were).
        FlowField f;
        if (threads < 2) {
            IntoGrid made = into(1);
            out.into = std::move(made.cells);
            f = flood_basins(quantise_heights(heights, 1, made.heights_range), 1, false);
        } else {
            const int into_threads = threads / 2, flood_threads = threads - into_threads;
            std::future<IntoGrid> pending =
                start_task(threads, [&into, into_threads] { return into(into_threads); });
            bool collected = false;
            auto collect = [&] {
                out.into = pending.get().cells;
                collected = true;
            };
            f = flood_basins(quantise_heights(heights, flood_threads), flood_threads, false,
                             collect, threads);
            if (!collected) collect();
        }
        if (settings.method == RiverMethod::agents)
            find_lakes(f, settings.lake_min_area, out, threads);
        else
            flow_rivers(heights, rain, settings, seed, keep_flow, threads, std::move(f), out);
    }
    if (settings.method == RiverMethod::agents) agent_rivers(heights, settings, seed, out);
    carve_and_widen(heights, settings, out);
    return out;
}

HydrologyResult run_hydrology(Grid<float> heights, const Grid<float>* rain,
                              const RiverSettings& settings, std::uint64_t seed,
                              Grid<std::uint8_t> into, bool keep_flow, int threads) {
    HydrologyResult out = run_hydrology_in_place(
        heights, rain, settings, seed, [&into](int) { return std::move(into); }, keep_flow,
        threads);
    out.carved = std::move(heights);
    return out;
}

RiverOverlay write_rivers(ClassGrid& classes, const HydrologyResult& hydro,
                          const Grid<float>& carved, const RiverClasses& ids) {
    RiverOverlay out;
    const std::uint32_t uw = static_cast<std::uint32_t>(classes.width());
    ClassId* cls = classes.cells().data();
    const float* carved_h = carved.cells().data();
    const bool lakes = !hydro.lake_mask.empty();
    const std::uint8_t* into_mask = hydro.into.cells().data();
    auto into = [into_mask](std::uint32_t c) { return into_mask[c] != 0; };
    auto lake = [&](std::uint32_t c) { return lakes && hydro.lake_mask.cells()[c] != 0; };
    if (ids.lake >= 0 && lakes) {
        const std::uint8_t* mask = hydro.lake_mask.cells().data();
        for (std::size_t c = 0; c < classes.size(); ++c)
            if (mask[c] && !into_mask[c]) cls[c] = static_cast<ClassId>(ids.lake);
        for (const HydrologyResult::Lake& found : hydro.lakes)
            if (found.open)
                out.lakes.push_back({static_cast<int>(found.first % uw),
                                     static_cast<int>(found.first / uw), found.open});
    }
    const auto is_river = [&](std::uint32_t c) {
        return cls[c] == ids.river || (ids.waterfall >= 0 && cls[c] == ids.waterfall);
    };
    auto falls = [&](std::uint32_t c, std::int64_t next) {
        if (next < 0) return false;
        const float a = carved_h[c], b = carved_h[static_cast<std::size_t>(next)];
        return (ids.waterfall_drop > 0 && a - b >= ids.waterfall_drop) ||
               (a >= ids.top_band && b < ids.top_band);
    };
    for (const RiverPath& r : hydro.rivers) {
        // The stem cells written, source first, and the cell where the river ends.
        std::size_t len = 0;
        std::int64_t end = r.end;
        for (std::uint32_t c : r.stem) {
            if (into(c) || lake(c) || is_river(c)) {
                end = c;
                break;
            }
            ++len;
        }
        if (len == 0) continue;
        RiverReport rep;
        rep.length = static_cast<int>(len);
        rep.ends_in = end < 0 ? -1 : cls[static_cast<std::size_t>(end)];
        std::vector<bool> fall(len, false);
        if (ids.waterfall >= 0)
            for (std::size_t i = 0; i < len; ++i)
                fall[i] =
                    falls(r.stem[i], i + 1 < len ? static_cast<std::int64_t>(r.stem[i + 1]) : end);
        std::unordered_map<std::uint32_t, bool> written;
        for (std::size_t i = 0; i < len; ++i) {
            cls[r.stem[i]] = static_cast<ClassId>(fall[i] ? ids.waterfall : ids.river);
            rep.stem.push_back(r.stem[i]);
            rep.widths.push_back(r.width[i]);
            written[r.stem[i]] = true;
        }
        // Banks: their stem cell written, and the cell they drain into already part of the river.
        for (const RiverPath::Bank& bank : r.banks) {
            if (bank.stem_index >= len || !written.count(bank.down)) continue;
            if (into(bank.cell) || lake(bank.cell) || is_river(bank.cell)) continue;
            cls[bank.cell] =
                static_cast<ClassId>(fall[bank.stem_index] ? ids.waterfall : ids.river);
            written[bank.cell] = true;
            rep.banks.push_back(bank);
        }
        rep.max_width = r.width[len - 1];
        rep.source_x = static_cast<int>(r.stem.front() % uw);
        rep.source_y = static_cast<int>(r.stem.front() / uw);
        rep.mouth_x = static_cast<int>(r.stem[len - 1] % uw);
        rep.mouth_y = static_cast<int>(r.stem[len - 1] / uw);
        rep.end = end;
        out.rivers.push_back(std::move(rep));
    }
    return out;
}

} // namespace tilegen
