#include "viewer/map_renderer.hpp"

#include <SFML/Graphics/RenderStates.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/hash.hpp"
#include "core/rules/rule_matcher.hpp"

namespace tilegen::viewer {

namespace {

// Block modes (the colour a block texel shows).
enum BlockMode : int { kModeTileAverage = 0, kModeClasses, kModeHeight, kModeUnmatched, kModeRules };

constexpr Rgba kUnmatchedColour{255, 0, 220, 255};
constexpr Rgba kMatchedShade{0, 0, 0, 150}; // the unmatched overlay dims everything else
constexpr Rgba kNoRuleColour{0, 0, 0, 255}; // the rules overlay: cells no rule decided
constexpr float kTexInset = 1.0f / 64;      // keeps nearest sampling inside a tile at fractional zooms

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}


bool layer_visible(std::uint64_t mask, std::size_t layer) {
    return layer >= 64 || ((mask >> layer) & 1u);
}

// The colour of one cell in a block mode.
Rgba cell_colour(const Build& b, int mode, std::uint64_t variant, int x, int y) {
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
        return cls < b.class_colour.size() ? b.class_colour[cls] : Rgba{0, 0, 0, 255};
    }
    case kModeHeight: {
        if (r.heights.empty()) return {0, 0, 0, 255};
        // Stretched from the map's lowest (black) to highest (white) height.
        const float t = (r.heights(x, y) - b.height_min) / std::max(1e-6f, b.height_max - b.height_min);
        const auto v = static_cast<std::uint8_t>(std::lround(std::clamp(t, 0.0f, 1.0f) * 255.0f));
        return {v, v, v, 255};
    }
    case kModeRules: {
        const std::size_t li = static_cast<std::size_t>(variant);
        if (li >= r.decisions.size()) return kNoRuleColour;
        const int d = r.decisions[li](x, y);
        if (d == kNoRule || static_cast<std::size_t>(d) >= b.rule_colour[li].size()) return kNoRuleColour;
        return b.rule_colour[li][static_cast<std::size_t>(d)];
    }
    default:
        return {};
    }
}

void append_quad(sf::VertexArray& quads, float x0, float y0, float x1, float y1, float u0, float v0, float u1,
                 float v1) {
    quads.append(sf::Vertex({x0, y0}, {u0, v0}));
    quads.append(sf::Vertex({x1, y0}, {u1, v0}));
    quads.append(sf::Vertex({x1, y1}, {u1, v1}));
    quads.append(sf::Vertex({x0, y1}, {u0, v1}));
}

} // namespace

const char* overlay_name(Overlay overlay) {
    switch (overlay) {
    case Overlay::tiles:
        return "tiles";
    case Overlay::classes:
        return "classes";
    case Overlay::height:
        return "height";
    case Overlay::unmatched:
        return "unmatched";
    case Overlay::rules:
        return "rules";
    }
    return "tiles";
}

std::optional<Overlay> overlay_from_name(const std::string& name) {
    for (Overlay o : {Overlay::tiles, Overlay::classes, Overlay::height, Overlay::unmatched, Overlay::rules})
        if (name == overlay_name(o)) return o;
    return std::nullopt;
}

std::size_t MapRenderer::KeyHash::operator()(const ChunkKey& k) const {
    return static_cast<std::size_t>(
        hash_values(static_cast<std::uint64_t>(k.cx), static_cast<std::uint64_t>(k.cy), k.layers));
}

std::size_t MapRenderer::KeyHash::operator()(const BlockKey& k) const {
    return static_cast<std::size_t>(
        hash_values(static_cast<std::uint64_t>(k.mode), static_cast<std::uint64_t>(k.level),
                    static_cast<std::uint64_t>(k.bx), static_cast<std::uint64_t>(k.by), k.variant));
}

MapRenderer::MapRenderer(std::size_t chunk_budget, std::size_t block_budget)
    : chunk_budget_(chunk_budget), block_budget_(block_budget) {}

bool MapRenderer::set_build(std::shared_ptr<const Build> build) {
    build_ = std::move(build);
    chunks_.clear();
    blocks_.clear();
    atlas_ok_ = false;
    if (!build_) return true;
    const Image& img = build_->result.map.atlas.image;
    const unsigned max = sf::Texture::getMaximumSize();
    if (img.width() <= 0 || img.height() <= 0 || static_cast<unsigned>(img.width()) > max ||
        static_cast<unsigned>(img.height()) > max)
        return false;
    if (!atlas_.create(static_cast<unsigned>(img.width()), static_cast<unsigned>(img.height()))) return false;
    atlas_.update(img.pixels().data());
    atlas_.setSmooth(false);
    atlas_ok_ = true;
    sprites_ok_ = false;
    const Image& sprites = build_->result.map.sprites.image;
    if (sprites.width() > 0 && sprites.height() > 0 && static_cast<unsigned>(sprites.width()) <= max &&
        static_cast<unsigned>(sprites.height()) <= max &&
        sprites_.create(static_cast<unsigned>(sprites.width()), static_cast<unsigned>(sprites.height()))) {
        sprites_.update(sprites.pixels().data());
        sprites_.setSmooth(false);
        sprites_ok_ = true;
    }
    return true;
}

void MapRenderer::draw_objects(sf::RenderTarget& target, const sf::Transform& transform, const CellRange& range) {
    if (!sprites_ok_ || !build_) return;
    const Map& map = build_->result.map;
    const SpriteAtlas& sa = map.sprites;
    const int tw = map.atlas.tile_width, th = map.atlas.tile_height;
    const float x0 = static_cast<float>(range.x0 * tw), x1 = static_cast<float>(range.x1 * tw);
    const float y0 = static_cast<float>(range.y0 * th), y1 = static_cast<float>(range.y1 * th);
    sf::VertexArray quads(sf::Triangles);
    for (const ObjectLayer& layer : map.object_layers)
        for (const MapObject& o : layer.objects) {
            const float left = static_cast<float>(o.x), bottom = static_cast<float>(o.y);
            const float right = left + static_cast<float>(sa.sprite_width), top = bottom - static_cast<float>(sa.sprite_height);
            if (right <= x0 || left >= x1 || bottom <= y0 || top >= y1) continue;
            // Clip to the map, as render_map does.
            const float cl = std::max(left, 0.0f), ct = std::max(top, 0.0f);
            const float cr = std::min(right, static_cast<float>(map.width * tw)), cb = std::min(bottom, static_cast<float>(map.height * th));
            if (cr <= cl || cb <= ct) continue;
            const float u0 = static_cast<float>((o.sprite % sa.columns) * sa.sprite_width) + (cl - left);
            const float v0 = static_cast<float>((o.sprite / sa.columns) * sa.sprite_height) + (ct - top);
            const float u1 = u0 + (cr - cl), v1 = v0 + (cb - ct);
            const sf::Vertex a({cl, ct}, {u0, v0}), b({cr, ct}, {u1, v0}), c({cr, cb}, {u1, v1}), d({cl, cb}, {u0, v1});
            quads.append(a);
            quads.append(b);
            quads.append(c);
            quads.append(a);
            quads.append(c);
            quads.append(d);
        }
    if (quads.getVertexCount() == 0) return;
    sf::RenderStates states(transform);
    states.texture = &sprites_;
    target.draw(quads, states);
}

bool MapRenderer::over_budget() const {
    return budget_ms_ >= 0 && now_ns() > deadline_ns_;
}

void MapRenderer::build_chunk(const ChunkKey& key, Chunk& chunk) const {
    const Build& b = *build_;
    const Map& map = b.result.map;
    const Atlas& atlas = map.atlas;
    const int tw = atlas.tile_width, th = atlas.tile_height;
    const int x0 = key.cx * kChunkCells, y0 = key.cy * kChunkCells;
    const int x1 = std::min(x0 + kChunkCells, map.width), y1 = std::min(y0 + kChunkCells, map.height);
    chunk.base.setPrimitiveType(sf::Quads);
    chunk.base.clear();
    chunk.quads.setPrimitiveType(sf::Quads);
    chunk.quads.clear();
    const float ftw = static_cast<float>(tw), fth = static_cast<float>(th);
    bool first_layer = true;
    for (std::size_t li = 0; li < map.layers.size(); ++li) {
        if (!layer_visible(key.layers, li)) continue;
        const bool base_layer = first_layer;
        first_layer = false;
        const Grid<Gid>& tiles = map.layers[li].tiles;
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) {
                const Gid gid = tiles(x, y);
                const int index = atlas_index_of(gid);
                if (gid == 0 || index < 0 || index >= atlas.tile_count()) continue;
                const float sx = static_cast<float>((index % atlas.columns) * tw);
                const float sy = static_cast<float>((index / atlas.columns) * th);
                const bool fh = gid & kFlipHorizontal, fv = gid & kFlipVertical, fd = gid & kFlipDiagonal;
                // Source corner for output corner (u, v): undo Tiled's diagonal, horizontal, vertical flips
                // (as render_map does per pixel), inset a little so nearest sampling stays inside the tile.
                auto tex = [&](bool right, bool bottom) {
                    bool a = fh ? !right : right;
                    bool c = fv ? !bottom : bottom;
                    if (fd) std::swap(a, c);
                    const float u = a ? ftw - kTexInset : kTexInset;
                    const float v = c ? fth - kTexInset : kTexInset;
                    return sf::Vector2f(sx + u, sy + v);
                };
                const float px = static_cast<float>(x * tw), py = static_cast<float>(y * th);
                sf::VertexArray& quads =
                    base_layer && b.tile_opaque[static_cast<std::size_t>(index)] ? chunk.base : chunk.quads;
                quads.append(sf::Vertex({px, py}, tex(false, false)));
                quads.append(sf::Vertex({px + ftw, py}, tex(true, false)));
                quads.append(sf::Vertex({px + ftw, py + fth}, tex(true, true)));
                quads.append(sf::Vertex({px, py + fth}, tex(false, true)));
            }
    }
}

bool MapRenderer::build_block(const BlockKey& key, sf::Texture& texture) const {
    const Build& b = *build_;
    const GenerateResult& r = b.result;
    const int w = r.map.width, h = r.map.height;
    const int s = 1 << key.level; // cells per texel side
    const long long span = static_cast<long long>(kBlockTexels) * s;
    const long long ox = key.bx * span, oy = key.by * span;
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(kBlockTexels) * kBlockTexels * 4, 0);
    const int n = std::min(s, 2); // samples per texel side: an overview, cheap to make
    for (int ty = 0; ty < kBlockTexels; ++ty) {
        const long long cy0 = oy + static_cast<long long>(ty) * s;
        if (cy0 >= h) break;
        for (int tx = 0; tx < kBlockTexels; ++tx) {
            const long long cx0 = ox + static_cast<long long>(tx) * s;
            if (cx0 >= w) break;
            Rgba c{};
            if (key.mode == kModeUnmatched) {
                // Any unmatched cell in the texel shows: every cell is looked at (a cheap comparison).
                bool any = false;
                const int xe = static_cast<int>(std::min<long long>(cx0 + s, w));
                const int ye = static_cast<int>(std::min<long long>(cy0 + s, h));
                for (const Grid<int>& d : r.decisions) {
                    for (int y = static_cast<int>(cy0); y < ye && !any; ++y) {
                        const int* row = d.row(y);
                        for (int x = static_cast<int>(cx0); x < xe; ++x)
                            if (row[x] == kNoRule) {
                                any = true;
                                break;
                            }
                    }
                    if (any) break;
                }
                c = any ? kUnmatchedColour : kMatchedShade;
            } else {
                // Mean of n x n samples spread over the texel's cells (premultiplied by alpha).
                std::uint32_t sr = 0, sg = 0, sb = 0, sa = 0;
                for (int sy = 0; sy < n; ++sy) {
                    const int y =
                        static_cast<int>(std::min<long long>(cy0 + (sy * s) / n + s / (2 * n), h - 1));
                    for (int sx = 0; sx < n; ++sx) {
                        const int x =
                            static_cast<int>(std::min<long long>(cx0 + (sx * s) / n + s / (2 * n), w - 1));
                        const Rgba v = cell_colour(b, key.mode, key.variant, x, y);
                        sr += std::uint32_t{v.r} * v.a;
                        sg += std::uint32_t{v.g} * v.a;
                        sb += std::uint32_t{v.b} * v.a;
                        sa += v.a;
                    }
                }
                if (sa > 0) {
                    const auto count = static_cast<std::uint32_t>(n * n);
                    c = {static_cast<std::uint8_t>((sr + sa / 2) / sa),
                         static_cast<std::uint8_t>((sg + sa / 2) / sa),
                         static_cast<std::uint8_t>((sb + sa / 2) / sa),
                         static_cast<std::uint8_t>((sa + count / 2) / count)};
                }
            }
            std::uint8_t* p =
                &pixels[(static_cast<std::size_t>(ty) * kBlockTexels + static_cast<std::size_t>(tx)) * 4];
            p[0] = c.r;
            p[1] = c.g;
            p[2] = c.b;
            p[3] = c.a;
        }
    }
    if (!texture.create(kBlockTexels, kBlockTexels)) return false;
    texture.update(pixels.data());
    texture.setSmooth(false);
    return true;
}

MapRenderer::Block* MapRenderer::find_block(const BlockKey& key) {
    auto it = blocks_.find(key);
    return it == blocks_.end() ? nullptr : &it->second;
}

void MapRenderer::draw_block_part(sf::RenderTarget& target, const sf::Transform& transform,
                                  const BlockKey& key, const sf::Texture& texture, int cx0, int cy0, int cx1,
                                  int cy1) const {
    const int tw = build_->tile_width(), th = build_->tile_height();
    const double s = static_cast<double>(1 << key.level);
    const double ox = static_cast<double>(key.bx) * kBlockTexels * s,
                 oy = static_cast<double>(key.by) * kBlockTexels * s;
    sf::VertexArray quad(sf::Quads);
    append_quad(quad, static_cast<float>(cx0) * static_cast<float>(tw),
                static_cast<float>(cy0) * static_cast<float>(th),
                static_cast<float>(cx1) * static_cast<float>(tw),
                static_cast<float>(cy1) * static_cast<float>(th), static_cast<float>((cx0 - ox) / s),
                static_cast<float>((cy0 - oy) / s), static_cast<float>((cx1 - ox) / s),
                static_cast<float>((cy1 - oy) / s));
    sf::RenderStates states(transform);
    states.texture = &texture;
    target.draw(quad, states);
}

bool MapRenderer::draw_blocks(sf::RenderTarget& target, const sf::Transform& transform, int mode,
                              std::uint64_t variant, int level, const CellRange& range, bool allow_build) {
    const int w = build_->width(), h = build_->height();
    const long long span = static_cast<long long>(kBlockTexels) << level;
    bool complete = true;
    for (long long by = range.y0 / span; by * span < range.y1; ++by)
        for (long long bx = range.x0 / span; bx * span < range.x1; ++bx) {
            const BlockKey key{mode, level, static_cast<int>(bx), static_cast<int>(by), variant};
            const int cx0 = static_cast<int>(bx * span), cy0 = static_cast<int>(by * span);
            const int cx1 = static_cast<int>(std::min<long long>((bx + 1) * span, w));
            const int cy1 = static_cast<int>(std::min<long long>((by + 1) * span, h));
            Block* block = find_block(key);
            if (!block && allow_build && !over_budget()) {
                auto texture = std::make_unique<sf::Texture>();
                if (build_block(key, *texture)) {
                    Block& made = blocks_[key];
                    made.texture = std::move(texture);
                    block = &made;
                }
            }
            if (block) {
                block->last_used = frame_;
                draw_block_part(target, transform, key, *block->texture, cx0, cy0, cx1, cy1);
                ++stats_.blocks_drawn;
                continue;
            }
            complete = false;
            // Stand-in until the block is made: a coarser block already cached, if any.
            for (int coarser = level + 1; coarser <= level + 6; ++coarser) {
                const long long cspan = static_cast<long long>(kBlockTexels) << coarser;
                const BlockKey ck{mode, coarser, static_cast<int>(cx0 / cspan), static_cast<int>(cy0 / cspan),
                                  variant};
                if (Block* cb = find_block(ck)) {
                    cb->last_used = frame_;
                    draw_block_part(target, transform, ck, *cb->texture, cx0, cy0, cx1, cy1);
                    break;
                }
            }
        }
    return complete;
}

bool MapRenderer::draw(sf::RenderTarget& target, const Camera& camera, double view_w, double view_h,
                       const RenderSettings& settings, double budget_ms) {
    ++frame_;
    stats_.chunks_drawn = stats_.blocks_drawn = 0;
    if (!build_) return true;
    budget_ms_ = budget_ms;
    deadline_ns_ = now_ns() + static_cast<std::int64_t>(std::max(0.0, budget_ms) * 1e6);
    const Build& b = *build_;
    const int tw = b.tile_width(), th = b.tile_height();
    const CellRange range = camera.visible_cells(b.width(), b.height(), tw, th, view_w, view_h);
    if (range.empty()) return true;

    sf::Transform transform;
    transform.translate(static_cast<float>(camera.translate_x()), static_cast<float>(camera.translate_y()));
    transform.scale(static_cast<float>(camera.zoom), static_cast<float>(camera.zoom));

    const double cell_px = camera.zoom * std::min(tw, th);
    int level = 0;
    if (cell_px < 1) level = std::clamp(static_cast<int>(std::ceil(std::log2(1.0 / cell_px) - 1e-9)), 0, 20);
    bool complete = true;

    const bool tiles_base = settings.overlay == Overlay::tiles || settings.overlay == Overlay::unmatched;
    if (tiles_base) {
        if (cell_px >= kTilesMinCellPixels && atlas_ok_) {
            stats_.level = -1;
            sf::RenderStates states(transform);
            states.texture = &atlas_;
            sf::RenderStates opaque_states = states;
            opaque_states.blendMode = sf::BlendNone;
            std::vector<ChunkKey> missing;
            for (int cy = range.y0 / kChunkCells; cy * kChunkCells < range.y1; ++cy)
                for (int cx = range.x0 / kChunkCells; cx * kChunkCells < range.x1; ++cx) {
                    const ChunkKey key{cx, cy, settings.visible_layers};
                    auto it = chunks_.find(key);
                    if (it == chunks_.end()) {
                        if (over_budget()) {
                            missing.push_back(key);
                            continue;
                        }
                        it = chunks_.emplace(key, Chunk{}).first;
                        build_chunk(key, it->second);
                    }
                    it->second.last_used = frame_;
                    if (it->second.base.getVertexCount() > 0) target.draw(it->second.base, opaque_states);
                    if (it->second.quads.getVertexCount() > 0) target.draw(it->second.quads, states);
                    ++stats_.chunks_drawn;
                }
            draw_objects(target, transform, range);
            for (const ChunkKey& key : missing) {
                complete = false;
                const long long span = kBlockTexels;
                const int cx0 = key.cx * kChunkCells, cy0 = key.cy * kChunkCells;
                const BlockKey bk{kModeTileAverage, 0, static_cast<int>(cx0 / span),
                                  static_cast<int>(cy0 / span), settings.visible_layers};
                if (Block* blk = find_block(bk)) {
                    blk->last_used = frame_;
                    draw_block_part(target, transform, bk, *blk->texture, cx0, cy0,
                                    std::min(cx0 + kChunkCells, b.width()),
                                    std::min(cy0 + kChunkCells, b.height()));
                }
            }
        } else {
            stats_.level = level;
            complete &=
                draw_blocks(target, transform, kModeTileAverage, settings.visible_layers, level, range, true);
        }
        if (settings.overlay == Overlay::unmatched) {
            stats_.level = level;
            complete &= draw_blocks(target, transform, kModeUnmatched, 0, level, range, true);
        }
    } else {
        stats_.level = level;
        const int mode = settings.overlay == Overlay::classes  ? kModeClasses
                         : settings.overlay == Overlay::height ? kModeHeight
                                                               : kModeRules;
        const std::uint64_t variant =
            mode == kModeRules ? static_cast<std::uint64_t>(settings.focus_layer) : 0;
        complete &= draw_blocks(target, transform, mode, variant, level, range, true);
    }
    evict();
    return complete;
}

void MapRenderer::evict() {
    auto trim = [this](auto& cache, std::size_t budget) {
        if (cache.size() <= budget) return;
        using Key = typename std::decay_t<decltype(cache)>::key_type;
        std::vector<std::pair<std::uint64_t, Key>> order;
        for (const auto& [key, entry] : cache)
            if (entry.last_used < frame_) order.emplace_back(entry.last_used, key);
        std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [used, key] : order) {
            if (cache.size() <= budget) break;
            cache.erase(key);
        }
    };
    trim(chunks_, chunk_budget_);
    trim(blocks_, block_budget_);
    stats_.chunks = chunks_.size();
    stats_.blocks = blocks_.size();
    stats_.chunk_bytes = 0;
    for (const auto& [key, chunk] : chunks_)
        stats_.chunk_bytes +=
            (chunk.base.getVertexCount() + chunk.quads.getVertexCount()) * sizeof(sf::Vertex);
    stats_.block_bytes = blocks_.size() * static_cast<std::size_t>(kBlockTexels) * kBlockTexels * 4;
}

} // namespace tilegen::viewer
