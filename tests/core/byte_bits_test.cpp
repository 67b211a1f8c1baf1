#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "core/byte_bits.hpp"
#include "core/hash.hpp"

using namespace tilegen;

TEST_CASE("byte bits: zero_bytes_64 and pack_nonzero_bytes agree with testing each byte") {
    // Bytes of every kind a flag pass makes (0, 1, 0x80 and above: the sign bit SSE2 compares
    // could confuse), at every offset of four words.
    std::vector<std::uint8_t> bytes(256);
    for (std::uint64_t trial = 0; trial < 64; ++trial) {
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            const std::uint64_t h = hash_values(trial, i);
            bytes[i] = h % 3 == 0 ? 0 : static_cast<std::uint8_t>(h >> 8);
        }
        std::vector<std::uint64_t> words(4);
        pack_nonzero_bytes(bytes.data(), words.size(), words.data());
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            const bool zero = bytes[i] == 0;
            CHECK(((words[i / 64] >> (i % 64)) & 1u) == !zero);
            CHECK(((zero_bytes_64(bytes.data() + i / 64 * 64) >> (i % 64)) & 1u) == zero);
        }
    }
}
