// Image: 8-bit RGBA pixels, row-major, no dependency on any graphics library.
// Invariant: pixels.size() == width * height * 4.
#pragma once

#include <cstdint>
#include <vector>

namespace tilegen {

struct Rgba {
    std::uint8_t r = 0, g = 0, b = 0, a = 0;
    bool operator==(const Rgba&) const = default;
};

// `src` composited over `dst` (straight alpha, rounded): what tilegen's PNG and the viewer's CPU
// paths use.
Rgba blend_over(Rgba src, Rgba dst);

class Image {
  public:
    Image() = default;
    Image(int width, int height, Rgba fill = {})
        : width_(width), height_(height),
          pixels_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4) {
        for (std::size_t i = 0; i < pixels_.size(); i += 4) {
            pixels_[i] = fill.r;
            pixels_[i + 1] = fill.g;
            pixels_[i + 2] = fill.b;
            pixels_[i + 3] = fill.a;
        }
    }
    int width() const { return width_; }
    int height() const { return height_; }
    bool empty() const { return pixels_.empty(); }
    Rgba get(int x, int y) const {
        const std::uint8_t* p = &pixels_[offset(x, y)];
        return {p[0], p[1], p[2], p[3]};
    }
    void set(int x, int y, Rgba c) {
        std::uint8_t* p = &pixels_[offset(x, y)];
        p[0] = c.r;
        p[1] = c.g;
        p[2] = c.b;
        p[3] = c.a;
    }
    std::vector<std::uint8_t>& pixels() { return pixels_; }
    const std::vector<std::uint8_t>& pixels() const { return pixels_; }
    bool operator==(const Image&) const = default;

    // Copies the w*h block at (sx,sy) of src to (dx,dy); no blending. Parts outside either image
    // are skipped.
    void copy_from(const Image& src, int sx, int sy, int w, int h, int dx, int dy);

  private:
    std::size_t offset(int x, int y) const {
        return (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) +
                static_cast<std::size_t>(x)) *
               4;
    }
    int width_ = 0;
    int height_ = 0;
    std::vector<std::uint8_t> pixels_;
};

} // namespace tilegen
