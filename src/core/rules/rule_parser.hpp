// Rule files: text -> rules. Pure (the caller reads the file).
// Input: the text, the path used in messages, and the recipe's symbol table (symbol -> class).
// Output: rules in order of appearance, each with its layer, line and identity; diagnostics for
// every bad token, with the 1-based line and column of that token.
//
// Syntax (one rule per line; `#` starts a comment):
//   ?s? ggg ?s?   grass-band1-sand          three row groups of three cells, then targets
//   g             grass grass-flowers*0.2   one group of one cell: a 1x1 pattern
//   [decor]                                 the rules below go to output layer "decor" (default
//   "ground") rotate ?s? ggg ??? grass-edge-n          also the pattern turned 90, 180, 270 degrees
//   clockwise mirror rotate ...                        and/or mirrored left-right; targets are
//   turned alike
// Cells: `?` any, `x` a symbol, `!x` not x, `[xyz]` one of, `[!xyz]` none of.
// Targets: a tile name, an image path (contains '/' or ends in .png/.bmp), `@error`, `@none`;
// suffixes
// `@r90`, `@r180`, `@r270`, `@fx`, `@fy` turn the tile (as Tiled flip bits); `*W` sets a weight
// (last). Variants made by rotate/mirror follow their source rule, have the same line, and a
// `variant` name.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/rules/rule.hpp"

namespace tilegen {

using SymbolTable = std::map<char, int>; // symbol -> class index

std::vector<Rule> parse_rules(std::string_view text, const std::string& path,
                              const SymbolTable& symbols, Diagnostics& diags);

} // namespace tilegen
