#include "paint/sprites.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <vector>

#include "core/hash.hpp"
#include "paint/pixel_hash.hpp"

namespace tilegen::paint {

namespace {

constexpr double kPi = std::numbers::pi;

// 4x4 ordered-dither thresholds in (0, 1).
double bayer4(int x, int y) {
    static constexpr int kM[4][4] = {{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}};
    return (kM[y & 3][x & 3] + 0.5) / 16.0;
}

// A light level in [0, 1] -> a palette entry, dithered between the two nearest shades.
Rgba quantize(const std::vector<Rgba>& palette, double light, int x, int y) {
    const int n = static_cast<int>(palette.size());
    const double v = std::clamp(light, 0.0, 1.0) * (n - 1);
    int i = static_cast<int>(std::floor(v));
    if (v - i > bayer4(x, y)) ++i;
    return palette[static_cast<std::size_t>(std::clamp(i, 0, n - 1))];
}

// Light from the top-left, towards the viewer.
double lambert(double nx, double ny, double nz) {
    const double lx = -0.55, ly = -0.65, lz = 0.52;
    const double len = std::sqrt(lx * lx + ly * ly + lz * lz);
    return std::max(0.0, (nx * lx + ny * ly + nz * lz) / len);
}

// The sprite being built: per pixel the part that owns it (-1: empty) and its colour. Parts are
// painted back to front; a part's pixels bordering a later (nearer) part are darkened into a
// contour line.
class Canvas {
  public:
    Canvas(int w, int h) : w_(w), h_(h), part_(static_cast<std::size_t>(w * h), -1), img_(w, h) {}
    int width() const { return w_; }
    int height() const { return h_; }
    bool inside(int x, int y) const { return x >= 0 && y >= 0 && x < w_ && y < h_; }
    int part(int x, int y) const { return inside(x, y) ? part_[idx(x, y)] : -1; }
    void set(int x, int y, int part, Rgba c) {
        if (!inside(x, y)) return;
        part_[idx(x, y)] = part;
        c.a = 255;
        img_.set(x, y, c);
    }
    Rgba get(int x, int y) const { return img_.get(x, y); }
    Image& image() { return img_; }

    // Pixels of a part next to a nearer part (4-neighbours) get `line` (contours between clumps,
    // tiers).
    void contours(int part, Rgba line) {
        std::vector<std::pair<int, int>> marks;
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x) {
                if (part_[idx(x, y)] != part) continue;
                const int nb[4][2] = {{x + 1, y}, {x - 1, y}, {x, y + 1}, {x, y - 1}};
                for (const auto& q : nb) {
                    const int p = this->part(q[0], q[1]);
                    if (p > part && p < kNoContour) {
                        marks.emplace_back(x, y);
                        break;
                    }
                }
            }
        for (auto [x, y] : marks)
            img_.set(x, y, line);
    }

    // A 1-px outline around everything drawn (empty pixels with a drawn 4-neighbour).
    void outline(Rgba c) {
        std::vector<std::pair<int, int>> marks;
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x) {
                if (part_[idx(x, y)] >= 0) continue;
                if (part(x + 1, y) >= 0 || part(x - 1, y) >= 0 || part(x, y + 1) >= 0 ||
                    part(x, y - 1) >= 0)
                    marks.emplace_back(x, y);
            }
        for (auto [x, y] : marks)
            set(x, y, kOutlinePart, c);
    }

    // The contact shadow: an ellipse of opaque dark pixels on empty pixels, ordered-dithered to the
    // shadow's opacity (denser inside, sparser at the rim). Sprites keep alpha 0 or 255 only, so
    // every renderer (Tiled, SFML, tilegen's PNG) composes them to exactly the same pixels.
    void shadow(double cx, double cy, double rx, double ry, double opacity, Rgba tint, int x0,
                int x1, int y0, int y1) {
        for (int y = std::max(0, y0); y < std::min(h_, y1); ++y)
            for (int x = std::max(0, x0); x < std::min(w_, x1); ++x) {
                if (part_[idx(x, y)] >= 0) continue;
                const double dx = (x + 0.5 - cx) / rx, dy = (y + 0.5 - cy) / ry;
                const double r = dx * dx + dy * dy;
                if (r > 1.0) continue;
                const double a = std::clamp(r < 0.55 ? opacity : opacity * 0.5, 0.0, 1.0);
                if (bayer4(x, y) >= a) continue;
                Rgba c = tint;
                c.a = 255;
                img_.set(x, y, c);
            }
    }

    static constexpr int kOutlinePart = 1000;
    static constexpr int kNoContour =
        900; // parts from here on never cast contours (trunks, details)

  private:
    std::size_t idx(int x, int y) const { return static_cast<std::size_t>(y * w_ + x); }
    int w_, h_;
    std::vector<int> part_;
    Image img_;
};

struct Ctx {
    const Description& d;
    const Sprite& s;
    std::uint64_t key;
    int W, H;    // cell
    int fw, fh;  // footprint in px
    double cx;   // footprint centre x
    double base; // y of the footprint's bottom edge (= H)
    double unit(std::uint64_t stream, std::uint64_t i) const {
        return unit_double(hash_values(key, stream, i));
    }
    double jitter(std::uint64_t stream, std::uint64_t i, double amount) const {
        return (unit(stream, i) * 2.0 - 1.0) * amount;
    }
};

struct Clump {
    double x, y, r;
};

// A crown (or bush) of round clumps: each pixel belongs to the nearest-in-front clump that covers
// it, shaded as a sphere blended with the whole crown's sphere; contours separate the clumps.
void paint_clumps(Canvas& c, const Ctx& ctx, std::vector<Clump> clumps, double crown_x,
                  double crown_y, double crown_rx, double crown_ry, int first_part, bool berries) {
    // Back to front: higher clumps (smaller y) first.
    std::stable_sort(clumps.begin(), clumps.end(),
                     [](const Clump& a, const Clump& b) { return a.y < b.y; });
    const auto& pal = ctx.s.palette;
    for (std::size_t i = 0; i < clumps.size(); ++i) {
        const Clump& k = clumps[i];
        const int part = first_part + static_cast<int>(i);
        for (int y = static_cast<int>(std::floor(k.y - k.r));
             y <= static_cast<int>(std::ceil(k.y + k.r)); ++y)
            for (int x = static_cast<int>(std::floor(k.x - k.r));
                 x <= static_cast<int>(std::ceil(k.x + k.r)); ++x) {
                const double px = x + 0.5, py = y + 0.5;
                const double nx = (px - k.x) / k.r, ny = (py - k.y) / k.r;
                const double rr = nx * nx + ny * ny;
                // A slightly bumpy clump edge: leaves.
                const double bump = 0.12 * std::sin(5.0 * std::atan2(ny, nx) + k.x);
                if (rr > (1.0 + bump) * (1.0 + bump)) continue;
                const double nz = std::sqrt(std::max(0.0, 1.0 - std::min(rr, 1.0)));
                const double gx = (px - crown_x) / crown_rx, gy = (py - crown_y) / crown_ry;
                const double gz = std::sqrt(std::max(0.0, 1.0 - std::min(1.0, gx * gx + gy * gy)));
                double light = 0.55 * lambert(nx, ny, nz) + 0.5 * lambert(gx, gy, gz) + 0.1;
                light += 0.10 * (hash_unit(ctx.key, 77, x, y) - 0.5);
                c.set(x, y, part, quantize(pal, light, x, y));
            }
    }
    for (std::size_t i = 0; i < clumps.size(); ++i)
        c.contours(first_part + static_cast<int>(i), pal.front());
    // Lit leaf marks on the upper-left of clumps.
    for (std::size_t i = 0; i < clumps.size(); ++i) {
        const Clump& k = clumps[i];
        const int lx = static_cast<int>(std::floor(k.x - 0.35 * k.r)),
                  ly = static_cast<int>(std::floor(k.y - 0.4 * k.r));
        if (c.part(lx, ly) == first_part + static_cast<int>(i)) {
            c.set(lx, ly, first_part + static_cast<int>(i), pal.back());
            if (c.part(lx + 1, ly) == first_part + static_cast<int>(i))
                c.set(lx + 1, ly, first_part + static_cast<int>(i), pal[pal.size() - 2]);
        }
    }
    if (berries && !ctx.s.accents.empty()) {
        int placed = 0;
        for (std::uint64_t i = 0; i < 40 && placed < 5; ++i) {
            const double a = ctx.unit(31, i) * 2 * kPi, r = std::sqrt(ctx.unit(32, i)) * 0.8;
            const int x = static_cast<int>(std::floor(crown_x + std::cos(a) * r * crown_rx));
            const int y = static_cast<int>(std::floor(crown_y + std::sin(a) * r * crown_ry));
            const int p = c.part(x, y);
            if (p < first_part || p >= first_part + static_cast<int>(clumps.size())) continue;
            if (c.part(x + 1, y) != p || c.part(x, y + 1) != p) continue;
            const Rgba berry =
                ctx.s.accents[static_cast<std::size_t>(placed) % ctx.s.accents.size()];
            c.set(x, y, p, berry);
            c.set(x, y + 1, p, pal.front());
            ++placed;
        }
    }
}

// A trunk: a vertical cylinder from y_top to y_bottom, flaring into roots at the foot.
void paint_trunk(Canvas& c, const Ctx& ctx, double x_mid, double half_top, double half_bottom,
                 int y_top, int y_bottom, int part) {
    const auto& pal = ctx.s.trunk;
    for (int y = y_top; y < y_bottom; ++y) {
        const double t = (y - y_top) / std::max(1.0, static_cast<double>(y_bottom - y_top - 1));
        double half = half_top + (half_bottom - half_top) * t * t;
        if (y >= y_bottom - 3) half += (y - (y_bottom - 4)) * 0.9; // roots
        for (int x = static_cast<int>(std::floor(x_mid - half));
             x < static_cast<int>(std::ceil(x_mid + half)); ++x) {
            const double nx = (x + 0.5 - x_mid) / std::max(half, 0.5);
            double light = 0.62 - 0.55 * nx;
            // Bark: dark vertical streaks.
            if (std::abs(nx) < 0.8 && hash_unit(ctx.key, 41, x, y / 3) < 0.22) light -= 0.3;
            c.set(x, y, part, quantize(pal, light, x, y));
        }
    }
}

void paint_oak(Canvas& c, const Ctx& ctx) {
    const double sz = ctx.s.size;
    const double crown_rx = std::min(ctx.fw / 2.0 - 1.5, 15.0 * sz);
    const double crown_ry = crown_rx * 0.86;
    const double crown_y = ctx.base - ctx.fh * 0.55 - crown_ry * 0.55;
    const double crown_x = ctx.cx;
    const int trunk_bottom = static_cast<int>(ctx.base - ctx.fh * 0.12);
    paint_trunk(c, ctx, ctx.cx, 2.6 * sz, 3.0 * sz, static_cast<int>(crown_y), trunk_bottom,
                Canvas::kNoContour);
    std::vector<Clump> clumps;
    const double r = crown_rx * 0.42;
    const int ring = 7;
    for (int i = 0; i < ring; ++i) {
        const double a =
            2 * kPi * (i + 0.5 + ctx.jitter(1, static_cast<std::uint64_t>(i), 0.15)) / ring;
        clumps.push_back({crown_x + std::cos(a) * (crown_rx - r) * 0.98,
                          crown_y + std::sin(a) * (crown_ry - r) * 0.98 + 1.0,
                          r * (0.92 + ctx.jitter(2, static_cast<std::uint64_t>(i), 0.1))});
    }
    clumps.push_back({crown_x - r * 0.45, crown_y - r * 0.35, r * 1.05});
    clumps.push_back({crown_x + r * 0.5, crown_y + r * 0.15, r});
    clumps.push_back({crown_x - r * 0.2, crown_y + r * 0.75, r * 0.95});
    paint_clumps(c, ctx, clumps, crown_x, crown_y, crown_rx, crown_ry, 0, !ctx.s.accents.empty());
}

void paint_bush(Canvas& c, const Ctx& ctx) {
    const double sz = ctx.s.size;
    const double rx = std::min(ctx.fw / 2.0 - 2.0, 7.0 * sz), ry = rx * 0.78;
    const double cx = ctx.cx, cy = ctx.base - ry - 2.5;
    std::vector<Clump> clumps;
    const double r = rx * 0.52;
    for (int i = 0; i < 5; ++i) {
        const double a = kPi + kPi * i / 4.0 + ctx.jitter(3, static_cast<std::uint64_t>(i), 0.2);
        clumps.push_back({cx + std::cos(a) * (rx - r), cy + std::sin(a) * (ry - r) * 0.9 + 0.8, r});
    }
    clumps.push_back({cx - r * 0.5, cy + ry - r * 0.9, r * 0.95});
    clumps.push_back({cx + r * 0.6, cy + ry - r * 0.9, r * 0.95});
    paint_clumps(c, ctx, clumps, cx, cy, rx, ry, 0, true);
}

void paint_pine(Canvas& c, const Ctx& ctx) {
    const double sz = ctx.s.size;
    const auto& pal = ctx.s.palette;
    const int trunk_bottom = static_cast<int>(ctx.base - ctx.fh * 0.12);
    const double half_w = std::min(ctx.fw / 2.0 - 1.5, 14.0 * sz);
    const double bottom = trunk_bottom - 5;
    const double top = std::max(2.0, bottom - (ctx.H - ctx.fh * 0.12 - 8) * sz);
    paint_trunk(c, ctx, ctx.cx, 2.0, 2.6, static_cast<int>(bottom) - 4, trunk_bottom,
                Canvas::kNoContour);
    const int tiers = 4;
    const double span = bottom - top;
    // Tiers bottom (widest) first, each upper tier drawn over the one below.
    for (int t = 0; t < tiers; ++t) {
        const double tb = bottom - span * 0.24 * t;                                     // tier base
        const double tt = top + (t == tiers - 1 ? 0.0 : span * 0.14 * (tiers - 1 - t)); // tier apex
        const double w = half_w * (1.0 - 0.2 * t);
        const int part = 10 + t;
        for (int y = static_cast<int>(std::floor(tt)); y <= static_cast<int>(std::ceil(tb)); ++y)
            for (int x = static_cast<int>(std::floor(ctx.cx - w - 1));
                 x <= static_cast<int>(std::ceil(ctx.cx + w + 1)); ++x) {
                const double px = x + 0.5, py = y + 0.5;
                const double f = (py - tt) / (tb - tt); // 0 at the apex, 1 at the base
                if (f < 0) continue;
                // A concave flank, and a jagged base: teeth every 4 px.
                const double half = w * std::pow(std::min(f, 1.0), 0.85);
                const double dx = std::abs(px - ctx.cx);
                if (dx > half) continue;
                const double tooth = std::abs(std::fmod(px - ctx.cx + 64.0, 4.0) - 2.0); // 0..2
                if (py > tb - tooth * 1.5 + 1.0 * (dx / std::max(w, 1.0))) continue;
                const double nx = (px - ctx.cx) / std::max(half, 1.0);
                double light = 0.66 - 0.42 * nx - 0.45 * f * f + 0.1;
                if (nx < -0.75 && f > 0.25) light += 0.15; // the lit left flank
                // Needles: short diagonal dark strokes.
                if (hash_unit(ctx.key, 51, x, y) < 0.18) light -= 0.25;
                c.set(x, y, part, quantize(pal, light, x, y));
            }
    }
    for (int t = 0; t < tiers; ++t)
        c.contours(10 + t, pal.front());
}

// A faceted boulder: the ellipse's normal snapped to a few facets, a flat base, a crack.
void paint_boulder(Canvas& c, const Ctx& ctx, double cx, double cy, double rx, double ry, int part,
                   bool crack) {
    const auto& pal = ctx.s.palette;
    const double rot = ctx.jitter(6, static_cast<std::uint64_t>(part), 0.4);
    for (int y = static_cast<int>(std::floor(cy - ry - 1));
         y <= static_cast<int>(std::ceil(cy + ry)); ++y)
        for (int x = static_cast<int>(std::floor(cx - rx - 1));
             x <= static_cast<int>(std::ceil(cx + rx)); ++x) {
            const double px = x + 0.5, py = y + 0.5;
            const double nx = (px - cx) / rx, ny = (py - cy) / ry;
            // Flattened bottom, a lumpy outline.
            const double a = std::atan2(ny, nx);
            const double lump =
                1.0 + 0.08 * std::sin(3 * a + rot * 5) + 0.05 * std::sin(5 * a + 1.0);
            const double rr =
                nx * nx + (ny > 0.35 ? 0.35 * 0.35 + (ny - 0.35) * (ny - 0.35) * 2.2 : ny * ny);
            if (rr > lump * lump) continue;
            // Facets: the normal's direction in 7 sectors, the height in 3 bands.
            const double sector = std::round((a + rot) / (2 * kPi / 7)) * (2 * kPi / 7) - rot;
            const double ring = std::min(1.0, std::sqrt(rr));
            const double band = ring < 0.45 ? 0.0 : ring < 0.8 ? 0.6 : 0.92;
            const double fnx = std::cos(sector) * band, fny = std::sin(sector) * band;
            const double fnz = std::sqrt(std::max(0.0, 1.0 - band * band));
            double light = 0.2 + 0.95 * lambert(fnx, fny * 0.9 - 0.1, fnz);
            if (ny > 0.55) light -= 0.15;
            c.set(x, y, part, quantize(pal, light, x, y));
        }
    if (crack) {
        int x = static_cast<int>(std::floor(cx + rx * 0.15)),
            y = static_cast<int>(std::floor(cy - ry * 0.7));
        for (int i = 0; i < static_cast<int>(ry * 1.1); ++i) {
            if (c.part(x, y) == part) c.set(x, y, part, pal.front());
            if (c.part(x + 1, y) == part && i % 2 == 0) c.set(x + 1, y, part, pal[pal.size() - 2]);
            ++y;
            if (ctx.unit(61, static_cast<std::uint64_t>(i)) < 0.45) --x;
        }
    }
}

void paint_rock(Canvas& c, const Ctx& ctx) {
    const double sz = ctx.s.size;
    double rx = std::min(ctx.fw / 2.0 - 2.5, 6.8 * sz * ctx.fw / 16.0);
    if (ctx.fw <= 16) {
        const double ry = rx * 0.8;
        paint_boulder(c, ctx, ctx.cx - 0.5, ctx.base - ry - 2.5, rx, ry, 0, true);
        return;
    }
    // A big boulder with a small one leaning on it.
    rx *= 0.76;
    const double ry = rx * 0.8;
    paint_boulder(c, ctx, ctx.cx - rx * 0.22, ctx.base - ry - 2.5, rx, ry, 0, true);
    paint_boulder(c, ctx, ctx.cx + rx * 0.78, ctx.base - ry * 0.4 - 2.5, rx * 0.4, ry * 0.4, 1,
                  false);
}

void paint_stalagmite(Canvas& c, const Ctx& ctx) {
    const auto& pal = ctx.s.palette;
    const double sz = ctx.s.size;
    auto cone = [&](double cx, double base, double half, double height, int part) {
        const double tip = base - height;
        for (int y = static_cast<int>(std::floor(tip)); y < static_cast<int>(std::ceil(base)); ++y)
            for (int x = static_cast<int>(std::floor(cx - half - 1));
                 x <= static_cast<int>(std::ceil(cx + half)); ++x) {
                const double px = x + 0.5, py = y + 0.5;
                const double f = (py - tip) / height; // 0 at the tip
                if (f < 0 || f > 1) continue;
                // Drips: the flank bulges in rings.
                const double w = half * std::pow(f, 0.8) * (1.0 + 0.08 * std::sin(py * 1.3));
                const double dx = px - cx;
                if (std::abs(dx) > std::max(w, 0.5)) continue;
                const double nx = dx / std::max(w, 0.8);
                double light = 0.64 - 0.5 * nx - 0.18 * f;
                if (static_cast<int>(std::floor(py)) % 4 == 0) light -= 0.16; // bands
                c.set(x, y, part, quantize(pal, light, x, y));
            }
    };
    const double base = ctx.base - 2.5;
    cone(ctx.cx - 1.0, base, 4.2 * sz, std::min(ctx.H - 4.0, 24.0 * sz), 0);
    cone(ctx.cx + 3.2, base + 0.5, 2.4 * sz, 10.0 * sz, 1);
    c.contours(0, pal.front());
}

void paint_crystal(Canvas& c, const Ctx& ctx) {
    const auto& pal = ctx.s.palette;
    const double sz = ctx.s.size;
    // A prism: an axis from the foot leaning by `lean`, a half width, a pointed tip; its left face
    // lit, its right face dark, a bright ridge between them.
    auto prism = [&](double fx, double fy, double lean, double len, double half, int part) {
        const double ax = std::sin(lean), ay = -std::cos(lean);
        for (int y = static_cast<int>(std::floor(fy - len - 2));
             y <= static_cast<int>(std::ceil(fy + 1)); ++y)
            for (int x = static_cast<int>(std::floor(fx - len));
                 x <= static_cast<int>(std::ceil(fx + len)); ++x) {
                const double px = x + 0.5 - fx, py = y + 0.5 - fy;
                const double along = px * ax + py * ay;   // 0 at the foot, len at the tip
                const double across = px * -ay + py * ax; // signed distance from the axis
                if (along < -0.5 || along > len) continue;
                const double tip_start = len - half * 1.6;
                const double w =
                    along > tip_start ? half * (len - along) / (len - tip_start) : half;
                if (std::abs(across) > w) continue;
                double light;
                if (std::abs(across) < 0.6)
                    light = 0.95;
                else if (across < 0)
                    light = 0.7;
                else
                    light = 0.3;
                if (along > tip_start && across < 0) light += 0.15;
                c.set(x, y, part, quantize(pal, light, x, y));
            }
    };
    const double foot = ctx.base - 3.0;
    prism(ctx.cx - 2.5, foot, -0.35, 9.0 * sz, 1.8, 0);
    prism(ctx.cx + 2.5, foot + 0.5, 0.35, 7.5 * sz, 1.6, 1);
    prism(ctx.cx - 0.5, foot, 0.08, 18.0 * sz, 2.4, 2);
    prism(ctx.cx + 1.5, foot + 1.5, 0.2, 6.0 * sz, 1.5, 3);
    for (int p = 0; p < 4; ++p)
        c.contours(p, pal.front());
    // Glints.
    if (!ctx.s.accents.empty()) {
        int placed = 0;
        for (std::uint64_t i = 0; i < 60 && placed < 3; ++i) {
            const int x = static_cast<int>(ctx.unit(71, i) * ctx.fw),
                      y = static_cast<int>(ctx.base - 4 - ctx.unit(72, i) * 18);
            if (c.part(x, y) < 0 || c.part(x, y) >= 4) continue;
            if (!(c.get(x, y) == pal.back()) && !(c.get(x, y) == pal[pal.size() - 2])) continue;
            c.set(x, y, c.part(x, y),
                  ctx.s.accents[static_cast<std::size_t>(placed) % ctx.s.accents.size()]);
            ++placed;
        }
    }
}

// The shade of a palette: 0 = darkest .. size-1 = lightest, clamped.
Rgba shade_of(const std::vector<Rgba>& pal, int i) {
    return pal[static_cast<std::size_t>(std::clamp(i, 0, static_cast<int>(pal.size()) - 1))];
}

// A house seen in 3/4 view: a front wall `w` px wide and `wall` px tall standing on row `base`
// (exclusive), a door, windows where there is room, under a hipped roof `roof` px tall that
// overhangs the wall by a pixel on each side and narrows towards its ridge.
void paint_house(Canvas& c, const Ctx& ctx, int x0, int base, int w, int wall, int roof, int part) {
    const auto& rf = ctx.s.palette;
    const auto& wl = ctx.s.trunk;
    const Rgba dark = ctx.s.accents.empty() ? Rgba{40, 28, 24, 255} : ctx.s.accents[0];
    const Rgba glass = ctx.s.accents.size() < 2 ? Rgba{250, 226, 140, 255} : ctx.s.accents[1];
    const int top = base - wall; // first wall row
    const int lw = static_cast<int>(wl.size()) - 1;
    for (int y = top; y < base; ++y)
        for (int x = x0; x < x0 + w; ++x) {
            int s = lw - 1;
            if (y == base - 1)
                s = 0; // the sill
            else if (y == top)
                s = lw - 2; // the roof's shadow
            else if (x == x0 || x == x0 + w - 1)
                s = lw - 2; // corner posts
            c.set(x, y, part, shade_of(wl, s));
        }
    // The door, in the middle, and a window on each side where there is room.
    const int door_w = w >= 12 ? 4 : 3, door_h = std::min(wall - 2, 6);
    const int dx = x0 + (w - door_w) / 2;
    for (int y = base - door_h; y < base; ++y)
        for (int x = dx; x < dx + door_w; ++x)
            c.set(x, y, part, y == base - door_h || x == dx ? shade_of(wl, 0) : dark);
    if (w >= 12 && wall >= 6)
        for (const int wx : {x0 + 2, x0 + w - 5}) {
            if (wx + 3 > dx && wx < dx + door_w) continue;
            const int wy = top + 2;
            for (int y = wy; y < wy + 3; ++y)
                for (int x = wx; x < wx + 3; ++x)
                    c.set(x, y, part, (x == wx + 1 || y == wy + 1) ? shade_of(wl, 0) : glass);
        }
    // The roof: rows from the ridge down to the eaves, one pixel wider each side per row at the
    // top, shingle courses every 2 rows, lit from the left, a dark eave line.
    const int lr = static_cast<int>(rf.size()) - 1;
    for (int r = 0; r < roof; ++r) {
        const int y = top - roof + r;
        const int inset = std::max(0, (roof - 1 - r) * 2 / 3 - 1);
        const int a = x0 - 1 + inset, b = x0 + w + 1 - inset; // [a, b)
        for (int x = a; x < b; ++x) {
            int s = lr - 1;
            if (r == 0)
                s = lr; // the ridge
            else if (r == roof - 1)
                s = 0; // the eave
            else if ((r % 2) == 0)
                s = lr - 2; // shingle course
            if (x == a && r > 0 && r < roof - 1) s = std::min(lr, s + 1);
            if (x == b - 1 && r > 0 && r < roof - 1) s = std::max(0, s - 2);
            if (r > 0 && r < roof - 1 && (r % 2) == 1 &&
                hash_unit(ctx.key, 71, static_cast<std::uint64_t>(x + 64 * part),
                          static_cast<std::uint64_t>(y)) < 0.12)
                s = std::max(0, s - 1);
            c.set(x, y, part, shade_of(rf, s));
        }
    }
    // A chimney on the right half of bigger roofs.
    if (w >= 12 && roof >= 7) {
        const int cx = x0 + w - 5;
        for (int y = top - roof - 2; y < top - roof + 3; ++y)
            for (int x = cx; x < cx + 3; ++x)
                c.set(x, y, part + 1,
                      shade_of(wl, x == cx ? lw - 1 : (y == top - roof - 2 ? lw : 1)));
    }
}

void paint_town(Canvas& c, const Ctx& ctx) {
    const int W = ctx.fw, B = static_cast<int>(ctx.base);
    // Two houses behind, one in front (painted back to front: parts rise towards the viewer).
    paint_house(c, ctx, 2, B - 15, W / 2 - 2, 7, 8, 10);
    paint_house(c, ctx, W / 2 + 1, B - 17, W / 2 - 3, 7, 8, 20);
    paint_house(c, ctx, W / 4 - 1, B - 1, W / 2 + 2, 8, 9, 30);
    for (int part : {10, 20, 30})
        c.contours(part, ctx.s.outline);
}

void paint_village(Canvas& c, const Ctx& ctx) {
    const int W = ctx.fw, B = static_cast<int>(ctx.base);
    paint_house(c, ctx, W - 13, B - 3, 10, 6, 7, 10); // a hut behind, to the right
    paint_house(c, ctx, 2, B - 1, std::min(17, W - 5), 8, 9, 20);
    c.contours(10, ctx.s.outline);
}

// A crag of rock (boulders of the palette) with a dark arched mouth at its foot.
void paint_cave(Canvas& c, const Ctx& ctx) {
    const double W = ctx.fw, B = ctx.base - 2; // a row for the outline below
    paint_boulder(c, ctx, W * 0.32, B - 15, W * 0.27, 12, 0, true);
    paint_boulder(c, ctx, W * 0.7, B - 13, W * 0.25, 11, 1, false);
    paint_boulder(c, ctx, W * 0.5, B - 8, W * 0.42, 8, 2, false);
    c.contours(0, ctx.s.outline);
    c.contours(1, ctx.s.outline);
    // The mouth: an arch 12 px wide, 10 px tall, black inside, lit stones around it.
    const double mx = W * 0.5, half = std::min(6.0, W * 0.2), height = 10.0;
    const Rgba black{12, 10, 14, 255};
    const Rgba deep{30, 26, 32, 255};
    for (int y = static_cast<int>(B - height - 2); y < static_cast<int>(B); ++y)
        for (int x = static_cast<int>(mx - half - 2); x <= static_cast<int>(mx + half + 2); ++x) {
            const double px = x + 0.5 - mx, py = y + 0.5 - (B - height + half);
            const bool in_arch = py >= 0 ? std::abs(px) <= half : px * px + py * py <= half * half;
            const double ring = py >= 0 ? std::abs(px) - half : std::sqrt(px * px + py * py) - half;
            if (in_arch)
                c.set(x, y, 950, (y > B - 4 || std::abs(px) > half - 2) ? deep : black);
            else if (ring <= 1.6 && c.part(x, y) >= 0)
                c.set(x, y, 951, shade_of(ctx.s.palette, px < 0 ? 3 : 1));
        }
}

// A canvas tent on two poles with a pennant: a triangle, lit on the left, a dark opening.
void paint_tent(Canvas& c, const Ctx& ctx) {
    const auto& pal = ctx.s.palette;
    const auto& wood = ctx.s.trunk;
    const double W = ctx.fw, B = ctx.base;
    const double apex_y = B - 17, mid = W / 2.0 - 0.5;
    for (int y = static_cast<int>(apex_y); y < static_cast<int>(B) - 1; ++y) {
        const double t = (y - apex_y) / (B - 1 - apex_y);
        const double half = 0.5 + t * (W / 2.0 - 2.5);
        for (int x = 0; x < static_cast<int>(W); ++x) {
            const double dx = x + 0.5 - (mid + 0.5);
            if (std::abs(dx) > half) continue;
            int s = dx < 0 ? 3 : 1;
            if (std::abs(dx) < 0.8) s = 2; // the ridge seam
            if (y == static_cast<int>(B) - 2) s = 0;
            // The opening: a dark triangle at the foot, right of the seam.
            if (dx >= 0 && dx < t * 3.5 && t > 0.45) s = -1;
            c.set(x, y, 0, s < 0 ? Rgba{34, 24, 20, 255} : shade_of(pal, s));
        }
    }
    // The pole above the apex and a pennant.
    const int px = static_cast<int>(mid);
    for (int y = static_cast<int>(apex_y) - 5; y < static_cast<int>(apex_y); ++y)
        c.set(px, y, 960, shade_of(wood, 1));
    const Rgba flag = ctx.s.accents.empty() ? Rgba{216, 48, 48, 255} : ctx.s.accents[0];
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k <= (3 - i) / 2; ++k)
            c.set(px + 1 + i, static_cast<int>(apex_y) - 5 + k + (i > 1 ? 1 : 0) - (i > 1 ? 1 : 0),
                  961, flag);
}

} // namespace

Image paint_sprite(const Description& d, const Sprite& s) {
    const Objects o = d.objects.value_or(Objects{});
    Canvas c(o.sprite_width, o.sprite_height);
    const Ctx ctx{d,
                  s,
                  hash_values(d.seed, hash_string("sprite"), hash_string(s.name)),
                  o.sprite_width,
                  o.sprite_height,
                  s.footprint_w * d.tile_size,
                  s.footprint_h * d.tile_size,
                  s.footprint_w * d.tile_size / 2.0,
                  static_cast<double>(o.sprite_height)};
    // A dispatch, one painter per shape: the cases share their shape, not logic (deliberate).
    switch (s.shape) {
    case Shape::oak:
        paint_oak(c, ctx);
        break;
    case Shape::pine:
        paint_pine(c, ctx);
        break;
    case Shape::rock:
        paint_rock(c, ctx);
        break;
    case Shape::bush:
        paint_bush(c, ctx);
        break;
    case Shape::stalagmite:
        paint_stalagmite(c, ctx);
        break;
    case Shape::crystal:
        paint_crystal(c, ctx);
        break;
    case Shape::town:
        paint_town(c, ctx);
        break;
    case Shape::village:
        paint_village(c, ctx);
        break;
    case Shape::cave:
        paint_cave(c, ctx);
        break;
    case Shape::tent:
        paint_tent(c, ctx);
        break;
    }
    c.outline(s.outline);
    // Keep everything inside the footprint's columns; the shadow inside the footprint.
    Image& img = c.image();
    for (int y = 0; y < c.height(); ++y)
        for (int x = ctx.fw; x < c.width(); ++x)
            img.set(x, y, Rgba{0, 0, 0, 0});
    const double ry = std::max(2.5, std::min(ctx.fh * 0.22, 5.0));
    const double rx = ctx.fw * 0.45;
    Rgba tint = s.outline;
    c.shadow(ctx.cx, ctx.base - ry * 0.8 - 0.5, rx, ry, s.shadow, tint, 0, ctx.fw,
             o.sprite_height - ctx.fh, o.sprite_height);
    return img;
}

Image paint_objects(const Description& d) {
    const Objects o = d.objects.value_or(Objects{});
    const int count = static_cast<int>(d.sprites.size());
    const int columns = std::max(1, std::min(o.columns, count));
    const int rows = std::max(1, (count + columns - 1) / columns);
    Image sheet(columns * o.sprite_width, rows * o.sprite_height, Rgba{0, 0, 0, 0});
    for (int i = 0; i < count; ++i) {
        const Image cell = paint_sprite(d, d.sprites[static_cast<std::size_t>(i)]);
        sheet.copy_from(cell, 0, 0, o.sprite_width, o.sprite_height, (i % columns) * o.sprite_width,
                        (i / columns) * o.sprite_height);
    }
    return sheet;
}

} // namespace tilegen::paint
