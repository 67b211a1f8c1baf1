// place_objects against a plain placer: the semantics of object_placement.hpp written as plain
// loops over a list of candidates, with plain grids instead of bitsets, no threads, no masks. Every
// object (sprite, position, rule) and the drawing order must match, over many random maps, rules
// and thread counts. Then windows: a window placed with object_margin() around it has exactly the
// whole map's objects there.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/hash.hpp"
#include "core/objects/object_placement.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

// Salts of the sprite pick per attempt.
constexpr std::array<std::uint64_t, 2> kPickSalt{0x94d049bb133111ebull, 0x61c8864680b583ebull};

// The plain placer. Per rule, in recipe order: a grid of square blocks of side
// floor(spacing / sqrt 2) (at least 1); each block has two attempts, each at a jittered cell of
// the block, and its first attempt on the rule's classes, free of the earlier rules' footprints,
// accepted by chance and density, whose picked sprite's footprint fits, is its candidate. Two
// candidates conflict when they share a block, their anchors are closer than the spacing, or their
// footprints overlap. Then 8 rounds: every live candidate that outranks each live candidate it
// conflicts with (higher block priority; in one block the first attempt; then block order) is
// placed, then every live candidate that conflicts with a placed one is out. What is still live is
// not placed.
std::vector<PlacedObject> reference_place(const ClassGrid& classes, const NamedMaps& maps,
                                          const std::vector<ObjectRule>& rules,
                                          const SpriteSheet& sheet, std::uint64_t seed) {
    const int w = classes.width(), h = classes.height();
    Grid<std::uint8_t> occupied(w, h, 0); // footprints of every rule so far
    std::vector<PlacedObject> placed;
    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        const ObjectRule& rule = rules[ri];
        std::vector<int> found; // sheet indices of the rule's sprites, in the rule's order
        for (const std::string& name : rule.sprites)
            for (std::size_t s = 0; s < sheet.sprites.size(); ++s)
                if (sheet.sprites[s].name == name) found.push_back(static_cast<int>(s));
        if (found.empty() || rule.on == 0) continue;
        const Grid<float>* density = nullptr; // none (uniform) or one at least as large as the map
        for (const auto& [name, g] : maps)
            if (!rule.density.empty() && name == rule.density && g.width() >= w && g.height() >= h)
                density = &g;
        auto allowed = [&](int x, int y) {
            return classes(x, y) < kMaxClasses && ((rule.on >> classes(x, y)) & 1u);
        };
        // Acceptance probability: chance, times the density's rise above the threshold.
        auto probability = [&](int x, int y) {
            if (!density) return rule.chance;
            if (rule.threshold >= 1) return 0.0;
            const double d = (*density)(x, y);
            return rule.chance * std::clamp((d - rule.threshold) / (1 - rule.threshold), 0.0, 1.0);
        };
        // Weighted pick by the top 53 bits of a hash (the first sprite when nothing is picked).
        auto pick = [&](std::uint64_t hash) {
            double total = 0, acc = 0;
            for (double wt : rule.weights)
                total += std::max(0.0, wt);
            if (found.size() < 2 || total <= 0) return 0;
            const double u = static_cast<double>(hash >> 11) / 9007199254740992.0;
            for (std::size_t k = 0; k < rule.weights.size(); ++k) {
                acc += std::max(0.0, rule.weights[k]);
                if (u < std::min(1.0, acc / total))
                    return static_cast<int>(std::min(k, found.size() - 1));
            }
            return 0;
        };
        const std::uint64_t stream = hash_values(seed, 0x6f626a656374ull, ri);
        const std::uint64_t jitter = mix64(stream ^ 0x6a6974746572ull);
        const std::uint64_t accept = mix64(stream ^ 0x616363657074ull);
        const std::uint64_t prior = mix64(stream ^ 0x7072696f72ull);
        const int block = std::max(1, static_cast<int>(std::floor(rule.spacing / std::sqrt(2.0))));
        const int blocks_w = (w + block - 1) / block, blocks_h = (h + block - 1) / block;
        struct Cand {
            std::uint32_t priority;
            int block, attempt, x, y, sprite; // sprite: sheet index
            int state;                        // 1 live, 2 placed, 0 out
        };
        std::vector<Cand> cands;
        for (int by = 0; by < blocks_h; ++by)
            for (int bx = 0; bx < blocks_w; ++bx) {
                const std::uint64_t hu = hash_position(accept, bx, by);
                const std::uint64_t hj = hash_position(jitter, bx, by);
                for (int a = 0; a < 2; ++a) {
                    const std::uint64_t ja = hj >> (32 * a), ua = hu >> (32 * a);
                    const int x = bx * block + static_cast<int>((ja & 0xffff) * block / 65536);
                    const int y =
                        by * block + static_cast<int>(((ja >> 16) & 0xffff) * block / 65536);
                    if (x >= w || y >= h || !allowed(x, y) || occupied(x, y)) continue;
                    // Rejected when u >= p (a NaN density accepts).
                    if (static_cast<double>(ua & 0xffffffffu) / 4294967296.0 >= probability(x, y))
                        continue;
                    const int sprite = found[static_cast<std::size_t>(
                        pick(mix64(hu ^ kPickSalt[static_cast<std::size_t>(a)])))];
                    const SpriteInfo& info = sheet.sprites[static_cast<std::size_t>(sprite)];
                    bool fits = x + info.footprint_w <= w && y + info.footprint_h <= h;
                    for (int fy = y; fits && fy < y + info.footprint_h; ++fy)
                        for (int fx = x; fits && fx < x + info.footprint_w; ++fx)
                            fits = allowed(fx, fy) && !occupied(fx, fy);
                    if (!fits) continue;
                    cands.push_back({static_cast<std::uint32_t>(hash_position(prior, bx, by) >> 32),
                                     by * blocks_w + bx, a, x, y, sprite, 1});
                    break; // the block's first attempt that passes is its candidate
                }
            }
        auto fw = [&](const Cand& c) {
            return sheet.sprites[static_cast<std::size_t>(c.sprite)].footprint_w;
        };
        auto fh = [&](const Cand& c) {
            return sheet.sprites[static_cast<std::size_t>(c.sprite)].footprint_h;
        };
        auto conflict = [&](const Cand& a, const Cand& b) {
            const double dx = a.x - b.x, dy = a.y - b.y;
            return a.block == b.block || dx * dx + dy * dy < rule.spacing * rule.spacing ||
                   (a.x < b.x + fw(b) && b.x < a.x + fw(a) && a.y < b.y + fh(b) &&
                    b.y < a.y + fh(a));
        };
        auto outranks = [](const Cand& a, const Cand& b) {
            if (a.priority != b.priority) return a.priority > b.priority;
            if (a.block != b.block) return a.block < b.block;
            return a.attempt < b.attempt;
        };
        // Candidates by anchor cell, to find those that can conflict: within the spacing or a
        // footprint's extent, plus one.
        int range = static_cast<int>(std::ceil(rule.spacing)) + 1;
        for (int s : found)
            range = std::max({range, sheet.sprites[static_cast<std::size_t>(s)].footprint_w,
                              sheet.sprites[static_cast<std::size_t>(s)].footprint_h});
        Grid<std::vector<int>> at(w, h);
        for (std::size_t i = 0; i < cands.size(); ++i)
            at(cands[i].x, cands[i].y).push_back(static_cast<int>(i));
        auto neighbours = [&](const Cand& c, auto f) {
            for (int y = std::max(0, c.y - range); y <= std::min(h - 1, c.y + range); ++y)
                for (int x = std::max(0, c.x - range); x <= std::min(w - 1, c.x + range); ++x)
                    for (int j : at(x, y))
                        if (&cands[static_cast<std::size_t>(j)] != &c)
                            f(cands[static_cast<std::size_t>(j)]);
        };
        for (int round = 0; round < 8; ++round) {
            std::vector<std::size_t> change;
            for (std::size_t i = 0; i < cands.size(); ++i) {
                if (cands[i].state != 1) continue;
                bool best = true;
                neighbours(cands[i], [&](const Cand& o) {
                    if (o.state == 1 && outranks(o, cands[i]) && conflict(o, cands[i]))
                        best = false;
                });
                if (best) change.push_back(i);
            }
            for (std::size_t i : change)
                cands[i].state = 2;
            change.clear();
            for (std::size_t i = 0; i < cands.size(); ++i) {
                if (cands[i].state != 1) continue;
                bool blocked = false;
                neighbours(cands[i], [&](const Cand& o) {
                    if (o.state == 2 && conflict(o, cands[i])) blocked = true;
                });
                if (blocked) change.push_back(i);
            }
            for (std::size_t i : change)
                cands[i].state = 0;
        }
        for (const Cand& c : cands) {
            if (c.state != 2) continue;
            placed.push_back({c.sprite, c.x, c.y, static_cast<int>(ri)});
            for (int fy = c.y; fy < c.y + fh(c); ++fy)
                for (int fx = c.x; fx < c.x + fw(c); ++fx)
                    occupied(fx, fy) = 1;
        }
    }
    // Drawing order: footprint bottom row, then x.
    auto key = [&](const PlacedObject& o) {
        return std::pair(o.y + sheet.sprites[static_cast<std::size_t>(o.sprite)].footprint_h, o.x);
    };
    std::stable_sort(placed.begin(), placed.end(),
                     [&](const PlacedObject& a, const PlacedObject& b) { return key(a) < key(b); });
    return placed;
}

// Small deterministic generator for the cases (its own, so the cases never change).
struct Random {
    std::uint64_t state;
    std::uint64_t next() { return state = mix64(state); }
    int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
    double unit() { return unit_double(next()); }
};

// One random case: map, classes, density maps, sprite sheet and rules.
struct Case {
    ClassGrid classes;
    NamedMaps maps;
    SpriteSheet sheet;
    std::vector<ObjectRule> rules;
};

Case random_case(Random& rnd, int w, int h) {
    Case c;
    const int class_count = 1 + rnd.below(6);
    // Classes in patches of a random size (1: noise per cell; large: one class almost everywhere),
    // now and then an unusable class id beyond the 32 a mask can name.
    c.classes = ClassGrid(w, h);
    const int patch = 1 + rnd.below(rnd.below(2) ? 4 : 40);
    const std::uint64_t salt = rnd.next();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::uint64_t v = hash_position(salt, x / patch, y / patch);
            c.classes(x, y) = static_cast<ClassId>(v % 97 == 0 ? 33 + v % 200 : v % class_count);
        }
    // Density maps: smooth-ish, pure noise, constant, with values outside 0..1 and NaN; some larger
    // than the class map.
    for (int m = 0; m < 3; ++m) {
        const int mw = w + (rnd.below(4) == 0 ? rnd.below(20) : 0);
        const int mh = h + (rnd.below(4) == 0 ? rnd.below(20) : 0);
        Grid<float> g(mw, mh);
        const int kind = rnd.below(4), scale = 1 + rnd.below(30);
        const std::uint64_t s = rnd.next();
        const float constant = static_cast<float>(rnd.unit());
        for (int y = 0; y < mh; ++y)
            for (int x = 0; x < mw; ++x) {
                const std::uint64_t v = hash_position(s, x / scale, y / scale);
                float d = kind == 0 ? constant : unit_float(v);
                if (kind == 3 && v % 50 == 0)
                    d = v % 3 == 0   ? std::numeric_limits<float>::quiet_NaN()
                        : v % 3 == 1 ? -0.5f
                                     : 1.5f;
                g(x, y) = d;
            }
        c.maps.emplace_back("d" + std::to_string(m), std::move(g));
    }
    // Sprites: footprints mostly small, sometimes up to the sheet's limit of 16.
    const int sprites = 1 + rnd.below(5);
    for (int s = 0; s < sprites; ++s) {
        SpriteInfo info;
        info.name = "s" + std::to_string(s);
        info.index = s;
        const int big = rnd.below(8) == 0 ? 16 : 4;
        info.footprint_w = 1 + rnd.below(big);
        info.footprint_h = 1 + rnd.below(big);
        c.sheet.sprites.push_back(info);
    }
    const int rule_count = 1 + rnd.below(4);
    for (int r = 0; r < rule_count; ++r) {
        ObjectRule rule;
        const int n = 1 + rnd.below(3);
        for (int k = 0; k < n; ++k) {
            rule.sprites.push_back("s" + std::to_string(rnd.below(sprites)));
            rule.weights.push_back(rnd.below(4) == 0 ? 0.0 : rnd.unit() * 3);
        }
        rule.on = rnd.below(10) == 0 ? 0u : static_cast<std::uint32_t>(rnd.next());
        if (rnd.below(3) == 0) rule.on |= 1u; // often the first class, which patches favour
        rule.density = rnd.below(3) == 0 ? "" : "d" + std::to_string(rnd.below(3));
        const int t = rnd.below(6);
        rule.threshold = t == 0 ? 0 : t == 1 ? 1 : rnd.unit();
        const int ch = rnd.below(5);
        rule.chance = ch == 0 ? 1 : ch == 1 ? 0 : rnd.unit();
        static constexpr double kSpacings[] = {0, 1, 1.4, 1.5, 2, 2.5, 2.9, 3, 4.25, 5, 8, 11.3};
        const int sp = rnd.below(16);
        rule.spacing = sp < 12 ? kSpacings[sp] : sp < 15 ? 1 + rnd.unit() * 30 : rnd.unit() * 150;
        c.rules.push_back(rule);
    }
    return c;
}

int compare_with_reference(const Case& c, std::uint64_t seed) {
    const auto expected = reference_place(c.classes, c.maps, c.rules, c.sheet, seed);
    for (int threads : {1, 2, 8}) {
        CAPTURE(threads);
        const auto got = place_objects(c.classes, c.maps, c.rules, c.sheet, seed, threads);
        if (got == expected) continue;
        // The first difference, with its place in the list.
        std::size_t i = 0;
        while (i < got.size() && i < expected.size() && got[i] == expected[i])
            ++i;
        CAPTURE(i);
        CAPTURE(got.size());
        CAPTURE(expected.size());
        REQUIRE(i < std::min(got.size(), expected.size()));
        CAPTURE(got[i].sprite);
        CAPTURE(got[i].x);
        CAPTURE(got[i].y);
        CAPTURE(got[i].rule);
        CAPTURE(expected[i].sprite);
        CAPTURE(expected[i].x);
        CAPTURE(expected[i].y);
        CAPTURE(expected[i].rule);
        FAIL("place_objects differs from the plain placer");
    }
    return static_cast<int>(expected.size());
}

} // namespace

TEST_CASE("objects: place_objects matches the plain placer on every object") {
    Random rnd{0x7265666572656e63ull};
    long long objects = 0;
    // Many small maps (1x1, odd sizes, across the 64-row tile rows), a few up to 300 on a side, and
    // a few wide ones, where more than one thread splits the rows into several strips of tiles.
    // (The sanitizer build compares every tenth case: test::cases.)
    const int step = 1250 / test::cases(1250, 125);
    for (int i = 0; i < 1250; ++i) {
        int w, h;
        if (i < 1000) {
            w = 1 + rnd.below(rnd.below(4) == 0 ? 3 : 80);
            h = 1 + rnd.below(rnd.below(4) == 0 ? 3 : 150);
        } else if (i < 1180) {
            w = 1 + rnd.below(300);
            h = 1 + rnd.below(300);
        } else {
            w = 400 + rnd.below(1200);
            h = 30 + rnd.below(170);
        }
        const std::uint64_t seed = rnd.next();
        const Case c = random_case(rnd, w, h);
        if (i % step != 0) continue;
        CAPTURE(i);
        CAPTURE(w);
        CAPTURE(h);
        objects += compare_with_reference(c, seed);
    }
    MESSAGE(objects << " objects compared");
    CHECK(objects > 100000 / step);
}

TEST_CASE("objects: the plain placer agrees on dense forests of one footprint") {
    // The common case of the samples: one class, one or two sprites of one footprint, small
    // spacings, wide enough for several strips of tiles.
    SpriteSheet sheet;
    sheet.sprites = {{"oak", 0, 2, 2}, {"pine", 1, 2, 2}, {"rock", 2, 1, 1}};
    const int w = 777, h = 301;
    ClassGrid classes(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            classes(x, y) = static_cast<ClassId>((x / 50 + y / 37) % 3 == 0 ? 1 : 0);
    NamedMaps maps{{"d", Grid<float>(w, h)}};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            maps[0].second(x, y) = static_cast<float>((x % 97) + (y % 89)) / 186.0f;
    for (double spacing : {1.0, 2.0, 3.0, 4.0, 7.0}) {
        CAPTURE(spacing);
        ObjectRule trees;
        trees.sprites = {"oak", "pine"};
        trees.weights = {1, 2};
        trees.on = 1;
        trees.spacing = spacing;
        trees.chance = 0.8;
        trees.density = spacing == 3.0 ? "d" : "";
        trees.threshold = 0.2;
        ObjectRule rocks;
        rocks.sprites = {"rock"};
        rocks.weights = {1};
        rocks.on = 3;
        rocks.spacing = spacing + 1;
        rocks.chance = 0.5;
        CHECK(compare_with_reference({classes, maps, sheet, {trees, rocks}}, 99) > 1000);
    }
}

namespace {

// The case's classes and maps cut to `r` (inside the class map).
Case cut(const Case& c, Region r) {
    Case out{crop(c.classes, r), {}, c.sheet, c.rules};
    for (const auto& [name, g] : c.maps)
        out.maps.emplace_back(name, crop(g, r));
    return out;
}

} // namespace

TEST_CASE("objects: a window placed with object_margin around it has the whole map's objects") {
    Random rnd{0x77696e646f7773ull};
    long long compared = 0;
    int cut_cases = 0; // windows whose cells around them are less than the whole map
    for (int i = 0; i < 300; ++i) {
        const int w = 60 + rnd.below(340), h = 60 + rnd.below(300);
        const std::uint64_t seed = rnd.next();
        Case c = random_case(rnd, w, h);
        // Spacings and footprints as recipes have them, so the margin leaves some of the map out.
        for (ObjectRule& r : c.rules)
            if (r.spacing > 8) r.spacing = 1 + rnd.unit() * 7;
        for (SpriteInfo& s : c.sheet.sprites) {
            s.footprint_w = std::min(s.footprint_w, 3);
            s.footprint_h = std::min(s.footprint_h, 3);
        }
        const int margin = object_margin(c.rules, c.sheet);
        const int threads = 1 + rnd.below(3);
        const auto whole = place_objects(c.classes, c.maps, c.rules, c.sheet, seed, threads);
        // A window anywhere (possibly reaching past the map), and the cells around it.
        const Region window{rnd.below(w) - 5, rnd.below(h) - 5, 1 + rnd.below(w / 2 + 5),
                            1 + rnd.below(h / 2 + 5)};
        const int x0 = std::max(0, window.x - margin), y0 = std::max(0, window.y - margin);
        const int x1 = std::min(w, window.x + window.width + margin),
                  y1 = std::min(h, window.y + window.height + margin);
        CAPTURE(i);
        CAPTURE(margin);
        if (x0 >= x1 || y0 >= y1) continue;
        const Case part = cut(c, Region{x0, y0, x1 - x0, y1 - y0});
        PlacementFrame frame;
        frame.x = x0;
        frame.y = y0;
        frame.bounds = Region{0, 0, w, h};
        frame.keep = window;
        const auto got =
            place_objects(part.classes, part.maps, part.rules, part.sheet, seed, threads, frame);
        std::vector<PlacedObject> want;
        for (const PlacedObject& o : whole)
            if (o.x >= window.x && o.x < window.x + window.width && o.y >= window.y &&
                o.y < window.y + window.height)
                want.push_back(o);
        CHECK(got == want);
        compared += static_cast<long long>(want.size());
        cut_cases += (x1 - x0) * (y1 - y0) < w * h && !want.empty();
        // Unbounded: the window with the margin around it, against the window with twice the
        // margin, both inside the map (an endless world's pieces).
        const Region inner{w / 4, h / 4, w / 2, h / 2};
        auto endless = [&](int m) {
            const int ex0 = std::max(0, inner.x - m), ey0 = std::max(0, inner.y - m);
            const Region r{ex0, ey0, std::min(w, inner.x + inner.width + m) - ex0,
                           std::min(h, inner.y + inner.height + m) - ey0};
            const Case e = cut(c, r);
            PlacementFrame f;
            f.x = r.x;
            f.y = r.y;
            f.unbounded = true;
            f.keep = inner;
            return place_objects(e.classes, e.maps, e.rules, e.sheet, seed, threads, f);
        };
        if (inner.x >= 2 * margin && inner.y >= 2 * margin) {
            const auto a = endless(margin), b = endless(2 * margin);
            CHECK(a == b);
            compared += static_cast<long long>(a.size());
        }
    }
    MESSAGE(compared << " objects compared, " << cut_cases << " windows cut from the map");
    CHECK(compared > 20000);
    CHECK(cut_cases > 80);
}

TEST_CASE("objects: densities just above a threshold that is no float still place objects") {
    // place_objects skips blocks whose densities are all at most the threshold before any hashing;
    // as floats, the threshold must be rounded down for that. 1 - 2^-30 rounds up to 1.0f, and a
    // density of 1 lies above it: probability 1, an object on every block the spacing leaves.
    SpriteSheet sheet;
    sheet.sprites = {{"rock", 0, 1, 1}};
    const int w = 70, h = 9;
    Case c{ClassGrid(w, h, 0), NamedMaps{{"d", Grid<float>(w, h, 1.0f)}}, sheet, {}};
    ObjectRule rocks;
    rocks.sprites = {"rock"};
    rocks.weights = {1};
    rocks.on = 1;
    rocks.spacing = 1;
    rocks.density = "d";
    rocks.threshold = 1 - std::ldexp(1.0, -30);
    c.rules.push_back(rocks);
    CHECK(compare_with_reference(c, 5) == w * h);
}
