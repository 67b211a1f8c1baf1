// tilegen stats: the quality numbers of a recipe's maps over a range of seeds (see
// stats_command.hpp and core/quality/map_stats.hpp for what each number means).
#include "app/stats_command.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/json_writer.hpp"
#include "core/parallel.hpp"

namespace tilegen::app {

std::optional<SeedRange> parse_seed_range(const std::string& text) {
    const std::size_t dash = text.find('-');
    const std::string a = text.substr(0, dash);
    const std::string b = dash == std::string::npos ? a : text.substr(dash + 1);
    const auto first = parse_integer(a), last = parse_integer(b);
    if (a.empty() || b.empty() || !first || !last || *first < 0 || *last < *first) return {};
    const auto count = static_cast<std::uint64_t>(*last - *first) + 1;
    if (count > kMaxStatsSeeds) return {};
    return SeedRange{static_cast<std::uint64_t>(*first), static_cast<std::uint64_t>(*last)};
}

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
CommandSpec stats_spec() {
    CommandSpec s;
    s.name = "stats";
    s.summary = "Measure map quality over seeds: specks, thin cells, walkable regions, corners.";
    s.operands = "[RECIPE]";
    s.about =
        R"(Generates the recipe's map for each seed (nothing is written to disk) and prints, per seed
and as min / median / max over the seeds, the numbers that measure the map's class grid:
  specks            4-connected regions of one class of at most 3 cells
  thin              fraction of cells whose E and W, or N and S, neighbours are both of
                    another class
  walkable_regions  4-connected regions of walkable cells ([[terrain]] walkable, default true)
  largest_walkable  fraction of the walkable cells in the largest walkable region
  corner_density    2x2 windows holding exactly three cells of one class, per class-boundary
                    edge: 0 for straight axis-aligned borders, 1 for 45-degree staircases,
                    about 0.5 for thresholded noise
  share_error       per class: its fraction of cells minus its target share, in percentage
                    points. Targets: the recipe's [[terrain]] shares; for a biome table (no
                    shares), the fractions the classification produced
  unmatched         cells no tile rule matched (error tiles)
The median of an even number of seeds is the mean of the middle two.
Without RECIPE, the built-in default overworld.
)";
    s.options = {
        {{"--seeds"},
         "A-B",
         "the seeds A to B (or one seed N; default: the recipe's [map] seed), at most " +
             std::to_string(kMaxStatsSeeds) + " seeds",
         custom("N or A-B (whole numbers >= 0, A <= B, at most " + std::to_string(kMaxStatsSeeds) +
                    " seeds)",
                [](const std::string& v) { return parse_seed_range(v).has_value(); })},
        recipe_size_option(),
        {{"--classes"},
         "FILE.txt|.png|.tmx[:LAYER]",
         "measure this hand-made class map (one map, as generate --classes reads it) instead of "
         "generated ones",
         non_empty("a file name")},
        threads_option(),
        max_memory_option(),
        {{"--json"}, "", "print the results as one JSON object on stdout"},
    };
    s.constraints = {
        {"--size", "--classes", Constraint::excludes, "the class map sets the size"},
        {"--seeds", "--classes", Constraint::excludes, "the class map is one map"},
    };
    s.epilogue = "Exit codes: 0 success, 1 bad input, 2 bad usage.\n";
    return s;
}

namespace {

struct SeedStats {
    std::uint64_t seed = 0;
    MapStats stats;
};

struct Summary {
    double min = 0, median = 0, max = 0;
};

Summary summarize(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return {v.front(), median, v.back()};
}

// The numbers of kMapStatsKeys but share_error, as doubles, in that order.
constexpr std::size_t kScalarKeys = 6;
std::array<double, kScalarKeys> scalar_values(const MapStats& s) {
    return {static_cast<double>(s.specks),
            s.thin,
            static_cast<double>(s.walkable_regions),
            s.largest_walkable,
            s.corner_density,
            static_cast<double>(s.unmatched)};
}
constexpr std::array<std::string_view, kScalarKeys> kScalarNames = {
    kMapStatsKeys[0], kMapStatsKeys[1], kMapStatsKeys[2],
    kMapStatsKeys[3], kMapStatsKeys[4], kMapStatsKeys[6]};
constexpr std::array<bool, kScalarKeys> kIsCount = {true, false, true, false, false, true};

// Min, median and max of every scalar over the seeds, then of each class's share_error.
struct Aggregate {
    std::array<Summary, kScalarKeys> scalars;
    std::vector<Summary> share_error; // per class; only meaningful where the class has a target
};

Aggregate aggregate(const std::vector<SeedStats>& runs, std::size_t classes) {
    Aggregate a;
    for (std::size_t k = 0; k < kScalarKeys; ++k) {
        std::vector<double> v;
        for (const SeedStats& r : runs)
            v.push_back(scalar_values(r.stats)[k]);
        a.scalars[k] = summarize(v);
    }
    a.share_error.resize(classes);
    for (std::size_t c = 0; c < classes; ++c) {
        std::vector<double> v;
        for (const SeedStats& r : runs)
            v.push_back(r.stats.share_error[c]);
        a.share_error[c] = summarize(v);
    }
    return a;
}

// Classes with a target share (share_error is not NaN; the same classes for every seed).
std::vector<std::size_t> classes_with_targets(const MapStats& s) {
    std::vector<std::size_t> out;
    for (std::size_t c = 0; c < s.share_error.size(); ++c)
        if (!std::isnan(s.share_error[c])) out.push_back(c);
    return out;
}

std::string format(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

// A count (a median may end in .5).
std::string format_count(double v) {
    return v == std::floor(v) ? format("%.0f", v) : format("%.1f", v);
}

// Percentage points, two decimals ("0.00", never "-0.00").
std::string format_points(double v) {
    const std::string s = format("%.2f", v);
    return s == "-0.00" ? "0.00" : s;
}

std::string format_scalar(std::size_t k, double v) {
    return kIsCount[k] ? format_count(v) : format("%.4f", v);
}

void print_table(const Project& project, const std::vector<SeedStats>& runs, const Aggregate& agg,
                 int width, int height, const std::optional<std::string>& classes_file) {
    const auto& terrain = project.recipe.terrain;
    const std::vector<std::size_t> targets = classes_with_targets(runs.front().stats);
    std::vector<std::string> header{"seed"};
    for (std::string_view name : kScalarNames)
        header.emplace_back(name);
    for (std::size_t c : targets)
        header.push_back(terrain[c].name);
    std::vector<std::vector<std::string>> rows;
    for (const SeedStats& r : runs) {
        std::vector<std::string> row{std::to_string(r.seed)};
        const auto v = scalar_values(r.stats);
        for (std::size_t k = 0; k < kScalarKeys; ++k)
            row.push_back(format_scalar(k, v[k]));
        for (std::size_t c : targets)
            row.push_back(format_points(r.stats.share_error[c]));
        rows.push_back(std::move(row));
    }
    for (int which = 0; which < 3; ++which) {
        auto pick = [&](const Summary& s) {
            return which == 0 ? s.min : which == 1 ? s.median : s.max;
        };
        std::vector<std::string> row{which == 0 ? "min" : which == 1 ? "median" : "max"};
        for (std::size_t k = 0; k < kScalarKeys; ++k)
            row.push_back(format_scalar(k, pick(agg.scalars[k])));
        for (std::size_t c : targets)
            row.push_back(format_points(pick(agg.share_error[c])));
        rows.push_back(std::move(row));
    }
    std::vector<std::size_t> widths(header.size());
    for (std::size_t i = 0; i < header.size(); ++i) {
        widths[i] = header[i].size();
        for (const auto& row : rows)
            widths[i] = std::max(widths[i], row[i].size());
    }
    auto print_row = [&](const std::vector<std::string>& row) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i) line += "  ";
            // The seed column left-aligned, numbers right-aligned.
            const std::string pad(widths[i] - row[i].size(), ' ');
            line += i == 0 ? row[i] + pad : pad + row[i];
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        std::cout << line << '\n';
    };

    std::cout << project.recipe.path << ", " << width << "x" << height << ", ";
    if (classes_file)
        std::cout << "class map " << *classes_file << "\n";
    else if (runs.size() == 1)
        std::cout << "seed " << runs.front().seed << "\n";
    else
        std::cout << "seeds " << runs.front().seed << "-" << runs.back().seed << " (" << runs.size()
                  << " maps)\n";
    if (!targets.empty())
        std::cout << "share_error per class (the last columns): percentage points against "
                  << (share_target_kind(project.recipe) == ShareTarget::recipe
                          ? "the recipe's shares"
                          : "the classification's fractions")
                  << "\n";
    print_row(header);
    const std::size_t seeds = runs.size();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i == seeds) { // a rule between the seeds and the aggregate
            std::size_t total = 0;
            for (std::size_t w : widths)
                total += w;
            std::cout << std::string(total + 2 * (widths.size() - 1), '-') << '\n';
        }
        print_row(rows[i]);
    }
}

void print_json(const Project& project, const std::vector<SeedStats>& runs, const Aggregate& agg,
                int width, int height) {
    const auto& terrain = project.recipe.terrain;
    const std::vector<std::size_t> targets = classes_with_targets(runs.front().stats);
    JsonWriter j;
    j.begin_object();
    j.key("recipe").value(project.recipe.path);
    j.key("width").value(width).key("height").value(height);
    j.key("share_target").value(share_target_name(share_target_kind(project.recipe)));
    j.key("seeds").begin_array();
    for (const SeedStats& r : runs) {
        // {"seed":N, then the keys of the stats object exactly as generate --json writes them.
        JsonWriter one;
        write_map_stats_json(one, r.stats, terrain);
        j.raw("{\"seed\":" + std::to_string(r.seed) + "," + one.str().substr(1));
    }
    j.end_array();
    j.key("aggregate").begin_object();
    auto summary = [&](const Summary& s) {
        j.begin_object();
        j.key("min").value(s.min).key("median").value(s.median).key("max").value(s.max);
        j.end_object();
    };
    for (std::size_t k = 0; k < kScalarKeys; ++k) {
        if (k == 5) { // share_error sits before unmatched, as in kMapStatsKeys
            j.key(kMapStatsKeys[5]).begin_object();
            for (std::size_t c : targets) {
                j.key(terrain[c].name);
                summary(agg.share_error[c]);
            }
            j.end_object();
        }
        j.key(kScalarNames[k]);
        summary(agg.scalars[k]);
    }
    j.end_object();
    j.end_object();
    std::cout << j.str() << '\n';
}

} // namespace

int run_stats(const Args& args) {
    const CommandSpec spec = stats_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    const CommandLine& cl = *parsed.line;
    std::optional<std::string> recipe_arg;
    if (!cl.operands.empty()) recipe_arg = cl.operands.front();
    const std::optional<std::string> classes_arg = cl.text("--classes");
    std::optional<SeedRange> seeds;
    if (auto text = cl.text("--seeds")) seeds = parse_seed_range(*text); // checked by the table
    const int threads = resolve_threads(static_cast<int>(cl.integer("--threads").value_or(0)));
    const bool json = cl.flag("--json");

    auto project = load_recipe_or_print(recipe_arg);
    if (!project) return kExitInput;
    GenerateOptions options;
    options.threads = threads;
    options.keep_details = false;
    if (!read_map_area_or_print(cl, project->recipe, options)) return kExitInput;
    {
        const double w = options.classes ? options.classes->width()
                                         : options.width.value_or(project->recipe.map.width);
        const double h = options.classes ? options.classes->height()
                                         : options.height.value_or(project->recipe.map.height);
        Diagnostics diags;
        if (!within_memory_limit("stats", map_memory_estimate(*project, w, h),
                                 cl.real("--max-memory").value_or(kDefaultMemoryLimitGiB),
                                 "a " + std::to_string(static_cast<long long>(w)) + "x" +
                                     std::to_string(static_cast<long long>(h)) + " map",
                                 diags)) {
            print_diagnostics(diags);
            return kExitInput;
        }
    }
    const SeedRange range =
        seeds.value_or(SeedRange{project->recipe.map.seed, project->recipe.map.seed});

    std::vector<SeedStats> runs;
    int width = 0, height = 0;
    for (std::uint64_t seed = range.first;; ++seed) {
        options.seed = seed;
        const GenerateResult result = generate_map(*project, options);
        width = result.map.width;
        height = result.map.height;
        runs.push_back({seed, map_stats_of(*project, result, threads)});
        if (seed == range.last) break;
    }
    const Aggregate agg = aggregate(runs, project->recipe.terrain.size());
    if (json)
        print_json(*project, runs, agg, width, height);
    else
        print_table(*project, runs, agg, width, height, classes_arg);
    return kExitOk;
}

} // namespace tilegen::app
