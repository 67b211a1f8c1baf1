#include "io/chunked_output.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tilegen::io::detail {

namespace {

constexpr std::array<char, 200> make_pairs() {
    std::array<char, 200> t{};
    for (int i = 0; i < 100; ++i) {
        t[static_cast<std::size_t>(2 * i)] = static_cast<char>('0' + i / 10);
        t[static_cast<std::size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
    }
    return t;
}
constexpr std::array<char, 200> kPairs = make_pairs(); // "00" "01" .. "99"

} // namespace

char* put_uint(char* p, std::uint64_t v) {
    char tmp[20];
    char* const end = tmp + sizeof tmp;
    char* s = end;
    while (v >= 100) {
        s -= 2;
        std::memcpy(s, kPairs.data() + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        s -= 2;
        std::memcpy(s, kPairs.data() + 2 * v, 2);
    } else {
        *--s = static_cast<char>('0' + v);
    }
    const auto n = static_cast<std::size_t>(end - s);
    std::memcpy(p, s, n);
    return p + n;
}

char* put_int(char* p, std::int64_t v) {
    if (v >= 0) return put_uint(p, static_cast<std::uint64_t>(v));
    *p++ = '-';
    return put_uint(p, ~static_cast<std::uint64_t>(v) + 1); // also right for the smallest int64
}

void write_chunks_in_order(ByteSink& sink, std::size_t count, std::size_t bound, int threads,
                           const std::function<char*(std::size_t, char*)>& format) {
    if (count == 0) return;
    const std::size_t workers =
        std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), count);
    if (workers == 1) {
        const auto buffer = std::make_unique_for_overwrite<char[]>(bound + kChunkSlack);
        for (std::size_t i = 0; i < count; ++i)
            sink.write(
                {buffer.get(), static_cast<std::size_t>(format(i, buffer.get()) - buffer.get())});
        return;
    }

    // Chunk i is formatted into slot i % slots once chunk i - slots has been written. Helpers only
    // format; the calling thread writes the next chunk whenever it is ready and formats while it is
    // not.
    struct Slot {
        std::unique_ptr<char[]> data;
        std::size_t size = 0;
        bool ready = false;
    };
    const std::size_t slots = std::min(count, 4 * workers);
    std::vector<Slot> slot(slots);
    for (Slot& s : slot)
        s.data = std::make_unique_for_overwrite<char[]>(bound + kChunkSlack);
    std::mutex m;
    std::condition_variable cv;
    std::size_t next = 0, written = 0; // next chunk to format, chunks written (guarded by m)
    bool stop = false;                 // the writer failed: helpers leave

    auto claimable = [&] { return next < count && next < written + slots; };
    auto format_chunk = [&](std::unique_lock<std::mutex>& lock) { // with lock held and claimable()
        const std::size_t i = next++;
        Slot& s = slot[i % slots];
        lock.unlock();
        const std::size_t size = static_cast<std::size_t>(format(i, s.data.get()) - s.data.get());
        lock.lock();
        s.size = size;
        s.ready = true;
    };
    auto helper = [&] {
        std::unique_lock lock(m);
        for (;;) {
            cv.wait(lock, [&] { return stop || next >= count || claimable(); });
            if (stop || next >= count) return;
            format_chunk(lock);
            cv.notify_all();
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (std::size_t t = 1; t < workers; ++t)
        pool.emplace_back(helper);

    std::exception_ptr failure;
    try {
        std::unique_lock lock(m);
        while (written < count) {
            Slot& s = slot[written % slots];
            if (s.ready) {
                lock.unlock();
                sink.write({s.data.get(), s.size});
                lock.lock();
                s.ready = false;
                ++written;
                cv.notify_all(); // a slot is free
            } else if (claimable()) {
                format_chunk(lock);
            } else {
                cv.wait(lock, [&] { return s.ready || claimable(); });
            }
        }
    } catch (...) {
        failure = std::current_exception();
        std::lock_guard lock(m);
        stop = true;
    }
    cv.notify_all();
    for (std::thread& t : pool)
        t.join();
    if (failure) std::rethrow_exception(failure);
}

} // namespace tilegen::io::detail
