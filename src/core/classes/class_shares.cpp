#include "core/classes/class_shares.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <queue>
#include <unordered_set>
#include <vector>

#include "core/grid.hpp"
#include "core/hash.hpp"
#include "core/parallel.hpp"

namespace tilegen {

namespace {

constexpr int kClassSlots = 256;

// The 8 neighbours in ring order (N, NE, E, SE, S, SW, W, NW): consecutive entries share an edge.
constexpr std::array<int, 8> kRingDx = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr std::array<int, 8> kRingDy = {-1, -1, 0, 1, 1, 1, 0, -1};

struct Candidate {
    int score = 0;
    std::uint64_t tie = 0; // hash(seed, x, y)
    std::int64_t index = 0;
    // The heap's top is the best: highest score, then lowest hash, then first in reading order.
    bool operator<(const Candidate& o) const {
        if (score != o.score) return score < o.score;
        if (tie != o.tie) return tie > o.tie;
        return index > o.index;
    }
};

// border[x] = 1 when cell x of `row` differs from one of its 4-neighbours (the rows above and
// below may be null: the map's edge), else 0. A plain loop over bytes the compiler vectorises:
// most cells of a map are inside a region, and the scans only look at the others.
void mark_border_cells(const ClassId* row, const ClassId* up, const ClassId* down, int w,
                       std::uint8_t* border) {
    for (int x = 0; x < w; ++x)
        border[x] = 0;
    for (int x = 1; x < w; ++x) {
        const std::uint8_t differs = row[x] != row[x - 1];
        border[x] |= differs;
        border[x - 1] |= differs;
    }
    if (up)
        for (int x = 0; x < w; ++x)
            border[x] |= static_cast<std::uint8_t>(row[x] != up[x]);
    if (down)
        for (int x = 0; x < w; ++x)
            border[x] |= static_cast<std::uint8_t>(row[x] != down[x]);
}

class ShareKeeper {
  public:
    ShareKeeper(ClassGrid& classes, std::span<const double> targets,
                std::span<const ClassCleanup> per_class, std::uint64_t seed,
                const ShareMoveCheck& allowed, int threads)
        : g_(classes), seed_(hash_values(seed, hash_string("keep_class_shares"))),
          allowed_(allowed), threads_(std::max(1, threads)) {
        for (std::size_t c = 0; c < per_class.size() && c < kClassSlots; ++c)
            min_area_[c] = per_class[c].min_area;
        double sum = 0;
        for (std::size_t c = 0; c < targets.size() && c < kClassSlots; ++c)
            if (!std::isnan(targets[c])) {
                has_target_[c] = true;
                sum += targets[c];
            }
        for (int y = 0; y < g_.height(); ++y)
            for (int x = 0; x < g_.width(); ++x)
                ++count_[g_(x, y)];
        std::uint64_t m = 0;
        for (int c = 0; c < kClassSlots; ++c)
            if (has_target_[c]) m += count_[c];
        for (std::size_t c = 0; c < targets.size() && c < kClassSlots; ++c)
            if (has_target_[c])
                want_[c] = sum > 0 ? static_cast<double>(m) * targets[c] / sum : 0.0;
    }

    ShareReport run() {
        ShareReport report;
        report.moved_cells += grow_short_classes();
        // Relays: a class short of cells may border no class that has cells to spare (after
        // legalise, grass may not touch the water that gained cells; sand lies between). Then a
        // class m at its target that borders one with cells to spare takes up to the missing
        // cells (it is made to want them for a while) and the short classes grow into it. When
        // they cannot take all m took, the attempt is undone and tried once more with what they
        // took; m never ends over its target.
        // Only classes m that touch both a short class and one with cells to spare are tried.
        for (int round = 0; round < kRelayRounds; ++round) {
            if (missing_cells() < 1) break;
            const auto touching = touching_classes();
            std::uint64_t moved = 0;
            for (int m = 0; m < kClassSlots; ++m) {
                if (missing_cells() < 1) break;
                if (!has_target_[m] || is_short(m) || can_give(m)) continue;
                bool to_short = false, to_giver = false;
                for (int c = 0; c < kClassSlots; ++c)
                    if (touching[static_cast<std::size_t>(m * kClassSlots + c)]) {
                        to_short = to_short || is_short(c);
                        to_giver = to_giver || can_give(c);
                    }
                if (!to_short || !to_giver) continue;
                double extra = std::floor(missing_cells());
                for (int attempt = 0; attempt < 2 && extra >= 1; ++attempt) {
                    log_.clear();
                    logging_ = true;
                    want_[m] += extra;
                    grow(static_cast<ClassId>(m));
                    want_[m] -= extra;
                    grow_short_classes();
                    logging_ = false;
                    const double over = static_cast<double>(count_[m]) - (want_[m] + 0.5);
                    if (over <= 0) {
                        moved += log_.size();
                        break;
                    }
                    undo_log();
                    extra = std::floor(extra - over);
                }
            }
            report.moved_cells += moved;
            if (moved == 0 || missing_cells() < 1) break;
        }
        return report;
    }

  private:
    static constexpr int kRelayRounds = 8;

    // touching[a * kClassSlots + b]: some cell of class a has a 4-neighbour of class b.
    std::vector<bool> touching_classes() {
        std::vector<bool> touching(static_cast<std::size_t>(kClassSlots) * kClassSlots, false);
        const int w = g_.width(), h = g_.height();
        for (const std::uint32_t i : border_cells()) {
            const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
            const ClassId c = g_(x, y);
            const auto pair = [&](ClassId b) {
                touching[static_cast<std::size_t>(c * kClassSlots + b)] = true;
                touching[static_cast<std::size_t>(b * kClassSlots + c)] = true;
            };
            if (x + 1 < w && g_(x + 1, y) != c) pair(g_(x + 1, y));
            if (y + 1 < h && g_(x, y + 1) != c) pair(g_(x, y + 1));
        }
        return touching;
    }

    // The cells that differ from a 4-neighbour, found by one scan of the grid (rows split over
    // the threads) the first time they are asked for, then kept current: every cell that moves
    // adds itself and its 8 neighbours (a cell may be listed more than once; the candidates it
    // gives are checked when taken).
    const GridCells<std::uint32_t>& border_cells() {
        if (border_ready_) return border_;
        const int w = g_.width(), h = g_.height();
        const int bands = std::clamp(threads_, 1, h);
        std::vector<GridCells<std::uint32_t>> per_band(static_cast<std::size_t>(bands));
        parallel_for(bands, bands, [&](int begin, int end) {
            std::vector<std::uint8_t> border(static_cast<std::size_t>(w));
            for (int band = begin; band < end; ++band) {
                auto& mine = per_band[static_cast<std::size_t>(band)];
                const int y0 = static_cast<int>(static_cast<std::int64_t>(h) * band / bands);
                const int y1 = static_cast<int>(static_cast<std::int64_t>(h) * (band + 1) / bands);
                for (int y = y0; y < y1; ++y) {
                    mark_border_cells(g_.row(y), y > 0 ? g_.row(y - 1) : nullptr,
                                      y + 1 < h ? g_.row(y + 1) : nullptr, w, border.data());
                    for (int x = 0; x < w; ++x)
                        if (border[static_cast<std::size_t>(x)])
                            mine.push_back(static_cast<std::uint32_t>(index_of(x, y)));
                }
            }
        });
        std::size_t total = 0;
        for (const auto& band : per_band)
            total += band.size();
        border_.reserve(total);
        for (const auto& band : per_band)
            border_.insert(border_.end(), band.begin(), band.end());
        border_ready_ = true;
        return border_;
    }

    // A moved cell and its 8 neighbours may now differ from a neighbour.
    void note_border_around(int x, int y) {
        if (!border_ready_) return;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                if (g_.contains(x + dx, y + dy))
                    border_.push_back(static_cast<std::uint32_t>(index_of(x + dx, y + dy)));
    }

    double missing_cells() const {
        double missing = 0;
        for (int c = 0; c < kClassSlots; ++c)
            if (is_short(c)) missing += want_[c] - static_cast<double>(count_[c]);
        return missing;
    }

    void undo_log() {
        for (auto it = log_.rbegin(); it != log_.rend(); ++it) {
            ClassId& cell = g_(static_cast<int>(it->first % g_.width()),
                               static_cast<int>(it->first / g_.width()));
            --count_[cell];
            ++count_[it->second];
            cell = it->second;
        }
        log_.clear();
    }

    std::uint64_t grow_short_classes() {
        std::array<bool, kClassSlots> growing{};
        bool any = false;
        for (int a = 0; a < kClassSlots; ++a)
            any = (growing[a] = is_short(a)) || any;
        if (!any) return 0;
        // Candidates found before an earlier class grew are checked again when taken.
        std::array<int, kClassSlots> floors{};
        auto lists = candidates_for(growing, floors, true);
        std::uint64_t moved = 0;
        for (int a = 0; a < kClassSlots; ++a)
            if (growing[a] && is_short(a))
                moved += grow(static_cast<ClassId>(a), std::move(lists[a]), floors[a]);
        return moved;
    }

    bool is_short(int c) const {
        return has_target_[c] && static_cast<double>(count_[c]) < want_[c] - 0.5;
    }
    bool can_give(int c) const {
        return has_target_[c] && static_cast<double>(count_[c]) - 1.0 >= want_[c] - 0.5;
    }
    std::int64_t index_of(int x, int y) const {
        return static_cast<std::int64_t>(y) * g_.width() + x;
    }
    bool is(int x, int y, ClassId c) const { return g_.contains(x, y) && g_(x, y) == c; }

    int score(int x, int y, ClassId a) const {
        int s = 0;
        for (int k = 0; k < 8; ++k)
            if (is(x + kRingDx[k], y + kRingDy[k], a)) s += (k % 2 == 0) ? 2 : 1;
        return s;
    }
    bool touches(int x, int y, ClassId a) const {
        for (int k = 0; k < 8; k += 2)
            if (is(x + kRingDx[k], y + kRingDy[k], a)) return true;
        return false;
    }

    // Taking (x, y) from its class b splits no region of b: the b cells of its 8-neighbourhood
    // that are edge neighbours all lie in one run of consecutive b cells around the ring.
    bool is_simple(int x, int y, ClassId b) const {
        std::array<bool, 8> ring{};
        for (int k = 0; k < 8; ++k)
            ring[k] = is(x + kRingDx[k], y + kRingDy[k], b);
        int runs_with_edge = 0;
        bool all = true;
        for (int k = 0; k < 8; ++k)
            all = all && ring[k];
        if (all) return true;
        for (int start = 0; start < 8; ++start) {
            // A run starts at k when ring[k] is b and the entry before it is not.
            if (!ring[start] || ring[(start + 7) % 8]) continue;
            bool edge = false;
            for (int k = start; ring[k % 8]; ++k)
                if (k % 2 == 0) edge = true;
            if (edge) ++runs_with_edge;
        }
        return runs_with_edge <= 1;
    }

    // Adds cell n to the flood's seen cells; false when it was there. Small floods keep a sorted
    // vector, large ones (min_area over kSmallFlood) a hash set.
    static constexpr std::size_t kSmallFlood = 64;
    bool remember(std::int64_t n) {
        if (seen_.size() < kSmallFlood && seen_set_.empty()) {
            const auto at = std::lower_bound(seen_.begin(), seen_.end(), n);
            if (at != seen_.end() && *at == n) return false;
            seen_.insert(at, n);
            return true;
        }
        if (seen_set_.empty()) seen_set_.insert(seen_.begin(), seen_.end());
        if (!seen_set_.insert(n).second) return false;
        seen_.push_back(n);
        return true;
    }

    // The region of (x, y) (class b) holds more than `limit` cells: a flood that stops early.
    bool region_larger_than(int x, int y, ClassId b, int limit) {
        seen_.clear();
        seen_set_.clear();
        stack_.clear();
        const std::int64_t start = index_of(x, y);
        seen_.push_back(start);
        stack_.push_back(start);
        while (!stack_.empty()) {
            const std::int64_t i = stack_.back();
            stack_.pop_back();
            const int cx = static_cast<int>(i % g_.width()), cy = static_cast<int>(i / g_.width());
            for (int k = 0; k < 8; k += 2) {
                const int nx = cx + kRingDx[k], ny = cy + kRingDy[k];
                if (!is(nx, ny, b)) continue;
                const auto n = index_of(nx, ny);
                if (!remember(n)) continue;
                if (static_cast<int>(seen_.size()) > limit) return true;
                stack_.push_back(n);
            }
        }
        return static_cast<int>(seen_.size()) > limit;
    }

    bool movable(int x, int y, ClassId a) {
        const ClassId b = g_(x, y);
        if (b == a || !can_give(b) || !touches(x, y, a) || !is_simple(x, y, b)) return false;
        const int min_area = min_area_[b];
        if (min_area >= 2 && !region_larger_than(x, y, b, min_area)) return false;
        return !allowed_ || allowed_(g_, x, y, a);
    }

    Candidate candidate(int x, int y, ClassId a) const {
        return {score(x, y, a), hash_position(seed_, x, y), index_of(x, y)};
    }

    // Candidates of class n: cells of classes that can give a cell with a 4-neighbour of class n.
    // visit(i, sink) calls sink(n, score, x, y) for cell i for each class n marked in `growing`
    // that it is a candidate of (once per class, even when two of its edge neighbours are of n).
    template <class Sink>
    void visit(std::int64_t i, const std::array<bool, kClassSlots>& gives,
               const std::array<bool, kClassSlots>& growing, Sink&& sink) const {
        const int w = g_.width(), h = g_.height();
        const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
        const ClassId* row = g_.row(y);
        const ClassId c = row[x];
        if (!gives[c]) return;
        const ClassId* up = y > 0 ? g_.row(y - 1) : nullptr;
        const ClassId* down = y + 1 < h ? g_.row(y + 1) : nullptr;
        const std::array<int, 4> around = {x > 0 ? row[x - 1] : -1, x + 1 < w ? row[x + 1] : -1,
                                           up ? up[x] : -1, down ? down[x] : -1};
        for (int k = 0; k < 4; ++k) {
            const int n = around[k];
            if (n < 0 || n == c || !growing[n]) continue;
            bool seen = false;
            for (int j = 0; j < k; ++j)
                seen = seen || around[j] == n;
            if (seen) continue;
            int score = 0;
            if (up && down && x > 0 && x + 1 < w) { // inside: read the rows directly
                for (int j = 0; j < 4; ++j)
                    score += around[j] == n ? 2 : 0;
                score +=
                    (up[x - 1] == n) + (up[x + 1] == n) + (down[x - 1] == n) + (down[x + 1] == n);
            } else {
                score = this->score(x, y, static_cast<ClassId>(n));
            }
            sink(n, score, x, y);
        }
    }

    // Runs body(part, begin, end) over `parts` slices of the border cells, one per thread.
    template <class Body> void over_border(int parts, Body&& body) {
        const GridCells<std::uint32_t>& cells = border_cells();
        const auto n = static_cast<std::int64_t>(cells.size());
        parallel_for(parts, parts, [&](int begin, int end) {
            for (int part = begin; part < end; ++part)
                body(part, cells.data() + n * part / parts, cells.data() + n * (part + 1) / parts);
        });
    }

    static constexpr int kScores = 13; // 2 * 4 + 4 + 1

    // The candidates of each class in `growing` whose score is at least floors[n] (unordered:
    // the heap orders them, and no two compare equal). Without floors, the floor of each class is
    // the highest score that keeps at least twice the cells it is short of (and 64 more), read
    // off a first scan's counts, and written to `floors`.
    std::vector<std::vector<Candidate>> candidates_for(const std::array<bool, kClassSlots>& growing,
                                                       std::array<int, kClassSlots>& floors,
                                                       bool choose_floors) {
        std::array<bool, kClassSlots> gives{};
        for (int c = 0; c < kClassSlots; ++c)
            gives[c] = can_give(c);
        const int bands = std::max(1, threads_);
        if (choose_floors) {
            using Counts = std::vector<std::array<std::uint64_t, kScores>>;
            std::vector<Counts> counts(static_cast<std::size_t>(bands), Counts(kClassSlots));
            over_border(bands, [&](int band, const std::uint32_t* from, const std::uint32_t* to) {
                Counts& mine = counts[static_cast<std::size_t>(band)];
                for (const std::uint32_t* i = from; i != to; ++i)
                    visit(*i, gives, growing,
                          [&](int n, int score, int, int) { ++mine[n][score]; });
            });
            for (int n = 0; n < kClassSlots; ++n) {
                if (!growing[n]) continue;
                const double wanted = 2 * (want_[n] - static_cast<double>(count_[n])) + 64;
                double kept = 0;
                floors[n] = 0;
                for (int score = kScores - 1; score >= 0; --score) {
                    for (const Counts& band : counts)
                        kept += static_cast<double>(band[n][score]);
                    if (kept >= wanted) {
                        floors[n] = score;
                        break;
                    }
                }
            }
        }
        std::vector<std::vector<std::vector<Candidate>>> per_band(static_cast<std::size_t>(bands));
        over_border(bands, [&](int band, const std::uint32_t* from, const std::uint32_t* to) {
            auto& lists = per_band[static_cast<std::size_t>(band)];
            lists.resize(kClassSlots);
            for (const std::uint32_t* i = from; i != to; ++i)
                visit(*i, gives, growing, [&](int n, int score, int x, int y) {
                    if (score >= floors[n])
                        lists[n].push_back({score, hash_position(seed_, x, y), index_of(x, y)});
                });
        });
        std::vector<std::vector<Candidate>> lists(kClassSlots);
        for (auto& band : per_band)
            for (int c = 0; c < kClassSlots; ++c)
                lists[c].insert(lists[c].end(), band[c].begin(), band[c].end());
        return lists;
    }

    std::uint64_t grow(ClassId a) {
        std::array<bool, kClassSlots> growing{};
        growing[a] = true;
        std::array<int, kClassSlots> floors{};
        auto lists = candidates_for(growing, floors, true);
        return grow(a, std::move(lists[a]), floors[a]);
    }

    // Grows class a from its candidates of score >= floor. A cell's score for a only rises while
    // a grows (a short class never gives cells), and cells whose score rises are offered again,
    // so the heap's top is the best cell while its score is at least the floor; below it the
    // cells left out are collected (all of them) and the growth goes on.
    std::uint64_t grow(ClassId a, std::vector<Candidate> initial, int floor) {
        std::priority_queue<Candidate> heap(std::less<Candidate>{}, std::move(initial));
        std::uint64_t moved = 0;
        while (is_short(a)) {
            if (floor > 0 && (heap.empty() || heap.top().score < floor)) {
                // The cells below the floor, down to a new floor chosen as at the start (for
                // what a still lacks), and at least one score lower: at most kScores rounds.
                std::array<bool, kClassSlots> growing{};
                growing[a] = true;
                std::array<int, kClassSlots> floors{};
                const auto lists = candidates_for(growing, floors, true);
                const int lower = std::min(floors[a], floor - 1);
                if (lower < floors[a]) { // collect down to `lower` (the lists stop at floors[a])
                    std::array<int, kClassSlots> at{};
                    at[a] = lower;
                    const auto more = candidates_for(growing, at, false);
                    for (const Candidate& c : more[a])
                        if (c.score < floor) heap.push(c);
                } else {
                    for (const Candidate& c : lists[a])
                        if (c.score < floor) heap.push(c);
                }
                floor = lower;
                continue;
            }
            if (heap.empty()) break;
            const Candidate top = heap.top();
            heap.pop();
            const int x = static_cast<int>(top.index % g_.width());
            const int y = static_cast<int>(top.index / g_.width());
            if (g_(x, y) == a) continue;
            const int now = score(x, y, a);
            if (now != top.score) { // stale: a neighbour moved since it was pushed
                if (now > 0) heap.push(candidate(x, y, a));
                continue;
            }
            if (!movable(x, y, a)) continue;
            if (logging_) log_.push_back({top.index, g_(x, y)});
            --count_[g_(x, y)];
            ++count_[a];
            g_(x, y) = a;
            note_border_around(x, y);
            ++moved;
            // Its neighbours' scores rose; some may have become simple: offer them again.
            for (int k = 0; k < 8; ++k) {
                const int nx = x + kRingDx[k], ny = y + kRingDy[k];
                if (g_.contains(nx, ny) && g_(nx, ny) != a && can_give(g_(nx, ny)) &&
                    touches(nx, ny, a))
                    heap.push(candidate(nx, ny, a));
            }
        }
        return moved;
    }

    ClassGrid& g_;
    std::uint64_t seed_;
    const ShareMoveCheck& allowed_;
    int threads_;
    std::array<int, kClassSlots> min_area_{};
    std::array<bool, kClassSlots> has_target_{};
    std::array<std::uint64_t, kClassSlots> count_{};
    std::array<double, kClassSlots> want_{};
    std::vector<std::int64_t> seen_, stack_;
    std::unordered_set<std::int64_t> seen_set_;
    // See border_cells (a map has at most 2^32 cells); map-sized, so from the grid pool.
    GridCells<std::uint32_t> border_;
    bool border_ready_ = false;
    bool logging_ = false;
    std::vector<std::pair<std::int64_t, ClassId>> log_; // (cell, its class before) per move
};

} // namespace

ShareReport keep_class_shares(ClassGrid& classes, std::span<const double> targets,
                              std::span<const ClassCleanup> per_class, std::uint64_t seed,
                              const ShareMoveCheck& allowed, int threads) {
    if (classes.empty()) return {};
    return ShareKeeper(classes, targets, per_class, seed, allowed, threads).run();
}

} // namespace tilegen
