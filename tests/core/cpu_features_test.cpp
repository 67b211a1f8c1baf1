#include "core/cpu_features.hpp"

#include <cstdlib>
#include <cstring>

#include <doctest/doctest.h>

namespace tilegen {

TEST_CASE("cpu features: AVX2 is enabled where the processor has it, unless TILEGEN_NO_AVX2") {
    const char* off = std::getenv("TILEGEN_NO_AVX2");
    const bool turned_off = off != nullptr && std::strcmp(off, "") != 0 && std::strcmp(off, "0");
#if defined(__x86_64__) && defined(__GNUC__)
    const bool has = __builtin_cpu_supports("avx2");
#else
    const bool has = false;
#endif
    CHECK(avx2_enabled() == (has && !turned_off));
    // Asked twice, the same answer (read once per process).
    CHECK(avx2_enabled() == avx2_enabled());
    if (turned_off) CHECK_FALSE(avx2_enabled());
}

} // namespace tilegen
