// MapRenderer: draws a Build's map (or an overlay of it) through a Camera, fast for any map size.
// Input: the current Build, the camera, the viewport size and what to show (overlay, visible layers, focused
// layer). Output: draw calls on an sf::RenderTarget; whether everything in view was drawn at full detail.
//
// How it stays fast and small:
//  - Zoomed in (a cell >= kTilesMinCellPixels on screen) the tiles are drawn from *chunks*: one
//  sf::VertexArray of
//    quads over the atlas texture per kChunkCells x kChunkCells cells (all visible layers, in layer order),
//    made lazily for chunks in view only, kept in an LRU cache of at most `chunk_budget` chunks.
//  - Zoomed out, and for the colour overlays (classes, height, unmatched, rules) at every zoom, the map is
//  drawn
//    from *blocks*: kBlockTexels x kBlockTexels textures with one texel per 2^level x 2^level cells (level 0:
//    one texel per cell, the cell's colour; tiles use each tile's average colour), level chosen so a texel
//    covers at least one screen pixel. Blocks are made lazily for the view and kept in an LRU cache of
//    `block_budget`.
//  - Making chunks/blocks stops when a frame's time budget is spent; what is missing is drawn from a coarser
//    cached block if there is one, and the next frames fill it in (draw() returns false until complete).
// So memory is O(cells) for the Build plus a bounded cache, never O(vertices of the whole map).
// Invariants: nearest-neighbour sampling everywhere (no texture smoothing); at zoom 1 with the default camera
// the pixels drawn equal render_map()'s for opaque tiles (partly transparent tiles blend as OpenGL does).
#pragma once

#include <SFML/Graphics/RenderTarget.hpp>
#include <SFML/Graphics/Texture.hpp>
#include <SFML/Graphics/VertexArray.hpp>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "viewer/build.hpp"
#include "viewer/camera.hpp"

namespace tilegen::viewer {

enum class Overlay { tiles, classes, height, unmatched, rules };
const char* overlay_name(Overlay overlay);
std::optional<Overlay> overlay_from_name(const std::string& name);

struct RenderSettings {
    Overlay overlay = Overlay::tiles;
    std::uint64_t visible_layers = ~std::uint64_t{0}; // bit i = layer i shown (layers >= 64 are always shown)
    int focus_layer = 0;                              // the layer the rules overlay colours
};

class MapRenderer {
  public:
    static constexpr int kChunkCells = 32;
    static constexpr int kBlockTexels = 256;
    static constexpr double kTilesMinCellPixels = 8;

    explicit MapRenderer(std::size_t chunk_budget = 384, std::size_t block_budget = 160);

    // Adopts a new build: uploads its atlas and empties the caches. Returns false if the atlas cannot be a
    // texture (too large for the graphics driver); the map is then drawn from blocks only.
    bool set_build(std::shared_ptr<const Build> build);
    const std::shared_ptr<const Build>& build() const { return build_; }

    // Draws the map into the target (pixel coordinates, viewport at 0,0 of size view_w x view_h). Spends at
    // most `budget_ms` making chunks/blocks (< 0: no limit). Returns true when nothing was left out.
    bool draw(sf::RenderTarget& target, const Camera& camera, double view_w, double view_h,
              const RenderSettings& settings, double budget_ms);

    struct Stats {
        std::size_t chunks = 0, blocks = 0; // cached
        std::size_t chunk_bytes = 0, block_bytes = 0;
        int chunks_drawn = 0, blocks_drawn = 0; // last frame
        int level = 0;                          // last frame's block level (-1: chunks)
    };
    Stats stats() const { return stats_; }

  private:
    struct ChunkKey {
        int cx, cy;
        std::uint64_t layers;
        bool operator==(const ChunkKey&) const = default;
    };
    struct BlockKey {
        int mode, level, bx, by;
        std::uint64_t variant;
        bool operator==(const BlockKey&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const ChunkKey& k) const;
        std::size_t operator()(const BlockKey& k) const;
    };
    struct Chunk {
        sf::VertexArray base;  // opaque tiles of the first visible layer: drawn without blending (cheaper)
        sf::VertexArray quads; // everything else, alpha blended, in layer order
        std::uint64_t last_used = 0;
    };
    struct Block {
        std::unique_ptr<sf::Texture> texture;
        std::uint64_t last_used = 0;
    };

    void build_chunk(const ChunkKey& key, Chunk& chunk) const;
    bool build_block(const BlockKey& key, sf::Texture& texture) const;
    Block* find_block(const BlockKey& key);
    void draw_block_part(sf::RenderTarget& target, const sf::Transform& transform, const BlockKey& key,
                         const sf::Texture& texture, int cx0, int cy0, int cx1, int cy1) const;
    // Draws blocks of `mode` covering `range`; false when some were missing.
    bool draw_blocks(sf::RenderTarget& target, const sf::Transform& transform, int mode,
                     std::uint64_t variant, int level, const CellRange& range, bool allow_build);
    bool over_budget() const;
    void evict();

    // Objects (sprites on top) whose sprite cell overlaps the visible cells, in the map's drawing order.
    void draw_objects(sf::RenderTarget& target, const sf::Transform& transform, const CellRange& range);

    std::shared_ptr<const Build> build_;
    sf::Texture atlas_;
    bool atlas_ok_ = false;
    sf::Texture sprites_;
    bool sprites_ok_ = false;
    std::unordered_map<ChunkKey, Chunk, KeyHash> chunks_;
    std::unordered_map<BlockKey, Block, KeyHash> blocks_;
    std::size_t chunk_budget_, block_budget_;
    std::uint64_t frame_ = 0;
    double budget_ms_ = -1;
    std::int64_t deadline_ns_ = 0;
    Stats stats_;
};

} // namespace tilegen::viewer
