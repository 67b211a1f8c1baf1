#include "core/classes/class_shares.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <queue>
#include <unordered_set>
#include <vector>

#include "core/classes/border_cells.hpp"
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
        // Only classes with a target read their counts (is_short, can_give).
        const std::vector<std::uint64_t> counts = class_counts(
            g_, static_cast<int>(std::min<std::size_t>(targets.size(), kClassSlots)), threads_);
        std::copy(counts.begin(), counts.end(), count_.begin());
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
        border_cells().for_each(0, 1, [&](int x, int y) {
            const ClassId c = g_(x, y);
            const auto pair = [&](ClassId b) {
                touching[static_cast<std::size_t>(c * kClassSlots + b)] = true;
                touching[static_cast<std::size_t>(b * kClassSlots + c)] = true;
            };
            if (x + 1 < w && g_(x + 1, y) != c) pair(g_(x + 1, y));
            if (y + 1 < h && g_(x, y + 1) != c) pair(g_(x, y + 1));
        });
        return touching;
    }

    // The cells that differ from a 4-neighbour, found by one scan of the grid (rows split over
    // the threads) the first time they are asked for, then kept current: every cell that moves
    // notes itself and its 8 neighbours (a cell may be visited more than once; the candidates it
    // gives are checked when taken).
    const BorderCells& border_cells() {
        if (!border_.ready()) border_.scan(g_, threads_);
        return border_;
    }

    // A moved cell and its 8 neighbours may now differ from a neighbour.
    void note_border_around(int x, int y) {
        if (!border_.ready()) return;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                if (g_.contains(x + dx, y + dy)) border_.note(x + dx, y + dy);
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
        auto lists = candidates_for(growing, floors);
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
    // visit(x, y, sink) calls sink(n, score, x, y) for cell (x, y) for each class n marked in
    // `growing` that it is a candidate of (once per class, even when two of its edge neighbours
    // are of n).
    template <class Sink>
    void visit(int x, int y, const std::array<bool, kClassSlots>& gives,
               const std::array<bool, kClassSlots>& growing, Sink&& sink) const {
        const int w = g_.width(), h = g_.height();
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

    static constexpr int kScores = 13; // 2 * 4 + 4 + 1

    // The candidates of the classes in `growing` (class n: found[n][score], cell indices), found
    // by one pass over the border cells, rows split over the threads. A border cell is visited
    // only where a row mask allows it: its class gives and one of its 4-neighbours is of a
    // growing class (what visit asks first; computed 64 cells at a time from a flag per class).
    using Found = std::vector<std::array<std::vector<std::uint32_t>, kScores>>;
    Found find_candidates(const std::array<bool, kClassSlots>& growing) {
        std::array<bool, kClassSlots> gives{};
        std::array<std::uint8_t, kClassSlots> flags{}; // 1: gives, 2: growing
        for (int c = 0; c < kClassSlots; ++c) {
            gives[c] = can_give(c);
            flags[c] = static_cast<std::uint8_t>((gives[c] ? 1 : 0) | (growing[c] ? 2 : 0));
        }
        const BorderCells& cells = border_cells();
        const int bands = std::max(1, threads_);
        std::vector<Found> per_band(static_cast<std::size_t>(bands));
        parallel_for(bands, bands, [&](int begin, int end) {
            for (int band = begin; band < end; ++band) {
                Found& found = per_band[static_cast<std::size_t>(band)];
                found.resize(kClassSlots);
                FlaggedNeighbourRows rows(g_, flags);
                cells.for_each_masked(
                    band, bands, [&](int y, std::uint64_t* mask) { rows.mask(y, mask); },
                    [&](int x, int y) {
                        visit(x, y, gives, growing, [&](int n, int score, int cx, int cy) {
                            found[n][score].push_back(static_cast<std::uint32_t>(index_of(cx, cy)));
                        });
                    });
            }
        });
        Found all(kClassSlots);
        for (int n = 0; n < kClassSlots; ++n)
            if (growing[n])
                for (int score = 0; score < kScores; ++score)
                    for (const Found& band : per_band)
                        all[n][score].insert(all[n][score].end(), band[n][score].begin(),
                                             band[n][score].end());
        return all;
    }

    // The floor of class n: the highest score that keeps at least twice the cells it is short of
    // (and 64 more) among its candidates (0 when even all of them are fewer).
    int floor_of(int n, const Found& found) const {
        const double wanted = 2 * (want_[n] - static_cast<double>(count_[n])) + 64;
        double kept = 0;
        for (int score = kScores - 1; score >= 0; --score) {
            kept += static_cast<double>(found[n][score].size());
            if (kept >= wanted) return score;
        }
        return 0;
    }

    // Class n's candidates of scores lo..hi - 1 (unordered: the heap orders them, and no two
    // compare equal but repeats of one cell, which it takes once).
    void add_candidates(const Found& found, int n, int lo, int hi, std::vector<Candidate>& out) {
        const auto w = static_cast<std::uint32_t>(g_.width());
        for (int score = std::max(lo, 0); score < std::min(hi, kScores); ++score)
            for (const std::uint32_t i : found[n][score])
                out.push_back({score, hash_position(seed_, i % w, i / w), i});
    }

    // The candidates of each class in `growing` whose score is at least its floor (floor_of),
    // written to `floors`.
    std::vector<std::vector<Candidate>> candidates_for(const std::array<bool, kClassSlots>& growing,
                                                       std::array<int, kClassSlots>& floors) {
        const Found found = find_candidates(growing);
        std::vector<std::vector<Candidate>> lists(kClassSlots);
        for (int n = 0; n < kClassSlots; ++n)
            if (growing[n]) {
                floors[n] = floor_of(n, found);
                add_candidates(found, n, floors[n], kScores, lists[n]);
            }
        return lists;
    }

    std::uint64_t grow(ClassId a) {
        std::array<bool, kClassSlots> growing{};
        growing[a] = true;
        std::array<int, kClassSlots> floors{};
        auto lists = candidates_for(growing, floors);
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
                const Found found = find_candidates(growing);
                const int lower = std::min(floor_of(a, found), floor - 1);
                std::vector<Candidate> more;
                add_candidates(found, a, lower, floor, more);
                for (const Candidate& c : more)
                    heap.push(c);
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
    BorderCells border_; // see border_cells
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
