// PreviewRenderer: the map's preview picture, rendered a band of pixel rows at a time, so a
// streaming encoder (io/png_stream.hpp) never holds the whole image.
// Input: a Map and the largest side in pixels (render_map_preview's reduction above it).
// Output: pixel rows [y0, y1) on demand, from any thread at once (render_rows is const and
// touches only its output).
// Invariants: the pixels are exactly render_map_preview(map, max_side)'s: tile layers first to
// last, then each object layer's sprites in order, every pixel blended with blend_over in the same
// order (an object crossing a band's edge is drawn, clipped, in every band it touches); the colour
// form is decided up front from the tiles and sprites the map uses, never from rendered pixels:
//  - indexed: when no used tile or sprite pixel is partly transparent (alpha 0 or 255 only) and
//    those pixels plus transparent black hold at most 256 colours, every output pixel is one of
//    them (a blend then only ever copies a source pixel); rows hold one palette index per pixel;
//  - rgb: otherwise, when every cell has a fully opaque tile in some layer (so every pixel ends
//    opaque); rows hold R G B;
//  - rgba: otherwise; rows hold R G B A.
// The reduced preview (factor > 1, tile layers only) takes the same three forms; when the factor
// divides square tiles it is drawn cell by cell from tiles reduced once (each cell holds the same
// samples), else pixel by pixel with its palette from every pixel of the atlas image.
// A map with a corner layer (map.hpp) is rendered whole up front by render_map_preview, in rgba
// (width() x height() then include the corner margins).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/map.hpp"

namespace tilegen {

enum class PreviewColor { indexed, rgb, rgba };

class PreviewRenderer {
  public:
    // `map` must outlive the renderer. max_side >= 1. threads: workers that scan the layers for
    // the tiles they use (default 1; the result never depends on it).
    PreviewRenderer(const Map& map, int max_side, int threads = 1);

    int width() const { return width_; }
    int height() const { return height_; }
    int factor() const { return factor_; } // 1 = full size
    // Pixels of a row drawn from one cell (a tile's row) when drawn cell by cell, else 1.
    int piece_pixels() const { return by_cells_ ? cell_w_ : 1; }
    PreviewColor color() const { return color_; }
    // indexed only: at most 256 colours, transparent ones first, then by value.
    const std::vector<Rgba>& palette() const { return palette_; }
    // Bytes per pixel of the rows render_rows leaves: 1 (indexed), 3 (rgb) or 4 (rgba).
    int bytes_per_pixel() const;
    // Bytes `out` must hold to render `rows` rows (rgb rows are drawn as RGBA, then packed).
    std::size_t buffer_bytes(int rows) const;

    // Renders pixel rows [y0, y1) (0 <= y0 < y1 <= height()) into `out` (buffer_bytes(y1 - y0)
    // bytes): row after row, width() * bytes_per_pixel() bytes each, no padding. With a pitch
    // (indexed and rgba only, at least width() * bytes_per_pixel()), row r starts at out + r *
    // pitch and the bytes between rows are left alone (a PNG strip's filter bytes).
    void render_rows(int y0, int y1, std::uint8_t* out, std::size_t pitch = 0) const;

  private:
    // A tile as drawn for one gid (flips applied): per pixel a value (a palette index, or R G B A)
    // and a kind: 0 not drawn (a diagonal flip of a non-square tile), 1 opaque (copied), 2 other
    // (blended). Rows whose pixels are all opaque are copied whole.
    struct Variant {
        std::size_t values = 0; // first pixel in variant_values_ (times bytes per value)
        std::size_t kinds = 0;  // offset into variant_kinds_ (tile_width * tile_height each)
        std::vector<std::uint8_t> opaque_rows; // per row: 1 when all its pixels are opaque
        bool opaque = false;                   // every pixel opaque
    };
    int variant_of(Gid gid) const;
    void render_cells(int y0, int y1, std::uint8_t* out, std::size_t pitch) const;
    void render_reduced(int y0, int y1, std::uint8_t* out, std::size_t pitch) const;
    std::uint8_t index_of(Rgba c) const;

    const Map& map_;
    // A map with a corner layer: render_map_preview's image, drawn up front (rgba).
    bool whole_map_ = false;
    Image whole_;
    int width_ = 0, height_ = 0, factor_ = 1;
    bool by_cells_ = true;        // drawn cell by cell (else pixel by pixel)
    int cell_w_ = 1, cell_h_ = 1; // a cell's pixels in the preview when by_cells_
    PreviewColor color_ = PreviewColor::rgba;
    std::vector<Rgba> palette_;
    std::unordered_map<std::uint32_t, std::uint8_t> palette_index_;
    std::uint8_t transparent_index_ = 0;          // palette index of transparent black
    std::vector<std::uint8_t> index_transparent_; // per palette index (256): 1 when alpha 0
    std::vector<int> variant_slot_; // per (atlas index * 8 + flip bits): into variants_, or -1
    std::vector<Variant> variants_;
    std::vector<std::uint8_t> variant_values_, variant_kinds_;
    std::vector<std::uint8_t> sprite_indices_; // indexed: the sprite sheet as palette indices
    // Objects by band of kObjectBand pixel rows: object_refs_[object_band_start_[b] ..
    // object_band_start_[b + 1]) are the objects touching band b, in drawing order.
    static constexpr int kObjectBand = 64;
    std::vector<std::size_t> object_band_start_;
    std::vector<const MapObject*> object_refs_;
};

} // namespace tilegen
