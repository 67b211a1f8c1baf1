// MapRenderer: draws a Build's map (or an overlay of it) through a Camera, fast for any map size.
// Input: the current Build, the camera, the viewport size and what to show (overlay, visible
// layers, focused layer). Output: draw calls on an sf::RenderTarget; whether everything in view was
// drawn from its own piece.
//
// How it stays fast and small:
//  - The map is drawn from *pieces* (map_pixels.hpp), one texture each. Zoomed in (a cell of at
//  least
//    kTilesMinCellPixels on screen) from *chunks*: render_map()'s pixels for a square of cells,
//    tile layers and objects composed once, so a frame draws one quad per chunk instead of every
//    tile and sprite. Zoomed out, and for the color overlays at every zoom, from *blocks* of
//    kBlockTexels x kBlockTexels texels, one per 2^level x 2^level cells, the level chosen so a
//    texel covers at least one screen pixel.
//  - A PieceWorker thread makes the pieces in view, then a ring of chunks around it or the next
//  coarser level
//    of blocks (what panning and zooming out need next); the window's thread only uploads made
//    pixels, at most `budget_ms` a frame (at least one piece). Until a piece is uploaded its cells
//    are drawn from a stand-in: a cached coarser (or finer) piece, else the Build's overview, so
//    there is never a hole.
//  - Uploaded pieces stay in an LRU cache of at most `cache_bytes` (more only while the view needs
//  more).
//  - Textures hold B G R A bytes and are drawn with a shader that only samples them (when the
//  driver has
//    shaders): Mesa's software rasterizer (llvmpipe) then copies axis-aligned quads row by row
//    instead of running a shader per pixel, several times cheaper.
// So memory is O(cells) for the Build plus a bounded cache, never O(pixels of the whole map).
// Invariants: nearest-neighbour sampling everywhere (no texture smoothing); at zoom 1 with the
// default camera the pixels drawn equal render_map()'s wherever those are opaque (chunks are
// render_map's pixels).
#pragma once

#include <SFML/Graphics/RenderTarget.hpp>
#include <SFML/Graphics/Shader.hpp>
#include <SFML/Graphics/Texture.hpp>
#include <SFML/Window/Context.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "viewer/build.hpp"
#include "viewer/camera.hpp"
#include "viewer/map_pixels.hpp"
#include "viewer/piece_worker.hpp"

namespace tilegen::viewer {

enum class Overlay { tiles, classes, height, unmatched, rules, flow };
const char* overlay_name(Overlay overlay);
std::optional<Overlay> overlay_from_name(const std::string& name);

struct RenderSettings {
    Overlay overlay = Overlay::tiles;
    std::uint64_t visible_layers =
        ~std::uint64_t{0}; // bit i = layer i shown (layers >= 64 are always shown)
    int focus_layer = 0;   // the layer the rules overlay colors
};

class MapRenderer {
  public:
    static constexpr double kTilesMinCellPixels = 8;
    static constexpr std::size_t kDefaultCacheBytes = std::size_t{64} << 20;

    explicit MapRenderer(std::size_t cache_bytes = kDefaultCacheBytes);

    // Readies OpenGL for maps while none is shown (call it in the frames before the first map,
    // before clearing them): draws each state the map is drawn with once, off the frame's picture
    // (software OpenGL compiles a state on first use, which takes milliseconds), and creates a few
    // piece textures per call.
    void prepare(sf::RenderTarget& target);

    // Adopts a new build: uploads its overview and empties the caches (their textures are kept for
    // reuse).
    void set_build(std::shared_ptr<const Build> build);
    const std::shared_ptr<const Build>& build() const { return build_; }

    // Draws the map into the target (pixel coordinates, viewport at 0,0 of size view_w x view_h).
    // Spends at most `budget_ms` uploading pieces (at least one when any is made); budget_ms < 0:
    // makes and uploads every piece in view now, on this thread. Returns true when no piece in view
    // was drawn from a stand-in.
    bool draw(sf::RenderTarget& target, const Camera& camera, double view_w, double view_h,
              const RenderSettings& settings, double budget_ms);

    struct Stats {
        std::size_t pieces = 0, bytes = 0; // cached
        int drawn = 0, stand_ins = 0; // last frame: pieces in view drawn, of them from a stand-in
        int uploaded = 0;             // last frame: pieces uploaded
        double upload_ms = 0; // last frame: time spent making (budget < 0) and uploading pieces
        int level = 0;        // last frame's block level (-1: chunks)
    };
    Stats stats() const { return stats_; }

  private:
    struct Piece {
        std::unique_ptr<sf::Texture> texture; // content at the top-left (edge pieces are smaller)
        bool opaque = false;
        std::uint64_t last_used = 0;
    };
    struct CellRect {
        long long x0, y0, x1, y1;
    };

    // Once, with the target's OpenGL context active: the copy shader and BGRA textures when
    // possible.
    void init_gl();
    CellRect piece_cells(const PieceKey& key) const;
    sf::Vector2u
    texture_size(const PieceKey& key) const; // powers of two: one compiled state serves all
    std::unique_ptr<sf::Texture> new_texture(sf::Vector2u size);
    bool make_texture(sf::Texture& texture, sf::Vector2u size);
    // Pixels (in the textures' byte order) into the texture's top-left corner.
    void fill_texture(sf::Texture& texture, const Image& pixels);
    // After OpenGL calls behind SFML's back: resets SFML's state cache before it draws again.
    void sync_states(sf::RenderTarget& target);
    void upload_overview();
    // The pieces that show `range` (chunks or blocks of one mode and level), in drawing order.
    void add_pieces(std::vector<PieceKey>& out, int mode, std::uint64_t variant, int level,
                    const CellRange& range) const;
    // Uploads made pieces: those in view first, then the prefetched ones, within the budget.
    void upload_made(const std::vector<PieceKey>& view, const std::vector<PieceKey>& prefetch,
                     double budget_ms);
    void upload(MadePiece made);
    Piece* find(const PieceKey& key);
    // Draws the part `cells` of a texture whose texel (0, 0) is at cell `origin`, `per_cell` texels
    // a cell.
    void draw_part(sf::RenderTarget& target, const sf::Transform& transform,
                   const sf::Texture& texture, const CellRect& cells, double origin_x,
                   double origin_y, double per_cell_x, double per_cell_y, bool opaque) const;
    void draw_piece(sf::RenderTarget& target, const sf::Transform& transform, const PieceKey& key,
                    Piece& piece, const CellRect& cells);
    // Draws the best cached stand-in for a missing piece: a coarser block or the overview, then
    // finer pieces.
    void draw_stand_in(sf::RenderTarget& target, const sf::Transform& transform,
                       const PieceKey& key, const CellRange& range);
    void evict();

    std::shared_ptr<const Build> build_;
    int chunk_cells_ = kMaxChunkCells;
    sf::Texture overview_; // kOverviewTexels square (or larger, for a map that needs it); the
                           // overview at 0,0
    bool overview_made_ = false;
    bool overview_ok_ = false;
    bool overview_pending_ =
        false;               // set_build's overview waits for the next draw (an active context)
    sf::Shader copy_shader_; // samples the texture, nothing else
    bool gl_ready_ = false;
    bool bgra_ = false;       // textures hold B G R A bytes, drawn with copy_shader_
    bool gl_touched_ = false; // OpenGL was called directly: SFML's state cache is stale
    sf::GlFunctionPointer tex_image_ = nullptr, tex_sub_image_ = nullptr;
    std::unordered_map<PieceKey, Piece, PieceKeyHash> pieces_;
    std::vector<MadePiece> made_; // from the worker, waiting to be uploaded
    std::vector<std::unique_ptr<sf::Texture>>
        spare_;                 // textures of evicted pieces, reused by uploads
    bool states_ready_ = false; // prepare() drew every state once
    std::size_t cache_bytes_;
    std::uint64_t frame_ = 0;
    Stats stats_;
    PieceWorker worker_; // last: stops before the rest goes
};

} // namespace tilegen::viewer
