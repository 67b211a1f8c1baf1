#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "core/classes/border_cells.hpp"

using namespace tilegen;

namespace {

using Cells = std::vector<std::pair<int, int>>; // (x, y)

ClassGrid random_grid(std::mt19937& rng, int w, int h, int classes) {
    ClassGrid g(w, h, 0);
    std::uniform_int_distribution<int> pick(0, classes - 1), len(1, 9);
    // Runs of a class, so that most cells are inside a region as on a map.
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w;) {
            const auto c = static_cast<ClassId>(y > 0 && rng() % 3 == 0 ? g(x, y - 1) : pick(rng));
            for (int n = len(rng); n > 0 && x < w; --n, ++x)
                g(x, y) = c;
        }
    return g;
}

// The plain definition: cells whose class differs from a 4-neighbour inside the grid.
bool plain_border(const ClassGrid& g, int x, int y) {
    const int dx[] = {1, -1, 0, 0}, dy[] = {0, 0, 1, -1};
    for (int k = 0; k < 4; ++k)
        if (g.contains(x + dx[k], y + dy[k]) && g(x + dx[k], y + dy[k]) != g(x, y)) return true;
    return false;
}

// Flags bit 1 on the cell's class, bit 2 on a 4-neighbour's class inside the grid.
bool plain_flagged(const ClassGrid& g, const std::array<std::uint8_t, 256>& flags, int x, int y) {
    if (!(flags[g(x, y)] & 1)) return false;
    const int dx[] = {1, -1, 0, 0}, dy[] = {0, 0, 1, -1};
    for (int k = 0; k < 4; ++k)
        if (g.contains(x + dx[k], y + dy[k]) && (flags[g(x + dx[k], y + dy[k])] & 2)) return true;
    return false;
}

} // namespace

TEST_CASE("BorderCells: every part together visits the border cells once and each note once") {
    std::mt19937 rng(12345);
    const std::array<std::pair<int, int>, 7> sizes = {
        {{1, 1}, {1, 9}, {9, 1}, {63, 5}, {64, 4}, {65, 7}, {130, 33}}};
    for (const auto& [w, h] : sizes)
        for (int classes : {1, 2, 5}) {
            CAPTURE(w);
            CAPTURE(h);
            CAPTURE(classes);
            const ClassGrid g = random_grid(rng, w, h, classes);
            Cells want;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    if (plain_border(g, x, y)) want.emplace_back(x, y);
            BorderCells border;
            CHECK_FALSE(border.ready());
            border.scan(g, 1 + static_cast<int>(rng() % 3));
            CHECK(border.ready());
            // Notes, repeats and cells the scan found among them.
            Cells notes;
            for (int k = static_cast<int>(rng() % 40); k > 0; --k) {
                const int x = static_cast<int>(rng() % static_cast<unsigned>(w));
                const int y = static_cast<int>(rng() % static_cast<unsigned>(h));
                notes.emplace_back(x, y);
                if (k % 5 == 0) notes.emplace_back(x, y);
            }
            for (const auto& [x, y] : notes)
                border.note(x, y);
            want.insert(want.end(), notes.begin(), notes.end());
            std::sort(want.begin(), want.end());
            // A random mask, the same for every part.
            std::vector<std::uint64_t> masks(static_cast<std::size_t>(h) * ((w + 63) / 64));
            for (auto& m : masks)
                m = (static_cast<std::uint64_t>(rng()) << 32) ^ rng();
            const auto masked = [&](int x, int y) {
                return (masks[static_cast<std::size_t>(y) * ((w + 63) / 64) + x / 64] >> (x % 64)) &
                       1u;
            };
            // The notes are visited whatever the mask says.
            Cells want_masked = notes;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    if (plain_border(g, x, y) && masked(x, y)) want_masked.emplace_back(x, y);
            std::sort(want_masked.begin(), want_masked.end());
            for (int parts = 1; parts <= 4; ++parts) {
                Cells got, got_masked;
                for (int part = 0; part < parts; ++part) {
                    border.for_each(part, parts, [&](int x, int y) { got.emplace_back(x, y); });
                    border.for_each_masked(
                        part, parts,
                        [&](int y, std::uint64_t* out) {
                            std::copy_n(masks.begin() +
                                            static_cast<std::ptrdiff_t>(y) * ((w + 63) / 64),
                                        (w + 63) / 64, out);
                        },
                        [&](int x, int y) { got_masked.emplace_back(x, y); });
                }
                std::sort(got.begin(), got.end());
                CHECK(got == want);
                std::sort(got_masked.begin(), got_masked.end());
                CHECK(got_masked == want_masked);
            }
        }
}

TEST_CASE("FlaggedNeighbourRows: a cell whose class has flag 1 beside a class with flag 2") {
    std::mt19937 rng(777);
    const std::array<std::pair<int, int>, 6> sizes = {
        {{1, 1}, {2, 7}, {63, 3}, {64, 5}, {65, 6}, {200, 17}}};
    for (const auto& [w, h] : sizes) {
        const ClassGrid g = random_grid(rng, w, h, 6);
        std::array<std::uint8_t, 256> flags{};
        for (int c = 0; c < 6; ++c)
            flags[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(rng() % 4);
        const int words = (w + 63) / 64;
        FlaggedNeighbourRows rows(g, flags);
        std::vector<std::uint64_t> out(static_cast<std::size_t>(words));
        // Rows in order (the rolling rows), then out of order (each read afresh).
        std::vector<int> order;
        for (int y = 0; y < h; ++y)
            order.push_back(y);
        for (int y = h - 1; y >= 0; y -= 2)
            order.push_back(y);
        for (const int y : order) {
            CAPTURE(w);
            CAPTURE(y);
            rows.mask(y, out.data());
            for (int x = 0; x < words * 64; ++x) {
                const bool bit = (out[static_cast<std::size_t>(x / 64)] >> (x % 64)) & 1u;
                CHECK(bit == (x < w && plain_flagged(g, flags, x, y)));
            }
        }
    }
}
