#include "core/rules/autotile.hpp"

#include <algorithm>
#include <array>

#include "core/hash.hpp"
#include "core/parallel.hpp"

namespace tilegen {

std::uint64_t rule_choice_base(std::uint64_t seed, std::uint64_t rule_identity) {
    return hash_values(seed, 0x72756c65ull /* "rule" */, rule_identity);
}

// Cumulative weights as 53-bit fixed-point bounds: target i is chosen when the cell's hash (top 53
// bits) is below bounds[i] and not below bounds[i - 1]. Zero weights repeat the previous bound
// (never chosen); the last positive weight reaches 2^53.
std::vector<std::uint64_t> choice_bounds(const ResolvedTargets& targets) {
    const std::size_t n = targets.weights.size();
    std::vector<std::uint64_t> bounds(n, 0);
    double total = 0;
    for (double w : targets.weights)
        total += w;
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
        if (total <= 0)
            bounds[0] = std::uint64_t{1} << 53;
        else
            for (std::size_t i = last_positive; i < n; ++i)
                bounds[i] = std::uint64_t{1} << 53;
    }
    return bounds;
}

namespace {
// mix64 without its last step (z ^ z >> 31), which does not change the top 33 bits.
constexpr std::uint64_t mix64_before_last_step(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    return (z ^ (z >> 27)) * 0x94D049BB133111EBull;
}
static_assert(mix64(12345) ==
              (mix64_before_last_step(12345) ^ (mix64_before_last_step(12345) >> 31)));

// The cell's 53-bit choice hash.
inline std::uint64_t cell_hash(std::uint64_t base, int x, int y) {
    return mix64(base +
                 static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) * 0x9E3779B97F4A7C15ull +
                 static_cast<std::uint64_t>(static_cast<std::int64_t>(y)) *
                     0xC2B2AE3D27D4EB4Full) >>
           11;
}

// Index among `count` (>= 1) targets for a hash: how many bounds it has reached (bounds never
// decrease, the last is 2^53).
inline int index_of_hash(const std::uint64_t* bounds, int count, std::uint64_t h) {
    int index = 0;
    for (int i = 0; i < count; ++i)
        index += h >= bounds[i] ? 1 : 0;
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

int choose_target(const ResolvedTargets& targets, std::uint64_t rule_identity, std::uint64_t seed,
                  int x, int y) {
    return choose_target_from_base(targets, rule_choice_base(seed, rule_identity), x, y);
}

AutotileResult autotile(const ClassGrid& classes, std::span<const LayerRules> layers,
                        int class_count, OutsidePolicy outside, std::uint64_t seed, Gid error_gid,
                        int threads, bool keep_decisions) {
    AutotileResult result;
    ClassGrid corners; // the class grid one column and row larger, for corner layers
    for (const LayerRules& layer : layers) {
        // A corner layer's tile (i, j) is matched as cell (i, j) of the grid with one more column
        // and row (the outside policy's classes): its 2x2 patterns read cells (i-1..i, j-1..j).
        if (layer.corner() && corners.empty()) corners = corner_class_grid(classes, outside);
        const ClassGrid& grid = layer.corner() ? corners : classes;
        const int w = grid.width(), h = grid.height();
        const LayerMatcher matcher(grid, layer.ordered, class_count, outside);
        Grid<int> decisions = keep_decisions ? Grid<int>::uninitialised(w, h) : Grid<int>();
        TileLayer tiles{layer.name, Grid<Gid>::uninitialised(w, h), layer.corner()};
        const std::size_t rules = layer.ordered.size();
        // The choice tables, indexed by decision + 1 (entry 0 is "no rule": the error tile). Per
        // entry: the hash base, the offset of its gids in one array, and a 256-entry shortcut: the
        // top 8 bits of the cell's 53-bit hash give the target directly unless that slice of the
        // range holds a bound (then the bounds are compared as usual: same result either way).
        // Every entry has at least one gid (the error tile stands in for rules without targets), so
        // each cell takes the same branch-free path: hash, shortcut, gid.
        constexpr std::uint8_t kStraddles = 255;
        const std::size_t entries = rules + 1;
        std::vector<std::uint64_t> bases(entries, 0);
        std::vector<std::uint32_t> gid_offset(entries, 0);
        std::vector<std::uint8_t> slices(entries * 256, 0);
        std::vector<Gid> gids{error_gid};
        std::vector<std::vector<std::uint64_t>> bounds(entries);
        std::vector<int> counts(entries, 1);
        for (std::size_t r = 0; r < rules; ++r) {
            const std::size_t e = r + 1;
            bases[e] = rule_choice_base(seed, layer.ordered[r].identity);
            const int count = static_cast<int>(layer.resolved[r].gids.size());
            if (count == 0) continue; // offset 0: the error tile, shortcut 0
            gid_offset[e] = static_cast<std::uint32_t>(gids.size());
            gids.insert(gids.end(), layer.resolved[r].gids.begin(), layer.resolved[r].gids.end());
            bounds[e] = choice_bounds(layer.resolved[r]);
            counts[e] = count;
            for (std::uint64_t b = 0; b < 256; ++b) {
                const std::uint64_t lo = b << 45, hi = ((b + 1) << 45) - 1;
                const int a = index_of_hash(bounds[e].data(), count, lo),
                          z = index_of_hash(bounds[e].data(), count, hi);
                slices[e * 256 + b] =
                    a == z && count < kStraddles ? static_cast<std::uint8_t>(a) : kStraddles;
            }
        }
        const int blocks = std::max(1, std::min(threads, std::max(h, 1)));
        std::vector<std::vector<std::uint64_t>> block_hits(static_cast<std::size_t>(blocks));
        std::vector<std::int64_t> block_first(static_cast<std::size_t>(blocks), -1);
        parallel_for(blocks, blocks, [&](int b0, int b1) {
            // Hits are counted in four interleaved tables (a single counter bumped cell after cell
            // in a plain area would make each cell wait for the previous one's store), added up per
            // block.
            std::vector<std::uint32_t> lanes(4 * entries, 0);
            for (int b = b0; b < b1; ++b) {
                auto& hits = block_hits[static_cast<std::size_t>(b)];
                hits.assign(entries, 0); // entry 0 counts unmatched cells
                const int y0 = static_cast<int>(static_cast<long long>(h) * b / blocks);
                const int y1 = static_cast<int>(static_cast<long long>(h) * (b + 1) / blocks);
                std::int64_t& first = block_first[static_cast<std::size_t>(b)];
                const std::uint64_t* const base_of = bases.data();
                const std::uint32_t* const offset_of = gid_offset.data();
                const std::uint8_t* const slice_of = slices.data();
                const Gid* const gid_list = gids.data();
                std::uint32_t* const lane0 = lanes.data();
                std::uint32_t* const lane1 = lane0 + entries;
                std::uint32_t* const lane2 = lane1 + entries;
                std::uint32_t* const lane3 = lane2 + entries;
                matcher.match_rows(y0, y1, [&](int y, const int* decided) {
                    if (keep_decisions) std::copy_n(decided, w, decisions.row(y));
                    Gid* const dst = tiles.tiles.row(y);
                    const std::uint32_t unmatched_before =
                        lane0[0] + lane1[0] + lane2[0] + lane3[0];
                    const std::uint64_t row_part =
                        static_cast<std::uint64_t>(static_cast<std::int64_t>(y)) *
                        0xC2B2AE3D27D4EB4Full;
                    auto one = [&](int x, std::uint32_t* lane) {
                        const std::size_t e = static_cast<std::size_t>(decided[x] + 1);
                        ++lane[e];
                        // mix64's last step (z ^ z >> 31) leaves the top 8 bits as they are: the
                        // shortcut's slice is known one step early; the whole hash is only needed
                        // where the slice holds a bound.
                        const std::uint64_t z = mix64_before_last_step(
                            base_of[e] +
                            static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) *
                                0x9E3779B97F4A7C15ull +
                            row_part);
                        const std::uint8_t t = slice_of[(e << 8) | (z >> 56)];
                        dst[x] =
                            gid_list[offset_of[e] + (t != kStraddles
                                                         ? t
                                                         : static_cast<std::uint32_t>(index_of_hash(
                                                               bounds[e].data(), counts[e],
                                                               (z ^ (z >> 31)) >> 11)))];
                    };
                    int x = 0;
                    for (; x + 4 <= w; x += 4) {
                        one(x, lane0);
                        one(x + 1, lane1);
                        one(x + 2, lane2);
                        one(x + 3, lane3);
                    }
                    for (; x < w; ++x)
                        one(x, lane0);
                    if (first < 0 && lane0[0] + lane1[0] + lane2[0] + lane3[0] != unmatched_before)
                        for (int k = 0; k < w; ++k)
                            if (decided[k] == kNoRule) {
                                first = static_cast<std::int64_t>(y) * w + k;
                                break;
                            }
                    // Fold the lanes into the block's counts before a 32-bit lane could overflow.
                    if (y + 1 == y1 || (y & 1023) == 1023) {
                        for (std::size_t e = 0; e < entries; ++e) {
                            hits[e] += std::uint64_t{lane0[e]} + lane1[e] + lane2[e] + lane3[e];
                            lane0[e] = lane1[e] = lane2[e] = lane3[e] = 0;
                        }
                    }
                });
            }
        });
        std::vector<std::uint64_t> hits(rules, 0);
        std::uint64_t unmatched = 0;
        std::int64_t first = -1;
        for (int b = 0; b < blocks; ++b) {
            const auto& bh = block_hits[static_cast<std::size_t>(b)];
            if (bh.size() != entries) continue; // a block with no rows
            unmatched += bh[0];
            for (std::size_t r = 0; r < rules; ++r)
                hits[r] += bh[r + 1];
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
