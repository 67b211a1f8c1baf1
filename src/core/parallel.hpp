// Deterministic data parallelism: split [0, n) into contiguous blocks, one per thread, run them,
// wait. Work items must be independent (each writes only its own rows), so results never depend on
// the thread count. No pool and no global state: threads are started per call (calls are coarse:
// one per stage).
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <future>
#include <optional>
#include <thread>
#include <vector>

namespace tilegen {

// The items per block of parallel_for (the last block may hold fewer): blocks start at multiples.
inline int items_per_block(int n, int threads) {
    threads = std::clamp(threads, 1, std::max(1, n));
    return std::max(1, (n + threads - 1) / threads);
}

// threads <= 1 runs inline. `body(begin, end)` handles items begin..end-1.
inline void parallel_for(int n, int threads, const std::function<void(int, int)>& body) {
    threads = std::clamp(threads, 1, std::max(1, n));
    if (threads == 1) {
        if (n > 0) body(0, n);
        return;
    }
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads - 1));
    const int per = items_per_block(n, threads);
    for (int t = 1; t < threads; ++t) {
        const int begin = t * per, end = std::min(n, begin + per);
        if (begin < end) pool.emplace_back(body, begin, end);
    }
    body(0, std::min(n, per));
    for (auto& th : pool)
        th.join();
}

// parallel_for over rows 0..n-1 where each band of rows makes a value: body(y0, y1) returns it.
// The values come back in band order (rows ascending), so whatever combines them in that order
// gets the same answer at any thread count.
// One slot per band (a band's first row is a multiple of items_per_block), not per row: values may
// be large (the hydrology's pair buckets are 10 KiB each).
template <class Body>
auto parallel_bands(int n, int threads, Body&& body) -> std::vector<decltype(body(0, 0))> {
    using Value = decltype(body(0, 0));
    const int per = items_per_block(n, threads);
    std::vector<std::optional<Value>> of_band(static_cast<std::size_t>(std::max(n, 0) / per + 1));
    parallel_for(n, threads, [&](int y0, int y1) {
        of_band[static_cast<std::size_t>(y0 / per)].emplace(body(y0, y1));
    });
    std::vector<Value> values;
    for (std::optional<Value>& v : of_band)
        if (v) values.push_back(std::move(*v));
    return values;
}

// Items 0..n-1 handed out one at a time to `threads` workers (dynamic, for balance). Items must be
// independent.
inline void for_each_item(int n, int threads, const std::function<void(int item)>& item) {
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

// Two independent pieces of work at once: with threads >= 2, `second(t2)` runs on a thread of its
// own with t2 = threads / 2 while `first(threads - t2)` runs on the calling thread; with fewer,
// first(1) then second(1) on the calling thread. Neither may read what the other writes, so the
// results never depend on the thread count. An exception from either is rethrown once both have
// finished (first's if both threw).
template <class First, class Second>
void run_concurrently(int threads, First&& first, Second&& second) {
    if (threads < 2) {
        first(1);
        second(1);
        return;
    }
    const int second_threads = threads / 2;
    std::exception_ptr second_error;
    std::thread other([&] {
        try {
            second(second_threads);
        } catch (...) {
            second_error = std::current_exception();
        }
    });
    std::exception_ptr first_error;
    try {
        first(threads - second_threads);
    } catch (...) {
        first_error = std::current_exception();
    }
    other.join();
    if (first_error) std::rethrow_exception(first_error);
    if (second_error) std::rethrow_exception(second_error);
}

// Work started now and collected later (get() on the returned future, which rethrows what it
// threw): with threads >= 2 on a thread of its own from now on, else on the calling thread when
// get() is called. `work` must read nothing that changes before get(), so its result never depends
// on the thread count. A future dropped without get() still waits for its thread.
template <class Work> auto start_task(int threads, Work&& work) -> std::future<decltype(work())> {
    return std::async(threads >= 2 ? std::launch::async : std::launch::deferred,
                      std::forward<Work>(work));
}

// The thread count for "auto" (0): the machine's hardware threads.
inline int resolve_threads(int requested) {
    if (requested > 0) return requested;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(hw);
}

} // namespace tilegen
