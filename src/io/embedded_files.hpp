// Files compiled into the binary (the default recipe and the assets it uses), by repo-relative
// path.
#pragma once

#include <string_view>
#include <vector>

namespace tilegen {

struct EmbeddedFile {
    std::string_view path; // e.g. "samples/overworld.toml"
    std::string_view bytes;
};

const std::vector<EmbeddedFile>& embedded_files();

} // namespace tilegen
