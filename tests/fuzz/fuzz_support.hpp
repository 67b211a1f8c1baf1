// Shared helpers for the libFuzzer targets in tests/fuzz (see tests/fuzz/CMakeLists.txt and README
// "Testing"). Each target defines LLVMFuzzerTestOneInput; a broken property aborts with a message
// (libFuzzer saves the input).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>

#include "core/diagnostic.hpp"

namespace tilegen::fuzz {

// A property every input must keep: a crash with a message when it does not.
#define FUZZ_CHECK(cond, what)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: fuzz property failed: %s (%s)\n", __FILE__, __LINE__,     \
                         #cond, what);                                                             \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// Parsers report a failure with at least one error, and every diagnostic names a file.
inline void check_diagnostics(bool ok, const Diagnostics& diags) {
    if (!ok) FUZZ_CHECK(has_errors(diags), "a failed parse must say why");
    if (ok) FUZZ_CHECK(!has_errors(diags), "a successful parse has no errors");
    for (const Diagnostic& d : diags) {
        FUZZ_CHECK(!d.message.empty(), "empty diagnostic message");
        FUZZ_CHECK(d.line >= 0 && d.column >= 0, "negative line or column");
    }
}

// A private folder for this fuzzing process (removed at exit), for targets that read files.
class ScratchDir {
  public:
    ScratchDir() {
        std::error_code ec;
        auto base = std::filesystem::temp_directory_path(ec);
        if (ec) base = "/tmp";
        std::string templ = (base / "tilegen-fuzz-XXXXXX").string();
        if (!::mkdtemp(templ.data())) {
            std::perror("mkdtemp");
            std::abort();
        }
        path_ = templ;
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

    // Writes `bytes` to NAME inside the folder (replacing it).
    std::filesystem::path write(const std::string& name, std::string_view bytes) const {
        const auto p = path_ / name;
        std::ofstream out(p, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.close();
        FUZZ_CHECK(out.good(), "cannot write the scratch file");
        return p;
    }

  private:
    std::filesystem::path path_;
};

} // namespace tilegen::fuzz
