// Hand-drawn class maps: text -> ClassGrid. One text line per row, one terrain symbol per cell; all
// rows the same length. Trailing blank lines, a UTF-8 BOM and CRLF line ends are accepted. Errors
// at line:column.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/classes/terrain_classes.hpp"
#include "core/diagnostic.hpp"
#include "core/rules/rule_parser.hpp"

namespace tilegen {

[[nodiscard]] std::optional<ClassGrid> parse_class_map(std::string_view text,
                                                       const std::string& path,
                                                       const SymbolTable& symbols,
                                                       Diagnostics& diags);

// The inverse, for tests and tools: one line per row, newline-terminated.
std::string class_map_text(const ClassGrid& classes, const std::string& symbols_by_class);

} // namespace tilegen
