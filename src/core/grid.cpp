#include "core/grid.hpp"

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

// Freed blocks kept for the next grid of a similar size: a fresh page must be zeroed by the kernel
// on first touch (about 0.1 s per GiB with huge pages, 0.5 s with small ones), a kept one is ready.
// When no kept block fits, all are returned to the system first, so the process never holds more
// than its largest set of live grids so far. Like malloc's free lists, this is process-wide; it
// never changes what a grid contains.
struct KeptBlocks {
    std::mutex mutex;
    std::vector<std::pair<void*, std::size_t>> free; // (block, mapped size)
    std::vector<std::pair<void*, std::size_t>> live; // blocks handed out, with their mapped size
};

KeptBlocks& kept() {
    static KeptBlocks blocks;
    return blocks;
}

} // namespace

void* allocate_large(std::size_t bytes) {
    const std::size_t size = rounded(bytes);
    KeptBlocks& k = kept();
    std::lock_guard lock(k.mutex);
    std::size_t best = k.free.size();
    for (std::size_t i = 0; i < k.free.size(); ++i)
        if (k.free[i].second >= size && k.free[i].second <= size + size / 2 &&
            (best == k.free.size() || k.free[i].second < k.free[best].second))
            best = i;
    void* p = nullptr;
    std::size_t mapped = size;
    if (best < k.free.size()) {
        p = k.free[best].first;
        mapped = k.free[best].second;
        k.free.erase(k.free.begin() + static_cast<std::ptrdiff_t>(best));
    } else {
        for (const auto& [block, block_size] : k.free)
            munmap(block, block_size);
        k.free.clear();
        p = map_block(size);
        if (!p) return nullptr;
    }
    k.live.emplace_back(p, mapped);
    return p;
}

void deallocate_large(void* p, std::size_t bytes) {
    if (!p) return;
    KeptBlocks& k = kept();
    std::lock_guard lock(k.mutex);
    std::size_t mapped = rounded(bytes);
    for (std::size_t i = 0; i < k.live.size(); ++i)
        if (k.live[i].first == p) {
            mapped = k.live[i].second;
            k.live[i] = k.live.back();
            k.live.pop_back();
            break;
        }
    k.free.emplace_back(p, mapped);
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
