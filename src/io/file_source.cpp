#include "io/file_source.hpp"

#include "io/embedded_files.hpp"
#include "io/files.hpp"

namespace tilegen::io {

std::optional<std::string> DiskFiles::read(const std::filesystem::path& path,
                                           Diagnostics& diags) const {
    return read_file(path, diags);
}

std::optional<std::string> EmbeddedFiles::read(const std::filesystem::path& path,
                                               Diagnostics& diags) const {
    const std::string key = path.lexically_normal().generic_string();
    for (const auto& f : embedded_files())
        if (f.path == key) return std::string(f.bytes);
    diags.push_back(error_at(key, 0, 0, "no such built-in file"));
    return std::nullopt;
}

} // namespace tilegen::io
