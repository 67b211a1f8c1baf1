// PNG written strip by strip on several threads: large images (the map preview) are never held
// whole, neither as pixels nor as compressed bytes.
// Input: the image's size and colour form and a function that renders any band of its rows.
// Output: one PNG streamed into a ByteSink: libpng writes the signature, IHDR, PLTE, tRNS, every
// chunk's CRC and IEND; the image data is one zlib stream made as pigz makes one: the rows are cut
// into strips of a fixed height, each strip is rendered, filtered (PNG filter None on every row:
// tile art repeats byte for byte, which None keeps and the deflater looks for; it needs no row of
// another strip) and deflated on its own (io/strip_deflate.hpp's StripDeflater by default, or
// zlib at a chosen level: raw deflate, a fresh state per strip; either ends each strip as
// Z_SYNC_FLUSH does, on a byte boundary, and the last one as Z_FINISH), the pieces joined in
// order behind the zlib header and followed by the Adler-32 of all the filtered bytes (each
// strip's checksum joined with adler32_combine). Each strip goes out as one IDAT chunk.
// Invariants: the bytes depend only on the image, strip_rows, piece_pixels and the level, never on
// the thread count or the timing (strips are written in order); memory holds at most 2 x threads
// strips (raw, filtered and compressed) at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/image.hpp"
#include "core/map.hpp"
#include "io/byte_sink.hpp"

namespace tilegen::io {

enum class PngColor { indexed, rgb, rgba };

struct PngStrips {
    int width = 0, height = 0; // pixels, 1..2^31-1 each
    PngColor color = PngColor::rgba;
    // indexed: 1 to 256 colours; the bit depth is the smallest of 1, 2, 4, 8 that holds them.
    // Colours with alpha below 255 go in a tRNS chunk (put them first to keep it short).
    std::vector<Rgba> palette;
    // Rows rendered, filtered and deflated together (default 64, range 1..height). It fixes the
    // bytes written (the strips' boundaries), so it must not depend on the thread count.
    int strip_rows = 64;
    // Pixels of a row that tend to repeat as a whole (a tile's row in a preview: its width), from
    // the row's start: the built-in deflater looks for matches where such a piece starts. Default
    // 1 (everywhere), range 1..width; it changes the bytes, never the pixels.
    int piece_pixels = 1;
    // Bytes `rows` needs for n rows (at least the packed rows: n * width * 1, 3 or 4).
    std::function<std::size_t(int rows)> buffer_bytes;
    // Renders rows [y0, y1) into `out`, row after row: one byte per pixel (a palette index),
    // R G B, or R G B A. pitch 0: no padding (buffer_bytes(y1 - y0) bytes); else (8-bit indices
    // and RGBA only) row r starts at out + r * pitch and the bytes between rows must be left
    // alone. Called from several threads at once, for distinct rows.
    std::function<void(int y0, int y1, std::uint8_t* out, std::size_t pitch)> rows;
};

struct PngStreamOptions {
    int threads = 1; // strips rendered and deflated at once (default 1, range 1..256)
    // -1 (default): the built-in StripDeflater (about twice zlib's level-1 speed on tile art, and
    // smaller); 0..9: zlib at that level.
    int level = -1;
};

// Streams the PNG into `sink`. On failure (a libpng or zlib error) appends a diagnostic naming
// `name` and returns false; the sink may then hold a partial file.
[[nodiscard]] bool write_png_strips(ByteSink& sink, const PngStrips& image,
                                    const PngStreamOptions& options, const std::string& name,
                                    Diagnostics& diags);

// The largest side of generate's preview in pixels: larger maps get a reduced preview.
inline constexpr int kPreviewMaxSide = 16384;

// The map preview (core/preview.hpp's PreviewRenderer, sides at most max_side pixels) through
// write_png_strips: the pixels of render_map_preview(map, max_side), streamed. Returns the
// reduction factor (1 = full size), or nullopt after appending a diagnostic.
[[nodiscard]] std::optional<int> write_preview_png(ByteSink& sink, const Map& map, int max_side,
                                                   const PngStreamOptions& options,
                                                   const std::string& name, Diagnostics& diags);
// The same into a file, atomically (a temporary file, then rename).
[[nodiscard]] std::optional<int> save_preview_png(const std::filesystem::path& path, const Map& map,
                                                  int max_side, const PngStreamOptions& options,
                                                  Diagnostics& diags);

} // namespace tilegen::io
