#include "core/classes/terrain_classes.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/parallel.hpp"

namespace tilegen {

namespace {
constexpr int kBuckets = 1 << 16;

int bucket_of(float v) {
    int b = static_cast<int>(v * static_cast<float>(kBuckets));
    return std::clamp(b, 0, kBuckets - 1);
}
} // namespace

std::vector<float> thresholds_from_shares(const Grid<float>& heights, const std::vector<double>& shares, int threads) {
    std::vector<float> thresholds;
    if (shares.size() < 2) return thresholds;
    const std::size_t n = heights.size();
    // Per-block histograms added in block order: integer sums, the same for any thread count.
    const int blocks = std::max(1, threads);
    std::vector<std::vector<std::uint32_t>> partial(static_cast<std::size_t>(blocks));
    parallel_for(blocks, blocks, [&](int b0, int b1) {
        for (int b = b0; b < b1; ++b) {
            auto& hist = partial[static_cast<std::size_t>(b)];
            hist.assign(kBuckets, 0);
            const std::size_t i0 = n * static_cast<std::size_t>(b) / static_cast<std::size_t>(blocks);
            const std::size_t i1 = n * static_cast<std::size_t>(b + 1) / static_cast<std::size_t>(blocks);
            const float* v = heights.cells().data();
            for (std::size_t i = i0; i < i1; ++i) ++hist[static_cast<std::size_t>(bucket_of(v[i]))];
        }
    });
    std::vector<std::uint32_t> histogram(kBuckets, 0);
    for (const auto& hist : partial)
        for (std::size_t k = 0; k < static_cast<std::size_t>(kBuckets); ++k) histogram[k] += hist[k];

    // Which bucket each threshold falls in, and its rank inside that bucket.
    struct Cut {
        bool beyond = false; // the share reaches the end: nothing is at or above the threshold
        std::size_t bucket = 0, rank = 0;
    };
    std::vector<Cut> cuts;
    double cumulative = 0;
    std::size_t bucket = 0, below = 0; // cells in buckets before `bucket`
    for (std::size_t i = 0; i + 1 < shares.size(); ++i) {
        cumulative += shares[i];
        // rank of the first cell of class i + 1 in sorted order
        std::size_t rank = static_cast<std::size_t>(std::llround(std::clamp(cumulative, 0.0, 1.0) * static_cast<double>(n)));
        if (rank >= n) {
            cuts.push_back({true, 0, 0});
            continue;
        }
        while (below + histogram[bucket] <= rank) below += histogram[bucket++];
        cuts.push_back({false, bucket, rank - below});
    }
    // The values of the buckets that hold a threshold, collected in one pass (per block, then joined in block
    // order); the threshold is the rank-th smallest of its bucket.
    std::vector<int> slot_of_bucket(kBuckets, -1);
    std::vector<std::size_t> wanted;
    for (const Cut& c : cuts)
        if (!c.beyond && slot_of_bucket[c.bucket] < 0) {
            slot_of_bucket[c.bucket] = static_cast<int>(wanted.size());
            wanted.push_back(c.bucket);
        }
    std::vector<std::vector<std::vector<float>>> found(static_cast<std::size_t>(blocks),
                                                       std::vector<std::vector<float>>(wanted.size()));
    if (!wanted.empty())
        parallel_for(blocks, blocks, [&](int b0, int b1) {
            for (int b = b0; b < b1; ++b) {
                auto& mine = found[static_cast<std::size_t>(b)];
                const std::size_t i0 = n * static_cast<std::size_t>(b) / static_cast<std::size_t>(blocks);
                const std::size_t i1 = n * static_cast<std::size_t>(b + 1) / static_cast<std::size_t>(blocks);
                const float* v = heights.cells().data();
                const int* slots = slot_of_bucket.data();
                for (std::size_t i = i0; i < i1; ++i) {
                    const int slot = slots[bucket_of(v[i])];
                    if (slot >= 0) mine[static_cast<std::size_t>(slot)].push_back(v[i]);
                }
            }
        });
    std::vector<std::vector<float>> in_bucket(wanted.size());
    for (std::size_t k = 0; k < wanted.size(); ++k)
        for (const auto& mine : found) in_bucket[k].insert(in_bucket[k].end(), mine[k].begin(), mine[k].end());
    for (const Cut& c : cuts) {
        if (c.beyond) {
            thresholds.push_back(std::nextafter(1.0f, 2.0f)); // nothing reaches it
            continue;
        }
        auto& values = in_bucket[static_cast<std::size_t>(slot_of_bucket[c.bucket])];
        auto nth = values.begin() + static_cast<std::ptrdiff_t>(c.rank);
        std::nth_element(values.begin(), nth, values.end());
        float t = *nth;
        if (!thresholds.empty()) t = std::max(t, thresholds.back());
        thresholds.push_back(t);
    }
    return thresholds;
}

ClassGrid classify(const Grid<float>& heights, const std::vector<float>& thresholds, int threads) {
    ClassGrid out = ClassGrid::uninitialised(heights.width(), heights.height());
    auto& dst = out.cells();
    const auto& src = heights.cells();
    parallel_for(heights.height(), threads, [&](int y0, int y1) {
        const std::size_t i0 = static_cast<std::size_t>(y0) * static_cast<std::size_t>(heights.width());
        const std::size_t i1 = static_cast<std::size_t>(y1) * static_cast<std::size_t>(heights.width());
        for (std::size_t i = i0; i < i1; ++i) dst[i] = static_cast<ClassId>(band_of(src[i], thresholds));
    });
    return out;
}

std::vector<double> class_fractions(const ClassGrid& classes, int class_count, int threads) {
    // Per-block counts of all 256 possible ids, added in block order (integers: the same for any thread count).
    const int blocks = std::max(1, std::min(threads, std::max(classes.height(), 1)));
    std::vector<std::array<std::uint64_t, 256>> partial(static_cast<std::size_t>(blocks));
    parallel_for(blocks, blocks, [&](int b0, int b1) {
        for (int b = b0; b < b1; ++b) {
            auto& count = partial[static_cast<std::size_t>(b)];
            count.fill(0);
            const std::size_t n = classes.size();
            const std::size_t i0 = n * static_cast<std::size_t>(b) / static_cast<std::size_t>(blocks);
            const std::size_t i1 = n * static_cast<std::size_t>(b + 1) / static_cast<std::size_t>(blocks);
            const ClassId* c = classes.cells().data();
            for (std::size_t i = i0; i < i1; ++i) ++count[c[i]];
        }
    });
    std::vector<double> counts(static_cast<std::size_t>(std::max(class_count, 0)), 0.0);
    for (const auto& count : partial)
        for (std::size_t c = 0; c < counts.size() && c < count.size(); ++c) counts[c] += static_cast<double>(count[c]);
    if (!classes.empty())
        for (double& c : counts) c /= static_cast<double>(classes.size());
    return counts;
}

} // namespace tilegen
