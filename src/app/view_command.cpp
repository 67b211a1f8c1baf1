// tilegen view: the map in a window, to preview, inspect and tune it live (src/viewer).
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "viewer/viewer.hpp"

namespace tilegen::app {

namespace {

const char* kViewHelp =
    R"(Usage: tilegen view [RECIPE] [--seed N] [--size WxH] [--screenshot OUT.png] [--frames N]

Opens a window with the generated map: pan, zoom, overlays (classes, heights, unmatched cells, rules), a
hover inspector (the same facts as `tilegen explain`), new seeds, export, and hot reload: when the recipe,
a rule file, the tileset manifest or its image changes, the map is rebuilt (a broken file shows its error
and the last good map stays). Without RECIPE, the built-in default overworld.

Options:
  --seed N               seed (default: the recipe's [map] seed)
  --size WxH             map size in cells (default: the recipe's [map] width and height)
  --screenshot OUT.png   save the first complete frame (after generation) to OUT.png and exit
  --frames N             draw N frames along a scripted pan and zoom-out, print frame-time statistics
                         ("frames N mean_ms X p95_ms Y max_ms Z") and exit. A frame is timed from the start
                         of its event handling to the end of display() and glFinish (all of its drawing);
                         the second line counts the frames that drew part of the map from a stand-in
                         (stand_in_frames: pieces still being made on the worker thread)
  --frame-log FILE       with --frames: each frame's times (update, draw calls, display) as CSV
  -h, --help             this help

Scripting and testing options (for --screenshot / --frames; the window ignores the user then):
  --overlay NAME         start with an overlay: tiles, classes, height, unmatched, rules
  --grid                 start with the cell grid on
  --show-help            start with the key help shown
  --inspect X,Y          put the mouse at window pixel (X, Y): the hover inspector shows that cell (and
                         --screenshot also prints the inspector's text on stdout)
  --zoom Z               starting zoom (1 = one screen pixel per map pixel; the map's top-left stays at the
                         window's top-left)
  --window WxH           window size in pixels (default 1280x800, at most the desktop)
  --quit-after-reloads N watch the files as usual, exit 0 once N reloads (good or broken) were shown

At zoom 1 the screenshot's pixels above the status bar (the bottom strip) equal `tilegen generate`'s PNG.

Keys:
)";

std::optional<std::pair<int, int>> parse_pair(const std::string& s, char sep) {
    auto at = s.find(sep);
    if (at == std::string::npos) return std::nullopt;
    auto a = parse_integer(s.substr(0, at));
    auto b = parse_integer(s.substr(at + 1));
    if (!a || !b || *a < 0 || *b < 0 || *a > 100000 || *b > 100000) return std::nullopt;
    return std::pair<int, int>{static_cast<int>(*a), static_cast<int>(*b)};
}

} // namespace

int run_view(const Args& args) {
    viewer::ViewerOptions options;
    ArgReader in(args);
    while (!in.done()) {
        std::string a = in.next();
        auto need = [&](const std::string& opt) -> std::optional<std::string> {
            auto v = in.value();
            if (!v) usage_error("view", opt + " needs a value");
            return v;
        };
        if (a == "-h" || a == "--help") {
            std::cout << kViewHelp << viewer::key_help() << '\n';
            return kExitOk;
        } else if (a == "--seed") {
            auto v = need(a);
            if (!v) return kExitUsage;
            auto n = parse_integer(*v);
            if (!n || *n < 0)
                return usage_error("view", "--seed takes a whole number >= 0, not '" + *v + "'");
            options.seed = static_cast<std::uint64_t>(*n);
        } else if (a == "--size") {
            auto v = need(a);
            if (!v) return kExitUsage;
            options.size = parse_size(*v);
            if (!options.size)
                return usage_error("view",
                                   "--size takes WxH with both from 1 to 65536, not '" + *v + "'");
        } else if (a == "--screenshot") {
            auto v = need(a);
            if (!v) return kExitUsage;
            if (std::filesystem::path(*v).extension() != ".png")
                return usage_error("view", "--screenshot must name a .png file, not '" + *v + "'");
            options.screenshot = *v;
        } else if (a == "--frames") {
            auto v = need(a);
            if (!v) return kExitUsage;
            auto n = parse_integer(*v);
            if (!n || *n < 1 || *n > 1000000)
                return usage_error(
                    "view", "--frames takes a whole number from 1 to 1000000, not '" + *v + "'");
            options.frames = static_cast<int>(*n);
        } else if (a == "--frame-log") {
            auto v = need(a);
            if (!v) return kExitUsage;
            options.frame_log = *v;
        } else if (a == "--overlay") {
            auto v = need(a);
            if (!v) return kExitUsage;
            auto o = viewer::overlay_from_name(*v);
            if (!o)
                return usage_error(
                    "view",
                    "--overlay takes tiles, classes, height, unmatched or rules, not '" + *v + "'");
            options.overlay = *o;
        } else if (a == "--grid") {
            options.grid = true;
        } else if (a == "--show-help") {
            options.show_help = true;
        } else if (a == "--inspect") {
            auto v = need(a);
            if (!v) return kExitUsage;
            options.inspect = parse_pair(*v, ',');
            if (!options.inspect)
                return usage_error("view", "--inspect takes X,Y window pixels, not '" + *v + "'");
        } else if (a == "--zoom") {
            auto v = need(a);
            if (!v) return kExitUsage;
            double z = 0;
            auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), z);
            if (ec != std::errc() || p != v->data() + v->size() || !std::isfinite(z) ||
                z < viewer::Camera::kMinZoom || z > viewer::Camera::kMaxZoom)
                return usage_error("view",
                                   "--zoom takes a number from 0.004 to 32, not '" + *v + "'");
            options.zoom = z;
        } else if (a == "--window") {
            auto v = need(a);
            if (!v) return kExitUsage;
            options.window = parse_pair(*v, 'x');
            if (!options.window || options.window->first < 64 || options.window->second < 64 ||
                options.window->first > 16384 || options.window->second > 16384)
                return usage_error("view",
                                   "--window takes WxH pixels from 64 to 16384, not '" + *v + "'");
        } else if (a == "--quit-after-reloads") {
            auto v = need(a);
            if (!v) return kExitUsage;
            auto n = parse_integer(*v);
            if (!n || *n < 1 || *n > 1000)
                return usage_error(
                    "view",
                    "--quit-after-reloads takes a whole number from 1 to 1000, not '" + *v + "'");
            options.quit_after_reloads = static_cast<int>(*n);
        } else if (a.size() > 1 && a[0] == '-') {
            return usage_error("view", "unknown option '" + a + "'");
        } else if (!options.recipe) {
            options.recipe = a;
        } else {
            return usage_error("view", "more than one recipe given ('" + *options.recipe +
                                           "' and '" + a + "')");
        }
    }

    if (options.frame_log && !options.frames)
        return usage_error("view", "--frame-log needs --frames");
    if (options.screenshot) {
        const std::filesystem::path p(*options.screenshot);
        const std::filesystem::path dir =
            p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) {
            std::cerr << p.string() << ": error: cannot write: directory '" << dir.string()
                      << "' does not exist\n";
            return kExitInput;
        }
    }

    // The first load is checked here, before any window opens: a broken recipe is exit 1 with its
    // diagnostics.
    Diagnostics diags;
    auto project = load_recipe_project(options.recipe, diags);
    if (!project) {
        print_diagnostics(diags);
        return kExitInput;
    }
    return viewer::run_viewer(options, std::move(*project));
}

} // namespace tilegen::app
