// tilegen_microbench: single stages timed with Google Benchmark, per cell, on one thread.
//   noise/<kind>           a 2048x2048 heightfield, fBm of 6 octaves (harmonic: all 12 lattices)
//   thresholds             percentile thresholds (histogram + bucket selection) of a 2048x2048 map
//   rule_decisions/<rules>/<threads>  deciding each cell's rule on the default overworld's
//   2048x2048 class grid
//                          with 20, 200 or all of its rules (taken evenly from the ordered layer,
//                          plus a catch-all), on 1 and 2 threads: flat in rule count. The matcher's
//                          tables are built in each iteration; decided rows are consumed, not
//                          stored in a grid
//   rule_matching/<rules>/<threads>  the whole rule layer (decide and choose the tile), on 1 and 2
//   threads write_layer/<encoding> encoding a 2048x2048 layer of gids (csv, base64, base64+zlib,
//   base64+zstd)
//   legalise_grid/<rules>/<threads>  legalising the default overworld's 4096x4096 class grid:
//                          rules 0 = its own rules (nothing to change: one matching pass per
//                          layer), 1 = a pairwise chain (class c may touch c - 1 and higher)
//   map_stats/<threads>    the map statistics (specks, thin cells, walkable regions, corner
//                          density, shares) of the default overworld's 4096x4096 class grid, on 1
//                          and 2 threads
//   class_passes/<rules>/<threads>/<weighted>  a class pass of 4 runs over a 4096x4096 class grid
//                          (the overworld's 2048x2048 one tiled 2x2, mirrored), with 10 or 200
//                          class rules made from the ground layer's patterns (+ a catch-all), one
//                          target or two weighted ones, on 1 and 2 threads; s_per_cell is per cell
//                          and run (the pass's tables and second buffer included)
// Run: build/src/tilegen_microbench [--benchmark_filter=REGEX]. The s_per_cell counter (e.g. 1.5n
// = 1.5 ns) is the figure to read.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <tuple>
#include <vector>

#include "core/classes/class_cleanup.hpp"
#include "core/classes/terrain_classes.hpp"
#include "core/heightfield/heightfield.hpp"
#include "core/parallel.hpp"
#include "core/pipeline.hpp"
#include "core/quality/map_stats.hpp"
#include "core/rules/autotile.hpp"
#include "core/rules/class_passes.hpp"
#include "core/rules/legalise.hpp"
#include "core/rules/rule_matcher.hpp"
#include "io/embedded_files.hpp"
#include "io/file_source.hpp"
#include "io/layer_encoding.hpp"
#include "io/project_loader.hpp"

using namespace tilegen;

namespace {

constexpr int kSide = 2048;
constexpr double kCells = double{kSide} * kSide;

void per_cell(benchmark::State& state) {
    state.counters["s_per_cell"] = benchmark::Counter(
        kCells, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The default overworld at 2048x2048, generated once: its class grid, rule layers and ground tiles.
struct Overworld {
    Project project;
    GenerateResult result;
};

// The built-in recipe and its map made with `options` (every benchmark's input; outside timing).
Overworld generate_builtin(const GenerateOptions& options) {
    Diagnostics diags;
    auto project = io::load_project(io::kDefaultRecipePath, io::EmbeddedFiles{}, diags);
    if (!project) {
        std::cerr << "tilegen_microbench: the built-in recipe did not load\n";
        std::exit(1);
    }
    GenerateResult result = generate_map(*project, options);
    return Overworld{std::move(*project), std::move(result)};
}

const Overworld& overworld() {
    static const std::optional<Overworld> world = [] {
        GenerateOptions options;
        options.width = kSide;
        options.height = kSide;
        return std::optional<Overworld>(generate_builtin(options));
    }();
    return *world;
}

void noise(benchmark::State& state, NoiseKind kind) {
    NoiseSettings s;
    s.kind = kind;
    s.octaves = 6;
    s.scale = 64;
    for (auto _ : state) {
        Grid<float> g = generate_base(s, 7, kSide, kSide, Region{0, 0, kSide, kSide}, 1);
        benchmark::DoNotOptimize(g.cells().data());
    }
    per_cell(state);
}

void thresholds(benchmark::State& state) {
    NoiseSettings s;
    s.kind = NoiseKind::perlin;
    const Grid<float> heights = generate_base(s, 7, kSide, kSide, Region{0, 0, kSide, kSide}, 1);
    const std::vector<double> shares{0.14, 0.12, 0.07, 0.52, 0.15};
    for (auto _ : state)
        benchmark::DoNotOptimize(thresholds_from_shares(heights, shares, 1));
    per_cell(state);
}

// The ground layer with `count` of its rules (0: all), taken evenly from the specificity order,
// plus a catch-all.
LayerRules rules_subset(const Overworld& w, std::size_t count) {
    const LayerRules& all = w.result.layers.front();
    const std::size_t want = count == 0 ? all.ordered.size() : count;
    LayerRules layer{all.name, {}, {}};
    for (std::size_t i = 0; i < want && i < all.ordered.size(); ++i) {
        const std::size_t k = i * all.ordered.size() / want;
        layer.ordered.push_back(all.ordered[k]);
        layer.resolved.push_back(all.resolved[k]);
    }
    Rule catch_all = all.ordered.back();
    catch_all.pattern = Descriptor(1);
    layer.ordered.push_back(catch_all);
    layer.resolved.push_back(all.resolved.front());
    return layer;
}

// Deciding each cell's rule only (state.range(1) threads): the layer's matcher is built (tables
// filled as neighbourhoods are met) and every row decided; rows are handed on as the pipeline's
// choice pass takes them (a checksum here), not copied into a grid.
void rule_decisions(benchmark::State& state) {
    const Overworld& w = overworld();
    const LayerRules layer = rules_subset(w, static_cast<std::size_t>(state.range(0)));
    const int classes = static_cast<int>(w.project.recipe.terrain.size());
    const int threads = static_cast<int>(state.range(1));
    const ClassGrid& grid = w.result.classes;
    for (auto _ : state) {
        const LayerMatcher matcher(grid, layer.ordered, classes, {});
        std::vector<long long> sums(static_cast<std::size_t>(threads), 0);
        parallel_for(threads, threads, [&](int b0, int b1) {
            for (int b = b0; b < b1; ++b) {
                long long& sum = sums[static_cast<std::size_t>(b)];
                matcher.match_rows(grid.height() * b / threads, grid.height() * (b + 1) / threads,
                                   [&](int, const int* decided) {
                                       sum += decided[0] + decided[grid.width() - 1];
                                   });
            }
        });
        benchmark::DoNotOptimize(sums.data());
    }
    state.counters["rules"] = static_cast<double>(layer.ordered.size());
    per_cell(state);
}

// Deciding and choosing each cell's tile (a whole rule layer), on state.range(1) threads.
void rule_matching(benchmark::State& state) {
    const Overworld& w = overworld();
    const LayerRules layer = rules_subset(w, static_cast<std::size_t>(state.range(0)));
    const int classes = static_cast<int>(w.project.recipe.terrain.size());
    for (auto _ : state) {
        AutotileResult r = autotile(w.result.classes, std::span<const LayerRules>(&layer, 1),
                                    classes, {}, 7, 1, static_cast<int>(state.range(1)), false);
        benchmark::DoNotOptimize(r.layers.front().tiles.cells().data());
    }
    state.counters["rules"] = static_cast<double>(layer.ordered.size());
    per_cell(state);
}

void write_layer(benchmark::State& state, io::LayerEncoding encoding) {
    const Grid<Gid>& tiles = overworld().result.map.layers.front().tiles;
    std::size_t bytes = 0;
    for (auto _ : state) {
        const std::string text = io::encode_layer(tiles.cells(), tiles.width(), encoding);
        bytes = text.size();
        benchmark::DoNotOptimize(text.data());
    }
    state.counters["bytes"] = static_cast<double>(bytes);
    per_cell(state);
}

// A class pass of `runs` runs with `count` class rules taken evenly from the ground layer (their
// patterns; target: the lowest class the centre accepts, or with `weighted` that class, weight 3,
// or the next class, weight 1, so cells change and picks are hashed), plus a catch-all that keeps
// the class.
ClassPass class_pass_from_ground(const Overworld& w, std::size_t count, int runs, bool weighted) {
    const LayerRules layer = rules_subset(w, count);
    const int classes = static_cast<int>(w.project.recipe.terrain.size());
    ClassPass pass;
    pass.runs = runs;
    for (std::size_t r = 0; r + 1 < layer.ordered.size(); ++r) {
        Rule rule = layer.ordered[r];
        const ClassMask centre = rule.pattern.at(0, 0);
        int lowest = 0;
        while (lowest + 1 < classes && !((centre >> lowest) & 1u))
            ++lowest;
        pass.ordered.push_back(rule);
        pass.targets.push_back(weighted ? ClassTargets{{lowest, (lowest + 1) % classes}, {3, 1}}
                                        : ClassTargets{{lowest}, {1}});
    }
    Rule keep = layer.ordered.back();
    keep.pattern = Descriptor(1);
    pass.ordered.push_back(keep);
    pass.targets.push_back(ClassTargets{{kKeepClass}, {1}});
    return pass;
}

// The overworld's 2048x2048 class grid tiled 2x2 (mirrored, so the seams are like the rest).
const ClassGrid& classes_4096() {
    static const ClassGrid grid = [] {
        const ClassGrid& small = overworld().result.classes;
        const int n = small.width();
        ClassGrid big = ClassGrid::uninitialised(2 * n, 2 * n);
        for (int y = 0; y < 2 * n; ++y)
            for (int x = 0; x < 2 * n; ++x)
                big(x, y) = small(x < n ? x : 2 * n - 1 - x, y < n ? y : 2 * n - 1 - y);
        return big;
    }();
    return grid;
}

void class_passes(benchmark::State& state) {
    constexpr int kRuns = 4;
    const Overworld& w = overworld();
    const ClassGrid& grid = classes_4096();
    const std::vector<ClassPass> passes{class_pass_from_ground(
        w, static_cast<std::size_t>(state.range(0)), kRuns, state.range(2) != 0)};
    const int classes = static_cast<int>(w.project.recipe.terrain.size());
    std::uint64_t changed = 0;
    for (auto _ : state) {
        state.PauseTiming(); // the input grid is moved in (as the pipeline does), copied untimed
        ClassGrid in = grid;
        state.ResumeTiming();
        PassHistory history;
        ClassGrid out = run_class_passes(std::move(in), passes, classes, {}, 7,
                                         static_cast<int>(state.range(1)), &history);
        changed = history.changed.front().front();
        benchmark::DoNotOptimize(out.cells().data());
    }
    state.counters["rules"] = static_cast<double>(passes.front().ordered.size());
    state.counters["changed_run1"] = static_cast<double>(changed);
    const double cells_runs = static_cast<double>(grid.width()) * grid.height() * kRuns;
    state.counters["s_per_cell"] = benchmark::Counter(
        cells_runs, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

} // namespace

// The statistics of the default overworld's class grid at 4096x4096 (generated once, outside the
// timing), on state.range(0) threads.
constexpr int kStatsSide = 4096;

void map_stats(benchmark::State& state) {
    static const std::optional<std::pair<ClassGrid, std::vector<TerrainClass>>> world = [] {
        GenerateOptions options;
        options.width = kStatsSide;
        options.height = kStatsSide;
        options.threads = 2;
        Overworld built = generate_builtin(options);
        return std::optional(
            std::pair(std::move(built.result.classes), std::move(built.project.recipe.terrain)));
    }();
    const std::vector<bool> walkable = walkable_flags(world->second);
    const std::vector<double> shares = target_shares(world->second, true);
    MapStats stats;
    for (auto _ : state) {
        stats =
            compute_map_stats(world->first, walkable, shares, 0, static_cast<int>(state.range(0)));
        benchmark::DoNotOptimize(stats.specks);
    }
    state.counters["specks"] = static_cast<double>(stats.specks);
    state.counters["walkable_regions"] = static_cast<double>(stats.walkable_regions);
    state.counters["s_per_cell"] = benchmark::Counter(
        double{kStatsSide} * kStatsSide,
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(noise, harmonic, NoiseKind::harmonic)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(noise, value, NoiseKind::value)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(noise, perlin, NoiseKind::perlin)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(noise, simplex, NoiseKind::simplex)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(noise, worley, NoiseKind::worley)->Unit(benchmark::kMillisecond);
BENCHMARK(thresholds)->Unit(benchmark::kMillisecond);
BENCHMARK(rule_decisions)
    ->ArgsProduct({{20, 200, 0}, {1, 2}})
    ->ArgNames({"rules", "threads"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(rule_matching)
    ->ArgsProduct({{20, 200, 0}, {1, 2}})
    ->ArgNames({"rules", "threads"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_layer, csv, io::LayerEncoding::csv)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_layer, base64, io::LayerEncoding::base64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_layer, zlib, io::LayerEncoding::base64_zlib)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(write_layer, zstd, io::LayerEncoding::base64_zstd)->Unit(benchmark::kMillisecond);

BENCHMARK(map_stats)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(class_passes)
    ->ArgsProduct({{10, 200}, {1, 2}, {0, 1}})
    ->ArgNames({"rules", "threads", "weighted"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

namespace {

// clean_up/<keys>: the class clean-up (core/classes/class_cleanup.hpp) on the default overworld's
// 4096x4096 class grid (7 classes), one thread; the grid is copied outside the timing. area: every
// class min_area 8; width: every class min_width 2; both: the two together; typical: min_area 4
// everywhere and min_width 2 on the first three classes; wide: min_area 4 and min_width 3 on every
// class (the opening removes 8% of the cells).
const ClassGrid& overworld_classes_4096() {
    static const ClassGrid grid = [] {
        Diagnostics diags;
        auto project = io::load_project(io::kDefaultRecipePath, io::EmbeddedFiles{}, diags);
        if (!project) std::exit(1);
        GenerateOptions options;
        options.width = 4096;
        options.height = 4096;
        return generate_map(*project, options).classes;
    }();
    return grid;
}

void clean_up(benchmark::State& state, int min_area, int min_width, int width_classes) {
    const ClassGrid& source = overworld_classes_4096();
    std::vector<ClassCleanup> settings(7);
    for (std::size_t i = 0; i < settings.size(); ++i)
        settings[i] = {min_area, static_cast<int>(i) < width_classes ? min_width : 0};
    CleanupReport report;
    for (auto _ : state) {
        state.PauseTiming();
        ClassGrid grid = source;
        state.ResumeTiming();
        report = clean_up_classes(grid, settings);
        benchmark::DoNotOptimize(grid.cells().data());
    }
    state.counters["opened"] = static_cast<double>(report.opened_cells);
    state.counters["merged"] = static_cast<double>(report.merged_regions);
    state.counters["s_per_cell"] =
        benchmark::Counter(4096.0 * 4096.0, benchmark::Counter::kIsIterationInvariantRate |
                                                benchmark::Counter::kInvert);
}

} // namespace

BENCHMARK_CAPTURE(clean_up, area, 8, 0, 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(clean_up, width, 0, 2, 7)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(clean_up, both, 8, 2, 7)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(clean_up, typical, 4, 2, 3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(clean_up, wide, 4, 3, 7)->Unit(benchmark::kMillisecond);

// Legalising the default overworld's 4096x4096 class grid (generated once, outside the timing) on
// state.range(1) threads: with its own rules (state.range(0) == 0: nothing needs changing, the cost
// is the drawability pass), or with a pairwise chain in terrain order (1: a cell of class c is
// drawable when its 8 neighbours are all of class c - 1 or higher), which makes it work.
void legalise_grid(benchmark::State& state) {
    static const std::optional<std::tuple<ClassGrid, std::vector<LayerRules>, int>> world = [] {
        Diagnostics diags;
        auto project = io::load_project(io::kDefaultRecipePath, io::EmbeddedFiles{}, diags);
        if (!project) {
            std::cerr << "tilegen_microbench: the built-in recipe did not load\n";
            std::exit(1);
        }
        GenerateOptions options;
        options.width = kStatsSide;
        options.height = kStatsSide;
        options.threads = 2;
        GenerateResult result = generate_map(*project, options);
        return std::optional(std::tuple(std::move(result.classes), std::move(result.layers),
                                        static_cast<int>(project->recipe.terrain.size())));
    }();
    const auto& [grid, own_layers, classes] = *world;
    std::vector<LayerRules> chain(1);
    for (int c = 0; c < classes; ++c) {
        Rule r;
        r.pattern = Descriptor(3);
        const ClassMask at_least = ~((ClassMask{1} << std::max(0, c - 1)) - 1);
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                r.pattern.set(dx, dy, dx || dy ? at_least : ClassMask{1} << c);
        r.targets.push_back(Target{});
        chain[0].ordered.push_back(r);
    }
    const std::vector<LayerRules>& layers = state.range(0) == 0 ? own_layers : chain;
    LegaliseReport report;
    for (auto _ : state) {
        LegaliseResult r =
            legalise(grid, layers, classes, {}, {}, static_cast<int>(state.range(1)));
        report = r.report;
        benchmark::DoNotOptimize(r.classes.cells().data());
    }
    state.counters["undrawable_before"] = static_cast<double>(report.undrawable_before);
    state.counters["undrawable"] = static_cast<double>(report.undrawable);
    state.counters["changed"] = static_cast<double>(report.changed);
    state.counters["rounds"] = report.rounds;
    state.counters["s_per_cell"] = benchmark::Counter(
        double{kStatsSide} * kStatsSide,
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

BENCHMARK(legalise_grid)
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->ArgNames({"rules", "threads"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
