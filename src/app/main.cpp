// tilegen: the command-line program. Dispatches to a subcommand; see `tilegen --help`, whose usage
// lines and command list are built from the subcommands' option tables (app/commands.hpp).
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "app/commands.hpp"

namespace {

using namespace tilegen::app;

std::string top_help() {
    std::size_t name_width = 0; // the longest command name, then two spaces before its summary
    for (const Command& c : all_commands())
        name_width = std::max(name_width, c.spec().name.size() + 2);
    std::string usage, list;
    for (const Command& c : all_commands()) {
        const CommandSpec spec = c.spec();
        usage += "  " + usage_line(spec, 2) + "\n";
        std::string name = spec.name;
        name.resize(name_width, ' ');
        list += "  " + name + spec.summary + "\n";
    }
    return "tilegen - 2D tile maps with autotiling\n\nUsage:\n" + usage +
           "  tilegen --help | --version\n  tilegen COMMAND --help\n\nCommands:\n" + list +
           "\nWithout RECIPE, a command uses the built-in default overworld "
           "(samples/overworld.toml).\n"
           "Exit codes: 0 success, 1 bad input file, 2 bad command line.\n";
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << top_help();
        return kExitUsage;
    }
    const std::string command = args.front();
    Args rest(args.begin() + 1, args.end());
    if (command == "--help" || command == "-h" || command == "help") {
        std::cout << top_help();
        return kExitOk;
    }
    if (command == "--version") {
        std::cout << "tilegen " << TILEGEN_VERSION << '\n';
        return kExitOk;
    }
    try {
        for (const Command& c : all_commands())
            if (c.spec().name == command) return c.run(rest);
    } catch (const std::bad_alloc&) {
        print_diagnostics({tilegen::error_at("tilegen", 0, 0, "out of memory")});
        return kExitInput;
    } catch (const std::exception& e) {
        print_diagnostics({tilegen::error_at("tilegen", 0, 0, e.what())});
        return kExitInput;
    }
    return usage_error("", "unknown command '" + command + "'");
}
