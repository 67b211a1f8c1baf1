// tilegen noise: write one of a recipe's heightfields as a greyscale PNG or a PFM.
#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/parallel.hpp"
#include "core/pipeline.hpp"
#include "io/heightfield_files.hpp"

namespace tilegen::app {

namespace {

std::optional<Region> parse_region(const std::string& s) {
    long long v[4];
    std::size_t start = 0;
    for (int i = 0; i < 4; ++i) {
        std::size_t comma = s.find(',', start);
        if ((i < 3) != (comma != std::string::npos)) return std::nullopt;
        auto n = parse_integer(s.substr(start, i < 3 ? comma - start : std::string::npos));
        if (!n) return std::nullopt;
        v[i] = *n;
        start = comma + 1;
    }
    if (v[2] < 1 || v[3] < 1 || v[2] > 65536 || v[3] > 65536 || std::abs(v[0]) > 1'000'000'000 ||
        std::abs(v[1]) > 1'000'000'000)
        return std::nullopt;
    return Region{static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]),
                  static_cast<int>(v[3])};
}

} // namespace

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
CommandSpec noise_spec() {
    CommandSpec s;
    s.name = "noise";
    s.summary =
        "Write one of the recipe's heightfields as a greyscale PNG or a PFM (exact floats).";
    s.operands = "[RECIPE]";
    s.about =
        R"(Writes a heightfield of the recipe (no RECIPE: the built-in default): an 8-bit greyscale
PNG to look at, or a PFM (32-bit float) for exact values.
)";
    s.options = {
        {{"--map"},
         "NAME",
         "which map (default: the one classes are cut from, usually \"elevation\")",
         non_empty("a map name")},
        {{"-o", "--output"},
         "OUT.png|OUT.pfm",
         "the file to write: .png or .pfm (required)",
         file_ending({".png", ".pfm"}),
         true},
        {{"--seed"}, "N", "seed (default: the recipe's)", whole_number(0, kNoLimit)},
        {{"--size"},
         "WxH",
         "map size (default: the recipe's); sets the scale of map-relative kinds",
         cell_size()},
        {{"--region"},
         "X,Y,W,H",
         "only this window of the map, starting at cell X,Y; position-based kinds give the same "
         "values as the whole map (whole-map kinds are computed whole, then cut)",
         custom("X,Y,W,H with W and H from 1 to 65536",
                [](const std::string& v) { return parse_region(v).has_value(); })},
    };
    s.epilogue = "Exit codes: 0 success, 1 bad input, 2 bad usage.\n";
    return s;
}

int run_noise(const Args& args) {
    const CommandSpec spec = noise_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    const CommandLine& cl = *parsed.line;
    std::optional<std::string> recipe_arg;
    if (!cl.operands.empty()) recipe_arg = cl.operands.front();
    const std::optional<std::string> map_arg = cl.text("--map"), out_arg = cl.text("-o");
    std::optional<std::uint64_t> seed;
    if (auto n = cl.integer("--seed")) seed = static_cast<std::uint64_t>(*n);
    const std::optional<std::pair<int, int>> size = cl.size("--size");
    std::optional<Region> region;
    if (auto v = cl.text("--region")) region = parse_region(*v);

    Diagnostics diags;
    auto project = load_recipe_or_print(recipe_arg);
    if (!project) return kExitInput;
    const Recipe& recipe = project->recipe;
    const std::string name = map_arg                 ? *map_arg
                             : recipe.classes.biomes ? recipe.classes.biomes->rows_map
                                                     : recipe.classes.map;
    if (!find_map(recipe, name)) {
        std::string known;
        for (const auto& m : recipe.maps)
            known += (known.empty() ? "" : ", ") + m.name;
        return usage_error("noise",
                           "the recipe has no map '" + name + "' (its maps: " + known + ")");
    }
    const int w = size ? size->first : recipe.map.width,
              h = size ? size->second : recipe.map.height;
    const Region r = region.value_or(Region{0, 0, w, h});
    if (!within_memory_limit("noise",
                             static_cast<double>(r.width) * r.height * 4.0 *
                                 (2.0 + static_cast<double>(recipe.maps.size())),
                             kDefaultMemoryLimitGiB,
                             "a " + std::to_string(r.width) + "x" + std::to_string(r.height) +
                                 " heightfield",
                             diags)) {
        print_diagnostics(diags);
        return kExitInput;
    }
    // With [rivers], the map classes are cut from is carved along the rivers: a whole-map stage.
    const bool carved = recipe.rivers && name == class_maps(recipe).front();
    if (carved && region && (r.x != 0 || r.y != 0 || r.width != w || r.height != h)) {
        diags.push_back(error_at(recipe.path, recipe.rivers->line, recipe.rivers->column,
                                 "[rivers] carves map '" + name +
                                     "' over the whole map (a whole-map stage); --region cannot "
                                     "compute a window of it alone"));
        print_diagnostics(diags);
        return kExitInput;
    }
    const Grid<float> g = carved ? carved_class_map(*project, seed.value_or(recipe.map.seed), w, h,
                                                    resolve_threads(0))
                                 : compute_map(recipe, name, seed.value_or(recipe.map.seed), w, h,
                                               r, resolve_threads(0));
    if (!io::write_heightfield(*out_arg, g, diags)) {
        print_diagnostics(diags);
        return kExitInput;
    }
    std::cerr << "wrote " << *out_arg << " (map '" << name << "', " << r.width << "x" << r.height
              << ")\n";
    return kExitOk;
}

} // namespace tilegen::app
