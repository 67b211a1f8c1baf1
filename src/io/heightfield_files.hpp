// Heightfield files: 8-bit greyscale PNG (to look at) and PFM (32-bit float, exact values).
// PNG: value v in [0, 1] -> round(v * 255), written with zlib (colour type 0, 8 bits).
// PFM: "Pf", width height, -1.0 (little-endian), rows bottom to top, as the format defines.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/diagnostic.hpp"
#include "core/grid.hpp"

namespace tilegen::io {

std::string grey_png_bytes(const Grid<float>& g);
std::string pfm_bytes(const Grid<float>& g);
std::optional<Grid<float>> parse_pfm(std::string_view bytes, const std::string& name,
                                     Diagnostics& diags);

// Writes by extension (.png or .pfm), atomically.
bool write_heightfield(const std::filesystem::path& path, const Grid<float>& g, Diagnostics& diags);

} // namespace tilegen::io
