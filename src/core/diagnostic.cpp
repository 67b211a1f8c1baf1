#include "core/diagnostic.hpp"

namespace tilegen {

std::string format_diagnostic(const Diagnostic& d) {
    std::string out;
    if (!d.file.empty()) {
        out += d.file;
        if (d.line > 0) {
            out += ':' + std::to_string(d.line);
            if (d.column > 0) out += ':' + std::to_string(d.column);
        }
        out += ": ";
    }
    switch (d.severity) {
    case Severity::error:
        out += "error: ";
        break;
    case Severity::warning:
        out += "warning: ";
        break;
    case Severity::note:
        out += "note: ";
        break;
    }
    out += d.message;
    return out;
}

} // namespace tilegen
