// Small helpers shared by the subcommands: printing diagnostics and usage errors, loading the
// recipe, the memory cap, and parsing numbers (the option tables are in app/options.hpp).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "core/classes/terrain_classes.hpp"
#include "core/diagnostic.hpp"
#include "core/pipeline.hpp"
#include "core/project.hpp"

namespace tilegen::app {

// Prints every diagnostic to stderr, one per line, in "path:line:col: error: message" form (the
// first 20; then a count of the rest).
void print_diagnostics(const Diagnostics& diags);

inline Diagnostic warning_at(std::string file, int line, int column, std::string message) {
    return {Severity::warning, std::move(file), line, column, std::move(message)};
}

// A diagnostic about the run as a whole, not one file: "tilegen: warning: message".
inline Diagnostic run_warning(std::string message) {
    return {Severity::warning, "tilegen", 0, 0, std::move(message)};
}
inline Diagnostic run_note(std::string message) {
    return {Severity::note, "tilegen", 0, 0, std::move(message)};
}

// Prints "tilegen: error: message" and a hint to use --help; returns kExitUsage.
int usage_error(const std::string& command, const std::string& message);

// The installed data (PREFIX/share/tilegen, beside the program's PREFIX/bin: samples/, rules/,
// tilesets/), when the program runs from an installation; nullopt otherwise (a build tree).
std::optional<std::filesystem::path> installed_data_dir();
// The file RECIPE names: RECIPE itself, or for a relative RECIPE that names no file here, one of
// the installed data: as given under it ("samples/meadows.toml"), or a sample by name ("meadows",
// "meadows.toml").
std::string recipe_path_for(const std::string& recipe);

// Loads RECIPE from disk, or the built-in default recipe when none is given. A relative RECIPE
// that names no file is looked up in the installed data: as a path under it, or as a sample
// ("meadows" is samples/meadows.toml).
[[nodiscard]] std::optional<Project> load_recipe_project(const std::optional<std::string>& recipe,
                                                         Diagnostics& diags);

// load_recipe_project for a command: when the recipe does not load, its diagnostics are printed
// (the command then exits kExitInput); nothing is printed when it loads.
[[nodiscard]] std::optional<Project> load_recipe_or_print(const std::optional<std::string>& recipe);

// Reads the class map FILE of --classes (generate, explain, stats) for `recipe`: nullopt, its
// diagnostics printed, when it cannot be read (the command then exits kExitInput).
[[nodiscard]] std::optional<ClassGrid> read_class_map_or_print(const std::string& file,
                                                               const Recipe& recipe);

// The map area of a run (generate, explain, stats): options.width and height from --size WxH,
// options.classes read from --classes FILE for `recipe`. False, the class map's diagnostics
// printed, when it cannot be read (the command then exits kExitInput).
[[nodiscard]] bool read_map_area_or_print(const CommandLine& cl, const Recipe& recipe,
                                          GenerateOptions& options);

// The cap on a run's memory estimate, checked before anything large is allocated: false, with the
// error "tilegen COMMAND: error: WHAT needs about X GiB of memory (estimate), more than the limit
// of Y GiB; raise it with --max-memory GIB" appended to `diags`, when the estimate is over it.
[[nodiscard]] bool within_memory_limit(const std::string& command, double estimate_bytes,
                                       double limit_gib, const std::string& what,
                                       Diagnostics& diags);
inline constexpr double kDefaultMemoryLimitGiB = 8.0;

// The memory estimate of generating a w x h map of the project (its maps, classes, decisions and
// tile layers), without outputs.
double map_memory_estimate(const Project& project, double w, double h);

// An output path that is one of the run's input files (false when it is not, or does not exist
// yet).
[[nodiscard]] std::optional<std::string> clashes_with_input(const std::string& output,
                                                            const std::vector<std::string>& inputs);

// The whole string as a decimal integer / a finite decimal number (no spaces, no '+').
[[nodiscard]] std::optional<long long> parse_integer(const std::string& s);
[[nodiscard]] std::optional<double> parse_real(const std::string& s);
// "WxH" with both in 1..limit.
[[nodiscard]] std::optional<std::pair<int, int>> parse_size(const std::string& s);

} // namespace tilegen::app
