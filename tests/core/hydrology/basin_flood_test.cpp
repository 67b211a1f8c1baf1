// The fast steps of flood_basins (basin_flood.hpp) against plain references: the descent by its
// definition, the basins by walking every cell's descent, the pairs by listing every pair of
// neighbours, the whole flood against the plain version it replaced (reference_flood.hpp), the
// depressions against a flood fill of the raised cells, and the counted flow against walking every
// path, and the passes split by rows at several thread counts against one thread. Random grids
// with many ties (a few levels, flat blocks) and few.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "core/hydrology/basin_flood.hpp"
#include "core/hydrology/hydrology.hpp"
#include "core/hydrology/reference_flood.hpp"

using namespace tilegen;

namespace {

// Random levels: w, h in 1..20; few distinct values (ties, flats), flat blocks, or any.
Grid<std::uint16_t> random_levels(std::mt19937& rng, int trial) {
    const int w = 1 + static_cast<int>(rng() % 20), h = 1 + static_cast<int>(rng() % 20);
    Grid<std::uint16_t> level(w, h);
    const int kind = trial % 5;
    const unsigned range = kind == 0 ? 2 : kind == 1 ? 4 : kind == 2 ? 30 : 65536;
    for (auto& v : level.cells())
        v = static_cast<std::uint16_t>(rng() % range);
    if (kind == 4) { // flat blocks of 1..4 cells a side
        const int bx = 1 + static_cast<int>(rng() % 4), by = 1 + static_cast<int>(rng() % 4);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                level(x, y) = level(x / bx * bx, y / by * by) % 8;
    }
    return level;
}

const int kDx[4] = {0, -1, 1, 0}, kDy[4] = {-1, 0, 0, 1};

// Plain descent: the lowest strictly lower neighbour, N, W, E, S first on ties.
std::uint8_t plain_descent(const Grid<std::uint16_t>& level, int x, int y) {
    const int w = level.width(), h = level.height();
    if (y == 0) return kDrainOff | drain_north;
    if (y == h - 1) return kDrainOff | drain_south;
    if (x == 0) return kDrainOff | drain_west;
    if (x == w - 1) return kDrainOff | drain_east;
    int best = level(x, y), d = kDrainPit;
    for (int k = 0; k < 4; ++k)
        if (level(x + kDx[k], y + kDy[k]) < best) {
            best = level(x + kDx[k], y + kDy[k]);
            d = k;
        }
    return static_cast<std::uint8_t>(d);
}

// Where a cell's descent ends: -1 off the map, else the pit's index.
std::int64_t descent_end(const Grid<std::uint8_t>& down, std::int64_t c) {
    const int w = down.width();
    for (;;) {
        const std::uint8_t d = down.cells()[static_cast<std::size_t>(c)];
        if (d == kDrainPit) return c;
        if (d & kDrainOff) return -1;
        c += kDx[d] + static_cast<std::int64_t>(kDy[d]) * w;
    }
}

Grid<float> accumulation_by_walking(const Grid<std::uint8_t>& down) {
    const int w = down.width();
    Grid<float> acc(w, down.height(), 0.0f);
    for (std::int64_t c = 0; c < static_cast<std::int64_t>(down.size()); ++c)
        for (std::int64_t p = c;;) {
            acc.cells()[static_cast<std::size_t>(p)] += 1.0f;
            const std::uint8_t d = down.cells()[static_cast<std::size_t>(p)];
            if (d & kDrainOff) break;
            p += kDx[d] + static_cast<std::int64_t>(kDy[d]) * w;
        }
    return acc;
}

} // namespace

TEST_CASE("basin flood: descent and basins against their definitions") {
    std::mt19937 rng(31);
    for (int trial = 0; trial < 500; ++trial) {
        const Grid<std::uint16_t> level = random_levels(rng, trial);
        const int w = level.width(), h = level.height();
        CAPTURE(trial);
        const Grid<std::uint8_t> down = descend(level);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                REQUIRE(down(x, y) == plain_descent(level, x, y));
        Grid<std::uint32_t> basin;
        const std::uint32_t basins = label_basins(down, basin);
        // Without the descent grid (its rows made as the scan reaches them): the same labels.
        for (int threads : {1, 2, 3}) {
            Grid<std::uint32_t> of_levels;
            CHECK(label_basins_of_levels(level, of_levels, threads) == basins);
            CHECK(of_levels == basin);
        }
        // Same partition as the descent ends: basin 0 <-> off the map, one basin per pit.
        std::map<std::int64_t, std::uint32_t> of_end;
        std::map<std::uint32_t, std::int64_t> end_of;
        for (std::int64_t c = 0; c < static_cast<std::int64_t>(level.size()); ++c) {
            const std::int64_t end = descent_end(down, c);
            const std::uint32_t b = basin.cells()[static_cast<std::size_t>(c)];
            REQUIRE(b < basins);
            CHECK((end < 0) == (b == 0));
            const auto [i, fresh] = of_end.emplace(end, b);
            CHECK(i->second == b);
            const auto [j, fresh_b] = end_of.emplace(b, end);
            CHECK(j->second == end);
        }
        CHECK(of_end.size() == basins); // every grid has edge cells: -1 is among the ends
    }
}

TEST_CASE("basin flood: pairs in Kruskal's order, none needed left out") {
    std::mt19937 rng(32);
    // 300 small grids, then 2 of 90 x 90 cells: buckets of several chunks (PairBuckets::kChunk
    // pairs) and pairs in more than one segment.
    for (int trial = 0; trial < 302; ++trial) {
        Grid<std::uint16_t> level = random_levels(rng, trial);
        if (trial >= 300) {
            level = Grid<std::uint16_t>(90, 90);
            for (auto& v : level.cells())
                v = static_cast<std::uint16_t>(rng() % (trial % 2 ? 3 : 65536));
        }
        const auto w = static_cast<std::uint32_t>(level.width());
        CAPTURE(trial);
        Grid<std::uint32_t> basin;
        (void)label_basins(descend(level), basin);
        const auto& lv = level.cells();
        const auto& b = basin.cells();
        // Every pair of neighbours in different basins, in scan order (horizontal first).
        struct Plain {
            std::uint32_t p, q;
            std::uint8_t vertical;
        };
        std::vector<Plain> all;
        for (std::uint32_t c = 0; c < level.size(); ++c) {
            if (c % w + 1 < w && b[c] != b[c + 1]) all.push_back({c, c + 1, 0});
            if (c + w < level.size() && b[c] != b[c + w]) all.push_back({c, c + w, 1});
        }
        auto key = [](std::uint16_t cost, std::uint32_t p, std::uint8_t vertical) {
            return (static_cast<std::uint64_t>(cost) << 33) | (std::uint64_t{p} << 1) | vertical;
        };
        // By bands of rows on 1, 2 and 3 threads: the same properties (a few more pairs kept).
        for (int threads : {1, 2, 3}) {
            CAPTURE(threads);
            const std::vector<BasinPair> pairs = basin_pairs(level, basin, threads);
            std::map<std::uint64_t, std::size_t> position; // key -> index in `pairs`
            for (std::size_t i = 0; i < pairs.size(); ++i) {
                const BasinPair& e = pairs[i];
                const std::uint32_t q = e.p + (e.down ? w : 1u);
                REQUIRE(q < level.size());
                CHECK(e.a == b[e.p]);
                CHECK(e.b == b[q]);
                CHECK(e.a != e.b);
                CHECK(e.cost == std::max(lv[e.p], lv[q]));
                position[key(e.cost, e.p, e.down)] = i;
                if (i > 0)
                    CHECK(key(pairs[i - 1].cost, pairs[i - 1].p, pairs[i - 1].down) <
                          key(e.cost, e.p, e.down));
            }
            // A pair left out has a listed pair of the same two basins before it, costing no more.
            for (const Plain& pl : all) {
                const std::uint16_t cost = std::max(lv[pl.p], lv[pl.q]);
                const std::uint64_t k = key(cost, pl.p, pl.vertical);
                if (position.count(k)) continue;
                bool covered = false;
                for (const BasinPair& e : pairs)
                    covered = covered ||
                              (e.a == b[pl.p] && e.b == b[pl.q] && key(e.cost, e.p, e.down) < k);
                CHECK(covered);
            }
        }
    }
}

TEST_CASE("basin flood: the same flood as the plain version, depressions as a flood fill") {
    std::mt19937 rng(33);
    for (int trial = 0; trial < 500; ++trial) {
        const Grid<std::uint16_t> level = random_levels(rng, trial);
        const int w = level.width(), h = level.height();
        CAPTURE(trial);
        const FlowField plain = test::reference_flood_basins(level);
        const FlowField fast = flood_basins(level);
        REQUIRE(fast.basins == plain.basins);
        CHECK(fast.down == plain.down);
        CHECK(fast.filled == plain.filled);
        for (std::size_t c = 0; c < level.size(); ++c)
            CHECK(fast.filled.cells()[c] ==
                  std::max(level.cells()[c], fast.water[fast.basin.cells()[c]]));
        // Without the filled grid (what run_hydrology asks for): the same flood otherwise.
        const FlowField bare = flood_basins(level, 1, false);
        CHECK(bare.filled.empty());
        CHECK(bare.down == fast.down);
        CHECK(bare.basin == fast.basin);
        CHECK(bare.water == fast.water);
        CHECK(bare.depression == fast.depression);
        CHECK(bare.pit == fast.pit);
        // With work beside it (before_pairs: the descent rows made as the labels' scan goes, the
        // grid after the pairs): the same flood, and the hook called exactly once.
        int calls = 0;
        const FlowField beside = flood_basins(level, 1, false, [&] { ++calls; });
        CHECK(calls == 1);
        CHECK(beside.down == fast.down);
        CHECK(beside.basin == fast.basin);
        CHECK(beside.water == fast.water);
        CHECK(beside.depression == fast.depression);
        CHECK(beside.pit == fast.pit);
        // Raised cells: 4-connected pieces by a flood fill; each piece one depression group, and
        // different pieces different groups.
        Grid<int> piece(w, h, -1);
        int pieces = 0;
        auto raised = [&](int x, int y) { return fast.filled(x, y) > level(x, y); };
        std::map<int, std::uint32_t> group_of_piece;
        std::map<std::uint32_t, int> piece_of_group;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                if (!raised(x, y) || piece(x, y) >= 0) continue;
                std::vector<std::pair<int, int>> stack{{x, y}};
                piece(x, y) = pieces;
                while (!stack.empty()) {
                    const auto [cx, cy] = stack.back();
                    stack.pop_back();
                    for (int k = 0; k < 4; ++k) {
                        const int nx = cx + kDx[k], ny = cy + kDy[k];
                        if (level.contains(nx, ny) && raised(nx, ny) && piece(nx, ny) < 0) {
                            piece(nx, ny) = pieces;
                            stack.push_back({nx, ny});
                        }
                    }
                }
                ++pieces;
            }
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                if (!raised(x, y)) continue;
                const std::uint32_t g = fast.depression[fast.basin(x, y)];
                const auto [i, fresh] = group_of_piece.emplace(piece(x, y), g);
                CHECK(i->second == g);
                const auto [j, fresh_g] = piece_of_group.emplace(g, piece(x, y));
                CHECK(j->second == piece(x, y));
            }
        // Counted flow against walking every path (no rain).
        CHECK(count_upstream(fast.down) == accumulation_by_walking(fast.down));
        CHECK(flow_accumulation(fast, nullptr) == accumulation_by_walking(fast.down));
    }
}

TEST_CASE("basin flood: counted flow by waves of any band of rows equals walking every path") {
    std::mt19937 rng(36);
    for (int trial = 0; trial < 80; ++trial) {
        Grid<std::uint16_t> level = random_levels(rng, trial);
        if (trial % 4 == 3) { // larger maps: long paths through many bands
            level = Grid<std::uint16_t>(40 + static_cast<int>(rng() % 40),
                                        40 + static_cast<int>(rng() % 40));
            for (auto& v : level.cells())
                v = static_cast<std::uint16_t>(rng() % (trial % 8 == 3 ? 16 : 65536));
        }
        CAPTURE(trial);
        const FlowField f = flood_basins(level);
        const Grid<float> walked = accumulation_by_walking(f.down);
        const std::size_t w = static_cast<std::size_t>(level.width());
        for (std::size_t band : {std::size_t{1}, std::size_t{7}, w, 3 * w + 1, kUpstreamBand}) {
            CAPTURE(band);
            CHECK(count_upstream(f.down, 1, band) == walked);
            CHECK(count_upstream(f.down, 2, band) == walked);
            // The words left as they are: upstream_count reads each count.
            for (int threads : {1, 2}) {
                const Grid<float> words = count_upstream(f.down, threads, band, false);
                Grid<float> read(words.width(), words.height());
                for (std::size_t c = 0; c < words.size(); ++c)
                    read.cells()[c] = upstream_count(words.cells().data() + c);
                CHECK(read == walked);
            }
        }
    }
}

TEST_CASE("basin flood: the passes by blocks of rows give the same at 1, 2 and 3 threads") {
    std::mt19937 rng(34);
    for (int trial = 0; trial < 60; ++trial) {
        const Grid<std::uint16_t> level = random_levels(rng, trial);
        CAPTURE(trial);
        Grid<float> heights(level.width(), level.height());
        for (std::size_t c = 0; c < level.size(); ++c)
            heights.cells()[c] = static_cast<float>(level.cells()[c]) * 0.37f - 5.0f;
        const Grid<std::uint16_t> q = quantise_heights(heights);
        const FlowField one = flood_basins(level);
        const Grid<float> counted = count_upstream(one.down);
        for (int threads : {2, 3}) {
            CAPTURE(threads);
            CHECK(quantise_heights(heights, threads) == q);
            const FlowField many = flood_basins(level, threads);
            CHECK(many.down == one.down);
            CHECK(many.filled == one.filled);
            CHECK(many.basin == one.basin);
            CHECK(many.water == one.water);
            CHECK(many.depression == one.depression);
            CHECK(many.pit == one.pit);
            // Beside other work (a hook before the pairs: the lean order), the pairs listed on
            // `threads` threads by bands of rows: the same flood.
            const FlowField beside = flood_basins(
                level, 1, true, [] {}, threads);
            CHECK(beside.down == one.down);
            CHECK(beside.filled == one.filled);
            CHECK(beside.water == one.water);
            CHECK(beside.pit == one.pit);
            CHECK(beside.depression == one.depression);
            CHECK(count_upstream(one.down, threads) == counted);
        }
    }
}

TEST_CASE("hydrology: lakes, rivers and carving the same at 1, 2 and 3 threads") {
    std::mt19937 rng(35);
    RiverSettings settings;
    settings.threshold = 3;
    settings.min_length = 2;
    settings.lake_min_area = 2;
    settings.carve = 0.5;
    std::size_t lakes = 0, rivers = 0; // the grids have some of both
    for (int trial = 0; trial < 60; ++trial) {
        const Grid<std::uint16_t> level = random_levels(rng, trial);
        CAPTURE(trial);
        Grid<float> heights(level.width(), level.height());
        Grid<std::uint8_t> into(level.width(), level.height());
        const unsigned sea = rng() % 4; // levels below it are `into` (trial % 5 == 0: 0 or 1)
        for (std::size_t c = 0; c < level.size(); ++c) {
            heights.cells()[c] = static_cast<float>(level.cells()[c]);
            into.cells()[c] = level.cells()[c] < sea ? 1 : 0;
        }
        const HydrologyResult one = run_hydrology(heights, nullptr, settings, 9, into);
        lakes += one.lakes.size();
        rivers += one.rivers.size();
        for (int threads : {2, 3}) {
            CAPTURE(threads);
            const HydrologyResult many =
                run_hydrology(heights, nullptr, settings, 9, into, false, threads);
            CHECK(many.lake_mask == one.lake_mask);
            REQUIRE(many.lakes.size() == one.lakes.size());
            for (std::size_t i = 0; i < one.lakes.size(); ++i) {
                CHECK(many.lakes[i].first == one.lakes[i].first);
                CHECK(many.lakes[i].open == one.lakes[i].open);
            }
            CHECK(many.carved == one.carved);
            REQUIRE(many.rivers.size() == one.rivers.size());
            for (std::size_t i = 0; i < one.rivers.size(); ++i)
                CHECK(many.rivers[i].stem == one.rivers[i].stem);
        }
    }
    CHECK(lakes > 10);
    CHECK(rivers > 10);
}

TEST_CASE("hydrology: lakes are the raised pieces of min_area cells touching no into cell") {
    // The plain definition: 4-connected pieces of the cells the plain flood raised, by a flood
    // fill; a piece is a lake when it has at least min_area cells and none of them is `into` or
    // beside an `into` cell. Against run_hydrology's mask, first cells and open cells.
    std::mt19937 rng(36);
    std::size_t lakes = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const Grid<std::uint16_t> level = random_levels(rng, trial);
        const int w = level.width(), h = level.height();
        CAPTURE(trial);
        Grid<float> heights(w, h);
        Grid<std::uint8_t> into(w, h);
        const unsigned sea = rng() % 4;
        for (std::size_t c = 0; c < level.size(); ++c) {
            heights.cells()[c] = static_cast<float>(level.cells()[c]) * 0.5f + 3.0f;
            into.cells()[c] = level.cells()[c] < sea ? 1 : 0;
        }
        RiverSettings settings;
        settings.lake_min_area = 1 + static_cast<int>(rng() % 6);
        const FlowField plain = test::reference_flood_basins(quantise_heights(heights));
        auto raised = [&](int x, int y) { return plain.filled(x, y) > plain.level(x, y); };
        Grid<std::uint8_t> mask(w, h, 0), seen(w, h, 0);
        std::vector<HydrologyResult::Lake> expected;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                if (!raised(x, y) || seen(x, y)) continue;
                std::vector<std::pair<int, int>> piece{{x, y}};
                seen(x, y) = 1;
                bool wet = false;
                for (std::size_t k = 0; k < piece.size(); ++k) {
                    const auto [cx, cy] = piece[k];
                    wet = wet || into(cx, cy);
                    for (int d = 0; d < 4; ++d) {
                        const int nx = cx + kDx[d], ny = cy + kDy[d];
                        if (!level.contains(nx, ny)) continue;
                        wet = wet || into(nx, ny);
                        if (raised(nx, ny) && !seen(nx, ny)) {
                            seen(nx, ny) = 1;
                            piece.push_back({nx, ny});
                        }
                    }
                }
                if (wet || piece.size() < static_cast<std::size_t>(settings.lake_min_area))
                    continue;
                HydrologyResult::Lake lake{static_cast<std::uint32_t>(level.size()), 0};
                for (const auto& [cx, cy] : piece) {
                    mask(cx, cy) = 1;
                    lake.first = std::min(lake.first, static_cast<std::uint32_t>(cy * w + cx));
                    lake.open += into(cx, cy) ? 0 : 1;
                }
                expected.push_back(lake);
            }
        std::sort(expected.begin(), expected.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        lakes += expected.size();
        const HydrologyResult fast = run_hydrology(heights, nullptr, settings, 5, into);
        CHECK(fast.lake_mask == mask);
        REQUIRE(fast.lakes.size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            CHECK(fast.lakes[i].first == expected[i].first);
            CHECK(fast.lakes[i].open == expected[i].open);
        }
    }
    CHECK(lakes > 50);
}

TEST_CASE("hydrology: the into grid from class ids equals the plain rule") {
    // mark_into_classes against cell + 1 where the class's bit is set, else 0: rows of 0..40
    // cells (the vector code's 16 and the rest), ids up to 40 (above the mask's 32 bits: 0).
    std::mt19937 rng(91);
    for (int trial = 0; trial < 200; ++trial) {
        const auto count = static_cast<std::size_t>(rng() % 41);
        const auto into = static_cast<std::uint32_t>(rng()) & static_cast<std::uint32_t>(rng());
        std::vector<ClassId> cells(count);
        for (ClassId& c : cells)
            c = static_cast<ClassId>(rng() % 41);
        std::vector<ClassId> got = cells;
        mark_into_classes(got.data(), count, into);
        CAPTURE(trial);
        for (std::size_t i = 0; i < count; ++i) {
            const bool is_into = cells[i] < 32 && ((into >> cells[i]) & 1u) != 0;
            CHECK(got[i] == (is_into ? cells[i] + 1 : 0));
        }
    }
}

TEST_CASE("hydrology: the cells where rivers may end equal the plain rule") {
    // river_end_cells against the rule cell by cell: widths up to 80 (the vector code's 16 cells
    // and the rest), sinks sparse or dense, at 1, 2 and 3 threads.
    std::mt19937 rng(92);
    for (int trial = 0; trial < 120; ++trial) {
        Grid<std::uint16_t> level = random_levels(rng, trial);
        if (trial % 3 == 2) {
            level = Grid<std::uint16_t>(1 + static_cast<int>(rng() % 80),
                                        1 + static_cast<int>(rng() % 30));
            for (auto& v : level.cells())
                v = static_cast<std::uint16_t>(rng() % 65536);
        }
        const FlowField f = flood_basins(level);
        const int w = level.width(), h = level.height();
        const unsigned odds = 2 + static_cast<unsigned>(trial % 6);
        std::vector<std::uint8_t> into(level.size()), lake(level.size());
        for (std::size_t c = 0; c < level.size(); ++c) {
            into[c] = rng() % odds == 0 ? static_cast<std::uint8_t>(1 + rng() % 30) : 0;
            lake[c] = rng() % (2 * odds) == 0 ? 1 : 0;
        }
        std::vector<std::uint32_t> plain;
        for (std::uint32_t c = 0; c < level.size(); ++c) {
            const std::int64_t t = drain_target(f, c);
            const bool sink_c = into[c] != 0 || lake[c] != 0;
            const bool ends = t < 0 || into[static_cast<std::size_t>(t)] != 0 ||
                              lake[static_cast<std::size_t>(t)] != 0;
            if (!sink_c && ends) plain.push_back(c);
        }
        CAPTURE(trial);
        CAPTURE(w);
        CAPTURE(h);
        for (int threads : {1, 2, 3})
            CHECK(river_end_cells(f.down, into.data(), lake.data(), threads) == plain);
    }
}

namespace {

// Every field of two hydrology results (the carved map given apart: run_hydrology_in_place leaves
// `carved` empty and carves its input).
void check_same_hydrology(const HydrologyResult& a, const Grid<float>& a_carved,
                          const HydrologyResult& b, const Grid<float>& b_carved) {
    CHECK(a_carved == b_carved);
    CHECK(a.into == b.into);
    CHECK(a.lake_mask == b.lake_mask);
    CHECK(a.flow == b.flow);
    REQUIRE(a.lakes.size() == b.lakes.size());
    for (std::size_t i = 0; i < a.lakes.size(); ++i) {
        CHECK(a.lakes[i].first == b.lakes[i].first);
        CHECK(a.lakes[i].open == b.lakes[i].open);
    }
    REQUIRE(a.rivers.size() == b.rivers.size());
    for (std::size_t i = 0; i < a.rivers.size(); ++i) {
        const RiverPath &p = a.rivers[i], &q = b.rivers[i];
        CHECK(p.stem == q.stem);
        CHECK(p.width == q.width);
        CHECK(p.end == q.end);
        CHECK(p.mouth_flow == q.mouth_flow);
        REQUIRE(p.banks.size() == q.banks.size());
        for (std::size_t k = 0; k < p.banks.size(); ++k) {
            CHECK(p.banks[k].cell == q.banks[k].cell);
            CHECK(p.banks[k].down == q.banks[k].down);
            CHECK(p.banks[k].stem_index == q.banks[k].stem_index);
        }
    }
}

// Heights with hills and pits at several scales: w x h in 40..199, each cell the sum of a few
// random block grids (so basins, lakes and long rivers, unlike the small grids' noise).
Grid<float> random_terrain(std::mt19937& rng) {
    const int w = 40 + static_cast<int>(rng() % 160), h = 40 + static_cast<int>(rng() % 160);
    Grid<float> heights(w, h, 0.0f);
    for (int block : {32, 8, 2}) {
        const int bw = w / block + 2, bh = h / block + 2;
        std::vector<float> v(static_cast<std::size_t>(bw * bh));
        for (float& x : v)
            x = static_cast<float>(rng() % 1000) / 1000.0f * static_cast<float>(block);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                heights(x, y) += v[static_cast<std::size_t>((y / block) * bw + x / block)];
    }
    return heights;
}

} // namespace

TEST_CASE("hydrology: `into` made beside the flood gives the sequential result at 1, 2 and 3 "
          "threads") {
    // run_hydrology_in_place calls its `into` source on a thread of its own while the flood runs
    // (threads >= 2); here the source reads the heights as the pipeline's prediction reads the
    // maps. Reference: run_hydrology on one thread with the same `into` grid made beforehand.
    std::mt19937 rng(81);
    std::size_t lakes = 0, rivers = 0, agents = 0;
    for (int trial = 0; trial < 40; ++trial) {
        CAPTURE(trial);
        Grid<float> heights;
        if (trial % 2 == 0) {
            const Grid<std::uint16_t> level = random_levels(rng, trial / 2);
            heights = Grid<float>(level.width(), level.height());
            for (std::size_t c = 0; c < level.size(); ++c)
                heights.cells()[c] = static_cast<float>(level.cells()[c]);
        } else {
            heights = random_terrain(rng);
        }
        float lo = heights.cells()[0], hi = lo;
        for (float v : heights.cells()) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        const float sea = lo + (hi - lo) * static_cast<float>(rng() % 40) / 100.0f;
        auto make_into = [sea](const Grid<float>& from) {
            Grid<std::uint8_t> into(from.width(), from.height());
            for (std::size_t c = 0; c < from.size(); ++c)
                into.cells()[c] = from.cells()[c] < sea ? 2 : 0; // class 1 + 1
            return into;
        };
        RiverSettings settings;
        settings.method = trial % 5 == 3 ? RiverMethod::agents : RiverMethod::flow;
        settings.threshold = 3;
        settings.min_length = 2;
        settings.width_max = 1 + trial % 3;
        settings.lake_min_area = trial % 4 == 1 ? 0 : 2;
        settings.carve = trial % 3 == 0 ? 0.5 : 0.0;
        const bool keep_flow = trial % 2 == 1;
        Grid<float> rain;
        if (trial % 7 == 2 && settings.method == RiverMethod::flow) {
            rain = Grid<float>(heights.width(), heights.height());
            for (float& v : rain.cells())
                v = static_cast<float>(rng() % 100) / 10.0f;
        }
        const Grid<float>* rain_map = rain.empty() ? nullptr : &rain;
        const HydrologyResult one =
            run_hydrology(heights, rain_map, settings, 4, make_into(heights), keep_flow, 1);
        lakes += one.lakes.size();
        rivers += one.rivers.size();
        agents += settings.method == RiverMethod::agents ? one.rivers.size() : 0;
        for (int threads : {1, 2, 3}) {
            CAPTURE(threads);
            Grid<float> carved = heights;
            int calls = 0, given = 0;
            const HydrologyResult many = run_hydrology_in_place(
                carved, rain_map, settings, 4,
                [&](int t) {
                    ++calls;
                    given = t;
                    return make_into(carved); // read while the flood runs (threads >= 2)
                },
                keep_flow, threads);
            CHECK(calls == 1);
            CHECK(given >= 1);
            CHECK(given <= threads);
            CHECK(many.carved.empty());
            check_same_hydrology(many, carved, one, one.carved);
        }
        // A source that hands back the heights' range too (the pipeline's thresholds pass finds
        // it; lo and hi above): the one-thread flood quantises with it, the others find it
        // themselves; the same.
        for (int threads : {1, 2}) {
            CAPTURE(threads);
            Grid<float> carved = heights;
            const HydrologyResult ranged = run_hydrology_in_place(
                carved, rain_map, settings, 4,
                [&](int) {
                    return IntoGrid(make_into(carved), {lo, hi});
                },
                keep_flow, threads);
            check_same_hydrology(ranged, carved, one, one.carved);
        }
    }
    CHECK(lakes > 10);
    CHECK(rivers > 20);
    CHECK(agents > 0);
}
