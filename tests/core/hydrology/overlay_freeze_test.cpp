// Overlay terrains ([rivers]) stay as the hydrology wrote them: class passes and the clean-up
// neither change a cell of a frozen class nor give one to another cell.
#include <doctest/doctest.h>

#include <random>
#include <set>

#include "core/classes/class_cleanup.hpp"
#include "core/rules/class_passes.hpp"
#include "core/rules/rule_parser.hpp"

using namespace tilegen;

TEST_CASE("overlay freeze: class passes keep frozen cells and never make new ones") {
    const SymbolTable symbols{{'g', 0}, {'s', 1}, {'~', 2}, {'w', 3}};
    Diagnostics diags;
    // Every cell beside a river turns to river; rivers turn to grass; the rest turns to water.
    const RuleFile file = parse_rule_file(
        "[classes 3]\nrotate ?~? ?!~? ???  ~\n???  ?~?  ???  g\n?  w\n", "r", symbols, diags);
    REQUIRE(diags.empty());
    std::mt19937 rng(5);
    ClassGrid grid(40, 30);
    for (auto& c : grid.cells())
        c = static_cast<ClassId>(rng() % 4);
    const ClassGrid free_run = run_class_passes(grid, file.passes, 4, {}, 1);
    const ClassGrid frozen =
        run_class_passes(grid, file.passes, 4, {}, 1, 2, nullptr, {0, 0}, 1u << 2);
    int rivers_kept = 0, changed = 0;
    for (std::size_t i = 0; i < grid.size(); ++i) {
        const bool was_river = grid.cells()[i] == 2;
        CHECK((frozen.cells()[i] == 2) == was_river); // kept, and none made
        rivers_kept += was_river;
        changed += frozen.cells()[i] != grid.cells()[i];
    }
    CHECK(rivers_kept > 100);
    CHECK(changed > 100);      // the other cells still change (to water)
    CHECK(free_run != frozen); // without the mask the rules do make and unmake rivers
    // A cell that is no river follows the rules among the others: water everywhere (grass and
    // sand cells next to a river would become river, which the mask refuses: they keep theirs).
    for (int y = 0; y < grid.height(); ++y)
        for (int x = 0; x < grid.width(); ++x)
            if (grid(x, y) != 2) CHECK((frozen(x, y) == 3 || frozen(x, y) == grid(x, y)));
}

TEST_CASE("overlay freeze: the clean-up leaves frozen regions and never grows them") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 60; ++trial) {
        ClassGrid grid(24, 18);
        for (auto& c : grid.cells())
            c = static_cast<ClassId>(rng() % 4 == 0 ? 3 : rng() % 3); // class 3: the overlay
        std::vector<ClassCleanup> settings(4);
        for (auto& s : settings) {
            s.min_area = static_cast<int>(rng() % 6);
            s.min_width = static_cast<int>(rng() % 3);
        }
        ClassGrid g = grid;
        (void)clean_up_classes(g, settings, 1u << 3);
        CAPTURE(trial);
        for (std::size_t i = 0; i < g.size(); ++i)
            CHECK((g.cells()[i] == 3) == (grid.cells()[i] == 3));
        // Every too-small region left of another class borders only overlay cells (or the edge).
        Grid<int> seen(g.width(), g.height(), 0);
        for (int y = 0; y < g.height(); ++y)
            for (int x = 0; x < g.width(); ++x) {
                if (seen(x, y) || g(x, y) == 3) continue;
                const ClassId c = g(x, y);
                std::vector<std::pair<int, int>> region{{x, y}};
                std::set<ClassId> border;
                seen(x, y) = 1;
                for (std::size_t k = 0; k < region.size(); ++k) {
                    const auto [px, py] = region[k];
                    const int dx[4] = {0, -1, 1, 0}, dy[4] = {-1, 0, 0, 1};
                    for (int d = 0; d < 4; ++d) {
                        const int nx = px + dx[d], ny = py + dy[d];
                        if (!g.contains(nx, ny)) continue;
                        if (g(nx, ny) != c) {
                            border.insert(g(nx, ny));
                        } else if (!seen(nx, ny)) {
                            seen(nx, ny) = 1;
                            region.push_back({nx, ny});
                        }
                    }
                }
                const int need = settings[c].min_area >= 2 ? settings[c].min_area : 0;
                if (static_cast<int>(region.size()) < need && region.size() != g.size())
                    CHECK(border == std::set<ClassId>{3});
            }
    }
}
