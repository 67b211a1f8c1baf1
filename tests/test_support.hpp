// Shared helpers for tests: temporary folders, running the tilegen program, reading files.
#pragma once

#include <filesystem>
#include <string>

namespace tilegen::test {

// A fresh, empty folder under the system temp dir, removed when the object dies.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  private:
    std::filesystem::path path_;
};

struct RunResult {
    int exit_code = -1;
    std::string out, err;
};

// Runs a shell command line in `cwd` (default: current dir), capturing stdout and stderr.
RunResult run(const std::string& command_line, const std::filesystem::path& cwd = {});
// Runs the tilegen program built alongside the tests with the given arguments (already
// shell-quoted).
RunResult run_tilegen(const std::string& args, const std::filesystem::path& cwd = {});

std::string read_text(const std::filesystem::path& path);
void write_text(const std::filesystem::path& path, const std::string& text);
std::string shell_quote(const std::string& s);

// The repository root (where samples/, rules/, tilesets/ live).
std::filesystem::path source_dir();
bool have_program(const std::string& name);

} // namespace tilegen::test
