#include "core/rules/rule_matcher.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
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

// A neighbourhood's classes packed into 128 bits: (2r+1)^2 cells of `bits` each (at most 25 * 5 =
// 125 bits).
struct Key {
    std::uint64_t lo = 0, hi = 0;
    bool operator==(const Key&) const = default;
};
struct KeyHash {
    std::size_t operator()(const Key& k) const {
        return std::hash<std::uint64_t>{}(k.lo * 0x9E3779B97F4A7C15ull ^ k.hi);
    }
};

} // namespace

ClassGrid corner_class_grid(const ClassGrid& classes, OutsidePolicy outside) {
    const int w = classes.width(), h = classes.height();
    ClassGrid out = ClassGrid::uninitialised(w + 1, h + 1);
    for (int y = 0; y <= h; ++y)
        for (int x = 0; x <= w; ++x)
            out(x, y) = class_at(classes, x, y, outside);
    return out;
}

std::vector<std::size_t> specificity_order(std::span<const Rule> rules) {
    std::vector<std::size_t> order(rules.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return rules[a].pattern.specificity() > rules[b].pattern.specificity();
    });
    return order;
}

std::vector<Rule> order_by_specificity(std::vector<Rule> rules) {
    std::vector<Rule> ordered;
    ordered.reserve(rules.size());
    for (std::size_t i : specificity_order(rules))
        ordered.push_back(std::move(rules[i]));
    return ordered;
}

int first_match(const ClassGrid& classes, int x, int y, std::span<const Rule> ordered,
                OutsidePolicy outside) {
    for (std::size_t i = 0; i < ordered.size(); ++i)
        if (matches(ordered[i].pattern, classes, x, y, outside)) return static_cast<int>(i);
    return kNoRule;
}

// The first matching rule for a neighbourhood given as (2r+1)^2 class ids, row-major.
int first_match_of(std::span<const Rule> ordered, std::span<const ClassId> cells, int radius) {
    const int side = 2 * radius + 1;
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        const Descriptor& d = ordered[i].pattern;
        const int r = d.radius();
        bool ok = true;
        for (int dy = -r; dy <= r && ok; ++dy)
            for (int dx = -r; dx <= r && ok; ++dx) {
                const ClassMask m = d.at(dx, dy);
                if (m == kAnyClass) continue;
                ok =
                    (m >> cells[static_cast<std::size_t>((dy + radius) * side + dx + radius)]) & 1u;
            }
        if (ok) return static_cast<int>(i);
    }
    return kNoRule;
}

namespace {

// Row y of the class grid with `radius` cells of outside on each side (clamped or the fixed class).
void padded_row(const ClassGrid& classes, int y, int radius, OutsidePolicy outside,
                std::vector<ClassId>& row) {
    const int w = classes.width();
    row.resize(static_cast<std::size_t>(w + 2 * radius));
    const bool inside = y >= 0 && y < classes.height();
    const ClassId* src = classes.row(std::clamp(y, 0, classes.height() - 1));
    if (!inside && outside.fixed_class) {
        std::fill(row.begin(), row.end(), *outside.fixed_class);
        return;
    }
    std::copy_n(src, w, row.begin() + radius);
    for (int k = 0; k < radius; ++k) {
        row[static_cast<std::size_t>(k)] = outside.fixed_class ? *outside.fixed_class : src[0];
        row[static_cast<std::size_t>(w + radius + k)] =
            outside.fixed_class ? *outside.fixed_class : src[w - 1];
    }
}

// Calls visit_row(y, column) for rows y0..y1-1, where column[x] packs the `side` classes of padded
// column x (cell x - radius of the map) top to bottom, `bits` per class. Rows are kept in a ring:
// each row reads one new row of the class grid.
template <class VisitRow>
void scan_columns(const ClassGrid& classes, int radius, int bits, OutsidePolicy outside, int y0,
                  int y1, VisitRow&& visit_row) {
    const int side = 2 * radius + 1, w = classes.width();
    std::vector<std::vector<ClassId>> ring(static_cast<std::size_t>(side));
    for (int k = 0; k < side; ++k)
        padded_row(classes, y0 - radius + k, radius, outside, ring[static_cast<std::size_t>(k)]);
    int top = 0; // ring index of the row y - radius
    std::vector<std::uint64_t> column(static_cast<std::size_t>(w + 2 * radius));
    for (int y = y0; y < y1; ++y) {
        if (y > y0) { // drop the top row, read the new bottom row into its slot
            padded_row(classes, y + radius, radius, outside, ring[static_cast<std::size_t>(top)]);
            top = (top + 1) % side;
        }
        const ClassId* rows[Descriptor::kMaxSize];
        for (int k = 0; k < side; ++k)
            rows[k] = ring[static_cast<std::size_t>((top + k) % side)].data();
        if (side == 3) {
            for (std::size_t x = 0; x < column.size(); ++x)
                column[x] = std::uint64_t{rows[0][x]} | (std::uint64_t{rows[1][x]} << bits) |
                            (std::uint64_t{rows[2][x]} << (2 * bits));
        } else {
            for (std::size_t x = 0; x < column.size(); ++x) {
                std::uint64_t c = 0;
                for (int k = 0; k < side; ++k)
                    c |= std::uint64_t{rows[k][x]} << (k * bits);
                column[x] = c;
            }
        }
        visit_row(y, column.data());
    }
}

// Calls visit(x, key) for the w cells of a row of packed columns (from scan_columns), where key
// packs the cell's (2r+1)^2 neighbourhood column by column (needs (2r+1)^2 * bits <= 64). The key
// slides along the row, so a cell costs a shift, an or and the visit.
template <class Visit>
void slide_keys(const std::uint64_t* column, int w, int radius, int bits, Visit&& visit) {
    const int side = 2 * radius + 1, column_bits = side * bits,
              last_shift = (side - 1) * column_bits;
    std::uint64_t key = 0;
    for (int k = 0; k < side; ++k)
        key |= column[k] << (k * column_bits);
    for (int x = 0; x < w; ++x) {
        visit(x, key);
        if (x + side < w + 2 * radius)
            key = (key >> column_bits) | (column[x + side] << last_shift);
    }
}

} // namespace

namespace {

// A descriptor's mask at (dx, dy), `?` outside its own size.
ClassMask mask_at(const Descriptor& d, int dx, int dy) {
    const int r = d.radius();
    return std::abs(dx) > r || std::abs(dy) > r ? kAnyClass : d.at(dx, dy);
}

constexpr int kUnknown = -2; // a table entry not decided yet

} // namespace

// How a layer's decisions are looked up:
//   reduced  3x3 (or 1x1) rules over <= 16 classes: per centre class, each neighbour position's
//   classes are
//            grouped by how the rules that can apply to that centre treat them (two classes no rule
//            of that centre tells apart share a code). A cell's key is the sum of three per-column
//            lookups and indexes one flat table of decisions, small even for many classes.
//   flat     other keys of <= 20 bits: a flat table indexed by the packed neighbourhood.
//   cache    keys of <= 63 bits: an open-addressing cache per call.
//   wide     anything else (5x5 over many classes): a hash map per call.
// Tables are filled on first use; a decision is a pure function of its key, so threads that race on
// an entry store the same value (relaxed atomics).
struct LayerMatcher::Impl {
    enum class Mode { reduced, flat, cache, wide };
    const ClassGrid& classes;
    std::span<const Rule> ordered;
    OutsidePolicy outside;
    int radius = 0, side = 1, bits = 1, total_bits = 0;
    Mode mode = Mode::wide;
    std::vector<std::uint32_t>
        column_key; // reduced: [(centre * 3 + column) << (3 * bits) | column code]
    std::unique_ptr<std::atomic<std::int16_t>[]>
        table; // decisions fit 16 bits (table modes need < 32767 rules)

    Impl(const ClassGrid& c, std::span<const Rule> o, OutsidePolicy out)
        : classes(c), ordered(o), outside(out) {}

    void make_table(std::size_t size) {
        table = std::make_unique<std::atomic<std::int16_t>[]>(size);
        for (std::size_t i = 0; i < size; ++i)
            table[i].store(kUnknown, std::memory_order_relaxed);
    }

    std::vector<ClassId> neighbourhood(int x, int y) const {
        std::vector<ClassId> cells(static_cast<std::size_t>(side * side));
        for (int k = 0; k < side; ++k)
            for (int j = 0; j < side; ++j)
                cells[static_cast<std::size_t>(k * side + j)] =
                    class_at(classes, x - radius + j, y - radius + k, outside);
        return cells;
    }

    // reduced: per centre class, the rules that can apply to it (in order), as 3x3 masks.
    std::vector<std::vector<std::pair<int, std::array<ClassMask, 9>>>> candidates;

    int decide(std::uint64_t key, int x, int y) const {
        std::atomic<std::int16_t>& slot = table[key];
        int d = slot.load(std::memory_order_relaxed);
        if (d != kUnknown) return d;
        if (mode == Mode::reduced) {
            ClassId cells[9];
            for (int k = 0; k < 9; ++k)
                cells[k] = class_at(classes, x + k % 3 - 1, y + k / 3 - 1, outside);
            d = kNoRule;
            for (const auto& [rule, masks] : candidates[cells[4]]) {
                bool ok = true;
                for (int k = 0; k < 9 && ok; ++k)
                    ok = (masks[static_cast<std::size_t>(k)] >> cells[k]) & 1u;
                if (ok) {
                    d = rule;
                    break;
                }
            }
        } else {
            d = first_match_of(ordered, neighbourhood(x, y), radius);
        }
        slot.store(static_cast<std::int16_t>(d), std::memory_order_relaxed);
        return d;
    }

    // Builds the reduced tables; false when the layer does not fit them.
    bool build_reduced(int class_count) {
        if (radius > 1 || class_count > 16) return false;
        bits = std::max(1, static_cast<int>(std::bit_width(
                               static_cast<unsigned>(std::max(class_count, 2) - 1))));
        const int column_space = 1 << (3 * bits);
        column_key.assign(
            static_cast<std::size_t>(class_count) * 3 * static_cast<std::size_t>(column_space), 0);
        std::uint64_t base = 0;
        for (int c = 0; c < class_count; ++c) {
            std::vector<std::size_t> relevant;
            candidates.emplace_back();
            for (std::size_t r = 0; r < ordered.size(); ++r)
                if ((mask_at(ordered[r].pattern, 0, 0) >> c) & 1u) {
                    relevant.push_back(r);
                    std::array<ClassMask, 9> masks{};
                    for (int k = 0; k < 9; ++k)
                        masks[static_cast<std::size_t>(k)] =
                            mask_at(ordered[r].pattern, k % 3 - 1, k / 3 - 1);
                    candidates.back().emplace_back(static_cast<int>(r), masks);
                }
            // code[p][k]: the group of class k at position p (p = (dy + 1) * 3 + dx + 1), and the
            // group counts.
            int code[9][16] = {};
            int groups[9] = {};
            for (int p = 0; p < 9; ++p) {
                const int dx = p % 3 - 1, dy = p / 3 - 1;
                if (p == 4) { // the centre is class c itself
                    groups[p] = 1;
                    continue;
                }
                // signature[k]: bit i says whether relevant rule i accepts class k here.
                const std::size_t words = (relevant.size() + 63) / 64;
                std::vector<std::vector<std::uint64_t>> signature(
                    static_cast<std::size_t>(class_count), std::vector<std::uint64_t>(words, 0));
                for (std::size_t i = 0; i < relevant.size(); ++i) {
                    const ClassMask m = mask_at(ordered[relevant[i]].pattern, dx, dy);
                    for (int k = 0; k < class_count; ++k)
                        if ((m >> k) & 1u)
                            signature[static_cast<std::size_t>(k)][i / 64] |= std::uint64_t{1}
                                                                              << (i % 64);
                }
                for (int k = 0; k < class_count; ++k) {
                    int same = -1;
                    for (int j = 0; j < k && same < 0; ++j)
                        if (signature[static_cast<std::size_t>(j)] ==
                            signature[static_cast<std::size_t>(k)])
                            same = j;
                    code[p][k] = same >= 0 ? code[p][same] : groups[p]++;
                }
            }
            // Column j holds positions j, 3 + j, 6 + j (top to bottom); its stride in the key is
            // the product of the group counts of the columns before it.
            std::uint64_t stride = 1;
            for (int j = 0; j < 3; ++j) {
                const std::uint64_t n_top = static_cast<std::uint64_t>(groups[j]);
                const std::uint64_t n_mid = static_cast<std::uint64_t>(groups[3 + j]);
                const std::uint64_t n_bottom = static_cast<std::uint64_t>(groups[6 + j]);
                for (int raw = 0; raw < column_space; ++raw) {
                    const int top = raw & ((1 << bits) - 1),
                              mid = (raw >> bits) & ((1 << bits) - 1), bottom = raw >> (2 * bits);
                    if (top >= class_count || mid >= class_count || bottom >= class_count) continue;
                    const std::uint64_t column =
                        static_cast<std::uint64_t>(code[j][top]) +
                        n_top * (static_cast<std::uint64_t>(code[3 + j][mid]) +
                                 n_mid * static_cast<std::uint64_t>(code[6 + j][bottom]));
                    const std::uint64_t value = column * stride + (j == 0 ? base : 0);
                    if (value > 0xFFFFFFFFull) return false;
                    column_key[((static_cast<std::size_t>(c) * 3 + static_cast<std::size_t>(j))
                                << (3 * bits)) |
                               static_cast<std::size_t>(raw)] = static_cast<std::uint32_t>(value);
                }
                stride *= n_top * n_mid * n_bottom;
            }
            base += stride;
            if (base > (std::uint64_t{1} << 22)) return false; // at most 4M entries (16 MiB)
        }
        make_table(static_cast<std::size_t>(base));
        return true;
    }
};

LayerMatcher::LayerMatcher(const ClassGrid& classes, std::span<const Rule> ordered, int class_count,
                           OutsidePolicy outside)
    : impl_(std::make_unique<Impl>(classes, ordered, outside)) {
    Impl& m = *impl_;
    for (const Rule& r : ordered)
        m.radius = std::max(m.radius, r.pattern.radius());
    const bool fits_table =
        ordered.size() < static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max());
    if (fits_table && m.build_reduced(class_count)) {
        m.mode = Impl::Mode::reduced;
        m.radius = 1;
        m.side = 3;
        return;
    }
    m.side = 2 * m.radius + 1;
    m.bits = std::max(
        1, static_cast<int>(std::bit_width(static_cast<unsigned>(std::max(class_count, 2) - 1))));
    m.total_bits = m.side * m.side * m.bits;
    if (m.total_bits <= 20 && fits_table) {
        m.mode = Impl::Mode::flat;
        m.make_table(std::size_t{1} << m.total_bits);
    } else {
        m.mode = m.total_bits <= 63 ? Impl::Mode::cache : Impl::Mode::wide;
    }
}

LayerMatcher::~LayerMatcher() = default;

// The reduced mode's rows, for `Bits` bits per class (so the shifts are constants). Per row: each
// padded column's three classes packed into 16 bits (a vectorisable pass over three class rows),
// then per cell three lookups in the tables of the cell's own class and one in the decision table.
// Entries not decided yet are filled after the row's pass (keeping the rare call out of the cell
// loop, whose values then stay in registers).
template <int Bits>
void LayerMatcher::reduced_rows(int y0, int y1,
                                const std::function<void(int, const int*)>& row_done) const {
    const Impl& m = *impl_;
    const int w = m.classes.width(), h = m.classes.height();
    constexpr std::uint32_t part = std::uint32_t{1}
                                   << (3 * Bits); // one column's slice of the key tables
    constexpr std::uint32_t class_mask = (std::uint32_t{1} << Bits) - 1;
    const std::uint32_t* const keys = m.column_key.data();
    const std::atomic<std::int16_t>* const table = m.table.get();
    std::vector<int> out(static_cast<std::size_t>(w));
    std::vector<std::uint16_t> code_storage(static_cast<std::size_t>(w + 2));
    std::uint16_t* const code = code_storage.data();
    int* const o = out.data();
    std::vector<ClassId> outside_row(m.outside.fixed_class ? static_cast<std::size_t>(w) : 0,
                                     m.outside.fixed_class.value_or(0));
    auto row_of = [&](int y) -> const ClassId* {
        if (y >= 0 && y < h) return m.classes.row(y);
        return m.outside.fixed_class ? outside_row.data() : m.classes.row(std::clamp(y, 0, h - 1));
    };
    // Per column code, where the key tables of its middle class start (the cell's own class when
    // the column is the cell's): one lookup instead of unpacking the class.
    std::array<std::uint32_t, part> tables_of;
    for (std::uint32_t c = 0; c < part; ++c)
        tables_of[c] = ((c >> Bits) & class_mask) * 3 * part;
    auto key_at = [&](int x) {
        const std::uint32_t* const k =
            keys + tables_of[code[x + 1]]; // the tables of the cell's own class
        return k[code[x]] + k[part + code[x + 1]] + k[2 * part + code[x + 2]];
    };
    for (int y = y0; y < y1; ++y) {
        const ClassId* const top = row_of(y - 1);
        const ClassId* const mid = row_of(y);
        const ClassId* const bottom = row_of(y + 1);
        for (int x = 0; x < w; ++x)
            code[x + 1] =
                static_cast<std::uint16_t>(top[x] | (mid[x] << Bits) | (bottom[x] << (2 * Bits)));
        if (m.outside.fixed_class) {
            const unsigned f = *m.outside.fixed_class;
            code[0] = code[w + 1] = static_cast<std::uint16_t>(f | (f << Bits) | (f << (2 * Bits)));
        } else {
            code[0] = code[1];
            code[w + 1] = code[w];
        }
        bool undecided = false;
        for (int x = 0; x < w; ++x) {
            const int d = table[key_at(x)].load(std::memory_order_relaxed);
            undecided |= d == kUnknown;
            o[x] = d;
        }
        if (undecided)
            for (int x = 0; x < w; ++x)
                if (o[x] == kUnknown) o[x] = m.decide(key_at(x), x, y);
        row_done(y, o);
    }
}

void LayerMatcher::match_rows(int y0, int y1,
                              const std::function<void(int, const int*)>& row_done) const {
    const Impl& m = *impl_;
    const int w = m.classes.width();
    if (w == 0 || y0 >= y1) return;
    std::vector<int> out(static_cast<std::size_t>(w), kNoRule);
    switch (m.mode) {
    case Impl::Mode::reduced:
        switch (m.bits) {
        case 1:
            return reduced_rows<1>(y0, y1, row_done);
        case 2:
            return reduced_rows<2>(y0, y1, row_done);
        case 3:
            return reduced_rows<3>(y0, y1, row_done);
        default:
            return reduced_rows<4>(y0, y1, row_done);
        }
    case Impl::Mode::flat: {
        scan_columns(m.classes, m.radius, m.bits, m.outside, y0, y1,
                     [&](int y, const std::uint64_t* column) {
                         slide_keys(column, w, m.radius, m.bits, [&](int x, std::uint64_t key) {
                             int d = m.table[key].load(std::memory_order_relaxed);
                             if (d == kUnknown) d = m.decide(key, x, y);
                             out[static_cast<std::size_t>(x)] = d;
                         });
                         row_done(y, out.data());
                     });
        return;
    }
    case Impl::Mode::cache: {
        // An open-addressing cache for this call: distinct neighbourhoods are few, so it stays
        // small.
        std::vector<std::uint64_t> keys(1u << 12, ~std::uint64_t{0});
        std::vector<int> values(keys.size(), 0);
        std::size_t used = 0;
        auto slot_of = [&](std::uint64_t key) {
            std::size_t mask = keys.size() - 1, i = static_cast<std::size_t>(mix64(key)) & mask;
            while (keys[i] != key && keys[i] != ~std::uint64_t{0})
                i = (i + 1) & mask;
            return i;
        };
        scan_columns(
            m.classes, m.radius, m.bits, m.outside, y0, y1,
            [&](int y, const std::uint64_t* column) {
                slide_keys(column, w, m.radius, m.bits, [&](int x, std::uint64_t key) {
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
                        values[i] = first_match_of(m.ordered, m.neighbourhood(x, y), m.radius);
                        ++used;
                    }
                    out[static_cast<std::size_t>(x)] = values[i];
                });
                row_done(y, out.data());
            });
        return;
    }
    case Impl::Mode::wide: {
        // Keys wider than 63 bits (5x5 patterns over many classes): a hash map for this call.
        std::unordered_map<Key, int, KeyHash> cache;
        std::vector<std::vector<ClassId>> rows(static_cast<std::size_t>(m.side));
        for (int y = y0; y < y1; ++y) {
            for (int k = 0; k < m.side; ++k)
                padded_row(m.classes, y - m.radius + k, m.radius, m.outside,
                           rows[static_cast<std::size_t>(k)]);
            for (int x = 0; x < w; ++x) {
                Key key;
                int shift = 0;
                for (int k = 0; k < m.side; ++k)
                    for (int j = 0; j < m.side; ++j) {
                        const std::uint64_t c =
                            rows[static_cast<std::size_t>(j)][static_cast<std::size_t>(x + k)];
                        if (shift < 64) {
                            key.lo |= c << shift;
                            if (shift + m.bits > 64) key.hi |= c >> (64 - shift);
                        } else {
                            key.hi |= c << (shift - 64);
                        }
                        shift += m.bits;
                    }
                auto [it, inserted] = cache.try_emplace(key, 0);
                if (inserted)
                    it->second = first_match_of(m.ordered, m.neighbourhood(x, y), m.radius);
                out[static_cast<std::size_t>(x)] = it->second;
            }
            row_done(y, out.data());
        }
        return;
    }
    }
}

Grid<int> match_rules(const ClassGrid& classes, std::span<const Rule> ordered, int class_count,
                      OutsidePolicy outside, int threads) {
    Grid<int> out(classes.width(), classes.height(), kNoRule);
    if (classes.empty()) return out;
    const LayerMatcher matcher(classes, ordered, class_count, outside);
    parallel_for(classes.height(), threads, [&](int y0, int y1) {
        matcher.match_rows(y0, y1, [&](int y, const int* decided) {
            std::copy_n(decided, classes.width(), out.row(y));
        });
    });
    return out;
}

} // namespace tilegen
