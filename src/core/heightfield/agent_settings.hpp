// Settings of the `agents` heightfield kind (Doran and Parberry's software agents, reference 003
// section 4.4) and of the erosion modifiers. Every field documents its default and range; the
// recipe parser (map_settings_parser.cpp) enforces the ranges. Heights are in [0, 1]; sea level is
// AgentSettings::sea_level.
#pragma once

namespace tilegen {

// Coastline agents: one agent holding the whole token budget subdivides into two halves until each
// holds at most `limit` tokens; every leaf raises `tokens` sea cells next to land, each time the
// one scoring best by repulsor·d_r² − attractor·d_a² − edge·max(0, margin − d_edge)².
struct CoastlineAgents {
    double budget = 0.35; // land raised, as a fraction of the map's cells; default 0.35, 0..0.95
    int limit = 4096;     // subdivision limit: most tokens per agent; default 4096, 16..1e8
    double spread = 0.5;  // children's seed points from the parent's, as a fraction of the parent's
                          // blob radius; 0 = all from the centre; default 0.5, range 0..4
    double attractor = 1; // weight of the attractor distance; default 1, range 0..100
    double repulsor = 1;  // weight of the repulsor distance; default 1, range 0..100
    double edge = 3;      // weight of the map-edge penalty; default 3, range 0..100
    double compact = 0.5; // weight of the land among a cell's 8 neighbours; default 0.5, 0..100
    double rise = 0.004;  // land rises this much per cell from the coast (at most 0.2);
                          // default 0.004, range 0..0.1
};

// Smoothing agents: each walks `steps` cells from its start point, `revisits` times, setting each
// cell to (3·centre + 2·Σ 4 orthogonal neighbours + Σ the 4 cells beyond them) / 15.
struct SmoothingAgents {
    int agents = 100; // default 100, range 0..1e6
    int revisits = 8; // default 8, range 1..1000
    int steps = 40;   // default 40, range 1..1e5
};

// Beach agents: start on the coast, walk along it; every land cell within `width` cells of the
// agent and below `altitude` gets a height in [low, high] (flattened).
struct BeachAgents {
    int agents = 0;         // default 0 (none), range 0..1e6
    int steps = 200;        // default 200, range 1..1e6
    int width = 3;          // flatten depth inland, cells; default 3, range 1..64
    double altitude = 0.42; // only cells below this are flattened; default 0.42, range 0..1
    double low = 0.305;     // height range assigned; default 0.305, range 0..1
    double high = 0.33;     // default 0.33, range low..1
};

// Mountain (and hill) agents: walk from a random inland cell, raising a cone of `width` cells
// around each step to at most `altitude` (a V-shaped ridge, falling `slope` per cell), turning 45°
// with probability `turn` per step; mountains grow a foothill every `foothill_every` steps.
struct RidgeAgents {
    int agents = 0;           // default 0 (none), range 0..10000
    int steps = 120;          // default 120 (hills 40), range 1..1e5
    int width = 6;            // cone radius, cells; default 6 (hills 4), range 1..64
    double slope = 0.05;      // height falling per cell from the ridge; default 0.05 (hills
                              // 0.04), range 0.0001..1
    double altitude = 0.9;    // ridge height; default 0.9 (hills 0.6), range 0..1
    double turn = 0.15;       // probability of a 45° turn per step; default 0.15, range 0..1
    int foothill_length = 10; // cells; default 10, range 0..1000 (mountains only)
    int foothill_every = 15;  // steps between foothills; default 15, range 1..1e5 (mountains only)
};

struct AgentSettings {
    double sea_level = 0.3; // default 0.3, range 0.01..0.9
    CoastlineAgents coastline;
    SmoothingAgents smoothing;
    BeachAgents beach;
    RidgeAgents mountain;
    RidgeAgents hill{0, 40, 4, 0.04, 0.6, 0.15, 0, 15};
};

// Thermal erosion: material slides from a cell to lower 4-neighbours where the drop exceeds `talus`
// (a synchronous update: half the excess of the steepest drop over 0.9·talus moves, split over the
// steep neighbours by their excess, so drops settle a little below the talus).
struct ThermalSettings {
    double talus = 0.01; // steepest stable drop between neighbours (height per cell); default 0.01,
                         // range 0..1
    int iterations = 50; // default 50, range 1..10000
};

// Hydraulic erosion: droplets in a fixed order, each rolling downhill with inertia, eroding
// (within `radius`) while carrying less than its capacity and depositing otherwise.
struct HydraulicSettings {
    double droplets = 0.5;   // droplets per map cell; default 0.5, range 0..64
    double inertia = 0.05;   // default 0.05, range 0..1
    double capacity = 4;     // sediment capacity factor; default 4, range 0..100
    double deposition = 0.3; // share of the excess deposited per step; default 0.3, range 0..1
    double erosion = 0.3;    // share of the free capacity eroded per step; default 0.3, range 0..1
    double evaporation = 0.01; // water lost per step; default 0.01, range 0..1
    int radius = 3;            // erosion brush radius, cells; default 3, range 1..16
    int lifetime = 30;         // steps per droplet; default 30, range 1..1000
};

} // namespace tilegen
