// Loads a Project: the recipe, its rule files, its tileset manifest and image, and every image
// target, checking each against the others (unknown tiles, symbols, sizes) with diagnostics at
// line:column.
#pragma once

#include <filesystem>
#include <optional>

#include "core/diagnostic.hpp"
#include "core/project.hpp"
#include "io/file_source.hpp"

namespace tilegen::io {

std::optional<Project> load_project(const std::filesystem::path& recipe_path,
                                    const FileSource& files, Diagnostics& diags);

} // namespace tilegen::io
