// The painters' per-pixel randomness, shared by the tile painter and the sprite painter: a uniform
// value in [0, 1) that is a pure function of (key, stream, x, y). Keys are hashes of the
// description seed and a name (terrain, variant, sprite); streams separate the uses of one pixel.
// Negative coordinates are allowed (they wrap as two's complement, as hash_values casts them).
#pragma once

#include <cstdint>

#include "core/hash.hpp"

namespace tilegen::paint {

inline double hash_unit(std::uint64_t key, std::uint64_t stream, int x, int y) {
    return unit_double(hash_values(key, stream, x, y));
}

} // namespace tilegen::paint
