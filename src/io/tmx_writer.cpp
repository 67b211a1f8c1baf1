#include "io/tmx_writer.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "core/json_writer.hpp"
#include "io/chunked_output.hpp"
#include "io/files.hpp"
#include "io/png.hpp"
#include "io/xml_text.hpp"

namespace tilegen::io {

namespace {

constexpr char kDataMarker[] = "\x01"; // TMJ: where a layer's data goes

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::size_t object_count(const Map& map) {
    std::size_t n = 0;
    for (const auto& l : map.object_layers)
        n += l.objects.size();
    return n;
}

// Per-tile facts written into both TSX and TSJ.
struct TileFacts {
    std::string name;
    char terrain = 0;
    double probability = 1;
    bool any() const { return !name.empty() || terrain || probability != 1; }
};

TileFacts facts_of(const Atlas& atlas, int i) {
    TileFacts f;
    const auto u = static_cast<std::size_t>(i);
    f.name = atlas.names[u];
    if (u < atlas.terrain.size()) f.terrain = atlas.terrain[u];
    if (u < atlas.probability.size()) f.probability = atlas.probability[u];
    return f;
}

// The <object> lines of one object layer, ids from first_id, formatted in chunks of a fixed number
// of objects on up to `threads` threads. Per sprite, the constant middle of the line (name, gid) is
// made once.
void write_tmx_objects(ByteSink& sink, const Map& map, const ObjectLayer& layer, int first_id,
                       int sprite_firstgid, int threads) {
    constexpr std::size_t kObjectsPerChunk = 4096;
    std::vector<std::string> middle; // `" name="NAME" gid="GID" x="` per sprite
    std::size_t longest = 0;
    for (std::size_t s = 0; s < map.sprites.names.size(); ++s) {
        middle.push_back("\" name=\"" + xml_escape(map.sprites.names[s]) + "\" gid=\"" +
                         std::to_string(sprite_firstgid + static_cast<int>(s)) + "\" x=\"");
        longest = std::max(longest, middle.back().size());
    }
    const std::string tail = "\" width=\"" + std::to_string(map.sprites.sprite_width) +
                             "\" height=\"" + std::to_string(map.sprites.sprite_height) + "\"/>\n";
    constexpr std::string_view head = "  <object id=\"", y = "\" y=\"";
    const std::size_t line_bound = head.size() + 11 + longest + 11 + y.size() + 11 + tail.size();
    const std::vector<MapObject>& objects = layer.objects;
    auto put = [](char* p, std::string_view text) {
        std::memcpy(p, text.data(), text.size());
        return p + text.size();
    };
    detail::write_chunks_in_order(
        sink, (objects.size() + kObjectsPerChunk - 1) / kObjectsPerChunk,
        kObjectsPerChunk * line_bound, threads, [&](std::size_t chunk, char* p) {
            const std::size_t begin = chunk * kObjectsPerChunk,
                              end = std::min(objects.size(), begin + kObjectsPerChunk);
            for (std::size_t i = begin; i < end; ++i) {
                const MapObject& o = objects[i];
                p = put(p, head);
                p = detail::put_int(p, first_id + static_cast<int>(i));
                p = put(p, middle[static_cast<std::size_t>(o.sprite)]);
                p = detail::put_int(p, o.x);
                p = put(p, y);
                p = detail::put_int(p, o.y);
                p = put(p, tail);
            }
            return p;
        });
}

} // namespace

bool has_objects(const Map& map) {
    return object_count(map) > 0;
}

TmxBundlePaths tmx_bundle_paths(const std::filesystem::path& map_path) {
    TmxBundlePaths p;
    const std::string ext = map_path.extension().string();
    p.format = (ext == ".tmj" || ext == ".json") ? MapFormat::tmj : MapFormat::tmx;
    const std::string stem = map_path.stem().string();
    const char* tileset_ext = p.format == MapFormat::tmj ? ".tsj" : ".tsx";
    p.tmx = map_path;
    p.tsx = map_path;
    p.tsx.replace_filename(stem + tileset_ext);
    p.atlas = map_path;
    p.atlas.replace_filename(stem + "-tiles.png");
    p.objects_tsx = map_path;
    p.objects_tsx.replace_filename(stem + "-objects" + tileset_ext);
    p.objects_atlas = map_path;
    p.objects_atlas.replace_filename(stem + "-objects.png");
    return p;
}

// ----------------------------------------------------------------------------------------------------
// TMX / TSX

std::string tsx_text(const Atlas& atlas, const std::string& name, const std::string& image_file) {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<tileset version=\"1.8\" tiledversion=\"1.8.2\" name=\"" + xml_escape(name) +
           "\" tilewidth=\"" + std::to_string(atlas.tile_width) + "\" tileheight=\"" +
           std::to_string(atlas.tile_height) + "\" tilecount=\"" +
           std::to_string(atlas.tile_count()) + "\" columns=\"" + std::to_string(atlas.columns) +
           "\">\n";
    out += " <image source=\"" + xml_escape(image_file) + "\" width=\"" +
           std::to_string(atlas.image.width()) + "\" height=\"" +
           std::to_string(atlas.image.height()) + "\"/>\n";
    for (int i = 0; i < atlas.tile_count(); ++i) {
        const TileFacts f = facts_of(atlas, i);
        if (!f.any()) continue;
        out += " <tile id=\"" + std::to_string(i) + "\"";
        if (f.probability != 1) out += " probability=\"" + number_text(f.probability) + "\"";
        out += ">\n  <properties>\n";
        if (!f.name.empty())
            out += "   <property name=\"name\" value=\"" + xml_escape(f.name) + "\"/>\n";
        if (f.terrain)
            out += "   <property name=\"terrain\" value=\"" +
                   xml_escape(std::string(1, f.terrain)) + "\"/>\n";
        out += "  </properties>\n </tile>\n";
    }
    if (!atlas.wang.empty()) {
        out += " <wangsets>\n  <wangset name=\"terrains\" type=\"mixed\" tile=\"-1\">\n";
        for (std::size_t c = 0; c < atlas.wang_colors.size(); ++c) {
            char rgb[8];
            std::snprintf(rgb, sizeof rgb, "#%06x", atlas.wang_rgb[c]);
            out += "   <wangcolor name=\"" + xml_escape(atlas.wang_colors[c]) + "\" color=\"" +
                   rgb + "\" tile=\"-1\" probability=\"1\"/>\n";
        }
        for (std::size_t t = 0; t < atlas.wang.size(); ++t) {
            const auto& id = atlas.wang[t];
            if (id[0] == 0) continue;
            out += "   <wangtile tileid=\"" + std::to_string(t) + "\" wangid=\"";
            for (int k = 0; k < 8; ++k)
                out += (k ? "," : "") + std::to_string(id[static_cast<std::size_t>(k)]);
            out += "\"/>\n";
        }
        out += "  </wangset>\n </wangsets>\n";
    }
    out += "</tileset>\n";
    return out;
}

std::string sprites_tsx_text(const SpriteAtlas& sprites, const std::string& name,
                             const std::string& image_file) {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<tileset version=\"1.8\" tiledversion=\"1.8.2\" name=\"" + xml_escape(name) +
           "\" tilewidth=\"" + std::to_string(sprites.sprite_width) + "\" tileheight=\"" +
           std::to_string(sprites.sprite_height) + "\" tilecount=\"" +
           std::to_string(sprites.sprite_count()) + "\" columns=\"" +
           std::to_string(sprites.columns) + "\" objectalignment=\"bottomleft\">\n";
    out += " <image source=\"" + xml_escape(image_file) + "\" width=\"" +
           std::to_string(sprites.image.width()) + "\" height=\"" +
           std::to_string(sprites.image.height()) + "\"/>\n";
    for (int i = 0; i < sprites.sprite_count(); ++i) {
        const std::string& n = sprites.names[static_cast<std::size_t>(i)];
        if (n.empty()) continue;
        out += " <tile id=\"" + std::to_string(i) +
               "\">\n  <properties>\n   <property name=\"name\" value=\"" + xml_escape(n) +
               "\"/>\n  </properties>\n </tile>\n";
    }
    out += "</tileset>\n";
    return out;
}

void write_tmx(ByteSink& sink, const Map& map, const std::string& tsx_file,
               const std::string& objects_tsx_file, const MapOutputOptions& options) {
    // Small pieces gather in `out`, which goes to the sink before each layer's data and each
    // layer's objects.
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<map version=\"1.8\" tiledversion=\"1.8.2\" orientation=\"orthogonal\" "
           "renderorder=\"right-down\" width=\"" +
           std::to_string(map.width) + "\" height=\"" + std::to_string(map.height) +
           "\" tilewidth=\"" + std::to_string(map.atlas.tile_width) + "\" tileheight=\"" +
           std::to_string(map.atlas.tile_height) + "\" infinite=\"0\" nextlayerid=\"" +
           std::to_string(map.layers.size() + map.object_layers.size() + 1) + "\" nextobjectid=\"" +
           std::to_string(object_count(map) + 1) + "\">\n";
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
        out += " <layer id=\"" + std::to_string(id++) + "\" name=\"" + xml_escape(layer.name) +
               "\" width=\"" + std::to_string(map.width) + "\" height=\"" +
               std::to_string(map.height) + "\">\n";
        out += "  <data encoding=\"" + std::string(tmx_encoding_attribute(options.encoding)) + "\"";
        const std::string compression = tmx_compression_attribute(options.encoding);
        if (!compression.empty()) out += " compression=\"" + compression + "\"";
        out += ">";
        sink.write(out);
        out.clear();
        write_layer(sink, layer.tiles.cells(), map.width, options.encoding, options.threads);
        out += "</data>\n </layer>\n";
    }
    int object_id = 1;
    for (const ObjectLayer& layer : map.object_layers) {
        if (!objects) break;
        // draworder "index": Tiled draws in file order, which is tilegen's y-order.
        out += " <objectgroup id=\"" + std::to_string(id++) + "\" name=\"" +
               xml_escape(layer.name) + "\" draworder=\"index\">\n";
        sink.write(out);
        out.clear();
        write_tmx_objects(sink, map, layer, object_id, sprite_firstgid, options.threads);
        object_id += static_cast<int>(layer.objects.size());
        out += " </objectgroup>\n";
    }
    out += "</map>\n";
    sink.write(out);
}

std::string tmx_text(const Map& map, const std::string& tsx_file,
                     const std::string& objects_tsx_file, const MapOutputOptions& options) {
    StringSink sink;
    write_tmx(sink, map, tsx_file, objects_tsx_file, options);
    return std::move(sink.text);
}

// ----------------------------------------------------------------------------------------------------
// TMJ / TSJ

namespace {

void properties_json(JsonWriter& j, const std::vector<std::pair<std::string, std::string>>& props) {
    j.key("properties").begin_array();
    for (const auto& [name, value] : props) {
        j.begin_object();
        j.key("name").value(name).key("type").value("string").key("value").value(value);
        j.end_object();
    }
    j.end_array();
}

void tileset_header_json(JsonWriter& j, const std::string& name, const std::string& image,
                         int image_w, int image_h, int tile_w, int tile_h, int count, int columns) {
    j.key("columns").value(columns);
    j.key("image").value(image);
    j.key("imageheight").value(image_h);
    j.key("imagewidth").value(image_w);
    j.key("margin").value(0);
    j.key("name").value(name);
    j.key("spacing").value(0);
    j.key("tilecount").value(count);
    j.key("tiledversion").value("1.8.2");
    j.key("tileheight").value(tile_h);
    j.key("tilewidth").value(tile_w);
}

} // namespace

std::string tsj_text(const Atlas& atlas, const std::string& name, const std::string& image_file) {
    JsonWriter j;
    j.begin_object();
    tileset_header_json(j, name, image_file, atlas.image.width(), atlas.image.height(),
                        atlas.tile_width, atlas.tile_height, atlas.tile_count(), atlas.columns);
    j.key("tiles").begin_array();
    for (int i = 0; i < atlas.tile_count(); ++i) {
        const TileFacts f = facts_of(atlas, i);
        if (!f.any()) continue;
        j.begin_object();
        j.key("id").value(i);
        if (f.probability != 1) j.key("probability").value(f.probability);
        std::vector<std::pair<std::string, std::string>> props;
        if (!f.name.empty()) props.emplace_back("name", f.name);
        if (f.terrain) props.emplace_back("terrain", std::string(1, f.terrain));
        properties_json(j, props);
        j.end_object();
    }
    j.end_array();
    j.key("type").value("tileset");
    j.key("version").value("1.8");
    if (!atlas.wang.empty()) {
        j.key("wangsets").begin_array().begin_object();
        j.key("colors").begin_array();
        for (std::size_t c = 0; c < atlas.wang_colors.size(); ++c) {
            char rgb[8];
            std::snprintf(rgb, sizeof rgb, "#%06x", atlas.wang_rgb[c]);
            j.begin_object().key("color").value(rgb).key("name").value(atlas.wang_colors[c]);
            j.key("probability").value(1).key("tile").value(-1).end_object();
        }
        j.end_array();
        j.key("name").value("terrains").key("tile").value(-1).key("type").value("mixed");
        j.key("wangtiles").begin_array();
        for (std::size_t t = 0; t < atlas.wang.size(); ++t) {
            const auto& id = atlas.wang[t];
            if (id[0] == 0) continue;
            j.begin_object()
                .key("tileid")
                .value(static_cast<std::uint64_t>(t))
                .key("wangid")
                .begin_array();
            for (auto v : id)
                j.value(static_cast<int>(v));
            j.end_array().end_object();
        }
        j.end_array().end_object().end_array();
    }
    j.end_object();
    return j.str() + "\n";
}

std::string sprites_tsj_text(const SpriteAtlas& sprites, const std::string& name,
                             const std::string& image_file) {
    JsonWriter j;
    j.begin_object();
    tileset_header_json(j, name, image_file, sprites.image.width(), sprites.image.height(),
                        sprites.sprite_width, sprites.sprite_height, sprites.sprite_count(),
                        sprites.columns);
    j.key("objectalignment").value("bottomleft");
    j.key("tiles").begin_array();
    for (int i = 0; i < sprites.sprite_count(); ++i) {
        const std::string& n = sprites.names[static_cast<std::size_t>(i)];
        if (n.empty()) continue;
        j.begin_object();
        j.key("id").value(i);
        properties_json(j, {{"name", n}});
        j.end_object();
    }
    j.end_array();
    j.key("type").value("tileset");
    j.key("version").value("1.8");
    j.end_object();
    return j.str() + "\n";
}

void write_tmj(ByteSink& sink, const Map& map, const std::string& tsj_file,
               const std::string& objects_tsj_file, const MapOutputOptions& options) {
    // The document is built without the layer data: each layer's "data" value is a marker byte
    // (\x01, which JSON text never holds raw: strings escape it), replaced by the streamed data
    // when the document is written.
    const bool objects = has_objects(map);
    const int sprite_firstgid = map.atlas.tile_count() + 1;
    JsonWriter j;
    j.begin_object();
    j.key("compressionlevel").value(-1);
    j.key("height").value(map.height);
    j.key("infinite").value(false);
    j.key("layers").begin_array();
    int id = 1;
    for (const TileLayer& layer : map.layers) {
        j.begin_object();
        const std::string compression = tmx_compression_attribute(options.encoding);
        if (!compression.empty()) j.key("compression").value(compression);
        j.key("data").raw(kDataMarker);
        if (options.encoding != LayerEncoding::csv) j.key("encoding").value("base64");
        j.key("height").value(map.height);
        j.key("id").value(id++);
        j.key("name").value(layer.name);
        j.key("opacity").value(1);
        j.key("type").value("tilelayer");
        j.key("visible").value(true);
        j.key("width").value(map.width);
        j.key("x").value(0);
        j.key("y").value(0);
        j.end_object();
    }
    int object_id = 1;
    for (const ObjectLayer& layer : map.object_layers) {
        if (!objects) break;
        j.begin_object();
        j.key("draworder").value("index");
        j.key("id").value(id++);
        j.key("name").value(layer.name);
        j.key("objects").begin_array();
        for (const MapObject& o : layer.objects) {
            j.begin_object();
            j.key("gid").value(sprite_firstgid + o.sprite);
            j.key("height").value(map.sprites.sprite_height);
            j.key("id").value(object_id++);
            j.key("name").value(map.sprites.names[static_cast<std::size_t>(o.sprite)]);
            j.key("rotation").value(0);
            j.key("type").value("");
            j.key("visible").value(true);
            j.key("width").value(map.sprites.sprite_width);
            j.key("x").value(o.x);
            j.key("y").value(o.y);
            j.end_object();
        }
        j.end_array();
        j.key("opacity").value(1);
        j.key("type").value("objectgroup");
        j.key("visible").value(true);
        j.key("x").value(0);
        j.key("y").value(0);
        j.end_object();
    }
    j.end_array();
    j.key("nextlayerid").value(id);
    j.key("nextobjectid").value(static_cast<std::uint64_t>(object_count(map) + 1));
    j.key("orientation").value("orthogonal");
    std::vector<std::pair<std::string, std::string>> props;
    for (const auto& p : map.properties)
        props.emplace_back(p.name, p.value);
    properties_json(j, props);
    j.key("renderorder").value("right-down");
    j.key("tiledversion").value("1.8.2");
    j.key("tileheight").value(map.atlas.tile_height);
    j.key("tilesets").begin_array();
    j.begin_object().key("firstgid").value(1).key("source").value(tsj_file).end_object();
    if (objects)
        j.begin_object()
            .key("firstgid")
            .value(sprite_firstgid)
            .key("source")
            .value(objects_tsj_file)
            .end_object();
    j.end_array();
    j.key("tilewidth").value(map.atlas.tile_width);
    j.key("type").value("map");
    j.key("version").value("1.8");
    j.key("width").value(map.width);
    j.end_object();
    const std::string_view text = j.str();
    std::size_t from = 0;
    for (const TileLayer& layer : map.layers) {
        const std::size_t at = text.find(kDataMarker[0], from);
        sink.write(text.substr(from, at - from));
        write_layer_json(sink, layer.tiles.cells(), map.width, options.encoding, options.threads);
        from = at + 1;
    }
    sink.write(text.substr(from));
    sink.write("\n");
}

std::string tmj_text(const Map& map, const std::string& tsj_file,
                     const std::string& objects_tsj_file, const MapOutputOptions& options) {
    StringSink sink;
    write_tmj(sink, map, tsj_file, objects_tsj_file, options);
    return std::move(sink.text);
}

bool write_tmx_bundle(const Map& map, const std::filesystem::path& map_path, Diagnostics& diags,
                      const MapOutputOptions& options) {
    const TmxBundlePaths paths = tmx_bundle_paths(map_path);
    const bool json = paths.format == MapFormat::tmj;
    const std::string stem = map_path.stem().string();
    if (!save_png(paths.atlas, map.atlas.image, diags)) return false;
    const bool objects = has_objects(map);
    if (objects) {
        const std::string image = paths.objects_atlas.filename().string();
        if (!save_png(paths.objects_atlas, map.sprites.image, diags) ||
            !write_file_atomic(paths.objects_tsx,
                               json ? sprites_tsj_text(map.sprites, stem + "-objects", image)
                                    : sprites_tsx_text(map.sprites, stem + "-objects", image),
                               diags))
            return false;
    }
    const std::string image = paths.atlas.filename().string();
    if (!write_file_atomic(
            paths.tsx, json ? tsj_text(map.atlas, stem, image) : tsx_text(map.atlas, stem, image),
            diags))
        return false;
    const std::string tsx = paths.tsx.filename().string(),
                      objects_tsx = paths.objects_tsx.filename().string();
    return write_file_atomic(
        paths.tmx,
        [&](ByteSink& sink) {
            if (json)
                write_tmj(sink, map, tsx, objects_tsx, options);
            else
                write_tmx(sink, map, tsx, objects_tsx, options);
        },
        diags);
}

} // namespace tilegen::io
