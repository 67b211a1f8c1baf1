// File access for tilegen: reading text and bytes, atomic writes (temporary file + rename).
// All file access of the core pipeline goes through src/io; core stages take and return values.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/diagnostic.hpp"
#include "io/byte_sink.hpp"

namespace tilegen::io {

// Reads a whole file. On failure returns nullopt and appends "path: error: cannot read ...:
// reason".
std::optional<std::string> read_file(const std::filesystem::path& path, Diagnostics& diags);

// Writes bytes to path atomically: a temporary file in the same directory, then rename over path.
// On failure the previous file (if any) is untouched, the temporary removed, and a diagnostic
// appended.
bool write_file_atomic(const std::filesystem::path& path, std::string_view bytes,
                       Diagnostics& diags);

// The same, streamed: `produce` writes the file's bytes into the sink piece by piece (a temporary
// file beside path), renamed over path once everything is written. After a failed write the sink
// drops further bytes; then, or if `produce` throws, the temporary is removed and the previous file
// (if any) stays untouched.
bool write_file_atomic(const std::filesystem::path& path,
                       const std::function<void(ByteSink&)>& produce, Diagnostics& diags);

// A temporary path beside `path` with the same extension (for writers that pick a format from it).
std::filesystem::path temporary_path_for(const std::filesystem::path& path);

// Renames tmp over path; removes tmp and appends a diagnostic on failure.
bool commit_temporary(const std::filesystem::path& tmp, const std::filesystem::path& path,
                      Diagnostics& diags);

} // namespace tilegen::io
