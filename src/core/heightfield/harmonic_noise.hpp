// Harmonic noise: the default heightfield (reference article, 004).
// Input: config, seed, the map size (sets the lattice scale) and a region of the map to compute.
// Output: Grid<float> of region.width x region.height, values in [0, 1].
// Invariants: octave k is a lattice of 2^k x 2^k random values spanning the map, upscaled by
// (s-curve) bilinear interpolation and weighted persistence^k; the sum is divided by the sum of
// weights. Lattice values are a hash of (seed, octave, lattice x, lattice y), so any region gives
// the same values as the whole map (region consistency), and regions outside the map continue the
// noise (lattice points beyond the map are hashed the same way). Cost: per octave and row, the two
// lattice rows are blended along y once per lattice column, then each cell is one multiply-add on
// its lattice cell's values (a lattice cell at a time, vectorised); each lattice row is hashed once
// per thread.
#pragma once

#include <cstdint>

#include "core/grid.hpp"

namespace tilegen {

enum class Interpolation {
    bilinear,   // straight slopes between lattice points
    smoothstep, // bilinear with smoothstep weights 3t^2 - 2t^3 in both directions (smooth slopes,
                // flat peaks); recipes may also write it "bicubic", its old name
};

struct HarmonicNoiseConfig {
    Interpolation interpolation = Interpolation::smoothstep; // default smoothstep
    int octaves = 0; // default 0 = every octave up to the map size (2^k >= max side); range 0..30
    double persistence =
        0.5; // amplitude factor from one octave to the next; default 0.5, range (0, 1]
};

// Number of octaves used for a map of the given size (resolves octaves == 0).
int harmonic_octave_count(const HarmonicNoiseConfig& config, int map_width, int map_height);

// Rows are split over `threads`; the values do not depend on the thread count.
Grid<float> harmonic_noise(const HarmonicNoiseConfig& config, std::uint64_t seed, int map_width,
                           int map_height, Region region, int threads = 1);

} // namespace tilegen
