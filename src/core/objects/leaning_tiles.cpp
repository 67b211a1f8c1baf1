#include "core/objects/leaning_tiles.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "core/parallel.hpp"

namespace tilegen {

namespace {
// Strips per worker thread at most.
constexpr int kStripsPerThread = 2;
} // namespace

LeaningTiles plan_leaning_tiles(int columns, int rows, int group_rows, int skew, int gap,
                                int threads) {
    LeaningTiles t;
    t.columns = columns;
    t.rows = rows;
    t.group_rows = std::max(1, group_rows);
    t.groups = (rows + t.group_rows - 1) / t.group_rows;
    t.skew = std::max(1, skew);
    const int min_strip = t.skew * t.group_rows + gap;
    t.strips = threads <= 1 ? 1 : std::clamp(columns / min_strip, 1, kStripsPerThread * threads);
    t.strip_width = columns / t.strips;
    return t;
}

void run_leaning_tiles(const LeaningTiles& tiles, int threads,
                       const std::function<void(int group)>& prepare,
                       const std::function<void(int strip, int group, int worker)>& tile) {
    const int strips = tiles.strips, groups = tiles.groups;
    if (threads <= 1) {
        if (groups > 0) prepare(0);
        for (int g = 0; g < groups; ++g) {
            if (g + 1 < groups) prepare(g + 1);
            for (int i = 0; i < strips; ++i)
                tile(i, g, 0);
        }
        return;
    }
    // Tasks: tile (i, g) is g * strips + i, preparing group g is n + g.
    const int n = strips * groups;
    std::vector<int> pending(static_cast<std::size_t>(n)); // tasks each tile still waits for
    for (int t = 0; t < n; ++t)
        pending[static_cast<std::size_t>(t)] =
            (t % strips > 0) + (t >= strips) + 1 + (t / strips + 1 < groups);
    auto key = [&](int t) { return t < n ? t % strips + 2 * (t / strips) : 2 * (t - n) - 3; };
    auto later = [&](int a, int b) { return key(a) != key(b) ? key(a) > key(b) : a > b; };
    std::vector<int> ready; // a heap by `later`
    for (int g = 0; g < groups; ++g)
        ready.push_back(n + g);
    std::make_heap(ready.begin(), ready.end(), later);
    int left = n + groups, waiting = 0;
    std::mutex m;
    std::condition_variable changed;
    parallel_for(threads, threads, [&](int worker, int) {
        std::unique_lock lock(m);
        for (;;) {
            if (ready.empty() && left > 0) {
                ++waiting;
                changed.wait(lock, [&] { return !ready.empty() || left == 0; });
                --waiting;
            }
            if (ready.empty()) return;
            std::pop_heap(ready.begin(), ready.end(), later);
            const int t = ready.back();
            ready.pop_back();
            lock.unlock();
            if (t < n)
                tile(t % strips, t / strips, worker);
            else
                prepare(t - n);
            lock.lock();
            --left;
            auto release = [&](int u) {
                if (--pending[static_cast<std::size_t>(u)] > 0) return;
                ready.push_back(u);
                std::push_heap(ready.begin(), ready.end(), later);
            };
            if (t >= n) {
                // The tiles of the group and of the group above.
                const int g = t - n;
                for (int i = 0; i < strips; ++i) {
                    release(g * strips + i);
                    if (g > 0) release((g - 1) * strips + i);
                }
            } else {
                const int i = t % strips;
                if (i + 1 < strips) release(t + 1);
                if (t + strips < n) {
                    if (i > 0) release(t + strips - 1);
                    if (i == strips - 1) release(t + strips);
                }
            }
            if (waiting > 0 && (!ready.empty() || left == 0)) changed.notify_all();
        }
    });
}

void for_each_item(int n, int threads, const std::function<void(int item)>& item) {
    threads = std::clamp(threads, 1, std::max(1, n));
    if (threads == 1) {
        for (int i = 0; i < n; ++i)
            item(i);
        return;
    }
    std::atomic<int> next{0};
    parallel_for(threads, threads, [&](int, int) {
        for (int i = next.fetch_add(1, std::memory_order_relaxed); i < n;
             i = next.fetch_add(1, std::memory_order_relaxed))
            item(i);
    });
}

} // namespace tilegen
