// TileTransform: the 8 ways to turn or flip a square tile (the dihedral group D4), and their Tiled
// flip bits. A transform is "mirror left-right (if mirrored), then rotate `quarter_turns` x 90
// degrees clockwise".
#pragma once

#include "core/map.hpp"

namespace tilegen {

struct TileTransform {
    int quarter_turns = 0; // 0..3, clockwise
    bool mirrored = false;

    static constexpr TileTransform rotation(int quarters) {
        return {((quarters % 4) + 4) % 4, false};
    }
    static constexpr TileTransform mirror() { return {0, true}; }

    // `after` applied to the result of *this.
    constexpr TileTransform then(TileTransform after) const {
        // mirror o rot(r) = rot(-r) o mirror
        int r = after.quarter_turns + (after.mirrored ? -quarter_turns : quarter_turns);
        return {((r % 4) + 4) % 4, mirrored != after.mirrored};
    }

    // Tiled's flip bits (diagonal first, then horizontal, then vertical) for this transform.
    constexpr Gid flip_bits() const {
        constexpr Gid table[2][4] = {
            {0, kFlipHorizontal | kFlipDiagonal, kFlipHorizontal | kFlipVertical,
             kFlipVertical | kFlipDiagonal},
            {kFlipHorizontal, kFlipHorizontal | kFlipVertical | kFlipDiagonal, kFlipVertical,
             kFlipDiagonal},
        };
        return table[mirrored ? 1 : 0][quarter_turns];
    }
    static constexpr TileTransform from_flip_bits(Gid bits) {
        for (int m = 0; m < 2; ++m)
            for (int r = 0; r < 4; ++r) {
                TileTransform t{r, m == 1};
                if (t.flip_bits() == (bits & kFlipMask)) return t;
            }
        return {};
    }
    constexpr bool operator==(const TileTransform&) const = default;
};

} // namespace tilegen
