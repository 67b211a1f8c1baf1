#include "io/class_map_reader.hpp"

#include <filesystem>
#include <map>

#include <tinyxml2.h>

#include "core/classes/class_map_text.hpp"
#include "io/files.hpp"
#include "io/layer_encoding.hpp"
#include "io/png.hpp"

namespace tilegen::io {

namespace fs = std::filesystem;

namespace {

std::optional<int> class_of_name(const Recipe& recipe, const std::string& s) {
    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
        if (recipe.terrain[i].name == s || (s.size() == 1 && recipe.terrain[i].symbol == s[0]))
            return static_cast<int>(i);
    return std::nullopt;
}

std::optional<ClassGrid> read_image_class_map(const fs::path& path, const Recipe& recipe,
                                              Diagnostics& diags) {
    auto image = load_image(path, diags);
    if (!image) return std::nullopt;
    std::map<std::uint32_t, int> by_color;
    std::string palette;
    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
        if (recipe.terrain[i].color) {
            by_color[*recipe.terrain[i].color] = static_cast<int>(i);
            char buf[16];
            std::snprintf(buf, sizeof buf, "#%06x", *recipe.terrain[i].color);
            palette += (palette.empty() ? "" : ", ") + recipe.terrain[i].name + " " + buf;
        }
    if (by_color.empty()) {
        diags.push_back(error_at(
            path.string(), 0, 0,
            "an image class map needs colours: give each [[terrain]] a color = \"#rrggbb\""));
        return std::nullopt;
    }
    ClassGrid grid(image->width(), image->height(), 0);
    for (int y = 0; y < image->height(); ++y)
        for (int x = 0; x < image->width(); ++x) {
            const Rgba p = image->get(x, y);
            const std::uint32_t rgb = (std::uint32_t{p.r} << 16) | (std::uint32_t{p.g} << 8) | p.b;
            auto it = by_color.find(rgb);
            if (it == by_color.end() || p.a != 255) {
                char buf[16];
                std::snprintf(buf, sizeof buf, "#%06x", rgb);
                diags.push_back(error_at(path.string(), 0, 0,
                                         "pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                                             ") is " + buf + (p.a != 255 ? " and not opaque" : "") +
                                             ", which is no terrain's color (" + palette + ")"));
                return std::nullopt;
            }
            grid(x, y) = static_cast<ClassId>(it->second);
        }
    return grid;
}

struct TilesetClasses {
    int firstgid = 1;
    std::map<int, int> class_of_tile; // local id -> class
};

// Reads tile -> class facts from a <tileset> element (inline or the root of a TSX).
void read_tileset_classes(const tinyxml2::XMLElement* ts, const Recipe& recipe,
                          TilesetClasses& out) {
    for (const auto* tile = ts->FirstChildElement("tile"); tile;
         tile = tile->NextSiblingElement("tile")) {
        const int id = tile->IntAttribute("id", -1);
        if (const auto* props = tile->FirstChildElement("properties"))
            for (const auto* p = props->FirstChildElement("property"); p;
                 p = p->NextSiblingElement("property")) {
                const char* name = p->Attribute("name");
                const char* value = p->Attribute("value");
                if (name && value && std::string(name) == "terrain")
                    if (auto c = class_of_name(recipe, value)) out.class_of_tile[id] = *c;
            }
    }
    // Wang sets: the colour a tile's Wang id shows most, when it names a class.
    if (const auto* sets = ts->FirstChildElement("wangsets"))
        for (const auto* set = sets->FirstChildElement("wangset"); set;
             set = set->NextSiblingElement("wangset")) {
            std::vector<std::optional<int>> colours{
                std::nullopt}; // wang colour indices are 1-based
            for (const auto* c = set->FirstChildElement("wangcolor"); c;
                 c = c->NextSiblingElement("wangcolor"))
                colours.push_back(c->Attribute("name") ? class_of_name(recipe, c->Attribute("name"))
                                                       : std::nullopt);
            for (const auto* wt = set->FirstChildElement("wangtile"); wt;
                 wt = wt->NextSiblingElement("wangtile")) {
                const int id = wt->IntAttribute("tileid", -1);
                const char* wangid = wt->Attribute("wangid");
                if (!wangid || out.class_of_tile.contains(id)) continue;
                std::map<int, int> votes;
                std::string part;
                for (const char* c = wangid;; ++c) {
                    if (*c == ',' || *c == '\0') {
                        const int index = std::atoi(part.c_str());
                        if (index > 0 && index < static_cast<int>(colours.size()) &&
                            colours[static_cast<std::size_t>(index)])
                            ++votes[*colours[static_cast<std::size_t>(index)]];
                        part.clear();
                        if (*c == '\0') break;
                    } else {
                        part += *c;
                    }
                }
                int best = -1, best_votes = 0;
                for (const auto& [cls, n] : votes)
                    if (n >= best_votes) best = cls, best_votes = n;
                if (best >= 0) out.class_of_tile[id] = best;
            }
        }
}

std::optional<ClassGrid> read_tmx_class_map(const fs::path& path, const std::string& layer_name,
                                            const Recipe& recipe, Diagnostics& diags) {
    const std::string name = path.string();
    auto text = read_file(path, diags);
    if (!text) return std::nullopt;
    tinyxml2::XMLDocument doc;
    if (doc.Parse(text->data(), text->size()) != tinyxml2::XML_SUCCESS) {
        diags.push_back(error_at(name, doc.ErrorLineNum(), 1,
                                 std::string("not well-formed XML: ") + doc.ErrorStr()));
        return std::nullopt;
    }
    const auto* map = doc.FirstChildElement("map");
    if (!map) {
        diags.push_back(error_at(name, 1, 1, "not a TMX map (no <map> element)"));
        return std::nullopt;
    }
    const bool infinite = map->IntAttribute("infinite", 0) != 0;
    std::vector<TilesetClasses> tilesets;
    for (const auto* ts = map->FirstChildElement("tileset"); ts;
         ts = ts->NextSiblingElement("tileset")) {
        TilesetClasses t;
        t.firstgid = ts->IntAttribute("firstgid", 1);
        if (const char* source = ts->Attribute("source")) {
            const fs::path tsx_path = path.parent_path() / source;
            auto tsx_text = read_file(tsx_path, diags);
            if (!tsx_text) {
                diags.back().file = name;
                diags.back().line = ts->GetLineNum();
                diags.back().column = 1;
                diags.back().message =
                    "tileset '" + std::string(source) + "': " + diags.back().message;
                return std::nullopt;
            }
            tinyxml2::XMLDocument tsx;
            if (tsx.Parse(tsx_text->data(), tsx_text->size()) != tinyxml2::XML_SUCCESS ||
                !tsx.FirstChildElement("tileset")) {
                diags.push_back(
                    error_at(tsx_path.string(), tsx.ErrorLineNum(), 1, "not a TSX tileset"));
                return std::nullopt;
            }
            read_tileset_classes(tsx.FirstChildElement("tileset"), recipe, t);
        } else {
            read_tileset_classes(ts, recipe, t);
        }
        tilesets.push_back(std::move(t));
    }
    const tinyxml2::XMLElement* layer = nullptr;
    for (const auto* l = map->FirstChildElement("layer"); l; l = l->NextSiblingElement("layer"))
        if (layer_name.empty() || (l->Attribute("name") && layer_name == l->Attribute("name"))) {
            layer = l;
            break;
        }
    if (!layer) {
        diags.push_back(error_at(name, map->GetLineNum(), 1,
                                 layer_name.empty()
                                     ? "the map has no tile layer"
                                     : "the map has no tile layer '" + layer_name + "'"));
        return std::nullopt;
    }
    const auto* data = layer->FirstChildElement("data");
    if (!data) {
        diags.push_back(error_at(name, layer->GetLineNum(), 1, "tile layer has no <data>"));
        return std::nullopt;
    }
    const std::string encoding = data->Attribute("encoding") ? data->Attribute("encoding") : "";
    const std::string compression =
        data->Attribute("compression") ? data->Attribute("compression") : "";
    // Gather (x, y, w, h, gids) blocks: the whole layer, or its chunks.
    struct Block {
        int x, y, w, h;
        std::vector<Gid> gids;
    };
    std::vector<Block> blocks;
    auto decode = [&](const tinyxml2::XMLElement* e, int x, int y, int w, int h) {
        if (w >= 1 && h >= 1 && static_cast<std::int64_t>(w) * h > (std::int64_t{1} << 28)) {
            diags.push_back(
                error_at(name, e->GetLineNum(), 1,
                         "layer of " + std::to_string(w) + "x" + std::to_string(h) +
                             " cells is too large for a class map (at most 2^28 cells)"));
            return false;
        }
        if (w < 1 || h < 1 || w > 65536 || h > 65536) {
            diags.push_back(error_at(name, e->GetLineNum(), 1, "bad layer or chunk size"));
            return false;
        }
        auto gids = decode_layer(e->GetText() ? e->GetText() : "", encoding, compression,
                                 static_cast<std::size_t>(w) * static_cast<std::size_t>(h), diags,
                                 name, e->GetLineNum(), 1);
        if (!gids) return false;
        blocks.push_back({x, y, w, h, std::move(*gids)});
        return true;
    };
    if (infinite) {
        for (const auto* c = data->FirstChildElement("chunk"); c;
             c = c->NextSiblingElement("chunk"))
            if (!decode(c, c->IntAttribute("x"), c->IntAttribute("y"), c->IntAttribute("width"),
                        c->IntAttribute("height")))
                return std::nullopt;
        if (blocks.empty()) {
            diags.push_back(error_at(name, data->GetLineNum(), 1, "infinite layer has no chunks"));
            return std::nullopt;
        }
    } else if (!decode(data, 0, 0, layer->IntAttribute("width", map->IntAttribute("width")),
                       layer->IntAttribute("height", map->IntAttribute("height")))) {
        return std::nullopt;
    }
    std::int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = INT64_MIN, y1 = INT64_MIN;
    for (const Block& b : blocks) {
        x0 = std::min<std::int64_t>(x0, b.x);
        y0 = std::min<std::int64_t>(y0, b.y);
        x1 = std::max<std::int64_t>(x1, std::int64_t{b.x} + b.w);
        y1 = std::max<std::int64_t>(y1, std::int64_t{b.y} + b.h);
    }
    if (x1 - x0 > 65536 || y1 - y0 > 65536) {
        diags.push_back(error_at(name, data->GetLineNum(), 1,
                                 "the layer spans " + std::to_string(x1 - x0) + "x" +
                                     std::to_string(y1 - y0) +
                                     " cells, more than 65536 on a side"));
        return std::nullopt;
    }
    ClassGrid grid(static_cast<int>(x1 - x0), static_cast<int>(y1 - y0), 0);
    Grid<std::uint8_t> filled(static_cast<int>(x1 - x0), static_cast<int>(y1 - y0), 0);
    for (const Block& b : blocks)
        for (int y = 0; y < b.h; ++y)
            for (int x = 0; x < b.w; ++x) {
                const Gid gid = b.gids[static_cast<std::size_t>(y * b.w + x)] & ~kFlipMask;
                if (gid == 0) continue;
                const TilesetClasses* ts = nullptr;
                for (const auto& t : tilesets)
                    if (static_cast<Gid>(t.firstgid) <= gid && (!ts || t.firstgid > ts->firstgid))
                        ts = &t;
                std::optional<int> cls;
                if (ts)
                    if (auto it = ts->class_of_tile.find(static_cast<int>(gid) - ts->firstgid);
                        it != ts->class_of_tile.end())
                        cls = it->second;
                if (!cls) {
                    diags.push_back(error_at(
                        name, data->GetLineNum(), 1,
                        "cell (" + std::to_string(b.x + x) + ", " + std::to_string(b.y + y) +
                            ") has tile " + std::to_string(gid) +
                            ", which has no 'terrain' property or Wang colour naming a class"));
                    return std::nullopt;
                }
                const int gx = static_cast<int>(b.x + x - x0), gy = static_cast<int>(b.y + y - y0);
                grid(gx, gy) = static_cast<ClassId>(*cls);
                filled(gx, gy) = 1;
            }
    for (int y = 0; y < grid.height(); ++y)
        for (int x = 0; x < grid.width(); ++x)
            if (!filled(x, y)) {
                diags.push_back(error_at(name, data->GetLineNum(), 1,
                                         "cell (" + std::to_string(x + x0) + ", " +
                                             std::to_string(y + y0) +
                                             ") is empty: every cell of a class map needs a tile"));
                return std::nullopt;
            }
    return grid;
}

} // namespace

std::optional<ClassGrid> read_class_map(const std::string& spec, const Recipe& recipe,
                                        Diagnostics& diags) {
    // FILE.tmx:LAYER
    std::string file = spec, layer;
    if (auto colon = spec.rfind(':');
        colon != std::string::npos && spec.substr(0, colon).ends_with(".tmx")) {
        file = spec.substr(0, colon);
        layer = spec.substr(colon + 1);
    }
    const fs::path path(file);
    std::string ext = path.extension().string();
    for (char& c : ext)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".tmx") return read_tmx_class_map(path, layer, recipe, diags);
    if (ext == ".png" || ext == ".bmp" || ext == ".tga" || ext == ".gif")
        return read_image_class_map(path, recipe, diags);
    auto text = read_file(path, diags);
    if (!text) return std::nullopt;
    SymbolTable symbols;
    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
        symbols[recipe.terrain[i].symbol] = static_cast<int>(i);
    return parse_class_map(*text, path.string(), symbols, diags);
}

} // namespace tilegen::io
