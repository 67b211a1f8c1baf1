// tilegen view: the map in a window, to preview, inspect and tune it live (src/viewer).
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "endless/endless_game.hpp" // examples/endless: the game on the public API
#include "tilegen/tilegen.hpp"
#include "viewer/viewer.hpp"

namespace tilegen::app {

namespace {

std::optional<std::pair<int, int>> parse_pair(const std::string& s, char sep) {
    auto at = s.find(sep);
    if (at == std::string::npos) return std::nullopt;
    auto a = parse_integer(s.substr(0, at));
    auto b = parse_integer(s.substr(at + 1));
    if (!a || !b || *a < 0 || *b < 0 || *a > 100000 || *b > 100000) return std::nullopt;
    return std::pair<int, int>{static_cast<int>(*a), static_cast<int>(*b)};
}

bool valid_window(const std::string& v) {
    const auto p = parse_pair(v, 'x');
    return p && p->first >= 64 && p->second >= 64 && p->first <= 16384 && p->second <= 16384;
}

bool valid_zoom(const std::string& v) {
    const auto z = parse_real(v);
    return z && *z >= viewer::Camera::kMinZoom && *z <= viewer::Camera::kMaxZoom;
}

// view --endless: the endless-world game (examples/endless/endless_game.hpp) over the recipe's
// World; a recipe that is not position-based is refused (exit 1) with what needs the whole map.
int run_endless_view(const viewer::ViewerOptions& options) {
    api::Diagnostics diags;
    std::optional<api::Generator> generator;
    if (options.recipe)
        generator = api::Generator::from_file(recipe_path_for(*options.recipe), diags);
    else
        generator = api::Generator::builtin(diags);
    std::optional<api::World> world;
    if (generator) {
        if (options.seed) generator->set_seed(*options.seed);
        if (options.size) generator->set_size(options.size->first, options.size->second);
        world = generator->world(diags);
    }
    for (const auto& d : diags)
        std::cerr << d.text() << '\n';
    if (!world) {
        if (generator)
            std::cerr << "tilegen: error: view --endless needs a position-based recipe (every "
                         "stage computed per cell; the error above names what needs the whole "
                         "map): use view without --endless\n";
        return kExitInput;
    }
    tilegen_endless::Options game;
    game.title = "tilegen view --endless";
    if (options.frames) game.frames = *options.frames;
    if (options.screenshot) {
        game.screenshot = *options.screenshot;
        if (game.frames == 0) game.frames = 60;
    }
    if (options.window) {
        game.width = static_cast<unsigned>(options.window->first);
        game.height = static_cast<unsigned>(options.window->second);
    }
    return tilegen_endless::run(*world, game);
}

} // namespace

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
CommandSpec view_spec() {
    CommandSpec s;
    s.name = "view";
    s.summary =
        "Preview the map in a window: pan, zoom, overlays, inspector, new seeds, hot reload.";
    s.operands = "[RECIPE]";
    s.about =
        R"(Opens a window with the generated map: pan, zoom, overlays (classes, heights, unmatched
cells, rules), a hover inspector (the same facts as `tilegen explain`), new seeds, export, and hot
reload: when the recipe, a rule file, the tileset manifest or its image changes, the map is rebuilt
(a broken file shows its error and the last good map stays). Without RECIPE, the built-in default
overworld.
)";
    s.groups = {"Options:",
                "Scripting and testing options (for --screenshot / --frames; the window "
                "ignores the user then):"};
    s.options = {
        recipe_seed_option(),
        recipe_size_option(),
        {{"--screenshot"},
         "OUT.png",
         "save the first complete frame (after generation) to OUT.png and exit",
         file_ending({".png"})},
        {{"--frames"},
         "N",
         "draw N frames along a scripted pan and zoom-out, print frame-time statistics (\"frames N "
         "mean_ms X p95_ms Y max_ms Z\") and exit. A frame is timed from the start of its event "
         "handling to the end of display() and glFinish (all of its drawing); the second line "
         "counts the frames that drew part of the map from a stand-in (stand_in_frames: pieces "
         "still being made on the worker thread)",
         whole_number(1, 1000000)},
        {{"--frame-log"},
         "FILE",
         "with --frames: each frame's times (update, draw calls, display) as CSV",
         non_empty("a file name")},
        {{"--overlay"},
         "NAME",
         "start with an overlay: tiles, classes, height, unmatched, rules, flow",
         custom("tiles, classes, height, unmatched, rules or flow",
                [](const std::string& v) { return viewer::overlay_from_name(v).has_value(); }),
         false,
         false,
         1},
        {{"--grid"}, "", "start with the cell grid on", {}, false, false, 1},
        {{"--show-help"}, "", "start with the key help shown", {}, false, false, 1},
        {{"--inspect"},
         "X,Y",
         "put the mouse at window pixel (X, Y): the hover inspector shows that cell (and "
         "--screenshot also prints the inspector's text on stdout)",
         custom("X,Y window pixels",
                [](const std::string& v) { return parse_pair(v, ',').has_value(); }),
         false,
         false,
         1},
        {{"--zoom"},
         "Z",
         "starting zoom (1 = one screen pixel per map pixel; the map's top-left stays at the "
         "window's top-left)",
         custom("a number from 0.004 to 32", valid_zoom),
         false,
         false,
         1},
        {{"--window"},
         "WxH",
         "window size in pixels (default 1280x800, at most the desktop)",
         custom("WxH pixels from 64 to 16384", valid_window),
         false,
         false,
         1},
        {{"--endless"},
         "",
         "walk an endless world instead (arrow keys, Shift runs): chunks are generated around the "
         "character on a worker thread, as examples/endless does; position-based recipes only. "
         "With --frames N it walks 10000 cells east over the N frames and prints frame times, "
         "memory and chunk figures; --screenshot saves the first complete frame after the walk "
         "(60 frames without --frames)",
         {},
         false,
         false,
         1},
        {{"--quit-after-reloads"},
         "N",
         "watch the files as usual, exit 0 once N reloads (good or broken) were shown",
         whole_number(1, 1000),
         false,
         false,
         1},
    };
    s.constraints = {{"--frame-log", "--frames", Constraint::needs, ""},
                     {"--endless", "--frame-log", Constraint::excludes, ""},
                     {"--endless", "--quit-after-reloads", Constraint::excludes, ""},
                     {"--endless", "--inspect", Constraint::excludes, ""},
                     {"--endless", "--overlay", Constraint::excludes, ""},
                     {"--endless", "--zoom", Constraint::excludes, ""}};
    s.epilogue = std::string("At zoom 1 the screenshot's pixels above the status bar (the bottom "
                             "strip) equal `tilegen\ngenerate`'s PNG.\n\nKeys:\n") +
                 viewer::key_help() + "\n";
    return s;
}

int run_view(const Args& args) {
    const CommandSpec spec = view_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    const CommandLine& cl = *parsed.line;
    viewer::ViewerOptions options;
    if (!cl.operands.empty()) options.recipe = cl.operands.front();
    if (auto n = cl.integer("--seed")) options.seed = static_cast<std::uint64_t>(*n);
    options.size = cl.size("--size");
    options.screenshot = cl.text("--screenshot");
    if (auto n = cl.integer("--frames")) options.frames = static_cast<int>(*n);
    options.frame_log = cl.text("--frame-log");
    if (auto v = cl.text("--overlay")) options.overlay = *viewer::overlay_from_name(*v);
    options.grid = cl.flag("--grid");
    options.show_help = cl.flag("--show-help");
    if (auto v = cl.text("--inspect")) options.inspect = parse_pair(*v, ',');
    if (auto z = cl.real("--zoom")) options.zoom = *z;
    if (auto v = cl.text("--window")) options.window = parse_pair(*v, 'x');
    if (auto n = cl.integer("--quit-after-reloads"))
        options.quit_after_reloads = static_cast<int>(*n);

    if (options.screenshot) {
        const std::filesystem::path p(*options.screenshot);
        const std::filesystem::path dir =
            p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) {
            print_diagnostics(
                {error_at(p.string(), 0, 0,
                          "cannot write: directory '" + dir.string() + "' does not exist")});
            return kExitInput;
        }
    }

    if (cl.flag("--endless")) return run_endless_view(options);

    // The first load is checked here, before any window opens: a broken recipe is exit 1 with its
    // diagnostics.
    auto project = load_recipe_or_print(options.recipe);
    if (!project) return kExitInput;
    Diagnostics diags;
    const int exit_code = viewer::run_viewer(options, std::move(*project), diags);
    print_diagnostics(diags);
    return exit_code;
}

} // namespace tilegen::app
