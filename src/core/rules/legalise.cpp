#include "core/rules/legalise.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdlib>
#include <deque>
#include <memory>

#include "core/hash.hpp"
#include "core/parallel.hpp"

namespace tilegen {

namespace {

// Whether a rule draws something: a target that is not @error.
bool draws(const Rule& rule) {
    return std::any_of(rule.targets.begin(), rule.targets.end(),
                       [](const Target& t) { return t.kind != Target::Kind::error; });
}

// Per layer, per ordered rule: 1 when the rule does not draw (all targets @error, or none).
std::vector<std::vector<std::uint8_t>> undrawing_rules(const std::vector<LayerRules>& layers) {
    std::vector<std::vector<std::uint8_t>> out;
    for (const LayerRules& layer : layers) {
        out.emplace_back();
        for (const Rule& r : layer.ordered)
            out.back().push_back(draws(r) ? 0 : 1);
    }
    return out;
}

int rule_radius(const std::vector<LayerRules>& layers) {
    int radius = 0;
    for (const LayerRules& layer : layers)
        for (const Rule& r : layer.ordered)
            radius = std::max(radius, r.pattern.radius());
    return radius;
}

// A neighbourhood of (2 * radius + 1)^2 classes, cell i (row-major) in bits i * b .. i * b + b - 1,
// b = bits per class (at most 125 bits: the top bits stay clear, so all ones marks an empty memo
// slot).
__extension__ typedef unsigned __int128 Key;
constexpr Key kEmpty = ~Key{0};

int class_bits(int class_count) {
    return std::max(
        1, static_cast<int>(std::bit_width(static_cast<unsigned>(std::max(class_count, 2) - 1))));
}

// Keys of at most this many bits index a direct table shared by the threads (2 bits per key: 0
// unknown, 1 not drawable, 2 drawable; 32 MiB at most) instead of the per-thread memo.
constexpr int kDirectBits = 27;

std::unique_ptr<std::atomic<std::uint8_t>[]> direct_table(int radius, int class_count) {
    const int bits = (2 * radius + 1) * (2 * radius + 1) * class_bits(class_count);
    if (bits > kDirectBits) return nullptr;
    return std::make_unique<std::atomic<std::uint8_t>[]>((std::size_t{1} << bits) / 4 + 1);
}

// Drawability of single neighbourhoods: the rules are tried once per distinct neighbourhood, then
// remembered: in the shared direct table when given (racing threads store the same value), else
// in the oracle's own memo (open addressing, linear probing). One oracle per thread.
class Oracle {
  public:
    Oracle(const std::vector<LayerRules>& layers, const std::vector<std::vector<std::uint8_t>>& bad,
           int radius, int class_count, std::atomic<std::uint8_t>* direct)
        : layers_(&layers), bad_(&bad), radius_(radius), side_(2 * radius + 1),
          bits_(class_bits(class_count)), direct_(direct), keys_(direct ? 0 : 1024, kEmpty),
          values_(keys_.size(), 0) {}

    Key slot_bit(int i) const { return Key{1} << (bits_ * i); }

    bool drawable(Key key) {
        if (direct_) {
            const auto index = static_cast<std::size_t>(key);
            std::atomic<std::uint8_t>& cell = direct_[index >> 2];
            const int shift = static_cast<int>(index & 3) * 2;
            int state = (cell.load(std::memory_order_relaxed) >> shift) & 3;
            if (state == 0) {
                state = decide(key) ? 2 : 1;
                cell.fetch_or(static_cast<std::uint8_t>(state << shift), std::memory_order_relaxed);
            }
            return state == 2;
        }
        return memo(key);
    }

    // Whether cell (x, y) is drawable when its classes are read through class_at(x, y).
    template <class ClassAt> bool drawable_at(int x, int y, ClassAt&& class_at) {
        Key key = 0;
        for (int dy = -radius_; dy <= radius_; ++dy)
            for (int dx = -radius_; dx <= radius_; ++dx)
                key |=
                    Key{class_at(x + dx, y + dy)} * slot_bit((dy + radius_) * side_ + dx + radius_);
        return drawable(key);
    }

  private:
    bool memo(Key key) {
        std::size_t mask = keys_.size() - 1, i = slot_of(key, mask);
        while (keys_[i] != key) {
            if (keys_[i] == kEmpty) {
                if (2 * (used_ + 1) > keys_.size()) {
                    grow();
                    mask = keys_.size() - 1;
                    i = slot_of(key, mask);
                    continue;
                }
                keys_[i] = key;
                values_[i] = decide(key) ? 1 : 0;
                ++used_;
                break;
            }
            i = (i + 1) & mask;
        }
        return values_[i] != 0;
    }

    static std::size_t slot_of(Key key, std::size_t mask) {
        const auto lo = static_cast<std::uint64_t>(key), hi = static_cast<std::uint64_t>(key >> 64);
        return static_cast<std::size_t>(mix64(lo ^ mix64(hi))) & mask;
    }

    void grow() {
        std::vector<Key> keys(keys_.size() * 2, kEmpty);
        std::vector<std::uint8_t> values(keys.size(), 0);
        const std::size_t mask = keys.size() - 1;
        for (std::size_t j = 0; j < keys_.size(); ++j)
            if (keys_[j] != kEmpty) {
                std::size_t i = slot_of(keys_[j], mask);
                while (keys[i] != kEmpty)
                    i = (i + 1) & mask;
                keys[i] = keys_[j];
                values[i] = values_[j];
            }
        keys_.swap(keys);
        values_.swap(values);
    }

    bool decide(Key key) const {
        ClassId cells[Descriptor::kMaxSize * Descriptor::kMaxSize];
        for (int i = 0; i < side_ * side_; ++i)
            cells[i] = static_cast<ClassId>((key >> (bits_ * i)) & ((1u << bits_) - 1));
        for (std::size_t l = 0; l < layers_->size(); ++l) {
            const std::vector<Rule>& ordered = (*layers_)[l].ordered;
            const int found = first_match_of(
                ordered, std::span<const ClassId>(cells, static_cast<std::size_t>(side_ * side_)),
                radius_);
            if (found == kNoRule || (*bad_)[l][static_cast<std::size_t>(found)]) return false;
        }
        return true;
    }

    const std::vector<LayerRules>* layers_;
    const std::vector<std::vector<std::uint8_t>>* bad_;
    int radius_, side_, bits_;
    std::atomic<std::uint8_t>* direct_;
    std::vector<Key> keys_;
    std::vector<std::uint8_t> values_;
    std::size_t used_ = 0;
};

ClassId read_class(const ClassGrid& g, int x, int y, OutsidePolicy outside) {
    if (!g.contains(x, y)) {
        if (outside.fixed_class) return *outside.fixed_class;
        x = std::clamp(x, 0, g.width() - 1);
        y = std::clamp(y, 0, g.height() - 1);
    }
    return g(x, y);
}

// Per cell distance d (1 or 2), then class pair: max(0, dist(a, b) - d), class_count when no path.
std::vector<int> gaps_of(const std::vector<int>& dist, int class_count) {
    std::vector<int> gap(2 * dist.size(), 0);
    for (std::size_t d = 1; d <= 2; ++d)
        for (std::size_t i = 0; i < dist.size(); ++i)
            gap[(d - 1) * dist.size() + i] =
                dist[i] < 0 ? class_count : std::max(0, dist[i] - static_cast<int>(d));
    return gap;
}

std::vector<int> distances(int class_count, Oracle& oracle, int radius) {
    const std::size_t k = static_cast<std::size_t>(class_count);
    // half[a * k + b]: a half plane of a left of, and one above, a half plane of b are drawable.
    const int n = 2 * (radius + 1);
    auto border_ok = [&](int a, int b, bool vertical) {
        ClassGrid g(n, n, static_cast<ClassId>(a));
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                if ((vertical ? x : y) >= n / 2) g(x, y) = static_cast<ClassId>(b);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                if (!oracle.drawable_at(x, y,
                                        [&](int u, int v) { return read_class(g, u, v, {}); }))
                    return false;
        return true;
    };
    std::vector<std::uint8_t> half(k * k, 0);
    for (int a = 0; a < class_count; ++a)
        for (int b = 0; b < class_count; ++b)
            if (a != b)
                half[static_cast<std::size_t>(a) * k + static_cast<std::size_t>(b)] =
                    border_ok(a, b, true) && border_ok(a, b, false);
    std::vector<int> dist(k * k, -1);
    for (int a = 0; a < class_count; ++a) {
        std::deque<int> queue{a};
        dist[static_cast<std::size_t>(a) * k + static_cast<std::size_t>(a)] = 0;
        while (!queue.empty()) {
            const int c = queue.front();
            queue.pop_front();
            const int dc = dist[static_cast<std::size_t>(a) * k + static_cast<std::size_t>(c)];
            for (int b = 0; b < class_count; ++b) {
                const std::size_t cb =
                    static_cast<std::size_t>(c) * k + static_cast<std::size_t>(b);
                const std::size_t bc =
                    static_cast<std::size_t>(b) * k + static_cast<std::size_t>(c);
                int& db = dist[static_cast<std::size_t>(a) * k + static_cast<std::size_t>(b)];
                if (db < 0 && half[cb] && half[bc]) {
                    db = dc + 1;
                    queue.push_back(b);
                }
            }
        }
    }
    return dist;
}

} // namespace

std::vector<int> class_distances(const std::vector<LayerRules>& layers, int class_count) {
    const auto bad = undrawing_rules(layers);
    const int radius = rule_radius(layers);
    Oracle oracle(layers, bad, radius, class_count, nullptr);
    return distances(class_count, oracle, radius);
}

namespace {

// drawable_cells, also counting the undrawable cells per row (row_bad, when not null).
Grid<std::uint8_t> drawable_pass(const ClassGrid& classes, const std::vector<LayerRules>& layers,
                                 int class_count, OutsidePolicy outside, int threads,
                                 std::vector<int>* row_bad) {
    Grid<std::uint8_t> ok =
        layers.empty() ? Grid<std::uint8_t>(classes.width(), classes.height(), 1)
                       : Grid<std::uint8_t>::uninitialised(classes.width(), classes.height());
    const int h = classes.height(), w = classes.width();
    if (row_bad) row_bad->assign(static_cast<std::size_t>(h), 0);
    if (classes.empty()) return ok;
    const auto bad = undrawing_rules(layers);
    const int blocks = std::clamp(threads, 1, h);
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const LayerMatcher matcher(classes, layers[l].ordered, class_count, outside);
        const std::uint8_t* const undrawing = bad[l].data();
        const bool first = l == 0, last = l + 1 == layers.size();
        parallel_for(blocks, blocks, [&](int b0, int b1) {
            for (int b = b0; b < b1; ++b)
                matcher.match_rows(static_cast<int>(static_cast<long long>(h) * b / blocks),
                                   static_cast<int>(static_cast<long long>(h) * (b + 1) / blocks),
                                   [&](int y, const int* decided) {
                                       std::uint8_t* const row = ok.row(y);
                                       int drawn = 0;
                                       for (int x = 0; x < w; ++x) {
                                           const int d = decided[x];
                                           const std::uint8_t v = d >= 0 && !undrawing[d] ? 1 : 0;
                                           row[x] = first ? v : row[x] & v;
                                           drawn += row[x];
                                       }
                                       if (last && row_bad)
                                           (*row_bad)[static_cast<std::size_t>(y)] = w - drawn;
                                   });
        });
    }
    if (layers.empty() && row_bad) row_bad->assign(static_cast<std::size_t>(h), 0);
    return ok;
}

} // namespace

Grid<std::uint8_t> drawable_cells(const ClassGrid& classes, const std::vector<LayerRules>& layers,
                                  int class_count, OutsidePolicy outside, int threads) {
    return drawable_pass(classes, layers, class_count, outside, threads, nullptr);
}

LegaliseResult legalise(ClassGrid classes, const std::vector<LayerRules>& layers, int class_count,
                        OutsidePolicy outside, LegaliseSettings settings, int threads) {
    LegaliseResult result;
    LegaliseReport& report = result.report;
    const int w = classes.width(), h = classes.height();
    if (classes.empty()) {
        result.classes = std::move(classes);
        return result;
    }
    threads = std::max(1, threads);
    std::vector<int> row_bad;
    Grid<std::uint8_t> ok = drawable_pass(classes, layers, class_count, outside, threads, &row_bad);
    std::uint64_t bad_cells = 0;
    for (int n : row_bad)
        bad_cells += static_cast<std::uint64_t>(n);
    report.undrawable_before = report.undrawable = bad_cells;
    if (bad_cells == 0) {
        result.classes = std::move(classes);
        return result;
    }

    const ClassGrid original = classes;
    const auto undrawing = undrawing_rules(layers);
    const int radius = rule_radius(layers);
    const int side = 2 * radius + 1;
    const int reach = std::max(1, radius); // R: the window a change can affect
    const int stride = 2 * reach + 1;      // positions of one colour are this far apart
    const auto direct = direct_table(radius, class_count);
    std::vector<Oracle> oracles;
    for (int t = 0; t < threads; ++t)
        oracles.emplace_back(layers, undrawing, radius, class_count, direct.get());
    const std::vector<int> gap = gaps_of(distances(class_count, oracles[0], radius), class_count);
    const std::size_t k = static_cast<std::size_t>(class_count);
    // stale(x, y) = 0: the cell's last evaluation found no change, and no cell within 2R (all it
    // reads) has changed since; its evaluation would find none again.
    Grid<std::uint8_t> stale(w, h, 1);

    struct Change {
        int x, y;
        ClassId to;
    };
    // The best change at (x, y), if it lowers (undrawable cells, gaps); reads only cells within 2R.
    auto evaluate = [&](int x, int y, Oracle& oracle, std::vector<Change>& out) {
        const ClassId from = classes(x, y);
        const int ux0 = std::max(0, x - reach), ux1 = std::min(w - 1, x + reach);
        const int uy0 = std::max(0, y - reach), uy1 = std::min(h - 1, y + reach);
        // Per window cell: its neighbourhood's key without (x, y), and where (x, y) sits in it (a
        // clamped neighbourhood may hold it more than once): key(c) = base | c * at.
        Key base[Descriptor::kMaxSize * Descriptor::kMaxSize];
        Key at[Descriptor::kMaxSize * Descriptor::kMaxSize];
        int cells = 0, before = 0;
        for (int v = uy0; v <= uy1; ++v)
            for (int u = ux0; u <= ux1; ++u) {
                before += ok(u, v) ? 0 : 1;
                Key b = 0, a = 0;
                for (int dy = -radius; dy <= radius; ++dy)
                    for (int dx = -radius; dx <= radius; ++dx) {
                        const Key bit = oracles[0].slot_bit((dy + radius) * side + dx + radius);
                        int cx = u + dx, cy = v + dy;
                        if (!classes.contains(cx, cy)) {
                            if (outside.fixed_class) {
                                b |= Key{*outside.fixed_class} * bit;
                                continue;
                            }
                            cx = std::clamp(cx, 0, w - 1);
                            cy = std::clamp(cy, 0, h - 1);
                        }
                        if (cx == x && cy == y)
                            a |= bit;
                        else
                            b |= Key{classes(cx, cy)} * bit;
                    }
                base[cells] = b;
                at[cells] = a;
                ++cells;
            }
        // The 24 cells within distance 2 as the rules see them (the outside policy applies); a
        // clamped one that is the position itself counts as the position's new class.
        ClassId nbr[24];
        std::size_t table[24]; // offset of the cell's distance's gap table
        int nbrs = 0;
        for (int dy = -2; dy <= 2; ++dy)
            for (int dx = -2; dx <= 2; ++dx) {
                const int u = x + dx, v = y + dy;
                if ((!dx && !dy) || (!outside.fixed_class && std::clamp(u, 0, w - 1) == x &&
                                     std::clamp(v, 0, h - 1) == y))
                    continue;
                nbr[nbrs] = read_class(classes, u, v, outside);
                table[nbrs] = std::max(std::abs(dx), std::abs(dy)) == 1 ? 0 : k * k;
                ++nbrs;
            }
        int gap_before = 0;
        for (int i = 0; i < nbrs; ++i)
            gap_before += gap[table[i] + from * k + nbr[i]];
        int best_count = 0, best_gap = 0, best = -1;
        for (int d = 1; d < class_count; ++d)
            for (int c : {from - d, from + d}) {
                if (c < 0 || c >= class_count) continue;
                int gap_after = 0;
                for (int i = 0; i < nbrs; ++i)
                    gap_after += gap[table[i] + static_cast<std::size_t>(c) * k + nbr[i]];
                const int d_gap = gap_after - gap_before;
                int after = 0;
                for (int i = 0; i < cells; ++i)
                    after +=
                        oracle.drawable(base[i] | Key(static_cast<unsigned>(c)) * at[i]) ? 0 : 1;
                const int d_count = after - before;
                if (d_count < best_count || (d_count == best_count && d_gap < best_gap)) {
                    best_count = d_count;
                    best_gap = d_gap;
                    best = c;
                }
            }
        if (best >= 0)
            out.push_back({x, y, static_cast<ClassId>(best)});
        else
            stale(x, y) = 0;
    };

    bool near = false; // positions: undrawable cells, or all cells within R of one
    for (int round = 0; round < settings.max_rounds && bad_cells > 0; ++round) {
        ++report.rounds;
        std::uint64_t changed = 0;
        for (int ky = 0; ky < stride; ++ky)
            for (int kx = 0; kx < stride; ++kx) {
                std::vector<int> rows;
                for (int y = ky; y < h; y += stride) {
                    bool any = false;
                    const int v0 = near ? std::max(0, y - reach) : y;
                    const int v1 = near ? std::min(h - 1, y + reach) : y;
                    for (int v = v0; v <= v1 && !any; ++v)
                        any = row_bad[static_cast<std::size_t>(v)] > 0;
                    if (any) rows.push_back(y);
                }
                if (rows.empty()) continue;
                const int n = static_cast<int>(rows.size());
                const int blocks = std::min(threads, n);
                std::vector<std::vector<Change>> proposals(static_cast<std::size_t>(blocks));
                parallel_for(blocks, blocks, [&](int b0, int b1) {
                    for (int b = b0; b < b1; ++b) {
                        Oracle& oracle = oracles[static_cast<std::size_t>(b)];
                        auto& out = proposals[static_cast<std::size_t>(b)];
                        for (int i = n * b / blocks; i < n * (b + 1) / blocks; ++i) {
                            const int y = rows[static_cast<std::size_t>(i)];
                            const std::uint8_t* const stale_row = stale.row(y);
                            for (int x = kx; x < w; x += stride) {
                                if (!stale_row[x]) continue;
                                bool position = !ok(x, y);
                                if (near && !position) {
                                    for (int v = std::max(0, y - reach);
                                         v <= std::min(h - 1, y + reach) && !position; ++v)
                                        for (int u = std::max(0, x - reach);
                                             u <= std::min(w - 1, x + reach) && !position; ++u)
                                            position = !ok(u, v);
                                }
                                if (position) evaluate(x, y, oracle, out);
                            }
                        }
                    }
                });
                // Apply: the changes of one colour are independent (2R+1 apart).
                for (const auto& block : proposals)
                    for (const Change& ch : block) {
                        classes(ch.x, ch.y) = ch.to;
                        ++changed;
                    }
                const auto class_at = [&](int a, int b) {
                    return read_class(classes, a, b, outside);
                };
                for (const auto& block : proposals)
                    for (const Change& ch : block) {
                        for (int v = std::max(0, ch.y - reach); v <= std::min(h - 1, ch.y + reach);
                             ++v)
                            for (int u = std::max(0, ch.x - reach);
                                 u <= std::min(w - 1, ch.x + reach); ++u) {
                                const std::uint8_t now =
                                    oracles[0].drawable_at(u, v, class_at) ? 1 : 0;
                                if (now != ok(u, v)) {
                                    const int delta = now ? -1 : 1;
                                    row_bad[static_cast<std::size_t>(v)] += delta;
                                    bad_cells = static_cast<std::uint64_t>(
                                        static_cast<std::int64_t>(bad_cells) + delta);
                                    ok(u, v) = now;
                                }
                            }
                        for (int v = std::max(0, ch.y - 2 * reach);
                             v <= std::min(h - 1, ch.y + 2 * reach); ++v)
                            for (int u = std::max(0, ch.x - 2 * reach);
                                 u <= std::min(w - 1, ch.x + 2 * reach); ++u)
                                stale(u, v) = 1;
                    }
            }
        if (changed == 0) {
            if (near) break;
            near = true;
        } else {
            near = false;
        }
    }
    report.undrawable = bad_cells;
    for (std::size_t i = 0; i < classes.size(); ++i)
        report.changed += classes.cells()[i] != original.cells()[i] ? 1 : 0;
    result.classes = std::move(classes);
    return result;
}

} // namespace tilegen

namespace tilegen {

struct DrawableCheck::Impl {
    Impl(const std::vector<LayerRules>& layers, int class_count, OutsidePolicy outside_policy)
        : undrawing(undrawing_rules(layers)), radius(rule_radius(layers)),
          reach(std::max(1, radius)), outside(outside_policy),
          oracle(layers, undrawing, radius, class_count, nullptr) {}
    std::vector<std::vector<std::uint8_t>> undrawing;
    int radius, reach;
    OutsidePolicy outside;
    Oracle oracle;
};

DrawableCheck::DrawableCheck(const std::vector<LayerRules>& layers, int class_count,
                             OutsidePolicy outside)
    : impl_(std::make_unique<Impl>(layers, class_count, outside)) {}

DrawableCheck::~DrawableCheck() = default;

bool DrawableCheck::keeps_drawable(const ClassGrid& classes, int x, int y, ClassId to) {
    Impl& m = *impl_;
    // Reads through the outside policy, with (x, y) read as `to` when `changed`. A clamped read
    // of an outside cell that lands on (x, y) sees the change too, as the rules would.
    const auto reader = [&](bool changed) {
        return [&, changed](int cx, int cy) {
            if (!classes.contains(cx, cy)) {
                if (m.outside.fixed_class) return *m.outside.fixed_class;
                cx = std::clamp(cx, 0, classes.width() - 1);
                cy = std::clamp(cy, 0, classes.height() - 1);
            }
            return changed && cx == x && cy == y ? to : classes(cx, cy);
        };
    };
    for (int dy = -m.reach; dy <= m.reach; ++dy)
        for (int dx = -m.reach; dx <= m.reach; ++dx) {
            const int cx = x + dx, cy = y + dy;
            if (!classes.contains(cx, cy)) continue;
            if (!m.oracle.drawable_at(cx, cy, reader(true)) &&
                m.oracle.drawable_at(cx, cy, reader(false)))
                return false;
        }
    return true;
}

} // namespace tilegen
