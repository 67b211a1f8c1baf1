// Rule files: text -> rules and class passes. Pure (the caller reads the file).
// Input: the text, the path used in messages, and the recipe's symbol table (symbol -> class).
// Output: tile rules in order of appearance, each with its layer, line and identity; class passes
// in order of appearance; diagnostics for every bad token, with the 1-based line and column of
// that token.
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
//
// Corner patterns: 2 row groups of 2 cells (`ab cd`: top-left top-right / bottom-left
// bottom-right) make a corner layer's rule (docs/rules.md); they are an error in a class pass.
// check_corner_layers reports a layer that mixes them with other sizes.
//
// Class passes: a line `[classes]`, `[classes N]` (N in 1..256) or `[classes *]` starts a pass;
// the rule lines below it, up to the next section header, are class rules: the same patterns and
// modifiers, but each target is a terrain symbol (`g`, `s*2`) or `@keep` (the cell keeps its
// class), with an optional weight; images, @error, @none and tile transforms are errors there. A
// tile layer header (`[decor]`) ends the pass. `[classes]` is therefore not a tile layer name.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/rules/rule.hpp"

namespace tilegen {

using SymbolTable = std::map<char, int>; // symbol -> class index

struct RuleFile {
    std::vector<Rule> rules;       // tile rules, in order of appearance
    std::vector<ClassPass> passes; // class passes, in order of appearance
};

RuleFile parse_rule_file(std::string_view text, const std::string& path, const SymbolTable& symbols,
                         Diagnostics& diags);

// Every rule of a layer (by name, across files) must be a 2x2 corner pattern when its first rule is
// one, and none may be otherwise: one `path:line:col: error:` per rule that breaks this, at its
// pattern. `rules` in order of appearance (rule files in recipe order).
void check_corner_layers(std::span<const Rule> rules, Diagnostics& diags);

// The tile rules of parse_rule_file (class passes are parsed and checked, then dropped: callers
// that run passes use parse_rule_file).
std::vector<Rule> parse_rules(std::string_view text, const std::string& path,
                              const SymbolTable& symbols, Diagnostics& diags);

} // namespace tilegen
