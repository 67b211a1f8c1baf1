// Lattice noise computed row by row over a region: value noise and Perlin (gradient) noise with fractal sums.
// Input: settings (scale, octaves, lacunarity, gain, fractal, interpolation), seed, region, threads.
// Output: Grid<float> in [0, 1].
// Invariants: a cell's value depends only on its absolute position (per-column and per-row lattice coordinates
// are computed from absolute coordinates, lattice values are position hashes), so a region equals the same
// window of a larger one, at any thread count. Each octave keeps two lattice rows per thread and no cell hashes:
// the cost per cell is a few multiply-adds per octave.
#pragma once

#include <cstdint>

#include "core/grid.hpp"
#include "core/heightfield/noise_settings.hpp"

namespace tilegen {

// kind must be NoiseKind::value or NoiseKind::perlin.
Grid<float> lattice_noise(const NoiseSettings& s, std::uint64_t seed, Region region, int threads);

} // namespace tilegen
