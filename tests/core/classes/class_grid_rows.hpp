// Tests' hand-made class grids: rows of symbols, a cell's class the position of its symbol.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/classes/terrain_classes.hpp"

namespace tilegen::test {

inline ClassGrid grid_of(const std::vector<std::string>& rows, const std::string& symbols) {
    ClassGrid g(static_cast<int>(rows.front().size()), static_cast<int>(rows.size()));
    for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x) {
            const auto p =
                symbols.find(rows[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)]);
            REQUIRE(p != std::string::npos);
            g(x, y) = static_cast<ClassId>(p);
        }
    return g;
}

} // namespace tilegen::test
