// Map pixels: the CPU side of the viewer's renderer, pure functions of a Build (no SFML, no
// OpenGL), so they run on any thread. Two kinds of *piece*, each an Image the renderer uploads as
// one texture:
//  - a chunk: render_map()'s pixels for a square of cells (the visible tile layers, then every
//  object that
//    overlaps it, blended exactly as render_map blends them), so at zoom 1 the window shows
//    generate's PNG;
//  - a block: kBlockTexels x kBlockTexels texels, one per 2^level x 2^level cells, each the color
//  a mode
//    gives those cells (tile average, class, height, unmatched, deciding rule).
// The overview (the whole map as one block-like image, made with the Build) uses the block colors
// too. Invariants: pieces depend only on (build, key); edge pieces are smaller (they stop at the
// map's edge).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/image.hpp"
#include "viewer/build.hpp"

namespace tilegen::viewer {

// What a block texel shows; kChunk marks a chunk key.
enum PieceMode : int {
    kChunk = -1,
    kModeTileAverage = 0,
    kModeClasses,
    kModeHeight,
    kModeUnmatched,
    kModeRules,
    kModeFlow
};

inline constexpr int kBlockTexels = 256;
inline constexpr int kMaxChunkCells = 32;
inline constexpr int kMaxChunkPixels =
    512; // a chunk's side in map pixels at most (when a tile allows)
inline constexpr int kOverviewTexels = 1024; // the overview's side at most

// A chunk (mode kChunk: x, y in chunks, variant = visible layer mask) or a block (x, y in blocks at
// `level`; variant = layer mask for tile averages, the layer for rules, else 0).
struct PieceKey {
    int mode = kChunk;
    int level = 0;
    int x = 0, y = 0;
    std::uint64_t variant = 0;
    bool operator==(const PieceKey&) const = default;
};
struct PieceKeyHash {
    std::size_t operator()(const PieceKey& k) const;
};

bool layer_visible(std::uint64_t mask, std::size_t layer); // layers >= 64 are always visible

// Cells per chunk side: the largest power of two <= kMaxChunkCells whose pixels fit kMaxChunkPixels
// (>= 1).
int chunk_cells(const Build& build);

// The piece's pixels: a chunk is (cells x tile size) pixels, a block one texel per 2^level cells;
// both clipped to the map.
Image make_piece(const Build& build, const PieceKey& key);

bool is_opaque(const Image& image); // every pixel has alpha 255
void swap_red_blue(
    Image& image); // RGBA <-> BGRA byte order (the order the renderer's textures use)

// Cells per texel side (as a power of two) of the overview: the smallest level whose image of the
// whole map fits in max_side texels per side.
int overview_level(int map_w, int map_h, int max_side);
// The whole map in tile-average colors (every layer shown), one texel per 2^level cells, in RGBA
// order.
Image make_overview(const Build& build, int level);

} // namespace tilegen::viewer
