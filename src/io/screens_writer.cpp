#include "io/screens_writer.hpp"

#include <algorithm>

#include "io/files.hpp"

namespace tilegen::io {

std::pair<int, int> object_anchor_cell(const Map& map, const ObjectLayer& layer, std::size_t i) {
    const MapObject& m = layer.objects[i];
    const bool rectangle = !layer.named.empty() && m.sprite < 0;
    const int ax = rectangle ? m.x : m.x + map.sprites.sprite_width - 1;
    const int ay = rectangle ? m.y : m.y - 1;
    return {std::clamp(ax / map.atlas.tile_width, 0, map.width - 1),
            std::clamp(ay / map.atlas.tile_height, 0, map.height - 1)};
}

Map screen_map(const Map& map, const ScreenCell& s) {
    Map out;
    out.width = s.width;
    out.height = s.height;
    out.atlas = map.atlas;
    out.sprites = map.sprites;
    out.properties = map.properties;
    out.properties.push_back(
        {"screen", "string", std::to_string(s.sx) + "," + std::to_string(s.sy)});
    for (const TileLayer& l : map.layers) {
        TileLayer t{l.name, Grid<Gid>(s.width, s.height, 0)};
        for (int y = 0; y < s.height; ++y)
            for (int x = 0; x < s.width; ++x)
                t.tiles(x, y) = l.tiles(s.x + x, s.y + y);
        out.layers.push_back(std::move(t));
    }
    const int tw = map.atlas.tile_width, th = map.atlas.tile_height;
    const int px = s.x * tw, py = s.y * th;
    for (const ObjectLayer& l : map.object_layers) {
        ObjectLayer o;
        o.name = l.name;
        for (std::size_t i = 0; i < l.objects.size(); ++i) {
            const MapObject& m = l.objects[i];
            const auto [cx, cy] = object_anchor_cell(map, l, i);
            if (cx < s.x || cy < s.y || cx >= s.x + s.width || cy >= s.y + s.height) continue;
            o.objects.push_back({m.sprite, m.x - px, m.y - py});
            if (!l.named.empty()) o.named.push_back(l.named[i]);
        }
        out.object_layers.push_back(std::move(o));
    }
    return out;
}

std::filesystem::path screen_path(const std::filesystem::path& map_path, int sx, int sy) {
    return map_path.parent_path() / (map_path.stem().string() + "-screen-" + std::to_string(sx) +
                                     "-" + std::to_string(sy) + map_path.extension().string());
}

std::filesystem::path world_path(const std::filesystem::path& map_path) {
    return map_path.parent_path() / (map_path.stem().string() + ".world");
}

std::string world_text(const std::vector<ScreenCell>& screens,
                       const std::filesystem::path& map_path, int tile_width, int tile_height) {
    std::string out = "{\n    \"maps\": [\n";
    for (std::size_t i = 0; i < screens.size(); ++i) {
        const ScreenCell& s = screens[i];
        out += "        {\"fileName\": \"" +
               screen_path(map_path, s.sx, s.sy).filename().generic_string() +
               "\", \"x\": " + std::to_string(s.x * tile_width) +
               ", \"y\": " + std::to_string(s.y * tile_height) +
               ", \"width\": " + std::to_string(s.width * tile_width) +
               ", \"height\": " + std::to_string(s.height * tile_height) + "}" +
               (i + 1 < screens.size() ? "," : "") + "\n";
    }
    return out + "    ],\n    \"onlyShowAdjacentMaps\": false,\n    \"type\": \"world\"\n}\n";
}

bool write_screens(const Map& map, const std::filesystem::path& map_path, int screen_w,
                   int screen_h, const MapOutputOptions& options, Diagnostics& diags) {
    const auto screens = screen_grid(map.width, map.height, screen_w, screen_h);
    for (const ScreenCell& s : screens) {
        const Map m = screen_map(map, s);
        // Named by the whole map's path: the screen uses its tilesets (X.tsx, X-objects.tsx).
        if (!write_file_atomic(
                screen_path(map_path, s.sx, s.sy),
                [&](ByteSink& sink) { write_map(sink, m, map_path, options); }, diags))
            return false;
    }
    return write_file_atomic(
        world_path(map_path),
        world_text(screens, map_path, map.atlas.tile_width, map.atlas.tile_height), diags);
}

} // namespace tilegen::io
