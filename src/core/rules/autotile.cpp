#include "core/rules/autotile.hpp"

#include "core/hash.hpp"

namespace tilegen {

int choose_target(const ResolvedTargets& targets, std::uint64_t rule_identity, std::uint64_t seed, int x, int y) {
    const std::size_t n = targets.weights.size();
    if (n == 0) return -1;
    if (n == 1) return 0;
    double total = 0;
    for (double w : targets.weights) total += w;
    if (total <= 0) return 0;
    const double u = unit_double(hash_values(seed, 0x72756c65ull /* "rule" */, rule_identity,
                                             static_cast<std::uint64_t>(static_cast<std::int64_t>(x)),
                                             static_cast<std::uint64_t>(static_cast<std::int64_t>(y)))) *
                     total;
    double cumulative = 0;
    std::size_t last_positive = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (targets.weights[i] <= 0) continue;
        cumulative += targets.weights[i];
        last_positive = i;
        if (u < cumulative) return static_cast<int>(i);
    }
    return static_cast<int>(last_positive);
}

AutotileResult autotile(const ClassGrid& classes, std::span<const LayerRules> layers, int class_count,
                        OutsidePolicy outside, std::uint64_t seed, Gid error_gid) {
    AutotileResult result;
    for (const LayerRules& layer : layers) {
        Grid<int> decisions = match_rules(classes, layer.ordered, class_count, outside);
        TileLayer tiles{layer.name, Grid<Gid>(classes.width(), classes.height(), 0)};
        std::vector<std::uint64_t> hits(layer.ordered.size(), 0);
        for (int y = 0; y < classes.height(); ++y) {
            const int* decided = decisions.row(y);
            Gid* dst = tiles.tiles.row(y);
            for (int x = 0; x < classes.width(); ++x) {
                const int r = decided[x];
                if (r == kNoRule) {
                    dst[x] = error_gid;
                    ++result.unmatched;
                    continue;
                }
                ++hits[static_cast<std::size_t>(r)];
                const ResolvedTargets& targets = layer.resolved[static_cast<std::size_t>(r)];
                const int t = choose_target(targets, layer.ordered[static_cast<std::size_t>(r)].identity, seed, x, y);
                dst[x] = t < 0 ? error_gid : targets.gids[static_cast<std::size_t>(t)];
            }
        }
        result.layers.push_back(std::move(tiles));
        result.decisions.push_back(std::move(decisions));
        result.hits.push_back(std::move(hits));
    }
    return result;
}

} // namespace tilegen
