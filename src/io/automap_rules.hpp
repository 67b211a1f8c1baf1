// Tiled automapping rules from descriptor rules (tilegen export-rules RECIPE --tiled DIR).
//   input   the recipe (classes, colours, `outside`), its rule layers as ordered and resolved for
//           a run (build_layers) and the atlas they index (annotated as generate annotates it)
//   output  the files of a rules folder, as (file name, bytes) and (file name, image):
//             rules.txt            the rule maps, one per tilegen layer, in layer order
//             rules-LAYER.tmx      a rule map: every rule of LAYER as one Tiled rule
//             classes.tsx/.png     one tile per terrain class (property `terrain` = its symbol)
//             automap.tsx/.png     Tiled's special match tiles: Empty, NonEmpty (MatchType)
//             TILESET.tsx/-tiles.png  the map's tileset, as `generate` writes it
//   invariants  a working map whose layer `classes` is painted with classes.tsx tiles is turned
//           by Tiled's AutoMap (Tiled >= 1.9) into the layers tilegen draws: each rule map holds
//           the layer's rules in reverse order of trial (least specific first), so the rule
//           tilegen tries first is applied last and wins a cell, as in tilegen. Rules are laid
//           out in slots of (pattern side + 1) cells, 16 to a row, each pattern at its slot's
//           top-left, with a `regions` layer covering its whole pattern (so `?` cells inside
//           stay part of the rule). A cell that accepts a set S of classes is written as S on
//           `input_classes` layers (one alternative per layer) when S is not larger than its
//           complement, else the complement on `inputnot_classes` layers; `?` is left empty (the
//           all-`?` 1x1 rule gets NonEmpty). Each target is the centre tile of an output layer
//           `outputN_LAYER` whose `Probability` property is the target's weight (targets of
//           weight 0 are left out; @none writes the Empty tile, which clears the cell).
//           `outside = "clamp"` is the map property OverflowBorder; a fixed outside class is
//           MatchOutsideMap with the Empty tile accepted (or refused) where that class is. The
//           bytes depend only on the inputs.
// What Tiled cannot do as tilegen does: its random pick is its own (the weights hold as
// probabilities, the cells differ); class passes ([classes] sections) are not exported.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/image.hpp"
#include "core/map.hpp"
#include "core/recipe/recipe.hpp"
#include "core/rules/autotile.hpp"

namespace tilegen::io {

struct AutomapFiles {
    std::vector<std::pair<std::string, std::string>> texts; // file name -> bytes, in write order
    std::vector<std::pair<std::string, Image>> images;      // file name -> PNG image
};

// The rule slots per row of a rule map.
inline constexpr int kAutomapRulesPerRow = 16;
// The names of the special tiles in automap.tsx, in tile order (MatchType values).
inline constexpr const char* kAutomapSpecialTiles[] = {"Empty", "NonEmpty"};

// `tileset_stem` names the map's tileset files (TILESET.tsx, TILESET-tiles.png).
AutomapFiles automap_rule_files(const Recipe& recipe, const std::vector<LayerRules>& layers,
                                const Atlas& atlas, const std::string& tileset_stem);

// The working map to try the rules on: layer `classes` (classes.tsx) holds `classes`, one empty
// tile layer per rule layer follows; tilesets classes.tsx and TILESET.tsx.
std::string automap_example_map(const Recipe& recipe, const std::vector<LayerRules>& layers,
                                const Atlas& atlas, const std::string& tileset_stem,
                                const ClassGrid& classes);

// Writes the files into `dir` (created if missing), each atomically. False with diagnostics on
// failure.
[[nodiscard]] bool write_automap_files(const std::filesystem::path& dir, const AutomapFiles& files,
                                       Diagnostics& diags);

} // namespace tilegen::io
