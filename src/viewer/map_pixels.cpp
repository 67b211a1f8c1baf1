#include "viewer/map_pixels.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/hash.hpp"
#include "core/rules/rule_matcher.hpp"

namespace tilegen::viewer {

namespace {

constexpr Rgba kUnmatchedColor{255, 0, 220, 255};
constexpr Rgba kMatchedShade{0, 0, 0, 150}; // the unmatched overlay dims everything else
constexpr Rgba kNoRuleColor{0, 0, 0, 255};  // the rules overlay: cells no rule decided

// The color of one cell in a block mode.
Rgba cell_color(const Build& b, int mode, std::uint64_t variant, int x, int y) {
    const GenerateResult& r = b.result;
    switch (mode) {
    case kModeTileAverage: {
        Rgba c{};
        for (std::size_t li = 0; li < r.map.layers.size(); ++li) {
            if (!layer_visible(variant, li)) continue;
            const Gid gid = r.map.layers[li].tiles(x, y);
            const int index = atlas_index_of(gid);
            if (gid == 0 || index < 0 || index >= static_cast<int>(b.tile_average.size())) continue;
            c = blend_over(b.tile_average[static_cast<std::size_t>(index)], c);
        }
        return c;
    }
    case kModeClasses: {
        const ClassId cls = r.classes(x, y);
        return cls < b.class_color.size() ? b.class_color[cls] : Rgba{0, 0, 0, 255};
    }
    case kModeHeight: {
        if (r.heights.empty()) return {0, 0, 0, 255};
        // Stretched from the map's lowest (black) to highest (white) height.
        const float t =
            (r.heights(x, y) - b.height_min) / std::max(1e-6f, b.height_max - b.height_min);
        const auto v = static_cast<std::uint8_t>(std::lround(std::clamp(t, 0.0f, 1.0f) * 255.0f));
        return {v, v, v, 255};
    }
    case kModeFlow: {
        // [rivers]: the water gathered in each cell (log scale, blue) over the height in grey.
        const float t = r.heights.empty() ? 0.0f
                                          : (r.heights(x, y) - b.height_min) /
                                                std::max(1e-6f, b.height_max - b.height_min);
        const float grey = std::clamp(t, 0.0f, 1.0f) * 128.0f;
        const float f = r.flow.empty() || b.flow_max <= 1
                            ? 0.0f
                            : std::log(std::max(1.0f, r.flow(x, y))) / std::log(b.flow_max);
        const auto mix = [&](float to) {
            return static_cast<std::uint8_t>(std::lround(grey + (to - grey) * f));
        };
        return {mix(60.0f), mix(150.0f), mix(255.0f), 255};
    }
    case kModeRules: {
        const std::size_t li = static_cast<std::size_t>(variant);
        if (li >= r.decisions.size()) return kNoRuleColor;
        const int d = r.decisions[li](x, y);
        if (d == kNoRule || static_cast<std::size_t>(d) >= b.rule_color[li].size())
            return kNoRuleColor;
        return b.rule_color[li][static_cast<std::size_t>(d)];
    }
    default:
        return {};
    }
}

// One texel of a block: the 2^level x 2^level cells from (cx0, cy0).
Rgba texel_color(const Build& b, int mode, std::uint64_t variant, int level, long long cx0,
                 long long cy0) {
    const GenerateResult& r = b.result;
    const int w = r.map.width, h = r.map.height;
    const int s = 1 << level;
    if (mode == kModeUnmatched) {
        // Any unmatched cell in the texel shows: every cell is looked at (a cheap comparison).
        const int xe = static_cast<int>(std::min<long long>(cx0 + s, w));
        const int ye = static_cast<int>(std::min<long long>(cy0 + s, h));
        for (const Grid<int>& d : r.decisions)
            for (int y = static_cast<int>(cy0); y < ye; ++y) {
                const int* row = d.row(y);
                for (int x = static_cast<int>(cx0); x < xe; ++x)
                    if (row[x] == kNoRule) return kUnmatchedColor;
            }
        return kMatchedShade;
    }
    // Mean of n x n samples spread over the texel's cells (premultiplied by alpha): cheap to make.
    const int n = std::min(s, 2);
    std::uint32_t sr = 0, sg = 0, sb = 0, sa = 0;
    for (int sy = 0; sy < n; ++sy) {
        const int y =
            static_cast<int>(std::min<long long>(cy0 + (sy * s) / n + s / (2 * n), h - 1));
        for (int sx = 0; sx < n; ++sx) {
            const int x =
                static_cast<int>(std::min<long long>(cx0 + (sx * s) / n + s / (2 * n), w - 1));
            const Rgba v = cell_color(b, mode, variant, x, y);
            sr += std::uint32_t{v.r} * v.a;
            sg += std::uint32_t{v.g} * v.a;
            sb += std::uint32_t{v.b} * v.a;
            sa += v.a;
        }
    }
    if (sa == 0) return {};
    const auto count = static_cast<std::uint32_t>(n * n);
    return {static_cast<std::uint8_t>((sr + sa / 2) / sa),
            static_cast<std::uint8_t>((sg + sa / 2) / sa),
            static_cast<std::uint8_t>((sb + sa / 2) / sa),
            static_cast<std::uint8_t>((sa + count / 2) / count)};
}

// Texels of `mode` for the cells from (ox, oy), one per 2^level cells, as many as `out` holds.
void fill_texels(const Build& b, int mode, std::uint64_t variant, int level, long long ox,
                 long long oy, Image& out) {
    const long long s = 1LL << level;
    for (int ty = 0; ty < out.height(); ++ty)
        for (int tx = 0; tx < out.width(); ++tx)
            out.set(tx, ty, texel_color(b, mode, variant, level, ox + tx * s, oy + ty * s));
}

// Texels needed for `cells` cells from `origin` up to `limit`, one per `s` cells, at most `most`.
int texels_for(long long origin, int limit, long long s, int most) {
    const long long cells = std::max(0LL, limit - origin);
    return static_cast<int>(std::min<long long>(most, (cells + s - 1) / s));
}

// render_map()'s pixels for cells [x0, x1) x [y0, y1): the visible tile layers, then the objects
// overlapping them, each pixel blended in render_map's order (objects are clipped to the chunk,
// which lies in the map).
Image compose_cells(const Build& b, std::uint64_t layers, int x0, int y0, int x1, int y1) {
    const Map& map = b.result.map;
    const Atlas& atlas = map.atlas;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    Image out((x1 - x0) * tw, (y1 - y0) * th);
    for (std::size_t li = 0; li < map.layers.size(); ++li) {
        if (!layer_visible(layers, li)) continue;
        const Grid<Gid>& tiles = map.layers[li].tiles;
        if (map.layers[li].corner) {
            // Corner (i, j) is drawn centred on the corner between cells (i-1, j-1) and (i, j):
            // corners x0..x1, y0..y1 touch the chunk, clipped to it. (The half tiles beyond the
            // map's left and top edges, which the PNG's margin shows, are not drawn.)
            for (int j = y0; j <= y1; ++j)
                for (int i = x0; i <= x1; ++i)
                    draw_tile_clipped(atlas, tiles(i, j), out, (i - x0) * tw - tw / 2,
                                      (j - y0) * th - th / 2);
            continue;
        }
        for (int cy = y0; cy < y1; ++cy)
            for (int cx = x0; cx < x1; ++cx) {
                const Gid gid = tiles(cx, cy);
                const int index = atlas_index_of(gid);
                if (gid == 0 || index < 0 || index >= atlas.tile_count()) continue;
                const int dx = (cx - x0) * tw, dy = (cy - y0) * th;
                if ((gid & kFlipMask) == 0 && b.tile_opaque[static_cast<std::size_t>(index)]) {
                    const int sx0 = (index % atlas.columns) * tw,
                              sy0 = (index / atlas.columns) * th;
                    out.copy_from(atlas.image, sx0, sy0, tw, th, dx,
                                  dy); // blend_over of opaque = copy
                    continue;
                }
                draw_tile(atlas, gid, out, dx, dy);
            }
    }
    const SpriteAtlas& sprites = map.sprites;
    const int sw = sprites.sprite_width, sh = sprites.sprite_height;
    const int left = x0 * tw, top = y0 * th, right = x1 * tw,
              bottom = y1 * th; // map pixels of the chunk
    for (std::size_t layer = 0; layer < map.object_layers.size(); ++layer) {
        const std::vector<MapObject>& objects = map.object_layers[layer].objects;
        // Objects drawn by y (the Build checked): only those whose bottom edge lies in (top, bottom
        // + sh).
        auto first = objects.begin(), last = objects.end();
        if (layer < b.objects_by_y.size() && b.objects_by_y[layer]) {
            first = std::upper_bound(objects.begin(), objects.end(), top,
                                     [](int y, const MapObject& o) { return y < o.y; });
            last = std::lower_bound(first, objects.end(), bottom + sh,
                                    [](const MapObject& o, int y) { return o.y < y; });
        }
        for (auto it = first; it != last; ++it) {
            const MapObject& o = *it;
            const int ox = o.x, oy = o.y - sh; // the sprite's top-left, in map pixels
            if (o.sprite < 0 || ox >= right || ox + sw <= left || oy >= bottom || oy + sh <= top)
                continue;
            draw_sprite(sprites, o.sprite, out, ox - left, oy - top); // clipped to the chunk
        }
    }
    return out;
}

} // namespace

std::size_t PieceKeyHash::operator()(const PieceKey& k) const {
    return static_cast<std::size_t>(
        hash_values(static_cast<std::uint64_t>(k.mode), static_cast<std::uint64_t>(k.level),
                    static_cast<std::uint64_t>(k.x), static_cast<std::uint64_t>(k.y), k.variant));
}

bool layer_visible(std::uint64_t mask, std::size_t layer) {
    return layer >= 64 || ((mask >> layer) & 1u);
}

int chunk_cells(const Build& build) {
    const int tile = std::max({1, build.tile_width(), build.tile_height()});
    int cells = kMaxChunkCells;
    while (cells > 1 && cells * tile > kMaxChunkPixels)
        cells /= 2;
    return cells;
}

Image make_piece(const Build& build, const PieceKey& key) {
    const int w = build.width(), h = build.height();
    if (key.mode == kChunk) {
        const int cells = chunk_cells(build);
        const int x0 = key.x * cells, y0 = key.y * cells;
        return compose_cells(build, key.variant, x0, y0, std::min(x0 + cells, w),
                             std::min(y0 + cells, h));
    }
    const long long s = 1LL << key.level, span = kBlockTexels * s;
    const long long ox = key.x * span, oy = key.y * span;
    Image out(texels_for(ox, w, s, kBlockTexels), texels_for(oy, h, s, kBlockTexels));
    fill_texels(build, key.mode, key.variant, key.level, ox, oy, out);
    return out;
}

bool is_opaque(const Image& image) {
    const std::vector<std::uint8_t>& p = image.pixels();
    for (std::size_t i = 3; i < p.size(); i += 4)
        if (p[i] != 255) return false;
    return true;
}

void swap_red_blue(Image& image) {
    std::vector<std::uint8_t>& p = image.pixels();
    for (std::size_t i = 0; i + 3 < p.size(); i += 4)
        std::swap(p[i], p[i + 2]);
}

int overview_level(int map_w, int map_h, int max_side) {
    int level = 0;
    while (level < 30 &&
           ((static_cast<long long>(map_w) + (1LL << level) - 1) >> level > max_side ||
            (static_cast<long long>(map_h) + (1LL << level) - 1) >> level > max_side))
        ++level;
    return level;
}

Image make_overview(const Build& build, int level) {
    const long long s = 1LL << level;
    Image out(texels_for(0, build.width(), s, 1 << 30), texels_for(0, build.height(), s, 1 << 30));
    fill_texels(build, kModeTileAverage, ~std::uint64_t{0}, level, 0, 0, out);
    return out;
}

} // namespace tilegen::viewer
