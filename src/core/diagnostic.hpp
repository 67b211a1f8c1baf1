// Diagnostics are values: where (file, line, column; 1-based, 0 = unknown) and what.
// They are turned into text ("path:line:col: error: message") only at the edge (apps).
#pragma once

#include <string>
#include <vector>

namespace tilegen {

enum class Severity { error, warning, note };

struct Diagnostic {
    Severity severity = Severity::error;
    std::string file;
    int line = 0;
    int column = 0;
    std::string message;
};

using Diagnostics = std::vector<Diagnostic>;

inline Diagnostic error_at(std::string file, int line, int column, std::string message) {
    return {Severity::error, std::move(file), line, column, std::move(message)};
}

inline bool has_errors(const Diagnostics& ds) {
    for (const auto& d : ds)
        if (d.severity == Severity::error) return true;
    return false;
}

// "file:line:col: error: message" (parts that are unknown are left out).
std::string format_diagnostic(const Diagnostic& d);

} // namespace tilegen
