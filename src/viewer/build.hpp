// Build: one generated map and everything the viewer derives from it, made once off the window's
// thread and then shared read-only (std::shared_ptr<const Build>) by the renderer, the inspector
// and exports. Input: a loaded Project and the run's options (seed, size). Output: the
// GenerateResult (heights, classes, per-layer decisions, the Map) plus per-tile average colors,
// per-class and per-rule colors, the outside policy and error gid explain_cell needs, and a small
// overview image of the whole map (the renderer's stand-in until the pieces in view are made).
// Invariants: everything is a pure function of (project, options): the map equals what `tilegen
// generate` makes for the same recipe, seed and size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/pipeline.hpp"
#include "core/project.hpp"
#include "core/quality/map_stats_of.hpp"

namespace tilegen::viewer {

struct Build {
    Project project;
    GenerateOptions options;
    GenerateResult result;
    std::string symbols;            // class symbols in class order, e.g. "wsg"
    OutsidePolicy outside;          // as the pipeline applies [rules] outside
    Gid error_gid = 0;              // the red error tile's gid (last atlas tile)
    std::vector<Rgba> tile_average; // per atlas tile: its mean color (alpha-weighted), alpha = mean
    std::vector<bool> tile_opaque;  // per atlas tile: every pixel has alpha 255
    std::vector<Rgba> class_color;  // per terrain class
    std::vector<std::vector<Rgba>>
        rule_color;                    // per layer, per ordered rule: color of hash(file:line)
    std::uint64_t unmatched_cells = 0; // cells that some layer left to the error tile
    MapStats stats; // the map's quality numbers (tilegen stats), shown in the status bar
    float height_min = 0,
          height_max = 1;           // the heightfield's range (the height overlay stretches it)
    float flow_max = 1;             // [rivers]: the largest flow accumulation (the flow overlay)
    std::vector<bool> objects_by_y; // per object layer: objects sorted by y (drawing order)
    Image overview; // the whole map in tile colors (see map_pixels.hpp), B G R A bytes: the
                    // renderer's order
    bool overview_opaque = false;
    int overview_level = 0; // one overview texel per 2^level x 2^level cells
    double generate_ms = 0; // wall time of generate_map + the derived data

    int width() const { return result.map.width; }
    int height() const { return result.map.height; }
    int tile_width() const { return result.map.atlas.tile_width; }
    int tile_height() const { return result.map.atlas.tile_height; }
};

std::shared_ptr<const Build> make_build(Project project, const GenerateOptions& options);

// A color for terrain class `index` named `name`: familiar colors for common names (water, sand,
// grass, forest, rock, snow, ...), else a color from a hash of the name.
Rgba class_color_for(const std::string& name, int index);
// A bright color from hash("file:line"): the same rule has the same color in every run.
Rgba rule_color_for(const std::string& file, int line);
// Mean color of a w x h block of `image` at (x, y), color weighted by alpha.
Rgba average_color(const Image& image, int x, int y, int w, int h);

// The hover inspector's text for cell (x, y): coordinates, height, class, then per layer the
// deciding rule (file:line, variant, pattern) and the tile chosen, as `tilegen explain` decides
// them (via explain_cell).
std::vector<std::string> inspect_cell(const Build& build, int x, int y);

} // namespace tilegen::viewer
