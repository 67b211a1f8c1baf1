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

void draw_tile_clipped(const Atlas& atlas, Gid gid, Image& out, int x, int y) {
    const int index = atlas_index_of(gid);
    if (gid == 0 || index < 0 || index >= atlas.tile_count()) return;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    const int sx0 = (index % atlas.columns) * tw, sy0 = (index / atlas.columns) * th;
    const bool fh = gid & kFlipHorizontal, fv = gid & kFlipVertical, fd = gid & kFlipDiagonal;
    const int u0 = std::max(0, -x), u1 = std::min(tw, out.width() - x);
    const int v0 = std::max(0, -y), v1 = std::min(th, out.height() - y);
    for (int v = v0; v < v1; ++v)
        for (int u = u0; u < u1; ++u) {
            int a = fh ? tw - 1 - u : u;
            int b = fv ? th - 1 - v : v;
            if (fd) std::swap(a, b);
            if (a >= tw || b >= th) continue;
            out.set(x + u, y + v,
                    blend_over(atlas.image.get(sx0 + a, sy0 + b), out.get(x + u, y + v)));
        }
}

bool has_corner_layer(const Map& map) {
    return std::any_of(map.layers.begin(), map.layers.end(),
                       [](const TileLayer& l) { return l.corner; });
}

int corner_margin_x(const Map& map) {
    return has_corner_layer(map) ? map.atlas.tile_width / 2 : 0;
}
int corner_margin_y(const Map& map) {
    return has_corner_layer(map) ? map.atlas.tile_height / 2 : 0;
}

Image render_map(const Map& map) {
    const Atlas& atlas = map.atlas;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    const int mx = corner_margin_x(map), my = corner_margin_y(map);
    Image out(map.width * tw + mx, map.height * th + my);
    for (const TileLayer& layer : map.layers) {
        if (layer.corner) {
            for (int j = 0; j <= map.height; ++j)
                for (int i = 0; i <= map.width; ++i)
                    draw_tile_clipped(atlas, layer.tiles(i, j), out, i * tw - tw / 2 + mx,
                                      j * th - th / 2 + my);
            continue;
        }
        for (int cy = 0; cy < map.height; ++cy)
            for (int cx = 0; cx < map.width; ++cx)
                draw_tile(atlas, layer.tiles(cx, cy), out, cx * tw + mx, cy * th + my);
    }
    for (const ObjectLayer& layer : map.object_layers)
        for (const MapObject& o : layer.objects)
            if (o.sprite >= 0)
                draw_sprite(map.sprites, o.sprite, out, o.x + mx,
                            o.y - map.sprites.sprite_height + my);
    return out;
}

int preview_factor(const Map& map, int max_side) {
    const long long full_w = static_cast<long long>(map.width) * map.atlas.tile_width +
                             corner_margin_x(map),
                    full_h = static_cast<long long>(map.height) * map.atlas.tile_height +
                             corner_margin_y(map);
    int factor = 1;
    while ((full_w + factor - 1) / factor > max_side || (full_h + factor - 1) / factor > max_side)
        ++factor;
    return factor;
}

namespace {
// Pixel (px, py) of render_map's tile layers on a map with a corner layer (margins included).
Rgba corner_map_pixel(const Map& map, long long px, long long py) {
    const Atlas& atlas = map.atlas;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    Rgba c{};
    for (const TileLayer& layer : map.layers) {
        // The layer's tile under the pixel and the pixel within it.
        const long long lx = layer.corner ? px - corner_margin_x(map) + tw / 2
                                          : px - corner_margin_x(map),
                        ly = layer.corner ? py - corner_margin_y(map) + th / 2
                                          : py - corner_margin_y(map);
        if (lx < 0 || ly < 0) continue;
        const long long tx = lx / tw, ty = ly / th;
        if (tx >= layer.tiles.width() || ty >= layer.tiles.height()) continue;
        const int u = static_cast<int>(lx % tw), v = static_cast<int>(ly % th);
        const Gid gid = layer.tiles(static_cast<int>(tx), static_cast<int>(ty));
        const int index = atlas_index_of(gid);
        if (gid == 0 || index < 0 || index >= atlas.tile_count()) continue;
        int a = (gid & kFlipHorizontal) ? tw - 1 - u : u;
        int b = (gid & kFlipVertical) ? th - 1 - v : v;
        if (gid & kFlipDiagonal) std::swap(a, b);
        if (a >= tw || b >= th) continue;
        c = blend_over(
            atlas.image.get((index % atlas.columns) * tw + a, (index / atlas.columns) * th + b), c);
    }
    return c;
}
} // namespace

Rgba reduced_preview_pixel(const Map& map, int factor, int x, int y) {
    const Atlas& atlas = map.atlas;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    if (has_corner_layer(map))
        return corner_map_pixel(map, static_cast<long long>(x) * factor + factor / 2,
                                static_cast<long long>(y) * factor + factor / 2);
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
    const long long full_w = static_cast<long long>(map.width) * map.atlas.tile_width +
                             corner_margin_x(map),
                    full_h = static_cast<long long>(map.height) * map.atlas.tile_height +
                             corner_margin_y(map);
    const int w = static_cast<int>((full_w + factor - 1) / factor),
              h = static_cast<int>((full_h + factor - 1) / factor);
    Image out(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            out.set(x, y, reduced_preview_pixel(map, factor, x, y));
    return out;
}

} // namespace tilegen
