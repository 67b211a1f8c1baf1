// The table-driven matcher (every lookup mode: reduced per-centre keys, flat table, cache, wide
// keys) against the plain first_match, rule by rule, on random rules and class grids.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "core/hash.hpp"
#include "core/rules/rule_matcher.hpp"

using namespace tilegen;

namespace {

// Random rules: each cell is `?` (often), one class, or a random set; sizes 1, 3 or 5 as asked.
std::vector<Rule> random_rules(std::uint64_t seed, int count, int class_count, int max_size) {
    std::vector<Rule> rules;
    const ClassMask all = class_count >= 32 ? kAnyClass : (ClassMask{1} << class_count) - 1;
    for (int i = 0; i < count; ++i) {
        const std::uint64_t h = hash_values(seed, static_cast<std::uint64_t>(i));
        const int size = max_size == 1 ? 1
                                       : (max_size == 3 ? (h % 4 == 0 ? 1 : 3)
                                                        : static_cast<int>(1 + 2 * (h % 3)));
        Rule r;
        r.pattern = Descriptor(size);
        for (int row = 0; row < size; ++row)
            for (int col = 0; col < size; ++col) {
                const std::uint64_t c = hash_values(seed, static_cast<std::uint64_t>(i),
                                                    static_cast<std::uint64_t>(row * 5 + col));
                ClassMask m = kAnyClass;
                switch (c % 5) {
                case 0:
                case 1:
                    break;
                case 2:
                case 3:
                    m = ClassMask{1} << ((c >> 8) % static_cast<std::uint64_t>(class_count));
                    break;
                default:
                    m = static_cast<ClassMask>(c >> 16) & all;
                    if (m == 0) m = 1;
                    break;
                }
                r.pattern.set_cell(col, row, m);
            }
        r.line = i + 1;
        rules.push_back(r);
    }
    return order_by_specificity(rules);
}

// A class grid of blobs (so neighbourhoods repeat, as on real maps) with noise sprinkled in.
ClassGrid random_classes(std::uint64_t seed, int w, int h, int class_count) {
    ClassGrid g(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::uint64_t blob = hash_values(seed, static_cast<std::uint64_t>(x / 4),
                                                   static_cast<std::uint64_t>(y / 3));
            const std::uint64_t cell =
                hash_values(seed + 1, static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
            g(x, y) = static_cast<ClassId>((cell % 7 == 0 ? cell >> 8 : blob) %
                                           static_cast<std::uint64_t>(class_count));
        }
    return g;
}

} // namespace

TEST_CASE("the table matcher agrees with first_match for every lookup mode, outside policy and "
          "thread count") {
    struct Case {
        int classes, max_size, rules;
    };
    // 3x3 over 2..16 classes: reduced keys; 5x5 over 2 classes: flat; 5x5 over 7: cache; 5x5 over
    // 20: wide.
    const Case cases[] = {{2, 3, 20}, {3, 3, 60}, {7, 3, 200}, {16, 3, 120}, {20, 3, 80},
                          {2, 1, 10}, {2, 5, 40}, {7, 5, 100}, {20, 5, 60}};
    for (const Case& c : cases)
        for (int fixed = 0; fixed < 2; ++fixed) {
            CAPTURE(c.classes);
            CAPTURE(c.max_size);
            CAPTURE(fixed);
            const std::uint64_t seed =
                static_cast<std::uint64_t>(c.classes * 100 + c.max_size * 10 + fixed);
            const std::vector<Rule> rules = random_rules(seed, c.rules, c.classes, c.max_size);
            const ClassGrid grid = random_classes(seed, 37, 29, c.classes);
            OutsidePolicy outside;
            if (fixed) outside.fixed_class = static_cast<ClassId>(c.classes - 1);
            const Grid<int> one = match_rules(grid, rules, c.classes, outside, 1);
            const Grid<int> three = match_rules(grid, rules, c.classes, outside, 3);
            CHECK(one == three);
            int matched = 0, mismatches = 0;
            for (int y = 0; y < grid.height(); ++y)
                for (int x = 0; x < grid.width(); ++x) {
                    const int expected = first_match(grid, x, y, rules, outside);
                    mismatches += one(x, y) != expected ? 1 : 0;
                    matched += expected != kNoRule ? 1 : 0;
                }
            CHECK(mismatches == 0);
            CHECK(matched > 0); // the case exercises real decisions, not only "no rule"
        }
}

TEST_CASE("a layer matcher can be shared by threads working on separate rows") {
    const std::vector<Rule> rules = random_rules(5, 150, 7, 3);
    const ClassGrid grid = random_classes(5, 64, 64, 7);
    const LayerMatcher matcher(grid, rules, 7, {});
    Grid<int> a(64, 64, kNoRule), b(64, 64, kNoRule);
    matcher.match_rows(0, 64, [&](int y, const int* d) { std::copy_n(d, 64, a.row(y)); });
    matcher.match_rows(32, 64, [&](int y, const int* d) { std::copy_n(d, 64, b.row(y)); });
    matcher.match_rows(0, 32, [&](int y, const int* d) { std::copy_n(d, 64, b.row(y)); });
    CHECK(a == b);
    CHECK(a == match_rules(grid, rules, 7, {}, 2));
}
