#include <doctest/doctest.h>

#include "core/rules/autotile.hpp"
#include "core/rules/rule_parser.hpp"

#include <tuple>

#include "core/hash.hpp"

using namespace tilegen;

TEST_CASE("weighted choice follows the weights over many cells") {
    ResolvedTargets t{{gid_of(0), gid_of(1), gid_of(2)}, {1.0, 0.5, 0.0}};
    int counts[3] = {0, 0, 0};
    for (int y = 0; y < 200; ++y)
        for (int x = 0; x < 200; ++x)
            ++counts[choose_target(t, 12345, 7, x, y)];
    const double n = 40000;
    CHECK(counts[0] / n == doctest::Approx(2.0 / 3).epsilon(0.03));
    CHECK(counts[1] / n == doctest::Approx(1.0 / 3).epsilon(0.05));
    CHECK(counts[2] == 0); // weight 0 is never chosen
}

TEST_CASE("the choice is stable per (seed, cell, rule) and changes with each") {
    ResolvedTargets t{{gid_of(0), gid_of(1)}, {1.0, 1.0}};
    int same_seed_diff = 0, rule_diff = 0;
    for (int x = 0; x < 1000; ++x) {
        CHECK(choose_target(t, 1, 2, x, 3) == choose_target(t, 1, 2, x, 3));
        same_seed_diff += choose_target(t, 1, 2, x, 3) != choose_target(t, 1, 99, x, 3);
        rule_diff += choose_target(t, 1, 2, x, 3) != choose_target(t, 2, 2, x, 3);
    }
    CHECK(same_seed_diff > 350);
    CHECK(rule_diff > 350);
}

TEST_CASE("editing one rule does not reshuffle cells decided by another") {
    const SymbolTable symbols{{'w', 0}, {'g', 1}};
    ClassGrid classes(40, 40, 1);
    for (int y = 0; y < 40; ++y)
        for (int x = 0; x < 20; ++x)
            classes(x, y) = 0;
    auto layer_for = [&](const char* text) {
        Diagnostics d;
        LayerRules layer{"ground", order_by_specificity(parse_rules(text, "r", symbols, d)), {}};
        REQUIRE(d.empty());
        for (const Rule& r : layer.ordered) {
            ResolvedTargets rt;
            for (std::size_t i = 0; i < r.targets.size(); ++i) {
                rt.gids.push_back(gid_of(static_cast<int>(i) + (r.pattern.at(0, 0) == 1 ? 0 : 10)));
                rt.weights.push_back(r.targets[i].weight);
            }
            layer.resolved.push_back(rt);
        }
        return layer;
    };
    std::vector<LayerRules> before{layer_for("w water water2 water3\ng grass flowers\n")};
    std::vector<LayerRules> after{layer_for("w water water2 water3\ng grass flowers*3 tuft\n")};
    auto a = autotile(classes, before, 2, {}, 5, 0);
    auto b = autotile(classes, after, 2, {}, 5, 0);
    bool water_same = true, grass_changed = false;
    for (int y = 0; y < 40; ++y)
        for (int x = 0; x < 40; ++x) {
            if (x < 20)
                water_same = water_same && a.layers[0].tiles(x, y) == b.layers[0].tiles(x, y);
            else
                grass_changed = grass_changed || a.layers[0].tiles(x, y) != b.layers[0].tiles(x, y);
        }
    CHECK(water_same);
    CHECK(grass_changed);
}

// autotile() against a cell-by-cell reference (first_match, then choose_target): tiles, per-rule
// hits, unmatched counts and the first unmatched cell, for rules with one target, several weighted
// ones (including a straddling weight and zero weights), none at all (the error tile), and cells no
// rule covers; at 1, 2 and 3 threads.
TEST_CASE("autotile agrees with first_match and choose_target cell by cell") {
    const SymbolTable symbols{{'a', 0}, {'b', 1}, {'c', 2}, {'d', 3}};
    const char* text = "aaa aaa aaa one\n"
                       "?b? bbb ?b? two*1 three*0.3 four*0.0001 five*0\n"
                       "??? ?b? ??? six seven\n"
                       "??? ?a? ??? a1*3 a2 a3*0.5 a4*0.25 a5*0.125 a6*0.0625 a7 a8 a9\n"
                       "?c? ccc ?c? c1\n"; // d and most c cells are left to no rule
    Diagnostics diags;
    LayerRules layer{"ground", order_by_specificity(parse_rules(text, "r", symbols, diags)), {}};
    REQUIRE(diags.empty());
    for (std::size_t r = 0; r < layer.ordered.size(); ++r) {
        ResolvedTargets rt;
        for (std::size_t i = 0; i < layer.ordered[r].targets.size(); ++i) {
            rt.gids.push_back(gid_of(static_cast<int>(r * 16 + i)));
            rt.weights.push_back(layer.ordered[r].targets[i].weight);
        }
        if (layer.ordered[r].line == 1)
            rt = {}; // a rule without targets: its cells get the error tile
        layer.resolved.push_back(rt);
    }
    const Gid error = gid_of(999);
    for (const auto& [w, h, seed] : {std::tuple{1, 1, 1}, {37, 23, 2}, {130, 61, 3}}) {
        ClassGrid classes(w, h, 0);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const std::uint64_t blob =
                    hash_values(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(x / 5),
                                static_cast<std::uint64_t>(y / 4));
                classes(x, y) = static_cast<ClassId>(blob % 4);
            }
        std::vector<std::uint64_t> want_hits(layer.ordered.size(), 0);
        std::uint64_t want_unmatched = 0;
        std::int64_t want_first = -1;
        Grid<Gid> want(w, h, 0);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const int r = first_match(classes, x, y, layer.ordered, {});
                if (r == kNoRule) {
                    ++want_unmatched;
                    if (want_first < 0) want_first = static_cast<std::int64_t>(y) * w + x;
                    want(x, y) = error;
                    continue;
                }
                ++want_hits[static_cast<std::size_t>(r)];
                const ResolvedTargets& rt = layer.resolved[static_cast<std::size_t>(r)];
                const int t = choose_target(rt, layer.ordered[static_cast<std::size_t>(r)].identity,
                                            11, x, y);
                want(x, y) = t < 0 ? error : rt.gids[static_cast<std::size_t>(t)];
            }
        CHECK(want_unmatched > 0);
        for (int threads : {1, 2, 3}) {
            CAPTURE(w);
            CAPTURE(threads);
            const AutotileResult got = autotile(classes, std::span<const LayerRules>(&layer, 1), 4,
                                                {}, 11, error, threads);
            CHECK(got.layers[0].tiles.cells() == want.cells());
            CHECK(got.hits[0] == want_hits);
            CHECK(got.unmatched == want_unmatched);
            CHECK(got.layer_unmatched == std::vector<std::uint64_t>{want_unmatched});
            CHECK(got.first_unmatched == std::vector<std::int64_t>{want_first});
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    CHECK(got.decisions[0](x, y) == first_match(classes, x, y, layer.ordered, {}));
        }
    }
}
