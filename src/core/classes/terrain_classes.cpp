#include "core/classes/terrain_classes.hpp"

#include <algorithm>
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

    double cumulative = 0;
    std::size_t bucket = 0, below = 0; // cells in buckets before `bucket`
    std::vector<float> in_bucket;
    for (std::size_t i = 0; i + 1 < shares.size(); ++i) {
        cumulative += shares[i];
        // rank of the first cell of class i + 1 in sorted order
        std::size_t rank = static_cast<std::size_t>(std::llround(std::clamp(cumulative, 0.0, 1.0) * static_cast<double>(n)));
        if (rank >= n) {
            thresholds.push_back(std::nextafter(1.0f, 2.0f)); // nothing reaches it
            continue;
        }
        while (below + histogram[bucket] <= rank) below += histogram[bucket++];
        // the threshold is the (rank - below)-th smallest value in this bucket
        in_bucket.clear();
        for (float v : heights.cells())
            if (bucket_of(v) == static_cast<int>(bucket)) in_bucket.push_back(v);
        auto nth = in_bucket.begin() + static_cast<std::ptrdiff_t>(rank - below);
        std::nth_element(in_bucket.begin(), nth, in_bucket.end());
        float t = *nth;
        if (!thresholds.empty()) t = std::max(t, thresholds.back());
        thresholds.push_back(t);
    }
    return thresholds;
}

ClassGrid classify(const Grid<float>& heights, const std::vector<float>& thresholds, int threads) {
    ClassGrid out(heights.width(), heights.height(), 0);
    auto& dst = out.cells();
    const auto& src = heights.cells();
    parallel_for(heights.height(), threads, [&](int y0, int y1) {
        const std::size_t i0 = static_cast<std::size_t>(y0) * static_cast<std::size_t>(heights.width());
        const std::size_t i1 = static_cast<std::size_t>(y1) * static_cast<std::size_t>(heights.width());
        for (std::size_t i = i0; i < i1; ++i) {
            ClassId c = 0;
            for (float t : thresholds) c = static_cast<ClassId>(c + (src[i] >= t ? 1 : 0));
            dst[i] = c;
        }
    });
    return out;
}

std::vector<double> class_fractions(const ClassGrid& classes, int class_count) {
    std::vector<double> counts(static_cast<std::size_t>(std::max(class_count, 0)), 0.0);
    for (ClassId c : classes.cells())
        if (c < counts.size()) counts[c] += 1;
    if (!classes.empty())
        for (double& c : counts) c /= static_cast<double>(classes.size());
    return counts;
}

} // namespace tilegen
