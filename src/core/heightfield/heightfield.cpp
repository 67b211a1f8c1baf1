#include "core/heightfield/heightfield.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "core/hash.hpp"
#include "core/heightfield/agent_terrain.hpp"
#include "core/heightfield/erosion.hpp"
#include "core/heightfield/lattice_noise.hpp"
#include "core/heightfield/point_noise.hpp"
#include "core/heightfield/point_noise_rows.hpp"
#include "core/heightfield/whole_map_generators.hpp"
#include "core/parallel.hpp"

namespace tilegen {

bool is_position_based(NoiseKind kind) {
    switch (kind) {
    case NoiseKind::diamond_square:
    case NoiseKind::fault:
    case NoiseKind::hills:
    case NoiseKind::particle:
    case NoiseKind::agents:
        return false;
    default:
        return true;
    }
}

// A lookup, one case per kind (the recipe parser reads the names from here): the cases share their
// shape with the other enum-name switches, not logic (deliberate).
const char* noise_kind_name(NoiseKind kind) {
    switch (kind) {
    case NoiseKind::harmonic:
        return "harmonic";
    case NoiseKind::value:
        return "value";
    case NoiseKind::perlin:
        return "perlin";
    case NoiseKind::simplex:
        return "simplex";
    case NoiseKind::worley:
        return "worley";
    case NoiseKind::diamond_square:
        return "diamond-square";
    case NoiseKind::fault:
        return "fault";
    case NoiseKind::hills:
        return "hills";
    case NoiseKind::particle:
        return "particle";
    case NoiseKind::profile:
        return "profile";
    case NoiseKind::white:
        return "white";
    case NoiseKind::agents:
        return "agents";
    }
    return "?";
}

std::uint64_t map_seed(const MapDefinition& def, std::uint64_t seed) {
    const std::uint64_t base =
        def.name == "elevation" ? seed : hash_values(seed, hash_string(def.name));
    return base + def.settings.seed_offset;
}

namespace {

// Cuts `region` out of a whole map; cells outside the map take the nearest cell inside.
Grid<float> cut(const Grid<float>& whole, Region region) {
    Grid<float> out(region.width, region.height);
    for (int y = 0; y < region.height; ++y)
        for (int x = 0; x < region.width; ++x)
            out(x, y) = whole(std::clamp(region.x + x, 0, whole.width() - 1),
                              std::clamp(region.y + y, 0, whole.height() - 1));
    return out;
}

int margin_of(const ModifierSettings& m) {
    switch (m.kind) {
    case ModifierKind::warp:
        return static_cast<int>(std::ceil(m.strength)) + 2;
    case ModifierKind::smooth:
        return m.smooth_radius * m.passes;
    default:
        return 0;
    }
}

// Bilinear sample of g at (x + tx, y + ty): cell x, y (grid coordinates) and fractions tx, ty in
// [0, 1]. Points off the grid take the nearest edge cell. The cell and the fraction come apart from
// the displacement (not from the sum of a coordinate and a displacement), so the weights do not
// depend on where the grid starts.
float sample_bilinear(const Grid<float>& g, int x, int y, float tx, float ty) {
    int x1 = x + 1, y1 = y + 1;
    if (x < 0 || x >= g.width() - 1) x = x1 = std::clamp(x, 0, g.width() - 1);
    if (y < 0 || y >= g.height() - 1) y = y1 = std::clamp(y, 0, g.height() - 1);
    const float* r0 = g.row(y);
    const float* r1 = g.row(y1);
    const float top = r0[x] + (r0[x1] - r0[x]) * tx;
    const float bottom = r1[x] + (r1[x1] - r1[x]) * tx;
    return top + (bottom - top) * ty;
}

// Warp sampling of one output row, in two passes: displace (vectorised) then sample_row (gathers).
// displace: for each x, coordinate base + x * per_column (0 or 1) displaced by strength * field (in
// [-1, 1]), as a whole cell clamped to [first, last] and a fraction in [0, 1). With last at most
// size - 2, cell + 1 is on the grid too; the margins keep every output cell far enough inside the
// source that the clamp never applies to it.
void displace(int* __restrict cell, float* __restrict frac, const float* __restrict field,
              int width, int base, int per_column, int first, int last, float strength) {
    for (int x = 0; x < width; ++x) {
        const float d = strength * field[x];
        int i = static_cast<int>(d);                      // toward zero
        i -= static_cast<int>(static_cast<float>(i) > d); // floor
        frac[x] = d - static_cast<float>(i);              // exact
        const int c = base + x * per_column + i;
        cell[x] = std::min(std::max(c, first), last);
    }
}

// Row r of the source is at rows + (r & mask) * stride (mask ~0u for a whole grid, size - 1 for a
// ring of rows), and row r + 1 right after it (a ring repeats its first row after its last).
void sample_row(float* __restrict out, const float* rows, std::size_t stride, unsigned mask,
                const int* __restrict cx, const float* __restrict tx, const int* __restrict cy,
                const float* __restrict ty, int width) {
    for (int x = 0; x < width; ++x) {
        const auto y = static_cast<unsigned>(cy[x]);
        const float* r0 =
            rows + static_cast<std::size_t>(y & mask) * stride + static_cast<std::size_t>(cx[x]);
        const float* r1 = r0 + stride;
        const float top = r0[0] + (r0[1] - r0[0]) * tx[x];
        const float bottom = r1[0] + (r1[1] - r1[0]) * tx[x];
        out[x] = top + (bottom - top) * ty[x];
    }
}

// The rows a one-level warp reads: a grid over the covered region, or (Streamed) rows of lattice
// noise generated on demand into a ring, so that the source grid is never built. need(first, last):
// rows first..last of the covered region (0-based) are readable; the rows of one need() call must
// fit the ring.
struct GridRows {
    const Grid<float>& grid;
    void need(int, int) {}
    const float* rows() const { return grid.cells().data(); }
    unsigned mask() const { return ~0u; }
};

struct StreamedRows {
    LatticeRows generator;
    int top;                 // absolute row of covered row 0
    std::vector<float> ring; // ring_mask + 2 rows: the last repeats the first
    unsigned ring_mask;      // ring rows - 1 (a power of two)
    int next = INT_MIN;      // next covered row to generate
    void need(int first, int last) {
        if (next < first) next = first; // rows before `first` are not read again
        const auto width = static_cast<std::size_t>(generator.width());
        for (; next <= last; ++next) {
            const unsigned slot = static_cast<unsigned>(next) & ring_mask;
            float* row = ring.data() + slot * width;
            generator.row(top + next, row);
            if (slot == 0) std::copy(row, row + width, ring.data() + (ring_mask + 1) * width);
        }
    }
    const float* rows() const { return ring.data(); }
    unsigned mask() const { return ring_mask; }
};

// One-level warp of the source (covering `covered`) into a grid covering keep: the displacement
// fields are Perlin fBm generated a row at a time beside the output (no full-size field grids); the
// source is sampled in float. make_source(): one source per thread (GridRows or StreamedRows).
template <class MakeSource>
Grid<float> warp_one_level(const ModifierSettings& m, std::uint64_t mseed, Region covered,
                           Region keep, int threads, const MakeSource& make_source) {
    Grid<float> out =
        Grid<float>::uninitialised(keep.width, keep.height);    // sample_row writes whole rows
    const int dx = keep.x - covered.x, dy = keep.y - covered.y; // keep's origin in the source
    NoiseSettings w;
    w.kind = NoiseKind::perlin;
    w.scale = m.warp_scale;
    w.octaves = m.warp_octaves;
    const std::uint64_t seed_x = hash_values(mseed, 0x77617270ull /* "warp" */, 0);
    const std::uint64_t seed_y = hash_values(mseed, 0x77617270ull, 1);
    const float strength = static_cast<float>(m.strength);
    const int reach =
        static_cast<int>(std::ceil(m.strength)) + 1; // rows read above and below a cell's own
    parallel_for(keep.height, threads, [&](int y0, int y1) {
        auto source = make_source();
        LatticeRows field_x(w, seed_x, keep.x, keep.width), field_y(w, seed_y, keep.x, keep.width);
        const auto n = static_cast<std::size_t>(keep.width);
        std::vector<float> fx(n), fy(n), tx(n), ty(n);
        std::vector<int> cx(n), cy(n);
        for (int y = y0; y < y1; ++y) {
            field_x.signed_row(keep.y + y, fx.data());
            field_y.signed_row(keep.y + y, fy.data());
            // Rows first..last are read (cells first..last - 1 and the row below each).
            const int first = std::max(dy + y - reach, 0),
                      last = std::min(dy + y + reach, covered.height - 1);
            displace(cx.data(), tx.data(), fx.data(), keep.width, dx, 1, 0, covered.width - 2,
                     strength);
            displace(cy.data(), ty.data(), fy.data(), keep.width, dy + y, 0, first, last - 1,
                     strength);
            source.need(first, last);
            sample_row(out.row(y), source.rows(), static_cast<std::size_t>(covered.width),
                       source.mask(), cx.data(), tx.data(), cy.data(), ty.data(), keep.width);
        }
    });
    return out;
}

// Splits a displacement into whole cells and a fraction in [0, 1) (exactly: d - floor(d) is
// representable).
template <class T> int whole_cells(T d, T& fraction) {
    const T f = std::floor(d);
    fraction = d - f;
    return static_cast<int>(f);
}

double warp_field(const ModifierSettings& m, std::uint64_t seed, std::uint64_t axis, double x,
                  double y) {
    NoiseSettings w;
    w.kind = NoiseKind::simplex;
    w.scale = m.warp_scale;
    w.octaves = m.warp_octaves;
    return fractal_noise(w, hash_values(seed, 0x77617270ull /* "warp" */, axis), x, y) * 2.0 - 1.0;
}

Region grow(Region r, int margin) {
    return {r.x - margin, r.y - margin, r.width + 2 * margin, r.height + 2 * margin};
}

// Applies modifier m to g, which covers `covered` (absolute cells). A modifier that reads
// neighbours (warp) writes a new grid covering only `keep`, the part later modifiers still read
// (keep lies inside covered, at least the modifier's margin in from every edge, so no cell of keep
// reads past the edge of g).
void apply(const ModifierSettings& m, Grid<float>& g, Region& covered, Region keep,
           std::uint64_t seed, int map_width, int map_height, const MapLookup& other_maps,
           std::size_t index, int threads) {
    const std::uint64_t mseed = hash_values(seed, static_cast<std::uint64_t>(index));
    const Region padded = covered;
    switch (m.kind) {
    case ModifierKind::warp: {
        if (m.levels == 1) {
            g = warp_one_level(m, mseed, covered, keep, threads, [&] { return GridRows{g}; });
            covered = keep;
            break;
        }
        Grid<float> out(keep.width, keep.height);
        const int dx = keep.x - covered.x, dy = keep.y - covered.y; // keep's origin in g
        parallel_for(keep.height, threads, [&](int y0, int y1) {
            for (int y = y0; y < y1; ++y)
                for (int x = 0; x < keep.width; ++x) {
                    double px = keep.x + x + 0.5, py = keep.y + y + 0.5;
                    const double qx = warp_field(m, mseed, 2, px, py),
                                 qy = warp_field(m, mseed, 3, px, py);
                    px += m.strength * qx;
                    py += m.strength * qy;
                    double tx, ty;
                    const int ox = whole_cells(m.strength * warp_field(m, mseed, 0, px, py), tx);
                    const int oy = whole_cells(m.strength * warp_field(m, mseed, 1, px, py), ty);
                    out(x, y) = sample_bilinear(g, dx + x + ox, dy + y + oy, static_cast<float>(tx),
                                                static_cast<float>(ty));
                }
        });
        g = std::move(out);
        covered = keep;
        break;
    }
    case ModifierKind::island: {
        for (int y = 0; y < g.height(); ++y)
            for (int x = 0; x < g.width(); ++x) {
                const double nx = (padded.x + x + 0.5) / map_width * 2 - 1,
                             ny = (padded.y + y + 0.5) / map_height * 2 - 1;
                const double d = m.shape == IslandShape::circle
                                     ? std::sqrt(nx * nx + ny * ny)
                                     : std::max(std::abs(nx), std::abs(ny));
                double t = std::clamp((d - m.start) / std::max(1e-9, m.radius - m.start), 0.0, 1.0);
                t = t * t * (3 - 2 * t);
                g(x, y) = static_cast<float>(g(x, y) * (1.0 - m.falloff * t));
            }
        break;
    }
    case ModifierKind::terrace: {
        for (float& v : g.cells()) {
            const double level =
                std::min(std::floor(static_cast<double>(v) * m.steps), m.steps - 1.0) /
                (m.steps - 1.0);
            v = static_cast<float>(v + (level - v) * m.sharpness);
        }
        break;
    }
    case ModifierKind::smooth:
        box_blur(g, m.smooth_radius, m.passes);
        break;
    case ModifierKind::combine: {
        const Grid<float> other = other_maps(m.map, padded);
        auto& a = g.cells();
        const auto& b = other.cells();
        const float t = static_cast<float>(m.amount);
        for (std::size_t i = 0; i < a.size(); ++i) {
            switch (m.op) {
            case CombineOp::add:
                a[i] = (a[i] + b[i] * t) / (1.0f + t);
                break;
            case CombineOp::multiply:
                a[i] = a[i] * b[i];
                break;
            case CombineOp::min:
                a[i] = std::min(a[i], b[i]);
                break;
            case CombineOp::max:
                a[i] = std::max(a[i], b[i]);
                break;
            case CombineOp::mix:
                a[i] = a[i] + (b[i] - a[i]) * t;
                break;
            }
        }
        break;
    }
    case ModifierKind::thermal:
        (void)thermal_erosion(g, m.thermal, threads);
        break;
    case ModifierKind::hydraulic:
        (void)hydraulic_erosion(g, m.hydraulic, mseed);
        break;
    }
}

bool erodes(const NoiseSettings& s) {
    return std::any_of(s.modifiers.begin(), s.modifiers.end(), [](const ModifierSettings& m) {
        return m.kind == ModifierKind::thermal || m.kind == ModifierKind::hydraulic;
    });
}

} // namespace

Grid<float> generate_base(const NoiseSettings& s, std::uint64_t seed, int map_width, int map_height,
                          Region region, int threads) {
    switch (s.kind) {
    case NoiseKind::harmonic:
        return harmonic_noise(s.harmonic, seed, map_width, map_height, region, threads);
    case NoiseKind::value:
    case NoiseKind::perlin:
        return lattice_noise(s, seed, region, threads);
    case NoiseKind::simplex:
    case NoiseKind::worley:
        return point_noise_grid(s, seed, region, threads);
    case NoiseKind::profile: {
        Grid<float> g(region.width, region.height);
        for (int x = 0; x < region.width; ++x) {
            const double p =
                s.base + (profile_height(s, seed, region.x + x + 0.5) - 0.5) * 2.0 * s.amplitude;
            for (int y = 0; y < region.height; ++y) {
                const double depth =
                    (region.y + y + 0.5) / map_height - (1.0 - p); // > 0 below the surface
                g(x, y) = static_cast<float>(std::clamp(0.5 + depth * 0.5, 0.0, 1.0));
            }
        }
        return g;
    }
    case NoiseKind::white: {
        // Each cell a hash of (seed, x, y): 24 bits, exactly a float in [0, 1).
        Grid<float> g = Grid<float>::uninitialised(region.width, region.height);
        const std::uint64_t stream = hash_values(seed, 0x7768697465ull /* "white" */);
        parallel_for(region.height, threads, [&](int y0, int y1) {
            for (int y = y0; y < y1; ++y) {
                float* row = g.row(y);
                for (int x = 0; x < region.width; ++x)
                    row[x] = unit_float(hash_position(stream, std::int64_t{region.x} + x,
                                                      std::int64_t{region.y} + y));
            }
        });
        return g;
    }
    case NoiseKind::diamond_square:
        return cut(diamond_square(s, seed, map_width, map_height), region);
    case NoiseKind::fault:
        return cut(fault_formation(s, seed, map_width, map_height), region);
    case NoiseKind::hills:
        return cut(random_hills(s, seed, map_width, map_height), region);
    case NoiseKind::particle:
        return cut(particle_deposition(s, seed, map_width, map_height), region);
    case NoiseKind::agents:
        return cut(agent_terrain(s.agents, seed, map_width, map_height), region);
    }
    return Grid<float>(region.width, region.height, 0.0f);
}

Grid<float> generate_heightfield(const MapDefinition& def, std::uint64_t seed, int map_width,
                                 int map_height, Region region, const MapLookup& other_maps,
                                 int threads) {
    const bool whole_map =
        region.x == 0 && region.y == 0 && region.width == map_width && region.height == map_height;
    if (erodes(def.settings) && !whole_map) // erosion moves material across the whole map
        return cut(generate_heightfield(def, seed, map_width, map_height,
                                        {0, 0, map_width, map_height}, other_maps, threads),
                   region);
    const std::uint64_t s = map_seed(def, seed);
    const auto& modifiers = def.settings.modifiers;
    // margins[i]: how far modifiers i.. read beyond the region, so the grid they start from must
    // cover.
    std::vector<int> margins(modifiers.size() + 1, 0);
    for (std::size_t i = modifiers.size(); i-- > 0;)
        margins[i] = margins[i + 1] + margin_of(modifiers[i]);
    Region covered = grow(region, margins[0]);
    Grid<float> g;
    std::size_t next = 0; // first modifier not yet applied
    const ModifierSettings* first = modifiers.empty() ? nullptr : &modifiers[0];
    if (first && first->kind == ModifierKind::warp && first->levels == 1 &&
        (def.settings.kind == NoiseKind::value || def.settings.kind == NoiseKind::perlin)) {
        // Lattice noise warped first: its rows are generated as the warp reads them, into a ring of
        // rows per thread (when the ring is well below the grid's size), so the base grid is never
        // built.
        const int reach = static_cast<int>(std::ceil(first->strength)) + 1;
        unsigned ring_rows = 1;
        while (ring_rows < static_cast<unsigned>(2 * reach + 2))
            ring_rows *= 2;
        if (2 * ring_rows <= static_cast<unsigned>(covered.height)) {
            const Region keep = grow(region, margins[1]);
            g = warp_one_level(
                *first, hash_values(s, std::uint64_t{0}), covered, keep, threads, [&] {
                    return StreamedRows{LatticeRows(def.settings, s, covered.x, covered.width),
                                        covered.y,
                                        std::vector<float>(static_cast<std::size_t>(ring_rows + 1) *
                                                           static_cast<std::size_t>(covered.width)),
                                        ring_rows - 1};
                });
            covered = keep;
            next = 1;
        }
    }
    if (next == 0) g = generate_base(def.settings, s, map_width, map_height, covered, threads);
    for (std::size_t i = next; i < modifiers.size(); ++i)
        apply(modifiers[i], g, covered, grow(region, margins[i + 1]), s, map_width, map_height,
              other_maps, i, threads);
    if (covered.width == region.width && covered.height == region.height) {
        // Position-based generators clamp their own output to [0, 1]; modifiers and whole-map kinds
        // get a pass.
        if (!modifiers.empty() || !is_position_based(def.settings.kind))
            parallel_for(g.height(), threads, [&](int y0, int y1) {
                for (int y = y0; y < y1; ++y)
                    for (float* v = g.row(y); v != g.row(y) + g.width(); ++v)
                        *v = std::clamp(*v, 0.0f, 1.0f);
            });
        return g;
    }
    const int mx = region.x - covered.x, my = region.y - covered.y;
    Grid<float> out(region.width, region.height);
    for (int y = 0; y < region.height; ++y)
        for (int x = 0; x < region.width; ++x)
            out(x, y) = std::clamp(g(x + mx, y + my), 0.0f, 1.0f);
    return out;
}

} // namespace tilegen
