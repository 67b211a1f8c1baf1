#include "core/rules/class_passes.hpp"

#include <algorithm>
#include <atomic>
#include <utility>

#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/rules/autotile.hpp"

namespace tilegen {

std::uint64_t class_choice_base(std::uint64_t seed, std::uint64_t rule_identity, int run) {
    return hash_values(seed, 0x636c617373ull /* "class" */, rule_identity,
                       static_cast<std::uint64_t>(static_cast<std::int64_t>(run)));
}

namespace {

constexpr std::int16_t kChoose = -2; // an entry whose rule picks among weighted targets

// A pass's outcomes, indexed by decision + 1 (entry 0: no rule matched, the cell keeps its class).
// `fixed` is the class a rule with one target sets, kKeepClass for @keep (and for no rule), or
// kChoose; a choosing rule's targets are `count[e]` entries from `first[e]` in the flat `bounds`
// (choice_bounds) and `classes`.
struct Outcomes {
    std::vector<std::int16_t> fixed;
    std::vector<std::uint32_t> first, count;
    std::vector<std::uint64_t> bounds;
    std::vector<int> classes;

    explicit Outcomes(const ClassPass& pass) {
        const std::size_t entries = pass.ordered.size() + 1;
        fixed.assign(entries, static_cast<std::int16_t>(kKeepClass));
        first.assign(entries, 0);
        count.assign(entries, 0);
        for (std::size_t r = 0; r < pass.ordered.size(); ++r) {
            const ClassTargets& t = pass.targets[r];
            const std::size_t e = r + 1;
            if (t.classes.size() == 1) {
                fixed[e] = static_cast<std::int16_t>(t.classes.front());
            } else if (t.classes.size() > 1) {
                fixed[e] = kChoose;
                ResolvedTargets weights;
                weights.weights = t.weights;
                const std::vector<std::uint64_t> b = choice_bounds(weights);
                first[e] = static_cast<std::uint32_t>(bounds.size());
                count[e] = static_cast<std::uint32_t>(b.size());
                bounds.insert(bounds.end(), b.begin(), b.end());
                classes.insert(classes.end(), t.classes.begin(), t.classes.end());
            }
        }
    }
};

// The cell's 53-bit choice hash, as choose_target_from_base computes it (autotile.hpp); the row's
// part is computed once per row.
inline std::uint64_t cell_choice_hash(std::uint64_t base, int x, std::uint64_t row_part) {
    return mix64(base +
                 static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) * 0x9E3779B97F4A7C15ull +
                 row_part) >>
           11;
}

} // namespace

ClassGrid run_class_passes(ClassGrid classes, std::span<const ClassPass> passes, int class_count,
                           OutsidePolicy outside, std::uint64_t seed, int threads,
                           PassHistory* history, std::pair<int, int> origin, std::uint32_t frozen) {
    const std::size_t watched = history ? history->watch.size() : 0;
    if (history) {
        history->runs.clear();
        history->changed.clear();
        history->steps.assign(watched, {});
    }
    const int w = classes.width(), h = classes.height();
    ClassGrid next = ClassGrid::uninitialised(w, h);
    for (std::size_t p = 0; p < passes.size(); ++p) {
        const ClassPass& pass = passes[p];
        // The matcher reads `classes`, which holds the grid before each run (the buffers are
        // swapped after it); its decision tables do not depend on the grid, so they serve all runs.
        const LayerMatcher matcher(classes, pass.ordered, class_count, outside);
        const Outcomes outcomes(pass);
        std::vector<std::uint64_t> bases(outcomes.fixed.size(), 0);
        std::vector<std::uint64_t> changed_per_run;
        int run = 0;
        while (run < pass.runs) {
            for (std::size_t r = 0; r < pass.ordered.size(); ++r)
                if (outcomes.fixed[r + 1] == kChoose)
                    bases[r + 1] = class_choice_base(seed, pass.ordered[r].identity, run);
            std::atomic<std::uint64_t> changed{0};
            parallel_for(h, threads, [&](int y0, int y1) {
                std::uint64_t local = 0;
                matcher.match_rows(y0, y1, [&](int y, const int* decided) {
                    const ClassId* const src = classes.row(y);
                    ClassId* const dst = next.row(y);
                    // Raw pointers: the stores into `dst` (bytes, which may alias anything) would
                    // otherwise make the compiler reload every vector's data pointer per cell.
                    const std::int16_t* const fixed = outcomes.fixed.data();
                    const std::uint32_t* const count_of = outcomes.count.data();
                    const std::uint32_t* const first_of = outcomes.first.data();
                    const std::uint64_t* const bounds = outcomes.bounds.data();
                    const int* const target_classes = outcomes.classes.data();
                    const std::uint64_t* const base_of = bases.data();
                    const std::uint64_t row_part =
                        static_cast<std::uint64_t>(static_cast<std::int64_t>(y + origin.second)) *
                        0xC2B2AE3D27D4EB4Full;
                    std::uint64_t row_changed = 0;
                    for (int x = 0; x < w; ++x) {
                        const std::size_t e = static_cast<std::size_t>(decided[x] + 1);
                        const int f = fixed[e];
                        const ClassId own = src[x];
                        // f when f >= 0, else the cell's own class, without a branch.
                        const unsigned negative = static_cast<unsigned>(f >> 31);
                        ClassId c = static_cast<ClassId>((static_cast<unsigned>(f) & ~negative) |
                                                         (own & negative));
                        if (f == kChoose) [[unlikely]] {
                            const std::uint64_t hash =
                                cell_choice_hash(base_of[e], x + origin.first, row_part);
                            const std::uint32_t n = count_of[e], at = first_of[e];
                            std::uint32_t i = 0;
                            for (std::uint32_t j = 0; j < n; ++j)
                                i += hash >= bounds[at + j] ? 1 : 0;
                            i = std::min(i, n - 1); // as choose_target_from_base
                            const int k = target_classes[at + i];
                            if (k != kKeepClass) c = static_cast<ClassId>(k);
                        }
                        if (frozen && (((frozen >> own) | (frozen >> c)) & 1u)) c = own;
                        dst[x] = c;
                        row_changed += c != src[x] ? 1 : 0;
                    }
                    local += row_changed;
                    for (std::size_t i = 0; i < watched; ++i) {
                        const auto [wx, wy] = history->watch[i];
                        if (wy != y || wx < 0 || wx >= w) continue;
                        history->steps[i].push_back(
                            ClassStep{static_cast<int>(p), run, src[wx], dst[wx], decided[wx]});
                    }
                });
                changed.fetch_add(local, std::memory_order_relaxed);
            });
            std::swap(classes, next);
            changed_per_run.push_back(changed.load());
            ++run;
            if (pass.until_stable && changed_per_run.back() == 0) break;
        }
        if (history) {
            history->runs.push_back(run);
            history->changed.push_back(std::move(changed_per_run));
        }
    }
    return classes;
}

std::vector<ClassStep> replay_class_history(const ClassGrid& before,
                                            std::span<const ClassPass> passes,
                                            std::span<const int> runs, int class_count,
                                            OutsidePolicy outside, std::uint64_t seed, int x, int y,
                                            std::uint32_t frozen) {
    if (!before.contains(x, y)) return {};
    // Exactly the runs the full run made (an until-stable pass stops where it stopped there).
    std::vector<ClassPass> replayed(passes.begin(), passes.end());
    long long reach = 0;
    for (std::size_t p = 0; p < replayed.size(); ++p) {
        replayed[p].runs = p < runs.size() ? runs[p] : 0;
        replayed[p].until_stable = false;
        int radius = 0;
        for (const Rule& r : replayed[p].ordered)
            radius = std::max(radius, r.pattern.radius());
        reach += static_cast<long long>(replayed[p].runs) * radius;
    }
    // A cell's class after a run depends on cells at most `radius` away before it, so after all
    // runs (x, y) depends only on cells within `reach`; cells the window cuts off differ only
    // within `reach` of the window's inner edges.
    const auto clip = [&](long long v, int size) {
        return static_cast<int>(std::clamp<long long>(v, 0, size));
    };
    const int x0 = clip(x - reach, before.width()), x1 = clip(x + reach + 1, before.width());
    const int y0 = clip(y - reach, before.height()), y1 = clip(y + reach + 1, before.height());
    ClassGrid window = crop(before, Region{x0, y0, x1 - x0, y1 - y0});
    PassHistory history;
    history.watch = {{x - x0, y - y0}};
    (void)run_class_passes(std::move(window), replayed, class_count, outside, seed, 1, &history,
                           {x0, y0}, frozen);
    return std::move(history.steps.front());
}

} // namespace tilegen
