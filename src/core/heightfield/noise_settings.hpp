// Settings of one heightfield ("map"): a generator kind, its parameters, and modifiers applied in
// order. Every field documents its default and range. Parsed from a recipe's [noise] / [maps.NAME]
// tables.
#pragma once

#include <string>
#include <vector>

#include "core/heightfield/agent_settings.hpp"
#include "core/heightfield/harmonic_noise.hpp"

namespace tilegen {

enum class NoiseKind {
    harmonic,       // lattices 1x1 .. map size, upscaled and summed (default)
    value,          // lattice values, interpolated, fractal sum
    perlin,         // gradient noise, fractal sum
    simplex,        // 2D simplex noise, fractal sum
    worley,         // cellular (distance to feature points), fractal sum
    diamond_square, // midpoint displacement (whole-map)
    fault,          // fault formation + smoothing (whole-map)
    hills,          // random hills added (whole-map)
    particle,       // particle deposition (whole-map)
    profile,        // 1D side-view profile: ground below, air above
    white,          // white noise: an independent hash per cell, uniform in [0, 1)
    agents,         // Doran and Parberry's software agents (whole-map)
};

enum class LatticeInterpolation { linear, cosine, cubic, quintic };
enum class Fractal { fbm, ridged, billow };
enum class WorleyReturn { f1, f2, f2_minus_f1 };
enum class WorleyDistance { euclidean, manhattan, chebyshev };

enum class ModifierKind { warp, island, terrace, smooth, combine, thermal, hydraulic };
enum class IslandShape { circle, square };
enum class CombineOp { add, multiply, min, max, mix };

struct ModifierSettings {
    ModifierKind kind = ModifierKind::island;
    // warp: displace lookups by a simplex fBm field
    double strength = 16;   // cells; default 16, range 0..4096
    double warp_scale = 64; // cells per period of the warp noise; default 64, range 1..1e6
    int warp_octaves = 3;   // default 3, range 1..12
    int levels = 1;         // 1 or 2 (warp the warp); default 1
    // island: pull the edges down
    IslandShape shape = IslandShape::circle; // default circle
    double falloff = 0.7; // strength of the pull at the edge; default 0.7, range 0..1
    double radius = 0.9;  // where the falloff is full, as a fraction of the half-size; default 0.9,
                          // range 0.05..4
    double start =
        0.3; // where the falloff begins (fraction of the half-size); default 0.3, range 0..radius
    // terrace
    int steps = 6;          // default 6, range 2..256
    double sharpness = 0.8; // 0 = unchanged, 1 = flat steps; default 0.8, range 0..1
    // smooth
    int smooth_radius = 1; // box radius in cells; default 1, range 1..64
    int passes = 1;        // default 1, range 1..16
    // combine
    CombineOp op = CombineOp::add; // default add
    std::string map;               // the other map's name (required for combine)
    double amount = 0.5;           // weight of the other map (add, mix); default 0.5, range 0..1
    int line = 0, column = 0;      // where it was written (combine: its 'map' value), for messages
    ThermalSettings thermal;       // thermal erosion (whole-map)
    HydraulicSettings hydraulic;   // hydraulic erosion (whole-map)
};

struct NoiseSettings {
    NoiseKind kind = NoiseKind::harmonic;
    std::uint64_t seed_offset = 0; // added to the map seed; default 0 (maps also differ by name)
    HarmonicNoiseConfig harmonic;  // kind = harmonic: interpolation, octaves, persistence
    // value / perlin / simplex / worley
    double scale = 64;       // cells per period of the first octave; default 64, range 1..1e6
    int octaves = 5;         // default 5, range 1..16 (harmonic: see harmonic.octaves)
    double lacunarity = 2.0; // frequency factor between octaves; default 2, range 1..8
    double gain = 0.5;       // amplitude factor between octaves; default 0.5, range 0..1
    Fractal fractal = Fractal::fbm; // default fbm
    LatticeInterpolation lattice_interpolation =
        LatticeInterpolation::quintic;                          // value noise; default quintic
    WorleyReturn worley_return = WorleyReturn::f1;              // default f1
    WorleyDistance worley_distance = WorleyDistance::euclidean; // default euclidean
    // diamond-square
    double roughness = 0.5; // amplitude factor per halving; default 0.5, range 0..1
    // fault
    int faults = 200;  // default 200, range 1..100000
    int smoothing = 2; // box-blur passes after faulting/deposition; default 2, range 0..32
    // hills
    int hills = 300;             // default 300, range 1..1000000
    double hill_radius_min = 4;  // cells; default 4, range 1..1e5
    double hill_radius_max = 20; // cells; default 20, range hill_radius_min..1e5
    // particle
    int drops = 40;       // drop points; default 40, range 1..100000
    int particles = 2000; // particles per drop; default 2000, range 1..1e7
    // profile
    double base =
        0.5; // mean ground level, fraction of the height from the bottom; default 0.5, 0..1
    double amplitude = 0.35; // profile swing, fraction of the height; default 0.35, range 0..1
    bool cosine = true;      // cosine (true, default) or linear interpolation of the 1D points

    AgentSettings agents; // kind = agents

    std::vector<ModifierSettings> modifiers; // applied in order
};

// Whether a kind computes any region on its own with the same values as the whole map
// (position-based). Whole-map kinds (diamond-square, fault, hills, particle) depend on every cell
// (normalisation, smoothing, sequential deposition), so a region is cut from the whole map.
bool is_position_based(NoiseKind kind);

const char* noise_kind_name(NoiseKind kind);

} // namespace tilegen
