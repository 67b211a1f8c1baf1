// Rule: a descriptor (left) and the targets it may place (right), with where it was written.
// ClassPass: a `[classes]` section of a rule file: class rules (the same patterns, targets that are
// terrain classes or @keep) run `runs` times, or until a run changes nothing, over the class grid
// (see class_passes.hpp for the semantics).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/map.hpp"
#include "core/rules/descriptor.hpp"

namespace tilegen {

struct Target {
    enum class Kind {
        tile,  // a tile of the tileset, by name
        image, // an image file (path relative to the rule file), packed into the atlas
        error, // @error: the built-in red error tile
        none,  // @none: leave the cell empty
    };
    Kind kind = Kind::tile;
    std::string name;  // tile name or image path as written
    double weight = 1; // relative chance among the rule's targets; default 1, range [0, 1e9]
    Gid flips = 0;     // Tiled flip flags applied to the tile
    int column = 0;    // 1-based column of the target in its line
};

struct Rule {
    Descriptor pattern;
    std::vector<Target> targets;
    std::string layer = "ground";
    std::string file; // as given to the parser (used in messages and stats)
    int line = 0;
    int column = 0; // 1-based column of the pattern's first row group
    std::uint64_t identity =
        0; // hash of the rule's text: seeds its choice of target, stable under edits elsewhere
    std::string
        variant; // "" for the rule as written; "r90", "r180", "r270", "m", "m r90", ... for the
                 // variants `rotate` and `mirror` add (pattern and targets turned alike)
};

// A class rule's target classes, parallel to Rule::targets: a class index, or kKeepClass for
// `@keep` (the cell keeps the class it has).
inline constexpr int kKeepClass = -1;
struct ClassTargets {
    std::vector<int> classes;
    std::vector<double> weights; // as Target::weight
};

// `[classes *]` runs until a run changes no cell, at most this many runs; `[classes N]` takes N in
// 1..kMaxClassRuns.
inline constexpr int kMaxClassRuns = 256;

struct ClassPass {
    // The section's rules in the order they are tried: by specificity, descending, ties (and the
    // variants rotate/mirror add) in order of appearance, exactly as a tile layer's rules.
    // Rule::layer is "classes"; Rule::targets keep the targets as written (name: the symbol or
    // "@keep").
    std::vector<Rule> ordered;
    std::vector<ClassTargets> targets; // parallel to ordered
    int runs = 1;              // [classes] 1; [classes N] N in 1..256; [classes *] kMaxClassRuns
    bool until_stable = false; // [classes *]: stop after the first run that changes no cell
    std::string file;          // the section header: file as given to the parser, 1-based line
    int line = 0;
};

} // namespace tilegen
