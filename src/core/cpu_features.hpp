// The optional x86 vector extensions the fast paths may use. Input: the processor (cpuid, through
// the compiler's __builtin_cpu_supports) and the environment variable TILEGEN_NO_AVX2 (set to
// anything but "" or "0": AVX2 is treated as absent), both read once per process. Output: whether
// a fast path takes its AVX2 variant. Invariant: every variant gives the same output as the
// baseline (SSE2) one; the tests run both, the baseline by setting TILEGEN_NO_AVX2 (as OpenSSL's
// OPENSSL_ia32cap or NumPy's NPY_DISABLE_CPU_FEATURES mask features), so the code an older
// processor runs is tested on a newer one too.
#pragma once

namespace tilegen {

// True when this build has AVX2 variants (x86-64 with GCC or Clang), the processor has AVX2 and
// TILEGEN_NO_AVX2 does not turn it off.
[[nodiscard]] bool avx2_enabled();

} // namespace tilegen
