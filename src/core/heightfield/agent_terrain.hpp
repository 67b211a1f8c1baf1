// Agent-based terrain (Doran and Parberry, reference 003 section 4.4): software agents shape a
// heightfield in a fixed order — coastline (land raised from the sea), mountain, hill, smoothing,
// beach. Input: AgentSettings, seed, map size. Output: Grid<float> of the whole map, values in
// [0, 1] (not normalised: the sea is below settings.sea_level, land above it). Invariants: every
// decision is a hash of (seed, agent type, agent, step, ...), never a stateful generator, and the
// agents run one after another, so a seed gives one map on any build and thread count. Whole-map:
// a region is cut from the whole map.
#pragma once

#include <cstdint>

#include "core/grid.hpp"
#include "core/heightfield/agent_settings.hpp"

namespace tilegen {

Grid<float> agent_terrain(const AgentSettings& s, std::uint64_t seed, int width, int height);

} // namespace tilegen
