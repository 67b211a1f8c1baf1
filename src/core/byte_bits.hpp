// Bytes to bits: flags computed a byte per cell (plain loops the compiler vectorises) packed into
// 64-bit words, bit b for byte b. Input: bytes, 64 per word. Output: the words. Invariant: the
// same bits with or without SSE2 (16 bytes compared at a time, else a plain loop).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tilegen {

// Bit b set when p[b] is 0 (b < 64).
inline std::uint64_t zero_bytes_64(const std::uint8_t* p) {
    std::uint64_t m = 0;
#if defined(__SSE2__)
    for (int k = 0; k < 64; k += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k));
        m |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(
                 _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()))))
             << k;
    }
#else
    for (int b = 0; b < 64; ++b)
        m |= std::uint64_t{p[b] == 0} << b;
#endif
    return m;
}

// out[i] bit b = (bytes[64 i + b] != 0), for `words` words.
inline void pack_nonzero_bytes(const std::uint8_t* bytes, std::size_t words, std::uint64_t* out) {
    for (std::size_t i = 0; i < words; ++i)
        out[i] = ~zero_bytes_64(bytes + i * 64);
}

} // namespace tilegen
