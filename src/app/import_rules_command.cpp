// tilegen import-rules: descriptor rules from a Tiled tileset's Wang set (io/wang_import.hpp).
#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "io/files.hpp"
#include "io/wang_import.hpp"

namespace tilegen::app {

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
CommandSpec import_rules_spec() {
    CommandSpec s;
    s.name = "import-rules";
    s.summary = "Turn a Tiled tileset's Wang set into descriptor rules.";
    s.operands = "TILESET.tsx";
    s.min_operands = 1;
    s.operand_noun = "tileset";
    s.about =
        R"(Reads the Wang set of TILESET.tsx (Tiled's terrain sets) and writes a rule file that
draws it: each Wang tile becomes the rule of the neighbourhood its Wang id shows (edges name the
neighbours across them, a corner between two edges of the tile's own colour names its diagonal
neighbour), tiles of one colour only become that colour's fallback, tiles with the same rule become
its weighted alternatives (their Tiled probability). The colour a tile stands on is its 'terrain'
property (tilegen writes one) or the one colour the blob convention allows. Symbols are the
recipe's (--recipe: colours must be named like its terrains) or the colour names' first letters.
A corner set (Wang set type "corner") becomes a corner layer: each tile the 2x2 rule of its four
corner colours, standing where those four cells meet.
)";
    s.options = {
        {{"-o", "--output"},
         "FILE.rules",
         "write the rules here (default: standard output)",
         file_ending({".rules"})},
        {{"--recipe"},
         "RECIPE",
         "take the symbols from this recipe's terrains (names must match)",
         non_empty("a recipe file")},
        {{"--wangset"}, "NAME", "the Wang set to read (default: the first)", non_empty("a name")},
        {{"--manifest"},
         "FILE.toml",
         "also write a tileset manifest naming the Wang tiles (for a recipe's [tileset] path)",
         file_ending({".toml"})},
    };
    s.epilogue = "Exit codes: 0 success, 1 bad input (nothing is written), 2 bad usage.\n";
    return s;
}

int run_import_rules(const Args& args) {
    const CommandSpec spec = import_rules_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    const CommandLine& cl = *parsed.line;
    const std::string tsx = cl.operands.front();
    Diagnostics diags;
    std::optional<Project> project;
    if (auto recipe = cl.text("--recipe")) {
        project = load_recipe_project(*recipe, diags);
        if (!project) {
            print_diagnostics(diags);
            return kExitInput;
        }
    }
    const auto text = io::read_file(tsx, diags);
    if (!text) {
        print_diagnostics(diags);
        return kExitInput;
    }
    const auto manifest_path = cl.text("--manifest");
    const std::string manifest_dir =
        manifest_path ? std::filesystem::path(*manifest_path).parent_path().string() : "";
    auto imported = io::import_wang_rules(
        *text, tsx, project ? &project->recipe : nullptr, cl.text("--wangset").value_or(""),
        manifest_dir.empty() && manifest_path ? "." : manifest_dir, diags);
    if (!imported) {
        print_diagnostics(diags);
        return kExitInput;
    }
    const auto output = cl.text("--output");
    if (output && !io::write_file_atomic(*output, imported->rules, diags)) {
        print_diagnostics(diags);
        return kExitInput;
    }
    if (manifest_path && !io::write_file_atomic(*manifest_path, imported->manifest, diags)) {
        print_diagnostics(diags);
        return kExitInput;
    }
    if (!output) std::cout << imported->rules;
    std::cerr << "import-rules: " << imported->tiles << " Wang tiles -> " << imported->rule_count
              << " rules" << (output ? " in " + *output : std::string()) << "\n";
    return kExitOk;
}

} // namespace tilegen::app
