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
        diags.push_back(error_at(path.string(), 0, 0,
                                 std::string("cannot read file: ") + std::strerror(errno)));
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
    std::string name = "." + path.stem().string() + ".tmp" + std::to_string(::getpid()) + "-" +
                       std::to_string(counter) + path.extension().string();
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

namespace {

// A temporary file beside the target: bytes go through stdio; the first failed write makes it drop
// the rest.
class TemporaryFileSink : public ByteSink {
  public:
    explicit TemporaryFileSink(const fs::path& tmp) : tmp_(tmp), f_(std::fopen(tmp.c_str(), "wb")) {
        if (f_) std::setvbuf(f_, nullptr, _IOFBF, 1 << 16);
    }
    ~TemporaryFileSink() override {
        if (f_) std::fclose(f_);
        if (!committed_) {
            std::error_code ec;
            fs::remove(tmp_, ec);
        }
    }
    TemporaryFileSink(const TemporaryFileSink&) = delete;
    TemporaryFileSink& operator=(const TemporaryFileSink&) = delete;

    bool opened() const { return f_ != nullptr; }
    void write(std::string_view bytes) override {
        if (ok_ && !bytes.empty())
            ok_ = std::fwrite(bytes.data(), 1, bytes.size(), f_) == bytes.size();
    }
    // Closes the file; true when every byte reached it.
    bool close() {
        bool ok = ok_ && std::fflush(f_) == 0;
        ok = (std::fclose(f_) == 0) && ok;
        f_ = nullptr;
        return ok;
    }
    void keep() { committed_ = true; } // renamed: nothing to remove

  private:
    fs::path tmp_;
    std::FILE* f_;
    bool ok_ = true, committed_ = false;
};

} // namespace

bool write_file_atomic(const fs::path& path, const std::function<void(ByteSink&)>& produce,
                       Diagnostics& diags) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        diags.push_back(error_at(path.string(), 0, 0, "is a directory, cannot write a file there"));
        return false;
    }
    const fs::path tmp = temporary_path_for(path);
    TemporaryFileSink sink(tmp); // removes the temporary unless kept (also when `produce` throws)
    if (!sink.opened()) {
        diags.push_back(error_at(path.string(), 0, 0,
                                 std::string("cannot write file: ") + std::strerror(errno)));
        return false;
    }
    produce(sink);
    if (!sink.close()) {
        diags.push_back(error_at(path.string(), 0, 0, "cannot write file (disk full?)"));
        return false;
    }
    sink.keep(); // commit_temporary removes the temporary itself if the rename fails
    return commit_temporary(tmp, path, diags);
}

bool write_file_atomic(const fs::path& path, std::string_view bytes, Diagnostics& diags) {
    return write_file_atomic(
        path, [bytes](ByteSink& sink) { sink.write(bytes); }, diags);
}

} // namespace tilegen::io
