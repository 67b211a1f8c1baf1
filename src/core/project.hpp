// Project: everything one map needs, loaded and checked (by src/io/project_loader) before any
// generation. Invariants: every rule's tile targets name tiles of the tileset; every image target
// is in `images`, tile-sized; symbols are the recipe's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/objects/sprite_sheet.hpp"
#include "core/recipe/recipe.hpp"
#include "core/rules/rule.hpp"
#include "core/rules/rule_parser.hpp"
#include "core/tileset/tileset.hpp"

namespace tilegen {

struct Project {
    Recipe recipe;
    SymbolTable symbols;
    std::vector<Rule>
        rules; // every rule file's rules, files in recipe order, rules in order of appearance
    // Every rule file's `[classes]` sections: files in recipe order, sections in order of
    // appearance (the order they run in).
    std::vector<ClassPass> class_passes;
    Tileset tileset;
    std::optional<SpriteSheet> sprites; // when the recipe names [tileset] objects
    std::uint64_t input_hash =
        0; // hash of every input file's bytes (recipe, rules, tileset, images)
    std::vector<std::string>
        input_files; // every file read, as opened (outputs must never overwrite one)
    // Image targets: key (the path as resolved, normalised) -> image; rules name them by
    // Target::name and `image_key_of` maps (rule index, target index) -> key.
    std::vector<std::pair<std::string, Image>> images;
    std::vector<std::vector<std::string>> image_key_of;
};

SymbolTable symbol_table(const Recipe& recipe);

} // namespace tilegen
