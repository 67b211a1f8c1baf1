#include "core/image.hpp"

#include <algorithm>
#include <cstring>

namespace tilegen {

Rgba blend_over(Rgba src, Rgba dst) {
    if (src.a == 255 || dst.a == 0) return src;
    if (src.a == 0) return dst;
    const int sa = src.a, da = dst.a * (255 - sa) / 255;
    const int oa = sa + da;
    auto mix = [&](int s, int d) {
        return static_cast<std::uint8_t>((s * sa + d * da + oa / 2) / oa);
    };
    return {mix(src.r, dst.r), mix(src.g, dst.g), mix(src.b, dst.b), static_cast<std::uint8_t>(oa)};
}

void Image::copy_from(const Image& src, int sx, int sy, int w, int h, int dx, int dy) {
    for (int row = 0; row < h; ++row) {
        int ys = sy + row, yd = dy + row;
        if (ys < 0 || ys >= src.height() || yd < 0 || yd >= height_) continue;
        int x0 = std::max({0, -sx, -dx});
        int x1 = std::min({w, src.width() - sx, width_ - dx});
        if (x1 <= x0) continue;
        std::memcpy(&pixels_[offset(dx + x0, yd)], &src.pixels_[src.offset(sx + x0, ys)],
                    static_cast<std::size_t>(x1 - x0) * 4);
    }
}

} // namespace tilegen
