// The subcommands of the tilegen program. Each takes the arguments after its name and returns the
// exit code: 0 success, 1 bad input (files), 2 bad usage (command line). Each has a table of its
// options (X_spec), from which its arguments are parsed and its --help and usage line printed.
#pragma once

#include <string>
#include <vector>

#include "app/options.hpp"

namespace tilegen::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInput = 1;
inline constexpr int kExitUsage = 2;

int run_generate(const Args& args);
int run_paint(const Args& args);
int run_check(const Args& args);
int run_explain(const Args& args);
int run_view(const Args& args);
int run_noise(const Args& args);
int run_bench(const Args& args);
int run_stats(const Args& args);
int run_export_rules(const Args& args);
int run_import_rules(const Args& args);

CommandSpec generate_spec();
CommandSpec paint_spec();
CommandSpec check_spec();
CommandSpec explain_spec();
CommandSpec view_spec();
CommandSpec noise_spec();
CommandSpec bench_spec();
CommandSpec stats_spec();
CommandSpec export_rules_spec();
CommandSpec import_rules_spec();

struct Command {
    CommandSpec (*spec)();
    int (*run)(const Args&);
};
// Every subcommand, in the order `tilegen --help` lists them.
std::vector<Command> all_commands();

} // namespace tilegen::app
