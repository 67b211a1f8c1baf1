// tilegen generate: recipe -> TMX + TSX + atlas + PNG preview.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/stats_command.hpp"
#include "core/classes/class_map_text.hpp"
#include "core/json_writer.hpp"
#include "core/parallel.hpp"
#include "core/pipeline.hpp"
#include "io/class_map_reader.hpp"
#include "io/file_source.hpp"
#include "io/files.hpp"
#include "io/godot_writer.hpp"
#include "io/infinite_writer.hpp"
#include "io/ldtk_writer.hpp"
#include "io/png_stream.hpp"
#include "io/project_loader.hpp"
#include "io/screens_writer.hpp"
#include "io/tmx_writer.hpp"

namespace tilegen::app {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// The "outputs" array of --json (finite and infinite maps alike): the files written, in order.
void write_outputs_json(JsonWriter& j, const io::TmxBundlePaths& bundle,
                        io::TilesetPlacement tilesets, bool objects,
                        const std::optional<fs::path>& png) {
    const bool external = tilesets == io::TilesetPlacement::external;
    j.key("outputs").begin_array();
    j.value(bundle.tmx.generic_string());
    if (external) j.value(bundle.tsx.generic_string());
    j.value(bundle.atlas.generic_string());
    if (objects) {
        if (external) j.value(bundle.objects_tsx.generic_string());
        j.value(bundle.objects_atlas.generic_string());
    }
    if (png) j.value(png->generic_string());
    j.end_array();
}

// "places", "roads" and "constraints" of --json (issue 17; docs/places-and-roads.md).
void write_places_json(JsonWriter& j, const Project& project, const GenerateResult& result) {
    const auto& rules = project.recipe.places.places;
    const auto name_of = [&](int place) {
        return rules[static_cast<std::size_t>(result.places[static_cast<std::size_t>(place)].rule)]
            .name;
    };
    j.key("places").begin_array();
    for (const Place& p : result.places) {
        const PlaceRule& rule = rules[static_cast<std::size_t>(p.rule)];
        j.begin_object();
        j.key("name").value(rule.name);
        j.key("x").value(p.x).key("y").value(p.y);
        j.key("width").value(p.w).key("height").value(p.h);
        j.key("sprite").value(rule.sprite);
        j.key("start").value(rule.start);
        j.end_object();
    }
    j.end_array();
    j.key("roads").begin_array();
    for (const Road& r : result.roads.roads) {
        std::uint64_t bridges = 0;
        for (std::uint8_t b : r.bridged)
            bridges += b;
        j.begin_object();
        if (r.from_place >= 0)
            j.key("from").value(name_of(r.from_place));
        else
            j.key("from").value("network");
        j.key("to").value(name_of(r.to_place));
        j.key("cells").value(static_cast<std::uint64_t>(r.cells.size()));
        j.key("bridge_cells").value(bridges);
        j.key("cost").value(static_cast<double>(r.cost) / kCostScale);
        j.key("loop").value(r.loop);
        j.end_object();
    }
    j.end_array();
    const ConstraintsReport& c = result.constraints;
    j.key("constraints").begin_object();
    j.key("met").value(c.met);
    j.key("tries").value(c.tries);
    j.key("seed").value(result.seed);
    j.key("walkable_regions_before").value(result.reach.big_before);
    j.key("walkable_regions").value(result.reach.big_after);
    j.key("carved").value(result.reach.carved);
    j.key("filled").value(result.reach.filled);
    j.key("fitness").begin_object();
    j.key("accessibility").value(c.fitness.accessibility);
    j.key("obstacle_edges").value(c.fitness.obstacle_edges);
    j.key("fairness").value(c.fitness.fairness);
    j.end_object();
    if (result.search.ran) { // [search]: the evolutionary loop and the values it kept
        const SearchReport& s = result.search;
        j.key("search").begin_object();
        j.key("generations").value(s.generations);
        j.key("population").value(s.population);
        j.key("evaluations").value(s.evaluations);
        j.key("score").value(s.score);
        j.key("values").begin_object();
        for (const auto& [path, value] : s.values)
            j.key(path).value(value);
        j.end_object();
        j.end_object();
    }
    j.end_object();
}

// -o X.ldtk (docs/ldtk.md): the map, its classes and its rules as an LDtk project.
bool write_ldtk_output(const Project& project, const GenerateResult& result, const fs::path& path,
                       Diagnostics& diags) {
    std::vector<std::uint32_t> colours;
    for (std::size_t i = 0; i < project.recipe.terrain.size(); ++i)
        colours.push_back(terrain_rgb(project.recipe, i));
    io::LdtkSource source;
    source.map = &result.map;
    source.classes = &result.classes;
    source.layers = result.layers;
    source.decisions = result.decisions;
    source.terrain = project.recipe.terrain;
    source.colours = colours;
    source.outside = outside_policy(project.recipe).fixed_class;
    source.seed = result.seed;
    if (const auto& sc = project.recipe.screens) { // [screens]: a level per screen, GridVania
        source.screen_width = sc->width;
        source.screen_height = sc->height;
    }
    return io::write_ldtk(source, path, diags);
}

// The output format an -o path asks for: Tiled (TMX/TMJ), LDtk or Godot.
bool is_ldtk(const fs::path& path) {
    return path.extension() == ".ldtk";
}
bool is_godot(const fs::path& path) {
    return path.extension() == ".tscn";
}

} // namespace

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
// "X,Y,W,H" -> the region (W, H >= 1, every number within the map coordinate range).
std::optional<Region> parse_region(const std::string& text) {
    std::array<long long, 4> v{};
    std::size_t at = 0;
    for (int i = 0; i < 4; ++i) {
        if (i > 0) {
            if (at >= text.size() || text[at] != ',') return std::nullopt;
            ++at;
        }
        const std::size_t start = at;
        if (at < text.size() && text[at] == '-') ++at;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9')
            ++at;
        if (at == start || (at == start + 1 && text[start] == '-') || at - start > 10)
            return std::nullopt;
        v[static_cast<std::size_t>(i)] = std::stoll(text.substr(start, at - start));
    }
    if (at != text.size()) return std::nullopt;
    constexpr long long kLimit = 1LL << 30;
    for (long long n : v)
        if (n < -kLimit || n > kLimit) return std::nullopt;
    if (v[2] < 1 || v[3] < 1 || v[2] > 65536 || v[3] > 65536) return std::nullopt;
    return Region{static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]),
                  static_cast<int>(v[3])};
}

CommandSpec generate_spec() {
    CommandSpec s;
    s.name = "generate";
    s.summary = "Make a map: heightfield -> terrain classes -> descriptor rules -> TMX + PNG.";
    s.operands = "[RECIPE]";
    s.about =
        "Makes a map from a recipe: heightfield -> terrain classes -> descriptor rules -> TMX "
        "+ PNG.\nWithout RECIPE, the built-in default overworld (the same as "
        "samples/overworld.toml).\n";
    s.options = {
        {{"-o", "--output"},
         "OUT.tmx|OUT.tmj|OUT.ldtk|OUT.tscn",
         "the Tiled map to write (default out/<recipe name>.tmx); OUT.tsx and OUT-tiles.png are "
         "written beside it. OUT.tmj writes Tiled's JSON format (with OUT.tsj) instead; OUT.ldtk "
         "an LDtk 1.5 project (with OUT-ldtk-tiles.png; docs/ldtk.md); OUT.tscn a Godot 4 scene "
         "(with its TileSet OUT.tres; docs/godot.md)",
         file_ending({".tmx", ".tmj", ".ldtk", ".tscn"})},
        {{"--png"},
         "OUT.png|none",
         "the PNG preview (default: beside the TMX, OUT.png; \"none\": no preview). Maps larger "
         "than 16384 pixels on a side get a preview 1/n of their size (one pixel of n along each "
         "side, n the smallest that fits)",
         custom("a .png file or none",
                [](const std::string& v) {
                    return v == "none" || std::filesystem::path(v).extension() == ".png";
                })},
        recipe_seed_option(),
        recipe_size_option(),
        threads_option(),
        max_memory_option(),
        {{"--classes"},
         "FILE.txt|.png|.tmx[:LAYER]",
         "skip the noise: autotile this class map, which sets the size: FILE.txt has one line of "
         "terrain symbols per row; FILE.png (or .bmp) one pixel per cell in the recipe's terrain "
         "colours; FILE.tmx[:LAYER] a Tiled map's tile layer (default: the first), each tile's "
         "class from its 'terrain' property or its Wang colour",
         non_empty("a file name")},
        {{"--encoding"},
         "E",
         "tile layer data: csv, base64, base64+zlib, base64+gzip, base64+zstd (default: the "
         "recipe's [output] encoding, else csv)",
         custom("csv, base64, base64+zlib, base64+gzip or base64+zstd",
                [](const std::string& v) { return io::parse_layer_encoding(v).has_value(); })},
        {{"--infinite"},
         "",
         "write an infinite map: layers as chunks, generated chunk by chunk (position-based kinds "
         "only); the map covers --size (rounded out to whole chunks); thresholds come from the "
         "first 1024x1024 cells (or the whole size if smaller); objects are placed band by band, "
         "each with the cells its objects depend on around it: the finite map's objects"},
        {{"--region"},
         "X,Y,W,H",
         "write just this window of the map (cells X..X+W-1, Y..Y+H-1; X and Y may be negative) "
         "as a finite map, the same tiles as the --infinite map of --size has there: thresholds "
         "from the same sample, noise scales from --size. Position-based recipes only; objects: "
         "the infinite map's whose footprint starts in the window (placed over the window and the "
         "cells its objects depend on around it: position-based). Cut a world too big for one "
         "machine "
         "into region jobs (README, \"Maps larger than one machine\")",
         custom("X,Y,W,H: four whole numbers, W and H at least 1",
                [](const std::string& v) { return parse_region(v).has_value(); })},
        {{"--chunk"},
         "N",
         "chunk side for --infinite (default 16, 1..1024)",
         whole_number(1, 1024)},
        {{"--tilesets"},
         "external|embedded",
         "external (default): tilesets in their own files beside the map (OUT.tsx or OUT.tsj); "
         "embedded: written inside the map (the images stay beside it)",
         one_of({"external", "embedded"})},
        {{"--embed-tilesets"},
         "",
         "the same as --tilesets embedded (Phaser 3 reads only maps with embedded tilesets)"},
        {{"--json"}, "", "print a JSON summary on stdout"},
    };
    s.constraints = {
        {"--infinite", "--classes", Constraint::excludes, ""},
        {"--size", "--classes", Constraint::excludes, "the class map sets the size"},
        {"--region", "--infinite", Constraint::excludes, ""},
        {"--region", "--classes", Constraint::excludes, ""},
        {"--embed-tilesets", "--tilesets", Constraint::excludes,
         "--embed-tilesets is --tilesets embedded"},
    };
    s.epilogue = "Exit codes: 0 success, 1 bad input, 2 bad usage.\n";
    return s;
}

// The world of an infinite map or a region window (prepare_world), its errors printed; a note when
// keep_shares, a whole-map stage, cannot run.
std::optional<WorldSetup> chunked_world(const Project& project, std::uint64_t seed, int width,
                                        int height, Region sample) {
    Diagnostics diags;
    auto world = prepare_world(project, seed, width, height, sample, diags);
    if (!world) {
        print_diagnostics(diags);
        return std::nullopt;
    }
    if (!project.class_passes.empty() && project.recipe.classes.keep_shares)
        print_diagnostics({run_note("keep_shares needs the whole map: the class shares stay as "
                                    "the class passes leave them")});
    return world;
}

int run_generate(const Args& args) {
    const auto t_start = Clock::now();
    const CommandSpec spec = generate_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    const CommandLine& cl = *parsed.line;
    std::optional<std::string> recipe_arg;
    if (!cl.operands.empty()) recipe_arg = cl.operands.front();
    const std::optional<std::string> tmx_arg = cl.text("-o"), png_arg = cl.text("--png"),
                                     classes_arg = cl.text("--classes"),
                                     encoding_arg = cl.text("--encoding");
    std::optional<std::uint64_t> seed;
    if (auto n = cl.integer("--seed")) seed = static_cast<std::uint64_t>(*n);
    const std::optional<std::pair<int, int>> size = cl.size("--size");
    const bool json = cl.flag("--json"), infinite = cl.flag("--infinite");
    const std::optional<Region> region =
        cl.text("--region") ? parse_region(*cl.text("--region")) : std::nullopt;
    const int chunk = static_cast<int>(cl.integer("--chunk").value_or(16));
    const int threads = static_cast<int>(cl.integer("--threads").value_or(0));
    const double max_memory = cl.real("--max-memory").value_or(kDefaultMemoryLimitGiB);
    const io::TilesetPlacement tilesets =
        cl.text("--tilesets") == "embedded" || cl.flag("--embed-tilesets")
            ? io::TilesetPlacement::embedded
            : io::TilesetPlacement::external;

    const bool ldtk = tmx_arg && is_ldtk(*tmx_arg), godot = tmx_arg && is_godot(*tmx_arg);
    if (ldtk || godot) {
        // LDtk projects and Godot scenes are finite maps with their own tilesets (docs/ldtk.md,
        // docs/godot.md).
        for (const char* option :
             {"--infinite", "--region", "--encoding", "--tilesets", "--embed-tilesets"})
            if (cl.has(option))
                return usage_error("generate",
                                   std::string(option) + " applies to Tiled maps, not to -o " +
                                       (ldtk ? "X.ldtk (an LDtk project is one finite level)"
                                             : "X.tscn (a Godot scene of one finite map)"));
    }

    Diagnostics diags;
    auto t0 = Clock::now();
    auto project = load_recipe_or_print(recipe_arg);
    if (!project) return kExitInput;
    GenerateOptions options;
    options.seed = seed;
    options.threads = resolve_threads(threads);
    if (!read_map_area_or_print(cl, project->recipe, options)) return kExitInput;
    if (project->recipe.screens && (infinite || region || godot)) {
        print_diagnostics({error_at(project->recipe.path, project->recipe.screens->position.line,
                                    project->recipe.screens->position.column,
                                    "[screens] cuts a finite map into a Tiled world (TMX/TMJ) "
                                    "or LDtk levels (.ldtk); --infinite, --region and .tscn "
                                    "maps cannot have screens (yet)")});
        return kExitInput;
    }
    const double load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

    // Output paths (checked before the work, so a bad path fails fast).
    const fs::path tmx_path =
        tmx_arg ? fs::path(*tmx_arg) : fs::path("out") / (project->recipe.name + ".tmx");
    const bool want_png = !(png_arg && *png_arg == "none");
    fs::path png_path =
        png_arg && want_png ? fs::path(*png_arg) : fs::path(tmx_path).replace_extension(".png");

    // Never write over an input of this run (the recipe, a rule file, the tileset, its image, the
    // class map).
    {
        std::vector<std::string> inputs = project->input_files;
        if (classes_arg) inputs.push_back(*classes_arg);
        const auto bundle = io::tmx_bundle_paths(tmx_path);
        const auto ldtk_files = io::ldtk_paths(tmx_path);
        std::vector<fs::path> outputs = {bundle.tmx,         bundle.tsx,           bundle.atlas,
                                         bundle.objects_tsx, bundle.objects_atlas, png_path};
        const auto godot_files = io::godot_paths(tmx_path);
        if (ldtk) outputs = {ldtk_files.ldtk, ldtk_files.tiles, ldtk_files.objects, png_path};
        if (godot)
            outputs = {godot_files.scene, godot_files.tileset, godot_files.tiles,
                       godot_files.objects, png_path};
        for (const fs::path& out : outputs) {
            if (out == png_path && !want_png) continue;
            if (auto input = clashes_with_input(out.string(), inputs)) {
                print_diagnostics({error_at(out.string(), 0, 0,
                                            "refusing to write over '" + *input +
                                                "', an input of this run; choose another -o or "
                                                "--png")});
                return kExitInput;
            }
        }
    }
    // Refuse maps whose memory estimate is over the limit, before allocating anything large.
    {
        const double w = options.classes ? options.classes->width()
                                         : options.width.value_or(project->recipe.map.width);
        const double h = options.classes ? options.classes->height()
                                         : options.height.value_or(project->recipe.map.height);
        const double tw = project->tileset.manifest.tile_width,
                     th = project->tileset.manifest.tile_height;
        // The infinite map's preview is held whole; the finite map's is streamed in strips
        // (io/png_stream.hpp: at most 2 x threads strips of 64 rows, raw + filtered + deflated).
        const double side = io::kPreviewMaxSide;
        const double whole_preview =
            want_png ? std::min(w * tw, side) * std::min(h * th, side) * 8 : 0;
        const double streamed_preview =
            want_png ? 2.0 * options.threads * std::min(w * tw, side) * 64 * 4 * 3 : 0;
        const double estimate = infinite ? whole_preview + 64e6
                                         : map_memory_estimate(*project, w, h) + streamed_preview;
        if (!within_memory_limit("generate", estimate, max_memory,
                                 "a " + std::to_string(static_cast<long long>(w)) + "x" +
                                     std::to_string(static_cast<long long>(h)) + " map",
                                 diags)) {
            print_diagnostics(diags);
            return kExitInput;
        }
    }

    if (!tmx_arg) {
        std::error_code ec;
        fs::create_directories(tmx_path.parent_path(), ec);
    }
    for (const fs::path& p : {tmx_path, png_path}) {
        if (!want_png && p == png_path) continue;
        fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            print_diagnostics(
                {error_at(p.string(), 0, 0,
                          "cannot write: directory '" + dir.string() + "' does not exist")});
            return kExitInput;
        }
    }

    const std::optional<fs::path> png_output =
        want_png ? std::optional<fs::path>(png_path) : std::nullopt;
    if (infinite) {
        const std::uint64_t run_seed = seed.value_or(project->recipe.map.seed);
        const int w = size ? size->first : project->recipe.map.width,
                  h = size ? size->second : project->recipe.map.height;
        const Region sample{0, 0, std::min(w, 1024), std::min(h, 1024)};
        auto world = chunked_world(*project, run_seed, w, h, sample);
        if (!world) return kExitInput;
        for (const LayerRules& layer : world->layers)
            if (layer.corner()) {
                const Rule& rule = layer.ordered.front();
                print_diagnostics(
                    {error_at(rule.file, rule.line, rule.column,
                              "layer '" + layer.name +
                                  "' is a corner layer (2x2 rules); infinite maps cannot have "
                                  "corner layers yet (--region windows can)")});
                return kExitInput;
            }
        io::InfiniteMapOptions opts;
        opts.chunk = chunk;
        opts.region = {0, 0, w, h};
        opts.encoding =
            *io::parse_layer_encoding(encoding_arg.value_or(project->recipe.output.encoding));
        opts.tilesets = tilesets;
        opts.threads = options.threads;
        const std::vector<MapProperty> props =
            map_properties(*project, {run_seed, w, h, &world->thresholds, sample});
        auto written =
            io::write_infinite_map(*project, *world, tmx_path, png_output, opts, props, diags);
        if (!written) {
            print_diagnostics(diags);
            return kExitInput;
        }
        const double total_ms =
            std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
        const auto bundle = io::tmx_bundle_paths(tmx_path);
        if (written->unmatched > 0)
            print_diagnostics({run_warning(std::to_string(written->unmatched) +
                                           " cells matched no rule (error tile)")});
        if (json) {
            JsonWriter j;
            j.begin_object();
            j.key("width")
                .value(written->written.width)
                .key("height")
                .value(written->written.height);
            j.key("seed").value(run_seed).key("infinite").value(true);
            j.key("chunks").value(static_cast<std::uint64_t>(written->chunks));
            j.key("unmatched").value(written->unmatched);
            j.key("objects").value(static_cast<std::uint64_t>(written->objects));
            j.key("timings_ms").begin_object().key("total").value(total_ms).end_object();
            write_outputs_json(j, bundle, tilesets, written->objects > 0, png_output);
            j.end_object();
            std::cout << j.str() << '\n';
        } else {
            std::cerr << "wrote " << tmx_path.string() << " (infinite, " << written->chunks
                      << " chunks)" << (want_png ? " and " + png_path.string() : std::string())
                      << "\n";
        }
        return kExitOk;
    }

    if (region) {
        // One window of the map, generated as the infinite map's chunks are (position-based).
        const std::uint64_t run_seed = seed.value_or(project->recipe.map.seed);
        const int w = size ? size->first : project->recipe.map.width,
                  h = size ? size->second : project->recipe.map.height;
        const Region sample{0, 0, std::min(w, 1024), std::min(h, 1024)};
        auto world = chunked_world(*project, run_seed, w, h, sample);
        if (!world) return kExitInput;
        std::uint64_t unmatched = 0;
        std::vector<Grid<Gid>> tiles = generate_chunk(*project, *world, *region, unmatched);
        Map window;
        window.width = region->width;
        window.height = region->height;
        window.atlas = world->atlas;
        for (std::size_t k = 0; k < tiles.size(); ++k)
            window.layers.push_back(
                {world->layers[k].name, std::move(tiles[k]), world->layers[k].corner()});
        window.properties = map_properties(*project, {run_seed, w, h, &world->thresholds, sample});
        window.properties.push_back({"region", "string",
                                     std::to_string(region->x) + "," + std::to_string(region->y) +
                                         "," + std::to_string(region->width) + "," +
                                         std::to_string(region->height)});
        // The infinite map's objects whose footprint starts in the window, moved to its origin.
        std::vector<PlacedObject> objects =
            window_objects(*project, *world, Region{0, 0, w, h}, *region, options.threads);
        for (PlacedObject& o : objects) {
            o.x -= region->x;
            o.y -= region->y;
        }
        if (!objects.empty()) add_object_layer(window, *project->sprites, objects);
        io::MapOutputOptions output;
        output.encoding =
            *io::parse_layer_encoding(encoding_arg.value_or(project->recipe.output.encoding));
        output.threads = options.threads;
        output.tilesets = tilesets;
        if (!io::write_tmx_bundle(window, tmx_path, diags, output)) {
            print_diagnostics(diags);
            return kExitInput;
        }
        if (want_png) {
            io::PngStreamOptions png_options;
            png_options.threads = options.threads;
            if (!io::save_preview_png(png_path, window, io::kPreviewMaxSide, png_options, diags)) {
                print_diagnostics(diags);
                return kExitInput;
            }
        }
        if (unmatched > 0)
            print_diagnostics(
                {run_warning(std::to_string(unmatched) + " cells matched no rule (error tile)")});
        const double total_ms =
            std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
        if (json) {
            JsonWriter j;
            j.begin_object();
            j.key("width").value(region->width).key("height").value(region->height);
            j.key("seed").value(run_seed);
            j.key("region")
                .begin_array()
                .value(region->x)
                .value(region->y)
                .value(region->width)
                .value(region->height)
                .end_array();
            j.key("unmatched").value(unmatched);
            j.key("objects").value(static_cast<std::uint64_t>(objects.size()));
            j.key("timings_ms").begin_object().key("total").value(total_ms).end_object();
            write_outputs_json(j, io::tmx_bundle_paths(tmx_path), tilesets, !objects.empty(),
                               png_output);
            j.end_object();
            std::cout << j.str() << '\n';
        } else {
            std::cerr << "wrote " << tmx_path.string() << " (region " << region->x << ","
                      << region->y << " " << region->width << "x" << region->height << ", seed "
                      << run_seed << ")" << (want_png ? " and " + png_path.string() : std::string())
                      << "\n";
        }
        return kExitOk;
    }

    // Heights, maps and decisions are not written: free them early (LDtk's baked tiles name the
    // rule that decided each cell).
    options.keep_details = ldtk;
    if (!json) options.progress = [](const std::string& line) { std::cerr << line << '\n'; };
    GenerateResult result = generate_map(*project, options);
    if (!result.constraints.met) {
        // Nothing is written: the map misses what the recipe asks for.
        const auto& c = project->recipe.places.constraints;
        print_diagnostics({error_at(
            project->recipe.path, c ? c->line : 0, c ? c->column : 0,
            "constraint not met after " + std::to_string(result.constraints.tries) + " tr" +
                (result.constraints.tries == 1 ? "y" : "ies") + ": " + result.constraints.unmet)});
        return kExitInput;
    }

    t0 = Clock::now();
    io::MapOutputOptions output;
    output.encoding =
        *io::parse_layer_encoding(encoding_arg.value_or(project->recipe.output.encoding));
    output.threads =
        options.threads; // the layer data is formatted on these threads; same bytes for any count
    output.tilesets = tilesets;
    int reduction = 1;
    const bool written = ldtk ? write_ldtk_output(*project, result, tmx_path, diags)
                         : godot
                             ? io::write_godot(result.map, project->recipe.terrain, tmx_path, diags)
                             : io::write_tmx_bundle(result.map, tmx_path, diags, output);
    if (!written) {
        print_diagnostics(diags);
        return kExitInput;
    }
    // [screens]: X.world and a map per screen (io/screens_writer.hpp), and how they connect.
    std::optional<ScreenGraph> screens;
    if (const auto& sc = project->recipe.screens) {
        // An LDtk project holds its screens as levels (written above); Tiled maps get a world.
        if (!ldtk &&
            !io::write_screens(result.map, tmx_path, sc->width, sc->height, output, diags)) {
            print_diagnostics(diags);
            return kExitInput;
        }
        std::vector<bool> walkable;
        for (const auto& t : project->recipe.terrain)
            walkable.push_back(t.walkable);
        screens = screen_graph(result.classes, walkable, sc->width, sc->height);
    }
    if (want_png) {
        // Streamed: rendered and deflated in strips on the run's threads (io/png_stream.hpp).
        io::PngStreamOptions png_options;
        png_options.threads = options.threads;
        const std::optional<int> factor =
            io::save_preview_png(png_path, result.map, io::kPreviewMaxSide, png_options, diags);
        if (!factor) {
            print_diagnostics(diags);
            return kExitInput;
        }
        reduction = *factor;
    }
    const double write_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const double total_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
    const auto bundle = io::tmx_bundle_paths(tmx_path);

    if (result.unmatched > 0) {
        // Report the first unmatched cell of each layer so the user can find it.
        for (std::size_t li = 0; li < result.layer_unmatched.size(); ++li) {
            const std::uint64_t count = result.layer_unmatched[li];
            const std::int64_t first = result.first_unmatched[li];
            const std::int64_t w = std::max(result.map.width, 1);
            if (count > 0)
                print_diagnostics({run_warning(
                    std::to_string(count) + " cell" + (count == 1 ? "" : "s") + " of layer '" +
                    result.layers[li].name + "' matched no rule (error tile); first at x=" +
                    std::to_string(first % w) + " y=" + std::to_string(first / w))});
        }
    }

    if (json) {
        // The map statistics (app/stats_command.hpp), only for --json: one pass over the class
        // grid, 4-7 ns per cell at 4096x4096 on 2 threads (measured on a busy machine).
        t0 = Clock::now();
        const MapStats stats = map_stats_of(*project, result, options.threads);
        const double stats_ms =
            std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        JsonWriter j;
        j.begin_object();
        j.key("width").value(result.map.width);
        j.key("height").value(result.map.height);
        j.key("seed").value(result.seed);
        j.key("classes").begin_object();
        for (std::size_t i = 0; i < project->recipe.terrain.size(); ++i)
            j.key(project->recipe.terrain[i].name).value(result.class_fractions[i]);
        j.end_object();
        j.key("unmatched").value(result.unmatched);
        j.key("stats");
        write_map_stats_json(j, stats, project->recipe.terrain);
        if (project->recipe.rules.legalise) {
            const LegaliseReport& l = result.legalise;
            j.key("legalise").begin_object();
            j.key("undrawable_before").value(l.undrawable_before);
            j.key("undrawable").value(l.undrawable).key("changed").value(l.changed);
            j.key("rounds").value(static_cast<std::uint64_t>(l.rounds));
            j.end_object();
        }
        if (result.hydrology) {
            // [rivers]: docs/hydrology.md
            const std::string symbols = terrain_symbols(project->recipe);
            j.key("rivers").begin_array();
            for (const RiverReport& r : result.hydrology->rivers) {
                j.begin_object();
                j.key("source").begin_array().value(r.source_x).value(r.source_y).end_array();
                j.key("mouth").begin_array().value(r.mouth_x).value(r.mouth_y).end_array();
                j.key("length").value(r.length).key("max_width").value(r.max_width);
                j.key("ends_in").value(
                    r.ends_in < 0 ? std::string("edge")
                                  : std::string(1, symbols[static_cast<std::size_t>(r.ends_in)]));
                j.end_object();
            }
            j.end_array();
            j.key("lakes").begin_array();
            for (const LakeReport& l : result.hydrology->lakes) {
                j.begin_object();
                j.key("x").value(l.x).key("y").value(l.y).key("cells").value(l.cells);
                j.end_object();
            }
            j.end_array();
        }
        j.key("objects").begin_object();
        if (project->sprites) {
            std::vector<std::uint64_t> counts(project->sprites->sprites.size(), 0);
            for (const auto& o : result.objects)
                ++counts[static_cast<std::size_t>(o.sprite)];
            for (std::size_t i = 0; i < counts.size(); ++i)
                j.key(project->sprites->sprites[i].name).value(counts[i]);
        }
        j.end_object();
        if (result.constraints.asked) write_places_json(j, *project, result);
        j.key("rules").begin_array();
        for (const auto& r : result.rule_hits) {
            j.begin_object();
            j.key("file")
                .value(r.file)
                .key("line")
                .value(r.line)
                .key("layer")
                .value(r.layer)
                .key("hits")
                .value(r.hits);
            j.end_object();
        }
        j.end_array();
        j.key("timings_ms").begin_object();
        j.key("load").value(load_ms);
        for (const auto& t : result.timings)
            if (t.stage != "total") j.key(t.stage).value(t.ms);
        j.key("write").value(write_ms);
        j.key("stats").value(stats_ms);
        j.key("total").value(total_ms);
        j.end_object();
        if (ldtk) {
            const auto files = io::ldtk_paths(tmx_path);
            j.key("outputs").begin_array();
            j.value(files.ldtk.generic_string()).value(files.tiles.generic_string());
            if (io::ldtk_writes_objects(result.map)) j.value(files.objects.generic_string());
            if (png_output) j.value(png_output->generic_string());
            j.end_array();
        } else if (godot) {
            const auto files = io::godot_paths(tmx_path);
            j.key("outputs").begin_array();
            j.value(files.scene.generic_string()).value(files.tileset.generic_string());
            j.value(files.tiles.generic_string());
            if (io::godot_writes_objects(result.map)) j.value(files.objects.generic_string());
            if (png_output) j.value(png_output->generic_string());
            j.end_array();
        } else {
            write_outputs_json(j, bundle, tilesets, io::has_objects(result.map), png_output);
        }
        if (screens) {
            j.key("screens").begin_object();
            // The world: Tiled's X.world, or the LDtk project itself (its levels).
            j.key("world").value((ldtk ? tmx_path : io::world_path(tmx_path)).generic_string());
            j.key("columns").value(screens->columns).key("rows").value(screens->rows);
            j.key("with_walkable_region").value(screens->with_region);
            j.key("connected").value(screens->connected);
            j.end_object();
        }
        j.end_object();
        std::cout << j.str() << '\n';
    } else {
        if (screens)
            std::cerr << "screens: " << screens->columns << "x" << screens->rows << " in "
                      << (ldtk ? tmx_path : io::world_path(tmx_path)).string() << "; "
                      << screens->with_region << " hold the main walkable region, "
                      << (screens->connected ? "all joined by walkable exits"
                                             : "NOT all joined by walkable exits")
                      << "\n";
        if (reduction > 1)
            print_diagnostics({run_note("the map is too large for a full-size PNG; the preview "
                                        "is 1/" +
                                        std::to_string(reduction) + " of its size, one pixel of " +
                                        std::to_string(reduction) + " along each side")});
        std::cerr << "wrote " << tmx_path.string()
                  << (want_png ? " and " + png_path.string() : std::string()) << " ("
                  << result.map.width << "x" << result.map.height << ", seed " << result.seed
                  << ", " << static_cast<long>(total_ms) << " ms)\n";
    }
    return kExitOk;
}

} // namespace tilegen::app
