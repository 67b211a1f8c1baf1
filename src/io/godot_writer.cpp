// The Godot 4 writer (godot_writer.hpp); the format is described in docs/godot.md.
#include "io/godot_writer.hpp"

#include <array>
#include <cstdio>

#include "io/files.hpp"
#include "io/png.hpp"

namespace tilegen::io {

namespace fs = std::filesystem;

namespace {

// A Godot string literal: quoted, with " and \ escaped.
std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

// A node name: Godot refuses . : @ / " % in names.
std::string node_name(const std::string& s) {
    std::string out;
    for (char c : s)
        out += (c == '.' || c == ':' || c == '@' || c == '/' || c == '"' || c == '%') ? '_' : c;
    return out.empty() ? std::string("_") : out;
}

std::string colour_text(std::uint32_t rgb) {
    char buf[80];
    std::snprintf(buf, sizeof buf, "Color(%.6g, %.6g, %.6g, 1)", ((rgb >> 16) & 0xFF) / 255.0,
                  ((rgb >> 8) & 0xFF) / 255.0, (rgb & 0xFF) / 255.0);
    return buf;
}

// Tiled's Wang id order (top, top-right, right, ... top-left) as Godot's peering bits.
constexpr std::array<const char*, 8> kPeering = {
    "top_side",    "top_right_corner",   "right_side", "bottom_right_corner",
    "bottom_side", "bottom_left_corner", "left_side",  "top_left_corner"};

} // namespace

bool godot_writes_objects(const Map& map) {
    for (const ObjectLayer& layer : map.object_layers)
        for (const MapObject& o : layer.objects)
            if (o.sprite >= 0) return true;
    return false;
}

GodotPaths godot_paths(const fs::path& scene) {
    GodotPaths p;
    const std::string stem = scene.stem().string();
    p.scene = scene;
    p.tileset = scene.parent_path() / (stem + ".tres");
    p.tiles = scene.parent_path() / (stem + "-tiles.png");
    p.objects = scene.parent_path() / (stem + "-objects.png");
    return p;
}

std::optional<std::string> godot_unsupported(const Map& map) {
    if (map.width > 32768 || map.height > 32768)
        return "Godot's tile maps have 16-bit cell coordinates: at most 32768 cells a side, the "
               "map is " +
               std::to_string(map.width) + "x" + std::to_string(map.height);
    if (has_corner_layer(map) && (map.width > 32767 || map.height > 32767))
        return "Godot's tile maps have 16-bit cell coordinates: a map with a corner layer "
               "((width+1) x (height+1) cells) has at most 32767 cells a side, the map is " +
               std::to_string(map.width) + "x" + std::to_string(map.height);
    return std::nullopt;
}

std::string godot_tileset_text(const Map& map, std::span<const TerrainClass> terrain,
                               const fs::path& scene) {
    const Atlas& atlas = map.atlas;
    const GodotPaths paths = godot_paths(scene);
    std::string out = "[gd_resource type=\"TileSet\" load_steps=3 format=3]\n\n";
    out += "[ext_resource type=\"Texture2D\" path=" + quoted(paths.tiles.filename().string()) +
           " id=\"1_tiles\"]\n\n";
    out += "[sub_resource type=\"TileSetAtlasSource\" id=\"TileSetAtlasSource_tiles\"]\n";
    out += "texture = ExtResource(\"1_tiles\")\n";
    out += "texture_region_size = Vector2i(" + std::to_string(atlas.tile_width) + ", " +
           std::to_string(atlas.tile_height) + ")\n";
    const bool terrains = !atlas.wang.empty();
    for (int t = 0; t < atlas.tile_count(); ++t) {
        const std::string key =
            std::to_string(t % atlas.columns) + ":" + std::to_string(t / atlas.columns) + "/0";
        out += key + " = 0\n";
        const std::size_t ti = static_cast<std::size_t>(t);
        const char symbol = ti < atlas.terrain.size() ? atlas.terrain[ti] : 0;
        if (symbol != 0) out += key + "/custom_data_0 = " + quoted(std::string(1, symbol)) + "\n";
        if (!terrains || ti >= atlas.wang.size() || atlas.wang[ti][0] == 0) continue;
        const auto& id = atlas.wang[ti];
        // The tile's own terrain: its class, else the colour its Wang id shows most.
        int centre = -1;
        for (std::size_t c = 0; c < terrain.size(); ++c)
            if (terrain[c].symbol == symbol) centre = static_cast<int>(c);
        if (centre < 0) {
            std::array<int, 256> count{};
            for (std::uint8_t v : id)
                ++count[v];
            for (int v = 1; v < 256; ++v)
                if (count[static_cast<std::size_t>(v)] > 0 &&
                    (centre < 0 || count[static_cast<std::size_t>(v)] >
                                       count[static_cast<std::size_t>(centre + 1)]))
                    centre = v - 1;
        }
        out += key + "/terrain_set = 0\n";
        out += key + "/terrain = " + std::to_string(centre) + "\n";
        for (std::size_t k = 0; k < 8; ++k)
            if (id[k] != 0)
                out += key + "/terrains_peering_bit/" + kPeering[k] + " = " +
                       std::to_string(id[k] - 1) + "\n";
    }
    out += "\n[resource]\n";
    out += "tile_size = Vector2i(" + std::to_string(atlas.tile_width) + ", " +
           std::to_string(atlas.tile_height) + ")\n";
    if (terrains) {
        out += "terrain_set_0/mode = 0\n"; // match corners and sides
        for (std::size_t c = 0; c < atlas.wang_colors.size(); ++c) {
            const std::string t = "terrain_set_0/terrain_" + std::to_string(c);
            out += t + "/name = " + quoted(atlas.wang_colors[c]) + "\n";
            out += t + "/color = " + colour_text(atlas.wang_rgb[c]) + "\n";
        }
    }
    out += "custom_data_layer_0/name = \"terrain\"\n";
    out += "custom_data_layer_0/type = 4\n"; // Variant::STRING
    out += "sources/0 = SubResource(\"TileSetAtlasSource_tiles\")\n";
    return out;
}

std::string godot_scene_text(const Map& map, const fs::path& scene) {
    const GodotPaths paths = godot_paths(scene);
    const bool sprites = godot_writes_objects(map);
    std::string out = "[gd_scene load_steps=" + std::to_string(sprites ? 3 : 2) + " format=3]\n\n";
    out += "[ext_resource type=\"TileSet\" path=" + quoted(paths.tileset.filename().string()) +
           " id=\"1_tileset\"]\n";
    if (sprites)
        out +=
            "[ext_resource type=\"Texture2D\" path=" + quoted(paths.objects.filename().string()) +
            " id=\"2_objects\"]\n";
    out += "\n[node name=" + quoted(node_name(scene.stem().string())) + " type=\"Node2D\"]\n";
    for (const TileLayer& layer : map.layers) {
        out += "\n[node name=" + quoted(node_name(layer.name)) +
               " type=\"TileMapLayer\" parent=\".\"]\n";
        // A corner layer: (width+1) x (height+1) cells, half a tile up and left (as the TMX's
        // offsetx/offsety).
        if (layer.corner)
            out += "position = Vector2(" + std::to_string(-(map.atlas.tile_width / 2)) + ", " +
                   std::to_string(-(map.atlas.tile_height / 2)) + ")\n";
        std::string bytes = "0, 0";
        const auto put16 = [&bytes](unsigned v) {
            bytes += ", " + std::to_string(v & 0xFF) + ", " + std::to_string((v >> 8) & 0xFF);
        };
        for (int y = 0; y < layer.tiles.height(); ++y)
            for (int x = 0; x < layer.tiles.width(); ++x) {
                const Gid g = layer.tiles(x, y);
                if (g == 0) continue;
                const int index = atlas_index_of(g);
                unsigned alternative = 0;
                if (g & kFlipHorizontal) alternative |= kGodotFlipH;
                if (g & kFlipVertical) alternative |= kGodotFlipV;
                if (g & kFlipDiagonal) alternative |= kGodotTranspose;
                put16(static_cast<unsigned>(x));
                put16(static_cast<unsigned>(y));
                put16(0); // source 0
                put16(static_cast<unsigned>(index % map.atlas.columns));
                put16(static_cast<unsigned>(index / map.atlas.columns));
                put16(alternative);
            }
        out += "tile_map_data = PackedByteArray(" + bytes + ")\n";
        out += "tile_set = ExtResource(\"1_tileset\")\n";
    }
    const SpriteAtlas& sheet = map.sprites;
    for (const ObjectLayer& layer : map.object_layers) {
        if (layer.objects.empty()) continue;
        const std::string parent = node_name(layer.name);
        out += "\n[node name=" + quoted(parent) + " type=\"Node2D\" parent=\".\"]\n";
        out += "y_sort_enabled = true\n";
        for (std::size_t i = 0; i < layer.objects.size(); ++i) {
            const MapObject& o = layer.objects[i];
            const std::string base =
                layer.named.empty()
                    ? (o.sprite >= 0 ? sheet.names[static_cast<std::size_t>(o.sprite)] : "object")
                    : layer.named[i].name;
            const std::string name = node_name(base + "_" + std::to_string(i));
            std::string position =
                "position = Vector2(" + std::to_string(o.x) + ", " + std::to_string(o.y) + ")\n";
            // A place's properties as node metadata (ints and bools as such, else strings).
            if (!layer.named.empty())
                for (const MapProperty& p : layer.named[i].properties)
                    position += "metadata/" + node_name(p.name) + " = " +
                                (p.type == "int" || p.type == "bool" || p.type == "float"
                                     ? p.value
                                     : quoted(p.value)) +
                                "\n";
            if (o.sprite < 0) {
                out += "\n[node name=" + quoted(name) +
                       " type=\"Marker2D\" parent=" + quoted(parent) + "]\n" + position;
                continue;
            }
            out += "\n[node name=" + quoted(name) + " type=\"Sprite2D\" parent=" + quoted(parent) +
                   "]\n" + position;
            out += "texture = ExtResource(\"2_objects\")\n";
            out += "centered = false\n";
            out += "offset = Vector2(0, -" + std::to_string(sheet.sprite_height) + ")\n";
            out += "region_enabled = true\n";
            out += "region_rect = Rect2(" +
                   std::to_string((o.sprite % sheet.columns) * sheet.sprite_width) + ", " +
                   std::to_string((o.sprite / sheet.columns) * sheet.sprite_height) + ", " +
                   std::to_string(sheet.sprite_width) + ", " + std::to_string(sheet.sprite_height) +
                   ")\n";
        }
    }
    return out;
}

bool write_godot(const Map& map, std::span<const TerrainClass> terrain, const fs::path& scene,
                 Diagnostics& diags) {
    if (auto why = godot_unsupported(map)) {
        diags.push_back(error_at(scene.string(), 0, 0, *why));
        return false;
    }
    const GodotPaths paths = godot_paths(scene);
    if (!save_png(paths.tiles, map.atlas.image, diags)) return false;
    if (godot_writes_objects(map) && !save_png(paths.objects, map.sprites.image, diags))
        return false;
    if (!write_file_atomic(paths.tileset, godot_tileset_text(map, terrain, scene), diags))
        return false;
    return write_file_atomic(paths.scene, godot_scene_text(map, scene), diags);
}

} // namespace tilegen::io
