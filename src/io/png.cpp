#include "io/png.hpp"

#include <SFML/Graphics/Image.hpp>
#include <SFML/System/Err.hpp>
#include <cstring>
#include <system_error>

#include "io/files.hpp"

namespace tilegen::io {

namespace {
Image from_sfml(const sf::Image& img) {
    auto size = img.getSize();
    Image out(static_cast<int>(size.x), static_cast<int>(size.y));
    if (size.x > 0 && size.y > 0)
        std::memcpy(out.pixels().data(), img.getPixelsPtr(), out.pixels().size());
    return out;
}
} // namespace

std::optional<Image> load_image(const std::filesystem::path& path, Diagnostics& diags) {
    auto bytes = read_file(path, diags);
    if (!bytes) return std::nullopt;
    return decode_image(*bytes, path.string(), diags);
}

namespace {
// Checks what the image decoder would otherwise assert on or allocate without bound: only PNG (with
// a valid header) and BMP are accepted; sizes are capped at 65536 per side and 2^28 pixels.
std::optional<std::string> image_header_problem(std::string_view b) {
    auto u32 = [&](std::size_t at) {
        return (std::uint32_t{static_cast<unsigned char>(b[at])} << 24) |
               (std::uint32_t{static_cast<unsigned char>(b[at + 1])} << 16) |
               (std::uint32_t{static_cast<unsigned char>(b[at + 2])} << 8) |
               std::uint32_t{static_cast<unsigned char>(b[at + 3])};
    };
    if (b.size() >= 2 && b[0] == 'B' && b[1] == 'M') return std::nullopt;
    if (b.size() < 33 || b.substr(0, 8) != std::string_view("\x89PNG\r\n\x1a\n", 8) ||
        b.substr(12, 4) != "IHDR")
        return "not a readable image (PNG or BMP expected)";
    const std::uint32_t w = u32(16), h = u32(20);
    const int depth = static_cast<unsigned char>(b[24]), type = static_cast<unsigned char>(b[25]);
    const int compression = static_cast<unsigned char>(b[26]),
              filter = static_cast<unsigned char>(b[27]),
              interlace = static_cast<unsigned char>(b[28]);
    if (w == 0 || h == 0 || w > 65536 || h > 65536 ||
        std::uint64_t{w} * h > (std::uint64_t{1} << 28))
        return "PNG size " + std::to_string(w) + "x" + std::to_string(h) +
               " is out of range (1 to 65536 per side, 2^28 pixels)";
    bool depth_ok = false;
    switch (type) {
    case 0:
        depth_ok = depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
        break;
    case 3:
        depth_ok = depth == 1 || depth == 2 || depth == 4 || depth == 8;
        break;
    case 2:
    case 4:
    case 6:
        depth_ok = depth == 8 || depth == 16;
        break;
    default:
        break;
    }
    if (!depth_ok)
        return "PNG header is invalid (colour type " + std::to_string(type) + " with bit depth " +
               std::to_string(depth) + ")";
    if (compression != 0 || filter != 0 || interlace > 1)
        return "PNG header is invalid (compression, filter or interlace method)";
    return std::nullopt;
}
} // namespace

std::optional<Image> decode_image(std::string_view bytes, const std::string& name,
                                  Diagnostics& diags) {
    if (auto problem = image_header_problem(bytes)) {
        diags.push_back(error_at(name, 0, 0, *problem));
        return std::nullopt;
    }
    sf::Image img;
    // sf::Image prints to sf::err() on failure; silence it, we report our own diagnostic.
    std::streambuf* previous = sf::err().rdbuf(nullptr);
    bool ok = !bytes.empty() && img.loadFromMemory(bytes.data(), bytes.size());
    sf::err().rdbuf(previous);
    if (!ok) {
        diags.push_back(error_at(name, 0, 0, "not a readable image (PNG or BMP expected)"));
        return std::nullopt;
    }
    return from_sfml(img);
}

bool save_png(const std::filesystem::path& path, const Image& image, Diagnostics& diags) {
    if (image.width() <= 0 || image.height() <= 0) {
        diags.push_back(error_at(path.string(), 0, 0, "cannot write an empty image"));
        return false;
    }
    sf::Image img;
    img.create(static_cast<unsigned>(image.width()), static_cast<unsigned>(image.height()),
               image.pixels().data());
    std::filesystem::path tmp =
        temporary_path_for(path); // keeps the .png extension SFML chooses the format by
    std::streambuf* previous = sf::err().rdbuf(nullptr);
    bool ok = img.saveToFile(tmp.string());
    sf::err().rdbuf(previous);
    if (!ok) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        diags.push_back(error_at(path.string(), 0, 0, "cannot write PNG file"));
        return false;
    }
    return commit_temporary(tmp, path, diags);
}

} // namespace tilegen::io
