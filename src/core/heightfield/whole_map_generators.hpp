// Whole-map heightfield algorithms: diamond-square, fault formation, hills, particle deposition.
// Input: settings, seed, map size. Output: Grid<float> of the whole map, min-max normalised to [0,
// 1]. Invariants: deterministic from the seed (positions and amounts are hashes of (seed, index));
// these depend on the whole map (recursive subdivision, smoothing, normalisation, sequential
// deposition), so a region is cut from the whole map rather than computed alone.
#pragma once

#include <cstdint>

#include "core/grid.hpp"
#include "core/heightfield/noise_settings.hpp"

namespace tilegen {

Grid<float> diamond_square(const NoiseSettings& s, std::uint64_t seed, int width, int height);
Grid<float> fault_formation(const NoiseSettings& s, std::uint64_t seed, int width, int height);
Grid<float> random_hills(const NoiseSettings& s, std::uint64_t seed, int width, int height);
Grid<float> particle_deposition(const NoiseSettings& s, std::uint64_t seed, int width, int height);

// Box blur of the given radius, `passes` times; edges use the nearest cell inside.
void box_blur(Grid<float>& g, int radius, int passes);
// Rescales to [0, 1] (a flat grid becomes all 0.5).
void normalise_min_max(Grid<float>& g);

} // namespace tilegen
