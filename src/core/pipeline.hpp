// The pipeline: Project -> maps -> ClassGrid -> objects -> TileGrids -> Map, as a list of named
// stages (README, "How it works"):
//
//   noise    the named maps the run needs (heightfields; with a given class map only the
//            objects' density maps)
//   hydrology [rivers]: the map classes are cut from is carved along rivers (hydrology.hpp);
//            thresholds are read off it before the carving
//   classes  ClassGrid from the maps by percentile thresholds or the biome table (or the given
//            class map), and the class fractions; with [rivers], lakes, rivers and waterfalls
//            written over it (overlay terrains, which no later stage changes or produces); after
//            each later class stage every river still ends in water of at least its min_area
//            (docs/hydrology.md, "Where rivers end")
//   class_passes  the rule files' [classes] sections rewrite the class grid, in order, as
//            cellular automata (only when the rule files have such sections; a given class map
//            is rewritten too)
//   cleanup  [[terrain]] min_width and min_area: thin parts opened, small regions merged (only
//            when a terrain sets them)
//   legalise [rules] legalise = true: the class grid rewritten so the tile rules draw every cell
//   shares   [classes] keep_shares (default true): cells moved back along class borders so every
//            class keeps its share (only after class passes, clean-up or legalise moved cells;
//            after legalise only moves that keep every cell drawable)
//   places   [[places]]: towns, a dungeon entrance, the start (places.hpp; only with [[places]]);
//            on a map of fewer cells than the recipe's [map] size, counts and min_distance scaled
//            down with the cell ratio (docs/places-and-roads.md, "Map size")
//   roads    [roads]: least-cost roads and bridges between places, written into the class grid as
//            overlay terrains (roads.hpp; only with [roads])
//   reachability  [constraints] walkable_regions = 1: one walkable region holding the start
//            (reachability.hpp); then the constraints are checked: when one is not met and
//            `tries` allows, the run starts again from `noise` with a derived seed
//   objects  sprites on top of the classes (only when the recipe scatters objects; never on a
//            place, road or bridge cell)
//   rules    one TileGrid per rule layer by descriptor rules; rule-hit statistics
//   map      the Map: atlas, tile layers, object layer, map properties
//
// Input: a loaded Project (validated: every map name it uses exists) and per-run overrides (seed,
// size, a hand-made class map). Output: the Map and what the run measured (class fractions, rule
// hits, unmatched cells, stage timings). Invariants: each stage is a function over the run's state
// that reads what earlier stages left and adds its own part; every stage is timed by one runner
// under its name (the key of `generate --json` timings_ms and of `tilegen bench`); same project +
// options => identical map at any thread count. Adding a stage is one line in the stage list of
// pipeline.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/classes/class_shares.hpp"
#include "core/classes/terrain_classes.hpp"
#include "core/hydrology/hydrology.hpp"
#include "core/map.hpp"
#include "core/objects/object_placement.hpp"
#include "core/project.hpp"
#include "core/quality/fitness.hpp"
#include "core/quality/reachability.hpp"
#include "core/roads/roads.hpp"
#include "core/rules/autotile.hpp"
#include "core/rules/class_passes.hpp"
#include "core/rules/legalise.hpp"

namespace tilegen {

struct GenerateOptions {
    std::optional<std::uint64_t> seed; // overrides [map] seed
    std::optional<int> width, height;  // override [map] width/height
    std::optional<ClassGrid> classes;  // skips the noise: the class map to autotile
    int threads = 1; // worker threads for the heavy stages; the output never depends on it
    bool keep_details =
        true; // keep heights, maps and per-cell decisions in the result (viewer, explain);
              // without them each map is freed once no later stage reads it (the grid pool
              // hands its memory to the next stages) and the run keeps no decision grids
    // Called with one line per search try that missed a constraint ("try 2/5 seed N: <what>");
    // empty: quiet.
    std::function<void(const std::string&)> progress;
};

// What [[places]], [roads] and [constraints] asked and what the kept try achieved.
struct ConstraintsReport {
    bool asked = false; // the recipe has [[places]] or [constraints]
    bool met = true;
    int tries = 0;     // tries made (1 when the first seed met every constraint)
    std::string unmet; // the first constraint not met, as a message naming it; empty when met
    Fitness fitness;   // of the kept try (reference 003's evaluation functions)
};

// [search]: what the evolutionary loop did and the values it kept (search_parser.hpp).
struct SearchReport {
    bool ran = false;
    int generations = 0, population = 0;
    int evaluations = 0; // individuals generated (through the reachability stage)
    double score = 0;    // weighted evaluation functions of the kept map
    std::vector<std::pair<std::string, double>> values; // per [search.ranges] path, in order
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
    ClassGrid classes; // the final classes (after class passes): what the tiles are chosen from
    std::vector<float> thresholds;
    std::vector<double> class_fractions; // per recipe terrain class, of the final classes
    // Per class, right after the classes stage (before any pass rewrote the grid): what the
    // heightfield's percentiles or biome table produced.
    std::vector<double> classified_fractions;
    // The grid the class passes started from (empty without passes or without keep_details):
    // explain and the inspector replay one cell's history from it (class_history).
    ClassGrid classes_before_passes;
    std::vector<int> pass_runs; // per class pass (Project::class_passes): the runs it made
    // The grid the clean-up started from (empty without clean-up or without keep_details), and
    // what the clean-up did.
    ClassGrid classes_before_cleanup;
    CleanupReport cleanup;
    // The grid keep_shares started from (empty without that stage or without keep_details), and
    // how many cells it moved.
    ClassGrid classes_before_shares;
    ShareReport shares;
    // The grid legalise started from (empty without it or without keep_details), and its report.
    ClassGrid classes_before_legalise;
    LegaliseReport legalise;
    // The grid the roads (or, without [roads], the reachability stage) started from (empty
    // without those stages or without keep_details): what roads and carved passes replaced.
    ClassGrid classes_before_roads;
    std::vector<std::vector<std::uint64_t>> pass_changed; // per pass, per run: cells changed
    std::vector<LayerRules> layers;   // the rules as ordered and resolved for this run
    std::vector<Grid<int>> decisions; // per layer: the deciding rule (index into
                                      // layers[i].ordered); empty without keep_details
    std::vector<RuleHits> rule_hits;  // per rule, in the order of the rule files
    std::uint64_t unmatched = 0;
    std::vector<std::uint64_t> layer_unmatched; // per layer: cells no rule matched
    std::vector<std::int64_t>
        first_unmatched;               // per layer: y * width + x of the first of them, or -1
    std::vector<Place> places;         // [[places]], rule by rule (places.hpp)
    RoadsResult roads;                 // [roads], in the order they were built (roads.hpp)
    ReachReport reach;                 // [constraints] walkable_regions (reachability.hpp)
    ConstraintsReport constraints;     // and the search over tries; `seed` is the kept seed
    SearchReport search;               // [search]: the evolved values (map properties search.*)
    std::vector<PlacedObject> objects; // sprites on top, in drawing order
    std::vector<StageTiming> timings;  // per stage that ran, in order; then total
    // [rivers]: the rivers and lakes written (empty without [rivers] or with a given class map),
    // and with keep_details the flow accumulation (the viewer's flow overlay).
    std::optional<RiverOverlay> hydrology;
    Grid<float> flow;
};

// Runs `body` and appends {stage, its wall time in ms} to `timings`: the one way a stage is timed
// (the pipeline's stages, and the stages apps add after it such as bench's "tmx").
template <class Body>
void run_timed(std::vector<StageTiming>& timings, std::string stage, Body&& body) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    timings.push_back(
        {std::move(stage),
         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()});
}

// [rivers]: the map classes are cut from, carved by the hydrology (what `tilegen noise` writes),
// over the whole map. The project must have [rivers] (std::bad_optional_access otherwise).
Grid<float> carved_class_map(const Project& project, std::uint64_t seed, int width, int height,
                             int threads);

// The names of the pipeline's stages in order (a stage that does not apply to a run is left out
// of its timings).
std::vector<std::string> pipeline_stage_names();

// Every stage that applies, in order, each through run_timed; then "total". With [search] (and no
// given class map), first the evolutionary loop: generation 0 is the recipe's own values and
// population - 1 uniform draws in the ranges; each later generation keeps the better half (the
// elites: constraints met first, then the higher score, ties to the earlier) and fills the rest
// with elites whose values each move by up to a quarter of their range (hash of seed, generation,
// individual, parameter); one progress line per generation. Every individual runs the stages up to
// reachability with the seed given (when only [[places]], [roads] or [constraints] values are
// searched, from a copy of the state the stages before `places` left, computed once); the best
// one's values are then generated as usual (tries) and stored as map properties "search.PATH".
GenerateResult generate_map(const Project& project, const GenerateOptions& options);

// One search individual: the stages up to reachability with this seed, whether every constraint
// is met, and the evaluation functions.
struct SearchEvaluation {
    bool met = false;
    Fitness fitness;
};
SearchEvaluation evaluate_constraints(const Project& project, const GenerateOptions& options,
                                      std::uint64_t seed);

// Cell (x, y)'s way through the class passes of a run made with keep_details: one step per run
// (pass, run, class before and after, the deciding rule), replayed from
// result.classes_before_passes; empty when the project has no passes.
std::vector<ClassStep> class_history(const Project& project, const GenerateResult& result, int x,
                                     int y);

// What the stages after the classification did to cell (x, y), as text lines for explain and the
// viewer's inspector: "classified as NAME (s)", each class pass (class_history_lines), the
// clean-up ("clean-up (min_width, min_area): A -> B"); empty when no such stage ran or the run
// kept no details.
std::vector<std::string> class_change_lines(const Project& project, const GenerateResult& result,
                                            int x, int y);

// [rivers]: the river cell (x, y) belongs to ("river N of M: source (x, y), mouth (x, y), length
// L, width up to W, ends in 'w'" or "the map edge"), or that it is a lake; empty otherwise. Part
// of class_change_lines (explain, the viewer's inspector).
std::vector<std::string> hydrology_lines(const Project& project, const GenerateResult& result,
                                         int x, int y);

// [[places]] and [roads]: the place whose footprint holds cell (x, y) ("place 'NAME' (index I of
// N): cell (x, y), footprint WxH, sprite S, start"), each road over it ("road R of M: from 'A'
// (index I) to 'B' (index J), L cells (K bridge cells), cost C", "bridge on road ..." on a span,
// "(a loop)" for extra links), or that it is a pass or bridge the reachability stage carved; empty
// otherwise. Part of class_change_lines (explain, the viewer's inspector).
std::vector<std::string> place_road_lines(const Project& project, const GenerateResult& result,
                                          int x, int y);

// What neighbours outside the map count as, from [rules] outside.
OutsidePolicy outside_policy(const Recipe& recipe);

// The maps the classes are cut from: [classes] map, or the biome table's rows and columns maps.
std::vector<std::string> class_maps(const Recipe& recipe);

// The map properties of a generated map: generator, recipe, seed, size, inputs_hash (finite maps),
// threshold_sample (infinite maps), thresholds (9 significant digits; not with a given class map),
// classes (finite maps).
struct MapPropertyValues {
    std::uint64_t seed = 0;
    int width = 0, height = 0;
    const std::vector<float>* thresholds = nullptr; // nullptr: the class map was given
    std::optional<Region> threshold_sample;         // infinite maps: where thresholds were read
    int rivers = -1; // rivers written ([rivers]); -1: no such property
};
std::vector<MapProperty> map_properties(const Project& project, const MapPropertyValues& values);

// Terrain class `index`'s colour (0xRRGGBB): the recipe's `color`, else a default of 8 by index
// (the Wang colours of the TSX, LDtk's IntGrid values).
std::uint32_t terrain_rgb(const Recipe& recipe, std::size_t index);

// Per atlas tile: the class its rules place it on (ground layer, single-class centre) and its
// relative probability among a rule's alternatives (the first rule that names it).
void annotate_atlas(Atlas& atlas, const std::vector<LayerRules>& layers, const Recipe& recipe);

// One named map of the recipe over a region of a map of the given size (combine dependencies
// included). The name must be one the recipe defines (parse_recipe checks every reference):
// std::logic_error otherwise.
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
    int radius = 1;     // the widest tile pattern's radius: each chunk is padded by it
    int pass_reach = 0; // how far the class passes see (runs x widest class pattern radius)
};

// Nullopt (with an error in `diags`) when a map the classes need is a whole-map kind (at the map's
// definition), or a class pass runs until stable (`[classes *]`: how far it sees depends on the
// whole map; at the section header).
[[nodiscard]] std::optional<WorldSetup> prepare_world(const Project& project, std::uint64_t seed,
                                                      int scale_width, int scale_height,
                                                      Region sample, Diagnostics& diags);
// The classes of `area` of the world, after the class passes: what generate_chunk draws.
ClassGrid world_classes(const Project& project, const WorldSetup& world, Region area);
// The world's objects anchored in `window` (world cells), in drawing order: placed over the
// window and object_margin() cells around it (object_placement.hpp), clipped to `bounds`, the
// world's extent (a finite map's [0, width) x [0, height); nullopt: an endless world). With the
// same classes (a map within the threshold sample) they are the finite map's objects there, and
// any two windows agree where they meet. Memory and time grow with the window plus its margin.
std::vector<PlacedObject> window_objects(const Project& project, const WorldSetup& world,
                                         std::optional<Region> bounds, Region window,
                                         int threads = 1);
// Every object of a world bounded by `bounds`: window_objects band by band (memory for one band
// of rows), in drawing order.
std::vector<PlacedObject> world_objects(const Project& project, const WorldSetup& world,
                                        Region bounds, int threads = 1);
// The sprite sheet as the map carries it, and the placed objects as tile objects in pixels (the
// sprite's bottom-left at its footprint's bottom-left), as one more object layer.
void add_object_layer(Map& map, const SpriteSheet& sheet, const std::vector<PlacedObject>& objects);

// One tile grid per layer for the chunk (a corner layer's one column and row larger: corners
// chunk.x .. chunk.x + width); `unmatched` counts cells (corners) no rule matched.
std::vector<Grid<Gid>> generate_chunk(const Project& project, const WorldSetup& world, Region chunk,
                                      std::uint64_t& unmatched);

// Classes from the recipe's maps: percentile shares of one map, or the biome table over two.
// `maps` holds the whole maps by name; thresholds per band are returned in `thresholds` (rows, then
// columns). With `counts` (sized by the caller, usually to the class count), also the cells of each
// class id, as class_counts would give them.
// The thresholds classes_from_maps cuts with (overlay terrains have none). `range`, when given,
// gets the range of the first of class_maps (thresholds_from_shares: found by its histogram pass).
std::vector<float> thresholds_of_maps(const Recipe& recipe,
                                      const std::vector<std::pair<std::string, Grid<float>>>& maps,
                                      int threads = 1, std::pair<float, float>* range = nullptr);

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
