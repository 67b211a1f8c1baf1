#include "core/rules/autotile.hpp"

#include <algorithm>

#include "core/hash.hpp"
#include "core/parallel.hpp"

namespace tilegen {

std::uint64_t rule_choice_base(std::uint64_t seed, std::uint64_t rule_identity) {
    return hash_values(seed, 0x72756c65ull /* "rule" */, rule_identity);
}

namespace {
// Cumulative weights as 53-bit fixed-point bounds: target i is chosen when the cell's hash (top 53 bits) is below
// bounds[i] and not below bounds[i - 1]. Zero weights repeat the previous bound (never chosen); the last
// positive weight reaches 2^53.
std::vector<std::uint64_t> choice_bounds(const ResolvedTargets& targets) {
    const std::size_t n = targets.weights.size();
    std::vector<std::uint64_t> bounds(n, 0);
    double total = 0;
    for (double w : targets.weights) total += w;
    constexpr double kScale = 9007199254740992.0; // 2^53
    double cumulative = 0;
    std::uint64_t previous = 0;
    std::size_t last_positive = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (total > 0 && targets.weights[i] > 0) {
            cumulative += targets.weights[i];
            previous = static_cast<std::uint64_t>(std::min(cumulative / total, 1.0) * kScale);
            last_positive = i;
        }
        bounds[i] = previous;
    }
    if (n > 0) {
        if (total <= 0) bounds[0] = std::uint64_t{1} << 53;
        else for (std::size_t i = last_positive; i < n; ++i) bounds[i] = std::uint64_t{1} << 53;
    }
    return bounds;
}

int pick(const std::vector<std::uint64_t>& bounds, std::uint64_t base, int x, int y) {
    if (bounds.size() <= 1) return bounds.empty() ? -1 : 0;
    const std::uint64_t h =
        mix64(base + static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) * 0x9E3779B97F4A7C15ull +
              static_cast<std::uint64_t>(static_cast<std::int64_t>(y)) * 0xC2B2AE3D27D4EB4Full) >> 11;
    // Branch-free: the index is how many bounds the hash has reached (bounds never decrease, the last is 2^53).
    int index = 0;
    for (const std::uint64_t b : bounds) index += h >= b ? 1 : 0;
    return std::min(index, static_cast<int>(bounds.size()) - 1);
}
} // namespace

int choose_target_from_base(const ResolvedTargets& targets, std::uint64_t base, int x, int y) {
    return pick(choice_bounds(targets), base, x, y);
}

int choose_target(const ResolvedTargets& targets, std::uint64_t rule_identity, std::uint64_t seed, int x, int y) {
    return choose_target_from_base(targets, rule_choice_base(seed, rule_identity), x, y);
}

AutotileResult autotile(const ClassGrid& classes, std::span<const LayerRules> layers, int class_count,
                        OutsidePolicy outside, std::uint64_t seed, Gid error_gid, int threads) {
    AutotileResult result;
    const int w = classes.width(), h = classes.height();
    for (const LayerRules& layer : layers) {
        Grid<int> decisions = match_rules(classes, layer.ordered, class_count, outside, threads);
        TileLayer tiles{layer.name, Grid<Gid>(w, h, 0)};
        std::vector<std::uint64_t> bases;
        std::vector<std::vector<std::uint64_t>> bounds;
        for (std::size_t r = 0; r < layer.ordered.size(); ++r) {
            bases.push_back(rule_choice_base(seed, layer.ordered[r].identity));
            bounds.push_back(choice_bounds(layer.resolved[r]));
        }
        // Rules with one target need no hash: their gid is fixed.
        std::vector<Gid> fixed(layer.ordered.size(), 0);
        std::vector<bool> is_fixed(layer.ordered.size(), false);
        for (std::size_t r = 0; r < layer.ordered.size(); ++r)
            if (layer.resolved[r].gids.size() == 1) {
                is_fixed[r] = true;
                fixed[r] = layer.resolved[r].gids[0];
            }
        const int blocks = std::max(1, threads);
        std::vector<std::vector<std::uint64_t>> block_hits(static_cast<std::size_t>(blocks),
                                                           std::vector<std::uint64_t>(layer.ordered.size(), 0));
        std::vector<std::uint64_t> block_unmatched(static_cast<std::size_t>(blocks), 0);
        parallel_for(blocks, blocks, [&](int b0, int b1) {
            for (int b = b0; b < b1; ++b) {
                auto& hits = block_hits[static_cast<std::size_t>(b)];
                const int y0 = static_cast<int>(static_cast<long long>(h) * b / blocks);
                const int y1 = static_cast<int>(static_cast<long long>(h) * (b + 1) / blocks);
                for (int y = y0; y < y1; ++y) {
                    const int* decided = decisions.row(y);
                    Gid* dst = tiles.tiles.row(y);
                    for (int x = 0; x < w; ++x) {
                        const int r = decided[x];
                        if (r == kNoRule) {
                            dst[x] = error_gid;
                            ++block_unmatched[static_cast<std::size_t>(b)];
                            continue;
                        }
                        const auto ri = static_cast<std::size_t>(r);
                        ++hits[ri];
                        if (is_fixed[ri]) {
                            dst[x] = fixed[ri];
                            continue;
                        }
                        const ResolvedTargets& targets = layer.resolved[ri];
                        const int t = pick(bounds[ri], bases[ri], x, y);
                        dst[x] = t < 0 ? error_gid : targets.gids[static_cast<std::size_t>(t)];
                    }
                }
            }
        });
        std::vector<std::uint64_t> hits(layer.ordered.size(), 0);
        for (const auto& bh : block_hits)
            for (std::size_t r = 0; r < hits.size(); ++r) hits[r] += bh[r];
        for (auto u : block_unmatched) result.unmatched += u;
        result.layers.push_back(std::move(tiles));
        result.decisions.push_back(std::move(decisions));
        result.hits.push_back(std::move(hits));
    }
    return result;
}

} // namespace tilegen
