#include "io/tmx_writer.hpp"

#include <charconv>

#include "io/files.hpp"
#include "io/png.hpp"

namespace tilegen::io {

namespace {

std::string xml_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

void append_uint(std::string& out, std::uint32_t v) {
    char buf[16];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, end);
}

std::size_t object_count(const Map& map) {
    std::size_t n = 0;
    for (const auto& l : map.object_layers) n += l.objects.size();
    return n;
}

} // namespace

TmxBundlePaths tmx_bundle_paths(const std::filesystem::path& tmx_path) {
    TmxBundlePaths p;
    p.tmx = tmx_path;
    p.tsx = tmx_path;
    p.tsx.replace_extension(".tsx");
    p.atlas = tmx_path;
    p.atlas.replace_filename(tmx_path.stem().string() + "-tiles.png");
    p.objects_tsx = tmx_path;
    p.objects_tsx.replace_filename(tmx_path.stem().string() + "-objects.tsx");
    p.objects_atlas = tmx_path;
    p.objects_atlas.replace_filename(tmx_path.stem().string() + "-objects.png");
    return p;
}

std::string tsx_text(const Atlas& atlas, const std::string& name, const std::string& image_file) {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<tileset version=\"1.8\" tiledversion=\"1.8.2\" name=\"" + xml_escape(name) + "\" tilewidth=\"" +
           std::to_string(atlas.tile_width) + "\" tileheight=\"" + std::to_string(atlas.tile_height) +
           "\" tilecount=\"" + std::to_string(atlas.tile_count()) + "\" columns=\"" + std::to_string(atlas.columns) +
           "\">\n";
    out += " <image source=\"" + xml_escape(image_file) + "\" width=\"" + std::to_string(atlas.image.width()) +
           "\" height=\"" + std::to_string(atlas.image.height()) + "\"/>\n";
    for (int i = 0; i < atlas.tile_count(); ++i) {
        const std::string& n = atlas.names[static_cast<std::size_t>(i)];
        if (n.empty()) continue;
        out += " <tile id=\"" + std::to_string(i) + "\">\n  <properties>\n   <property name=\"name\" value=\"" +
               xml_escape(n) + "\"/>\n  </properties>\n </tile>\n";
    }
    out += "</tileset>\n";
    return out;
}

bool has_objects(const Map& map) {
    for (const auto& l : map.object_layers)
        if (!l.objects.empty()) return true;
    return false;
}

std::string sprites_tsx_text(const SpriteAtlas& sprites, const std::string& name, const std::string& image_file) {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<tileset version=\"1.8\" tiledversion=\"1.8.2\" name=\"" + xml_escape(name) + "\" tilewidth=\"" +
           std::to_string(sprites.sprite_width) + "\" tileheight=\"" + std::to_string(sprites.sprite_height) +
           "\" tilecount=\"" + std::to_string(sprites.sprite_count()) + "\" columns=\"" +
           std::to_string(sprites.columns) + "\" objectalignment=\"bottomleft\">\n";
    out += " <image source=\"" + xml_escape(image_file) + "\" width=\"" + std::to_string(sprites.image.width()) +
           "\" height=\"" + std::to_string(sprites.image.height()) + "\"/>\n";
    for (int i = 0; i < sprites.sprite_count(); ++i) {
        const std::string& n = sprites.names[static_cast<std::size_t>(i)];
        if (n.empty()) continue;
        out += " <tile id=\"" + std::to_string(i) + "\">\n  <properties>\n   <property name=\"name\" value=\"" +
               xml_escape(n) + "\"/>\n  </properties>\n </tile>\n";
    }
    out += "</tileset>\n";
    return out;
}

std::string tmx_text(const Map& map, const std::string& tsx_file, const std::string& objects_tsx_file) {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<map version=\"1.8\" tiledversion=\"1.8.2\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"" +
           std::to_string(map.width) + "\" height=\"" + std::to_string(map.height) + "\" tilewidth=\"" +
           std::to_string(map.atlas.tile_width) + "\" tileheight=\"" + std::to_string(map.atlas.tile_height) +
           "\" infinite=\"0\" nextlayerid=\"" + std::to_string(map.layers.size() + map.object_layers.size() + 1) +
           "\" nextobjectid=\"" + std::to_string(object_count(map) + 1) + "\">\n";
    if (!map.properties.empty()) {
        out += " <properties>\n";
        for (const auto& p : map.properties) {
            out += "  <property name=\"" + xml_escape(p.name) + "\"";
            if (p.type != "string") out += " type=\"" + xml_escape(p.type) + "\"";
            out += " value=\"" + xml_escape(p.value) + "\"/>\n";
        }
        out += " </properties>\n";
    }
    out += " <tileset firstgid=\"1\" source=\"" + xml_escape(tsx_file) + "\"/>\n";
    const bool objects = has_objects(map);
    const int sprite_firstgid = map.atlas.tile_count() + 1;
    if (objects)
        out += " <tileset firstgid=\"" + std::to_string(sprite_firstgid) + "\" source=\"" +
               xml_escape(objects_tsx_file) + "\"/>\n";
    int id = 1;
    for (const TileLayer& layer : map.layers) {
        out += " <layer id=\"" + std::to_string(id++) + "\" name=\"" + xml_escape(layer.name) + "\" width=\"" +
               std::to_string(map.width) + "\" height=\"" + std::to_string(map.height) + "\">\n";
        out += "  <data encoding=\"csv\">\n";
        out.reserve(out.size() + layer.tiles.size() * 4);
        for (int y = 0; y < map.height; ++y) {
            const Gid* row = layer.tiles.row(y);
            for (int x = 0; x < map.width; ++x) {
                append_uint(out, row[x]);
                if (x + 1 < map.width || y + 1 < map.height) out += ',';
            }
            out += '\n';
        }
        out += "</data>\n </layer>\n";
    }
    int object_id = 1;
    for (const ObjectLayer& layer : map.object_layers) {
        if (!objects) break;
        // draworder "index": Tiled draws in file order, which is tilegen's y-order.
        out += " <objectgroup id=\"" + std::to_string(id++) + "\" name=\"" + xml_escape(layer.name) +
               "\" draworder=\"index\">\n";
        for (const MapObject& o : layer.objects) {
            out += "  <object id=\"" + std::to_string(object_id++) + "\" name=\"" +
                   xml_escape(map.sprites.names[static_cast<std::size_t>(o.sprite)]) + "\" gid=\"";
            append_uint(out, static_cast<std::uint32_t>(sprite_firstgid + o.sprite));
            out += "\" x=\"" + std::to_string(o.x) + "\" y=\"" + std::to_string(o.y) + "\" width=\"" +
                   std::to_string(map.sprites.sprite_width) + "\" height=\"" + std::to_string(map.sprites.sprite_height) +
                   "\"/>\n";
        }
        out += " </objectgroup>\n";
    }
    out += "</map>\n";
    return out;
}

bool write_tmx_bundle(const Map& map, const std::filesystem::path& tmx_path, Diagnostics& diags) {
    const TmxBundlePaths paths = tmx_bundle_paths(tmx_path);
    if (!save_png(paths.atlas, map.atlas.image, diags)) return false;
    const bool objects = has_objects(map);
    if (objects && (!save_png(paths.objects_atlas, map.sprites.image, diags) ||
                    !write_file_atomic(paths.objects_tsx,
                                       sprites_tsx_text(map.sprites, tmx_path.stem().string() + "-objects",
                                                        paths.objects_atlas.filename().string()),
                                       diags)))
        return false;
    if (!write_file_atomic(paths.tsx, tsx_text(map.atlas, tmx_path.stem().string(), paths.atlas.filename().string()),
                           diags))
        return false;
    return write_file_atomic(paths.tmx,
                             tmx_text(map, paths.tsx.filename().string(), paths.objects_tsx.filename().string()), diags);
}

} // namespace tilegen::io
