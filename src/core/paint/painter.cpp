#include "core/paint/painter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/hash.hpp"

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

// Everything a terrain's pixels hash on: the description seed and the terrain's name (not its index, so
// adding a terrain does not change the others).
std::uint64_t terrain_key(const Description& d, const Terrain& t) {
    return hash_values(d.seed, hash_string(t.name));
}

double hash_unit(std::uint64_t key, std::uint64_t stream, int x, int y) {
    return unit_double(hash_values(key, stream, static_cast<std::uint64_t>(static_cast<std::int64_t>(x)),
                                   static_cast<std::uint64_t>(static_cast<std::int64_t>(y))));
}

// Value noise in [0,1) whose lattice (spacing `cell` px) wraps every `period` px: seamless over the tile.
double periodic_noise(std::uint64_t key, std::uint64_t stream, double x, double y, int cell, int period) {
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

// Shade offsets per pixel, drawn with wrap-around so marks crossing the border continue on the other side.
class ShadeCanvas {
  public:
    explicit ShadeCanvas(int size) : size_(size), shades_(static_cast<std::size_t>(size * size), 0) {}
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

// A 2x2 ordered-dither threshold per pixel, so patch borders become checkerboards instead of hard lines.
double dither2(int x, int y) {
    static constexpr double kBayer[2][2] = {{0.0, 0.5}, {0.75, 0.25}};
    return kBayer[y & 1][x & 1];
}

// Patches: +1 where the noise is high, -1 where it is low, dithered over `soft` of noise range at the edges.
// The noise mixes a coarse (cell px) and a fine (cell / 2 px) octave.
void paint_patches(ShadeCanvas& c, std::uint64_t key, int cell, double light_above, double dark_below,
                   double soft) {
    const int n = c.size();
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            const double px = x + 0.5, py = y + 0.5;
            const double v = 0.65 * periodic_noise(key, kNoiseCoarse, px, py, cell, n) +
                             0.35 * periodic_noise(key, kNoiseFine, px, py, std::max(1, cell / 2), n);
            const double t = dither2(x, y) * soft;
            if (v > light_above + t)
                c.at(x, y) = 1;
            else if (v < dark_below - t)
                c.at(x, y) = -1;
        }
}

// Marks on a jittered grid of cells (cell_w x cell_h px); each cell gets a mark with probability `density`.
// `draw(x, y, shape)` draws one mark at its top-left pixel, shape being a hash in [0,1).
template <class Draw>
void scatter_marks(int size, std::uint64_t key, int cell_w, int cell_h, double density, Draw draw) {
    for (int cy = 0; cy < size / cell_h; ++cy)
        for (int cx = 0; cx < size / cell_w; ++cx) {
            if (hash_unit(key, kMarks, cx, cy) >= density) continue;
            const std::uint64_t h =
                hash_values(key, kMarkShape, static_cast<std::uint64_t>(cx), static_cast<std::uint64_t>(cy));
            const int jx = static_cast<int>((h >> 8) % static_cast<std::uint64_t>(cell_w));
            const int jy = static_cast<int>((h >> 24) % static_cast<std::uint64_t>(cell_h));
            draw(cx * cell_w + jx, cy * cell_h + jy, unit_double(h));
        }
}

// Mottling: a checkerboard of a lighter (or darker) shade where the noise is high (or low), never solid.
void paint_mottle(ShadeCanvas& c, std::uint64_t key, int cell, double light_above, double dark_below) {
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
    scatter_marks(c.size(), hash_values(key, 1), 4, 4, 0.5 * density, [&](int x, int y, double shape) {
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
    static const std::vector<Pattern> none;
    switch (d) {
    case Decoration::flowers:
        return flowers;
    case Decoration::tuft:
        return tuft;
    case Decoration::pebbles:
        return pebbles;
    case Decoration::sparkle:
        return sparkle;
    case Decoration::none:
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

// A wave of period 1 (in units of the wobble period), |wave| <= 1.
double wave(double t, double phase2) {
    constexpr double kTau = 2.0 * std::numbers::pi;
    return 0.75 * std::sin(kTau * t) + 0.25 * std::sin(2.0 * kTau * t + phase2);
}

// The geometry of one rim tile. Each side k (n, e, s, w) of the cell has its own rim depth profile
// R_k(t) = depth + wobble * u_k(t), t the position along that side (x for n and s, y for e and w), u_k
// periodic with the wobble period and u_k(0) = 0: all four profiles equal `depth` at the tile corners, so the
// round notch of an inner corner (radius `depth`) meets the rims of both neighbouring cells exactly.
struct RimGeometry {
    double size, depth, wobble, period, radius;
    std::array<double, 4> shift; // per side: where along the wave the profile starts (periods)
    double phase2;               // phase of the second harmonic
    BlobMask mask;

    double u(int side, double t) const {
        const double s = shift[static_cast<std::size_t>(side)];
        return 0.5 * (wave(t / period + s, phase2) - wave(s, phase2));
    }
    double R(int side, double t) const { return depth + wobble * u(side, t); }

    // Signed distance of a rounded intersection of two half-planes whose signed distances are a and b.
    static double rounded(double a, double b, double r) {
        const double qx = r - a, qy = r - b;
        const double outside = std::hypot(std::max(qx, 0.0), std::max(qy, 0.0));
        const double inside = std::min(std::max(qx, qy), 0.0);
        return r - outside - inside;
    }

    double field(double x, double y) const {
        // Per side: the distance to that edge (positive inside the cell) minus the rim depth there.
        const double edge[4] = {y - R(0, x), (size - x) - R(1, y), (size - y) - R(2, x), x - R(3, y)};
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

RimGeometry geometry(const Description& d, const Pair& pair, BlobMask reduced) {
    const auto& up = d.terrains[static_cast<std::size_t>(pair.upper)];
    const auto& lo = d.terrains[static_cast<std::size_t>(pair.lower)];
    const std::uint64_t key = hash_values(d.seed, kWobble, hash_string(up.name), hash_string(lo.name));
    RimGeometry g{static_cast<double>(d.tile_size),
                  pair.rim_depth,
                  pair.wobble,
                  static_cast<double>(pair.wobble_period),
                  pair.corner_radius,
                  {},
                  2.0 * std::numbers::pi * unit_double(hash_values(key, 4)),
                  reduced};
    for (std::uint64_t k = 0; k < 4; ++k)
        g.shift[k] = unit_double(hash_values(key, k));
    return g;
}

struct PixelClass {
    Material material;
    int line; // index into the pair's lines for *_line
};

PixelClass classify(const Pair& pair, const RimGeometry& g, int x, int y) {
    const double px = x + 0.5, py = y + 0.5;
    const double h = g.field(px, py);
    if (h >= 0) { // (h is +infinity when no neighbour is lower)
        const double lines = static_cast<double>(pair.upper_lines.size());
        if (h < lines) return {Material::upper_line, static_cast<int>(std::floor(h))};
        return {Material::upper, 0};
    }
    const int n = static_cast<int>(pair.lower_lines.size());
    if (n == 0) return {Material::lower, 0};
    // Where the upper terrain lies to the north (h grows towards -y), the lower lines widen: a cast shadow.
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

} // namespace

int Tileset::tile_count() const {
    return static_cast<int>(
        std::count_if(names.begin(), names.end(), [](const std::string& s) { return !s.empty(); }));
}

Image paint_base(const Description& d, int terrain) {
    const Terrain& t = d.terrains[static_cast<std::size_t>(terrain)];
    const int n = d.tile_size;
    const std::uint64_t key = terrain_key(d, t);
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
    }
    Ramp ramp{t.palette};
    Image img(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            img.set(x, y, ramp.shade(c.get(x, y)));
    return img;
}

Image paint_variant(const Description& d, int terrain, int variant) {
    const Terrain& t = d.terrains[static_cast<std::size_t>(terrain)];
    const Variant& v = t.variants[static_cast<std::size_t>(variant)];
    Image img = paint_base(d, terrain);
    const auto& patterns = patterns_for(v.decoration);
    if (patterns.empty()) return img;
    const int n = d.tile_size;
    constexpr int kMargin = 2; // decorations stay this far from the border: borders equal the base tile
    const std::uint64_t key = hash_values(terrain_key(d, t), kDecoration, hash_string(v.name));
    Ramp ramp{t.palette};
    std::vector<Box> placed;
    for (int i = 0, attempt = 0; i < v.count && attempt < 64; ++attempt) {
        const std::uint64_t h = hash_values(key, static_cast<std::uint64_t>(attempt));
        // The first decoration uses the first (largest) pattern; the others pick one.
        const std::size_t which = i == 0 ? 0 : static_cast<std::size_t>((h >> 48) % patterns.size());
        const Pattern& p = patterns[which];
        const int room_x = n - 2 * kMargin - p.width() + 1, room_y = n - 2 * kMargin - p.height() + 1;
        if (room_x <= 0 || room_y <= 0) continue;
        const int x = kMargin + static_cast<int>((h >> 8) % static_cast<std::uint64_t>(room_x));
        const int y = kMargin + static_cast<int>((h >> 28) % static_cast<std::uint64_t>(room_y));
        const Box box{x, y, x + p.width() - 1, y + p.height() - 1};
        if (std::any_of(placed.begin(), placed.end(), [&](const Box& b) { return b.overlaps(box, 1); }))
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
    const RimGeometry g = geometry(d, pair, reduced);
    Grid<Material> out(d.tile_size, d.tile_size, Material::upper);
    for (int y = 0; y < d.tile_size; ++y)
        for (int x = 0; x < d.tile_size; ++x)
            out(x, y) = classify(pair, g, x, y).material;
    return out;
}

Image paint_transition(const Description& d, const Pair& pair, BlobMask reduced) {
    const RimGeometry g = geometry(d, pair, reduced);
    const Image upper = paint_base(d, pair.upper);
    const Image lower = paint_base(d, pair.lower);
    Image img(d.tile_size, d.tile_size);
    for (int y = 0; y < d.tile_size; ++y)
        for (int x = 0; x < d.tile_size; ++x) {
            const PixelClass pc = classify(pair, g, x, y);
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
            }
        }
    return img;
}

Tileset paint_tileset(const Description& d) {
    std::vector<std::pair<std::string, Image>> tiles; // in slot order; "" = empty slot
    for (std::size_t t = 0; t < d.terrains.size(); ++t) {
        tiles.emplace_back(d.terrains[t].name, paint_base(d, static_cast<int>(t)));
        for (std::size_t v = 0; v < d.terrains[t].variants.size(); ++v)
            tiles.emplace_back(d.terrains[t].variants[v].name,
                               paint_variant(d, static_cast<int>(t), static_cast<int>(v)));
    }
    tiles.emplace_back(d.error.name, paint_error(d));
    for (const Pair& pair : d.pairs) {
        while (tiles.size() % static_cast<std::size_t>(d.columns) != 0)
            tiles.emplace_back("", Image());
        const auto& up = d.terrains[static_cast<std::size_t>(pair.upper)].name;
        const auto& lo = d.terrains[static_cast<std::size_t>(pair.lower)].name;
        for (BlobMask m : blob_cases())
            if (m != 0) tiles.emplace_back(transition_name(up, lo, m), paint_transition(d, pair, m));
    }
    Tileset out;
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
