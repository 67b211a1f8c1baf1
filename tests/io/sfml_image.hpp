// SFML's image reader (stb_image) as an independent judge of PNG files tilegen writes or reads:
// the tests decode with it, the generator library no longer does (io/png.hpp uses libpng).
#pragma once

#include <SFML/Graphics/Image.hpp>
#include <SFML/System/Err.hpp>

#include <cstring>
#include <optional>
#include <string_view>

#include "core/image.hpp"

namespace tilegen::test {

inline std::optional<Image> decode_with_sfml(std::string_view bytes) {
    sf::Image img;
    std::streambuf* previous = sf::err().rdbuf(nullptr);
    const bool ok = !bytes.empty() && img.loadFromMemory(bytes.data(), bytes.size());
    sf::err().rdbuf(previous);
    if (!ok) return std::nullopt;
    Image out(static_cast<int>(img.getSize().x), static_cast<int>(img.getSize().y));
    if (!out.pixels().empty())
        std::memcpy(out.pixels().data(), img.getPixelsPtr(), out.pixels().size());
    return out;
}

} // namespace tilegen::test
