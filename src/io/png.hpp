// PNG (and BMP) images to and from tilegen::Image, without SFML: PNG decoding by libpng, BMP by a
// small reader here (uncompressed 24/32-bit), PNG encoding by encode_png (zlib only for CRCs).
// Input: file bytes or an RGBA Image. Output: 8-bit RGBA pixels as stb_image (SFML's decoder until
// now) gave them; PNG bytes exactly as tilegen has always written them (stb_image_write's encoder,
// so every atlas stays byte-identical). Invariant: the same image always encodes to the same bytes.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/diagnostic.hpp"
#include "core/image.hpp"

namespace tilegen::io {

// Loads a PNG or BMP file. On failure returns nullopt and appends a diagnostic naming the
// path.
std::optional<Image> load_image(const std::filesystem::path& path, Diagnostics& diags);
// Decodes an image held in memory (e.g. an embedded file); `name` is used in diagnostics.
std::optional<Image> decode_image(std::string_view bytes, const std::string& name,
                                  Diagnostics& diags);

// The PNG file of an image (8-bit RGBA, one IDAT chunk); the image must not be empty.
std::string encode_png(const Image& image);

// Saves as PNG atomically (temporary file, then rename). Deterministic bytes for the same image.
[[nodiscard]] bool save_png(const std::filesystem::path& path, const Image& image,
                            Diagnostics& diags);

} // namespace tilegen::io
