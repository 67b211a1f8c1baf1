// Anchor order: a seeded random order of a map's cells, walked one rank at a time.
// Input: a stream (a hash of the seed and the rule) and the number of cells n (1..2^32).
// Output: cell(rank) for rank in 0..domain()-1, domain() the least power of 4 that is at least n
// (so at most 4n): a permutation of 0..domain()-1, so every cell 0..n-1 comes exactly once; a
// rank whose cell is n or more names no cell (the walker skips it).
// How: a balanced Feistel network of four rounds over the rank's two halves of `half` bits each,
// each round's function hash_values(stream, round, half) (Luby and Rackoff: four rounds of good
// round functions give a pseudorandom permutation). Any prefix of the walk is computed alone, so
// the places' walk can stop as soon as its count is met and a scan can go on where it stopped.
// Pure, no state: the same order on every build.
#pragma once

#include <bit>
#include <cstdint>

#include "core/hash.hpp"

namespace tilegen {

class AnchorOrder {
  public:
    AnchorOrder(std::uint64_t stream, std::uint64_t n)
        : stream_(stream), half_((static_cast<int>(std::bit_width(n > 1 ? n - 1 : 0)) + 1) / 2),
          mask_((std::uint64_t{1} << half_) - 1) {}

    // The number of ranks: 4^half, at least n.
    std::uint64_t domain() const { return std::uint64_t{1} << (2 * half_); }

    // The cell at `rank` (rank < domain()); n or more: no cell.
    std::uint64_t cell(std::uint64_t rank) const {
        std::uint64_t left = rank >> half_, right = rank & mask_;
        for (std::uint64_t round = 0; round < kRounds; ++round) {
            const std::uint64_t next = left ^ (hash_values(stream_, round, right) & mask_);
            left = right;
            right = next;
        }
        return left << half_ | right;
    }

  private:
    static constexpr std::uint64_t kRounds = 4;
    std::uint64_t stream_;
    int half_;
    std::uint64_t mask_;
};

} // namespace tilegen
