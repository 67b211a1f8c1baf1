#include "core/rules/rule_matcher.hpp"

#include <algorithm>
#include <bit>
#include <functional>
#include <unordered_map>

#include "core/hash.hpp"
#include "core/parallel.hpp"

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

namespace {

// The first matching rule for a neighbourhood given as (2r+1)^2 class ids, row-major.
int first_match_of(std::span<const Rule> ordered, const std::vector<ClassId>& cells, int radius) {
    const int side = 2 * radius + 1;
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        const Descriptor& d = ordered[i].pattern;
        const int r = d.radius();
        bool ok = true;
        for (int dy = -r; dy <= r && ok; ++dy)
            for (int dx = -r; dx <= r && ok; ++dx) {
                const ClassMask m = d.at(dx, dy);
                if (m == kAnyClass) continue;
                ok = (m >> cells[static_cast<std::size_t>((dy + radius) * side + dx + radius)]) & 1u;
            }
        if (ok) return static_cast<int>(i);
    }
    return kNoRule;
}

// Row y of the class grid with `radius` cells of outside on each side (clamped or the fixed class).
void padded_row(const ClassGrid& classes, int y, int radius, OutsidePolicy outside, std::vector<ClassId>& row) {
    const int w = classes.width();
    row.resize(static_cast<std::size_t>(w + 2 * radius));
    const bool inside = y >= 0 && y < classes.height();
    const ClassId* src = classes.row(std::clamp(y, 0, classes.height() - 1));
    for (int x = -radius; x < w + radius; ++x) {
        ClassId c;
        if (!inside || x < 0 || x >= w)
            c = outside.fixed_class ? *outside.fixed_class : src[std::clamp(x, 0, w - 1)];
        else
            c = src[x];
        row[static_cast<std::size_t>(x + radius)] = c;
    }
}

// Calls visit(x, y, key) for every cell of rows y0..y1-1, where key packs the cell's (2r+1)^2 neighbourhood
// column by column (`bits` per class; needs (2r+1)^2 * bits <= 64). Rows are kept in a ring and keys slide
// along the row, so a cell costs a shift, an or and the visit.
template <class Visit>
void scan_keys(const ClassGrid& classes, int radius, int bits, OutsidePolicy outside, int y0, int y1, Visit&& visit) {
    const int side = 2 * radius + 1, w = classes.width();
    const int column_bits = side * bits;
    std::vector<std::vector<ClassId>> ring(static_cast<std::size_t>(side));
    for (int k = 0; k < side; ++k) padded_row(classes, y0 - radius + k, radius, outside, ring[static_cast<std::size_t>(k)]);
    int top = 0; // ring index of the row y - radius
    std::vector<std::uint64_t> column(static_cast<std::size_t>(w + 2 * radius));
    for (int y = y0; y < y1; ++y) {
        if (y > y0) { // drop the top row, read the new bottom row into its slot
            padded_row(classes, y + radius, radius, outside, ring[static_cast<std::size_t>(top)]);
            top = (top + 1) % side;
        }
        const ClassId* rows[Descriptor::kMaxSize];
        for (int k = 0; k < side; ++k) rows[k] = ring[static_cast<std::size_t>((top + k) % side)].data();
        if (side == 3) {
            for (std::size_t x = 0; x < column.size(); ++x)
                column[x] = std::uint64_t{rows[0][x]} | (std::uint64_t{rows[1][x]} << bits) |
                            (std::uint64_t{rows[2][x]} << (2 * bits));
        } else {
            for (std::size_t x = 0; x < column.size(); ++x) {
                std::uint64_t c = 0;
                for (int k = 0; k < side; ++k) c |= std::uint64_t{rows[k][x]} << (k * bits);
                column[x] = c;
            }
        }
        std::uint64_t key = 0;
        for (int k = 0; k < side; ++k) key |= column[static_cast<std::size_t>(k)] << (k * column_bits);
        const int last_shift = (side - 1) * column_bits;
        for (int x = 0; x < w; ++x) {
            visit(x, y, key);
            if (x + side < static_cast<int>(column.size()))
                key = (key >> column_bits) | (column[static_cast<std::size_t>(x + side)] << last_shift);
        }
    }
}

} // namespace

Grid<int> match_rules(const ClassGrid& classes, std::span<const Rule> ordered, int class_count, OutsidePolicy outside,
                      int threads) {
    Grid<int> out(classes.width(), classes.height(), kNoRule);
    if (classes.empty()) return out;
    int radius = 0;
    for (const Rule& r : ordered) radius = std::max(radius, r.pattern.radius());
    const int side = 2 * radius + 1;
    const int bits = std::max(1, static_cast<int>(std::bit_width(static_cast<unsigned>(std::max(class_count, 2) - 1))));
    const int total_bits = side * side * bits;
    const int w = classes.width(), h = classes.height();

    // Each cell's neighbourhood, packed column by column: a column code holds `side` cells; the key is `side`
    // column codes. Small keys (<= 20 bits) index a flat table of decisions, filled once per distinct key.
    const int column_bits = side * bits;
    auto for_each_key = [&](int y0, int y1, const std::function<void(int, int, std::uint64_t, const Key&)>& visit) {
        std::vector<std::vector<ClassId>> rows(static_cast<std::size_t>(side));
        std::vector<std::uint64_t> column(static_cast<std::size_t>(w + 2 * radius));
        for (int y = y0; y < y1; ++y) {
            for (int k = 0; k < side; ++k) padded_row(classes, y - radius + k, radius, outside, rows[static_cast<std::size_t>(k)]);
            if (total_bits <= 64) {
                for (std::size_t x = 0; x < column.size(); ++x) {
                    std::uint64_t c = 0;
                    for (int k = 0; k < side; ++k) c |= std::uint64_t{rows[static_cast<std::size_t>(k)][x]} << (k * bits);
                    column[x] = c;
                }
                for (int x = 0; x < w; ++x) {
                    std::uint64_t key = 0;
                    for (int k = 0; k < side; ++k) key |= column[static_cast<std::size_t>(x + k)] << (k * column_bits);
                    visit(x, y, key, Key{});
                }
            } else {
                for (int x = 0; x < w; ++x) {
                    Key key;
                    int shift = 0;
                    for (int k = 0; k < side; ++k)
                        for (int j = 0; j < side; ++j) {
                            const std::uint64_t c = rows[static_cast<std::size_t>(j)][static_cast<std::size_t>(x + k)];
                            if (shift < 64) {
                                key.lo |= c << shift;
                                if (shift + bits > 64) key.hi |= c >> (64 - shift);
                            } else {
                                key.hi |= c << (shift - 64);
                            }
                            shift += bits;
                        }
                    visit(x, y, 0, key);
                }
            }
        }
    };
    // The neighbourhood of (x, y) as class ids, for evaluating the rules on a key seen for the first time.
    auto neighbourhood = [&](int x, int y) {
        std::vector<ClassId> cells(static_cast<std::size_t>(side * side));
        for (int k = 0; k < side; ++k)
            for (int j = 0; j < side; ++j)
                cells[static_cast<std::size_t>(k * side + j)] = class_at(classes, x - radius + j, y - radius + k, outside);
        return cells;
    };

    if (total_bits <= 20) {
        // Pass 1 (parallel): which keys occur, and one cell for each. Pass 2: decide each key once.
        // Pass 3 (parallel): look the decisions up.
        const std::size_t size = std::size_t{1} << total_bits;
        const int blocks = std::max(threads, 1);
        std::vector<std::vector<std::int64_t>> where(static_cast<std::size_t>(blocks));
        parallel_for(blocks, blocks, [&](int b0, int b1) {
            for (int b = b0; b < b1; ++b) {
                auto& seen = where[static_cast<std::size_t>(b)];
                seen.assign(size, -1);
                const int y0 = static_cast<int>(static_cast<long long>(h) * b / blocks);
                const int y1 = static_cast<int>(static_cast<long long>(h) * (b + 1) / blocks);
                scan_keys(classes, radius, bits, outside, y0, y1, [&](int x, int y, std::uint64_t key) {
                    if (seen[key] < 0) seen[key] = static_cast<std::int64_t>(y) * w + x;
                });
            }
        });
        std::vector<int> table(size, kNoRule);
        for (std::size_t key = 0; key < size; ++key) {
            std::int64_t cell = -1;
            for (const auto& seen : where)
                if (seen[key] >= 0) {
                    cell = seen[key];
                    break;
                }
            if (cell >= 0)
                table[key] = first_match_of(ordered, neighbourhood(static_cast<int>(cell % w), static_cast<int>(cell / w)), radius);
        }
        where.clear();
        parallel_for(h, threads, [&](int y0, int y1) {
            scan_keys(classes, radius, bits, outside, y0, y1, [&](int x, int y, std::uint64_t key) { out(x, y) = table[key]; });
        });
        return out;
    }
    if (total_bits <= 63) {
        // Large key spaces: an open-addressing cache per thread (decisions are pure, so every thread finds the
        // same); distinct neighbourhoods are few, so the table stays small and in cache.
        parallel_for(h, threads, [&](int y0, int y1) {
            std::vector<std::uint64_t> keys(1u << 12, ~std::uint64_t{0});
            std::vector<int> values(keys.size(), 0);
            std::size_t used = 0;
            auto slot_of = [&](std::uint64_t key) {
                std::size_t mask = keys.size() - 1, i = static_cast<std::size_t>(mix64(key)) & mask;
                while (keys[i] != key && keys[i] != ~std::uint64_t{0}) i = (i + 1) & mask;
                return i;
            };
            scan_keys(classes, radius, bits, outside, y0, y1, [&](int x, int y, std::uint64_t key) {
                std::size_t i = slot_of(key);
                if (keys[i] != key) {
                    if (2 * (used + 1) > keys.size()) { // grow and rehash
                        std::vector<std::uint64_t> old_keys(keys.size() * 2, ~std::uint64_t{0});
                        std::vector<int> old_values(old_keys.size(), 0);
                        old_keys.swap(keys);
                        old_values.swap(values);
                        for (std::size_t j = 0; j < old_keys.size(); ++j)
                            if (old_keys[j] != ~std::uint64_t{0}) {
                                const std::size_t k = slot_of(old_keys[j]);
                                keys[k] = old_keys[j];
                                values[k] = old_values[j];
                            }
                        i = slot_of(key);
                    }
                    keys[i] = key;
                    values[i] = first_match_of(ordered, neighbourhood(x, y), radius);
                    ++used;
                }
                out(x, y) = values[i];
            });
        });
        return out;
    }
    // Keys wider than 63 bits (5x5 patterns over many classes): a hash map per thread.
    parallel_for(h, threads, [&](int y0, int y1) {
        std::unordered_map<Key, int, KeyHash> cache;
        for_each_key(y0, y1, [&](int x, int y, std::uint64_t key64, const Key& key128) {
            const Key key = total_bits <= 64 ? Key{key64, 0} : key128;
            auto [it, inserted] = cache.try_emplace(key, 0);
            if (inserted) it->second = first_match_of(ordered, neighbourhood(x, y), radius);
            out(x, y) = it->second;
        });
    });
    return out;
}

} // namespace tilegen
