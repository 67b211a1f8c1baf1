// PNG (and BMP) images via SFML's sf::Image, converted to and from tilegen::Image.
#pragma once

#include <filesystem>
#include <optional>

#include "core/diagnostic.hpp"
#include "core/image.hpp"

namespace tilegen::io {

// Loads a PNG/BMP/TGA/... file. On failure returns nullopt and appends a diagnostic naming the
// path.
std::optional<Image> load_image(const std::filesystem::path& path, Diagnostics& diags);
// Decodes an image held in memory (e.g. an embedded file); `name` is used in diagnostics.
std::optional<Image> decode_image(std::string_view bytes, const std::string& name,
                                  Diagnostics& diags);

// Saves as PNG atomically (temporary file, then rename). Deterministic bytes for the same image.
bool save_png(const std::filesystem::path& path, const Image& image, Diagnostics& diags);

} // namespace tilegen::io
