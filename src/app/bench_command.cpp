// tilegen bench: time the pipeline stage by stage on one recipe.
#include <sys/resource.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/json_writer.hpp"
#include "core/parallel.hpp"
#include "core/pipeline.hpp"
#include "io/png_stream.hpp"
#include "io/tmx_writer.hpp"

namespace tilegen::app {

namespace {

double peak_rss_bytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) * 1024.0; // Linux reports KiB
}

} // namespace

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
CommandSpec bench_spec() {
    CommandSpec s;
    s.name = "bench";
    s.summary = "Time the pipeline stage by stage (median, min, ns per cell, peak memory).";
    s.operands = "[RECIPE]";
    s.about =
        R"(Runs the whole pipeline (noise, classes, every rule layer, the map, the TMX in CSV, the PNG
preview) K times after one warm-up run and prints, per stage, the median and minimum time,
nanoseconds per cell, and the peak memory of the process. Without RECIPE, the built-in default
overworld.
The "tmx" stage is the writer `tilegen generate` uses (layer data and objects formatted in chunks on
N threads, streamed out in order) into a sink that counts the bytes and discards them: nothing is
written to disk and the TMX text is never held in memory. The "png" stage is generate's preview
(at most 16384 pixels a side, rendered and deflated in strips on N threads) into such a sink.
"total" is the pipeline's wall time (its stages and anything between them, failed constraint
tries included) plus "tmx" and "png".
)";
    s.options = {
        {{"--size"}, "WxH", "map size in cells (default 1024x1024)", cell_size()},
        recipe_seed_option(),
        {{"--threads"},
         "N",
         "worker threads (default: all hardware threads)",
         whole_number(1, 256)},
        {{"--repeat"}, "K", "timed runs after the warm-up (default 5)", whole_number(1, 256)},
        {{"--json"}, "", "print the results as one JSON object on stdout"},
    };
    s.epilogue = "Exit codes: 0 success, 1 bad input, 2 bad usage.\n";
    return s;
}

int run_bench(const Args& args) {
    const CommandSpec spec = bench_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    const CommandLine& cl = *parsed.line;
    std::optional<std::string> recipe_arg;
    if (!cl.operands.empty()) recipe_arg = cl.operands.front();
    const std::pair<int, int> size = cl.size("--size").value_or(std::pair<int, int>{1024, 1024});
    const int threads = static_cast<int>(cl.integer("--threads").value_or(0));
    const int repeat = static_cast<int>(cl.integer("--repeat").value_or(5));
    const bool json = cl.flag("--json");
    auto project = load_recipe_or_print(recipe_arg);
    if (!project) return kExitInput;
    GenerateOptions options;
    options.width = size.first;
    options.height = size.second;
    options.threads = resolve_threads(threads);
    options.keep_details = false; // as tilegen generate runs it
    if (auto n = cl.integer("--seed")) options.seed = static_cast<std::uint64_t>(*n);
    std::uint64_t seed = 0; // the seed the runs used
    const double cells = static_cast<double>(size.first) * size.second;

    std::map<std::string, std::vector<double>> samples;
    std::vector<std::string> order;
    std::size_t tmx_bytes = 0, png_bytes = 0;
    for (int run = 0; run <= repeat; ++run) {
        GenerateResult result = generate_map(*project, options);
        seed = result.seed;
        // The pipeline's stages, then the writers, timed by the same runner. Total: the pipeline's
        // own wall time (its stages and whatever runs between them, failed tries included), then
        // the writers.
        std::vector<StageTiming> timings;
        double pipeline_ms = 0;
        for (const auto& t : result.timings)
            if (t.stage != "total")
                timings.push_back(t);
            else
                pipeline_ms = t.ms;
        run_timed(timings, "tmx", [&] {
            io::CountingSink sink;
            io::MapOutputOptions output;
            output.encoding = io::LayerEncoding::csv;
            output.threads = options.threads;
            io::write_map(sink, result.map, "bench.tmx", output);
            tmx_bytes = sink.bytes;
        });
        bool png_ok = true;
        Diagnostics png_diags;
        run_timed(timings, "png", [&] {
            io::CountingSink sink;
            io::PngStreamOptions png_options;
            png_options.threads = options.threads;
            png_ok = io::write_preview_png(sink, result.map, io::kPreviewMaxSide, png_options,
                                           "bench.png", png_diags)
                         .has_value();
            png_bytes = sink.bytes;
        });
        if (!png_ok) {
            print_diagnostics(png_diags);
            return kExitInput;
        }
        if (run == 0) continue; // warm-up
        double total = pipeline_ms;
        for (const auto& t : timings) {
            if (!samples.contains(t.stage)) order.push_back(t.stage);
            samples[t.stage].push_back(t.ms);
            if (t.stage == "tmx" || t.stage == "png") total += t.ms;
        }
        if (!samples.contains("total")) order.push_back("total");
        samples["total"].push_back(total);
    }
    const double peak = peak_rss_bytes();
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    if (json) {
        JsonWriter j;
        j.begin_object();
        j.key("recipe").value(project->recipe.path);
        j.key("width").value(size.first).key("height").value(size.second).key("seed").value(seed);
        j.key("threads").value(options.threads).key("repeat").value(repeat);
        j.key("stages").begin_array();
        for (const auto& stage : order) {
            const auto& v = samples[stage];
            const double med = median(v), min = *std::min_element(v.begin(), v.end());
            j.begin_object();
            j.key("stage").value(stage).key("median_ms").value(med).key("min_ms").value(min);
            j.key("ns_per_cell").value(med * 1e6 / cells);
            j.end_object();
        }
        j.end_array();
        j.key("peak_memory_bytes").value(peak);
        j.key("bytes_per_cell").value(peak / cells);
        j.key("tmx_bytes").value(static_cast<std::uint64_t>(tmx_bytes));
        j.key("tmx_encoding").value("csv");
        j.key("png_bytes").value(static_cast<std::uint64_t>(png_bytes));
        j.end_object();
        std::cout << j.str() << "\n";
    } else {
        std::printf("%s, %dx%d cells, seed %llu, %d thread(s), %d run%s after a warm-up\n",
                    project->recipe.path.c_str(), size.first, size.second,
                    static_cast<unsigned long long>(seed), options.threads, repeat,
                    repeat == 1 ? "" : "s");
        std::printf("%-12s %12s %12s %12s\n", "stage", "median ms", "min ms", "ns/cell");
        for (const auto& stage : order) {
            const auto& v = samples[stage];
            const double med = median(v);
            std::printf("%-12s %12.2f %12.2f %12.2f\n", stage.c_str(), med,
                        *std::min_element(v.begin(), v.end()), med * 1e6 / cells);
        }
        const double tmx = static_cast<double>(tmx_bytes);
        std::printf("tmx %.1f MiB of CSV (%.2f bytes per cell), streamed and discarded\n",
                    tmx / 1048576.0, tmx / cells);
        std::printf("png %.1f MiB (the preview generate writes), streamed and discarded\n",
                    static_cast<double>(png_bytes) / 1048576.0);
        std::printf("peak memory %.1f MiB (%.1f bytes per cell)\n", peak / 1048576.0, peak / cells);
    }
    return kExitOk;
}

} // namespace tilegen::app
