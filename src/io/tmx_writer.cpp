#include "io/tmx_writer.hpp"

#include <algorithm>
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

constexpr char kDataMarker[] = "\x01"; // TMJ: where a layer's data (or chunks) goes

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

std::string rgb_text(std::uint32_t rgb) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%06x", rgb);
    return buf;
}

// The names a map at `map_path` gives its tilesets and their files (relative to the map).
struct TilesetNames {
    std::string name, file, image;                         // the ground atlas
    std::string objects_name, objects_file, objects_image; // the sprites
};

TilesetNames tileset_names(const std::filesystem::path& map_path) {
    const TmxBundlePaths paths = tmx_bundle_paths(map_path);
    const std::string stem = map_path.stem().string();
    return {stem,
            paths.tsx.filename().string(),
            paths.atlas.filename().string(),
            stem + "-objects",
            paths.objects_tsx.filename().string(),
            paths.objects_atlas.filename().string()};
}

// ----------------------------------------------------------------------------------------------
// Tilesets as XML: the root of a TSX file (`attributes` = version) or inside a map (`attributes` =
// firstgid, every line indented by `in`).

std::string atlas_tileset_xml(const Atlas& atlas, const std::string& name,
                              const std::string& image_file, const std::string& attributes,
                              const std::string& in) {
    std::string out = in + "<tileset" + attributes + " name=\"" + xml_escape(name) +
                      "\" tilewidth=\"" + std::to_string(atlas.tile_width) + "\" tileheight=\"" +
                      std::to_string(atlas.tile_height) + "\" tilecount=\"" +
                      std::to_string(atlas.image_tile_count()) + "\" columns=\"" +
                      std::to_string(atlas.columns) + "\">\n";
    out += in + " <image source=\"" + xml_escape(image_file) + "\" width=\"" +
           std::to_string(atlas.image.width()) + "\" height=\"" +
           std::to_string(atlas.image.height()) + "\"/>\n";
    for (int i = 0; i < atlas.tile_count(); ++i) {
        const TileFacts f = facts_of(atlas, i);
        if (!f.any()) continue;
        out += in + " <tile id=\"" + std::to_string(i) + "\"";
        if (f.probability != 1) out += " probability=\"" + number_text(f.probability) + "\"";
        out += ">\n" + in + "  <properties>\n";
        if (!f.name.empty())
            out += in + "   <property name=\"name\" value=\"" + xml_escape(f.name) + "\"/>\n";
        if (f.terrain)
            out += in + "   <property name=\"terrain\" value=\"" +
                   xml_escape(std::string(1, f.terrain)) + "\"/>\n";
        out += in + "  </properties>\n" + in + " </tile>\n";
    }
    if (!atlas.wang.empty()) {
        out += in + " <wangsets>\n" + in + "  <wangset name=\"terrains\" type=\"" +
               (atlas.wang_corner ? "corner" : "mixed") + "\" tile=\"-1\">\n";
        for (std::size_t c = 0; c < atlas.wang_colors.size(); ++c)
            out += in + "   <wangcolor name=\"" + xml_escape(atlas.wang_colors[c]) + "\" color=\"" +
                   rgb_text(atlas.wang_rgb[c]) + "\" tile=\"-1\" probability=\"1\"/>\n";
        for (std::size_t t = 0; t < atlas.wang.size(); ++t) {
            const auto& id = atlas.wang[t];
            if (id == std::array<std::uint8_t, 8>{}) continue;
            out += in + "   <wangtile tileid=\"" + std::to_string(t) + "\" wangid=\"";
            for (int k = 0; k < 8; ++k)
                out += (k ? "," : "") + std::to_string(id[static_cast<std::size_t>(k)]);
            out += "\"/>\n";
        }
        out += in + "  </wangset>\n" + in + " </wangsets>\n";
    }
    out += in + "</tileset>\n";
    return out;
}

std::string sprites_tileset_xml(const SpriteAtlas& sprites, const std::string& name,
                                const std::string& image_file, const std::string& attributes,
                                const std::string& in) {
    std::string out = in + "<tileset" + attributes + " name=\"" + xml_escape(name) +
                      "\" tilewidth=\"" + std::to_string(sprites.sprite_width) +
                      "\" tileheight=\"" + std::to_string(sprites.sprite_height) +
                      "\" tilecount=\"" + std::to_string(sprites.image_sprite_count()) +
                      "\" columns=\"" + std::to_string(sprites.columns) +
                      "\" objectalignment=\"bottomleft\">\n";
    out += in + " <image source=\"" + xml_escape(image_file) + "\" width=\"" +
           std::to_string(sprites.image.width()) + "\" height=\"" +
           std::to_string(sprites.image.height()) + "\"/>\n";
    for (int i = 0; i < sprites.sprite_count(); ++i) {
        const std::string& n = sprites.names[static_cast<std::size_t>(i)];
        if (n.empty()) continue;
        out += in + " <tile id=\"" + std::to_string(i) + "\">\n" + in + "  <properties>\n" + in +
               "   <property name=\"name\" value=\"" + xml_escape(n) + "\"/>\n" + in +
               "  </properties>\n" + in + " </tile>\n";
    }
    out += in + "</tileset>\n";
    return out;
}

constexpr char kXmlDeclaration[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
constexpr char kFileVersion[] = " version=\"1.8\" tiledversion=\"1.8.2\"";

std::string firstgid_attribute(int firstgid) {
    return " firstgid=\"" + std::to_string(firstgid) + "\"";
}

// ----------------------------------------------------------------------------------------------
// Tilesets as JSON: a TSJ file (firstgid 0) or an entry of a map's "tilesets" (firstgid > 0; as
// Tiled writes embedded tilesets: without tiledversion, type and version).

// Tiled's "properties" array; the value stays the text the property holds, "type" says how Tiled
// reads it.
void properties_json(JsonWriter& j, const std::vector<MapProperty>& props) {
    j.key("properties").begin_array();
    for (const MapProperty& p : props) {
        j.begin_object();
        j.key("name").value(p.name).key("type").value(p.type).key("value").value(p.value);
        j.end_object();
    }
    j.end_array();
}

void tileset_header_json(JsonWriter& j, int firstgid, const std::string& name,
                         const std::string& image, int image_w, int image_h, int tile_w, int tile_h,
                         int count, int columns) {
    j.key("columns").value(columns);
    if (firstgid > 0) j.key("firstgid").value(firstgid);
    j.key("image").value(image);
    j.key("imageheight").value(image_h);
    j.key("imagewidth").value(image_w);
    j.key("margin").value(0);
    j.key("name").value(name);
    j.key("spacing").value(0);
    j.key("tilecount").value(count);
    if (firstgid == 0) j.key("tiledversion").value("1.8.2");
    j.key("tileheight").value(tile_h);
    j.key("tilewidth").value(tile_w);
}

void tileset_footer_json(JsonWriter& j, int firstgid) {
    if (firstgid > 0) return;
    j.key("type").value("tileset");
    j.key("version").value("1.8");
}

void atlas_tileset_json(JsonWriter& j, const Atlas& atlas, const std::string& name,
                        const std::string& image_file, int firstgid) {
    j.begin_object();
    tileset_header_json(j, firstgid, name, image_file, atlas.image.width(), atlas.image.height(),
                        atlas.tile_width, atlas.tile_height, atlas.image_tile_count(),
                        atlas.columns);
    j.key("tiles").begin_array();
    for (int i = 0; i < atlas.tile_count(); ++i) {
        const TileFacts f = facts_of(atlas, i);
        if (!f.any()) continue;
        j.begin_object();
        j.key("id").value(i);
        if (f.probability != 1) j.key("probability").value(f.probability);
        std::vector<MapProperty> props;
        if (!f.name.empty()) props.push_back({"name", "string", f.name});
        if (f.terrain) props.push_back({"terrain", "string", std::string(1, f.terrain)});
        properties_json(j, props);
        j.end_object();
    }
    j.end_array();
    tileset_footer_json(j, firstgid);
    if (!atlas.wang.empty()) {
        j.key("wangsets").begin_array().begin_object();
        j.key("colors").begin_array();
        for (std::size_t c = 0; c < atlas.wang_colors.size(); ++c) {
            j.begin_object()
                .key("color")
                .value(rgb_text(atlas.wang_rgb[c]))
                .key("name")
                .value(atlas.wang_colors[c]);
            j.key("probability").value(1).key("tile").value(-1).end_object();
        }
        j.end_array();
        j.key("name")
            .value("terrains")
            .key("tile")
            .value(-1)
            .key("type")
            .value(atlas.wang_corner ? "corner" : "mixed");
        j.key("wangtiles").begin_array();
        for (std::size_t t = 0; t < atlas.wang.size(); ++t) {
            const auto& id = atlas.wang[t];
            if (id == std::array<std::uint8_t, 8>{}) continue;
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
}

void sprites_tileset_json(JsonWriter& j, const SpriteAtlas& sprites, const std::string& name,
                          const std::string& image_file, int firstgid) {
    j.begin_object();
    tileset_header_json(j, firstgid, name, image_file, sprites.image.width(),
                        sprites.image.height(), sprites.sprite_width, sprites.sprite_height,
                        sprites.image_sprite_count(), sprites.columns);
    j.key("objectalignment").value("bottomleft");
    j.key("tiles").begin_array();
    for (int i = 0; i < sprites.sprite_count(); ++i) {
        const std::string& n = sprites.names[static_cast<std::size_t>(i)];
        if (n.empty()) continue;
        j.begin_object();
        j.key("id").value(i);
        properties_json(j, {{"name", "string", n}});
        j.end_object();
    }
    j.end_array();
    tileset_footer_json(j, firstgid);
    j.end_object();
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

// Named objects (the "places" layer): name, type, gid when the object has a sprite (a rectangle
// otherwise), size and properties.
void write_tmx_named_objects(ByteSink& sink, const Map& map, const ObjectLayer& layer, int first_id,
                             int sprite_firstgid) {
    std::string out;
    for (std::size_t i = 0; i < layer.objects.size(); ++i) {
        const MapObject& o = layer.objects[i];
        const ObjectLayer::Named& n = layer.named[i];
        out += "  <object id=\"" + std::to_string(first_id + static_cast<int>(i)) + "\" name=\"" +
               xml_escape(n.name) + "\" type=\"" + xml_escape(n.type) + "\"";
        if (o.sprite >= 0) out += " gid=\"" + std::to_string(sprite_firstgid + o.sprite) + "\"";
        out += " x=\"" + std::to_string(o.x) + "\" y=\"" + std::to_string(o.y) + "\" width=\"" +
               std::to_string(o.sprite >= 0 ? map.sprites.sprite_width : n.width) + "\" height=\"" +
               std::to_string(o.sprite >= 0 ? map.sprites.sprite_height : n.height) + "\">\n";
        out += "   <properties>\n";
        for (const MapProperty& p : n.properties) {
            out += "    <property name=\"" + xml_escape(p.name) + "\"";
            if (p.type != "string") out += " type=\"" + xml_escape(p.type) + "\"";
            out += " value=\"" + xml_escape(p.value) + "\"/>\n";
        }
        out += "   </properties>\n  </object>\n";
    }
    sink.write(out);
}

// One map document. The parts both formats share are decided here once: the map and layer sizes
// (finite or infinite), layer and object ids, the tilesets and their firstgids, the chunk order.
class MapWriter {
  public:
    MapWriter(ByteSink& sink, const Map& map, const std::filesystem::path& map_path,
              const MapOutputOptions& options, const MapChunks* chunks)
        : sink_(sink), map_(map), options_(options), chunks_(chunks),
          format_(tmx_bundle_paths(map_path).format), names_(tileset_names(map_path)),
          objects_(has_objects(map)), sprite_firstgid_(map.atlas.image_tile_count() + 1),
          embedded_(options.tilesets == TilesetPlacement::embedded) {}

    void write() {
        if (format_ == MapFormat::tmj)
            write_tmj();
        else
            write_tmx();
    }

  private:
    // Infinite maps too: the size asked for (each layer declares the chunks' bounds).
    int map_width() const { return map_.width; }
    int map_height() const { return map_.height; }
    int layer_width() const { return chunks_ ? chunks_->region.width : map_.width; }
    int layer_height() const { return chunks_ ? chunks_->region.height : map_.height; }
    int next_layer_id() const {
        return static_cast<int>(map_.layers.size() + map_.object_layers.size() + 1);
    }

    // Calls f(area, gids) for each chunk of tile layer `layer`, by rows.
    template <class F> void for_each_chunk(std::size_t layer, F&& f) const {
        const int c = chunks_->chunk;
        const Region& r = chunks_->region;
        for (int y = r.y; y < r.y + r.height; y += c)
            for (int x = r.x; x < r.x + r.width; x += c) {
                const Region area{x, y, c, c};
                f(area, chunks_->gids(layer, area));
            }
    }

    void write_tmx() {
        // Small pieces gather in `out`, which goes to the sink before each piece of layer data
        // and each layer's objects.
        std::string out = kXmlDeclaration;
        out += "<map version=\"1.8\" tiledversion=\"1.8.2\" orientation=\"orthogonal\" "
               "renderorder=\"right-down\" width=\"" +
               std::to_string(map_width()) + "\" height=\"" + std::to_string(map_height()) +
               "\" tilewidth=\"" + std::to_string(map_.atlas.tile_width) + "\" tileheight=\"" +
               std::to_string(map_.atlas.tile_height) + "\" infinite=\"" + (chunks_ ? "1" : "0") +
               "\" nextlayerid=\"" + std::to_string(next_layer_id()) + "\" nextobjectid=\"" +
               std::to_string(object_count(map_) + 1) + "\">\n";
        if (!map_.properties.empty()) {
            out += " <properties>\n";
            for (const auto& p : map_.properties) {
                out += "  <property name=\"" + xml_escape(p.name) + "\"";
                if (p.type != "string") out += " type=\"" + xml_escape(p.type) + "\"";
                out += " value=\"" + xml_escape(p.value) + "\"/>\n";
            }
            out += " </properties>\n";
        }
        if (embedded_) {
            out += atlas_tileset_xml(map_.atlas, names_.name, names_.image, firstgid_attribute(1),
                                     " ");
            if (objects_)
                out += sprites_tileset_xml(map_.sprites, names_.objects_name, names_.objects_image,
                                           firstgid_attribute(sprite_firstgid_), " ");
        } else {
            out += " <tileset firstgid=\"1\" source=\"" + xml_escape(names_.file) + "\"/>\n";
            if (objects_)
                out += " <tileset firstgid=\"" + std::to_string(sprite_firstgid_) + "\" source=\"" +
                       xml_escape(names_.objects_file) + "\"/>\n";
        }
        int id = 1;
        const std::string compression = tmx_compression_attribute(options_.encoding);
        for (std::size_t li = 0; li < map_.layers.size(); ++li) {
            const bool corner = map_.layers[li].corner;
            out += " <layer id=\"" + std::to_string(id++) + "\" name=\"" +
                   xml_escape(map_.layers[li].name) + "\" width=\"" +
                   std::to_string(layer_width() + (corner ? 1 : 0)) + "\" height=\"" +
                   std::to_string(layer_height() + (corner ? 1 : 0)) + "\"";
            if (corner)
                out += " offsetx=\"" + std::to_string(-(map_.atlas.tile_width / 2)) +
                       "\" offsety=\"" + std::to_string(-(map_.atlas.tile_height / 2)) + "\"";
            out += ">\n";
            out += "  <data encoding=\"" + std::string(tmx_encoding_attribute(options_.encoding)) +
                   "\"";
            if (!compression.empty()) out += " compression=\"" + compression + "\"";
            out += ">";
            if (!chunks_) {
                sink_.write(out);
                out.clear();
                write_layer(sink_, map_.layers[li].tiles.cells(), map_.layers[li].tiles.width(),
                            options_.encoding, options_.threads);
            } else {
                out += "\n";
                for_each_chunk(li, [&](const Region& area, std::span<const Gid> gids) {
                    out += "   <chunk x=\"" + std::to_string(area.x) + "\" y=\"" +
                           std::to_string(area.y) + "\" width=\"" + std::to_string(area.width) +
                           "\" height=\"" + std::to_string(area.height) + "\">";
                    sink_.write(out);
                    out.clear();
                    write_layer(sink_, gids, area.width, options_.encoding, options_.threads);
                    out += "</chunk>\n";
                });
                out += "  ";
            }
            out += "</data>\n </layer>\n";
        }
        int object_id = 1;
        for (const ObjectLayer& layer : map_.object_layers) {
            if (!objects_) break;
            // draworder "index": Tiled draws in file order, which is tilegen's y-order.
            out += " <objectgroup id=\"" + std::to_string(id++) + "\" name=\"" +
                   xml_escape(layer.name) + "\" draworder=\"index\">\n";
            sink_.write(out);
            out.clear();
            if (layer.named.empty())
                write_tmx_objects(sink_, map_, layer, object_id, sprite_firstgid_,
                                  options_.threads);
            else
                write_tmx_named_objects(sink_, map_, layer, object_id, sprite_firstgid_);
            object_id += static_cast<int>(layer.objects.size());
            out += " </objectgroup>\n";
        }
        out += "</map>\n";
        sink_.write(out);
    }

    void write_tmj() {
        // The document is built without the layer data: each tile layer's "data" (finite) or
        // "chunks" (infinite) value is a marker byte (\x01, which JSON text never holds raw:
        // strings escape it), replaced by the streamed data when the document is written.
        JsonWriter j;
        j.begin_object();
        j.key("compressionlevel").value(-1);
        j.key("height").value(map_height());
        j.key("infinite").value(chunks_ != nullptr);
        j.key("layers").begin_array();
        int id = 1;
        const std::string compression = tmx_compression_attribute(options_.encoding);
        for (const TileLayer& layer : map_.layers) {
            j.begin_object();
            if (chunks_) j.key("chunks").raw(kDataMarker);
            if (!compression.empty()) j.key("compression").value(compression);
            if (!chunks_) j.key("data").raw(kDataMarker);
            if (options_.encoding != LayerEncoding::csv) j.key("encoding").value("base64");
            j.key("height").value(layer_height() + (layer.corner ? 1 : 0));
            j.key("id").value(id++);
            j.key("name").value(layer.name);
            if (layer.corner) {
                j.key("offsetx").value(-(map_.atlas.tile_width / 2));
                j.key("offsety").value(-(map_.atlas.tile_height / 2));
            }
            j.key("opacity").value(1);
            if (chunks_) {
                j.key("startx").value(chunks_->region.x);
                j.key("starty").value(chunks_->region.y);
            }
            j.key("type").value("tilelayer");
            j.key("visible").value(true);
            j.key("width").value(layer_width() + (layer.corner ? 1 : 0));
            j.key("x").value(0);
            j.key("y").value(0);
            j.end_object();
        }
        int object_id = 1;
        for (const ObjectLayer& layer : map_.object_layers) {
            if (!objects_) break;
            j.begin_object();
            j.key("draworder").value("index");
            j.key("id").value(id++);
            j.key("name").value(layer.name);
            j.key("objects").begin_array();
            for (std::size_t i = 0; i < layer.objects.size(); ++i) {
                const MapObject& o = layer.objects[i];
                const ObjectLayer::Named* n = layer.named.empty() ? nullptr : &layer.named[i];
                j.begin_object();
                if (o.sprite >= 0) j.key("gid").value(sprite_firstgid_ + o.sprite);
                j.key("height").value(o.sprite >= 0 ? map_.sprites.sprite_height : n->height);
                j.key("id").value(object_id++);
                j.key("name").value(n ? n->name
                                      : map_.sprites.names[static_cast<std::size_t>(o.sprite)]);
                if (n) properties_json(j, n->properties);
                j.key("rotation").value(0);
                j.key("type").value(n ? n->type : "");
                j.key("visible").value(true);
                j.key("width").value(o.sprite >= 0 ? map_.sprites.sprite_width : n->width);
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
        j.key("nextobjectid").value(static_cast<std::uint64_t>(object_count(map_) + 1));
        j.key("orientation").value("orthogonal");
        properties_json(j, map_.properties);
        j.key("renderorder").value("right-down");
        j.key("tiledversion").value("1.8.2");
        j.key("tileheight").value(map_.atlas.tile_height);
        j.key("tilesets").begin_array();
        if (embedded_) {
            atlas_tileset_json(j, map_.atlas, names_.name, names_.image, 1);
            if (objects_)
                sprites_tileset_json(j, map_.sprites, names_.objects_name, names_.objects_image,
                                     sprite_firstgid_);
        } else {
            j.begin_object().key("firstgid").value(1).key("source").value(names_.file).end_object();
            if (objects_)
                j.begin_object()
                    .key("firstgid")
                    .value(sprite_firstgid_)
                    .key("source")
                    .value(names_.objects_file)
                    .end_object();
        }
        j.end_array();
        j.key("tilewidth").value(map_.atlas.tile_width);
        j.key("type").value("map");
        j.key("version").value("1.8");
        j.key("width").value(map_width());
        j.end_object();

        const std::string_view text = j.str();
        std::size_t from = 0;
        for (std::size_t li = 0; li < map_.layers.size(); ++li) {
            const std::size_t at = text.find(kDataMarker[0], from);
            sink_.write(text.substr(from, at - from));
            if (!chunks_) {
                write_layer_json(sink_, map_.layers[li].tiles.cells(),
                                 map_.layers[li].tiles.width(), options_.encoding,
                                 options_.threads);
            } else {
                sink_.write("[");
                bool first = true;
                for_each_chunk(li, [&](const Region& area, std::span<const Gid> gids) {
                    sink_.write(first ? "{\"data\":" : ",{\"data\":");
                    first = false;
                    write_layer_json(sink_, gids, area.width, options_.encoding, options_.threads);
                    sink_.write(",\"height\":" + std::to_string(area.height) + ",\"width\":" +
                                std::to_string(area.width) + ",\"x\":" + std::to_string(area.x) +
                                ",\"y\":" + std::to_string(area.y) + "}");
                });
                sink_.write("]");
            }
            from = at + 1;
        }
        sink_.write(text.substr(from));
        sink_.write("\n");
    }

    ByteSink& sink_;
    const Map& map_;
    const MapOutputOptions& options_;
    const MapChunks* chunks_;
    MapFormat format_;
    TilesetNames names_;
    bool objects_;
    int sprite_firstgid_;
    bool embedded_;
};

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

std::string tsx_text(const Atlas& atlas, const std::string& name, const std::string& image_file) {
    return kXmlDeclaration + atlas_tileset_xml(atlas, name, image_file, kFileVersion, "");
}

std::string sprites_tsx_text(const SpriteAtlas& sprites, const std::string& name,
                             const std::string& image_file) {
    return kXmlDeclaration + sprites_tileset_xml(sprites, name, image_file, kFileVersion, "");
}

std::string tsj_text(const Atlas& atlas, const std::string& name, const std::string& image_file) {
    JsonWriter j;
    atlas_tileset_json(j, atlas, name, image_file, 0);
    return j.str() + "\n";
}

std::string sprites_tsj_text(const SpriteAtlas& sprites, const std::string& name,
                             const std::string& image_file) {
    JsonWriter j;
    sprites_tileset_json(j, sprites, name, image_file, 0);
    return j.str() + "\n";
}

void write_map(ByteSink& sink, const Map& map, const std::filesystem::path& map_path,
               const MapOutputOptions& options, const MapChunks* chunks) {
    MapWriter(sink, map, map_path, options, chunks).write();
}

std::string map_text(const Map& map, const std::filesystem::path& map_path,
                     const MapOutputOptions& options, const MapChunks* chunks) {
    StringSink sink;
    write_map(sink, map, map_path, options, chunks);
    return std::move(sink.text);
}

bool write_tmx_bundle(const Map& map, const std::filesystem::path& map_path, Diagnostics& diags,
                      const MapOutputOptions& options, const MapChunks* chunks) {
    const TmxBundlePaths paths = tmx_bundle_paths(map_path);
    const bool json = paths.format == MapFormat::tmj;
    const bool external = options.tilesets == TilesetPlacement::external;
    const TilesetNames names = tileset_names(map_path);
    if (!save_png(paths.atlas, map.atlas.image, diags)) return false;
    if (has_objects(map)) {
        if (!save_png(paths.objects_atlas, map.sprites.image, diags)) return false;
        if (external &&
            !write_file_atomic(
                paths.objects_tsx,
                json ? sprites_tsj_text(map.sprites, names.objects_name, names.objects_image)
                     : sprites_tsx_text(map.sprites, names.objects_name, names.objects_image),
                diags))
            return false;
    }
    if (external && !write_file_atomic(paths.tsx,
                                       json ? tsj_text(map.atlas, names.name, names.image)
                                            : tsx_text(map.atlas, names.name, names.image),
                                       diags))
        return false;
    return write_file_atomic(
        paths.tmx, [&](ByteSink& sink) { write_map(sink, map, map_path, options, chunks); }, diags);
}

} // namespace tilegen::io
