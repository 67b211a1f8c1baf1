// Small helpers shared by the subcommands: option parsing and printing diagnostics.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/project.hpp"

namespace tilegen::app {

// Prints every diagnostic to stderr, one per line, in "path:line:col: error: message" form.
void print_diagnostics(const Diagnostics& diags);

// Prints "tilegen: error: message" and a hint to use --help; returns kExitUsage.
int usage_error(const std::string& command, const std::string& message);

// Sequential reader over a subcommand's arguments.
class ArgReader {
  public:
    explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}
    bool done() const { return pos_ >= args_.size(); }
    const std::string& peek() const { return args_[pos_]; }
    std::string next() { return args_[pos_++]; }
    // For options that take a value: returns it, or nullopt when the arguments ran out.
    std::optional<std::string> value() {
        if (done()) return std::nullopt;
        return next();
    }

  private:
    const std::vector<std::string>& args_;
    std::size_t pos_ = 0;
};

// Loads RECIPE from disk, or the built-in default recipe when none is given.
std::optional<Project> load_recipe_project(const std::optional<std::string>& recipe,
                                           Diagnostics& diags);

// The recipe's terrain symbols in class order, e.g. "wsg".
std::string class_symbols(const Project& project);

// Refuses a run whose memory estimate is over the cap, before anything large is allocated: prints
// "tilegen COMMAND: error: ... about X GiB ..., more than the limit of Y GiB; raise it with
// --max-memory GIB".
bool within_memory_limit(const std::string& command, double estimate_bytes, double limit_gib,
                         const std::string& what);
inline constexpr double kDefaultMemoryLimitGiB = 8.0;

// An output path that is one of the run's input files (false when it is not, or does not exist
// yet).
std::optional<std::string> clashes_with_input(const std::string& output,
                                              const std::vector<std::string>& inputs);

std::optional<long long> parse_integer(const std::string& s);
// "WxH" with both in 1..limit.
std::optional<std::pair<int, int>> parse_size(const std::string& s);

} // namespace tilegen::app
