// Where input files come from: the disk, or the files compiled into the binary (the built-in
// default recipe).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/diagnostic.hpp"

namespace tilegen::io {

class FileSource {
  public:
    virtual ~FileSource() = default;
    virtual std::optional<std::string> read(const std::filesystem::path& path,
                                            Diagnostics& diags) const = 0;
};

class DiskFiles final : public FileSource {
  public:
    std::optional<std::string> read(const std::filesystem::path& path,
                                    Diagnostics& diags) const override;
};

// Paths are repo-relative, e.g. "samples/overworld.toml"; "samples/../rules/x" is normalised first.
class EmbeddedFiles final : public FileSource {
  public:
    std::optional<std::string> read(const std::filesystem::path& path,
                                    Diagnostics& diags) const override;
};

// The path of the built-in default recipe inside EmbeddedFiles.
inline constexpr const char* kDefaultRecipePath = "samples/overworld.toml";

} // namespace tilegen::io
