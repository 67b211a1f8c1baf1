#include <doctest/doctest.h>

#include "core/rules/legalise.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/hash.hpp"
#include "core/rules/rule_parser.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

// ---- A plain reference of legalise's semantics (see legalise.hpp): every cell decided by
// first_match, every candidate scored by changing the grid and recounting.
namespace ref {

bool drawable(const ClassGrid& g, int x, int y, const std::vector<LayerRules>& layers,
              OutsidePolicy outside) {
    for (const LayerRules& layer : layers) {
        const int r = first_match(g, x, y, layer.ordered, outside);
        if (r == kNoRule) return false;
        bool draws = false;
        for (const Target& t : layer.ordered[static_cast<std::size_t>(r)].targets)
            draws = draws || t.kind != Target::Kind::error;
        if (!draws) return false;
    }
    return true;
}

int radius_of(const std::vector<LayerRules>& layers) {
    int r = 0;
    for (const LayerRules& l : layers)
        for (const Rule& rule : l.ordered)
            r = std::max(r, rule.pattern.radius());
    return r;
}

// dist(a, b) by Floyd-Warshall over "meet" (both straight borders drawable, either side).
std::vector<int> distances(const std::vector<LayerRules>& layers, int k) {
    const int n = 2 * (radius_of(layers) + 1);
    auto border = [&](int a, int b, bool vertical) {
        ClassGrid g(n, n);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                g(x, y) = static_cast<ClassId>(((vertical ? x : y) < n / 2) ? a : b);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                if (!drawable(g, x, y, layers, {})) return false;
        return true;
    };
    const int inf = 1000;
    std::vector<int> d(static_cast<std::size_t>(k * k), inf);
    for (int a = 0; a < k; ++a)
        for (int b = 0; b < k; ++b)
            if (a == b)
                d[static_cast<std::size_t>(a * k + b)] = 0;
            else if (border(a, b, true) && border(b, a, true) && border(a, b, false) &&
                     border(b, a, false))
                d[static_cast<std::size_t>(a * k + b)] = 1;
    for (int m = 0; m < k; ++m)
        for (int a = 0; a < k; ++a)
            for (int b = 0; b < k; ++b)
                d[static_cast<std::size_t>(a * k + b)] =
                    std::min(d[static_cast<std::size_t>(a * k + b)],
                             d[static_cast<std::size_t>(a * k + m)] +
                                 d[static_cast<std::size_t>(m * k + b)]);
    for (int& v : d)
        if (v >= inf) v = -1;
    return d;
}

LegaliseResult legalise(ClassGrid g, const std::vector<LayerRules>& layers, int k,
                        OutsidePolicy outside, int max_rounds) {
    LegaliseResult result;
    const ClassGrid original = g;
    const int w = g.width(), h = g.height();
    auto count_bad = [&] {
        std::uint64_t n = 0;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                n += drawable(g, x, y, layers, outside) ? 0 : 1;
        return n;
    };
    const std::vector<int> dist = distances(layers, k);
    // Classes that far apart need dist - 1 cells between them: at cell distance d, the shortfall.
    auto gap = [&](int a, int b, int cells) {
        const int d = dist[static_cast<std::size_t>(a * k + b)];
        return d < 0 ? k : std::max(0, d - cells);
    };
    const int R = std::max(1, radius_of(layers)), s = 2 * R + 1;
    std::uint64_t bad = count_bad();
    result.report.undrawable_before = bad;
    bool near = false;
    for (int round = 0; round < max_rounds && bad > 0; ++round) {
        ++result.report.rounds;
        int changed = 0;
        for (int ky = 0; ky < s; ++ky)
            for (int kx = 0; kx < s; ++kx) {
                struct Change {
                    int x, y, c;
                };
                std::vector<Change> changes;
                for (int y = ky; y < h; y += s)
                    for (int x = kx; x < w; x += s) {
                        auto bad_in_window = [&] {
                            int n = 0;
                            for (int v = y - R; v <= y + R; ++v)
                                for (int u = x - R; u <= x + R; ++u)
                                    if (g.contains(u, v) && !drawable(g, u, v, layers, outside))
                                        ++n;
                            return n;
                        };
                        const int before = bad_in_window();
                        const bool position =
                            near ? before > 0 : !drawable(g, x, y, layers, outside);
                        if (!position) continue;
                        const int a = g(x, y);
                        // The cells within distance 2 as the rules see them, with (x, y) of
                        // class c (a clamped cell that is (x, y) itself counts 0).
                        auto gaps_with = [&](int c) {
                            int sum = 0;
                            for (int dy = -2; dy <= 2; ++dy)
                                for (int dx = -2; dx <= 2; ++dx) {
                                    const int u = x + dx, v = y + dy;
                                    int q = 0;
                                    if (g.contains(u, v))
                                        q = g(u, v);
                                    else if (outside.fixed_class)
                                        q = *outside.fixed_class;
                                    else
                                        q = g(std::clamp(u, 0, w - 1), std::clamp(v, 0, h - 1));
                                    const bool self =
                                        (!dx && !dy) ||
                                        (!outside.fixed_class && std::clamp(u, 0, w - 1) == x &&
                                         std::clamp(v, 0, h - 1) == y);
                                    if (!self)
                                        sum += gap(c, q, std::max(std::abs(dx), std::abs(dy)));
                                }
                            return sum;
                        };
                        std::vector<int> order;
                        for (int d = 1; d < k; ++d)
                            for (int c : {a - d, a + d})
                                if (c >= 0 && c < k) order.push_back(c);
                        int best = -1, best_count = 0, best_gap = 0;
                        for (int c : order) {
                            const int d_gap = gaps_with(c) - gaps_with(a);
                            g(x, y) = static_cast<ClassId>(c);
                            const int d_count = bad_in_window() - before;
                            g(x, y) = static_cast<ClassId>(a);
                            if (d_count < best_count ||
                                (d_count == best_count && d_gap < best_gap)) {
                                best = c;
                                best_count = d_count;
                                best_gap = d_gap;
                            }
                        }
                        if (best >= 0) changes.push_back({x, y, best});
                    }
                for (const Change& c : changes)
                    g(c.x, c.y) = static_cast<ClassId>(c.c);
                changed += static_cast<int>(changes.size());
            }
        bad = count_bad();
        if (changed == 0) {
            if (near) break;
            near = true;
        } else {
            near = false;
        }
    }
    result.report.undrawable = bad;
    for (std::size_t i = 0; i < g.size(); ++i)
        result.report.changed += g.cells()[i] != original.cells()[i] ? 1 : 0;
    result.classes = std::move(g);
    return result;
}

} // namespace ref

std::vector<LayerRules> layers_of(const std::vector<Rule>& rules) {
    std::vector<LayerRules> layers;
    for (const Rule& r : rules) {
        auto it = std::find_if(layers.begin(), layers.end(),
                               [&](const LayerRules& l) { return l.name == r.layer; });
        if (it == layers.end()) {
            layers.push_back({r.layer, {}, {}});
            it = layers.end() - 1;
        }
        it->ordered.push_back(r);
    }
    for (LayerRules& l : layers)
        l.ordered = order_by_specificity(std::move(l.ordered));
    return layers;
}

// deep (D) 0, water (w) 1, sand (s) 2, grass (g) 3.
constexpr int kD = 0, kW = 1, kS = 2, kG = 3;

std::vector<LayerRules> pairwise_layers() {
    const std::string text =
        test::read_text(test::source_dir() / "tests/data/legalise-pairwise/pairwise.rules");
    Diagnostics diags;
    const auto rules =
        parse_rules(text, "pairwise.rules", {{'D', 0}, {'w', 1}, {'s', 2}, {'g', 3}}, diags);
    REQUIRE(diags.empty());
    return layers_of(rules);
}

std::uint64_t undrawable(const ClassGrid& g, const std::vector<LayerRules>& layers,
                         OutsidePolicy outside) {
    std::uint64_t n = 0;
    for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x)
            n += ref::drawable(g, x, y, layers, outside) ? 0 : 1;
    return n;
}

// A random rule set over k classes: 1x1, 3x3 and a few 5x5 patterns; targets tiles, @none or
// @error; sometimes a catch-all.
std::vector<LayerRules> random_layers(std::uint64_t seed, int k) {
    std::uint64_t h = seed;
    auto next = [&](int n) {
        h = mix64(h + 0x9E3779B97F4A7C15ull);
        return static_cast<int>(h % static_cast<std::uint64_t>(n));
    };
    std::vector<Rule> rules;
    const int layer_count = 1 + next(2);
    const bool big = next(4) == 0;
    for (int l = 0; l < layer_count; ++l) {
        const int count = 4 + next(14);
        for (int i = 0; i < count; ++i) {
            const int size = next(5) == 0 ? 1 : (big && next(3) == 0 ? 5 : 3);
            Rule r;
            r.pattern = Descriptor(size);
            r.layer = l == 0 ? "ground" : "decor";
            for (int y = 0; y < size; ++y)
                for (int x = 0; x < size; ++x) {
                    if (next(3) == 0 && !(x == size / 2 && y == size / 2)) continue;
                    ClassMask m = 0;
                    while (m == 0)
                        m = static_cast<ClassMask>(next(1 << k));
                    r.pattern.set_cell(x, y, m);
                }
            const int targets = 1 + next(2);
            for (int t = 0; t < targets; ++t) {
                Target target;
                const int kind = next(6);
                target.kind = kind < 2   ? Target::Kind::error
                              : kind < 3 ? Target::Kind::none
                                         : Target::Kind::tile;
                target.name = "t";
                r.targets.push_back(target);
            }
            rules.push_back(r);
        }
        if (next(3) != 0) {
            Rule all;
            all.pattern = Descriptor(1);
            all.layer = l == 0 ? "ground" : "decor";
            Target t;
            t.kind = next(2) == 0 ? Target::Kind::error : Target::Kind::tile;
            all.targets.push_back(t);
            rules.push_back(all);
        }
    }
    return layers_of(rules);
}

// A class grid of jagged blocks of random classes: every pair of classes meets, straight and at
// corners.
ClassGrid block_grid(std::uint64_t seed, int w, int h, int k, int block) {
    ClassGrid g(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const int jx =
                static_cast<int>(hash_values(seed, 1, static_cast<std::uint64_t>(y / 2)) %
                                 static_cast<std::uint64_t>(block));
            const int jy =
                static_cast<int>(hash_values(seed, 2, static_cast<std::uint64_t>(x / 2)) %
                                 static_cast<std::uint64_t>(block));
            g(x, y) = static_cast<ClassId>(
                hash_values(seed, 3, static_cast<std::uint64_t>((x + jx) / block),
                            static_cast<std::uint64_t>((y + jy) / block)) %
                static_cast<std::uint64_t>(k));
        }
    return g;
}

} // namespace

TEST_CASE("legalise: class distances of a pairwise rule set form the chain deep-water-sand-grass") {
    const auto layers = pairwise_layers();
    const std::vector<int> d = class_distances(layers, 4);
    REQUIRE(d.size() == 16);
    // The rules file draws exactly the three transitions D|w, w|s, s|g.
    const int expected[4][4] = {{0, 1, 2, 3}, {1, 0, 1, 2}, {2, 1, 0, 1}, {3, 2, 1, 0}};
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            CHECK(d[static_cast<std::size_t>(a * 4 + b)] == expected[a][b]);
    CHECK(ref::distances(layers, 4) == d);
}

TEST_CASE("legalise: grass beside deep water gets sand and water between") {
    const auto layers = pairwise_layers();
    SUBCASE("a straight border") {
        ClassGrid g(14, 9, kD);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 7; ++x)
                g(x, y) = kG;
        REQUIRE(undrawable(g, layers, {}) > 0);
        const LegaliseResult r = legalise(g, layers, 4, {}, {}, 2);
        CHECK(r.report.undrawable == 0);
        CHECK(undrawable(r.classes, layers, {}) == 0);
        CHECK(r.report.undrawable_before == undrawable(g, layers, {}));
        for (int y = 0; y < 9; ++y) {
            std::string row;
            for (int x = 0; x < 14; ++x)
                row += "Dwsg"[r.classes(x, y)];
            CAPTURE(row);
            // Each row runs grass, sand, water, deep from left to right, with sand and water.
            CHECK(std::is_sorted(row.begin(), row.end(), [](char a, char b) {
                return std::string("Dwsg").find(a) > std::string("Dwsg").find(b);
            }));
            CHECK(row.find('s') != std::string::npos);
            CHECK(row.find('w') != std::string::npos);
        }
    }
    SUBCASE("a grass island in deep water") {
        ClassGrid g(24, 24, kD);
        for (int y = 0; y < 24; ++y)
            for (int x = 0; x < 24; ++x)
                if ((x - 12) * (x - 12) + (y - 11) * (y - 11) <= 36) g(x, y) = kG;
        const LegaliseResult r = legalise(g, layers, 4, {}, {}, 1);
        CHECK(r.report.undrawable == 0);
        CHECK(undrawable(r.classes, layers, {}) == 0);
        CHECK(r.report.changed > 0);
        int grass = 0;
        for (int y = 0; y < 24; ++y)
            for (int x = 0; x < 24; ++x) {
                const int was = g(x, y), now = r.classes(x, y);
                grass += now == kG;
                if (was != now) CHECK((now == kS || now == kW)); // only sand and water are added
            }
        CHECK(grass > 0); // the island keeps a grass core
    }
    SUBCASE("a grid nothing needs: unchanged, no rounds") {
        ClassGrid g(10, 10, kW);
        g(3, 3) = kS;
        const LegaliseResult r = legalise(g, layers, 4, {}, {}, 1);
        CHECK(r.classes == g);
        CHECK(r.report.rounds == 0);
        CHECK(r.report.changed == 0);
    }
}

TEST_CASE(
    "legalise: pairwise rules over 200 seeds of blocky class grids leave nothing undrawable") {
    const auto layers = pairwise_layers();
    std::uint64_t worst = 0, before = 0;
    int max_rounds = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        const ClassGrid g = block_grid(seed, 64, 48, 4, 4 + static_cast<int>(seed % 6));
        const OutsidePolicy outside =
            seed % 3 == 0 ? OutsidePolicy{static_cast<ClassId>(kD)} : OutsidePolicy{};
        const LegaliseResult r = legalise(g, layers, 4, outside, {}, 1);
        if (seed % 10 == 0) { // the same map on 2 and 8 threads
            CHECK(legalise(g, layers, 4, outside, {}, 2).classes == r.classes);
            CHECK(legalise(g, layers, 4, outside, {}, 8).classes == r.classes);
        }
        before += r.report.undrawable_before;
        const std::uint64_t left = undrawable(r.classes, layers, outside);
        CHECK(left == r.report.undrawable);
        worst = std::max(worst, left);
        max_rounds = std::max(max_rounds, r.report.rounds);
    }
    MESSAGE("undrawable cells before: " << before << ", max rounds " << max_rounds);
    CHECK(before > 0);
    CHECK(worst == 0);
}

TEST_CASE("legalise equals the plain reference on random grids and rule sets at 1, 2, 8 threads") {
    std::uint64_t changed = 0, left = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        CAPTURE(seed);
        const int k = 2 + static_cast<int>(seed % 4);
        const auto layers = random_layers(seed, k);
        const int w = 1 + static_cast<int>(mix64(seed) % 18);
        const int h = 1 + static_cast<int>(mix64(seed + 7) % 18);
        const ClassGrid g = block_grid(seed * 31, w, h, k, 1 + static_cast<int>(seed % 4));
        const OutsidePolicy outside =
            seed % 2 ? OutsidePolicy{} : OutsidePolicy{static_cast<ClassId>(seed % k)};
        const int rounds = 1 + static_cast<int>(seed % 9);
        const LegaliseResult expected = ref::legalise(g, layers, k, outside, rounds);
        CHECK(class_distances(layers, k) == ref::distances(layers, k));
        changed += expected.report.changed;
        left += expected.report.undrawable;
        for (int threads : {1, 2, 8}) {
            CAPTURE(threads);
            const LegaliseResult r = legalise(g, layers, k, outside, {rounds}, threads);
            CHECK(r.classes == expected.classes);
            CHECK(r.report.undrawable_before == expected.report.undrawable_before);
            CHECK(r.report.undrawable == expected.report.undrawable);
            CHECK(r.report.changed == expected.report.changed);
            CHECK(r.report.rounds == expected.report.rounds);
            CHECK(r.report.undrawable <= r.report.undrawable_before);
        }
    }
    // The cases exercise both outcomes: cells changed, and cells the rules cannot draw left over.
    CHECK(changed > 0);
    CHECK(left > 0);
}

TEST_CASE("legalise: drawable_cells equals a per-cell first_match") {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const int k = 2 + static_cast<int>(seed % 5);
        const auto layers = random_layers(seed + 100, k);
        const ClassGrid g = block_grid(seed, 23, 19, k, 2);
        const OutsidePolicy outside = seed % 2 ? OutsidePolicy{} : OutsidePolicy{ClassId{0}};
        for (int threads : {1, 3}) {
            const Grid<std::uint8_t> ok = drawable_cells(g, layers, k, outside, threads);
            for (int y = 0; y < g.height(); ++y)
                for (int x = 0; x < g.width(); ++x)
                    CHECK((ok(x, y) != 0) == ref::drawable(g, x, y, layers, outside));
        }
    }
}
