#include "app/cli.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <vector>

#include "app/commands.hpp"
#include "io/class_map_reader.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"

namespace tilegen::app {

void print_diagnostics(const Diagnostics& diags) {
    constexpr std::size_t kShown =
        20; // a wrong recipe can break every line of a rule file; show the first few
    for (std::size_t i = 0; i < diags.size() && i < kShown; ++i)
        std::cerr << format_diagnostic(diags[i]) << '\n';
    if (diags.size() > kShown)
        std::cerr << "tilegen: " << diags.size() - kShown << " more errors not shown\n";
}

int usage_error(const std::string& command, const std::string& message) {
    const std::string program = "tilegen" + (command.empty() ? "" : " " + command);
    print_diagnostics({error_at(program, 0, 0, message)});
    std::cerr << "Try '" << program << " --help'.\n";
    return kExitUsage;
}

std::optional<std::filesystem::path> installed_data_dir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return std::nullopt;
    const auto dir = (exe.parent_path() / ".." / "share" / "tilegen").lexically_normal();
    if (!std::filesystem::is_directory(dir / "samples", ec)) return std::nullopt;
    return dir;
}

std::string recipe_path_for(const std::string& recipe) {
    const std::filesystem::path given(recipe);
    std::error_code ec;
    if (given.is_absolute() || std::filesystem::exists(given, ec)) return recipe;
    const auto data = installed_data_dir();
    if (!data) return recipe;
    std::vector<std::filesystem::path> candidates = {*data / given, *data / "samples" / given};
    if (!given.has_extension()) candidates.push_back(*data / "samples" / (recipe + ".toml"));
    for (const auto& candidate : candidates)
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
    return recipe;
}

std::optional<Project> load_recipe_project(const std::optional<std::string>& recipe,
                                           Diagnostics& diags) {
    if (recipe) return io::load_project(recipe_path_for(*recipe), io::DiskFiles{}, diags);
    return io::load_project(io::kDefaultRecipePath, io::EmbeddedFiles{}, diags);
}

std::optional<Project> load_recipe_or_print(const std::optional<std::string>& recipe) {
    Diagnostics diags;
    auto project = load_recipe_project(recipe, diags);
    if (!project) print_diagnostics(diags);
    return project;
}

std::optional<ClassGrid> read_class_map_or_print(const std::string& file, const Recipe& recipe) {
    Diagnostics diags;
    auto classes = io::read_class_map(file, recipe, diags);
    if (!classes) print_diagnostics(diags);
    return classes;
}

bool read_map_area_or_print(const CommandLine& cl, const Recipe& recipe, GenerateOptions& options) {
    if (auto size = cl.size("--size")) {
        options.width = size->first;
        options.height = size->second;
    }
    if (auto file = cl.text("--classes")) {
        options.classes = read_class_map_or_print(*file, recipe);
        if (!options.classes) return false;
    }
    return true;
}

double map_memory_estimate(const Project& project, double w, double h) {
    const double layers = 2, maps = static_cast<double>(project.recipe.maps.size());
    return w * h * (8 + 14 * layers + 4 * maps);
}

bool within_memory_limit(const std::string& command, double estimate_bytes, double limit_gib,
                         const std::string& what, Diagnostics& diags) {
    const double gib = estimate_bytes / (1024.0 * 1024.0 * 1024.0);
    if (gib <= limit_gib) return true;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%s needs about %.1f GiB of memory (estimate), more than the limit of %.1f GiB; "
                  "raise it with --max-memory GIB",
                  what.c_str(), gib, limit_gib);
    diags.push_back(error_at("tilegen " + command, 0, 0, buf)); // where: the command line
    return false;
}

std::optional<std::string> clashes_with_input(const std::string& output,
                                              const std::vector<std::string>& inputs) {
    std::error_code ec;
    if (!std::filesystem::exists(output, ec)) return std::nullopt;
    for (const auto& in : inputs)
        if (std::filesystem::exists(in, ec) && std::filesystem::equivalent(output, in, ec))
            return in;
    return std::nullopt;
}

std::optional<long long> parse_integer(const std::string& s) {
    long long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

std::optional<double> parse_real(const std::string& s) {
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::optional<std::pair<int, int>> parse_size(const std::string& s) {
    auto x = s.find_first_of("xX");
    if (x == std::string::npos) return std::nullopt;
    auto w = parse_integer(s.substr(0, x));
    auto h = parse_integer(s.substr(x + 1));
    if (!w || !h || *w < 1 || *h < 1 || *w > 65536 || *h > 65536) return std::nullopt;
    return std::pair<int, int>{static_cast<int>(*w), static_cast<int>(*h)};
}

std::vector<Command> all_commands() {
    return {{generate_spec, run_generate}, {check_spec, run_check}, {explain_spec, run_explain},
            {stats_spec, run_stats},       {view_spec, run_view},   {noise_spec, run_noise},
            {bench_spec, run_bench},       {paint_spec, run_paint}};
}

} // namespace tilegen::app
