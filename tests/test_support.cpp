#include "test_support.hpp"

#include "core/hash.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace tilegen::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("tilegen-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::vector<fs::path> sample_recipes(int part, int parts) {
    std::vector<fs::path> all;
    for (const auto& e : fs::directory_iterator(source_dir() / "samples"))
        if (e.path().extension() == ".toml") all.push_back(e.path());
    std::sort(all.begin(), all.end());
    std::vector<fs::path> out;
    for (std::size_t i = static_cast<std::size_t>(part); i < all.size();
         i += static_cast<std::size_t>(parts))
        out.push_back(all[i]);
    return out;
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

RunResult run(const std::string& command_line, const fs::path& cwd) {
    TempDir tmp;
    std::string cmd;
    if (!cwd.empty()) cmd += "cd " + shell_quote(cwd.string()) + " && ";
    cmd += command_line + " >" + shell_quote((tmp / "out").string()) + " 2>" +
           shell_quote((tmp / "err").string()) + " </dev/null";
    int status = std::system(cmd.c_str());
    RunResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status)
                                    : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    r.out = read_text(tmp / "out");
    r.err = read_text(tmp / "err");
    return r;
}

RunResult run_tilegen(const std::string& args, const fs::path& cwd) {
    return run(shell_quote(TILEGEN_EXE) + " " + args, cwd);
}

fs::path source_dir() {
    return fs::path(TILEGEN_SOURCE_DIR);
}

bool have_program(const std::string& name) {
    return std::system(("command -v " + shell_quote(name) + " >/dev/null 2>&1").c_str()) == 0;
}

ClassGrid blobby_classes(int w, int h, std::uint64_t seed, int classes) {
    ClassGrid g(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::uint64_t b = hash_values(seed, x / 4, y / 4);
            const std::uint64_t c = hash_values(seed, x, y, 7);
            g(x, y) = static_cast<ClassId>((c % 8 == 0 ? c >> 8 : b) % classes);
        }
    return g;
}

} // namespace tilegen::test
