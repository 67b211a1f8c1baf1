// The subcommands of the tilegen program. Each takes the arguments after its name and returns the
// exit code: 0 success, 1 bad input (files), 2 bad usage (command line).
#pragma once

#include <string>
#include <vector>

namespace tilegen::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInput = 1;
inline constexpr int kExitUsage = 2;

using Args = std::vector<std::string>;

int run_generate(const Args& args);
int run_paint(const Args& args);
int run_check(const Args& args);
int run_explain(const Args& args);
int run_view(const Args& args);
int run_noise(const Args& args);
int run_bench(const Args& args);

} // namespace tilegen::app
