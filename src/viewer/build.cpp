#include "viewer/build.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/hash.hpp"
#include "core/rules/explain.hpp"
#include "viewer/map_pixels.hpp"

namespace tilegen::viewer {

namespace {

Rgba hsv(double h, double s, double v) {
    const double c = v * s, hp = std::fmod(h, 360.0) / 60.0;
    const double x = c * (1 - std::fabs(std::fmod(hp, 2.0) - 1));
    double r = 0, g = 0, b = 0;
    if (hp < 1)
        r = c, g = x;
    else if (hp < 2)
        r = x, g = c;
    else if (hp < 3)
        g = c, b = x;
    else if (hp < 4)
        g = x, b = c;
    else if (hp < 5)
        r = x, b = c;
    else
        r = c, b = x;
    const double m = v - c;
    auto byte = [](double t) {
        return static_cast<std::uint8_t>(std::lround(std::clamp(t, 0.0, 1.0) * 255));
    };
    return {byte(r + m), byte(g + m), byte(b + m), 255};
}

std::string target_text(const Target& t) {
    if (t.kind == Target::Kind::error) return "@error";
    if (t.kind == Target::Kind::none) return "@none";
    return t.name;
}

} // namespace

Rgba class_color_for(const std::string& name, int index) {
    struct Known {
        const char* word;
        Rgba color;
    };
    static const Known known[] = {
        {"deep", {24, 52, 140, 255}},     {"ocean", {32, 72, 170, 255}},
        {"sea", {32, 72, 170, 255}},      {"shallow", {70, 140, 215, 255}},
        {"water", {45, 100, 205, 255}},   {"lake", {45, 100, 205, 255}},
        {"river", {60, 120, 215, 255}},   {"lava", {230, 80, 20, 255}},
        {"swamp", {85, 110, 70, 255}},    {"marsh", {85, 110, 70, 255}},
        {"sand", {222, 202, 125, 255}},   {"beach", {222, 202, 125, 255}},
        {"desert", {230, 190, 110, 255}}, {"dirt", {140, 100, 60, 255}},
        {"mud", {110, 85, 55, 255}},      {"grass", {85, 175, 70, 255}},
        {"meadow", {110, 190, 80, 255}},  {"plain", {120, 185, 85, 255}},
        {"forest", {30, 110, 50, 255}},   {"wood", {30, 110, 50, 255}},
        {"tree", {30, 110, 50, 255}},     {"hill", {130, 150, 70, 255}},
        {"rock", {125, 118, 110, 255}},   {"stone", {125, 118, 110, 255}},
        {"cliff", {110, 100, 95, 255}},   {"mountain", {150, 140, 130, 255}},
        {"snow", {240, 242, 250, 255}},   {"ice", {200, 230, 245, 255}},
    };
    std::string lower;
    for (char c : name)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const Known& k : known)
        if (lower.find(k.word) != std::string::npos) return k.color;
    const std::uint64_t h = hash_values(hash_string(name), static_cast<std::uint64_t>(index));
    return hsv(static_cast<double>(h % 360), 0.55, 0.85);
}

Rgba rule_color_for(const std::string& file, int line) {
    const std::uint64_t h = hash_string(file + ":" + std::to_string(line));
    // Hue from the hash; saturation and value in bands so neighbouring rules differ in more than
    // hue.
    const double hue = static_cast<double>(h % 3600) / 10.0;
    const double sat = 0.55 + 0.15 * static_cast<double>((h >> 20) % 3);
    const double val = 0.70 + 0.12 * static_cast<double>((h >> 28) % 3);
    return hsv(hue, sat, val);
}

Rgba average_color(const Image& image, int x, int y, int w, int h) {
    std::uint64_t r = 0, g = 0, b = 0, a = 0, n = 0;
    for (int py = y; py < y + h; ++py)
        for (int px = x; px < x + w; ++px) {
            if (px < 0 || py < 0 || px >= image.width() || py >= image.height()) continue;
            const Rgba c = image.get(px, py);
            r += std::uint64_t{c.r} * c.a;
            g += std::uint64_t{c.g} * c.a;
            b += std::uint64_t{c.b} * c.a;
            a += c.a;
            ++n;
        }
    if (a == 0 || n == 0) return {0, 0, 0, 0};
    return {static_cast<std::uint8_t>((r + a / 2) / a), static_cast<std::uint8_t>((g + a / 2) / a),
            static_cast<std::uint8_t>((b + a / 2) / a), static_cast<std::uint8_t>((a + n / 2) / n)};
}

std::shared_ptr<const Build> make_build(Project project, const GenerateOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    auto build = std::make_shared<Build>();
    build->result = generate_map(project, options);
    build->options = options;
    const Recipe& recipe = project.recipe;
    build->symbols = terrain_symbols(recipe);
    build->outside = outside_policy(recipe);
    build->stats = map_stats_of(project, build->result, options.threads);
    const Atlas& atlas = build->result.map.atlas;
    build->error_gid = gid_of(atlas.tile_count() - 1);
    for (int i = 0; i < atlas.tile_count(); ++i)
        build->tile_average.push_back(average_color(
            atlas.image, (i % atlas.columns) * atlas.tile_width,
            (i / atlas.columns) * atlas.tile_height, atlas.tile_width, atlas.tile_height));
    for (int i = 0; i < atlas.tile_count(); ++i) {
        bool opaque = true;
        const int x0 = (i % atlas.columns) * atlas.tile_width,
                  y0 = (i / atlas.columns) * atlas.tile_height;
        for (int y = y0; y < y0 + atlas.tile_height && opaque; ++y)
            for (int x = x0; x < x0 + atlas.tile_width && opaque; ++x)
                opaque = x < atlas.image.width() && y < atlas.image.height() &&
                         atlas.image.get(x, y).a == 255;
        build->tile_opaque.push_back(opaque);
    }
    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
        build->class_color.push_back(class_color_for(recipe.terrain[i].name, static_cast<int>(i)));
    for (const LayerRules& layer : build->result.layers) {
        std::vector<Rgba> colors;
        for (const Rule& r : layer.ordered)
            colors.push_back(rule_color_for(r.file, r.line));
        build->rule_color.push_back(std::move(colors));
    }
    // Cells some layer left unmatched (the pipeline counts (cell, layer) pairs; the overlay shows
    // cells).
    const auto& decisions = build->result.decisions;
    if (!decisions.empty()) {
        const std::size_t n = decisions.front().size();
        for (std::size_t i = 0; i < n; ++i)
            for (const Grid<int>& d : decisions)
                if (d.cells()[i] == kNoRule) {
                    ++build->unmatched_cells;
                    break;
                }
    }
    const auto& heights = build->result.heights.cells();
    if (!heights.empty()) {
        const auto [lo, hi] = std::minmax_element(heights.begin(), heights.end());
        build->height_min = *lo;
        build->height_max = *hi;
    }
    const auto& flow = build->result.flow.cells();
    if (!flow.empty()) build->flow_max = *std::max_element(flow.begin(), flow.end());
    for (const ObjectLayer& layer : build->result.map.object_layers)
        build->objects_by_y.push_back(
            std::is_sorted(layer.objects.begin(), layer.objects.end(),
                           [](const MapObject& a, const MapObject& b) { return a.y < b.y; }));
    build->overview_level = overview_level(build->width(), build->height(), kOverviewTexels);
    build->overview = make_overview(*build, build->overview_level);
    build->overview_opaque = is_opaque(build->overview);
    swap_red_blue(build->overview);
    build->project = std::move(project);
    build->generate_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return build;
}

std::vector<std::string> inspect_cell(const Build& build, int x, int y) {
    std::vector<std::string> lines;
    const GenerateResult& result = build.result;
    if (!result.classes.contains(x, y)) return lines;
    const auto& terrain = build.project.recipe.terrain;
    const ClassId cls = result.classes(x, y);
    std::ostringstream head;
    head << "cell (" << x << ", " << y << ")";
    if (!result.heights.empty())
        head << "  height " << std::setprecision(6) << result.heights(x, y);
    if (cls < terrain.size())
        head << "  class " << terrain[cls].name << " (" << terrain[cls].symbol << ")";
    lines.push_back(head.str());
    for (std::string& line : class_change_lines(build.project, result, x, y))
        lines.push_back(std::move(line));
    // A corner layer shows the four corners around the cell: (x, y), (x+1, y), (x, y+1), (x+1, y+1)
    // (corner (i, j) lies between cells (i-1, j-1) and (i, j)).
    static const char* const kCorners[4] = {"nw", "ne", "sw", "se"};
    std::vector<std::pair<std::size_t, int>> steps; // (layer, corner)
    for (std::size_t li = 0; li < result.layers.size(); ++li)
        for (int k = 0; k < (result.layers[li].corner() ? 4 : 1); ++k)
            steps.emplace_back(li, k);
    for (const auto& [li, k] : steps) {
        const LayerRules& layer = result.layers[li];
        const int at_x = layer.corner() ? x + k % 2 : x, at_y = layer.corner() ? y + k / 2 : y;
        const CellExplanation e = explain_cell(result.classes, at_x, at_y, layer, build.outside,
                                               result.seed, build.error_gid);
        std::ostringstream out;
        out << layer.name;
        if (layer.corner()) out << " " << kCorners[k] << " corner (" << at_x << ", " << at_y << ")";
        out << ": ";
        if (e.decision == kNoRule) {
            out << "no rule matches (" << layer.ordered.size() << " tried) -> error tile";
            lines.push_back(out.str());
            continue;
        }
        const Rule& r = layer.ordered[static_cast<std::size_t>(e.decision)];
        out << r.file << ":" << r.line << (r.variant.empty() ? "" : " (" + r.variant + ")") << "  "
            << pattern_text(r.pattern, build.symbols) << "  -> ";
        if (e.gid == 0) {
            out << "(empty)";
        } else {
            const int index = atlas_index_of(e.gid);
            const auto& names = result.map.atlas.names;
            const std::string name = index >= 0 && index < static_cast<int>(names.size()) &&
                                             !names[static_cast<std::size_t>(index)].empty()
                                         ? names[static_cast<std::size_t>(index)]
                                         : "#" + std::to_string(index);
            out << name << ", gid " << e.gid;
            if (e.gid & kFlipMask) out << " (flipped)";
        }
        if (r.targets.size() > 1 && e.chosen_target >= 0)
            out << "  [target " << (e.chosen_target + 1) << " of " << r.targets.size() << ": "
                << target_text(r.targets[static_cast<std::size_t>(e.chosen_target)]) << "]";
        lines.push_back(out.str());
    }
    return lines;
}

} // namespace tilegen::viewer
