// The `tilegen view` window: preview, inspect and tune a map live (SFML).
// Input: ViewerOptions (from the command line) and the recipe's Project, already loaded and checked
// by the caller (so a bad recipe fails before any window opens). Output: the exit code (0 ok, 1 bad
// input or no display). Behaviour: generation runs on a worker thread (Generator) while the window
// keeps drawing; the map is drawn by MapRenderer (chunks when zoomed in, per-cell color blocks
// when zoomed out or for overlays); files the recipe reads are polled twice a second and a change
// reloads them (a broken edit shows its diagnostics and keeps the last good map). With --screenshot
// or --frames the viewer is scripted: user input is ignored, the first complete frame (after
// generation) is saved / N frames are timed, then it exits. Invariants: at start the camera is zoom
// 1 (or --zoom) with the map's top-left at the window's top-left; the status bar is the bottom
// strip only, so everything above it is map (or background beyond the map's edge), and no panel
// shows unless asked for (H, hovering, --show-help, --inspect) or a reload failed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/project.hpp"
#include "viewer/map_renderer.hpp"

namespace tilegen::viewer {

struct ViewerOptions {
    std::optional<std::string> recipe;       // nullopt: the built-in default recipe (no hot reload)
    std::optional<std::uint64_t> seed;       // --seed
    std::optional<std::pair<int, int>> size; // --size WxH
    std::optional<std::string> screenshot;   // --screenshot OUT.png
    std::optional<int> frames;               // --frames N
    std::optional<std::string> frame_log; // --frame-log FILE: per-frame times of --frames, as CSV
    // Scripting and testing (documented in `tilegen view --help`):
    Overlay overlay = Overlay::tiles;           // --overlay NAME
    bool grid = false;                          // --grid
    bool show_help = false;                     // --show-help
    std::optional<std::pair<int, int>> inspect; // --inspect X,Y: the mouse at window pixel (X, Y)
    std::optional<double> zoom; // --zoom Z: the starting zoom (top-left stays at the top-left)
    std::optional<std::pair<int, int>>
        window; // --window WxH (default 1280x800, at most the desktop)
    std::optional<int>
        quit_after_reloads; // --quit-after-reloads N: scripted, watching files; exits 0
                            // after N reloads (good or broken) have been shown
};

// Runs the window until it is closed (or the scripted run ends). Prints the --frames statistics and
// the
// --inspect text on stdout; on stderr one line per map shown ("tilegen view: generated ...") and,
// when a reload fails, "tilegen view: reload failed, keeping the last good map:" followed by the
// diagnostics. Why the exit code is not 0 (no display, no window, an unwritable --frame-log or
// --screenshot) is appended to `diags`, for the caller to print.
[[nodiscard]] int run_viewer(const ViewerOptions& options, Project project, Diagnostics& diags);

// The status bar's labels of the map's layers: "N:name" for the first nine (N: the key that shows
// or hides it), "name" after them; a hidden layer's name (or number) in parentheses. When those
// labels (each followed by a space) take more than `columns`, every layer but the focused one
// (`focus`, -1: none) is labelled by its number alone (the first three letters of its name past the
// ninth), so the focused layer's name and every layer's key still fit. visible: bit i set when
// layer i is shown (layers from 64 on are always shown).
std::vector<std::string> layer_labels(const std::vector<std::string>& names, std::uint64_t visible,
                                      int focus, std::size_t columns);

// The key list shown by H / F1 (and printed by `tilegen view --help`).
const char* key_help();

} // namespace tilegen::viewer
