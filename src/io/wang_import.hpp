// Descriptor rules from a Tiled Wang set (tilegen import-rules TILESET.tsx).
//   input   a TSX file's text and path (for messages); optionally the recipe whose terrain names
//           the Wang colours must match (their symbols are then the recipe's), and the Wang set's
//           name (default: the first)
//   output  a rule file (text) for the tileset's tiles, and a tileset manifest (TOML) naming them;
//           diagnostics at path:line:col for malformed XML, a missing Wang set, bad Wang ids,
//           colours the recipe does not know, tiles whose centre colour cannot be told
//   rules   every Wang tile is a cell of its *centre* colour C: the tile's `terrain` property
//           when it has one (a symbol or a class name, as tilegen writes it), else the one colour
//           of its id for which every edge of another colour E has E on both its corners (the
//           blob convention: the higher terrain draws the lower one as rims). A colour L is
//           *lower* than C when a tile of centre C shows L. A tile becomes the 3x3 rule
//             edge E != C: that neighbour is E;  edge C: that neighbour is not lower than C;
//             corner K != C between two edges of C: that diagonal neighbour is K;  else `?`,
//           a tile of C only (a plain tile) the 1x1 rule `C`, the fallback for neighbourhoods the
//           set has no tile for. Tiles with the same rule are one rule with their Tiled
//           `probability` as weights. Rules are written in tile order (tilegen then tries the
//           most specific first). Tiles with transformations, and colour 0 (unset) positions,
//           leave that position `?`. A set of type "corner" (colours on the tiles' corners only)
//           becomes a corner layer instead: each tile the 2x2 rule of its top-left, top-right,
//           bottom-left and bottom-right colours (`?` where unset), with no centre colour.
//   invariants  pure: the same text gives the same rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/diagnostic.hpp"
#include "core/recipe/recipe.hpp"

namespace tilegen::io {

struct WangImport {
    std::string rules;    // the rule file's text
    std::string manifest; // a tileset manifest (image, tile size, [tiles] name = index)
    int tiles = 0;        // Wang tiles read
    int rule_count = 0;   // rules written
};

// `manifest_dir`: the folder the manifest will be written to (its image path is made relative to
// it); empty: the TSX's folder.
[[nodiscard]] std::optional<WangImport>
import_wang_rules(std::string_view tsx_text, const std::string& tsx_path, const Recipe* recipe,
                  const std::string& wangset_name, const std::string& manifest_dir,
                  Diagnostics& diags);

} // namespace tilegen::io
