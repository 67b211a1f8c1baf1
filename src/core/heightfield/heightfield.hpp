// Heightfield: one named map of a recipe, computed for any region.
// Input: the map's settings (generator + modifiers in order), the run seed, the map size, a region,
// and a way to get other named maps (for `combine`). Output: Grid<float> of the region, values in
// [0, 1]. Invariants: for position-based kinds the region equals the same window of the whole map,
// modifiers included (warp and smooth read a margin around the region, computed too); whole-map
// kinds compute the whole map and cut. Memory: the grid being modified, plus the output of a
// modifier that reads neighbours (warp), which covers only what later modifiers still read. A value
// or Perlin base warped first (one level) is never built as a grid: the warp generates its rows as
// it reads them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/grid.hpp"
#include "core/heightfield/noise_settings.hpp"

namespace tilegen {

struct MapDefinition {
    std::string name; // "elevation" for [noise]
    NoiseSettings settings;
    int line = 0, column = 0; // where it was defined
};

// Returns another named map over a region (used by `combine`).
using MapLookup = std::function<Grid<float>(const std::string& name, Region region)>;

// The seed a named map draws from: the run seed for "elevation" (so [noise] maps keep their
// values), else a hash of (seed, name); plus the map's seed_offset.
std::uint64_t map_seed(const MapDefinition& def, std::uint64_t seed);

// `threads` splits rows where a stage allows it; values never depend on it.
Grid<float> generate_heightfield(const MapDefinition& def, std::uint64_t seed, int map_width,
                                 int map_height, Region region, const MapLookup& other_maps,
                                 int threads = 1);

// The generator alone (no modifiers) over a region.
Grid<float> generate_base(const NoiseSettings& s, std::uint64_t seed, int map_width, int map_height,
                          Region region, int threads = 1);

} // namespace tilegen
