// tilegen noise: write one of a recipe's heightfields as a greyscale PNG or a PFM.
#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/parallel.hpp"
#include "core/pipeline.hpp"
#include "io/heightfield_files.hpp"

namespace tilegen::app {

namespace {

const char* kNoiseHelp =
    R"(Usage: tilegen noise [RECIPE] [--map NAME] -o OUT.png|OUT.pfm [--seed N] [--size WxH]
                     [--region X,Y,W,H]

Writes a heightfield of the recipe (no RECIPE: the built-in default): an 8-bit greyscale PNG to look at, or a
PFM (32-bit float) for exact values.
  --map NAME          which map (default: the one classes are cut from, usually "elevation")
  -o OUT              .png or .pfm (required)
  --seed N            seed (default: the recipe's)
  --size WxH          map size (default: the recipe's); sets the scale of map-relative kinds
  --region X,Y,W,H    only this window of the map, starting at cell X,Y; position-based kinds give the same
                      values as the whole map (whole-map kinds are computed whole, then cut)

Exit codes: 0 success, 1 bad input, 2 bad usage.
)";

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

int run_noise(const Args& args) {
    std::optional<std::string> recipe_arg, map_arg, out_arg;
    std::optional<std::uint64_t> seed;
    std::optional<std::pair<int, int>> size;
    std::optional<Region> region;
    ArgReader in(args);
    while (!in.done()) {
        std::string a = in.next();
        auto need = [&]() -> std::optional<std::string> {
            auto v = in.value();
            if (!v) usage_error("noise", a + " needs a value");
            return v;
        };
        if (a == "-h" || a == "--help") {
            std::cout << kNoiseHelp;
            return kExitOk;
        } else if (a == "--map") {
            if (!(map_arg = need())) return kExitUsage;
        } else if (a == "-o" || a == "--output") {
            if (!(out_arg = need())) return kExitUsage;
        } else if (a == "--seed") {
            auto v = need();
            if (!v) return kExitUsage;
            auto n = parse_integer(*v);
            if (!n || *n < 0)
                return usage_error("noise", "--seed takes a whole number >= 0, not '" + *v + "'");
            seed = static_cast<std::uint64_t>(*n);
        } else if (a == "--size") {
            auto v = need();
            if (!v) return kExitUsage;
            if (!(size = parse_size(*v)))
                return usage_error("noise", "--size takes WxH with both from 1 to 65536");
        } else if (a == "--region") {
            auto v = need();
            if (!v) return kExitUsage;
            if (!(region = parse_region(*v)))
                return usage_error("noise",
                                   "--region takes X,Y,W,H with W and H from 1 to 65536, not '" +
                                       *v + "'");
        } else if (a.size() > 1 && a[0] == '-') {
            return usage_error("noise", "unknown option '" + a + "'");
        } else if (!recipe_arg) {
            recipe_arg = a;
        } else {
            return usage_error("noise", "more than one recipe given");
        }
    }
    if (!out_arg) return usage_error("noise", "-o OUT.png or -o OUT.pfm is required");
    const std::string ext = std::filesystem::path(*out_arg).extension().string();
    if (ext != ".png" && ext != ".pfm") return usage_error("noise", "-o must end in .png or .pfm");

    Diagnostics diags;
    auto project = load_recipe_project(recipe_arg, diags);
    if (!project) {
        print_diagnostics(diags);
        return kExitInput;
    }
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
                                 " heightfield"))
        return kExitInput;
    const Grid<float> g =
        compute_map(recipe, name, seed.value_or(recipe.map.seed), w, h, r, resolve_threads(0));
    if (!io::write_heightfield(*out_arg, g, diags)) {
        print_diagnostics(diags);
        return kExitInput;
    }
    std::cerr << "wrote " << *out_arg << " (map '" << name << "', " << r.width << "x" << r.height
              << ")\n";
    return kExitOk;
}

} // namespace tilegen::app
