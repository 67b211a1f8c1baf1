// tilegen: the command-line program. Dispatches to a subcommand; see `tilegen --help`.
#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/commands.hpp"

namespace {

const char* kHelp = R"(tilegen - 2D tile maps with autotiling

Usage:
  tilegen generate [RECIPE] [-o OUT.tmx|OUT.tmj] [--png OUT.png|none] [--seed N] [--size WxH] [--threads N]
                   [--classes FILE.txt|.png|.tmx[:LAYER]] [--encoding E] [--infinite [--chunk N]] [--json]
  tilegen check [RECIPE] [--strict]
  tilegen explain [RECIPE] X Y [--seed N] [--size WxH] [--classes FILE.txt]
  tilegen view [RECIPE] [--seed N] [--size WxH] [--screenshot OUT.png] [--frames N]
  tilegen noise [RECIPE] [--map NAME] -o OUT.png|OUT.pfm [--seed N] [--size WxH] [--region X,Y,W,H]
  tilegen bench [RECIPE] [--size WxH] [--threads N] [--repeat K] [--json]
  tilegen paint DESCRIPTION.toml [-o DIR]
  tilegen --help | --version
  tilegen COMMAND --help

Commands:
  generate   Make a map from a recipe: heightfield -> terrain classes -> descriptor rules -> TMX + PNG.
             Without RECIPE, the built-in default overworld (samples/overworld.toml).
  check      Lint the recipe's rules: errors, uncovered neighbourhoods, shadowed and duplicate rules.
  explain    Show how one cell was decided: every rule tried, why it failed, the match and the tile chosen.
  view       Preview the map in a window: pan, zoom, overlays, hover inspector, new seeds, hot reload.
  noise      Write one of the recipe's heightfields as a greyscale PNG or a PFM (exact floats).
  bench      Time the pipeline stage by stage (median, min, ns per cell, peak memory).
  paint      Paint a tileset (PNG + manifest) from a procedural description.

Exit codes: 0 success, 1 bad input file, 2 bad command line.
)";

} // namespace

int main(int argc, char** argv) {
    using namespace tilegen::app;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << kHelp;
        return kExitUsage;
    }
    const std::string command = args.front();
    Args rest(args.begin() + 1, args.end());
    if (command == "--help" || command == "-h" || command == "help") {
        std::cout << kHelp;
        return kExitOk;
    }
    if (command == "--version") {
        std::cout << "tilegen " << TILEGEN_VERSION << '\n';
        return kExitOk;
    }
    try {
        if (command == "generate") return run_generate(rest);
        if (command == "paint") return run_paint(rest);
        if (command == "check") return run_check(rest);
        if (command == "explain") return run_explain(rest);
        if (command == "view") return run_view(rest);
        if (command == "noise") return run_noise(rest);
        if (command == "bench") return run_bench(rest);
    } catch (const std::bad_alloc&) {
        std::cerr << "tilegen: error: out of memory\n";
        return kExitInput;
    } catch (const std::exception& e) {
        std::cerr << "tilegen: error: " << e.what() << '\n';
        return kExitInput;
    }
    return usage_error("", "unknown command '" + command + "'");
}
