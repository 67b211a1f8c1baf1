#include "viewer/map_renderer.hpp"

#include <SFML/Graphics/RenderStates.hpp>
#include <SFML/Graphics/Vertex.hpp>
#include <SFML/OpenGL.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>

namespace tilegen::viewer {

namespace {

constexpr std::size_t kMaxSpareBytes = std::size_t{24} << 20;
constexpr int kMaxLevel = 20;
constexpr int kPreparedChunkTextures =
    16; // made by prepare(): the pieces of a 1280x800 view at zoom 1 or so
constexpr int kPreparedBlockTextures = 8;

unsigned power_of_two_at_least(unsigned n) {
    unsigned p = 1;
    while (p < n)
        p *= 2;
    return p;
}

std::size_t texture_bytes(const sf::Texture& texture) {
    return std::size_t{texture.getSize().x} * texture.getSize().y * 4;
}

// The whole fragment shader: the texel, untouched (vertex colors are white).
const char* kCopyShader = "uniform sampler2D piece;\n"
                          "void main() { gl_FragColor = texture2D(piece, gl_TexCoord[0].xy); }\n";

using TexImage2D = void (*)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum,
                            const GLvoid*);
using TexSubImage2D = void (*)(GLenum, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum,
                               const GLvoid*);

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

} // namespace

// A lookup, one case per overlay: the cases share their shape, not logic (deliberate).
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
    case Overlay::flow:
        return "flow";
    }
    return "tiles";
}

std::optional<Overlay> overlay_from_name(const std::string& name) {
    for (Overlay o : {Overlay::tiles, Overlay::classes, Overlay::height, Overlay::unmatched,
                      Overlay::rules, Overlay::flow})
        if (name == overlay_name(o)) return o;
    return std::nullopt;
}

MapRenderer::MapRenderer(std::size_t cache_bytes) : cache_bytes_(cache_bytes) {}

void MapRenderer::init_gl() {
    if (gl_ready_) return;
    gl_ready_ = true;
    // OpenGL functions through SFML (the program does not link OpenGL itself).
    tex_image_ = sf::Context::getFunction("glTexImage2D");
    tex_sub_image_ = sf::Context::getFunction("glTexSubImage2D");
    bgra_ = tex_image_ && tex_sub_image_ && sf::Shader::isAvailable() &&
            copy_shader_.loadFromMemory(kCopyShader, sf::Shader::Fragment);
    if (bgra_) copy_shader_.setUniform("piece", sf::Shader::CurrentTexture);
    worker_.set_bgra(bgra_);
}

bool MapRenderer::make_texture(sf::Texture& texture, sf::Vector2u size) {
    if (!texture.create(size.x, size.y)) return false;
    texture.setSmooth(false);
    if (bgra_) {
        // The same size again, declared as BGRA data: the driver then stores B G R A texels.
        sf::Texture::bind(&texture);
        reinterpret_cast<TexImage2D>(tex_image_)(
            GL_TEXTURE_2D, 0, GL_RGBA, static_cast<GLsizei>(size.x), static_cast<GLsizei>(size.y),
            0, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
        sf::Texture::bind(nullptr);
        gl_touched_ = true;
    }
    return true;
}

void MapRenderer::sync_states(sf::RenderTarget& target) {
    if (gl_touched_) target.resetGLStates(); // SFML's idea of the bound texture is stale
    gl_touched_ = false;
}

std::unique_ptr<sf::Texture> MapRenderer::new_texture(sf::Vector2u size) {
    auto texture = std::make_unique<sf::Texture>();
    if (!make_texture(*texture, size)) return nullptr;
    return texture;
}

void MapRenderer::fill_texture(sf::Texture& texture, const Image& pixels) {
    const auto w = static_cast<unsigned>(pixels.width()),
               h = static_cast<unsigned>(pixels.height());
    if (!bgra_) {
        texture.update(pixels.pixels().data(), w, h, 0, 0);
        return;
    }
    sf::Texture::bind(&texture);
    reinterpret_cast<TexSubImage2D>(tex_sub_image_)(GL_TEXTURE_2D, 0, 0, 0, static_cast<GLsizei>(w),
                                                    static_cast<GLsizei>(h), GL_BGRA,
                                                    GL_UNSIGNED_BYTE, pixels.pixels().data());
    sf::Texture::bind(nullptr);
    gl_touched_ = true;
}

void MapRenderer::prepare(sf::RenderTarget& target) {
    target.setActive(true);
    init_gl();
    if (!states_ready_) {
        // A 1-pixel quad in each state, drawn before the frame clears the target.
        const auto texture = new_texture({4, 4});
        if (!texture) return;
        const sf::Vertex quad[4] = {sf::Vertex({0, 0}, {0, 0}), sf::Vertex({1, 0}, {1, 0}),
                                    sf::Vertex({1, 1}, {1, 1}), sf::Vertex({0, 1}, {0, 1})};
        sync_states(target);
        for (const sf::BlendMode& blend : {sf::BlendNone, sf::BlendAlpha}) {
            sf::RenderStates states;
            states.blendMode = blend;
            states.texture = texture.get();
            states.shader = bgra_ ? &copy_shader_ : nullptr;
            target.draw(quad, 4, sf::Quads, states);
        }
        states_ready_ = true;
        return;
    }
    if (!overview_made_) {
        overview_made_ = make_texture(overview_, {kOverviewTexels, kOverviewTexels});
        if (overview_made_) fill_texture(overview_, Image(kOverviewTexels, kOverviewTexels));
        sync_states(target);
        return;
    }
    // Piece textures, a few per frame (creating one costs more than filling it).
    int chunks = 0, blocks = 0;
    for (const auto& t : spare_)
        ++(t->getSize().x == kBlockTexels ? blocks : chunks);
    for (int made = 0; made < 2; ++made) {
        const bool chunk = chunks < kPreparedChunkTextures;
        if (!chunk && blocks >= kPreparedBlockTextures) return;
        const unsigned side = chunk ? kMaxChunkPixels : kBlockTexels;
        auto texture = new_texture({side, side});
        if (!texture) break;
        // Written once now, so the first real upload does not also pay for fresh memory.
        fill_texture(*texture, Image(static_cast<int>(side), static_cast<int>(side)));
        spare_.push_back(std::move(texture));
        ++(chunk ? chunks : blocks);
    }
    sync_states(target);
}

void MapRenderer::set_build(std::shared_ptr<const Build> build) {
    std::size_t spare_bytes = 0;
    for (const auto& t : spare_)
        spare_bytes += texture_bytes(*t);
    for (auto& [key, piece] : pieces_)
        if (spare_bytes + texture_bytes(*piece.texture) <= kMaxSpareBytes) {
            spare_bytes += texture_bytes(*piece.texture);
            spare_.push_back(std::move(piece.texture));
        }
    pieces_.clear();
    made_.clear();
    build_ = std::move(build);
    worker_.want(build_, {});
    overview_ok_ = false;
    overview_pending_ = build_ != nullptr;
    if (build_) chunk_cells_ = chunk_cells(*build_);
}

void MapRenderer::upload_overview() {
    overview_pending_ = false;
    // Into the texture prepare() made when it fits (a new texture costs about as much as the
    // upload).
    const Image& img = build_->overview;
    const unsigned w = static_cast<unsigned>(img.width()), h = static_cast<unsigned>(img.height());
    if (w == 0 || h == 0) return;
    if (!overview_made_ || w > overview_.getSize().x || h > overview_.getSize().y) {
        const unsigned max = sf::Texture::getMaximumSize();
        const sf::Vector2u size{std::max<unsigned>(kOverviewTexels, power_of_two_at_least(w)),
                                std::max<unsigned>(kOverviewTexels, power_of_two_at_least(h))};
        if (size.x > max || size.y > max || !make_texture(overview_, size)) return;
        overview_made_ = true;
    }
    if (bgra_) {
        fill_texture(overview_, img);
    } else {
        Image rgba = img; // the Build keeps it in B G R A order
        swap_red_blue(rgba);
        fill_texture(overview_, rgba);
    }
    overview_ok_ = true;
}

MapRenderer::CellRect MapRenderer::piece_cells(const PieceKey& key) const {
    const long long span =
        key.mode == kChunk ? chunk_cells_ : static_cast<long long>(kBlockTexels) << key.level;
    return {key.x * span, key.y * span, std::min<long long>((key.x + 1) * span, build_->width()),
            std::min<long long>((key.y + 1) * span, build_->height())};
}

sf::Vector2u MapRenderer::texture_size(const PieceKey& key) const {
    if (key.mode != kChunk) return {kBlockTexels, kBlockTexels};
    const unsigned side = power_of_two_at_least(static_cast<unsigned>(
        chunk_cells_ * std::max({1, build_->tile_width(), build_->tile_height()})));
    return {std::max<unsigned>(side, kMaxChunkPixels), std::max<unsigned>(side, kMaxChunkPixels)};
}

void MapRenderer::add_pieces(std::vector<PieceKey>& out, int mode, std::uint64_t variant, int level,
                             const CellRange& range) const {
    if (range.empty()) return;
    const long long span =
        mode == kChunk ? chunk_cells_ : static_cast<long long>(kBlockTexels) << level;
    for (long long y = range.y0 / span; y * span < range.y1; ++y)
        for (long long x = range.x0 / span; x * span < range.x1; ++x)
            out.push_back({mode, mode == kChunk ? 0 : level, static_cast<int>(x),
                           static_cast<int>(y), variant});
}

MapRenderer::Piece* MapRenderer::find(const PieceKey& key) {
    auto it = pieces_.find(key);
    return it == pieces_.end() ? nullptr : &it->second;
}

void MapRenderer::upload(MadePiece made) {
    const sf::Vector2u size = texture_size(made.key);
    std::unique_ptr<sf::Texture> texture;
    for (auto it = spare_.begin(); it != spare_.end(); ++it)
        if ((*it)->getSize() == size) {
            texture = std::move(*it);
            spare_.erase(it);
            break;
        }
    if (!texture) texture = new_texture(size);
    if (!texture) return; // drawn from stand-ins
    const Image& px = made.pixels;
    fill_texture(*texture, px);
    Piece& piece = pieces_[made.key];
    piece.texture = std::move(texture);
    piece.opaque = made.opaque;
    piece.last_used = frame_;
    ++stats_.uploaded;
}

void MapRenderer::upload_made(const std::vector<PieceKey>& view,
                              const std::vector<PieceKey>& prefetch, double budget_ms) {
    if (made_.empty()) return;
    // Rank each made piece by where the frame wants it; pieces no longer wanted are dropped.
    auto rank = [&](const PieceKey& key) -> std::ptrdiff_t {
        auto v = std::find(view.begin(), view.end(), key);
        if (v != view.end()) return v - view.begin();
        auto p = std::find(prefetch.begin(), prefetch.end(), key);
        if (p != prefetch.end())
            return static_cast<std::ptrdiff_t>(view.size()) + (p - prefetch.begin());
        return -1;
    };
    std::vector<std::pair<std::ptrdiff_t, std::size_t>> order;
    for (std::size_t i = 0; i < made_.size(); ++i)
        if (const auto r = rank(made_[i].key); r >= 0 && !find(made_[i].key))
            order.emplace_back(r, i);
    std::sort(order.begin(), order.end());
    const auto start = std::chrono::steady_clock::now();
    std::vector<MadePiece> kept;
    std::size_t next = 0;
    for (; next < order.size(); ++next) {
        if (stats_.uploaded > 0 && ms_since(start) >= budget_ms) break;
        upload(std::move(made_[order[next].second]));
    }
    for (; next < order.size(); ++next)
        kept.push_back(std::move(made_[order[next].second]));
    made_ = std::move(kept);
    stats_.upload_ms += ms_since(start);
}

void MapRenderer::draw_part(sf::RenderTarget& target, const sf::Transform& transform,
                            const sf::Texture& texture, const CellRect& cells, double origin_x,
                            double origin_y, double per_cell_x, double per_cell_y,
                            bool opaque) const {
    const auto tw = static_cast<float>(build_->tile_width()),
               th = static_cast<float>(build_->tile_height());
    const float x0 = static_cast<float>(cells.x0) * tw, y0 = static_cast<float>(cells.y0) * th;
    const float x1 = static_cast<float>(cells.x1) * tw, y1 = static_cast<float>(cells.y1) * th;
    const auto u0 = static_cast<float>((static_cast<double>(cells.x0) - origin_x) * per_cell_x);
    const auto v0 = static_cast<float>((static_cast<double>(cells.y0) - origin_y) * per_cell_y);
    const auto u1 = static_cast<float>((static_cast<double>(cells.x1) - origin_x) * per_cell_x);
    const auto v1 = static_cast<float>((static_cast<double>(cells.y1) - origin_y) * per_cell_y);
    const sf::Vertex quad[4] = {sf::Vertex({x0, y0}, {u0, v0}), sf::Vertex({x1, y0}, {u1, v0}),
                                sf::Vertex({x1, y1}, {u1, v1}), sf::Vertex({x0, y1}, {u0, v1})};
    sf::RenderStates states(transform);
    states.texture = &texture;
    states.shader = bgra_ ? &copy_shader_ : nullptr;
    if (opaque) states.blendMode = sf::BlendNone; // cheaper: nothing under it is read
    target.draw(quad, 4, sf::Quads, states);
}

void MapRenderer::draw_piece(sf::RenderTarget& target, const sf::Transform& transform,
                             const PieceKey& key, Piece& piece, const CellRect& cells) {
    piece.last_used = frame_;
    const CellRect whole = piece_cells(key);
    if (key.mode == kChunk)
        draw_part(target, transform, *piece.texture, cells, static_cast<double>(whole.x0),
                  static_cast<double>(whole.y0), build_->tile_width(), build_->tile_height(),
                  piece.opaque);
    else
        draw_part(target, transform, *piece.texture, cells, static_cast<double>(whole.x0),
                  static_cast<double>(whole.y0), 1.0 / static_cast<double>(1LL << key.level),
                  1.0 / static_cast<double>(1LL << key.level), piece.opaque);
}

void MapRenderer::draw_stand_in(sf::RenderTarget& target, const sf::Transform& transform,
                                const PieceKey& key, const CellRange& range) {
    const CellRect cells = piece_cells(key);
    // A coarser block of the same kind (a chunk's is a level-0 tile-average block).
    const int mode = key.mode == kChunk ? kModeTileAverage : key.mode;
    const int first = key.mode == kChunk ? 0 : key.level + 1;
    bool covered = false;
    for (int level = first; level <= std::min(kMaxLevel, first + 6) && !covered; ++level) {
        const long long span = static_cast<long long>(kBlockTexels) << level;
        const PieceKey coarse{mode, level, static_cast<int>(cells.x0 / span),
                              static_cast<int>(cells.y0 / span), key.variant};
        if (Piece* p = find(coarse)) {
            draw_piece(target, transform, coarse, *p, cells);
            covered = true;
        }
    }
    // Else the overview (tile colors), except under the unmatched overlay (the tiles show
    // through).
    if (!covered && key.mode != kModeUnmatched && overview_ok_) {
        const double per_cell = 1.0 / static_cast<double>(1LL << build_->overview_level);
        draw_part(target, transform, overview_, cells, 0, 0, per_cell, per_cell,
                  build_->overview_opaque);
    }
    // Then finer pieces still cached on top (zooming out: the level below, or chunks below level
    // 0).
    if (key.mode == kChunk) return;
    const CellRange part{static_cast<int>(std::max<long long>(cells.x0, range.x0)),
                         static_cast<int>(std::max<long long>(cells.y0, range.y0)),
                         static_cast<int>(std::min<long long>(cells.x1, range.x1)),
                         static_cast<int>(std::min<long long>(cells.y1, range.y1))};
    std::vector<PieceKey> finer;
    if (key.level > 0)
        add_pieces(finer, key.mode, key.variant, key.level - 1, part);
    else if (key.mode == kModeTileAverage)
        add_pieces(finer, kChunk, key.variant, 0, part);
    for (const PieceKey& f : finer)
        if (Piece* p = find(f)) draw_piece(target, transform, f, *p, piece_cells(f));
}

bool MapRenderer::draw(sf::RenderTarget& target, const Camera& camera, double view_w, double view_h,
                       const RenderSettings& settings, double budget_ms) {
    ++frame_;
    stats_.drawn = stats_.stand_ins = stats_.uploaded = 0;
    stats_.upload_ms = 0;
    if (!build_) return true;
    target.setActive(true);
    init_gl();
    if (overview_pending_) upload_overview();
    const Build& b = *build_;
    const int tw = b.tile_width(), th = b.tile_height();
    const CellRange range = camera.visible_cells(b.width(), b.height(), tw, th, view_w, view_h);

    sf::Transform transform;
    transform.translate(static_cast<float>(camera.translate_x()),
                        static_cast<float>(camera.translate_y()));
    transform.scale(static_cast<float>(camera.zoom), static_cast<float>(camera.zoom));

    const double cell_px = camera.zoom * std::min(tw, th);
    int level = 0;
    if (cell_px < 1)
        level =
            std::clamp(static_cast<int>(std::ceil(std::log2(1.0 / cell_px) - 1e-9)), 0, kMaxLevel);
    const bool coarser_exists = (1LL << level) < std::max(b.width(), b.height());
    const CellRange ring{std::max(0, range.x0 - chunk_cells_), std::max(0, range.y0 - chunk_cells_),
                         std::min(b.width(), range.x1 + chunk_cells_),
                         std::min(b.height(), range.y1 + chunk_cells_)};

    // What the frame shows (in drawing order) and what it will likely show next.
    std::vector<PieceKey> view, prefetch;
    auto blocks = [&](int mode, std::uint64_t variant) {
        add_pieces(view, mode, variant, level, range);
        if (coarser_exists) add_pieces(prefetch, mode, variant, level + 1, range); // zooming out
    };
    const bool tiles_base =
        settings.overlay == Overlay::tiles || settings.overlay == Overlay::unmatched;
    if (tiles_base && cell_px >= kTilesMinCellPixels) {
        stats_.level = -1;
        add_pieces(view, kChunk, settings.visible_layers, 0, range);
        add_pieces(prefetch, kChunk, settings.visible_layers, 0, ring); // panning
        if (cell_px < 2 * kTilesMinCellPixels)
            add_pieces(prefetch, kModeTileAverage, settings.visible_layers, 0, range);
    } else if (tiles_base) {
        stats_.level = level;
        blocks(kModeTileAverage, settings.visible_layers);
    }
    if (settings.overlay == Overlay::unmatched) {
        stats_.level = level;
        blocks(kModeUnmatched, 0);
    } else if (!tiles_base) {
        stats_.level = level;
        const int mode = settings.overlay == Overlay::classes  ? kModeClasses
                         : settings.overlay == Overlay::height ? kModeHeight
                         : settings.overlay == Overlay::flow   ? kModeFlow
                                                               : kModeRules;
        blocks(mode, mode == kModeRules ? static_cast<std::uint64_t>(settings.focus_layer) : 0);
    }
    std::erase_if(prefetch, [&](const PieceKey& k) {
        return std::find(view.begin(), view.end(), k) != view.end();
    });
    // Prefetched pieces stay cached while wanted; none when they would not fit beside the view.
    std::size_t wanted_bytes = 0;
    for (const auto* list : {&view, &prefetch})
        for (const PieceKey& key : *list) {
            const sf::Vector2u size = texture_size(key);
            wanted_bytes += std::size_t{size.x} * size.y * 4;
        }
    if (wanted_bytes > cache_bytes_) prefetch.clear();
    for (const PieceKey& key : prefetch)
        if (Piece* p = find(key)) p->last_used = frame_;

    // Made pieces in, then the rest asked of the worker (or made here when there is no budget).
    for (MadePiece& m : worker_.take(build_.get()))
        made_.push_back(std::move(m));
    if (budget_ms < 0) {
        const auto start = std::chrono::steady_clock::now();
        upload_made(view, {}, 1e9);
        for (const PieceKey& key : view)
            if (!find(key)) {
                Image pixels = make_piece(b, key);
                const bool opaque = is_opaque(pixels);
                if (bgra_) swap_red_blue(pixels);
                upload({key, std::move(pixels), opaque});
            }
        stats_.upload_ms = ms_since(start);
        worker_.want(build_, {});
    } else {
        upload_made(view, prefetch, budget_ms);
        std::vector<PieceKey> wanted;
        for (const auto* list : {&view, &prefetch})
            for (const PieceKey& key : *list)
                if (!find(key) && std::none_of(made_.begin(), made_.end(),
                                               [&](const MadePiece& m) { return m.key == key; }))
                    wanted.push_back(key);
        worker_.want(build_, std::move(wanted));
    }
    sync_states(target);

    for (const PieceKey& key : view) {
        ++stats_.drawn;
        if (Piece* p = find(key)) {
            draw_piece(target, transform, key, *p, piece_cells(key));
        } else {
            ++stats_.stand_ins;
            draw_stand_in(target, transform, key, range);
        }
    }
    evict();
    return stats_.stand_ins == 0;
}

void MapRenderer::evict() {
    std::size_t bytes = 0, spare_bytes = 0;
    for (const auto& [key, piece] : pieces_)
        bytes += texture_bytes(*piece.texture);
    for (const auto& t : spare_)
        spare_bytes += texture_bytes(*t);
    if (bytes > cache_bytes_) {
        std::vector<std::pair<std::uint64_t, PieceKey>> order;
        for (const auto& [key, piece] : pieces_)
            if (piece.last_used < frame_) order.emplace_back(piece.last_used, key);
        std::sort(order.begin(), order.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [used, key] : order) {
            if (bytes <= cache_bytes_) break;
            auto it = pieces_.find(key);
            const std::size_t size = texture_bytes(*it->second.texture);
            bytes -= size;
            if (spare_bytes + size <= kMaxSpareBytes) {
                spare_bytes += size;
                spare_.push_back(std::move(it->second.texture));
            }
            pieces_.erase(it);
        }
    }
    stats_.pieces = pieces_.size();
    stats_.bytes = bytes + spare_bytes;
}

} // namespace tilegen::viewer
