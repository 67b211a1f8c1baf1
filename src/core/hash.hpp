// Position-hashed randomness: pure functions of their arguments, no state, identical on every
// build. Every random decision in tilegen is hash(seed, stream, position...) -> value.
#pragma once

#include <cstdint>
#include <string_view>

namespace tilegen {

// SplitMix64 finaliser: a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

constexpr std::uint64_t hash_combine(std::uint64_t h, std::uint64_t v) {
    return mix64(h ^ mix64(v));
}

template <class... Ts> constexpr std::uint64_t hash_values(std::uint64_t first, Ts... rest) {
    std::uint64_t h = mix64(first);
    ((h = hash_combine(h, static_cast<std::uint64_t>(rest))), ...);
    return h;
}

// Hash of two signed coordinates (negative positions allowed): one mixing round over the stream and
// the coordinates scaled by distinct odd constants, the hot path of every lattice noise. `stream`
// should itself be a hash (e.g. hash_values(seed, ...)), so that streams are unrelated.
constexpr std::uint64_t hash_position(std::uint64_t stream, std::int64_t x, std::int64_t y) {
    return mix64(stream ^ (static_cast<std::uint64_t>(x) * 0x9E3779B97F4A7C15ull) ^
                 (static_cast<std::uint64_t>(y) * 0xD1B54A32D192ED03ull));
}

// Uniform in [0, 1) from the top 24 bits: exactly representable as float and double.
constexpr float unit_float(std::uint64_t h) {
    return static_cast<float>(h >> 40) * (1.0f / 16777216.0f);
}
constexpr double unit_double(std::uint64_t h) {
    return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

// FNV-1a over bytes, then mixed: stable across builds, used for rule identities.
constexpr std::uint64_t hash_string(std::string_view s) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ull;
    }
    return mix64(h);
}

} // namespace tilegen
