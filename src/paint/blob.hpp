// Blob masks: which of a cell's 8 neighbours are of a lower terrain, reduced to the 47 "blob"
// cases. A diagonal neighbour only matters when both edge neighbours beside it are "same" (not
// lower): otherwise the rim of an edge already covers that corner. Pure functions, no state.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tilegen::paint {

// One bit per neighbour, in the naming order n, ne, e, se, s, sw, w, nw (bit 0 = n ... bit 7 = nw).
using BlobMask = std::uint8_t;

enum Neighbour : int { kN = 0, kNE = 1, kE = 2, kSE = 3, kS = 4, kSW = 5, kW = 6, kNW = 7 };

inline constexpr BlobMask bit(int neighbour) {
    return static_cast<BlobMask>(1u << neighbour);
}

// Offsets (dx, dy) of each neighbour, y down: n = (0,-1), ne = (1,-1), ...
inline constexpr std::array<std::array<int, 2>, 8> kNeighbourOffset = {
    {{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}}};

inline constexpr std::array<const char*, 8> kNeighbourName = {"n", "ne", "e", "se",
                                                              "s", "sw", "w", "nw"};

inline constexpr bool is_diagonal(int neighbour) {
    return (neighbour & 1) != 0;
}

// True when the diagonal neighbour d counts for a mask: both edge neighbours beside it are not
// lower.
inline constexpr bool diagonal_counts(BlobMask mask, int d) {
    return (mask & bit((d + 7) % 8)) == 0 && (mask & bit((d + 1) % 8)) == 0;
}

// Clears the diagonal bits that do not count. reduce_blob(reduce_blob(m)) == reduce_blob(m).
BlobMask reduce_blob(BlobMask mask);

// The 47 reduced masks, 0 (no lower neighbour) first, then in a stable readable order
// (by number of lower edges, then by bits).
const std::vector<BlobMask>& blob_cases();

// "n-e", "ne", "n-se", ...: the lower neighbours of a reduced mask in naming order, joined by '-';
// empty for 0.
std::string blob_suffix(BlobMask reduced);

// The transition tile of a pair for a reduced, non-zero mask: "UPPER-LOWER-suffix", e.g.
// "grass-sand-n-e".
inline std::string transition_name(const std::string& upper, const std::string& lower,
                                   BlobMask reduced) {
    return upper + "-" + lower + "-" + blob_suffix(reduced);
}

} // namespace tilegen::paint
