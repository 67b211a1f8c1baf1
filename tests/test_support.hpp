// Shared helpers for tests: temporary folders, running the tilegen program, reading files, test
// class grids.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/classes/terrain_classes.hpp"

namespace tilegen::test {

// A w x h class grid of `classes` classes (ids 0..classes-1) in blobs: a class per 4x4 block (a
// hash of seed and block), one cell in about 8 of another class (a hash of seed and cell).
ClassGrid blobby_classes(int w, int h, std::uint64_t seed, int classes);

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

// How many seeds (or random cases) a many-seed test runs: `full` in a plain build; a tenth (at
// least `least`) in the sanitizer build, which is about five times slower and looks for memory
// errors and undefined behaviour (the plain build of the same suite checks every seed).
constexpr int cases(int full, int least = 10) {
#ifdef TILEGEN_TESTS_SANITIZED
    return full / 10 > least ? full / 10 : (full < least ? full : least);
#else
    (void)least;
    return full;
#endif
}

// samples/*.toml, sorted; with `parts` > 1 only every parts-th one from `part` (to split a long
// test case over several).
std::vector<std::filesystem::path> sample_recipes(int part = 0, int parts = 1);

// The repository root (where samples/, rules/, tilesets/ live).
std::filesystem::path source_dir();
bool have_program(const std::string& name);

} // namespace tilegen::test
