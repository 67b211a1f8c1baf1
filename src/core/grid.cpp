#include "core/grid.hpp"

#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tilegen::grid_memory {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
std::size_t rounded(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
} // namespace

#if defined(__linux__)
// An anonymous mapping of the size rounded up to 2 MiB, cut to a 2 MiB boundary, marked MADV_HUGEPAGE. Pages are
// zero and come from the kernel on first touch.
void* allocate_large(std::size_t bytes) {
    const std::size_t size = rounded(bytes);
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

void deallocate_large(void* p, std::size_t bytes) {
    if (p) munmap(p, rounded(bytes));
}
#else
void* allocate_large(std::size_t bytes) { return std::aligned_alloc(kHugePage, rounded(bytes)); }
void deallocate_large(void* p, std::size_t) { std::free(p); }
#endif

} // namespace tilegen::grid_memory
