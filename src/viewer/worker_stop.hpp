// How the viewer's background workers (Generator, PieceWorker) stop. Input: the worker's lock,
// wake-up, stop flag and thread, and what to drop of its queued work. Output: none; on return the
// thread has ended. Invariant: the worker's loop returns once it sees `stop` under `mutex`.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

namespace tilegen::viewer {

// Sets `stop` and runs drop() (dropping queued work) under `mutex`, wakes the loop, joins it.
template <class Drop>
void stop_worker(std::mutex& mutex, std::condition_variable& wake, bool& stop, std::thread& thread,
                 const Drop& drop) {
    {
        std::lock_guard lock(mutex);
        stop = true;
        drop();
    }
    wake.notify_all();
    thread.join();
}

} // namespace tilegen::viewer
