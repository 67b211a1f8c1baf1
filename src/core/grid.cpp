#include "core/grid.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tilegen::grid_memory {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
std::size_t rounded(std::size_t bytes) {
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}
} // namespace

#if defined(__linux__)
namespace {

// An anonymous mapping of `size` (a multiple of 2 MiB) at a 2 MiB boundary, marked MADV_HUGEPAGE.
void* map_block(std::size_t size) {
    const std::size_t span = size + kHugePage;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) munmap(raw, aligned - start);
    const std::uintptr_t end = start + span, used_end = aligned + size;
    if (end > used_end) munmap(reinterpret_cast<void*>(used_end), end - used_end);
    madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
    return reinterpret_cast<void*>(aligned);
}

// Freed blocks kept for later grids: a fresh page must be zeroed by the kernel on first touch
// (about 0.1 s per GiB with huge pages, 0.5 s with small ones), a kept one is ready. A grid takes
// the smallest kept block that holds it, and the rest of that block stays kept (split_block), so a
// small temporary between large grids costs no fresh pages; freed blocks next to a kept one join it
// (join_neighbours), so the pieces of a split block serve a large grid again. When no kept block
// fits but the kept blocks add up to the size, their pages are moved into one new range
// (gather_kept: no clearing). Otherwise a fresh one is mapped and kept blocks, largest first, are
// returned to the system until
// the live and kept blocks together are no larger than the largest set of live grids so far
// (trim_kept): the process never holds more than that. Like malloc's free lists, this is
// process-wide; it never changes what a grid contains.
struct Block {
    std::uintptr_t start;
    std::size_t size; // a multiple of 2 MiB
};

struct KeptBlocks {
    std::mutex mutex;
    std::vector<Block> free; // kept, never two adjacent ones
    std::vector<Block> live; // handed out
    std::size_t live_bytes = 0, kept_bytes = 0;
    std::size_t most_live = 0; // the largest live_bytes so far
};

KeptBlocks& kept() {
    static KeptBlocks blocks;
    return blocks;
}

// The index of the smallest kept block of at least `size` bytes (free.size() when none).
std::size_t best_fit(const std::vector<Block>& free, std::size_t size) {
    std::size_t best = free.size();
    for (std::size_t i = 0; i < free.size(); ++i)
        if (free[i].size >= size && (best == free.size() || free[i].size < free[best].size))
            best = i;
    return best;
}

// Takes `size` bytes from the front of kept block `i`; the rest (if any) stays kept.
std::uintptr_t split_block(std::vector<Block>& free, std::size_t i, std::size_t size) {
    const Block b = free[i];
    if (b.size > size)
        free[i] = {b.start + size, b.size - size};
    else
        free.erase(free.begin() + static_cast<std::ptrdiff_t>(i));
    return b.start;
}

// Keeps block `b`, joined with the kept blocks just before and after it.
void join_neighbours(std::vector<Block>& free, Block b) {
    for (std::size_t i = 0; i < free.size();) {
        if (free[i].start + free[i].size == b.start) {
            b = {free[i].start, free[i].size + b.size};
        } else if (b.start + b.size == free[i].start) {
            b.size += free[i].size;
        } else {
            ++i;
            continue;
        }
        free[i] = free.back();
        free.pop_back();
    }
    free.push_back(b);
}

// Returns kept blocks, largest first, until live and kept bytes are at most the most ever live.
void trim_kept(KeptBlocks& k) {
    while (k.live_bytes + k.kept_bytes > k.most_live && !k.free.empty()) {
        std::size_t largest = 0;
        for (std::size_t i = 1; i < k.free.size(); ++i)
            if (k.free[i].size > k.free[largest].size) largest = i;
        const Block b = k.free[largest];
        munmap(reinterpret_cast<void*>(b.start), b.size);
        k.kept_bytes -= b.size;
        k.free[largest] = k.free.back();
        k.free.pop_back();
    }
}

// When no kept block holds `size` bytes but the kept blocks together do: a fresh range whose
// pages are moved in from kept blocks, largest first (mremap moves pages with their contents: no
// clearing), so pieces of freed grids serve a larger one; nullptr when they do not add up.
void* gather_kept(KeptBlocks& k, std::size_t size) {
    if (k.kept_bytes < size) return nullptr;
    void* p = map_block(size);
    if (!p) return nullptr;
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    for (std::size_t at = 0; at < size && !k.free.empty();) {
        std::size_t largest = 0;
        for (std::size_t i = 1; i < k.free.size(); ++i)
            if (k.free[i].size > k.free[largest].size) largest = i;
        const Block b = k.free[largest];
        const std::size_t take = std::min(b.size, size - at);
        if (mremap(reinterpret_cast<void*>(b.start), take, take, MREMAP_MAYMOVE | MREMAP_FIXED,
                   reinterpret_cast<void*>(start + at)) == MAP_FAILED)
            break; // the rest is fresh pages
        if (take < b.size)
            k.free[largest] = {b.start + take, b.size - take};
        else {
            k.free[largest] = k.free.back();
            k.free.pop_back();
        }
        k.kept_bytes -= take;
        at += take;
    }
    return p;
}

} // namespace

void* allocate_large(std::size_t bytes) {
    const std::size_t size = rounded(bytes);
    KeptBlocks& k = kept();
    std::lock_guard lock(k.mutex);
    const std::size_t best = best_fit(k.free, size);
    void* p = nullptr;
    if (best < k.free.size()) {
        p = reinterpret_cast<void*>(split_block(k.free, best, size));
        k.kept_bytes -= size;
    } else {
        p = gather_kept(k, size);
        if (!p) p = map_block(size);
        if (!p) return nullptr;
    }
    k.live.push_back({reinterpret_cast<std::uintptr_t>(p), size});
    k.live_bytes += size;
    k.most_live = std::max(k.most_live, k.live_bytes);
    trim_kept(k);
    return p;
}

void deallocate_large(void* p, std::size_t bytes) {
    if (!p) return;
    KeptBlocks& k = kept();
    std::lock_guard lock(k.mutex);
    Block b{reinterpret_cast<std::uintptr_t>(p), rounded(bytes)};
    for (std::size_t i = 0; i < k.live.size(); ++i)
        if (k.live[i].start == b.start) {
            b.size = k.live[i].size;
            k.live[i] = k.live.back();
            k.live.pop_back();
            break;
        }
    k.live_bytes -= b.size;
    k.kept_bytes += b.size;
    join_neighbours(k.free, b);
}
#else
void* allocate_large(std::size_t bytes) {
    return std::aligned_alloc(kHugePage, rounded(bytes));
}
void deallocate_large(void* p, std::size_t) {
    std::free(p);
}
#endif

} // namespace tilegen::grid_memory
