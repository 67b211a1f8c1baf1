// tilegen explain: how one cell was decided, layer by layer.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/classes/class_map_text.hpp"
#include "core/pipeline.hpp"
#include "core/rules/explain.hpp"
#include "io/class_map_reader.hpp"
#include "io/files.hpp"

namespace tilegen::app {

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
CommandSpec explain_spec() {
    CommandSpec s;
    s.name = "explain";
    s.summary = "Show how one cell was decided: every rule tried, why it failed, the match, the "
                "tile.";
    s.operands = "[RECIPE] X Y";
    s.min_operands = 2;
    s.max_operands = 3;
    s.negative_numbers_are_operands = true; // "-1 0" is a cell (outside the map), not an option
    s.about =
        R"(Shows how cell (X, Y) is decided, with the same result as `tilegen generate` for the
same options: its neighbourhood of classes, then for each layer every rule tried in order (with the
first cell that failed), the rule that matched (file:line), its targets with weights, and the one
chosen. Without RECIPE, the built-in default overworld.
)";
    s.options = {
        recipe_seed_option(),
        recipe_size_option(),
        {{"--classes"},
         "FILE.txt|.png|.tmx[:LAYER]",
         "explain a cell of this class map instead of the noise's, as `tilegen generate --classes` "
         "reads it: FILE.txt (terrain symbols), FILE.png or .bmp (terrain colours), "
         "FILE.tmx[:LAYER] (a Tiled map's tile layer)",
         non_empty("a file name")},
    };
    s.constraints = {{"--size", "--classes", Constraint::excludes, "the class map sets the size"}};
    s.epilogue =
        "Exit codes: 0 success, 1 bad input, 2 bad usage (including X Y outside the map).\n";
    return s;
}

int run_explain(const Args& args) {
    const CommandSpec spec = explain_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    const CommandLine& cl = *parsed.line;
    const std::vector<std::string>& positional = cl.operands;
    GenerateOptions options;
    if (auto n = cl.integer("--seed")) options.seed = static_cast<std::uint64_t>(*n);
    std::optional<std::string> recipe_arg;
    if (positional.size() == 3) recipe_arg = positional[0];
    auto px = parse_integer(positional[positional.size() - 2]);
    auto py = parse_integer(positional[positional.size() - 1]);
    if (!px || !py) return usage_error("explain", "X and Y must be whole numbers");

    auto project = load_recipe_or_print(recipe_arg);
    if (!project) return kExitInput;
    if (!read_map_area_or_print(cl, project->recipe, options)) return kExitInput;
    const int width = options.classes ? options.classes->width()
                                      : options.width.value_or(project->recipe.map.width);
    const int height = options.classes ? options.classes->height()
                                       : options.height.value_or(project->recipe.map.height);
    if (*px < 0 || *py < 0 || *px >= width || *py >= height)
        return usage_error("explain", "cell (" + std::to_string(*px) + ", " + std::to_string(*py) +
                                          ") is outside the " + std::to_string(width) + "x" +
                                          std::to_string(height) + " map");
    const int x = static_cast<int>(*px), y = static_cast<int>(*py);
    const GenerateResult result = generate_map(*project, options);
    const std::string symbols = terrain_symbols(project->recipe);
    const auto& terrain = project->recipe.terrain;
    const ClassId cls = result.classes(x, y);

    std::ostringstream out;
    out << "cell (" << x << ", " << y << ") of " << project->recipe.name << " (" << width << "x"
        << height << ", seed " << result.seed << ")\n";
    if (!result.heights.empty())
        out << "  height " << std::setprecision(6) << result.heights(x, y) << "\n";
    out << "  class  " << terrain[cls].name << " (" << terrain[cls].symbol << ")\n";
    for (const std::string& line : class_change_lines(*project, result, x, y))
        out << "  " << line << "\n";
    int radius = 1;
    for (const auto& l : result.layers)
        for (const auto& r : l.ordered)
            radius = std::max(radius, r.pattern.radius());
    const OutsidePolicy outside = outside_policy(project->recipe);
    auto class_at = [&](int cx, int cy) -> ClassId {
        if (!result.classes.contains(cx, cy)) {
            if (outside.fixed_class) return *outside.fixed_class;
            cx = std::clamp(cx, 0, width - 1);
            cy = std::clamp(cy, 0, height - 1);
        }
        return result.classes(cx, cy);
    };
    out << "  neighbourhood (outside the map: " << project->recipe.rules.outside << "):\n";
    for (int dy = -radius; dy <= radius; ++dy) {
        out << "    ";
        for (int dx = -radius; dx <= radius; ++dx) {
            const bool centre = dx == 0 && dy == 0;
            out << (centre ? '[' : ' ') << symbols[class_at(x + dx, y + dy)]
                << (centre ? ']' : ' ');
        }
        out << "\n";
    }
    const int error_index = result.map.atlas.tile_count() - 1;
    // Corner (i, j) lies between cells (i-1, j-1) and (i, j): a corner layer's tiles around the
    // cell are its corners (x, y), (x+1, y), (x, y+1), (x+1, y+1).
    struct Where {
        int x, y;
        const char* name; // "" for a cell layer
    };
    static const char* const kCornerNames[4] = {"top-left", "top-right", "bottom-left",
                                                "bottom-right"};
    std::vector<std::pair<std::size_t, int>> steps; // (layer, corner k) in output order
    for (std::size_t li = 0; li < result.layers.size(); ++li)
        for (int k = 0; k < (result.layers[li].corner() ? 4 : 1); ++k)
            steps.emplace_back(li, k);
    for (const auto& [li, k] : steps) {
        const LayerRules& layer = result.layers[li];
        const Where at =
            layer.corner() ? Where{x + k % 2, y + k / 2, kCornerNames[k]} : Where{x, y, ""};
        const CellExplanation e = explain_cell(result.classes, at.x, at.y, layer, outside,
                                               result.seed, gid_of(error_index));
        out << "layer '" << layer.name << "'";
        if (layer.corner()) {
            out << ", corner (" << at.x << ", " << at.y << ") at the cell's " << at.name
                << ", cells ";
            for (int dy = -1; dy <= 0; ++dy) {
                for (int dx = -1; dx <= 0; ++dx)
                    out << symbols[class_at(at.x + dx, at.y + dy)];
                out << (dy < 0 ? " " : "");
            }
        }
        out << ": " << e.attempts.size() << " of " << layer.ordered.size() << " rules tried\n";
        for (const RuleAttempt& a : e.attempts) {
            const Rule& r = layer.ordered[a.rule];
            out << "  " << r.file << ":" << r.line
                << (r.variant.empty() ? "" : " (" + r.variant + ")") << "  "
                << pattern_text(r.pattern, symbols) << "  ";
            if (a.matched) {
                out << "MATCH\n";
            } else if (layer.corner()) {
                out << "no: the " << kCornerNames[(a.fail_dy + 1) * 2 + a.fail_dx + 1] << " cell ("
                    << at.x + a.fail_dx << ", " << at.y + a.fail_dy << ") is "
                    << symbols[a.fail_class] << ", rule wants "
                    << mask_text(r.pattern.at(a.fail_dx, a.fail_dy), symbols) << "\n";
            } else {
                out << "no: at (" << std::showpos << a.fail_dx << ", " << a.fail_dy
                    << std::noshowpos << ") is " << symbols[a.fail_class] << ", rule wants "
                    << mask_text(r.pattern.at(a.fail_dx, a.fail_dy), symbols) << "\n";
            }
        }
        if (e.decision == kNoRule) {
            out << "  no rule matches: the " << (layer.corner() ? "corner" : "cell")
                << " gets the error tile\n";
            continue;
        }
        const Rule& r = layer.ordered[static_cast<std::size_t>(e.decision)];
        out << "  decided by " << r.file << ":" << r.line
            << (r.variant.empty() ? "" : " (" + r.variant + ")") << "; targets:";
        for (std::size_t t = 0; t < r.targets.size(); ++t) {
            const Target& target = r.targets[t];
            std::string name = target.kind == Target::Kind::error  ? "@error"
                               : target.kind == Target::Kind::none ? "@none"
                                                                   : target.name;
            out << " " << name << "*" << target.weight
                << (static_cast<int>(t) == e.chosen_target ? " (chosen)" : "");
        }
        out << "\n  tile: ";
        if (e.gid == 0) {
            out << "(empty)";
        } else {
            const int index = atlas_index_of(e.gid);
            const std::string& tile_name = result.map.atlas.names[static_cast<std::size_t>(index)];
            out << (tile_name.empty() ? "#" + std::to_string(index) : tile_name) << ", gid "
                << e.gid;
            if (e.gid & kFlipMask) out << " (flipped)";
        }
        out << "\n";
    }
    std::cout << out.str();
    return kExitOk;
}

} // namespace tilegen::app
