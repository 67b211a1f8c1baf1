#include "core/image.hpp"

#include <algorithm>
#include <cstring>

namespace tilegen {

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
