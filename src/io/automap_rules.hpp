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
//           by Tiled's AutoMap into the layers tilegen draws: each rule map holds the layer's
//           rules in reverse order of trial (least specific first), so the rule tilegen tries
//           first is applied last and wins a cell, as in tilegen. Each rule has a slot of (widest
//           pattern side + 1) rows, one rule per slot row, its pattern at the slot's top-left; the
//           `regions` layer covers the rule's conditioned cells and its centre only (Tiled before
//           1.9 reads an empty input cell inside a region as "a tile this rule does not use", not
//           as "any"), and in 5x5 patterns the inner cells that join an outer conditioned cell to
//           the centre, written as "any class". A cell that accepts a set S of classes is S on
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

// The rule slots per row of a rule map: one, so each rule's region starts below the previous
// rule's (Tiled orders rules by their region's top, then left).
inline constexpr int kAutomapRulesPerRow = 1;
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
