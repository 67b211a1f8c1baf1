// Exactness of the fast class passes: thresholds are exact order statistics (a sort gives the
// same), bit for bit the thresholds of the first implementation (2^16 buckets) for heights of any
// bits (NaN, -0, infinities, huge and negative values); classify and classify_table give band_of
// cell by cell; the counts they keep are class_counts; none of it depends on the thread count.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "core/classes/terrain_classes.hpp"
#include "core/pipeline.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// The thresholds as the first implementation computed them: a 2^16-bucket histogram (height * 2^16
// truncated and clamped, bucket 0 for NaN and for values whose conversion overflows, as on x86),
// then per wanted bucket its values in grid order and nth_element, cut after cut.
std::vector<float> reference_thresholds(const Grid<float>& heights,
                                        const std::vector<double>& shares) {
    std::vector<float> thresholds;
    if (shares.size() < 2) return thresholds;
    constexpr int kBuckets = 1 << 16;
    auto bucket_of = [](float v) {
        const float s = v * static_cast<float>(kBuckets);
        if (!(s >= 1.0f && s < 2147483648.0f)) return 0;
        return std::min(static_cast<int>(s), kBuckets - 1);
    };
    const std::size_t n = heights.size();
    std::vector<std::size_t> histogram(kBuckets, 0);
    for (float v : heights.cells())
        ++histogram[static_cast<std::size_t>(bucket_of(v))];
    struct Cut {
        bool beyond = false;
        std::size_t bucket = 0, rank = 0;
    };
    std::vector<Cut> cuts;
    double cumulative = 0;
    std::size_t bucket = 0, below = 0;
    for (std::size_t i = 0; i + 1 < shares.size(); ++i) {
        cumulative += shares[i];
        const auto rank = static_cast<std::size_t>(
            std::llround(std::clamp(cumulative, 0.0, 1.0) * static_cast<double>(n)));
        if (rank >= n) {
            cuts.push_back({true, 0, 0});
            continue;
        }
        while (below + histogram[bucket] <= rank)
            below += histogram[bucket++];
        cuts.push_back({false, bucket, rank - below});
    }
    std::vector<std::vector<float>> in_bucket(kBuckets);
    for (float v : heights.cells())
        in_bucket[static_cast<std::size_t>(bucket_of(v))].push_back(v);
    for (const Cut& c : cuts) {
        if (c.beyond) {
            thresholds.push_back(std::nextafter(1.0f, 2.0f));
            continue;
        }
        auto& values = in_bucket[c.bucket];
        auto nth = values.begin() + static_cast<std::ptrdiff_t>(c.rank);
        std::nth_element(values.begin(), nth, values.end());
        float t = *nth;
        if (!thresholds.empty()) t = std::max(t, thresholds.back());
        thresholds.push_back(t);
    }
    return thresholds;
}

// The order statistics by sorting (heights without NaN).
std::vector<float> sorted_thresholds(const Grid<float>& heights,
                                     const std::vector<double>& shares) {
    std::vector<float> sorted(heights.cells().begin(), heights.cells().end());
    std::sort(sorted.begin(), sorted.end());
    std::vector<float> thresholds;
    double cumulative = 0;
    for (std::size_t i = 0; i + 1 < shares.size(); ++i) {
        cumulative += shares[i];
        const auto rank = static_cast<std::size_t>(
            std::llround(std::clamp(cumulative, 0.0, 1.0) * static_cast<double>(sorted.size())));
        float t = rank >= sorted.size() ? std::nextafter(1.0f, 2.0f) : sorted[rank];
        if (!thresholds.empty()) t = std::max(t, thresholds.back());
        thresholds.push_back(t);
    }
    return thresholds;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// Heights of every kind: smooth-ish runs in [0, 1], ties, 0 and 1, bucket edges (k / 2^16 and the
// floats either side), and with `odd`, NaN, -0, infinities, negatives, denormals, 32768 and beyond.
Grid<float> random_heights(std::mt19937& rng, int width, int height, bool odd) {
    Grid<float> g(width, height);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::uniform_int_distribution<int> kind(0, odd ? 15 : 8), fine(0, 1 << 16);
    float run = unit(rng);
    for (float& v : g.cells()) {
        switch (kind(rng)) {
        case 0:
        case 1:
        case 2:
            v = run = std::clamp(run + (unit(rng) - 0.5f) * 0.01f, 0.0f, 1.0f);
            break;
        case 3:
            v = unit(rng);
            break;
        case 4:
            v = static_cast<float>(static_cast<int>(unit(rng) * 8.0f)) / 8.0f;
            break; // ties
        case 5:
            v = 0.0f;
            break;
        case 6:
            v = 1.0f;
            break;
        case 7:
            v = static_cast<float>(fine(rng)) / 65536.0f;
            break;
        case 8:
            v = std::nextafter(static_cast<float>(fine(rng)) / 65536.0f,
                               unit(rng) < 0.5f ? 0.0f : 2.0f);
            break;
        case 9:
            v = kNaN;
            break;
        case 10:
            v = -0.0f;
            break;
        case 11:
            v = unit(rng) < 0.5f ? kInf : -kInf;
            break;
        case 12:
            v = -unit(rng);
            break;
        case 13:
            v = std::numeric_limits<float>::denorm_min() * static_cast<float>(fine(rng));
            break;
        case 14:
            v = unit(rng) < 0.5f ? 32768.0f : std::nextafter(32768.0f, 0.0f);
            break;
        default:
            v = unit(rng) * 1e12f;
            break;
        }
    }
    return g;
}

std::vector<double> random_shares(std::mt19937& rng, std::size_t count) {
    std::vector<double> shares(count);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double total = 0;
    for (double& s : shares)
        total += s = unit(rng) < 0.15 ? 0.0 : unit(rng);
    for (double& s : shares)
        s = total > 0 ? s / total : 1.0 / static_cast<double>(count);
    return shares;
}

std::vector<std::uint64_t> naive_counts(const ClassGrid& classes, std::size_t ids) {
    std::vector<std::uint64_t> counts(ids, 0);
    for (ClassId c : classes.cells())
        if (c < ids) ++counts[c];
    return counts;
}

} // namespace

TEST_CASE("thresholds are the order statistics a sort gives, ties and edge values included, on any "
          "thread count") {
    std::mt19937 rng(11);
    const std::pair<int, int> sizes[] = {{1, 1}, {7, 3}, {64, 64}, {333, 97}, {1000, 61}};
    for (std::pair<int, int> size : sizes) {
        const int w = size.first, h = size.second;
        for (int round = 0; round < 12; ++round) {
            const Grid<float> heights = random_heights(rng, w, h, false);
            const auto shares = random_shares(rng, 2 + static_cast<std::size_t>(round % 7));
            const auto expected = sorted_thresholds(heights, shares);
            for (int threads : {1, 2, 3}) {
                CAPTURE(w);
                CAPTURE(h);
                CAPTURE(round);
                CAPTURE(threads);
                CHECK(thresholds_from_shares(heights, shares, threads) == expected);
            }
        }
    }
}

TEST_CASE("thresholds are bit for bit those of 2^16 buckets, for heights of any bits (NaN, -0, "
          "infinities, huge)") {
    std::mt19937 rng(5);
    const std::pair<int, int> sizes[] = {{1, 1}, {5, 5}, {64, 33}, {301, 77}};
    for (std::pair<int, int> size : sizes) {
        const int w = size.first, h = size.second;
        for (int round = 0; round < 20; ++round) {
            const Grid<float> heights = random_heights(rng, w, h, true);
            const auto shares = random_shares(rng, 2 + static_cast<std::size_t>(round % 9));
            const auto expected = reference_thresholds(heights, shares);
            for (int threads : {1, 2, 3}) {
                CAPTURE(w);
                CAPTURE(h);
                CAPTURE(round);
                CAPTURE(threads);
                CHECK(same_bits(thresholds_from_shares(heights, shares, threads), expected));
            }
        }
    }
    // All heights in bucket 0 of both histograms, or none of them.
    for (float fill : {0.0f, -0.0f, kNaN, -1.0f, 1e-9f, 1.0f, 40000.0f}) {
        const Grid<float> g(9, 4, fill);
        CAPTURE(fill);
        CHECK(same_bits(thresholds_from_shares(g, {0.2, 0.3, 0.5}, 2),
                        reference_thresholds(g, {0.2, 0.3, 0.5})));
    }
}

TEST_CASE("thresholds_from_shares gives the heights' range (NaN left out) as a plain loop does") {
    std::mt19937 rng(17);
    const std::pair<int, int> sizes[] = {{1, 1}, {7, 3}, {64, 33}, {301, 77}};
    for (std::pair<int, int> size : sizes)
        for (int round = 0; round < 12; ++round) {
            const Grid<float> heights = random_heights(rng, size.first, size.second, true);
            float lo = std::numeric_limits<float>::infinity(), hi = -lo;
            for (float v : heights.cells())
                if (!std::isnan(v)) {
                    lo = std::min(lo, v);
                    hi = std::max(hi, v);
                }
            for (int threads : {1, 2, 3})
                for (std::size_t classes : {std::size_t{1}, std::size_t{2}, std::size_t{6}}) {
                    CAPTURE(size.first);
                    CAPTURE(round);
                    CAPTURE(threads);
                    CAPTURE(classes);
                    std::pair<float, float> range{-5.0f, 5.0f};
                    const auto shares = random_shares(rng, classes);
                    CHECK(same_bits(thresholds_from_shares(heights, shares, threads, &range),
                                    thresholds_from_shares(heights, shares, threads)));
                    CHECK(range.first == lo); // -0 == +0: either is the range quantising takes
                    CHECK(range.second == hi);
                }
        }
    // Every height NaN: +inf, -inf (as quantise_heights' own pass finds it).
    std::pair<float, float> range;
    (void)thresholds_from_shares(Grid<float>(5, 3, kNaN), {0.5, 0.5}, 1, &range);
    CHECK(range.first == std::numeric_limits<float>::infinity());
    CHECK(range.second == -std::numeric_limits<float>::infinity());
}

TEST_CASE("classify and classify_table give band_of cell by cell and count as class_counts does") {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    auto random_thresholds = [&](std::size_t count) {
        std::vector<float> t(count);
        for (float& x : t) {
            const float r = unit(rng);
            x = r < 0.05f   ? kNaN
                : r < 0.1f  ? kInf
                : r < 0.15f ? -0.0f
                : r < 0.2f  ? 1.0f
                            : unit(rng);
        }
        if (unit(rng) < 0.8f) // mostly in order, NaN last
            std::sort(t.begin(), t.end(),
                      [](float a, float b) { return std::isnan(b) ? !std::isnan(a) : a < b; });
        return t;
    };
    const std::pair<int, int> sizes[] = {{1, 1}, {37, 11}, {16, 4}, {300, 50}, {4099, 3}};
    for (std::pair<int, int> size : sizes) {
        const int w = size.first, h = size.second;
        for (int round = 0; round < 12; ++round) {
            const Grid<float> rows = random_heights(rng, w, h, true);
            const Grid<float> columns = random_heights(rng, w, h, true);
            CAPTURE(w);
            CAPTURE(h);
            CAPTURE(round);

            // One map: thresholds for every padded size and beyond.
            const auto t = random_thresholds(static_cast<std::size_t>(round));
            ClassGrid expected(w, h);
            for (std::size_t i = 0; i < rows.size(); ++i)
                expected.cells()[i] = static_cast<ClassId>(band_of(rows.cells()[i], t));
            for (int threads : {1, 2, 3}) {
                CAPTURE(threads);
                std::vector<std::uint64_t> counts(
                    t.size() + 1 - static_cast<std::size_t>(round % 2), 7);
                const ClassGrid got = classify(rows, t, threads, &counts);
                CHECK(got == expected);
                CHECK(counts == naive_counts(expected, counts.size()));
                CHECK(class_counts(got, static_cast<int>(t.size()) + 1, threads) ==
                      naive_counts(expected, t.size() + 1));
            }

            // Two maps through a table (the last rounds: a table of more than 256 entries).
            const auto rt = random_thresholds(round < 10 ? static_cast<std::size_t>(round) : 20);
            const auto ct =
                random_thresholds(round < 10 ? static_cast<std::size_t>(9 - round) : 17);
            const std::size_t ncols = ct.size() + 1;
            std::vector<ClassId> table((rt.size() + 1) * ncols);
            for (ClassId& c : table)
                c = static_cast<ClassId>(unit(rng) * 9.0f);
            ClassGrid expected_table(w, h);
            for (std::size_t i = 0; i < rows.size(); ++i)
                expected_table.cells()[i] =
                    table[band_of(rows.cells()[i], rt) * ncols + band_of(columns.cells()[i], ct)];
            for (int threads : {1, 2, 3}) {
                CAPTURE(threads);
                std::vector<std::uint64_t> counts(9, 0);
                CHECK(classify_table(rows, rt, columns, ct, table, threads, &counts) ==
                      expected_table);
                CHECK(counts == naive_counts(expected_table, 9));
                CHECK(classify_table(rows, rt, columns, ct, table, threads) == expected_table);
            }
        }
    }
}

TEST_CASE("class_counts and class_fractions: ids at or above the class count are not counted, "
          "empty grids") {
    ClassGrid g(4100, 2, 0);
    for (std::size_t i = 0; i < g.size(); ++i)
        g.cells()[i] = static_cast<ClassId>((i * 7) % 256);
    for (int count : {0, 1, 5, 255, 256, 300}) {
        CAPTURE(count);
        const auto expected = naive_counts(g, static_cast<std::size_t>(count));
        for (int threads : {1, 2, 3})
            CHECK(class_counts(g, count, threads) == expected);
        const auto f = class_fractions(g, count, 2);
        REQUIRE(f.size() == static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i)
            CHECK(f[static_cast<std::size_t>(i)] ==
                  static_cast<double>(expected[static_cast<std::size_t>(i)]) /
                      static_cast<double>(g.size()));
    }
    CHECK(class_fractions(ClassGrid(), 3) == std::vector<double>{0.0, 0.0, 0.0});
    CHECK(class_fractions(ClassGrid(0, 5), 2, 3) == std::vector<double>{0.0, 0.0});
}

TEST_CASE("generate: fractions counted while classifying are class_fractions of the classes, on "
          "any thread count") {
    for (const char* sample : {"overworld.toml", "archipelago.toml"}) {
        Diagnostics d;
        auto project =
            io::load_project(test::source_dir() / "samples" / sample, io::DiskFiles{}, d);
        REQUIRE(project);
        const int class_count = static_cast<int>(project->recipe.terrain.size());
        GenerateResult first;
        for (int threads : {1, 2, 3}) {
            CAPTURE(sample);
            CAPTURE(threads);
            GenerateOptions options;
            options.seed = 99;
            options.width = 203;
            options.height = 57;
            options.threads = threads;
            GenerateResult result = generate_map(*project, options);
            CHECK(result.class_fractions == class_fractions(result.classes, class_count));
            if (threads == 1) {
                first = std::move(result);
                continue;
            }
            CHECK(result.classes == first.classes);
            CHECK(same_bits(result.thresholds, first.thresholds));
            CHECK(result.class_fractions == first.class_fractions);
        }
    }
}
