// run_concurrently and start_task (parallel.hpp): both pieces run, with the promised thread
// shares, on another thread only when there are threads to spare, and errors come back.
#include <doctest/doctest.h>

#include <stdexcept>
#include <thread>

#include "core/parallel.hpp"

namespace tilegen {

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
