#include "core/rules/rule_matcher.hpp"

#include <algorithm>
#include <bit>
#include <unordered_map>

namespace tilegen {

namespace {

ClassId class_at(const ClassGrid& classes, int x, int y, OutsidePolicy outside) {
    if (!classes.contains(x, y)) {
        if (outside.fixed_class) return *outside.fixed_class;
        x = std::clamp(x, 0, classes.width() - 1);
        y = std::clamp(y, 0, classes.height() - 1);
    }
    return classes(x, y);
}

bool matches(const Descriptor& d, const ClassGrid& classes, int x, int y, OutsidePolicy outside) {
    const int r = d.radius();
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
            ClassMask m = d.at(dx, dy);
            if (m == kAnyClass) continue;
            if (!(m & (ClassMask{1} << class_at(classes, x + dx, y + dy, outside)))) return false;
        }
    return true;
}

// A neighbourhood's classes packed into 128 bits: (2r+1)^2 cells of `bits` each (at most 25 * 5 = 125 bits).
struct Key {
    std::uint64_t lo = 0, hi = 0;
    bool operator==(const Key&) const = default;
};
struct KeyHash {
    std::size_t operator()(const Key& k) const { return std::hash<std::uint64_t>{}(k.lo * 0x9E3779B97F4A7C15ull ^ k.hi); }
};

} // namespace

std::vector<Rule> order_by_specificity(std::vector<Rule> rules) {
    std::stable_sort(rules.begin(), rules.end(), [](const Rule& a, const Rule& b) {
        return a.pattern.specificity() > b.pattern.specificity();
    });
    return rules;
}

int first_match(const ClassGrid& classes, int x, int y, std::span<const Rule> ordered, OutsidePolicy outside) {
    for (std::size_t i = 0; i < ordered.size(); ++i)
        if (matches(ordered[i].pattern, classes, x, y, outside)) return static_cast<int>(i);
    return kNoRule;
}

Grid<int> match_rules(const ClassGrid& classes, std::span<const Rule> ordered, int class_count, OutsidePolicy outside) {
    Grid<int> out(classes.width(), classes.height(), kNoRule);
    if (classes.empty()) return out;
    int radius = 0;
    for (const Rule& r : ordered) radius = std::max(radius, r.pattern.radius());
    const int side = 2 * radius + 1;
    const int bits = std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned>(std::max(class_count, 2) - 1))));
    const int total_bits = side * side * bits;

    // Small key spaces use a flat table; larger ones a hash map. Both are filled on first sight of a key.
    const bool flat = total_bits <= 20;
    std::vector<int> table(flat ? (std::size_t{1} << total_bits) : 0, -2);
    std::unordered_map<Key, int, KeyHash> cache;

    for (int y = 0; y < classes.height(); ++y) {
        int* dst = out.row(y);
        for (int x = 0; x < classes.width(); ++x) {
            Key key;
            int shift = 0;
            for (int dy = -radius; dy <= radius; ++dy)
                for (int dx = -radius; dx <= radius; ++dx) {
                    std::uint64_t c = class_at(classes, x + dx, y + dy, outside);
                    if (shift < 64) {
                        key.lo |= c << shift;
                        if (shift + bits > 64) key.hi |= c >> (64 - shift);
                    } else {
                        key.hi |= c << (shift - 64);
                    }
                    shift += bits;
                }
            int decision;
            if (flat) {
                int& slot = table[static_cast<std::size_t>(key.lo)];
                if (slot == -2) slot = first_match(classes, x, y, ordered, outside);
                decision = slot;
            } else {
                auto [it, inserted] = cache.try_emplace(key, 0);
                if (inserted) it->second = first_match(classes, x, y, ordered, outside);
                decision = it->second;
            }
            dst[x] = decision;
        }
    }
    return out;
}

} // namespace tilegen
