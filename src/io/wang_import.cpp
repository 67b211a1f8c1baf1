#include "io/wang_import.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "core/recipe/recipe.hpp"

namespace tilegen::io {

namespace {

using tinyxml2::XMLElement;

struct WangTile {
    int id = 0;
    std::array<int, 8> colors{}; // top, top-right, right, ..., top-left; 1-based, 0 = unset
    int centre = 0;              // 1-based colour
    int line = 0;
};

// Positions of the Wang id: edges at even indices (n e s w), corners at odd (ne se sw nw).
constexpr int kEdgeAt[4] = {0, 2, 4, 6};
// Neighbour offsets of positions 0..7 (top, top-right, right, ...).
constexpr int kOffset[8][2] = {{0, -1}, {1, -1}, {1, 0},  {1, 1},
                               {0, 1},  {-1, 1}, {-1, 0}, {-1, -1}};

std::string tile_name_of(const XMLElement* tile, int id) {
    if (tile)
        if (const auto* props = tile->FirstChildElement("properties"))
            for (const auto* p = props->FirstChildElement("property"); p;
                 p = p->NextSiblingElement("property"))
                if (const char* n = p->Attribute("name"); n && std::string(n) == "name")
                    if (const char* v = p->Attribute("value"); v && *v) {
                        std::string s = v;
                        std::replace(s.begin(), s.end(), ' ', '-');
                        return s;
                    }
    return "tile-" + std::to_string(id);
}

std::string property_of(const XMLElement* tile, const std::string& name) {
    if (tile)
        if (const auto* props = tile->FirstChildElement("properties"))
            for (const auto* p = props->FirstChildElement("property"); p;
                 p = p->NextSiblingElement("property"))
                if (const char* n = p->Attribute("name"); n && name == n)
                    if (const char* v = p->Attribute("value")) return v;
    return {};
}

// The blob convention holds with centre c: every edge of another colour has it on both corners.
bool blob_centre(const std::array<int, 8>& id, int c) {
    for (int e : kEdgeAt) {
        const int colour = id[static_cast<std::size_t>(e)];
        if (colour == 0 || colour == c) continue;
        for (int corner : {(e + 7) % 8, e + 1}) {
            const int k = id[static_cast<std::size_t>(corner)];
            if (k != 0 && k != colour) return false;
        }
    }
    return true;
}

std::string weight_text(double w) {
    char buf[40];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, w);
        if (std::strtod(buf, nullptr) == w) break;
    }
    return buf;
}

} // namespace

std::optional<WangImport> import_wang_rules(std::string_view tsx_text, const std::string& tsx_path,
                                            const Recipe* recipe, const std::string& wangset_name,
                                            const std::string& manifest_dir, Diagnostics& diags) {
    const std::size_t errors_before = diags.size();
    tinyxml2::XMLDocument doc;
    if (doc.Parse(tsx_text.data(), tsx_text.size()) != tinyxml2::XML_SUCCESS) {
        diags.push_back(error_at(tsx_path, doc.ErrorLineNum(), 1,
                                 std::string("malformed XML: ") + doc.ErrorStr()));
        return std::nullopt;
    }
    const XMLElement* ts = doc.FirstChildElement("tileset");
    if (!ts) {
        diags.push_back(error_at(tsx_path, 1, 1, "no <tileset> element"));
        return std::nullopt;
    }
    if (ts->IntAttribute("margin", 0) != 0 || ts->IntAttribute("spacing", 0) != 0 ||
        !ts->FirstChildElement("image")) {
        diags.push_back(error_at(tsx_path, ts->GetLineNum(), 1,
                                 "only tilesets of one image without margin or spacing can be "
                                 "imported (tilegen's tileset manifests have neither)"));
        return std::nullopt;
    }
    const XMLElement* set = nullptr;
    if (const auto* sets = ts->FirstChildElement("wangsets"))
        for (const auto* s = sets->FirstChildElement("wangset"); s;
             s = s->NextSiblingElement("wangset")) {
            const char* n = s->Attribute("name");
            if (wangset_name.empty() || (n && wangset_name == n)) {
                set = s;
                break;
            }
        }
    if (!set) {
        diags.push_back(error_at(tsx_path, ts->GetLineNum(), 1,
                                 wangset_name.empty()
                                     ? "the tileset has no Wang set"
                                     : "the tileset has no Wang set named '" + wangset_name + "'"));
        return std::nullopt;
    }

    // Colours -> symbols.
    std::vector<std::string> color_names;
    std::vector<int> color_lines;
    for (const auto* c = set->FirstChildElement("wangcolor"); c;
         c = c->NextSiblingElement("wangcolor")) {
        const char* n = c->Attribute("name");
        color_names.emplace_back(n ? n : "");
        color_lines.push_back(c->GetLineNum());
    }
    if (color_names.empty()) {
        diags.push_back(error_at(tsx_path, set->GetLineNum(), 1, "the Wang set has no colours"));
        return std::nullopt;
    }
    if (color_names.size() > 32) {
        diags.push_back(error_at(tsx_path, set->GetLineNum(), 1,
                                 "the Wang set has more than 32 colours (tilegen's class limit)"));
        return std::nullopt;
    }
    std::vector<char> symbol(color_names.size(), 0);
    std::set<char> used;
    for (std::size_t i = 0; i < color_names.size(); ++i) {
        if (recipe) {
            for (const auto& t : recipe->terrain)
                if (t.name == color_names[i]) symbol[i] = t.symbol;
            if (!symbol[i])
                diags.push_back(error_at(tsx_path, color_lines[i], 1,
                                         "Wang colour '" + color_names[i] + "' is no terrain of " +
                                             recipe->path));
            continue;
        }
        std::string candidates;
        if (!color_names[i].empty())
            candidates +=
                static_cast<char>(std::tolower(static_cast<unsigned char>(color_names[i][0])));
        candidates += "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        for (char c : candidates)
            if (is_valid_symbol(c) && !used.contains(c)) {
                symbol[i] = c;
                break;
            }
        used.insert(symbol[i]);
    }
    if (diags.size() > errors_before) return std::nullopt;
    // A corner set (Tiled's type "corner": colours on the tile's corners only) becomes a corner
    // layer: each tile sits where four cells meet and its corner colours are those cells.
    const char* set_type = set->Attribute("type");
    const bool corner_set = set_type && std::string_view(set_type) == "corner";
    auto colour_of_terrain = [&](const std::string& v) -> int {
        for (std::size_t i = 0; i < color_names.size(); ++i)
            if (color_names[i] == v || (v.size() == 1 && symbol[i] == v[0]))
                return static_cast<int>(i) + 1;
        return 0;
    };

    std::map<int, const XMLElement*> tile_elements;
    for (const auto* t = ts->FirstChildElement("tile"); t; t = t->NextSiblingElement("tile"))
        tile_elements[t->IntAttribute("id", -1)] = t;
    auto element_of = [&](int id) -> const XMLElement* {
        auto it = tile_elements.find(id);
        return it == tile_elements.end() ? nullptr : it->second;
    };

    std::vector<WangTile> tiles;
    const int ncolors = static_cast<int>(color_names.size());
    for (const auto* w = set->FirstChildElement("wangtile"); w;
         w = w->NextSiblingElement("wangtile")) {
        WangTile t;
        t.id = w->IntAttribute("tileid", -1);
        t.line = w->GetLineNum();
        const char* text = w->Attribute("wangid");
        std::vector<int> values;
        bool ok = text && t.id >= 0;
        if (ok) {
            std::string s = text;
            std::size_t start = 0;
            while (ok) {
                const std::size_t comma = s.find(',', start);
                const std::string part = s.substr(start, comma - start);
                char* end = nullptr;
                const long v = std::strtol(part.c_str(), &end, 10);
                ok = !part.empty() && end && *end == 0 && v >= 0 && v <= ncolors;
                values.push_back(static_cast<int>(v));
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
            ok = ok && values.size() == 8;
        }
        if (!ok) {
            diags.push_back(error_at(
                tsx_path, t.line, 1,
                "bad <wangtile>: needs tileid >= 0 and wangid of 8 comma-separated colours 0.." +
                    std::to_string(ncolors)));
            continue;
        }
        std::copy(values.begin(), values.end(), t.colors.begin());
        if (corner_set) { // no centre: the tile stands on the corner, between four cells
            tiles.push_back(t);
            continue;
        }
        const std::string terrain = property_of(element_of(t.id), "terrain");
        if (!terrain.empty()) t.centre = colour_of_terrain(terrain);
        if (!t.centre) {
            std::vector<int> fits;
            for (int c = 1; c <= ncolors; ++c) {
                const bool shown = std::find(values.begin(), values.end(), c) != values.end();
                if (shown && blob_centre(t.colors, c)) fits.push_back(c);
            }
            if (fits.size() == 1) t.centre = fits[0];
        }
        if (!t.centre) {
            diags.push_back(error_at(tsx_path, t.line, 1,
                                     "cannot tell which colour tile " + std::to_string(t.id) +
                                         " stands on: give it a 'terrain' property"));
            continue;
        }
        tiles.push_back(t);
    }
    if (diags.size() > errors_before) return std::nullopt;
    if (tiles.empty()) {
        diags.push_back(error_at(tsx_path, set->GetLineNum(), 1, "the Wang set has no tiles"));
        return std::nullopt;
    }

    // Lower colours of each centre.
    std::vector<std::set<int>> lower(static_cast<std::size_t>(ncolors) + 1);
    for (const auto& t : tiles)
        for (int c : t.colors)
            if (!corner_set && c && c != t.centre)
                lower[static_cast<std::size_t>(t.centre)].insert(c);

    auto sym = [&](int c) { return std::string(1, symbol[static_cast<std::size_t>(c - 1)]); };
    // Rules in tile order; equal patterns gather their tiles.
    std::vector<std::string> patterns;
    std::vector<std::vector<std::pair<std::string, double>>> targets;
    // A corner tile's 2x2 pattern: its top-left, top-right, bottom-left and bottom-right colours
    // (Wang id positions 7, 1, 5 and 3; 0, unset, is `?`).
    auto corner_pattern = [&](const WangTile& t) {
        auto at = [&](int pos) {
            const int colour = t.colors[static_cast<std::size_t>(pos)];
            return colour ? sym(colour) : std::string("?");
        };
        return at(7) + at(1) + " " + at(5) + at(3);
    };
    for (const auto& t : tiles) {
        const bool plain = !corner_set && std::all_of(t.colors.begin(), t.colors.end(), [&](int c) {
            return c == 0 || c == t.centre;
        });
        std::string pattern;
        if (corner_set) {
            pattern = corner_pattern(t);
        } else if (plain) {
            pattern = sym(t.centre);
        } else {
            std::string cell[3][3];
            for (auto& row : cell)
                for (auto& c : row)
                    c = "?";
            cell[1][1] = sym(t.centre);
            for (int pos = 0; pos < 8; ++pos) {
                const int colour = t.colors[static_cast<std::size_t>(pos)];
                std::string& c = cell[1 + kOffset[pos][1]][1 + kOffset[pos][0]];
                if (colour == 0) continue;
                if (pos % 2 == 0) { // an edge
                    if (colour != t.centre)
                        c = sym(colour);
                    else if (!lower[static_cast<std::size_t>(t.centre)].empty()) {
                        c = "[!";
                        for (int l : lower[static_cast<std::size_t>(t.centre)])
                            c += sym(l);
                        c += "]";
                    }
                } else { // a corner: only between two edges of the centre
                    const int a = t.colors[static_cast<std::size_t>(pos - 1)];
                    const int b = t.colors[static_cast<std::size_t>((pos + 1) % 8)];
                    if (colour != t.centre && (a == t.centre || a == 0) &&
                        (b == t.centre || b == 0))
                        c = sym(colour);
                }
            }
            for (int y = 0; y < 3; ++y) {
                if (y) pattern += ' ';
                for (int x = 0; x < 3; ++x)
                    pattern += cell[y][x];
            }
        }
        const XMLElement* el = element_of(t.id);
        const double probability = el ? el->DoubleAttribute("probability", 1.0) : 1.0;
        const auto it = std::find(patterns.begin(), patterns.end(), pattern);
        if (it == patterns.end()) {
            patterns.push_back(pattern);
            targets.push_back({{tile_name_of(el, t.id), probability}});
        } else {
            targets[static_cast<std::size_t>(it - patterns.begin())].emplace_back(
                tile_name_of(el, t.id), probability);
        }
    }

    WangImport out;
    out.tiles = static_cast<int>(tiles.size());
    out.rule_count = static_cast<int>(patterns.size());
    const std::string file = std::filesystem::path(tsx_path).filename().string();
    out.rules = "# Rules read from the Wang set of " + file +
                " by tilegen import-rules.\n# Classes (Wang colours):";
    for (std::size_t i = 0; i < color_names.size(); ++i)
        out.rules += std::string(" ") + symbol[i] + "=" + color_names[i];
    out.rules += corner_set
                     ? "\n# A corner layer (the Wang set's type is corner): each tile stands where "
                       "four cells meet,\n# its corners' colours the classes of those cells "
                       "(docs/rules.md, Corner layers).\n"
                     : "\n# A tile stands on its centre colour; a plain tile is its colour's "
                       "fallback.\n";
    std::size_t width = 0;
    for (const auto& p : patterns)
        width = std::max(width, p.size());
    for (std::size_t r = 0; r < patterns.size(); ++r) {
        std::string line = patterns[r];
        line += std::string(width + 3 - patterns[r].size(), ' ');
        for (std::size_t k = 0; k < targets[r].size(); ++k) {
            if (k) line += ' ';
            line += targets[r][k].first;
            if (targets[r][k].second != 1) line += "*" + weight_text(targets[r][k].second);
        }
        out.rules += line + "\n";
    }

    // The manifest: the tileset's image relative to the manifest's folder, every named tile.
    const XMLElement* image = ts->FirstChildElement("image");
    std::string image_path = image && image->Attribute("source") ? image->Attribute("source") : "";
    const auto tsx_dir = std::filesystem::absolute(std::filesystem::path(tsx_path)).parent_path();
    const auto man_dir = manifest_dir.empty() ? tsx_dir : std::filesystem::absolute(manifest_dir);
    if (!image_path.empty())
        image_path =
            (tsx_dir / image_path).lexically_normal().lexically_relative(man_dir).generic_string();
    out.manifest = "# Written by tilegen import-rules from " + file + ".\nimage = \"" + image_path +
                   "\"\ntile_width = " + std::to_string(ts->IntAttribute("tilewidth", 16)) +
                   "\ntile_height = " + std::to_string(ts->IntAttribute("tileheight", 16)) +
                   "\n\n[tiles]\n";
    std::set<std::string> named;
    for (const auto& t : tiles) {
        const std::string name = tile_name_of(element_of(t.id), t.id);
        if (named.insert(name).second)
            out.manifest += "\"" + name + "\" = " + std::to_string(t.id) + "\n";
    }
    return out;
}

} // namespace tilegen::io
