#include "paint/painter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <tuple>

#include "core/hash.hpp"
#include "paint/pixel_hash.hpp"

namespace tilegen::paint {

namespace {

constexpr Rgba kTransparent{0, 0, 0, 0};

int wrap(int v, int n) {
    int m = v % n;
    return m < 0 ? m + n : m;
}

// Streams of the position hashes, so that different uses of the same pixel are independent.
enum Stream : std::uint64_t {
    kNoiseCoarse = 1,
    kNoiseFine = 2,
    kPixel = 3,
    kMarks = 4,
    kMarkShape = 5,
    kDecoration = 6,
    kWobble = 7,
    kLayout = 8,
    kFace = 9,
};

// A terrain's shades relative to its base shade (the middle of the palette): shade(0) is the base,
// shade(-1) darker, shade(+1) lighter, clamped to the palette.
struct Ramp {
    const std::vector<Rgba>& palette;
    int base() const { return (static_cast<int>(palette.size()) - 1) / 2; }
    Rgba shade(int k) const {
        int i = std::clamp(base() + k, 0, static_cast<int>(palette.size()) - 1);
        return palette[static_cast<std::size_t>(i)];
    }
    Rgba darkest() const { return palette.front(); }
};

// Everything a terrain's pixels hash on: the description seed and the terrain's name (not its
// index, so adding a terrain does not change the others).
std::uint64_t terrain_key(const Description& d, const Terrain& t) {
    return hash_values(d.seed, hash_string(t.name));
}

// Value noise in [0,1) whose lattice (spacing `cell` px) wraps every `period` px: seamless over the
// tile.
double periodic_noise(std::uint64_t key, std::uint64_t stream, double x, double y, int cell,
                      int period) {
    const int n = std::max(1, period / cell);
    const double fx = x / cell, fy = y / cell;
    const int ix = static_cast<int>(std::floor(fx)), iy = static_cast<int>(std::floor(fy));
    auto smooth = [](double t) { return t * t * (3.0 - 2.0 * t); };
    const double tx = smooth(fx - ix), ty = smooth(fy - iy);
    auto at = [&](int i, int j) { return hash_unit(key, stream, wrap(i, n), wrap(j, n)); };
    const double top = at(ix, iy) + (at(ix + 1, iy) - at(ix, iy)) * tx;
    const double bottom = at(ix, iy + 1) + (at(ix + 1, iy + 1) - at(ix, iy + 1)) * tx;
    return top + (bottom - top) * ty;
}

// Shade offsets per pixel, drawn with wrap-around so marks crossing the border continue on the
// other side.
class ShadeCanvas {
  public:
    explicit ShadeCanvas(int size)
        : size_(size), shades_(static_cast<std::size_t>(size * size), 0) {}
    int size() const { return size_; }
    int& at(int x, int y) {
        return shades_[static_cast<std::size_t>(wrap(y, size_) * size_ + wrap(x, size_))];
    }
    int get(int x, int y) const {
        return shades_[static_cast<std::size_t>(wrap(y, size_) * size_ + wrap(x, size_))];
    }

  private:
    int size_;
    std::vector<int> shades_;
};

// A 2x2 ordered-dither threshold per pixel, so patch borders become checkerboards instead of hard
// lines.
double dither2(int x, int y) {
    static constexpr double kBayer[2][2] = {{0.0, 0.5}, {0.75, 0.25}};
    return kBayer[y & 1][x & 1];
}

// Patches: +1 where the noise is high, -1 where it is low, dithered over `soft` of noise range at
// the edges. The noise mixes a coarse (cell px) and a fine (cell / 2 px) octave.
void paint_patches(ShadeCanvas& c, std::uint64_t key, int cell, double light_above,
                   double dark_below, double soft) {
    const int n = c.size();
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double px = x + 0.5, py = y + 0.5;
            const double v =
                0.65 * periodic_noise(key, kNoiseCoarse, px, py, cell, n) +
                0.35 * periodic_noise(key, kNoiseFine, px, py, std::max(1, cell / 2), n);
            const double t = dither2(x, y) * soft;
            if (v > light_above + t)
                c.at(x, y) = 1;
            else if (v < dark_below - t)
                c.at(x, y) = -1;
        }
}

// Marks on a jittered grid of cells (cell_w x cell_h px); each cell gets a mark with probability
// `density`. `draw(x, y, shape)` draws one mark at its top-left pixel, shape being a hash in [0,1).
template <class Draw>
void scatter_marks(int size, std::uint64_t key, int cell_w, int cell_h, double density, Draw draw) {
    for (int cy = 0; cy < size / cell_h; ++cy)
        for (int cx = 0; cx < size / cell_w; ++cx) {
            if (hash_unit(key, kMarks, cx, cy) >= density) continue;
            const std::uint64_t h = hash_values(key, kMarkShape, static_cast<std::uint64_t>(cx),
                                                static_cast<std::uint64_t>(cy));
            const int jx = static_cast<int>((h >> 8) % static_cast<std::uint64_t>(cell_w));
            const int jy = static_cast<int>((h >> 24) % static_cast<std::uint64_t>(cell_h));
            draw(cx * cell_w + jx, cy * cell_h + jy, unit_double(h));
        }
}

// Mottling: a checkerboard of a lighter (or darker) shade where the noise is high (or low), never
// solid.
void paint_mottle(ShadeCanvas& c, std::uint64_t key, int cell, double light_above,
                  double dark_below) {
    const int n = c.size();
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            if (((x + y) & 1) != 0) continue;
            const double v = periodic_noise(key, kNoiseCoarse, x + 0.5, y + 0.5, cell, n);
            if (v > light_above)
                c.at(x, y) = 1;
            else if (v < dark_below)
                c.at(x, y) = -1;
        }
}

void texture_blades(ShadeCanvas& c, std::uint64_t key, double density) {
    paint_mottle(c, key, 8, 0.66, 0.22);
    // Sparse light dabs (a lit leaf: one or two light pixels)...
    scatter_marks(c.size(), hash_values(key, 1), 4, 4, 0.5 * density,
                  [&](int x, int y, double shape) {
                      c.at(x, y) = 1;
                      if (shape < 0.4) c.at(x + 1, y) = 1;
                      if (shape > 0.8) c.at(x, y) = 2;
                  });
    // ...and little dark "v" blades, sometimes with a light pixel between the arms.
    scatter_marks(c.size(), key, 4, 4, density, [&](int x, int y, double shape) {
        c.at(x, y) = -1;
        c.at(x + 2, y) = -1;
        c.at(x + 1, y + 1) = -1;
        if (shape < 0.5) c.at(x + 1, y) = 1;
    });
}

void texture_grain(ShadeCanvas& c, std::uint64_t key, double density) {
    paint_patches(c, key, 4, 0.72, 0.22, 0.06);
    // Grains: a dark pixel with a light one above it, some two pixels wide.
    scatter_marks(c.size(), key, 4, 4, density, [&](int x, int y, double shape) {
        c.at(x, y + 1) = -1;
        c.at(x, y) = 1;
        if (shape < 0.35) c.at(x + 1, y + 1) = -1;
    });
    // Sparse single specks, dark and light.
    for (int y = 0; y < c.size(); ++y)
        for (int x = 0; x < c.size(); ++x) {
            const double h = hash_unit(key, kPixel, x, y);
            if (c.get(x, y) != 0) continue;
            if (h < 0.05 * density)
                c.at(x, y) = -1;
            else if (h > 1.0 - 0.05 * density)
                c.at(x, y) = 1;
        }
}

void texture_waves(ShadeCanvas& c, std::uint64_t key, double density) {
    // Wave crests: a light dash with a brighter middle and a dark trough under its ends.
    scatter_marks(c.size(), key, 8, 4, density, [&](int x, int y, double shape) {
        const int len = shape < 0.5 ? 3 : 4;
        for (int i = 0; i < len; ++i)
            c.at(x + i, y) = 1;
        c.at(x + 1, y) = 2;
        if (len == 4) c.at(x + 2, y) = 2;
        c.at(x - 1, y + 1) = -1;
        c.at(x + len, y + 1) = -1;
    });
}

// Stone flags: irregular flagstones (a Voronoi diagram of a jittered grid of points on the torus)
// split by dark joints, each stone lit along its top-left rim and shaded along its bottom-right
// rim, with a shade of its own.
void texture_flags(ShadeCanvas& c, std::uint64_t key, double density, const Ramp& ramp) {
    const int n = c.size();
    const int joint = -ramp.base() - 4; // clamps to the darkest shade
    const int g = std::max(2, n / 6);
    const int count = g * g;
    const double cell = static_cast<double>(n) / g;
    std::vector<std::array<double, 2>> pts;
    std::vector<double> tone;
    for (int i = 0; i < count; ++i) {
        const double jx = hash_unit(key, kLayout, i, 0);
        const double jy = hash_unit(key, kLayout, i, 1);
        pts.push_back({(i % g + 0.2 + 0.6 * jx) * cell, (i / g + 0.2 + 0.6 * jy) * cell});
        tone.push_back(hash_unit(key, kLayout, i, 2));
    }
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double px = x + 0.5, py = y + 0.5;
            double d1 = 1e9, d2 = 1e9, vx = 0, vy = 0;
            int i1 = -1;
            for (int i = 0; i < count; ++i) {
                double best = 1e9, bx = 0, by = 0;
                for (int oy = -1; oy <= 1; ++oy)
                    for (int ox = -1; ox <= 1; ++ox) {
                        const double dx = px - (pts[static_cast<std::size_t>(i)][0] + ox * n);
                        const double dy = py - (pts[static_cast<std::size_t>(i)][1] + oy * n);
                        const double dd = std::sqrt(dx * dx + dy * dy);
                        if (dd < best) {
                            best = dd;
                            bx = dx;
                            by = dy;
                        }
                    }
                if (best < d1) {
                    d2 = d1;
                    d1 = best;
                    i1 = i;
                    vx = bx;
                    vy = by;
                } else if (best < d2) {
                    d2 = best;
                }
            }
            const double t = tone[static_cast<std::size_t>(i1)];
            const int base = t < 0.3 ? -1 : 0;
            int s = base;
            if (t > 0.7 && ((x + y) & 1) == 0) s = base + 1;
            const double gap = d2 - d1;
            if (gap < 1.0)
                s = joint;
            else if (gap < 2.0) {
                if (vx + vy < -0.8)
                    s = base + 1; // the rim facing the light
                else if (vx + vy > 0.8)
                    s = base - 1; // the rim facing away
            } else if (hash_unit(key, kPixel, x, y) < 0.06 * density)
                s = base - 1;
            c.at(x, y) = s;
        }
}

// A pit: the darkest shade with faint dithered patches of the next one and rare specks.
void texture_void(ShadeCanvas& c, std::uint64_t key, double density, const Ramp& ramp) {
    const int n = c.size();
    const int darkest = -ramp.base();
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double v = periodic_noise(key, kNoiseCoarse, x + 0.5, y + 0.5, 8, n);
            int s = darkest;
            if (v > 0.62 + 0.25 * dither2(x, y) && ((x + y) & 1) == 0) s = darkest + 1;
            if (hash_unit(key, kPixel, x, y) < 0.015 * density) s = darkest + 2;
            c.at(x, y) = s;
        }
}

// Rock tops: broad dithered patches, small stones (a lit top-left, a dark underside) and specks,
// and the odd short crack with a lit lip.
void texture_rocky(ShadeCanvas& c, std::uint64_t key, double density) {
    const int n = c.size();
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double v = 0.6 * periodic_noise(key, kNoiseCoarse, x + 0.5, y + 0.5, 8, n) +
                             0.4 * periodic_noise(key, kNoiseFine, x + 0.5, y + 0.5, 4, n);
            const bool checker = ((x + y) & 1) == 0;
            if (v > 0.66 && (checker || v > 0.74)) c.at(x, y) = 1;
            if (v < 0.34 && (checker || v < 0.26)) c.at(x, y) = -1;
        }
    // Stones.
    scatter_marks(n, key, 8, 8, density, [&](int x, int y, double shape) {
        c.at(x, y) = 1;
        c.at(x + 1, y) = shape < 0.5 ? 2 : 1;
        c.at(x, y + 1) = 0;
        c.at(x + 1, y + 1) = -1;
        c.at(x + 2, y + 1) = -2;
        c.at(x, y + 2) = -2;
        c.at(x + 1, y + 2) = -2;
        if (shape > 0.6) {
            c.at(x + 2, y) = 1;
            c.at(x + 3, y + 1) = -2;
            c.at(x + 2, y + 2) = -2;
        }
    });
    // Cracks: a few dark pixels stepping diagonally, a lit pixel under each.
    scatter_marks(n, hash_values(key, 9), 16, 16, 0.8 * density, [&](int x, int y, double shape) {
        const int dir = shape < 0.5 ? 1 : -1;
        for (int i = 0; i < 4; ++i) {
            const int cx = x + (i + 1) / 2 * dir, cy = y + i;
            c.at(cx, cy) = -2;
            if (c.get(cx, cy + 1) >= -1) c.at(cx, cy + 1) = 1;
        }
    });
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            if (c.get(x, y) != 0) continue;
            const double h = hash_unit(key, kPixel, x, y);
            if (h < 0.05 * density) c.at(x, y) = -1;
            if (h > 1.0 - 0.04 * density) c.at(x, y) = 1;
        }
}

// Forest floor: dark mottled ground with small clusters of lit leaves and dark gaps between them.
void texture_leafy(ShadeCanvas& c, std::uint64_t key, double density) {
    paint_mottle(c, key, 8, 0.62, 0.30);
    scatter_marks(c.size(), hash_values(key, 2), 4, 4, 0.5 * density, [&](int x, int y, double) {
        c.at(x, y) = -2;
        c.at(x + 1, y) = -1;
    });
    scatter_marks(c.size(), key, 4, 4, density, [&](int x, int y, double shape) {
        c.at(x, y) = 1;
        c.at(x + 1, y) = shape < 0.5 ? 2 : 1;
        c.at(x - 1, y + 1) = -1;
        c.at(x, y + 1) = 0;
        c.at(x + 1, y + 1) = -1;
        if (shape > 0.7) c.at(x + 2, y - 1) = 1;
    });
}

// Value noise in [0,1) on an anisotropic lattice (cell_x by cell_y px), wrapping every `period`
// px on both axes (cell_x and cell_y divide it): streaks stretched along one axis, still seamless.
double stretched_noise(std::uint64_t key, std::uint64_t stream, double x, double y, int cell_x,
                       int cell_y, int period) {
    const int nx = std::max(1, period / cell_x), ny = std::max(1, period / cell_y);
    const double fx = x / cell_x, fy = y / cell_y;
    const int ix = static_cast<int>(std::floor(fx)), iy = static_cast<int>(std::floor(fy));
    auto smooth = [](double t) { return t * t * (3.0 - 2.0 * t); };
    const double tx = smooth(fx - ix), ty = smooth(fy - iy);
    auto at = [&](int i, int j) { return hash_unit(key, stream, wrap(i, nx), wrap(j, ny)); };
    const double top = at(ix, iy) + (at(ix + 1, iy) - at(ix, iy)) * tx;
    const double bottom = at(ix, iy + 1) + (at(ix + 1, iy + 1) - at(ix, iy + 1)) * tx;
    return top + (bottom - top) * ty;
}

// River water: broad dithered currents (lighter and darker), many thin light streaks with a
// bright head and no dark trough, and a few glints.
void texture_flow(ShadeCanvas& c, std::uint64_t key, double density) {
    paint_patches(c, key, 8, 0.66, 0.24, 0.08);
    scatter_marks(c.size(), key, 8, 3, density, [&](int x, int y, double shape) {
        const int len = shape < 0.4 ? 3 : (shape < 0.8 ? 4 : 5);
        for (int i = 0; i < len; ++i)
            c.at(x + i, y) = std::max(c.get(x + i, y), 0) + 1;
        c.at(x + len - 1, y) = 2;
    });
    for (int y = 0; y < c.size(); ++y)
        for (int x = 0; x < c.size(); ++x)
            if (hash_unit(key, kPixel, x, y) < 0.012 * density) c.at(x, y) = 2;
}

// A waterfall: columns of water falling straight down; the streaks come from a noise stretched
// along y (a lattice cell 2 px wide and a whole tile tall, plus a finer octave), so foam and light
// run in long vertical strokes with darker water between them. Seamless on both axes.
void texture_falls(ShadeCanvas& c, std::uint64_t key, double density) {
    const int n = c.size();
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double v = 0.7 * stretched_noise(key, kNoiseCoarse, x + 0.5, y + 0.5, 2, n, n) +
                             0.3 * stretched_noise(key, kNoiseFine, x + 0.5, y + 0.5, 1, n / 2, n);
            const double t = 0.04 * dither2(x, y);
            int s = 0;
            if (v > 0.74 - 0.2 * density + t)
                s = 2;
            else if (v > 0.52 + t)
                s = 1;
            else if (v < 0.2 - t)
                s = -2;
            else if (v < 0.36 - t)
                s = -1;
            c.at(x, y) = s;
        }
}

// Makes a canvas invariant under quarter turns about the tile centre: every pixel takes the shade
// of the pixel of its orbit in the top-left quadrant.
void symmetrize(ShadeCanvas& c) {
    const int n = c.size();
    ShadeCanvas out(n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            int px = x, py = y;
            for (int r = 0; r < 4 && !(px < n / 2 && py < n / 2); ++r) {
                const int nx = n - 1 - py, ny = px; // a quarter turn clockwise
                px = nx;
                py = ny;
            }
            out.at(x, y) = c.get(px, py);
        }
    c = out;
}

// Pattern decorations: '.' leaves the pixel, 'a'..'d' are the variant's colours, 'o' the terrain's
// darkest shade, 'D'/'M'/'L' its darker/base/lighter shades.
struct Pattern {
    std::vector<const char*> rows;
    int width() const { return static_cast<int>(std::char_traits<char>::length(rows.front())); }
    int height() const { return static_cast<int>(rows.size()); }
};

const std::vector<Pattern>& patterns_for(Decoration d) {
    static const std::vector<Pattern> flowers = {
        {{".a.", "aba", ".aD"}},
        {{".c.", "cbc", ".cD"}},
    };
    static const std::vector<Pattern> tuft = {
        {{"b..b..b", "cb.b.bc", ".cbcbc.", "..ccc..", ".aaaaa."}},
    };
    static const std::vector<Pattern> pebbles = {
        {{".cb.", "cbba", ".aa."}},
        {{"cb", "ba"}},
    };
    static const std::vector<Pattern> sparkle = {
        {{"..b..", "..a..", "baaab", "..a..", "..b.."}},
        {{".b.", "bab", ".b."}},
    };
    static const std::vector<Pattern> cracks = {
        {{"a.....", "ba....", ".baa..", "..bbaa", "....bb"}},
        {{"aa.", "bba", "..b"}},
        {{".a", "ab", "a.", "b."}},
    };
    static const std::vector<Pattern> leaves = {
        {{".c..", "cbb.", ".ba.", "..a."}},
        {{"cb", "ba"}},
        {{".c.", "bcb", ".a."}},
    };
    static const std::vector<Pattern> mushrooms = {
        {{".aa.", "abaa", "aaba", ".cc.", ".DD."}},
        {{".a.", "aba", ".c.", ".D."}},
    };
    static const std::vector<Pattern> ripples = {
        {{"..aaa..", ".a...a.", "b.....b", ".b...b.", "..bbb.."}},
        {{".aa.", "a..a", ".bb."}},
    };
    static const std::vector<Pattern> lilypad = {
        {{"..aaa..", ".abcca.", "abbbbca", "abb.bba", ".ab.ba.", "..a.a.."}},
        {{".aa.", "abca", "ab.a", ".a.."}},
        {{".d.", "dcd", ".d."}},
    };
    static const std::vector<Pattern> crests = {
        {{".aaba.", "c....c"}},
        {{".aba", "c..c"}},
        {{".aaaba.", "c.....c"}},
    };
    static const std::vector<Pattern> none;
    // A lookup, one case per decoration: the cases share their shape, not logic (deliberate).
    switch (d) {
    case Decoration::crests:
        return crests;
    case Decoration::cracks:
        return cracks;
    case Decoration::leaves:
        return leaves;
    case Decoration::mushrooms:
        return mushrooms;
    case Decoration::ripples:
        return ripples;
    case Decoration::lilypad:
        return lilypad;
    case Decoration::flowers:
        return flowers;
    case Decoration::tuft:
        return tuft;
    case Decoration::pebbles:
        return pebbles;
    case Decoration::sparkle:
        return sparkle;
    case Decoration::none:
    case Decoration::reseed:
        break;
    }
    return none;
}

// Pastes a pattern at (x, y); ' ' and '.' are transparent.
void draw_pattern(Image& img, const Pattern& p, int x, int y, const std::vector<Rgba>& colors,
                  const Ramp& ramp) {
    for (int r = 0; r < p.height(); ++r)
        for (int c = 0; c < p.width(); ++c) {
            const char ch = p.rows[static_cast<std::size_t>(r)][c];
            Rgba col;
            if (ch >= 'a' && ch <= 'd') {
                if (colors.empty()) continue;
                col = colors[std::min(static_cast<std::size_t>(ch - 'a'), colors.size() - 1)];
            } else if (ch == 'o')
                col = ramp.darkest();
            else if (ch == 'D')
                col = ramp.shade(-1);
            else if (ch == 'M')
                col = ramp.shade(0);
            else if (ch == 'L')
                col = ramp.shade(1);
            else
                continue;
            img.set(x + c, y + r, col);
        }
}

struct Box {
    int x0, y0, x1, y1; // inclusive
    bool overlaps(const Box& o, int gap) const {
        return x0 - gap <= o.x1 && o.x0 - gap <= x1 && y0 - gap <= o.y1 && o.y0 - gap <= y1;
    }
};

// A wave of period 1 (in units of the wobble period), |wave| <= 1. The symmetric wave is even
// (cosines only).
double wave(double t, double phase2) {
    constexpr double kTau = 2.0 * std::numbers::pi;
    return 0.75 * std::sin(kTau * t) + 0.25 * std::sin(2.0 * kTau * t + phase2);
}
double even_wave(double t) {
    constexpr double kTau = 2.0 * std::numbers::pi;
    return 0.75 * std::cos(kTau * t) + 0.25 * std::cos(2.0 * kTau * t);
}

// The geometry of one rim tile. Each side k (n, e, s, w) of the cell has its own rim depth profile
// R_k(t) = depth + wobble * u_k(t), t the position along that side (x for n and s, y for e and w),
// u_k periodic with the wobble period and u_k(0) = 0: all four profiles equal `depth` at the tile
// corners, so the round notch of an inner corner (radius `depth`) meets the rims of both
// neighbouring cells exactly.
struct RimGeometry {
    double size, depth, wobble, period, radius;
    std::array<double, 4> shift; // per side: where along the wave the profile starts (periods)
    double phase2;               // phase of the second harmonic
    bool symmetric;              // every side the same even profile
    BlobMask mask;

    double u(int side, double t) const {
        if (symmetric) return 0.5 * (even_wave(t / period) - even_wave(0.0));
        const double s = shift[static_cast<std::size_t>(side)];
        return 0.5 * (wave(t / period + s, phase2) - wave(s, phase2));
    }
    double R(int side, double t) const { return depth + wobble * u(side, t); }

    // Signed distance of a rounded intersection of two half-planes whose signed distances are a and
    // b.
    static double rounded(double a, double b, double r) {
        const double qx = r - a, qy = r - b;
        const double outside = std::hypot(std::max(qx, 0.0), std::max(qy, 0.0));
        const double inside = std::min(std::max(qx, qy), 0.0);
        return r - outside - inside;
    }

    double field(double x, double y) const {
        // Per side: the distance to that edge (positive inside the cell) minus the rim depth there.
        const double edge[4] = {y - R(0, x), (size - x) - R(1, y), (size - y) - R(2, x),
                                x - R(3, y)};
        double h = std::numeric_limits<double>::infinity();
        for (int k = 0; k < 4; ++k) {
            if (!(mask & bit(2 * k))) continue;
            h = std::min(h, edge[k]);
            const int next = (k + 1) % 4; // n-e, e-s, s-w, w-n: an outer corner, rounded
            if (mask & bit(2 * next)) h = std::min(h, rounded(edge[k], edge[next], radius));
        }
        for (int dgl = 1; dgl < 8; dgl += 2) {
            if (!(mask & bit(dgl)) || !diagonal_counts(mask, dgl)) continue;
            const double cx = kNeighbourOffset[static_cast<std::size_t>(dgl)][0] > 0 ? size : 0.0;
            const double cy = kNeighbourOffset[static_cast<std::size_t>(dgl)][1] > 0 ? size : 0.0;
            h = std::min(h, std::hypot(x - cx, y - cy) - depth); // inner corner: a round notch
        }
        return h;
    }
};

// The profiles are hashed from the upper terrain alone: every pair of one upper terrain has the
// same rims.
RimGeometry geometry(const Description& d, const Pair& pair, BlobMask reduced) {
    const auto& up = d.terrains[static_cast<std::size_t>(pair.upper)];
    const std::uint64_t key = hash_values(d.seed, kWobble, hash_string(up.name));
    RimGeometry g{static_cast<double>(d.tile_size),
                  pair.rim_depth,
                  pair.wobble,
                  static_cast<double>(pair.wobble_period),
                  pair.corner_radius,
                  {},
                  2.0 * std::numbers::pi * unit_double(hash_values(key, 4)),
                  d.symmetric,
                  reduced};
    for (std::uint64_t k = 0; k < 4; ++k)
        g.shift[k] = unit_double(hash_values(key, k));
    return g;
}

struct PixelClass {
    Material material = Material::upper;
    int line = 0; // index into the pair's lines for *_line; the face row (1 = at the foot) for face
    bool outline = false; // a face pixel on the outline (within the upper lines of the boundary)
};

PixelClass classify(const Pair& pair, const RimGeometry& g, int x, int y) {
    const double px = x + 0.5, py = y + 0.5;
    const double h = g.field(px, py);
    const bool checker = ((x + y) & 1) != 0;
    if (h >= 0) { // (h is +infinity when no neighbour is lower)
        const double lines = static_cast<double>(pair.upper_lines.size());
        if (h < lines) return {Material::upper_line, static_cast<int>(std::floor(h))};
        if (lines == 0 && h < pair.blend && checker) return {Material::lower, 0};
        return {Material::upper, 0};
    }
    const int n = static_cast<int>(pair.lower_lines.size());
    if (n == 0) {
        if (-h < pair.blend && !checker) return {Material::upper, 0};
        return {Material::lower, 0};
    }
    // Where the upper terrain lies to the north (h grows towards -y), the lower lines widen: a cast
    // shadow.
    constexpr double eps = 0.01;
    const double gx = (g.field(px + eps, py) - g.field(px - eps, py)) / (2 * eps);
    const double gy = (g.field(px, py + eps) - g.field(px, py - eps)) / (2 * eps);
    const double len = std::hypot(gx, gy);
    const double north = len > 1e-9 ? std::max(0.0, -gy / len) : 0.0;
    const double scale = (n + pair.shadow * north) / n;
    const double depth = -h / scale;
    if (depth < n) return {Material::lower_line, static_cast<int>(std::floor(depth))};
    return {Material::lower, 0};
}

// Every pixel of a rim tile painted directly (no turning), faces included.
Grid<PixelClass> classify_tile(const Description& d, const Pair& pair, BlobMask reduced) {
    const RimGeometry g = geometry(d, pair, reduced);
    const int n = d.tile_size;
    Grid<PixelClass> out(n, n, PixelClass{});
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            out(x, y) = classify(pair, g, x, y);
    if (pair.face == Face::none || pair.face_depth <= 0) return out;
    // Rim pixels: inside the tile by the field; below it (the top rows of the cell to the south,
    // which is of the upper terrain when the scan gets there) its east or west strip when that
    // diagonal is lower.
    auto rim_at = [&](int x, int y) {
        const double cx = x + 0.5;
        if (y < n) return g.field(cx, y + 0.5) < 0;
        return ((reduced & bit(kSE)) && cx > n - pair.rim_depth) ||
               ((reduced & bit(kSW)) && cx < pair.rim_depth);
    };
    const double lines = static_cast<double>(pair.upper_lines.size());
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double h = g.field(x + 0.5, y + 0.5);
            // (A face pixel within 1 px of the boundary beside it is drawn in the outline colour.)
            if (h < 0) continue;
            for (int k = 1; k <= pair.face_depth; ++k)
                if (rim_at(x, y + k)) {
                    out(x, y) = {Material::face, k, h < std::min(lines, 1.0)};
                    break;
                }
        }
    return out;
}

// The colour of a face pixel at column x (tile-periodic), row k (1 = the foot) of a face `depth`
// rows tall.
Rgba face_color(const Description& d, const Pair& pair, int x, int k) {
    const Ramp ramp{pair.face_palette};
    const int n = d.tile_size, depth = pair.face_depth;
    const std::uint64_t key = hash_values(
        d.seed, kFace, hash_string(d.terrains[static_cast<std::size_t>(pair.upper)].name));
    const int row_from_top = depth - k; // 0 = the lip
    if (pair.face == Face::bricks) {
        const int course = row_from_top / 4, r = row_from_top % 4;
        const int offset = (course % 2) * 4;
        const int bx = wrap(x + offset, n);
        if (k == 1) return ramp.darkest();
        if (r == 3 || bx % 8 == 7) return ramp.shade(-2);
        const int brick = bx / 8;
        const double v = unit_double(hash_values(key, static_cast<std::uint64_t>(course),
                                                 static_cast<std::uint64_t>(brick)));
        int shade = v < 0.35 ? -1 : 0;
        // Deeper rows fade into the dark (a face falling into a pit reads as depth).
        if (depth > 6 && k <= depth / 3 && ((wrap(x, n) + k) & 1) == 0) shade -= 1;
        if (r == 0) return ramp.shade(shade + 1);
        if (bx % 8 == 0) return ramp.shade(shade + 1);
        return ramp.shade(shade);
    }
    // Cliff: ridges of rock 2..5 px wide (tile-periodic), each lit on its left column and shaded on
    // its right, split by dark cracks that stop short of the lit lip; lighter at the top, darker
    // towards the foot.
    if (k == 1) return ramp.darkest();
    std::vector<int> ridge_of(static_cast<std::size_t>(n));
    std::vector<int> starts;
    for (int at = 0, i = 0; at < n; ++i) {
        int w = 3 + static_cast<int>(hash_values(key, kLayout, static_cast<std::uint64_t>(i)) % 4);
        if (n - (at + w) < 3) w = n - at;
        starts.push_back(at);
        for (int j = 0; j < w; ++j)
            ridge_of[static_cast<std::size_t>(at + j)] = i;
        at += w;
    }
    const int xi = wrap(x, n);
    const int r = ridge_of[static_cast<std::size_t>(xi)];
    const int start = starts[static_cast<std::size_t>(r)];
    const int end =
        r + 1 < static_cast<int>(starts.size()) ? starts[static_cast<std::size_t>(r) + 1] : n;
    const bool checker = ((xi + k) & 1) == 0;
    // Each crack runs from the foot up to a height of its own.
    const int crack_top = depth - 1 - static_cast<int>(hash_values(key, kLayout, 99, r) % 3);
    if (k == depth) return xi == start && depth > 3 ? ramp.shade(0) : ramp.shade(1);
    const double height =
        static_cast<double>(k - 1) / std::max(1, depth - 1); // 0 at the foot, 1 at the lip
    if (xi == start && k < crack_top) return ramp.shade(height < 0.5 ? -2 : -1);
    int shade = 0;
    if (xi == start + 1 || (xi == start && k >= crack_top))
        shade = 1;
    else if (xi == end - 1 && end - start > 2)
        shade = -1;
    if (height > 0.7 && checker) shade += 1;
    if (height < 0.3 && checker) shade -= 1;
    if (hash_unit(key, kPixel, xi, k + 100) < 0.08) shade -= 1;
    return ramp.shade(shade);
}

// The mask's smallest quarter turn (the one painted), and the fewest quarter turns that bring it to
// the mask.
std::pair<BlobMask, int> canonical_turn(BlobMask m) {
    BlobMask best = m, cur = m;
    for (int q = 1; q < 4; ++q) {
        cur = turn_mask(cur);
        best = std::min(best, cur);
    }
    int turns = 0;
    for (BlobMask t = best; t != m; t = turn_mask(t))
        ++turns;
    return {best, turns};
}

template <class T> Grid<T> turn_grid(const Grid<T>& g) {
    const int n = g.width();
    Grid<T> out(n, n, T{});
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            out(x, y) = g(y, n - 1 - x);
    return out;
}

Image paint_direct(const Description& d, const Pair& pair, BlobMask reduced) {
    const Grid<PixelClass> classes = classify_tile(d, pair, reduced);
    const Image upper = paint_base(d, pair.upper);
    const Image lower = paint_base(d, pair.lower);
    Image img(d.tile_size, d.tile_size);
    for (int y = 0; y < d.tile_size; ++y)
        for (int x = 0; x < d.tile_size; ++x) {
            const PixelClass pc = classes(x, y);
            switch (pc.material) {
            case Material::upper:
                img.set(x, y, upper.get(x, y));
                break;
            case Material::upper_line:
                img.set(x, y, pair.upper_lines[static_cast<std::size_t>(pc.line)]);
                break;
            case Material::lower:
                img.set(x, y, lower.get(x, y));
                break;
            case Material::lower_line:
                img.set(x, y, pair.lower_lines[static_cast<std::size_t>(pc.line)]);
                break;
            case Material::face:
                img.set(x, y,
                        pc.outline && pc.line > 1 ? pair.upper_lines.front()
                                                  : face_color(d, pair, x, pc.line));
                break;
            }
        }
    return img;
}

} // namespace

BlobMask turn_mask(BlobMask m) {
    return static_cast<BlobMask>(((m << 2) | (m >> 6)) & 0xFF);
}

Image turn_image(const Image& img) {
    const int n = img.width();
    Image out(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            out.set(x, y, img.get(y, n - 1 - x));
    return out;
}

int PaintedTileset::tile_count() const {
    return static_cast<int>(
        std::count_if(names.begin(), names.end(), [](const std::string& s) { return !s.empty(); }));
}

namespace {

// A terrain's texture hashed from `key` (the terrain's own key for its base tile).
Image paint_texture(const Description& d, const Terrain& t, std::uint64_t key) {
    const int n = d.tile_size;
    const Ramp ramp{t.palette};
    ShadeCanvas c(n);
    switch (t.style) {
    case Style::blades:
        texture_blades(c, key, t.density);
        break;
    case Style::grain:
        texture_grain(c, key, t.density);
        break;
    case Style::waves:
        texture_waves(c, key, t.density);
        break;
    case Style::flags:
        texture_flags(c, key, t.density, ramp);
        break;
    case Style::void_:
        texture_void(c, key, t.density, ramp);
        break;
    case Style::rocky:
        texture_rocky(c, key, t.density);
        break;
    case Style::leafy:
        texture_leafy(c, key, t.density);
        break;
    case Style::flow:
        texture_flow(c, key, t.density);
        break;
    case Style::falls:
        texture_falls(c, key, t.density);
        break;
    }
    if (d.symmetric) symmetrize(c);
    Image img(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            img.set(x, y, ramp.shade(c.get(x, y)));
    return img;
}

} // namespace

Image paint_base(const Description& d, int terrain) {
    const Terrain& t = d.terrains[static_cast<std::size_t>(terrain)];
    return paint_texture(d, t, terrain_key(d, t));
}

Image paint_variant(const Description& d, int terrain, int variant) {
    const Terrain& t = d.terrains[static_cast<std::size_t>(terrain)];
    const Variant& v = t.variants[static_cast<std::size_t>(variant)];
    Image img = paint_base(d, terrain);
    const int n = d.tile_size;
    constexpr int kMargin =
        2; // decorations stay this far from the border: borders equal the base tile
    const std::uint64_t key = hash_values(terrain_key(d, t), kDecoration, hash_string(v.name));
    if (v.decoration == Decoration::reseed) {
        // The same texture from another seed inside the border, the first ring inside it a
        // checkerboard of both.
        const Image other = paint_texture(d, t, key);
        for (int y = kMargin; y < n - kMargin; ++y)
            for (int x = kMargin; x < n - kMargin; ++x) {
                const bool ring =
                    x == kMargin || y == kMargin || x == n - 1 - kMargin || y == n - 1 - kMargin;
                if (!ring || ((x + y) & 1) == 0) img.set(x, y, other.get(x, y));
            }
        return img;
    }
    const auto& patterns = patterns_for(v.decoration);
    if (patterns.empty()) return img;
    Ramp ramp{t.palette};
    std::vector<Box> placed;
    for (int i = 0, attempt = 0; i < v.count && attempt < 64; ++attempt) {
        const std::uint64_t h = hash_values(key, static_cast<std::uint64_t>(attempt));
        // The first decoration uses the first (largest) pattern; the others pick one.
        const std::size_t which =
            i == 0 ? 0 : static_cast<std::size_t>((h >> 48) % patterns.size());
        const Pattern& p = patterns[which];
        const int room_x = n - 2 * kMargin - p.width() + 1,
                  room_y = n - 2 * kMargin - p.height() + 1;
        if (room_x <= 0 || room_y <= 0) continue;
        const int x = kMargin + static_cast<int>((h >> 8) % static_cast<std::uint64_t>(room_x));
        const int y = kMargin + static_cast<int>((h >> 28) % static_cast<std::uint64_t>(room_y));
        const Box box{x, y, x + p.width() - 1, y + p.height() - 1};
        if (std::any_of(placed.begin(), placed.end(),
                        [&](const Box& b) { return b.overlaps(box, 1); }))
            continue;
        placed.push_back(box);
        draw_pattern(img, p, x, y, v.colors, ramp);
        ++i;
    }
    return img;
}

Image paint_error(const Description& d) {
    const int n = d.tile_size;
    Image img(n, n, d.error.color);
    for (int i = 0; i < n; ++i) {
        img.set(i, 0, d.error.mark);
        img.set(i, n - 1, d.error.mark);
        img.set(0, i, d.error.mark);
        img.set(n - 1, i, d.error.mark);
        img.set(i, i, d.error.mark);
        img.set(n - 1 - i, i, d.error.mark);
        if (i + 1 < n) {
            img.set(i + 1, i, d.error.mark);
            img.set(n - 2 - i, i, d.error.mark);
        }
    }
    return img;
}

double rim_field(const Description& d, const Pair& pair, BlobMask reduced, double x, double y) {
    return geometry(d, pair, reduced).field(x, y);
}

Grid<Material> rim_materials(const Description& d, const Pair& pair, BlobMask reduced) {
    BlobMask painted = reduced;
    int turns = 0;
    if (d.symmetric) std::tie(painted, turns) = canonical_turn(reduced);
    const Grid<PixelClass> classes = classify_tile(d, pair, painted);
    Grid<Material> out(d.tile_size, d.tile_size, Material::upper);
    for (int y = 0; y < d.tile_size; ++y)
        for (int x = 0; x < d.tile_size; ++x)
            out(x, y) = classes(x, y).material;
    for (int q = 0; q < turns; ++q)
        out = turn_grid(out);
    return out;
}

double corner_field(int size, int quadrants, double x, double y) {
    const double n = size, half = n / 2;
    // Corners of the tile (the centres of the four cells): top-left, top-right, bottom-left,
    // bottom-right = bits 3, 2, 1, 0.
    const double cx[4] = {0, n, 0, n}, cy[4] = {0, 0, n, n};
    auto upper = [&](int k) { return ((quadrants >> (3 - k)) & 1) != 0; };
    int count = 0;
    for (int k = 0; k < 4; ++k)
        count += upper(k) ? 1 : 0;
    if (count == 0) return -std::numeric_limits<double>::infinity();
    if (count == 4) return std::numeric_limits<double>::infinity();
    // Signed distance to the 45-degree line cutting corner k's triangle off (positive inside it).
    auto triangle = [&](int k) {
        return (half - (std::abs(x - cx[k]) + std::abs(y - cy[k]))) / std::numbers::sqrt2;
    };
    if (count == 1) {
        for (int k = 0; k < 4; ++k)
            if (upper(k)) return triangle(k);
    }
    if (count == 3) {
        for (int k = 0; k < 4; ++k)
            if (!upper(k)) return -triangle(k);
    }
    // Two upper corners: a side (a straight line through the middle), or a diagonal (two
    // triangles).
    if (upper(0) && upper(1)) return half - y;
    if (upper(2) && upper(3)) return y - half;
    if (upper(0) && upper(2)) return half - x;
    if (upper(1) && upper(3)) return x - half;
    return upper(0) ? std::max(triangle(0), triangle(3)) : std::max(triangle(1), triangle(2));
}

Image paint_corner(const Description& d, const Pair& pair, int quadrants) {
    const Image upper = paint_base(d, pair.upper);
    const Image lower = paint_base(d, pair.lower);
    const bool transparent_lower = pair.set == RimSet::corner_layer;
    const int n = d.tile_size;
    Image img(n, n, kTransparent);
    const double upper_lines = static_cast<double>(pair.upper_lines.size()),
                 lower_lines = static_cast<double>(pair.lower_lines.size());
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double h = corner_field(n, quadrants, x + 0.5, y + 0.5);
            Rgba c = kTransparent;
            if (h >= 0)
                c = h < upper_lines ? pair.upper_lines[static_cast<std::size_t>(h)]
                                    : upper.get(x, y);
            else if (-h < lower_lines)
                c = pair.lower_lines[static_cast<std::size_t>(-h)];
            else if (!transparent_lower)
                c = lower.get(x, y);
            img.set(x, y, c);
        }
    return img;
}

Image paint_transition(const Description& d, const Pair& pair, BlobMask reduced) {
    if (pair.set == RimSet::corner || pair.set == RimSet::corner_layer)
        return paint_corner(d, pair, reduced);
    if (!d.symmetric) return paint_direct(d, pair, reduced);
    const auto [painted, turns] = canonical_turn(reduced);
    Image img = paint_direct(d, pair, painted);
    for (int q = 0; q < turns; ++q)
        img = turn_image(img);
    return img;
}

Image paint_ruts(const Description& d, int terrain, bool north_south) {
    const Terrain& t = d.terrains[static_cast<std::size_t>(terrain)];
    const Ramp ramp{t.palette};
    Image img = paint_base(d, terrain);
    const int n = d.tile_size;
    const std::uint64_t key = hash_values(terrain_key(d, t), kDecoration, hash_string("ruts"));
    // Two tracks a cart's width apart: a dark groove with a lit far lip, worn lighter in places;
    // the same at every position along the run, so straight runs of cells continue.
    for (const int at : {n / 4, n - n / 4 - 1})
        for (int i = 0; i < n; ++i) {
            auto put = [&](int across, Rgba c) {
                if (north_south)
                    img.set(across, i, c);
                else
                    img.set(i, across, c);
            };
            const double h = hash_unit(key, kPixel, at, i);
            put(at, h < 0.2 ? ramp.shade(0) : ramp.shade(-1));
            if (h > 0.35) put(at + 1, ramp.shade(1));
        }
    return img;
}

Image paint_bridge(const Description& d, int terrain, const BridgeTile& tile) {
    const Terrain& t = d.terrains[static_cast<std::size_t>(terrain)];
    const Ramp ramp{t.palette};
    const int n = d.tile_size;
    const std::uint64_t key = terrain_key(d, t);
    const int dark = -ramp.base(); // the darkest shade
    // The east-west deck: planks 4 px wide across the span (joints every 4 px), each with a tone
    // of its own and a few dark grain pixels; rails along the north and south edges with posts
    // every 8 px (all periodic in x with the tile, so a span of cells continues seamlessly).
    ShadeCanvas c(n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const int plank = x / 4, px = x % 4;
            const double tone = hash_unit(key, kLayout, plank, 0);
            int s = tone < 0.3 ? -1 : (tone > 0.8 ? 1 : 0);
            if (px == 3)
                s = dark + 1; // the joint
            else if (px == 0 && ((y & 1) == 0))
                s += 1;                                                       // lit plank edge
            if (px != 3 && hash_unit(key, kPixel, x, y) < 0.08) s -= 1;       // grain
            if ((px == 1 || px == 2) && (y == 5 || y == n - 6)) s = dark + 1; // nails
            c.at(x, y) = s;
        }
    auto post = [](int x) { return x % 8 == 1 || x % 8 == 2; };
    for (int x = 0; x < n; ++x) {
        // North rail (seen from above): outline, lit top, side, its shadow on the deck.
        c.at(x, 0) = dark;
        c.at(x, 1) = 2;
        c.at(x, 2) = 0;
        c.at(x, 3) = post(x) ? 0 : dark + 1;
        if (post(x)) c.at(x, 1) = x % 8 == 1 ? 2 : 1;
        // South rail: its top, its side, the deck's edge beam, outline.
        c.at(x, n - 5) = post(x) ? 0 : -1;
        c.at(x, n - 4) = post(x) && x % 8 == 1 ? 2 : 1;
        c.at(x, n - 3) = 0;
        c.at(x, n - 2) = -1;
        c.at(x, n - 1) = dark;
    }
    // An end (the bridge meets land): a sill beam across the deck and a thick post at each rail.
    auto draw_end = [&](int x0, int dir) { // x0 = the outer column, dir = +1 inwards
        for (int y = 1; y < n - 1; ++y) {
            c.at(x0, y) = dark;
            c.at(x0 + dir, y) = -1;
            c.at(x0 + 2 * dir, y) = (y & 1) ? 0 : -1;
        }
        for (const int y0 : {0, n - 6})
            for (int y = y0; y < y0 + 6; ++y)
                for (int k = 0; k < 3; ++k) {
                    const int x = x0 + k * dir;
                    const bool edge = y == y0 || y == y0 + 5 || k == 2;
                    c.at(x, y) = edge ? dark : (y == y0 + 1 ? 2 : (k == 0 ? 1 : 0));
                }
    };
    if (tile.end_a) draw_end(0, 1);
    if (tile.end_b) draw_end(n - 1, -1);
    Image img(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            img.set(x, y, ramp.shade(c.get(x, y)));
    return tile.north_south ? turn_image(img) : img;
}

PaintedTileset paint_tileset(const Description& d) {
    std::vector<std::pair<std::string, Image>> tiles; // in slot order; "" = empty slot
    const std::size_t columns = static_cast<std::size_t>(d.columns);
    auto fresh_row_unless_fits = [&](std::size_t count) {
        if (tiles.size() % columns + count > columns)
            while (tiles.size() % columns != 0)
                tiles.emplace_back("", Image());
    };
    // Group by group (Terrain::group): terrains and their variants (a bridge: its deck tiles),
    // the error tile after group 0's, then the pairs whose higher group is this one; every group
    // after the first starts on a fresh row, so adding a group keeps every other tile's slot.
    auto pair_group = [&](const Pair& pair) {
        return std::max(d.terrains[static_cast<std::size_t>(pair.upper)].group,
                        d.terrains[static_cast<std::size_t>(pair.lower)].group);
    };
    int groups = 1;
    for (const Terrain& t : d.terrains)
        groups = std::max(groups, t.group + 1);
    for (int group = 0; group < groups; ++group) {
        bool first = true;
        auto start = [&] { // the first tile of a group after the first starts a row
            if (group > 0 && first)
                while (tiles.size() % columns != 0)
                    tiles.emplace_back("", Image());
            first = false;
        };
        for (std::size_t t = 0; t < d.terrains.size(); ++t) {
            const Terrain& terrain = d.terrains[t];
            if (terrain.group != group) continue;
            start();
            if (!terrain.bridge.empty()) {
                for (const BridgeTile& b : bridge_tiles(terrain))
                    tiles.emplace_back(b.name, paint_bridge(d, static_cast<int>(t), b));
                continue;
            }
            tiles.emplace_back(terrain.name, paint_base(d, static_cast<int>(t)));
            for (std::size_t v = 0; v < terrain.variants.size(); ++v)
                tiles.emplace_back(terrain.variants[v].name,
                                   paint_variant(d, static_cast<int>(t), static_cast<int>(v)));
            if (terrain.ruts)
                for (const bool ns : {true, false})
                    tiles.emplace_back(terrain.name + (ns ? "-ruts-ns" : "-ruts-ew"),
                                       paint_ruts(d, static_cast<int>(t), ns));
        }
        if (group == 0 && d.error.include) tiles.emplace_back(d.error.name, paint_error(d));
        for (const Pair& pair : d.pairs) {
            if (pair_group(pair) != group) continue;
            start();
            const std::vector<RimTile> rims = rim_tiles(d, pair);
            fresh_row_unless_fits(rims.size());
            for (const RimTile& tile : rims)
                tiles.emplace_back(tile.name, paint_transition(d, pair, tile.mask));
        }
    }
    PaintedTileset out;
    out.tile_size = d.tile_size;
    out.columns = d.columns;
    const int rows = static_cast<int>((tiles.size() + static_cast<std::size_t>(d.columns) - 1) /
                                      static_cast<std::size_t>(d.columns));
    out.image = Image(d.columns * d.tile_size, rows * d.tile_size, kTransparent);
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        out.names.push_back(tiles[i].first);
        if (tiles[i].second.empty()) continue;
        const int col = static_cast<int>(i % static_cast<std::size_t>(d.columns));
        const int row = static_cast<int>(i / static_cast<std::size_t>(d.columns));
        out.image.copy_from(tiles[i].second, 0, 0, d.tile_size, d.tile_size, col * d.tile_size,
                            row * d.tile_size);
    }
    return out;
}

} // namespace tilegen::paint
