#include <doctest/doctest.h>

#include <cmath>

#include "core/classes/class_map_text.hpp"
#include "core/classes/terrain_classes.hpp"
#include "core/heightfield/harmonic_noise.hpp"

using namespace tilegen;

TEST_CASE("class shares hold within 0.5 points for many seeds and sizes") {
    const std::vector<double> shares{0.35, 0.15, 0.5};
    for (std::uint64_t seed : {1ull, 2ull, 3ull, 77ull, 123456789ull}) {
        for (auto [w, h] :
             {std::pair{16, 16}, std::pair{100, 37}, std::pair{256, 256}, std::pair{333, 97}}) {
            auto heights = harmonic_noise({}, seed, w, h, {0, 0, w, h});
            auto t = thresholds_from_shares(heights, shares);
            REQUIRE(t.size() == 2);
            CHECK(t[0] <= t[1]);
            auto fractions = class_fractions(classify(heights, t), 3);
            for (std::size_t i = 0; i < 3; ++i) {
                INFO("seed " << seed << " size " << w << "x" << h << " class " << i);
                CHECK(std::abs(fractions[i] - shares[i]) <= 0.005);
            }
        }
    }
}

TEST_CASE("thresholds are exact ranks: shares of a known field") {
    Grid<float> g(10, 10);
    for (int i = 0; i < 100; ++i)
        g.cells()[static_cast<std::size_t>(i)] = static_cast<float>((i * 37) % 100) / 100.0f;
    auto t = thresholds_from_shares(g, {0.25, 0.5, 0.25});
    CHECK(t[0] == doctest::Approx(0.25f));
    CHECK(t[1] == doctest::Approx(0.75f));
    auto f = class_fractions(classify(g, t), 3);
    CHECK(f[0] == doctest::Approx(0.25));
    CHECK(f[1] == doctest::Approx(0.5));
    CHECK(f[2] == doctest::Approx(0.25));
}

TEST_CASE("zero shares give empty classes, not crashes") {
    auto heights = harmonic_noise({}, 4, 50, 50, {0, 0, 50, 50});
    auto t = thresholds_from_shares(heights, {0.0, 1.0, 0.0});
    auto f = class_fractions(classify(heights, t), 3);
    CHECK(f[0] == 0.0);
    CHECK(f[1] == 1.0);
    CHECK(f[2] == 0.0);
}

TEST_CASE("class map text: parse, round trip and errors with line:column") {
    SymbolTable symbols{{'w', 0}, {'s', 1}, {'g', 2}};
    Diagnostics diags;
    auto grid = parse_class_map("\xEF\xBB\xBFwsg\r\nggg\r\n\n", "map.txt", symbols, diags);
    REQUIRE(grid);
    CHECK(diags.empty());
    CHECK(grid->width() == 3);
    CHECK(grid->height() == 2);
    CHECK(class_map_text(*grid, "wsg") == "wsg\nggg\n");

    struct Bad {
        const char* text;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {"", 1, 1, "class map is empty"},
        {"www\nwxw\n", 2, 2, "unknown terrain symbol 'x'"},
        {"www\nww\n", 2, 3, "row has 2 cells, expected 3"},
        {"ww\nwww\n", 2, 3, "row has 3 cells, expected 2"},
        {"w w\n", 1, 2, "unknown terrain symbol ' '"},
    };
    for (const Bad& b : cases) {
        Diagnostics d;
        CAPTURE(b.text);
        CHECK_FALSE(parse_class_map(b.text, "m.txt", symbols, d));
        REQUIRE(d.size() == 1);
        CHECK(d[0].line == b.line);
        CHECK(d[0].column == b.column);
        CHECK(d[0].message.find(b.message) != std::string::npos);
    }
}
