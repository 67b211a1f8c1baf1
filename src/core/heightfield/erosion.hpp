// Erosion modifiers. Input: a heightfield grid (the whole map or a larger covered area) and the
// settings. Output: the grid eroded in place. Invariants: thermal erosion is a synchronous update
// (each iteration reads the previous one only), split over rows, so its values never depend on the
// thread count; hydraulic droplets run one after another in a fixed order from hashed start points.
// Material is conserved: what a cell loses another gains, except sediment carried off the map edge,
// which is counted.
#pragma once

#include <cstdint>

#include "core/grid.hpp"
#include "core/heightfield/agent_settings.hpp"

namespace tilegen {

// Totals of a run, in height units summed over cells.
struct ErosionTotals {
    double eroded = 0;      // material taken from cells
    double deposited = 0;   // material put down on cells
    double carried_off = 0; // sediment carried off the map edge
};

ErosionTotals thermal_erosion(Grid<float>& g, const ThermalSettings& s, int threads = 1);
ErosionTotals hydraulic_erosion(Grid<float>& g, const HydraulicSettings& s, std::uint64_t seed);

} // namespace tilegen
