// tilegen export-rules: a recipe's descriptor rules as Tiled automapping rules (rules.txt and rule
// maps, io/automap_rules.hpp), and an example working map to try them on.
#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/pipeline.hpp"
#include "core/tileset/tileset.hpp"
#include "io/automap_rules.hpp"
#include "io/files.hpp"

namespace tilegen::app {

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
CommandSpec export_rules_spec() {
    CommandSpec s;
    s.name = "export-rules";
    s.summary = "Write a recipe's rules as Tiled automapping rules (rules.txt and rule maps).";
    s.operands = "[RECIPE]";
    s.about =
        R"(Writes the recipe's tile rules (without RECIPE: the built-in default) into DIR as Tiled
automapping rules: rules.txt, rule maps rules-LAYER[-NNN].tmx, the class tileset classes.tsx (one
tile per terrain class), automap.tsx (Tiled's Empty and NonEmpty match tiles), the map's tileset,
and example.tmx: the recipe's class map (at --seed and --size) on a layer 'classes', with empty
output layers. Open example.tmx in Tiled and run Map > AutoMap: each layer gets the tiles
tilegen's rules choose (alternatives by their weights from Tiled 1.9 on; 1.8 picks them evenly).
Rules are written most specific last, so the rule tilegen tries first wins; `outside = "clamp"`
becomes OverflowBorder. Class passes ([classes] sections) are not exported.
)";
    s.options = {
        {{"--tiled"},
         "DIR",
         "the folder to write (created if missing)",
         non_empty("a folder"),
         true},
        recipe_seed_option(),
        recipe_size_option(),
    };
    s.epilogue = "Exit codes: 0 success, 1 bad input, 2 bad usage.\n";
    return s;
}

int run_export_rules(const Args& args) {
    const CommandSpec spec = export_rules_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    const CommandLine& cl = *parsed.line;
    std::optional<std::string> recipe_arg;
    if (!cl.operands.empty()) recipe_arg = cl.operands.front();
    auto project = load_recipe_or_print(recipe_arg);
    if (!project) return kExitInput;
    const std::filesystem::path dir = *cl.text("--tiled");

    std::vector<int> image_index;
    int error_index = 0;
    Atlas atlas = build_atlas(project->tileset, project->images, image_index, error_index);
    const std::vector<LayerRules> layers = build_layers(*project, image_index, error_index);
    annotate_atlas(atlas, layers, project->recipe);
    const std::string stem = project->recipe.name;
    io::AutomapFiles files = io::automap_rule_files(project->recipe, layers, atlas, stem);

    GenerateOptions options;
    if (auto n = cl.integer("--seed")) options.seed = static_cast<std::uint64_t>(*n);
    if (auto size = cl.size("--size")) {
        options.width = size->first;
        options.height = size->second;
    }
    options.keep_details = false;
    const GenerateResult result = generate_map(*project, options);
    files.texts.emplace_back("example.tmx", io::automap_example_map(project->recipe, layers, atlas,
                                                                    stem, result.classes));
    for (const auto& [name, text] : files.texts)
        if (auto clash = clashes_with_input((dir / name).string(), project->input_files)) {
            print_diagnostics(
                {error_at((dir / name).string(), 0, 0, "would overwrite the input " + *clash)});
            return kExitInput;
        }
    Diagnostics diags;
    if (!io::write_automap_files(dir, files, diags)) {
        print_diagnostics(diags);
        return kExitInput;
    }
    std::size_t rules = 0, maps = 0;
    for (const auto& [name, text] : files.texts)
        maps += name.rfind("rules-", 0) == 0;
    for (const auto& l : layers)
        rules += l.ordered.size();
    std::cout << "wrote " << (dir / "rules.txt").string() << ": " << maps << " rule map(s) for "
              << layers.size() << " layer(s), " << rules << " rules; try them on "
              << (dir / "example.tmx").string() << "\n";
    if (!project->class_passes.empty())
        print_diagnostics({run_warning(std::to_string(project->class_passes.size()) +
                                       " class pass(es) ([classes] sections) not exported: Tiled "
                                       "gets the class map as it is painted")});
    return kExitOk;
}

} // namespace tilegen::app
