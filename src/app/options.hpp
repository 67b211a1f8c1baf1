// Command-line options as tables. Input: one CommandSpec per subcommand (its operands, its options
// with how each value is checked, the constraints between them, its help prose) and the arguments
// after the subcommand's name. Output: a CommandLine with the operands and the checked values, or
// the exit code to stop with: the spec's --help was printed (0) or a usage error was (2).
// The same table prints the command's --help and its line in `tilegen --help`, so the help lists
// exactly the options the parser accepts. Invariants: an option given twice keeps the last value
// (unless `once`); a value is the next argument, whatever it looks like ("--png -x" is a value);
// a value that CommandLine hands out has passed its option's check.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilegen::app {

using Args = std::vector<std::string>;

// What values an option accepts: `valid` decides, `takes` says it for the error message
// ("--seed takes a whole number >= 0, not 'x'").
struct Check {
    std::string takes;
    std::function<bool(const std::string&)> valid;
};

inline constexpr long long kNoLimit = std::numeric_limits<long long>::max();

Check any_text();                                 // every string
Check non_empty(std::string takes);               // every string but ""
Check whole_number(long long lo, long long hi);   // an integer in lo..hi (kNoLimit: >= lo)
Check real_number(double lo, double hi);          // a finite number in lo..hi
Check cell_size();                                // "WxH" with both from 1 to 65536 (parse_size)
Check one_of(std::vector<std::string> choices);   // exactly one of these words
Check file_ending(std::vector<std::string> exts); // a path ending in one of these, e.g. ".png"
Check custom(std::string takes, std::function<bool(const std::string&)> valid);

struct Option {
    std::vector<std::string> names; // e.g. {"-o", "--output"}; the first is shown in usage lines
    std::string value;              // the value's name in help, e.g. "N", "WxH"; empty: a flag
    std::string help;               // one paragraph, wrapped to 100 columns when printed
    Check check = any_text();       // only for options with a value
    bool required = false;          // the command cannot run without it
    bool once = false;              // giving it twice is a usage error (else the last one counts)
    int group = 0;                  // index into CommandSpec::groups (the list it is shown in)
};

// Options several commands take alike, worded once: --seed N and --size WxH, each defaulting to
// the recipe's [map] value; --threads N (1..256) for commands whose output is the same for any N.
Option recipe_seed_option();
Option recipe_size_option();
Option threads_option();
// --max-memory GIB: the cap on the run's memory estimate (default 8 GiB; see within_memory_limit).
Option max_memory_option();

// Between two options: `option` and `other` exclude each other, or `option` needs `other`.
struct Constraint {
    enum Kind { excludes, needs };
    std::string option, other;
    Kind kind = excludes;
    std::string why; // shown in parentheses after the message, may be empty
};

struct CommandSpec {
    std::string name;     // "generate"
    std::string summary;  // one line in `tilegen --help`
    std::string operands; // as shown in usage, e.g. "[RECIPE]", "[RECIPE] X Y", "DESCRIPTION.toml"
    std::size_t min_operands = 0, max_operands = 1;
    std::string operand_noun = "recipe";            // "more than one recipe given ('a' and 'b')"
    bool negative_numbers_are_operands = false;     // explain: "-1" is a coordinate, not an option
    std::string about;                              // prose after the usage line (<= 100 columns)
    std::vector<Option> options;                    // -h, --help is added by the parser
    std::vector<std::string> groups = {"Options:"}; // titles; only group 0 is in usage lines
    std::vector<Constraint> constraints;
    std::string epilogue; // prose after the options (<= 100 columns)
};

struct Parsed;

// The parsed arguments. Getters take any spelling of an option and return what the user gave
// (nullopt / false when not given); asking for an option not in the table is a logic_error.
class CommandLine {
  public:
    explicit CommandLine(const CommandSpec& spec) : spec_(&spec) {}
    bool has(const std::string& name) const;
    bool flag(const std::string& name) const { return has(name); }
    std::optional<std::string> text(const std::string& name) const;
    std::optional<long long> integer(const std::string& name) const;
    std::optional<double> real(const std::string& name) const;
    std::optional<std::pair<int, int>> size(const std::string& name) const;
    std::vector<std::string> operands;

  private:
    friend Parsed parse_command_line(const CommandSpec& spec, const Args& args);
    const Option& find(const std::string& name) const;
    const CommandSpec* spec_;
    std::vector<std::pair<const Option*, std::string>> values_;
};

// Either the command line, or the exit code to stop with (its text already printed).
struct Parsed {
    std::optional<CommandLine> line;
    int exit = 0;
};
// `spec` must outlive the result.
[[nodiscard]] Parsed parse_command_line(const CommandSpec& spec, const Args& args);

// "tilegen generate [RECIPE] [-o OUT.tmx] [--seed N] ...", wrapped to 100 columns with the
// continuation lines indented by `indent` + the width of "tilegen generate ".
std::string usage_line(const CommandSpec& spec, std::size_t indent);
// The whole --help text: usage line, about, the option lists, epilogue.
std::string help_text(const CommandSpec& spec);
// Words of `text` in lines of at most `width` columns ('\n' starts a new line).
std::vector<std::string> wrap_words(const std::string& text, std::size_t width);

} // namespace tilegen::app
