// Class passes against a plain reference: for each run, for each cell, the rules tried in order
// with a direct pattern match over a copy of the grid, the target picked by the same hash.
#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/hash.hpp"
#include "core/rules/autotile.hpp"
#include "core/rules/class_passes.hpp"
#include "core/rules/rule_parser.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

ClassId ref_class_at(const ClassGrid& g, int x, int y, OutsidePolicy outside) {
    if (x < 0 || y < 0 || x >= g.width() || y >= g.height()) {
        if (outside.fixed_class) return *outside.fixed_class;
        x = x < 0 ? 0 : (x >= g.width() ? g.width() - 1 : x);
        y = y < 0 ? 0 : (y >= g.height() ? g.height() - 1 : y);
    }
    return g(x, y);
}

bool ref_matches(const Descriptor& d, const ClassGrid& g, int x, int y, OutsidePolicy outside) {
    const int r = d.size() / 2;
    for (int row = 0; row < d.size(); ++row)
        for (int col = 0; col < d.size(); ++col) {
            const ClassId c = ref_class_at(g, x + col - r, y + row - r, outside);
            if (!((d.cell(col, row) >> c) & 1u)) return false;
        }
    return true;
}

struct Reference {
    ClassGrid grid;
    std::vector<int> runs;
    std::vector<std::vector<std::uint64_t>> changed;
    std::vector<std::vector<ClassStep>> steps; // per watched cell
};

Reference reference(ClassGrid g, const std::vector<ClassPass>& passes, OutsidePolicy outside,
                    std::uint64_t seed, const std::vector<std::pair<int, int>>& watch) {
    Reference out;
    out.steps.resize(watch.size());
    for (std::size_t p = 0; p < passes.size(); ++p) {
        const ClassPass& pass = passes[p];
        // The parser's order is the one the tile layers use: most specific first, stable.
        for (std::size_t r = 1; r < pass.ordered.size(); ++r) {
            const Rule &a = pass.ordered[r - 1], &b = pass.ordered[r];
            REQUIRE(a.pattern.specificity() >= b.pattern.specificity());
            if (a.pattern.specificity() == b.pattern.specificity()) REQUIRE(a.line <= b.line);
        }
        const int max_runs = pass.until_stable ? 256 : pass.runs;
        out.changed.emplace_back();
        int run = 0;
        for (; run < max_runs;) {
            ClassGrid next = g;
            Grid<int> rule_of(g.width(), g.height(), kNoRule);
            std::uint64_t changed = 0;
            for (int y = 0; y < g.height(); ++y)
                for (int x = 0; x < g.width(); ++x)
                    for (std::size_t r = 0; r < pass.ordered.size(); ++r) {
                        if (!ref_matches(pass.ordered[r].pattern, g, x, y, outside)) continue;
                        rule_of(x, y) = static_cast<int>(r);
                        ResolvedTargets t;
                        t.weights = pass.targets[r].weights;
                        t.gids.assign(t.weights.size(), 0);
                        const int pick = choose_target_from_base(
                            t, class_choice_base(seed, pass.ordered[r].identity, run), x, y);
                        const int k = pass.targets[r].classes[static_cast<std::size_t>(pick)];
                        if (k != kKeepClass) next(x, y) = static_cast<ClassId>(k);
                        changed += next(x, y) != g(x, y) ? 1 : 0;
                        break;
                    }
            for (std::size_t i = 0; i < watch.size(); ++i) {
                auto [x, y] = watch[i];
                out.steps[i].push_back(
                    ClassStep{static_cast<int>(p), run, g(x, y), next(x, y), rule_of(x, y)});
            }
            g = next;
            out.changed.back().push_back(changed);
            ++run;
            if (pass.until_stable && changed == 0) break;
        }
        out.runs.push_back(run);
    }
    out.grid = g;
    return out;
}

std::string random_cell(std::mt19937_64& rng, int classes) {
    auto sym = [&] { return std::string(1, static_cast<char>('a' + rng() % classes)); };
    switch (rng() % 10) {
    case 0:
    case 1:
    case 2:
    case 3:
        return "?";
    case 4:
    case 5:
    case 6:
        return sym();
    case 7:
        return "!" + sym();
    case 8:
        return "[" + sym() + sym() + "]";
    default:
        return "[!" + sym() + sym() + "]";
    }
}

// A random rule file of 1 to 3 passes (tile sections in between, which end a pass).
std::string random_rules(std::mt19937_64& rng, int classes, bool allow5, bool allow_star) {
    std::ostringstream out;
    const int passes = 1 + static_cast<int>(rng() % 3);
    for (int p = 0; p < passes; ++p) {
        switch (rng() % 4) {
        case 0:
            out << "[classes]\n";
            break;
        case 1:
            out << (allow_star ? "[classes *]\n" : "[classes 2]\n");
            break;
        default:
            out << "[classes " << 1 + rng() % 4 << "]\n";
        }
        const int rules = static_cast<int>(rng() % 12);
        for (int r = 0; r < rules; ++r) {
            if (rng() % 3 == 0) out << "rotate ";
            if (rng() % 4 == 0) out << "mirror ";
            const int kind = static_cast<int>(rng() % 10);
            const int size = kind < 2 ? 1 : (kind < 8 || !allow5 ? 3 : 5);
            for (int row = 0; row < size; ++row) {
                for (int col = 0; col < size; ++col)
                    out << random_cell(rng, classes);
                out << ' ';
            }
            const int targets = 1 + static_cast<int>(rng() % 3);
            for (int t = 0; t < targets; ++t) {
                if (rng() % 5 == 0)
                    out << "@keep";
                else
                    out << static_cast<char>('a' + rng() % classes);
                switch (rng() % 5) {
                case 0:
                    out << "*3";
                    break;
                case 1:
                    out << "*0.25";
                    break;
                case 2:
                    if (targets > 1) out << "*0";
                    break;
                default:
                    break;
                }
                out << ' ';
            }
            out << '\n';
        }
        if (rng() % 3 == 0) out << "[ground]\n? grass\n";
    }
    return out.str();
}

SymbolTable symbols_for(int classes) {
    SymbolTable s;
    for (int c = 0; c < classes; ++c)
        s[static_cast<char>('a' + c)] = c;
    return s;
}

ClassGrid random_grid(std::mt19937_64& rng, int w, int h, int classes) {
    ClassGrid g(w, h);
    // Blobs rather than pure noise now and then, so larger patterns match too.
    const bool blobs = rng() % 2 == 0;
    const int cell = 1 + static_cast<int>(rng() % 4);
    const std::uint64_t stream = rng();
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            g(x, y) =
                static_cast<ClassId>((blobs ? hash_position(stream, x / cell, y / cell) : rng()) %
                                     static_cast<std::uint64_t>(classes));
    return g;
}

} // namespace

TEST_CASE("class passes equal the plain reference on random grids and rule sets") {
    std::mt19937_64 rng(20261124);
    int checked = 0, reduced_like = 0, with5 = 0;
    for (int trial = 0; trial < test::cases(160); ++trial) {
        const int class_choices[] = {2, 3, 5, 8, 17};
        const int classes = class_choices[rng() % 5];
        const bool allow5 = rng() % 3 == 0;
        const bool allow_star = rng() % 2 == 0;
        const std::string text = random_rules(rng, classes, allow5, allow_star);
        CAPTURE(text);
        CAPTURE(classes);
        Diagnostics diags;
        const RuleFile file = parse_rule_file(text, "random.rules", symbols_for(classes), diags);
        REQUIRE(diags.empty());
        const int w = 1 + static_cast<int>(rng() % (allow_star ? 14 : 26));
        const int h = 1 + static_cast<int>(rng() % (allow_star ? 14 : 26));
        const ClassGrid grid = random_grid(rng, w, h, classes);
        const std::uint64_t seed = rng();
        const std::vector<std::pair<int, int>> watch{{0, 0}, {w - 1, h / 2}, {w / 2, h - 1}};
        for (int policy = 0; policy < 2; ++policy) {
            OutsidePolicy outside;
            if (policy == 1) outside.fixed_class = static_cast<ClassId>(rng() % classes);
            CAPTURE(policy);
            const Reference want = reference(grid, file.passes, outside, seed, watch);
            for (int threads : {1, 2, 8}) {
                CAPTURE(threads);
                PassHistory history;
                history.watch = watch;
                const ClassGrid got =
                    run_class_passes(grid, file.passes, classes, outside, seed, threads, &history);
                REQUIRE(got == want.grid);
                CHECK(history.runs == want.runs);
                CHECK(history.changed == want.changed);
                CHECK(history.steps == want.steps);
                ++checked;
            }
        }
        if (classes <= 16 && !allow5) ++reduced_like;
        if (allow5) ++with5;
        // The reference is the spec; make sure the random sets do something.
    }
    CHECK(checked == test::cases(160) * 2 * 3);
    CHECK(reduced_like > test::cases(160) / 8);
    CHECK(with5 > test::cases(160) / 8);
}

TEST_CASE("random rule sets change cells, pick among weights and stop when stable") {
    // Not a test of the engine's agreement (above) but of the random cases' reach: they must
    // exercise changes, weighted picks landing on different targets, and `*` stopping early.
    std::mt19937_64 rng(7);
    std::uint64_t changed = 0;
    int stopped_early = 0;
    for (int trial = 0; trial < 60; ++trial) {
        const int classes = 3;
        const std::string text = random_rules(rng, classes, false, true);
        Diagnostics diags;
        const RuleFile file = parse_rule_file(text, "random.rules", symbols_for(classes), diags);
        REQUIRE(diags.empty());
        const ClassGrid grid = random_grid(rng, 12, 12, classes);
        PassHistory history;
        (void)run_class_passes(grid, file.passes, classes, {}, 1, 1, &history);
        for (std::size_t p = 0; p < file.passes.size(); ++p) {
            for (std::uint64_t c : history.changed[p])
                changed += c;
            if (file.passes[p].until_stable && history.runs[p] < 256) ++stopped_early;
        }
    }
    CHECK(changed > 1000);
    CHECK(stopped_early > 3);
}

TEST_CASE("a weighted class rule picks by the hash of (seed, x, y, rule, run)") {
    // g becomes s or w half and half: over a 64x64 grid both appear, differently per run and seed.
    const SymbolTable symbols{{'g', 0}, {'s', 1}, {'w', 2}};
    Diagnostics diags;
    const RuleFile once = parse_rule_file("[classes]\ng s w\n", "r", symbols, diags);
    REQUIRE(diags.empty());
    const ClassGrid grid(64, 64, 0);
    const ClassGrid a = run_class_passes(grid, once.passes, 3, {}, 1);
    const ClassGrid b = run_class_passes(grid, once.passes, 3, {}, 2);
    int s = 0;
    for (ClassId c : a.cells())
        s += c == 1 ? 1 : 0;
    CHECK(s > 64 * 64 * 4 / 10);
    CHECK(s < 64 * 64 * 6 / 10);
    CHECK(a != b);
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x) {
            ResolvedTargets t{{0, 0}, {1, 1}};
            const int pick = choose_target_from_base(
                t, class_choice_base(1, once.passes[0].ordered[0].identity, 0), x, y);
            REQUIRE(a(x, y) == pick + 1);
        }
}

TEST_CASE("class passes: synchronous runs, @keep, unmatched cells, run counts") {
    const SymbolTable symbols{{'a', 0}, {'b', 1}};
    Diagnostics diags;
    // A cell becomes b when its west neighbour is b: synchronous, so a single b spreads one cell
    // per run (a sequential scan would fill the row in one run).
    const RuleFile spread =
        parse_rule_file("[classes 3]\nbab ??? ??? @keep\n??? ba? ??? b\n", "r", symbols, diags);
    REQUIRE(diags.empty());
    ClassGrid row(8, 1, 0);
    row(1, 0) = 1;
    PassHistory history;
    history.watch = {{4, 0}};
    const ClassGrid got = run_class_passes(row, spread.passes, 2, {}, 9, 2, &history);
    // Clamped outside: the rows above and below are the row itself. Runs: b at 1 -> 1..2 -> 1..3
    // -> 1..4; cell 0's west neighbour is itself (a), so it stays a.
    std::vector<int> classes;
    for (int x = 0; x < 8; ++x)
        classes.push_back(got(x, 0));
    CHECK(classes == std::vector<int>{0, 1, 1, 1, 1, 0, 0, 0});
    CHECK(history.runs == std::vector<int>{3});
    CHECK(history.changed == std::vector<std::vector<std::uint64_t>>{{1, 1, 1}});
    REQUIRE(history.steps.size() == 1);
    REQUIRE(history.steps[0].size() == 3);
    CHECK(history.steps[0][2].before == 0);
    CHECK(history.steps[0][2].after == 1);
    CHECK(history.steps[0][2].rule == 1);
    CHECK(history.steps[0][0].rule == kNoRule);

    // `*` stops after the first run that changes nothing (counted).
    const RuleFile until = parse_rule_file("[classes *]\n??? ba? ??? b\n", "r", symbols, diags);
    REQUIRE(diags.empty());
    const ClassGrid filled = run_class_passes(row, until.passes, 2, {}, 9, 1, &history);
    ClassGrid want(8, 1, 1);
    want(0, 0) = 0;
    CHECK(filled == want);
    CHECK(history.runs == std::vector<int>{7}); // 6 runs fill cells 2..7, the 7th changes nothing
}

TEST_CASE("the 4-5 cave rule written as class rules equals a direct neighbour count") {
    std::ifstream in(std::string(TILEGEN_SOURCE_DIR) + "/tests/data/class_passes/cave45.rules");
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    const SymbolTable symbols{{'f', 0}, {'w', 1}};
    Diagnostics diags;
    const RuleFile file = parse_rule_file(text.str(), "cave45.rules", symbols, diags);
    REQUIRE(diags.empty());
    REQUIRE(file.passes.size() == 1);
    CHECK(file.passes[0].runs == 5);
    CHECK(file.passes[0].ordered.size() == 126 + 1); // C(9, 5) ways to pick 5 walls, + floor
    // Random fill: 45 % walls, from a position hash.
    const int w = 120, h = 90;
    ClassGrid grid(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            grid(x, y) = unit_double(hash_position(hash_values(3, 45), x, y)) < 0.45 ? 1 : 0;
    for (int policy = 0; policy < 2; ++policy) {
        OutsidePolicy outside;
        if (policy == 1) outside.fixed_class = 1; // walls beyond the edge, the usual choice
        ClassGrid want = grid;
        for (int run = 0; run < 5; ++run) {
            ClassGrid next = want;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    int walls = 0;
                    for (int dy = -1; dy <= 1; ++dy)
                        for (int dx = -1; dx <= 1; ++dx)
                            walls += ref_class_at(want, x + dx, y + dy, outside);
                    next(x, y) = walls >= 5 ? 1 : 0;
                }
            want = next;
        }
        for (int threads : {1, 2, 8})
            CHECK(run_class_passes(grid, file.passes, 2, outside, 1, threads) == want);
    }
}

TEST_CASE("class passes on an empty grid and with an empty pass") {
    const SymbolTable symbols{{'a', 0}, {'b', 1}};
    Diagnostics diags;
    const RuleFile file = parse_rule_file("[classes 4]\n[classes *]\na b\n", "r", symbols, diags);
    REQUIRE(diags.empty());
    REQUIRE(file.passes.size() == 2);
    PassHistory history;
    history.watch = {{5, 5}};
    CHECK(run_class_passes(ClassGrid(), file.passes, 2, {}, 1, 2, &history).empty());
    CHECK(history.runs == std::vector<int>{4, 1});
    CHECK(history.steps == std::vector<std::vector<ClassStep>>{{}});
    const ClassGrid got = run_class_passes(ClassGrid(3, 2, 0), file.passes, 2, {}, 1, 2, &history);
    CHECK(got == ClassGrid(3, 2, 1));
    CHECK(history.runs == std::vector<int>{4, 2});
}

TEST_CASE("the class pass examples of docs/rules.md") {
    const SymbolTable symbols{{'w', 0}, {'s', 1}, {'g', 2}, {'f', 3}};
    Diagnostics diags;
    const RuleFile file = parse_rule_file("[classes]\n"
                                          "?g? gsg ?g?   g\n"
                                          "[classes *]\n"
                                          "rotate  ?w? w!ww ???  w\n"
                                          "[classes 2]\n"
                                          "g   g*19 f\n"
                                          "f   @keep*3 g\n"
                                          "[ground]\n",
                                          "docs.rules", symbols, diags);
    REQUIRE(diags.empty());
    REQUIRE(file.passes.size() == 3);
    // Water above, a one-cell bay of grass at (3, 1), a sand speck at (5, 3) in grass.
    const char* rows[] = {"wwwwwwww", "wwwgwwww", "gggggggg", "gggggsgg", "gggggggg"};
    ClassGrid grid(8, 5);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 8; ++x)
            grid(x, y) = static_cast<ClassId>(symbols.at(rows[y][x]));
    PassHistory history;
    history.watch = {{5, 3}, {3, 1}};
    const ClassGrid got = run_class_passes(grid, file.passes, 4, {}, 5, 2, &history);
    REQUIRE(history.steps[0].size() == 1 + 2 + 2); // 1 run, 2 runs (`*`: 1 change, 1 stable), 2
    CHECK(history.steps[0][0].after == 2);         // the speck became grass in the first pass
    CHECK(history.runs == std::vector<int>{1, 2, 2});
    CHECK(history.steps[1][1].after == 0); // the bay filled with water in the second
    CHECK(got(3, 1) == 0);
    int forest = 0;
    for (ClassId c : got.cells())
        forest += c == 3 ? 1 : 0;
    CHECK(forest < 8); // of about 23 grass cells, one in 20 per run (less those turned back)
}

TEST_CASE("a cell's history replayed from a window equals the full run's, at every cell") {
    std::mt19937_64 rng(77);
    int cells = 0;
    for (int trial = 0; trial < test::cases(40); ++trial) {
        const int classes = 2 + static_cast<int>(rng() % 4);
        const bool allow_star = trial % 2 == 0;
        const std::string text = random_rules(rng, classes, trial % 3 == 0, allow_star);
        CAPTURE(text);
        Diagnostics diags;
        const RuleFile file = parse_rule_file(text, "random.rules", symbols_for(classes), diags);
        REQUIRE(diags.empty());
        const int w = 1 + static_cast<int>(rng() % 40), h = 1 + static_cast<int>(rng() % 40);
        const ClassGrid grid = random_grid(rng, w, h, classes);
        const std::uint64_t seed = rng();
        OutsidePolicy outside;
        if (trial % 4 == 1) outside.fixed_class = static_cast<ClassId>(rng() % classes);
        PassHistory history;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                history.watch.emplace_back(x, y);
        (void)run_class_passes(grid, file.passes, classes, outside, seed, 2, &history);
        for (std::size_t i = 0; i < history.watch.size(); ++i) {
            const auto [x, y] = history.watch[i];
            CAPTURE(x);
            CAPTURE(y);
            REQUIRE(replay_class_history(grid, file.passes, history.runs, classes, outside, seed, x,
                                         y) == history.steps[i]);
            ++cells;
        }
        CHECK(replay_class_history(grid, file.passes, history.runs, classes, outside, seed, w, 0)
                  .empty());
    }
    CHECK(cells > 4000);
}
