#include "core/preview.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <type_traits>

#include "core/parallel.hpp"

namespace tilegen {

namespace {

std::uint32_t pack(Rgba c) {
    return (std::uint32_t{c.r} << 24) | (std::uint32_t{c.g} << 16) | (std::uint32_t{c.b} << 8) |
           std::uint32_t{c.a};
}
Rgba unpack(std::uint32_t v) {
    return {static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16),
            static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
}
Rgba load(const std::uint8_t* p) {
    return {p[0], p[1], p[2], p[3]};
}
void store(std::uint8_t* p, Rgba c) {
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
    p[3] = c.a;
}

// The candidate palette: distinct colours, transparent ones first (a short tRNS chunk), then by
// value; nullopt-like empty when more than 256 or when a colour is partly transparent.
std::vector<Rgba> palette_of(std::vector<std::uint32_t> colours) {
    colours.push_back(0); // transparent black: where nothing is drawn
    std::sort(colours.begin(), colours.end(), [](std::uint32_t a, std::uint32_t b) {
        const bool oa = (a & 0xff) == 0xff, ob = (b & 0xff) == 0xff;
        return oa != ob ? ob : a < b;
    });
    colours.erase(std::unique(colours.begin(), colours.end()), colours.end());
    std::vector<Rgba> palette;
    if (colours.size() > 256) return palette;
    for (std::uint32_t c : colours) {
        const std::uint32_t a = c & 0xff;
        if (a != 0 && a != 255) return {};
        palette.push_back(unpack(c));
    }
    return palette;
}

// memcpy of a cell's row, with the common sizes (4 to 64 bytes) inlined as fixed-size copies.
inline void copy_row(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
    switch (n) {
    case 4:
        std::memcpy(dst, src, 4);
        break;
    case 8:
        std::memcpy(dst, src, 8);
        break;
    case 16:
        std::memcpy(dst, src, 16);
        break;
    case 32:
        std::memcpy(dst, src, 32);
        break;
    case 64:
        std::memcpy(dst, src, 64);
        break;
    default:
        std::memcpy(dst, src, n);
    }
}

} // namespace

PreviewRenderer::PreviewRenderer(const Map& map, int max_side, int threads) : map_(map) {
    if (has_corner_layer(map)) {
        // Corner layers (half a tile off the cell grid) are drawn whole, up front, in RGBA.
        whole_ = render_map_preview(map, std::max(1, max_side), factor_);
        whole_map_ = true;
        width_ = whole_.width();
        height_ = whole_.height();
        color_ = PreviewColor::rgba;
        by_cells_ = false;
        return;
    }
    const Atlas& atlas = map.atlas;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    factor_ = preview_factor(map, std::max(1, max_side));
    const long long full_w = static_cast<long long>(map.width) * tw,
                    full_h = static_cast<long long>(map.height) * th;
    width_ = static_cast<int>((full_w + factor_ - 1) / factor_);
    height_ = static_cast<int>((full_h + factor_ - 1) / factor_);
    const int tiles = atlas.tile_count();

    std::vector<std::uint32_t> colours;
    bool opaque = true; // every cell has a fully opaque tile in some layer
    // Drawn by cells (render_cells) at full size, and reduced when every cell holds the same
    // whole number of samples (square tiles: a diagonal flip stays inside the tile); otherwise
    // pixel by pixel as render_map_preview.
    by_cells_ = factor_ == 1 || (tw % factor_ == 0 && th % factor_ == 0 && tw == th);
    cell_w_ = tw / factor_;
    cell_h_ = th / factor_;
    const int cw = cell_w_, ch = cell_h_, f = factor_;
    const std::size_t cell_pixels = static_cast<std::size_t>(cw) * static_cast<std::size_t>(ch);
    if (by_cells_) {
        // The tile variants the layers use, each drawn once as draw_tile draws it.
        // (Bands of rows on the threads, each marking the variants it meets; the marks joined.)
        variant_slot_.assign(static_cast<std::size_t>(tiles) * 8, -1);
        int rows = 0;
        for (const TileLayer& layer : map.layers)
            rows = std::max(rows, layer.tiles.height());
        const std::vector<std::vector<std::uint8_t>> used =
            parallel_bands(rows, threads, [&](int y0, int y1) {
                std::vector<std::uint8_t> seen(variant_slot_.size(), 0);
                for (const TileLayer& layer : map.layers) {
                    const auto lw = static_cast<std::size_t>(layer.tiles.width());
                    const auto lh = static_cast<std::size_t>(layer.tiles.height());
                    const Gid* cells = layer.tiles.cells().data();
                    for (std::size_t i = std::min<std::size_t>(y0, lh) * lw,
                                     end = std::min<std::size_t>(y1, lh) * lw;
                         i < end; ++i) {
                        const Gid gid = cells[i];
                        const int index = atlas_index_of(gid);
                        if (gid == 0 || index < 0 || index >= tiles) continue;
                        seen[static_cast<std::size_t>(index) * 8 + (gid >> 29)] = 1;
                    }
                }
                return seen;
            });
        for (const std::vector<std::uint8_t>& seen : used)
            for (std::size_t key = 0; key < seen.size(); ++key)
                if (seen[key]) variant_slot_[key] = -2;
        std::vector<std::uint8_t> rgba;
        for (std::size_t key = 0; key < variant_slot_.size(); ++key) {
            if (variant_slot_[key] == -1) continue;
            const int index = static_cast<int>(key / 8);
            const Gid flips = static_cast<Gid>(key % 8) << 29;
            Variant var;
            var.values = rgba.size() / 4;
            var.kinds = variant_kinds_.size();
            rgba.resize(rgba.size() + cell_pixels * 4, 0);
            variant_kinds_.resize(variant_kinds_.size() + cell_pixels, 0);
            var.opaque_rows.assign(static_cast<std::size_t>(ch), 1);
            const int sx0 = (index % atlas.columns) * tw, sy0 = (index / atlas.columns) * th;
            const bool fh = flips & kFlipHorizontal, fv = flips & kFlipVertical,
                       fd = flips & kFlipDiagonal;
            for (int j = 0; j < ch; ++j)
                for (int i = 0; i < cw; ++i) {
                    // As draw_tile (and reduced_preview_pixel at the centre of each factor x
                    // factor block): the diagonal flip first, then horizontal, then vertical.
                    const int u = i * f + f / 2, v = j * f + f / 2;
                    int a = fh ? tw - 1 - u : u;
                    int b = fv ? th - 1 - v : v;
                    if (fd) std::swap(a, b);
                    const std::size_t p = static_cast<std::size_t>(j) * cw + i;
                    std::uint8_t& kind = variant_kinds_[var.kinds + p];
                    if (a >= tw || b >= th) {
                        kind = 0;
                        var.opaque_rows[static_cast<std::size_t>(j)] = 0;
                        continue;
                    }
                    const Rgba c = atlas.image.get(sx0 + a, sy0 + b);
                    store(&rgba[(var.values + p) * 4], c);
                    kind = c.a == 255 ? 1 : 2;
                    if (c.a != 255) var.opaque_rows[static_cast<std::size_t>(j)] = 0;
                    colours.push_back(pack(c));
                }
            var.opaque = std::all_of(var.opaque_rows.begin(), var.opaque_rows.end(),
                                     [](std::uint8_t o) { return o != 0; });
            variant_slot_[key] = static_cast<int>(variants_.size());
            variants_.push_back(std::move(var));
        }
        // The sprites the objects use (the reduced preview draws none).
        const SpriteAtlas& sheet = map.sprites;
        const bool objects = factor_ == 1;
        const int sw = sheet.sprite_width, sh = sheet.sprite_height;
        std::vector<std::uint8_t> sprite_used(static_cast<std::size_t>(sheet.sprite_count()), 0);
        for (const ObjectLayer& layer : map.object_layers)
            for (const MapObject& o : layer.objects)
                if (objects && o.sprite >= 0 && o.sprite < sheet.sprite_count())
                    sprite_used[static_cast<std::size_t>(o.sprite)] = 1;
        for (int s = 0; s < sheet.sprite_count(); ++s) {
            if (!sprite_used[static_cast<std::size_t>(s)]) continue;
            const int sx0 = (s % sheet.columns) * sw, sy0 = (s / sheet.columns) * sh;
            for (int v = 0; v < sh; ++v)
                for (int u = 0; u < sw; ++u)
                    colours.push_back(pack(sheet.image.get(sx0 + u, sy0 + v)));
        }
        palette_ = palette_of(std::move(colours));
        if (palette_.empty()) {
            for (std::size_t i = 0; opaque && i < static_cast<std::size_t>(map.width) * map.height;
                 ++i) {
                bool covered = false;
                for (const TileLayer& layer : map.layers) {
                    const int vi = variant_of(layer.tiles.cells()[i]);
                    if (vi >= 0 && variants_[static_cast<std::size_t>(vi)].opaque) {
                        covered = true;
                        break;
                    }
                }
                opaque = covered;
            }
            if (map.layers.empty() || map.width == 0 || map.height == 0) opaque = false;
        }
        color_ = !palette_.empty() ? PreviewColor::indexed
                 : opaque          ? PreviewColor::rgb
                                   : PreviewColor::rgba;
        if (color_ == PreviewColor::indexed) {
            for (std::size_t i = 0; i < palette_.size(); ++i)
                palette_index_[pack(palette_[i])] = static_cast<std::uint8_t>(i);
            variant_values_.resize(rgba.size() / 4);
            for (std::size_t i = 0; i < variant_values_.size(); ++i)
                variant_values_[i] = index_of(load(&rgba[i * 4]));
            sprite_indices_.resize(sheet.image.pixels().size() / 4, 0);
            for (int s = 0; s < sheet.sprite_count(); ++s) {
                if (!sprite_used[static_cast<std::size_t>(s)]) continue;
                const int sx0 = (s % sheet.columns) * sw, sy0 = (s / sheet.columns) * sh;
                for (int v = 0; v < sh; ++v)
                    for (int u = 0; u < sw; ++u)
                        sprite_indices_[static_cast<std::size_t>(sy0 + v) *
                                            static_cast<std::size_t>(sheet.image.width()) +
                                        static_cast<std::size_t>(sx0 + u)] =
                            index_of(sheet.image.get(sx0 + u, sy0 + v));
            }
        } else {
            variant_values_ = std::move(rgba);
        }
        // Objects by band: every band each one's pixel rows touch (clipped to the image).
        object_band_start_.assign(static_cast<std::size_t>(height_ / kObjectBand + 2), 0);
        auto bands_of = [&](const MapObject& o, int& b0, int& b1) {
            if (!objects || o.sprite < 0 || o.sprite >= sheet.sprite_count()) return false;
            const int top = std::max(0, o.y - sh), bottom = std::min(height_, o.y);
            if (top >= bottom) return false;
            b0 = top / kObjectBand;
            b1 = (bottom - 1) / kObjectBand;
            return true;
        };
        for (const ObjectLayer& layer : map.object_layers)
            for (const MapObject& o : layer.objects) {
                int b0 = 0, b1 = 0;
                if (bands_of(o, b0, b1))
                    for (int b = b0; b <= b1; ++b)
                        ++object_band_start_[static_cast<std::size_t>(b) + 1];
            }
        for (std::size_t b = 1; b < object_band_start_.size(); ++b)
            object_band_start_[b] += object_band_start_[b - 1];
        object_refs_.resize(object_band_start_.back());
        std::vector<std::size_t> fill(object_band_start_.begin(), object_band_start_.end() - 1);
        for (const ObjectLayer& layer : map.object_layers)
            for (const MapObject& o : layer.objects) {
                int b0 = 0, b1 = 0;
                if (bands_of(o, b0, b1))
                    for (int b = b0; b <= b1; ++b)
                        object_refs_[fill[static_cast<std::size_t>(b)]++] = &o;
            }
    } else {
        // The reduced preview samples the atlas (render_map_preview): its palette is every atlas
        // pixel's colour; it is opaque when every sampled cell has a tile whose source square is.
        const std::vector<std::uint8_t>& px = atlas.image.pixels();
        for (std::size_t i = 0; i + 3 < px.size(); i += 4)
            colours.push_back(pack(load(&px[i])));
        palette_ = palette_of(std::move(colours));
        if (palette_.empty()) {
            std::vector<std::uint8_t> tile_opaque(static_cast<std::size_t>(tiles), 1);
            for (int t = 0; t < tiles; ++t) {
                const int sx0 = (t % atlas.columns) * tw, sy0 = (t / atlas.columns) * th;
                for (int v = 0; v < th; ++v)
                    for (int u = 0; u < tw; ++u)
                        if (atlas.image.get(sx0 + u, sy0 + v).a != 255)
                            tile_opaque[static_cast<std::size_t>(t)] = 0;
            }
            auto cell_of = [&](int p, int tile, int cells) {
                const long long c = (static_cast<long long>(p) * factor_ + factor_ / 2) / tile;
                return static_cast<int>(std::min(c, static_cast<long long>(cells - 1)));
            };
            for (int y = 0; opaque && y < height_; ++y) {
                const int cy = cell_of(y, th, map.height);
                for (int x = 0; opaque && x < width_; ++x) {
                    const int cx = cell_of(x, tw, map.width);
                    bool covered = false;
                    for (const TileLayer& layer : map.layers) {
                        const Gid gid = layer.tiles(cx, cy);
                        const int index = atlas_index_of(gid);
                        if (gid == 0 || index < 0 || index >= tiles) continue;
                        if (tile_opaque[static_cast<std::size_t>(index)] &&
                            (tw == th || !(gid & kFlipDiagonal)))
                            covered = true;
                    }
                    opaque = covered;
                }
            }
        }
        color_ = !palette_.empty() ? PreviewColor::indexed
                 : opaque          ? PreviewColor::rgb
                                   : PreviewColor::rgba;
        if (color_ == PreviewColor::indexed)
            for (std::size_t i = 0; i < palette_.size(); ++i)
                palette_index_[pack(palette_[i])] = static_cast<std::uint8_t>(i);
    }
    index_transparent_.assign(256, 0);
    for (std::size_t i = 0; i < palette_.size(); ++i)
        index_transparent_[i] = palette_[i].a == 0 ? 1 : 0;
    if (color_ == PreviewColor::indexed) transparent_index_ = index_of(Rgba{});
}

int PreviewRenderer::bytes_per_pixel() const {
    return color_ == PreviewColor::indexed ? 1 : color_ == PreviewColor::rgb ? 3 : 4;
}

std::size_t PreviewRenderer::buffer_bytes(int rows) const {
    return static_cast<std::size_t>(rows) * static_cast<std::size_t>(width_) *
           (color_ == PreviewColor::indexed ? 1 : 4);
}

std::uint8_t PreviewRenderer::index_of(Rgba c) const {
    const auto it = palette_index_.find(pack(c));
    assert(it != palette_index_.end()); // the palette holds every colour a pixel can take
    return it == palette_index_.end() ? 0 : it->second;
}

int PreviewRenderer::variant_of(Gid gid) const {
    const int index = atlas_index_of(gid);
    if (gid == 0 || index < 0 || index >= map_.atlas.tile_count()) return -1;
    return variant_slot_[static_cast<std::size_t>(index) * 8 + (gid >> 29)];
}

void PreviewRenderer::render_rows(int y0, int y1, std::uint8_t* out, std::size_t pitch) const {
    assert(0 <= y0 && y0 < y1 && y1 <= height_);
    const std::size_t drawn =
        static_cast<std::size_t>(width_) * (color_ == PreviewColor::indexed ? 1 : 4);
    assert(pitch == 0 || (color_ != PreviewColor::rgb && pitch >= drawn));
    if (pitch == 0) pitch = drawn;
    if (whole_map_) {
        const std::size_t row = static_cast<std::size_t>(width_) * 4;
        for (int y = y0; y < y1; ++y)
            std::memcpy(out + static_cast<std::size_t>(y - y0) * pitch,
                        whole_.pixels().data() + static_cast<std::size_t>(y) * row, row);
        return;
    }
    if (by_cells_)
        render_cells(y0, y1, out, pitch);
    else
        render_reduced(y0, y1, out, pitch);
    if (color_ == PreviewColor::rgb) {
        // Drawn as RGBA; drop the alpha (all 255) in place.
        const std::size_t n = static_cast<std::size_t>(y1 - y0) * static_cast<std::size_t>(width_);
        for (std::size_t i = 0; i < n; ++i) {
            out[i * 3] = out[i * 4];
            out[i * 3 + 1] = out[i * 4 + 1];
            out[i * 3 + 2] = out[i * 4 + 2];
        }
    }
}

void PreviewRenderer::render_cells(int y0, int y1, std::uint8_t* out, std::size_t pitch) const {
    const int tw = cell_w_, th = cell_h_; // a cell's pixels in the preview
    const std::size_t w = static_cast<std::size_t>(width_);
    const bool indexed = color_ == PreviewColor::indexed;
    const std::size_t bpp = indexed ? 1 : 4;
    for (int y = y0; y < y1; ++y)
        std::memset(out + static_cast<std::size_t>(y - y0) * pitch,
                    indexed ? transparent_index_ : 0, w * bpp);
    const std::size_t tile_row_bytes = static_cast<std::size_t>(tw) * bpp;
    const std::uint8_t* transparent = index_transparent_.data();

    // Tile layers, first to last; `fixed` is tile_row_bytes when it is 4, 8 or 16 (the copies of
    // opaque rows then take no call), else 0.
    auto draw_layers = [&](auto fixed) {
        for (const TileLayer& layer : map_.layers) {
            const Gid* cells = layer.tiles.cells().data();
            for (int cy = y0 / th; cy <= (y1 - 1) / th; ++cy) {
                const int v0 = std::max(y0, cy * th) - cy * th,
                          v1 = std::min(y1, cy * th + th) - cy * th;
                const Gid* row = cells + static_cast<std::size_t>(cy) * map_.width;
                std::uint8_t* const band =
                    out + static_cast<std::size_t>(cy * th + v0 - y0) * pitch;
                for (int cx = 0; cx < map_.width; ++cx) {
                    const int vi = variant_of(row[cx]);
                    if (vi < 0) continue;
                    const Variant& var = variants_[static_cast<std::size_t>(vi)];
                    const std::uint8_t* values = variant_values_.data() + var.values * bpp;
                    std::uint8_t* const cell = band + static_cast<std::size_t>(cx) * tile_row_bytes;
                    if (var.opaque) { // every row copied whole
                        for (int v = v0; v < v1; ++v) {
                            std::uint8_t* dst = cell + static_cast<std::size_t>(v - v0) * pitch;
                            const std::uint8_t* src =
                                values + static_cast<std::size_t>(v) * tile_row_bytes;
                            if constexpr (decltype(fixed)::value != 0)
                                std::memcpy(dst, src, decltype(fixed)::value);
                            else
                                copy_row(dst, src, tile_row_bytes);
                        }
                        continue;
                    }
                    const std::uint8_t* kinds = variant_kinds_.data() + var.kinds;
                    for (int v = v0; v < v1; ++v) {
                        std::uint8_t* dst = cell + static_cast<std::size_t>(v - v0) * pitch;
                        const std::uint8_t* src =
                            values + static_cast<std::size_t>(v) * tile_row_bytes;
                        const std::uint8_t* kind = kinds + static_cast<std::size_t>(v) * tw;
                        if (var.opaque_rows[static_cast<std::size_t>(v)]) {
                            copy_row(dst, src, tile_row_bytes);
                        } else if (indexed) {
                            for (int u = 0; u < tw; ++u)
                                if (kind[u] == 1 || (kind[u] == 2 && transparent[dst[u]]))
                                    dst[u] = src[u];
                        } else {
                            for (int u = 0; u < tw; ++u) {
                                if (kind[u] == 1)
                                    std::memcpy(dst + u * 4, src + u * 4, 4);
                                else if (kind[u] == 2)
                                    store(dst + u * 4,
                                          blend_over(load(src + u * 4), load(dst + u * 4)));
                            }
                        }
                    }
                }
            }
        }
    };
    switch (tile_row_bytes) {
    case 4:
        draw_layers(std::integral_constant<std::size_t, 4>{});
        break;
    case 8:
        draw_layers(std::integral_constant<std::size_t, 8>{});
        break;
    case 16:
        draw_layers(std::integral_constant<std::size_t, 16>{});
        break;
    default:
        draw_layers(std::integral_constant<std::size_t, 0>{});
    }

    // Objects, in drawing order, each band of rows on its own (a pixel lies in one band, so it
    // sees every object covering it once, in order).
    const SpriteAtlas& sheet = map_.sprites;
    const int sw = sheet.sprite_width, sh = sheet.sprite_height;
    const std::size_t sheet_w = static_cast<std::size_t>(sheet.image.width());
    const std::uint8_t* sheet_px = sheet.image.pixels().data();
    for (int b = y0 / kObjectBand; b <= (y1 - 1) / kObjectBand; ++b) {
        if (static_cast<std::size_t>(b) + 1 >= object_band_start_.size()) break;
        const int ra = std::max(y0, b * kObjectBand), rb = std::min(y1, (b + 1) * kObjectBand);
        for (std::size_t k = object_band_start_[static_cast<std::size_t>(b)];
             k < object_band_start_[static_cast<std::size_t>(b) + 1]; ++k) {
            const MapObject& o = *object_refs_[k];
            const int x = o.x, y = o.y - sh;
            const int sx0 = (o.sprite % sheet.columns) * sw, sy0 = (o.sprite / sheet.columns) * sh;
            const int u0 = std::max(0, -x), u1 = std::min(sw, width_ - x);
            const int v0 = std::max(ra - y, 0), v1 = std::min(rb - y, sh);
            for (int v = v0; v < v1; ++v) {
                const std::size_t srow = static_cast<std::size_t>(sy0 + v) * sheet_w;
                std::uint8_t* dst = out + static_cast<std::size_t>(y + v - y0) * pitch;
                for (int u = u0; u < u1; ++u) {
                    const std::size_t s = srow + static_cast<std::size_t>(sx0 + u);
                    const std::size_t d = static_cast<std::size_t>(x + u);
                    const std::uint8_t alpha = sheet_px[s * 4 + 3];
                    if (indexed) {
                        if (alpha == 255 || transparent[dst[d]]) dst[d] = sprite_indices_[s];
                    } else if (alpha == 255) {
                        std::memcpy(dst + d * 4, sheet_px + s * 4, 4);
                    } else {
                        store(dst + d * 4, blend_over(load(sheet_px + s * 4), load(dst + d * 4)));
                    }
                }
            }
        }
    }
}

void PreviewRenderer::render_reduced(int y0, int y1, std::uint8_t* out, std::size_t pitch) const {
    const bool indexed = color_ == PreviewColor::indexed;
    for (int y = y0; y < y1; ++y) {
        std::uint8_t* row = out + static_cast<std::size_t>(y - y0) * pitch;
        for (int x = 0; x < width_; ++x) {
            const Rgba c = reduced_preview_pixel(map_, factor_, x, y);
            if (indexed)
                row[x] = index_of(c);
            else
                store(row + static_cast<std::size_t>(x) * 4, c);
        }
    }
}

} // namespace tilegen
