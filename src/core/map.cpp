#include "core/map.hpp"

#include <algorithm>

namespace tilegen {

void draw_tile(const Atlas& atlas, Gid gid, Image& out, int x, int y) {
    const int index = atlas_index_of(gid);
    if (gid == 0 || index < 0 || index >= atlas.tile_count()) return;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    const int sx0 = (index % atlas.columns) * tw, sy0 = (index / atlas.columns) * th;
    const bool fh = gid & kFlipHorizontal, fv = gid & kFlipVertical, fd = gid & kFlipDiagonal;
    for (int v = 0; v < th; ++v)
        for (int u = 0; u < tw; ++u) {
            // Tiled applies the diagonal flip first, then horizontal, then vertical: undo in
            // reverse.
            int a = fh ? tw - 1 - u : u;
            int b = fv ? th - 1 - v : v;
            if (fd) std::swap(a, b);
            if (a >= tw || b >= th) continue;
            out.set(x + u, y + v,
                    blend_over(atlas.image.get(sx0 + a, sy0 + b), out.get(x + u, y + v)));
        }
}

void draw_sprite(const SpriteAtlas& sprites, int index, Image& out, int x, int y) {
    if (index < 0 || index >= sprites.sprite_count()) return;
    const int sw = sprites.sprite_width, sh = sprites.sprite_height;
    const int sx0 = (index % sprites.columns) * sw, sy0 = (index / sprites.columns) * sh;
    const int u0 = std::max(0, -x), u1 = std::min(sw, out.width() - x);
    const int v0 = std::max(0, -y), v1 = std::min(sh, out.height() - y);
    for (int v = v0; v < v1; ++v)
        for (int u = u0; u < u1; ++u)
            out.set(x + u, y + v,
                    blend_over(sprites.image.get(sx0 + u, sy0 + v), out.get(x + u, y + v)));
}

Image render_map(const Map& map) {
    const Atlas& atlas = map.atlas;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    Image out(map.width * tw, map.height * th);
    for (const TileLayer& layer : map.layers)
        for (int cy = 0; cy < map.height; ++cy)
            for (int cx = 0; cx < map.width; ++cx)
                draw_tile(atlas, layer.tiles(cx, cy), out, cx * tw, cy * th);
    for (const ObjectLayer& layer : map.object_layers)
        for (const MapObject& o : layer.objects)
            if (o.sprite >= 0)
                draw_sprite(map.sprites, o.sprite, out, o.x, o.y - map.sprites.sprite_height);
    return out;
}

int preview_factor(const Map& map, int max_side) {
    const long long full_w = static_cast<long long>(map.width) * map.atlas.tile_width,
                    full_h = static_cast<long long>(map.height) * map.atlas.tile_height;
    int factor = 1;
    while ((full_w + factor - 1) / factor > max_side || (full_h + factor - 1) / factor > max_side)
        ++factor;
    return factor;
}

Rgba reduced_preview_pixel(const Map& map, int factor, int x, int y) {
    const Atlas& atlas = map.atlas;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    const long long px = static_cast<long long>(x) * factor + factor / 2,
                    py = static_cast<long long>(y) * factor + factor / 2;
    const int cx = static_cast<int>(std::min(px / tw, static_cast<long long>(map.width - 1)));
    const int cy = static_cast<int>(std::min(py / th, static_cast<long long>(map.height - 1)));
    const int u = static_cast<int>(px % tw), v = static_cast<int>(py % th);
    Rgba c{};
    for (const TileLayer& layer : map.layers) {
        const Gid gid = layer.tiles(cx, cy);
        const int index = atlas_index_of(gid);
        if (gid == 0 || index < 0 || index >= atlas.tile_count()) continue;
        int a = (gid & kFlipHorizontal) ? tw - 1 - u : u;
        int b = (gid & kFlipVertical) ? th - 1 - v : v;
        if (gid & kFlipDiagonal) std::swap(a, b);
        c = blend_over(
            atlas.image.get((index % atlas.columns) * tw + a, (index / atlas.columns) * th + b), c);
    }
    return c;
}

Image render_map_preview(const Map& map, int max_side, int& factor) {
    factor = preview_factor(map, max_side);
    if (factor == 1) return render_map(map);
    const long long full_w = static_cast<long long>(map.width) * map.atlas.tile_width,
                    full_h = static_cast<long long>(map.height) * map.atlas.tile_height;
    const int w = static_cast<int>((full_w + factor - 1) / factor),
              h = static_cast<int>((full_h + factor - 1) / factor);
    Image out(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            out.set(x, y, reduced_preview_pixel(map, factor, x, y));
    return out;
}

} // namespace tilegen
