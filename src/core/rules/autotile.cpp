#include "core/rules/autotile.hpp"

#include <algorithm>
#include <array>

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

// The cell's 53-bit choice hash.
inline std::uint64_t cell_hash(std::uint64_t base, int x, int y) {
    return mix64(base + static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) * 0x9E3779B97F4A7C15ull +
                 static_cast<std::uint64_t>(static_cast<std::int64_t>(y)) * 0xC2B2AE3D27D4EB4Full) >> 11;
}

// Index among `count` (>= 1) targets for a hash: how many bounds it has reached (bounds never decrease, the
// last is 2^53).
inline int index_of_hash(const std::uint64_t* bounds, int count, std::uint64_t h) {
    int index = 0;
    for (int i = 0; i < count; ++i) index += h >= bounds[i] ? 1 : 0;
    return std::min(index, count - 1);
}

int pick(const std::vector<std::uint64_t>& bounds, std::uint64_t base, int x, int y) {
    if (bounds.size() <= 1) return bounds.empty() ? -1 : 0;
    return index_of_hash(bounds.data(), static_cast<int>(bounds.size()), cell_hash(base, x, y));
}
} // namespace

int choose_target_from_base(const ResolvedTargets& targets, std::uint64_t base, int x, int y) {
    return pick(choice_bounds(targets), base, x, y);
}

int choose_target(const ResolvedTargets& targets, std::uint64_t rule_identity, std::uint64_t seed, int x, int y) {
    return choose_target_from_base(targets, rule_choice_base(seed, rule_identity), x, y);
}

AutotileResult autotile(const ClassGrid& classes, std::span<const LayerRules> layers, int class_count,
                        OutsidePolicy outside, std::uint64_t seed, Gid error_gid, int threads, bool keep_decisions) {
    AutotileResult result;
    const int w = classes.width(), h = classes.height();
    for (const LayerRules& layer : layers) {
        const LayerMatcher matcher(classes, layer.ordered, class_count, outside);
        Grid<int> decisions = keep_decisions ? Grid<int>::uninitialised(w, h) : Grid<int>();
        TileLayer tiles{layer.name, Grid<Gid>::uninitialised(w, h)};
        const std::size_t rules = layer.ordered.size();
        // Per rule, what the cell loop needs in one place: its gids, and for several targets the choice bounds
        // with a 256-entry shortcut: the top 8 bits of the 53-bit hash give the target directly unless that
        // slice of the range holds a bound (then the bounds are compared as usual: same result either way).
        struct Choice {
            const std::uint64_t* bounds = nullptr;
            const Gid* gids = nullptr;
            const std::uint8_t* slice = nullptr;
            std::uint64_t base = 0;
            int count = 0;
        };
        constexpr std::uint8_t kStraddles = 255;
        std::vector<std::vector<std::uint64_t>> bounds(rules);
        std::vector<std::array<std::uint8_t, 256>> slices(rules);
        std::vector<Choice> choices(rules);
        for (std::size_t r = 0; r < rules; ++r) {
            bounds[r] = choice_bounds(layer.resolved[r]);
            const int count = static_cast<int>(layer.resolved[r].gids.size());
            for (std::uint64_t b = 0; b < 256; ++b) {
                const std::uint64_t lo = b << 45, hi = ((b + 1) << 45) - 1;
                const int a = index_of_hash(bounds[r].data(), count, lo), z = index_of_hash(bounds[r].data(), count, hi);
                slices[r][b] = a == z && count < kStraddles ? static_cast<std::uint8_t>(a) : kStraddles;
            }
            choices[r] = {bounds[r].data(), layer.resolved[r].gids.data(), slices[r].data(),
                          rule_choice_base(seed, layer.ordered[r].identity), count};
        }
        const int blocks = std::max(1, std::min(threads, std::max(h, 1)));
        std::vector<std::vector<std::uint64_t>> block_hits(static_cast<std::size_t>(blocks));
        std::vector<std::int64_t> block_first(static_cast<std::size_t>(blocks), -1);
        parallel_for(blocks, blocks, [&](int b0, int b1) {
            for (int b = b0; b < b1; ++b) {
                auto& hits = block_hits[static_cast<std::size_t>(b)];
                hits.assign(rules + 1, 0); // the last counts unmatched cells
                const int y0 = static_cast<int>(static_cast<long long>(h) * b / blocks);
                const int y1 = static_cast<int>(static_cast<long long>(h) * (b + 1) / blocks);
                std::int64_t& first = block_first[static_cast<std::size_t>(b)];
                matcher.match_rows(y0, y1, [&](int y, const int* decided) {
                    if (keep_decisions) std::copy_n(decided, w, decisions.row(y));
                    Gid* dst = tiles.tiles.row(y);
                    // Hits are counted by runs of the same rule (a counter bumped per cell would make every
                    // cell of a plain area wait for the previous one's store).
                    std::size_t current = rules;
                    std::uint64_t run = 0;
                    for (int x = 0; x < w; ++x) {
                        const int r = decided[x];
                        const std::size_t ri = r == kNoRule ? rules : static_cast<std::size_t>(r);
                        if (ri != current) {
                            hits[current] += run;
                            current = ri;
                            run = 0;
                        }
                        ++run;
                        if (r == kNoRule) {
                            dst[x] = error_gid;
                            if (first < 0) first = static_cast<std::int64_t>(y) * w + x;
                            continue;
                        }
                        const Choice& c = choices[ri];
                        if (c.count == 1) {
                            dst[x] = c.gids[0];
                            continue;
                        }
                        if (c.count == 0) {
                            dst[x] = error_gid;
                            continue;
                        }
                        const std::uint64_t hash = cell_hash(c.base, x, y);
                        const std::uint8_t t = c.slice[hash >> 45];
                        dst[x] = c.gids[t != kStraddles ? t : index_of_hash(c.bounds, c.count, hash)];
                    }
                    hits[current] += run;
                });
            }
        });
        std::vector<std::uint64_t> hits(rules, 0);
        for (const auto& bh : block_hits)
            for (std::size_t r = 0; r < rules && r < bh.size(); ++r) hits[r] += bh[r];
        std::uint64_t unmatched = 0;
        std::int64_t first = -1;
        for (int b = 0; b < blocks; ++b) {
            unmatched += block_hits[static_cast<std::size_t>(b)][rules];
            if (first < 0) first = block_first[static_cast<std::size_t>(b)];
        }
        result.unmatched += unmatched;
        result.layer_unmatched.push_back(unmatched);
        result.first_unmatched.push_back(first);
        result.layers.push_back(std::move(tiles));
        if (keep_decisions) result.decisions.push_back(std::move(decisions));
        result.hits.push_back(std::move(hits));
    }
    return result;
}

} // namespace tilegen
