#include "core/cpu_features.hpp"

#include <cstdlib>
#include <cstring>

namespace tilegen {

namespace {

bool avx2_turned_off_by_environment() {
    const char* v = std::getenv("TILEGEN_NO_AVX2");
    return v != nullptr && std::strcmp(v, "") != 0 && std::strcmp(v, "0") != 0;
}

bool processor_has_avx2() {
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

} // namespace

bool avx2_enabled() {
    static const bool enabled = processor_has_avx2() && !avx2_turned_off_by_environment();
    return enabled;
}

} // namespace tilegen
