// Corner (dual-grid) layers: 2x2 patterns, their errors, and the matcher against a plain reference.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "core/hash.hpp"
#include "core/rules/autotile.hpp"
#include "core/rules/rule_parser.hpp"

using namespace tilegen;

namespace {
const SymbolTable kSymbols{{'w', 0}, {'s', 1}, {'g', 2}};
constexpr ClassMask W = 1, S = 2, G = 4;

Diagnostics parse_and_check(const std::string& text) {
    Diagnostics d;
    RuleFile f = parse_rule_file(text, "c.rules", kSymbols, d);
    check_corner_layers(f.rules, d);
    return d;
}

// The plain reference: the four cells around corner (i, j), outside by the policy.
ClassId cell_or_outside(const ClassGrid& g, int x, int y, OutsidePolicy outside) {
    if (g.contains(x, y)) return g(x, y);
    if (outside.fixed_class) return *outside.fixed_class;
    return g(std::clamp(x, 0, g.width() - 1), std::clamp(y, 0, g.height() - 1));
}
int reference_corner(const ClassGrid& g, int i, int j, const std::vector<Rule>& ordered,
                     OutsidePolicy outside) {
    const ClassId tl = cell_or_outside(g, i - 1, j - 1, outside),
                  tr = cell_or_outside(g, i, j - 1, outside),
                  bl = cell_or_outside(g, i - 1, j, outside),
                  br = cell_or_outside(g, i, j, outside);
    for (std::size_t r = 0; r < ordered.size(); ++r) {
        const Descriptor& p = ordered[r].pattern;
        // cell(column, row) of the 2x2 as written: `ab cd`
        if (((p.cell(0, 0) >> tl) & 1u) && ((p.cell(1, 0) >> tr) & 1u) &&
            ((p.cell(0, 1) >> bl) & 1u) && ((p.cell(1, 1) >> br) & 1u))
            return static_cast<int>(r);
    }
    return kNoRule;
}
} // namespace

TEST_CASE("a 2x2 corner pattern: cells as written, specificity, rotate and mirror with flips") {
    Diagnostics d;
    auto rules =
        parse_rules("gw s? a\nrotate gg gw b*2\nmirror g[sw] !w? c\n", "c.rules", kSymbols, d);
    REQUIRE(d.empty());
    REQUIRE(rules.size() == 1 + 4 + 2);
    const Descriptor& p = rules[0].pattern;
    CHECK(p.corner());
    CHECK(p.size() == 2);
    CHECK(p.cell(0, 0) == G); // top-left
    CHECK(p.cell(1, 0) == W); // top-right
    CHECK(p.cell(0, 1) == S); // bottom-left
    CHECK(p.cell(1, 1) == kAnyClass);
    CHECK(p.specificity() == 3);
    // at(): the 3x3 view whose (0, 0) is the bottom-right cell of the 2x2.
    CHECK(p.at(-1, -1) == G);
    CHECK(p.at(0, -1) == W);
    CHECK(p.at(-1, 0) == S);
    CHECK(p.at(1, 1) == kAnyClass);
    CHECK(rules[0].column == 1);
    // rotate: `gg gw` turned clockwise is `gg wg` (the w moves from bottom-right to bottom-left).
    const Rule& r90 = rules[2];
    CHECK(r90.variant == "r90");
    CHECK(r90.pattern.cell(0, 1) == W);
    CHECK(r90.pattern.cell(1, 1) == G);
    CHECK(r90.targets[0].flips == (kFlipHorizontal | kFlipDiagonal));
    CHECK(rules[3].pattern.cell(0, 0) == W); // r180: top-left
    CHECK(rules[4].pattern.cell(1, 0) == W); // r270: top-right
    // mirror: left and right swap, the tile flips horizontally.
    const Rule& m = rules[6];
    CHECK(m.variant == "m");
    CHECK(m.pattern.cell(0, 0) == (S | W));
    CHECK(m.pattern.cell(1, 0) == G);
    CHECK(m.pattern.cell(1, 1) == static_cast<ClassMask>(~W));
    CHECK(m.targets[0].flips == kFlipHorizontal);
    // Specificity order: more non-? cells first, ties in order of appearance.
    const auto ordered = order_by_specificity(rules);
    CHECK(ordered.front().pattern.specificity() == 4);
    CHECK(ordered.back().pattern.specificity() == 3);
}

TEST_CASE("bad corner rules: path:line:col errors") {
    struct Bad {
        const char* text;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {"?? ??? a\n", 1, 4, "row group 2 has 3 cells, expected 2"},
        {"?? ? a\n", 1, 4, "row group 2 has 1 cells, expected 2"},
        {"gw\n", 1, 3, "expected 2 row groups of 2 cells, found 1"},
        {"gg gg a\n??? ?g? ??? b\n", 2, 1, "a 3x3 pattern in corner layer 'ground'"},
        {"gg gg a\n? b\n", 2, 1, "a 1x1 pattern in corner layer 'ground'"},
        {"??? ?g? ??? b\n  gg gg a\n", 2, 3, "a 2x2 corner pattern in layer 'ground' of 3x3"},
        {"[c]\ngg gg a\n[d]\n? x\n[c]\n????? ????? ??g?? ????? ????? y\n", 6, 1,
         "a 5x5 pattern in corner layer 'c'"},
        {"[classes]\ngg gg g\n", 2, 1, "a 2x2 corner pattern in a class pass"},
        {"gggg gggg gggg gggg a\n", 1, 1, "patterns are 1x1, 3x3 or 5x5"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        const Diagnostics d = parse_and_check(b.text);
        REQUIRE(d.size() == 1);
        CHECK(d[0].file == "c.rules");
        CHECK(d[0].line == b.line);
        CHECK(d[0].column == b.column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
    }
    // Different layers may differ; rotate variants do not count as mixing.
    CHECK(parse_and_check("[c]\nrotate gw gg a\n?? ?? b\n[d]\n??? ?g? ??? c\n? d\n").empty());
}

TEST_CASE("corner layers: autotile matches a plain reference on random grids, at any thread "
          "count") {
    std::mt19937_64 rng(20);
    const char* cell_forms[] = {"?", "w", "s", "g", "!w", "[sg]", "[!g]"};
    for (int trial = 0; trial < 40; ++trial) {
        CAPTURE(trial);
        const int w = 1 + static_cast<int>(rng() % 23), h = 1 + static_cast<int>(rng() % 17);
        ClassGrid classes(w, h);
        for (ClassId& c : classes.cells())
            c = static_cast<ClassId>(rng() % 3);
        std::string text;
        const int rule_count = 1 + static_cast<int>(rng() % 12);
        for (int r = 0; r < rule_count; ++r) {
            if (rng() % 3 == 0) text += "rotate ";
            if (rng() % 4 == 0) text += "mirror ";
            for (int k = 0; k < 4; ++k) {
                text += cell_forms[rng() % 7];
                if (k == 1) text += ' ';
            }
            text += " t" + std::to_string(r) + " u" + std::to_string(r) + "*0.5\n";
        }
        if (trial % 2) text += "?? ?? catch\n";
        Diagnostics d;
        LayerRules layer{"corners", order_by_specificity(parse_rules(text, "r", kSymbols, d)), {}};
        REQUIRE(d.empty());
        REQUIRE(layer.corner());
        for (std::size_t r = 0; r < layer.ordered.size(); ++r) {
            ResolvedTargets rt;
            for (std::size_t t = 0; t < layer.ordered[r].targets.size(); ++t) {
                rt.gids.push_back(
                    gid_of(static_cast<int>(r * 4 + t), layer.ordered[r].targets[t].flips));
                rt.weights.push_back(layer.ordered[r].targets[t].weight);
            }
            layer.resolved.push_back(rt);
        }
        OutsidePolicy outside;
        if (trial % 3 == 1) outside.fixed_class = static_cast<ClassId>(rng() % 3);
        const std::vector<LayerRules> layers{layer};
        const Gid error = gid_of(999);
        const AutotileResult one = autotile(classes, layers, 3, outside, 77, error, 1);
        REQUIRE(one.layers[0].corner);
        REQUIRE(one.layers[0].tiles.width() == w + 1);
        REQUIRE(one.layers[0].tiles.height() == h + 1);
        std::uint64_t unmatched = 0;
        bool same = true;
        for (int j = 0; j <= h; ++j)
            for (int i = 0; i <= w; ++i) {
                const int rule = reference_corner(classes, i, j, layer.ordered, outside);
                Gid expected = error;
                if (rule == kNoRule) {
                    ++unmatched;
                } else {
                    const auto& rt = layer.resolved[static_cast<std::size_t>(rule)];
                    const int t = choose_target(
                        rt, layer.ordered[static_cast<std::size_t>(rule)].identity, 77, i, j);
                    expected = rt.gids[static_cast<std::size_t>(t)];
                }
                same =
                    same && one.decisions[0](i, j) == rule && one.layers[0].tiles(i, j) == expected;
            }
        CHECK(same);
        CHECK(one.unmatched == unmatched);
        for (int threads : {2, 8}) {
            const AutotileResult more = autotile(classes, layers, 3, outside, 77, error, threads);
            CHECK(more.layers[0].tiles.cells() == one.layers[0].tiles.cells());
            CHECK(more.decisions[0].cells() == one.decisions[0].cells());
            CHECK(more.hits == one.hits);
            CHECK(more.first_unmatched == one.first_unmatched);
        }
    }
}
