// run_concurrently and start_task (parallel.hpp): both pieces run, with the promised thread
// shares, on another thread only when there are threads to spare, and errors come back.
// parallel_bands: one value per band, in row order, the bands covering the rows once.
#include <doctest/doctest.h>

#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "core/parallel.hpp"

namespace tilegen {

TEST_CASE("parallel_bands: one value per band, in row order, covering every row once") {
    for (int n : {0, 1, 2, 5, 7, 100, 4096})
        for (int threads : {0, 1, 2, 3, 7, 200}) {
            CAPTURE(n);
            CAPTURE(threads);
            const std::vector<std::pair<int, int>> bands =
                parallel_bands(n, threads, [](int y0, int y1) {
                    return std::pair{y0, y1};
                });
            CHECK(bands.size() <= static_cast<std::size_t>(std::max(1, threads)));
            int next = 0;
            for (const auto& [y0, y1] : bands) {
                CHECK(y0 == next);
                CHECK(y1 > y0);
                next = y1;
            }
            CHECK(next == n);
            if (n > 0 && threads <= 1) CHECK(bands.size() == 1);
        }
}

TEST_CASE("run_concurrently: thread shares, where each piece runs, errors") {
    for (int threads : {0, 1, 2, 3, 8}) {
        CAPTURE(threads);
        int first_threads = 0, second_threads = 0;
        std::thread::id first_on, second_on;
        run_concurrently(
            threads,
            [&](int t) {
                first_threads = t;
                first_on = std::this_thread::get_id();
            },
            [&](int t) {
                second_threads = t;
                second_on = std::this_thread::get_id();
            });
        CHECK(first_on == std::this_thread::get_id());
        if (threads < 2) {
            CHECK(first_threads == 1);
            CHECK(second_threads == 1);
            CHECK(second_on == std::this_thread::get_id());
        } else {
            CHECK(first_threads + second_threads == threads);
            CHECK(second_threads == threads / 2);
            CHECK(second_on != std::this_thread::get_id());
        }
    }
    for (int threads : {1, 2}) {
        bool first_ran = false;
        CHECK_THROWS_WITH_AS(run_concurrently(
                                 threads, [&](int) { first_ran = true; },
                                 [](int) { throw std::runtime_error("second"); }),
                             "second", std::runtime_error);
        CHECK(first_ran);
        CHECK_THROWS_WITH_AS(run_concurrently(
                                 threads, [](int) { throw std::runtime_error("first"); },
                                 [](int) { throw std::runtime_error("second"); }),
                             "first", std::runtime_error);
    }
}

TEST_CASE("start_task: deferred on one thread, its own thread on more, errors at get") {
    for (int threads : {1, 2}) {
        CAPTURE(threads);
        std::thread::id ran_on;
        auto task = start_task(threads, [&] {
            ran_on = std::this_thread::get_id();
            return 42;
        });
        CHECK(task.get() == 42);
        if (threads == 1)
            CHECK(ran_on == std::this_thread::get_id());
        else
            CHECK(ran_on != std::this_thread::get_id());
        auto failing = start_task(threads, []() -> int { throw std::runtime_error("task"); });
        CHECK_THROWS_WITH_AS(failing.get(), "task", std::runtime_error);
    }
}

} // namespace tilegen
