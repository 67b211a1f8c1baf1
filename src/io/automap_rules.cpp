#include "io/automap_rules.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/pipeline.hpp"
#include "io/files.hpp"
#include "io/png.hpp"
#include "io/tmx_writer.hpp"
#include "io/xml_text.hpp"

namespace tilegen::io {

namespace {

constexpr std::uint32_t kDefaultColors[] = {0x3060c0, 0xd8c078, 0x40a040, 0x206028,
                                            0x8a6a3a, 0x808080, 0x1c3a7a, 0xc04040};
constexpr int kSpecialCount = 2; // Empty, NonEmpty
constexpr int kEmptyTile = 0, kNonEmptyTile = 1;

// Shortest text that reads back as the same double.
std::string real_text(double v) {
    char buf[40];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

std::string header(const std::string& name, int tw, int th, int count, int columns) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tileset version=\"1.8\" "
           "tiledversion=\"1.8.2\" name=\"" +
           xml_escape(name) + "\" tilewidth=\"" + std::to_string(tw) + "\" tileheight=\"" +
           std::to_string(th) + "\" tilecount=\"" + std::to_string(count) + "\" columns=\"" +
           std::to_string(columns) + "\">\n";
}

std::string image_line(const std::string& file, int w, int h) {
    return " <image source=\"" + xml_escape(file) + "\" width=\"" + std::to_string(w) +
           "\" height=\"" + std::to_string(h) + "\"/>\n";
}

// A row of solid swatches, one per colour, tile-sized.
Image swatches(const std::vector<std::uint32_t>& colors, int tw, int th) {
    Image img(tw * static_cast<int>(colors.size()), th);
    for (std::size_t i = 0; i < colors.size(); ++i)
        for (int y = 0; y < th; ++y)
            for (int x = 0; x < tw; ++x) {
                const std::uint32_t c = colors[i];
                const bool border = x == 0 || y == 0 || x == tw - 1 || y == th - 1;
                const auto shade = [&](int shift) {
                    const int v = static_cast<int>((c >> shift) & 0xff);
                    return static_cast<std::uint8_t>(border ? v * 3 / 4 : v);
                };
                img.set(static_cast<int>(i) * tw + x, y, {shade(16), shade(8), shade(0), 255});
            }
    return img;
}

std::vector<std::uint32_t> class_colors(const Recipe& recipe) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
        out.push_back(recipe.terrain[i].color.value_or(kDefaultColors[i % 8]));
    return out;
}

std::string classes_tsx(const Recipe& recipe, int tw, int th) {
    const int n = static_cast<int>(recipe.terrain.size());
    std::string out = header("classes", tw, th, n, n) + image_line("classes.png", tw * n, th);
    for (int i = 0; i < n; ++i) {
        const auto& t = recipe.terrain[static_cast<std::size_t>(i)];
        out += " <tile id=\"" + std::to_string(i) + "\">\n  <properties>\n";
        out += "   <property name=\"name\" value=\"" + xml_escape(t.name) + "\"/>\n";
        out += "   <property name=\"terrain\" value=\"" + xml_escape(std::string(1, t.symbol)) +
               "\"/>\n";
        out += "  </properties>\n </tile>\n";
    }
    return out + "</tileset>\n";
}

std::string automap_tsx(int tw, int th) {
    std::string out = header("automap", tw, th, kSpecialCount, kSpecialCount) +
                      image_line("automap.png", tw * kSpecialCount, th);
    for (int i = 0; i < kSpecialCount; ++i)
        out += " <tile id=\"" + std::to_string(i) +
               "\">\n  <properties>\n   <property name=\"MatchType\" value=\"" +
               kAutomapSpecialTiles[i] + "\"/>\n  </properties>\n </tile>\n";
    return out + "</tileset>\n";
}

// One tile layer of a rule map or working map: CSV gids.
std::string layer_xml(int id, const std::string& name, const Grid<Gid>& g,
                      const std::string& properties = {}) {
    std::string out = " <layer id=\"" + std::to_string(id) + "\" name=\"" + xml_escape(name) +
                      "\" width=\"" + std::to_string(g.width()) + "\" height=\"" +
                      std::to_string(g.height()) + "\">\n";
    out += properties;
    out += "  <data encoding=\"csv\">\n";
    for (int y = 0; y < g.height(); ++y) {
        for (int x = 0; x < g.width(); ++x) {
            out += std::to_string(g(x, y));
            if (x + 1 < g.width() || y + 1 < g.height()) out += ',';
        }
        out += '\n';
    }
    return out + "</data>\n </layer>\n";
}

std::string map_open(int w, int h, int tw, int th, int next_layer, const std::string& properties) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.8\" "
           "tiledversion=\"1.8.2\" orientation=\"orthogonal\" renderorder=\"right-down\" "
           "width=\"" +
           std::to_string(w) + "\" height=\"" + std::to_string(h) + "\" tilewidth=\"" +
           std::to_string(tw) + "\" tileheight=\"" + std::to_string(th) +
           "\" infinite=\"0\" nextlayerid=\"" + std::to_string(next_layer) +
           "\" nextobjectid=\"1\">\n" + properties;
}

std::string tileset_ref(int firstgid, const std::string& file) {
    return " <tileset firstgid=\"" + std::to_string(firstgid) + "\" source=\"" + xml_escape(file) +
           "\"/>\n";
}

// The positive weights of a rule's targets, sorted: rules with equal signatures share a rule map.
std::vector<double> signature(const ResolvedTargets& t) {
    std::vector<double> w;
    for (double x : t.weights)
        if (x > 0) w.push_back(x);
    std::sort(w.begin(), w.end());
    return w;
}

// One rule map: the rules `order` names (indices into layer.ordered), in that order.
std::string rule_map(const Recipe& recipe, const LayerRules& layer, const Atlas& atlas,
                     const std::string& tileset_file, const std::vector<std::size_t>& order) {
    const int classes = static_cast<int>(recipe.terrain.size());
    const ClassMask all =
        classes >= 32 ? kAnyClass : static_cast<ClassMask>((ClassMask{1} << classes) - 1);
    const int special_first = classes + 1, atlas_first = special_first + kSpecialCount;
    const Gid empty_gid = static_cast<Gid>(special_first + kEmptyTile);
    const Gid nonempty_gid = static_cast<Gid>(special_first + kNonEmptyTile);
    const OutsidePolicy outside = outside_policy(recipe);

    int side = 1;
    for (std::size_t ri : order)
        side = std::max(side, layer.ordered[ri].pattern.size());
    const int slot = side + 1;
    const int n = static_cast<int>(order.size());
    const int per_row = kAutomapRulesPerRow;
    const int rows = std::max(1, (n + per_row - 1) / per_row);
    const int width = per_row * slot, height = rows * slot;

    // Output sets: one per (weight, k-th target of that weight in its rule), in order of first
    // appearance.
    std::vector<std::pair<double, int>> sets;
    auto set_of = [&](double w, int k) {
        for (std::size_t i = 0; i < sets.size(); ++i)
            if (sets[i].first == w && sets[i].second == k) return static_cast<int>(i);
        sets.emplace_back(w, k);
        return static_cast<int>(sets.size()) - 1;
    };
    Grid<Gid> regions(width, height, 0);
    std::vector<Grid<Gid>> inputs, inputnots, outputs;
    auto put = [&](std::vector<Grid<Gid>>& list, int index, int x, int y, Gid gid) {
        while (static_cast<int>(list.size()) <= index)
            list.emplace_back(width, height, 0);
        list[static_cast<std::size_t>(index)](x, y) = gid;
    };
    for (int i = 0; i < n; ++i) {
        const std::size_t ri = order[static_cast<std::size_t>(i)];
        const Rule& rule = layer.ordered[ri];
        const ResolvedTargets& targets = layer.resolved[ri];
        const int ox = (i % per_row) * slot, oy = (i / per_row) * slot;
        const int s = rule.pattern.size(), rad = rule.pattern.radius();
        // Cells the rule's region holds: the conditioned ones and the centre, and in a 5x5 pattern
        // the inner cell toward the centre of each conditioned outer cell (written as "any
        // class"), so the region is one 8-connected piece without empty cells.
        std::vector<bool> any_class(static_cast<std::size_t>(s * s), false);
        auto mask_at = [&](int col, int row) { return rule.pattern.cell(col, row) & all; };
        for (int row = 0; row < s; ++row)
            for (int col = 0; col < s; ++col) {
                const int dx = col - rad, dy = row - rad;
                if (std::max(std::abs(dx), std::abs(dy)) < 2 || mask_at(col, row) == all) continue;
                const int ic = rad + (dx > 0) - (dx < 0), ir = rad + (dy > 0) - (dy < 0);
                if (mask_at(ic, ir) == all && (ic != rad || ir != rad))
                    any_class[static_cast<std::size_t>(ir * s + ic)] = true;
            }
        bool conditioned = false;
        for (int row = 0; row < s; ++row)
            for (int col = 0; col < s; ++col) {
                const int x = ox + col, y = oy + row;
                const ClassMask m = mask_at(col, row);
                const bool forced = any_class[static_cast<std::size_t>(row * s + col)];
                if (m != all || forced || (col == rad && row == rad))
                    regions(x, y) = static_cast<Gid>(special_first + kNonEmptyTile);
                if (m == all && !forced) continue;
                conditioned = conditioned || !forced;
                const ClassMask complement = all & ~m;
                const bool positive = forced || std::popcount(m) <= std::popcount(complement);
                const ClassMask listed = positive ? m : complement;
                int k = 0;
                for (int c = 0; c < classes; ++c)
                    if (listed & (ClassMask{1} << c))
                        put(positive ? inputs : inputnots, k++, x, y, static_cast<Gid>(c + 1));
                if (outside.fixed_class) {
                    const bool outside_in_listed = (listed >> *outside.fixed_class) & ClassMask{1};
                    // Positive: outside (empty) is accepted when its class is listed; negative:
                    // it is refused when its class is listed.
                    if (outside_in_listed) put(positive ? inputs : inputnots, k++, x, y, empty_gid);
                }
            }
        if (!conditioned) {
            const int c = rule.pattern.radius();
            put(inputs, 0, ox + c, oy + c, nonempty_gid);
        }
        std::map<double, int> seen; // weight -> targets of that weight so far in this rule
        for (std::size_t t = 0; t < targets.gids.size(); ++t) {
            const double w = targets.weights[t];
            if (!(w > 0)) continue;
            const int set = set_of(w, seen[w]++);
            const Gid g = targets.gids[t];
            const Gid out =
                g == 0 ? empty_gid
                       : (static_cast<Gid>(atlas_index_of(g) + atlas_first) | (g & kFlipMask));
            const int c = rule.pattern.radius();
            put(outputs, set, ox + c, oy + c, out);
        }
    }

    std::string props = " <properties>\n";
    if (outside.fixed_class)
        props += "  <property name=\"MatchOutsideMap\" type=\"bool\" value=\"true\"/>\n";
    else
        props += "  <property name=\"OverflowBorder\" type=\"bool\" value=\"true\"/>\n";
    props += "  <property name=\"tilegen_layer\" value=\"" + xml_escape(layer.name) + "\"/>\n";
    props += " </properties>\n";
    const int layer_count = 1 + static_cast<int>(inputs.size() + inputnots.size() + outputs.size());
    std::string out =
        map_open(width, height, atlas.tile_width, atlas.tile_height, layer_count + 1, props);
    out += tileset_ref(1, "classes.tsx");
    out += tileset_ref(special_first, "automap.tsx");
    out += tileset_ref(atlas_first, tileset_file);
    int id = 1;
    out += layer_xml(id++, "regions", regions);
    for (const auto& g : inputs)
        out += layer_xml(id++, "input_classes", g);
    for (const auto& g : inputnots)
        out += layer_xml(id++, "inputnot_classes", g);
    for (std::size_t s = 0; s < outputs.size(); ++s)
        out += layer_xml(id++, "output" + std::to_string(s + 1) + "_" + layer.name, outputs[s],
                         "  <properties>\n   <property name=\"Probability\" type=\"float\" "
                         "value=\"" +
                             real_text(sets[s].first) + "\"/>\n  </properties>\n");
    return out + "</map>\n";
}

} // namespace

AutomapFiles automap_rule_files(const Recipe& recipe, const std::vector<LayerRules>& layers,
                                const Atlas& atlas, const std::string& tileset_stem) {
    AutomapFiles files;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    std::string rules_txt = "# Tiled automapping rules written by tilegen export-rules from " +
                            std::filesystem::path(recipe.path).filename().string() +
                            ".\n# Paint layer 'classes' with classes.tsx tiles, then Map > "
                            "AutoMap.\n";
    for (const LayerRules& layer : layers) {
        // Least specific first, cut into runs of rules with the same target weights: one rule
        // map each (every output layer of a map has a tile in every rule, as Tiled before 1.9
        // needs, which picks an output index among all of a map's).
        std::vector<std::vector<std::size_t>> runs;
        for (std::size_t i = layer.ordered.size(); i-- > 0;) {
            if (runs.empty() ||
                signature(layer.resolved[runs.back().back()]) != signature(layer.resolved[i]))
                runs.emplace_back();
            runs.back().push_back(i);
        }
        if (runs.empty()) runs.emplace_back();
        for (std::size_t r = 0; r < runs.size(); ++r) {
            char number[24]; // "-" and up to 20 digits
            std::snprintf(number, sizeof number, "-%03zu", r + 1);
            const std::string file =
                "rules-" + layer.name + (runs.size() > 1 ? number : "") + ".tmx";
            rules_txt += file + "\n";
            files.texts.emplace_back(
                file, rule_map(recipe, layer, atlas, tileset_stem + ".tsx", runs[r]));
        }
    }
    files.texts.emplace_back("rules.txt", rules_txt);
    files.texts.emplace_back("classes.tsx", classes_tsx(recipe, tw, th));
    files.texts.emplace_back("automap.tsx", automap_tsx(tw, th));
    files.texts.emplace_back(tileset_stem + ".tsx",
                             tsx_text(atlas, tileset_stem, tileset_stem + "-tiles.png"));
    files.images.emplace_back("classes.png", swatches(class_colors(recipe), tw, th));
    files.images.emplace_back("automap.png", swatches({0xffffff, 0x202020}, tw, th));
    files.images.emplace_back(tileset_stem + "-tiles.png", atlas.image);
    return files;
}

std::string automap_example_map(const Recipe& recipe, const std::vector<LayerRules>& layers,
                                const Atlas& atlas, const std::string& tileset_stem,
                                const ClassGrid& classes) {
    const int n = static_cast<int>(recipe.terrain.size());
    const int w = classes.width(), h = classes.height();
    std::string out = map_open(w, h, atlas.tile_width, atlas.tile_height,
                               static_cast<int>(layers.size()) + 2, "");
    out += tileset_ref(1, "classes.tsx");
    out += tileset_ref(n + 1, tileset_stem + ".tsx");
    Grid<Gid> g(w, h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            g(x, y) = static_cast<Gid>(classes(x, y)) + 1;
    int id = 1;
    out += layer_xml(id++, "classes", g);
    const Grid<Gid> empty(w, h, 0);
    for (const LayerRules& l : layers)
        out += layer_xml(id++, l.name, empty);
    return out + "</map>\n";
}

bool write_automap_files(const std::filesystem::path& dir, const AutomapFiles& files,
                         Diagnostics& diags) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        diags.push_back(error_at(dir.string(), 0, 0, "cannot create directory: " + ec.message()));
        return false;
    }
    for (const auto& [name, image] : files.images)
        if (!save_png(dir / name, image, diags)) return false;
    for (const auto& [name, text] : files.texts)
        if (!write_file_atomic(dir / name, text, diags)) return false;
    return true;
}

} // namespace tilegen::io
