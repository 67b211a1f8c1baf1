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
    if (size.x > 0 && size.y > 0) std::memcpy(out.pixels().data(), img.getPixelsPtr(), out.pixels().size());
    return out;
}
} // namespace

std::optional<Image> load_image(const std::filesystem::path& path, Diagnostics& diags) {
    auto bytes = read_file(path, diags);
    if (!bytes) return std::nullopt;
    return decode_image(*bytes, path.string(), diags);
}

std::optional<Image> decode_image(std::string_view bytes, const std::string& name, Diagnostics& diags) {
    sf::Image img;
    // sf::Image prints to sf::err() on failure; silence it, we report our own diagnostic.
    std::streambuf* previous = sf::err().rdbuf(nullptr);
    bool ok = !bytes.empty() && img.loadFromMemory(bytes.data(), bytes.size());
    sf::err().rdbuf(previous);
    if (!ok) {
        diags.push_back(error_at(name, 0, 0, "not a readable image (PNG, BMP, TGA, GIF or JPEG expected)"));
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
    img.create(static_cast<unsigned>(image.width()), static_cast<unsigned>(image.height()), image.pixels().data());
    std::filesystem::path tmp = temporary_path_for(path); // keeps the .png extension SFML chooses the format by
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
