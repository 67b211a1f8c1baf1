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

// Whether any diagnostic from index `from` on is an error (parsers append to a shared list).
inline bool has_errors(const Diagnostics& ds, std::size_t from = 0) {
    for (std::size_t i = from; i < ds.size(); ++i)
        if (ds[i].severity == Severity::error) return true;
    return false;
}

// "file:line:col: error: message" (parts that are unknown are left out).
std::string format_diagnostic(const Diagnostic& d);

} // namespace tilegen
