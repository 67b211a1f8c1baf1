#include "app/cli.hpp"

#include <charconv>
#include <iostream>

#include "app/commands.hpp"

namespace tilegen::app {

void print_diagnostics(const Diagnostics& diags) {
    for (const auto& d : diags) std::cerr << format_diagnostic(d) << '\n';
}

int usage_error(const std::string& command, const std::string& message) {
    std::cerr << "tilegen" << (command.empty() ? "" : " " + command) << ": error: " << message << '\n'
              << "Try 'tilegen " << (command.empty() ? "" : command + " ") << "--help'.\n";
    return kExitUsage;
}

std::optional<long long> parse_integer(const std::string& s) {
    long long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

std::optional<std::pair<int, int>> parse_size(const std::string& s) {
    auto x = s.find_first_of("xX");
    if (x == std::string::npos) return std::nullopt;
    auto w = parse_integer(s.substr(0, x));
    auto h = parse_integer(s.substr(x + 1));
    if (!w || !h || *w < 1 || *h < 1 || *w > 65536 || *h > 65536) return std::nullopt;
    return std::pair<int, int>{static_cast<int>(*w), static_cast<int>(*h)};
}

} // namespace tilegen::app
