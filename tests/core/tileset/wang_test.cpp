#include <doctest/doctest.h>

#include "core/tileset/wang.hpp"

using namespace tilegen;

TEST_CASE("Wang ids follow the painter's tile names") {
    const std::vector<std::string> terrains{"water", "sand", "grass"};
    auto ids = wang_ids_from_names({"grass", "grass-flowers", "grass-sand-n", "grass-sand-n-e",
                                    "grass-sand-se", "sand-water-n-e-s-w", "error", "grass-sand-x",
                                    "", "grass-band-ns"},
                                   terrains);
    CHECK(ids[0] == WangId{3, 3, 3, 3, 3, 3, 3, 3});
    CHECK(ids[1] == WangId{3, 3, 3, 3, 3, 3, 3, 3});
    // top, top-right, right, bottom-right, bottom, bottom-left, left, top-left
    CHECK(ids[2] == WangId{2, 2, 3, 3, 3, 3, 3, 2});
    CHECK(ids[3] == WangId{2, 2, 2, 2, 3, 3, 3, 2});
    CHECK(ids[4] == WangId{3, 3, 3, 2, 3, 3, 3, 3}); // an inner corner
    CHECK(ids[5] == WangId{1, 1, 1, 1, 1, 1, 1, 1});
    CHECK(ids[6] == WangId{});
    CHECK(ids[7] == WangId{}); // not a direction
    CHECK(ids[8] == WangId{});
    CHECK(ids[9] == WangId{}); // "band" is no terrain and "ns" no direction list
}
