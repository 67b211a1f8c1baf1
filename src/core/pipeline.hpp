// The whole pipeline as one pure function: Project -> Heightfield -> ClassGrid -> TileGrids -> Map.
// Input: a loaded Project and per-run overrides (seed, size, a hand-made class map).
// Output: the Map (atlas + layers + properties) and what the run measured (class fractions, rule
// hits, unmatched cells, stage timings). Same project + options => identical map.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/classes/terrain_classes.hpp"
#include "core/map.hpp"
#include "core/objects/object_placement.hpp"
#include "core/project.hpp"
#include "core/rules/autotile.hpp"

namespace tilegen {

struct GenerateOptions {
    std::optional<std::uint64_t> seed; // overrides [map] seed
    std::optional<int> width, height;  // override [map] width/height
    std::optional<ClassGrid> classes;  // skips the noise: the class map to autotile
    int threads = 1; // worker threads for the heavy stages; the output never depends on it
    bool keep_details =
        true; // keep heights, maps and per-cell decisions in the result (viewer, explain);
              // without them memory is about 6 bytes per cell less per map and layer
};

struct StageTiming {
    std::string stage;
    double ms = 0;
};

struct RuleHits {
    std::string file;
    int line = 0;
    std::string layer;
    std::uint64_t hits = 0;
};

struct GenerateResult {
    Map map;
    std::uint64_t seed = 0;
    Grid<float> heights; // the map classes are cut from (the biome table's rows); empty with a
                         // given class map or without keep_details
    std::vector<std::pair<std::string, Grid<float>>> maps; // every named map computed, in recipe
                                                           // order (empty without keep_details)
    ClassGrid classes;
    std::vector<float> thresholds;
    std::vector<double> class_fractions; // per recipe terrain class
    std::vector<LayerRules> layers;      // the rules as ordered and resolved for this run
    std::vector<Grid<int>> decisions;    // per layer: the deciding rule (index into
                                         // layers[i].ordered); empty without keep_details
    std::vector<RuleHits> rule_hits;     // per rule, in the order of the rule files
    std::uint64_t unmatched = 0;
    std::vector<std::uint64_t> layer_unmatched; // per layer: cells no rule matched
    std::vector<std::int64_t>
        first_unmatched;               // per layer: y * width + x of the first of them, or -1
    std::vector<PlacedObject> objects; // sprites on top, in drawing order
    std::vector<StageTiming> timings;  // noise, classes, rules, map; then total
};

GenerateResult generate_map(const Project& project, const GenerateOptions& options);

// Per atlas tile: the class its rules place it on (ground layer, single-class centre) and its
// relative probability among a rule's alternatives (the first rule that names it).
void annotate_atlas(Atlas& atlas, const std::vector<LayerRules>& layers, const Recipe& recipe);

// One named map of the recipe over a region of a map of the given size (combine dependencies
// included).
Grid<float> compute_map(const Recipe& recipe, const std::string& name, std::uint64_t seed,
                        int map_width, int map_height, Region region, int threads = 1);

// Classes from maps with thresholds already known (as classes_from_maps returns them); `counts` as
// in classify.
ClassGrid classes_with_thresholds(const Recipe& recipe,
                                  const std::vector<std::pair<std::string, Grid<float>>>& maps,
                                  const std::vector<float>& thresholds, int threads = 1,
                                  std::vector<std::uint64_t>* counts = nullptr);

// Chunk-by-chunk generation of an unbounded world (infinite maps): thresholds come from a sample
// window of the world and are then fixed; each chunk computes its maps over the chunk plus the
// rules' radius (position-based kinds only), classifies, autotiles, and keeps its own cells. Memory
// is proportional to one chunk.
struct WorldSetup {
    std::uint64_t seed = 0;
    int scale_width = 0, scale_height = 0; // the map size that sets map-relative noise scales
    Region sample;                         // the window thresholds were read from
    std::vector<float> thresholds;
    std::vector<LayerRules> layers;
    Atlas atlas;
    Gid error_gid = 0;
    OutsidePolicy outside;
    int radius = 1;
};

// Nullopt (with `error`) when a map the classes need is a whole-map kind.
std::optional<WorldSetup> prepare_world(const Project& project, std::uint64_t seed, int scale_width,
                                        int scale_height, Region sample, std::string& error);
// One tile grid per layer for the chunk; `unmatched` counts cells no rule matched.
std::vector<Grid<Gid>> generate_chunk(const Project& project, const WorldSetup& world, Region chunk,
                                      std::uint64_t& unmatched);

// Classes from the recipe's maps: percentile shares of one map, or the biome table over two.
// `maps` holds the whole maps by name; thresholds per band are returned in `thresholds` (rows, then
// columns). With `counts` (sized by the caller, usually to the class count), also the cells of each
// class id, as class_counts would give them.
ClassGrid classes_from_maps(const Recipe& recipe,
                            const std::vector<std::pair<std::string, Grid<float>>>& maps,
                            std::vector<float>& thresholds, int threads = 1,
                            std::vector<std::uint64_t>* counts = nullptr);

// The rule layers of a project in order of first appearance, each ordered by specificity, targets
// resolved against `atlas_index_of_image` (index of each project image in the atlas) and the
// tileset.
std::vector<LayerRules> build_layers(const Project& project,
                                     const std::vector<int>& atlas_index_of_image, int error_index);

} // namespace tilegen
