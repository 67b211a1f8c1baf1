#include "io/files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

#include <unistd.h>

namespace tilegen::io {

namespace fs = std::filesystem;

std::optional<std::string> read_file(const fs::path& path, Diagnostics& diags) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        diags.push_back(error_at(path.string(), 0, 0, "is a directory, expected a file"));
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diags.push_back(error_at(path.string(), 0, 0, std::string("cannot read file: ") + std::strerror(errno)));
        return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
        diags.push_back(error_at(path.string(), 0, 0, "cannot read file"));
        return std::nullopt;
    }
    return std::move(ss).str();
}

fs::path temporary_path_for(const fs::path& path) {
    // Unique per process and call; same directory so that rename is atomic.
    static std::uint64_t counter = 0;
    ++counter;
    fs::path tmp = path;
    std::string name = "." + path.stem().string() + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(counter) +
                       path.extension().string();
    tmp.replace_filename(name);
    return tmp;
}

bool commit_temporary(const fs::path& tmp, const fs::path& path, Diagnostics& diags) {
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        diags.push_back(error_at(path.string(), 0, 0, "cannot write file: " + ec.message()));
        return false;
    }
    return true;
}

bool write_file_atomic(const fs::path& path, std::string_view bytes, Diagnostics& diags) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        diags.push_back(error_at(path.string(), 0, 0, "is a directory, cannot write a file there"));
        return false;
    }
    fs::path tmp = temporary_path_for(path);
    {
        std::FILE* f = std::fopen(tmp.c_str(), "wb");
        if (!f) {
            diags.push_back(error_at(path.string(), 0, 0, std::string("cannot write file: ") + std::strerror(errno)));
            return false;
        }
        bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
        ok = (std::fflush(f) == 0) && ok;
        ok = (std::fclose(f) == 0) && ok;
        if (!ok) {
            fs::remove(tmp, ec);
            diags.push_back(error_at(path.string(), 0, 0, "cannot write file (disk full?)"));
            return false;
        }
    }
    return commit_temporary(tmp, path, diags);
}

} // namespace tilegen::io
