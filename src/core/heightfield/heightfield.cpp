#include "core/heightfield/heightfield.hpp"

#include <algorithm>
#include <cmath>

#include "core/hash.hpp"
#include "core/parallel.hpp"
#include "core/heightfield/lattice_noise.hpp"
#include "core/heightfield/point_noise.hpp"
#include "core/heightfield/whole_map_generators.hpp"

namespace tilegen {

bool is_position_based(NoiseKind kind) {
    switch (kind) {
    case NoiseKind::diamond_square:
    case NoiseKind::fault:
    case NoiseKind::hills:
    case NoiseKind::particle: return false;
    default: return true;
    }
}

const char* noise_kind_name(NoiseKind kind) {
    switch (kind) {
    case NoiseKind::harmonic: return "harmonic";
    case NoiseKind::value: return "value";
    case NoiseKind::perlin: return "perlin";
    case NoiseKind::simplex: return "simplex";
    case NoiseKind::worley: return "worley";
    case NoiseKind::diamond_square: return "diamond-square";
    case NoiseKind::fault: return "fault";
    case NoiseKind::hills: return "hills";
    case NoiseKind::particle: return "particle";
    case NoiseKind::profile: return "profile";
    }
    return "?";
}

std::uint64_t map_seed(const MapDefinition& def, std::uint64_t seed) {
    const std::uint64_t base = def.name == "elevation" ? seed : hash_values(seed, hash_string(def.name));
    return base + def.settings.seed_offset;
}

namespace {

// Cuts `region` out of a whole map; cells outside the map take the nearest cell inside.
Grid<float> cut(const Grid<float>& whole, Region region) {
    Grid<float> out(region.width, region.height);
    for (int y = 0; y < region.height; ++y)
        for (int x = 0; x < region.width; ++x)
            out(x, y) = whole(std::clamp(region.x + x, 0, whole.width() - 1), std::clamp(region.y + y, 0, whole.height() - 1));
    return out;
}

int margin_of(const ModifierSettings& m) {
    switch (m.kind) {
    case ModifierKind::warp: return static_cast<int>(std::ceil(m.strength)) + 2;
    case ModifierKind::smooth: return m.smooth_radius * m.passes;
    default: return 0;
    }
}

float sample_bilinear(const Grid<float>& g, double x, double y) {
    x = std::clamp(x, 0.0, static_cast<double>(g.width() - 1));
    y = std::clamp(y, 0.0, static_cast<double>(g.height() - 1));
    const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
    const int x1 = std::min(x0 + 1, g.width() - 1), y1 = std::min(y0 + 1, g.height() - 1);
    const float tx = static_cast<float>(x - x0), ty = static_cast<float>(y - y0);
    const float top = g(x0, y0) + (g(x1, y0) - g(x0, y0)) * tx;
    const float bottom = g(x0, y1) + (g(x1, y1) - g(x0, y1)) * tx;
    return top + (bottom - top) * ty;
}

double warp_field(const ModifierSettings& m, std::uint64_t seed, std::uint64_t axis, double x, double y) {
    NoiseSettings w;
    w.kind = NoiseKind::simplex;
    w.scale = m.warp_scale;
    w.octaves = m.warp_octaves;
    return fractal_noise(w, hash_values(seed, 0x77617270ull /* "warp" */, axis), x, y) * 2.0 - 1.0;
}

void apply(const ModifierSettings& m, Grid<float>& g, Region padded, std::uint64_t seed, int map_width, int map_height,
           const MapLookup& other_maps, std::size_t index, int threads) {
    const std::uint64_t mseed = hash_values(seed, static_cast<std::uint64_t>(index));
    switch (m.kind) {
    case ModifierKind::warp: {
        Grid<float> out(g.width(), g.height());
        if (m.levels == 1) {
            // One level: the displacement fields are Perlin fBm grids over the padded region, computed row by
            // row like any lattice noise (no per-cell hashing).
            NoiseSettings w;
            w.kind = NoiseKind::perlin;
            w.scale = m.warp_scale;
            w.octaves = m.warp_octaves;
            const Grid<float> fx = lattice_noise(w, hash_values(mseed, 0x77617270ull /* "warp" */, 0), padded, threads);
            const Grid<float> fy = lattice_noise(w, hash_values(mseed, 0x77617270ull, 1), padded, threads);
            parallel_for(g.height(), threads, [&](int y0, int y1) {
                for (int y = y0; y < y1; ++y)
                    for (int x = 0; x < g.width(); ++x) {
                        const double ox = m.strength * (fx(x, y) * 2.0 - 1.0);
                        const double oy = m.strength * (fy(x, y) * 2.0 - 1.0);
                        out(x, y) = sample_bilinear(g, x + ox, y + oy);
                    }
            });
            g = std::move(out);
            break;
        }
        parallel_for(g.height(), threads, [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < g.width(); ++x) {
                double px = padded.x + x + 0.5, py = padded.y + y + 0.5;
                if (m.levels >= 2) {
                    const double qx = warp_field(m, mseed, 2, px, py), qy = warp_field(m, mseed, 3, px, py);
                    px += m.strength * qx;
                    py += m.strength * qy;
                }
                const double ox = m.strength * warp_field(m, mseed, 0, px, py);
                const double oy = m.strength * warp_field(m, mseed, 1, px, py);
                out(x, y) = sample_bilinear(g, x + ox, y + oy);
            }
        });
        g = std::move(out);
        break;
    }
    case ModifierKind::island: {
        for (int y = 0; y < g.height(); ++y)
            for (int x = 0; x < g.width(); ++x) {
                const double nx = (padded.x + x + 0.5) / map_width * 2 - 1, ny = (padded.y + y + 0.5) / map_height * 2 - 1;
                const double d = m.shape == IslandShape::circle ? std::sqrt(nx * nx + ny * ny)
                                                                : std::max(std::abs(nx), std::abs(ny));
                double t = std::clamp((d - m.start) / std::max(1e-9, m.radius - m.start), 0.0, 1.0);
                t = t * t * (3 - 2 * t);
                g(x, y) = static_cast<float>(g(x, y) * (1.0 - m.falloff * t));
            }
        break;
    }
    case ModifierKind::terrace: {
        for (float& v : g.cells()) {
            const double level = std::min(std::floor(static_cast<double>(v) * m.steps), m.steps - 1.0) / (m.steps - 1.0);
            v = static_cast<float>(v + (level - v) * m.sharpness);
        }
        break;
    }
    case ModifierKind::smooth: box_blur(g, m.smooth_radius, m.passes); break;
    case ModifierKind::combine: {
        const Grid<float> other = other_maps(m.map, padded);
        auto& a = g.cells();
        const auto& b = other.cells();
        const float t = static_cast<float>(m.amount);
        for (std::size_t i = 0; i < a.size(); ++i) {
            switch (m.op) {
            case CombineOp::add: a[i] = (a[i] + b[i] * t) / (1.0f + t); break;
            case CombineOp::multiply: a[i] = a[i] * b[i]; break;
            case CombineOp::min: a[i] = std::min(a[i], b[i]); break;
            case CombineOp::max: a[i] = std::max(a[i], b[i]); break;
            case CombineOp::mix: a[i] = a[i] + (b[i] - a[i]) * t; break;
            }
        }
        break;
    }
    }
}

} // namespace

Grid<float> generate_base(const NoiseSettings& s, std::uint64_t seed, int map_width, int map_height, Region region,
                          int threads) {
    switch (s.kind) {
    case NoiseKind::harmonic: return harmonic_noise(s.harmonic, seed, map_width, map_height, region, threads);
    case NoiseKind::value:
    case NoiseKind::perlin: return lattice_noise(s, seed, region, threads);
    case NoiseKind::simplex:
    case NoiseKind::worley: {
        Grid<float> g(region.width, region.height);
        const std::vector<std::uint64_t> streams = octave_streams(seed, s.octaves);
        parallel_for(region.height, threads, [&](int y0, int y1) {
            for (int y = y0; y < y1; ++y)
                for (int x = 0; x < region.width; ++x)
                    g(x, y) = static_cast<float>(fractal_noise(s, streams, region.x + x + 0.5, region.y + y + 0.5));
        });
        return g;
    }
    case NoiseKind::profile: {
        Grid<float> g(region.width, region.height);
        for (int x = 0; x < region.width; ++x) {
            const double p = s.base + (profile_height(s, seed, region.x + x + 0.5) - 0.5) * 2.0 * s.amplitude;
            for (int y = 0; y < region.height; ++y) {
                const double depth = (region.y + y + 0.5) / map_height - (1.0 - p); // > 0 below the surface
                g(x, y) = static_cast<float>(std::clamp(0.5 + depth * 0.5, 0.0, 1.0));
            }
        }
        return g;
    }
    case NoiseKind::diamond_square: return cut(diamond_square(s, seed, map_width, map_height), region);
    case NoiseKind::fault: return cut(fault_formation(s, seed, map_width, map_height), region);
    case NoiseKind::hills: return cut(random_hills(s, seed, map_width, map_height), region);
    case NoiseKind::particle: return cut(particle_deposition(s, seed, map_width, map_height), region);
    }
    return Grid<float>(region.width, region.height, 0.0f);
}

Grid<float> generate_heightfield(const MapDefinition& def, std::uint64_t seed, int map_width, int map_height,
                                 Region region, const MapLookup& other_maps, int threads) {
    const std::uint64_t s = map_seed(def, seed);
    int margin = 0;
    for (const auto& m : def.settings.modifiers) margin += margin_of(m);
    const Region padded{region.x - margin, region.y - margin, region.width + 2 * margin, region.height + 2 * margin};
    Grid<float> g = generate_base(def.settings, s, map_width, map_height, padded, threads);
    for (std::size_t i = 0; i < def.settings.modifiers.size(); ++i)
        apply(def.settings.modifiers[i], g, padded, s, map_width, map_height, other_maps, i, threads);
    Grid<float> out(region.width, region.height);
    for (int y = 0; y < region.height; ++y)
        for (int x = 0; x < region.width; ++x) out(x, y) = std::clamp(g(x + margin, y + margin), 0.0f, 1.0f);
    return out;
}

} // namespace tilegen
