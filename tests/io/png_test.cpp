// io/png.hpp without SFML: libpng's decoding must give the pixels SFML's reader (stb_image) gives,
// for every PNG colour form and bit depth, palettes with transparency, interlacing, and BMP; and
// encode_png must write the very bytes SFML's writer wrote: the PNGs in the repository written by
// `tilegen generate` and `tilegen paint` through SFML re-encode from their pixels to the same file.
#include <doctest/doctest.h>
#include <png.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/hash.hpp"
#include "io/png.hpp"
#include "io/sfml_image.hpp"
#include "test_support.hpp"

namespace {

using namespace tilegen;

// A PNG in the given libpng simplified-API format, from pixels with few colours (so colour-mapped
// forms work) and every alpha kind: opaque, clear and partial.
std::string png_in_format(png_uint_32 format, int width, int height, bool few_colours) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(width);
    image.height = static_cast<png_uint_32>(height);
    image.format = PNG_FORMAT_RGBA;
    std::vector<std::uint8_t> rgba(static_cast<std::size_t>(width * height) * 4);
    for (std::size_t i = 0; i < rgba.size(); ++i) {
        const std::uint64_t h = hash_values(5, few_colours ? (i / 4 % 7) * 4 + i % 4 : i);
        rgba[i] = static_cast<std::uint8_t>(h);
        if (i % 4 == 3 && (i / 4) % 3 == 0) rgba[i] = 255;
        if (i % 4 == 3 && (i / 4) % 5 == 0) rgba[i] = 0;
    }
    // Convert to the wanted format by reading it back through libpng's converters.
    png_alloc_size_t size = 0;
    REQUIRE(png_image_write_get_memory_size(image, size, 0, rgba.data(), 0, nullptr));
    std::string rgba_png(size, '\0');
    REQUIRE(png_image_write_to_memory(&image, rgba_png.data(), &size, 0, rgba.data(), 0, nullptr));
    png_image in;
    std::memset(&in, 0, sizeof in);
    in.version = PNG_IMAGE_VERSION;
    REQUIRE(png_image_begin_read_from_memory(&in, rgba_png.data(), size));
    in.format = format;
    std::vector<std::uint8_t> pixels(PNG_IMAGE_SIZE(in)), colormap(PNG_IMAGE_COLORMAP_SIZE(in));
    const png_color background = {40, 90, 200};
    CAPTURE(format);
    CAPTURE(in.message);
    REQUIRE(png_image_finish_read(&in, &background, pixels.data(), 0, colormap.data()));
    png_alloc_size_t out_size = 0;
    REQUIRE(png_image_write_get_memory_size(in, out_size, 0, pixels.data(), 0, colormap.data()));
    std::string out(out_size, '\0');
    REQUIRE(png_image_write_to_memory(&in, out.data(), &out_size, 0, pixels.data(), 0,
                                      colormap.data()));
    out.resize(out_size);
    png_image_free(&in);
    return out;
}

std::string bmp(int width, int height, int bits, bool top_down, bool zero_alpha) {
    const int row = (width * bits / 8 + 3) / 4 * 4;
    std::string b(54 + static_cast<std::size_t>(row * height), '\0');
    auto put = [&](std::size_t at, std::uint32_t v, int n) {
        for (int i = 0; i < n; ++i)
            b[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
    };
    b[0] = 'B';
    b[1] = 'M';
    put(2, static_cast<std::uint32_t>(b.size()), 4);
    put(10, 54, 4);
    put(14, 40, 4);
    put(18, static_cast<std::uint32_t>(width), 4);
    put(22, static_cast<std::uint32_t>(top_down ? -height : height), 4);
    put(26, 1, 2);
    put(28, static_cast<std::uint32_t>(bits), 2);
    for (std::size_t i = 54; i < b.size(); ++i) {
        b[i] = static_cast<char>(hash_values(8, i));
        if (bits == 32 && zero_alpha && (i - 54) % static_cast<std::size_t>(row) % 4 == 3) b[i] = 0;
    }
    return b;
}

void same_as_sfml(const std::string& bytes, const std::string& what) {
    CAPTURE(what);
    Diagnostics d;
    const auto ours = io::decode_image(bytes, what, d);
    const auto theirs = test::decode_with_sfml(bytes);
    REQUIRE(theirs.has_value());
    REQUIRE(ours.has_value());
    CHECK(ours->width() == theirs->width());
    CHECK(ours->height() == theirs->height());
    CHECK(ours->pixels() == theirs->pixels());
}

} // namespace

TEST_CASE("png decoding by libpng gives SFML's pixels for every PNG form and BMP") {
    const std::vector<std::pair<png_uint_32, const char*>> formats = {
        {PNG_FORMAT_GRAY, "grey 8"},
        {PNG_FORMAT_GA, "grey+alpha 8"},
        {PNG_FORMAT_RGB, "rgb 8"},
        {PNG_FORMAT_RGBA, "rgba 8"},
        {PNG_FORMAT_LINEAR_Y, "grey 16"},
        {PNG_FORMAT_LINEAR_Y_ALPHA, "grey+alpha 16"},
        {PNG_FORMAT_LINEAR_RGB, "rgb 16"},
        {PNG_FORMAT_LINEAR_RGB_ALPHA, "rgba 16"},
        {PNG_FORMAT_RGB_COLORMAP, "palette"},
        {PNG_FORMAT_RGBA_COLORMAP, "palette with tRNS"},
        {PNG_FORMAT_GA | PNG_FORMAT_FLAG_COLORMAP, "grey palette with tRNS"},
    };
    for (const auto& [format, name] : formats)
        for (bool few : {false, true}) {
            if ((format & PNG_FORMAT_FLAG_COLORMAP) && !few) continue;
            same_as_sfml(png_in_format(format, 37, 23, few), name);
        }
    // Every PNG in the repository: previews (indexed of 1 to 8 bits, RGB), atlases and painted
    // tilesets (RGBA), greyscale heightfields, class maps.
    int files = 0;
    for (const char* dir : {"docs", "tilesets", "tests/data", "samples"})
        for (const auto& entry :
             std::filesystem::recursive_directory_iterator(test::source_dir() / dir))
            if (entry.path().extension() == ".png") {
                same_as_sfml(test::read_text(entry.path()), entry.path().string());
                ++files;
            }
    CHECK(files >= 30);
    for (int bits : {24, 32})
        for (bool top_down : {false, true})
            for (bool zero_alpha : {false, true}) {
                if (bits == 24 && zero_alpha) continue;
                same_as_sfml(bmp(13, 7, bits, top_down, zero_alpha),
                             "bmp " + std::to_string(bits) + (top_down ? " top-down" : "") +
                                 (zero_alpha ? " zero alpha" : ""));
            }
}

TEST_CASE("png decoding reports broken files as diagnostics") {
    std::string png = png_in_format(PNG_FORMAT_RGBA, 20, 20, false);
    Diagnostics d;
    CHECK_FALSE(io::decode_image(png.substr(0, png.size() / 2), "cut.png", d).has_value());
    REQUIRE(d.size() == 1);
    CHECK(d[0].file == "cut.png");
    d.clear();
    CHECK_FALSE(io::decode_image("GIF89a", "x.gif", d).has_value());
    CHECK(d.size() == 1);
    d.clear();
    std::string b = bmp(4, 4, 16, false, false);
    CHECK_FALSE(io::decode_image(b, "x.bmp", d).has_value());
    CHECK(d.size() == 1);
}

TEST_CASE("png decoding of the fuzz regressions stays small") {
    // Inputs that once crashed or exhausted SFML's stb_image: each must give a diagnostic or an
    // image of the size its header declares (never gigabytes, never a crash).
    for (const auto& entry : std::filesystem::directory_iterator(
             test::source_dir() / "tests/fuzz/regressions/class_map_png_fuzz")) {
        const std::string bytes = test::read_text(entry.path());
        Diagnostics d;
        const std::optional<Image> image =
            io::decode_image(bytes, entry.path().filename().string(), d);
        INFO(entry.path().filename().string());
        CHECK(image.has_value() != has_errors(d));
        if (image) CHECK(std::size_t(image->width()) * image->height() <= 64);
    }
}

TEST_CASE("encode_png writes the bytes SFML's writer wrote") {
    // Atlases and painted tilesets in the repository were written through SFML (sf::Image).
    int files = 0;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(test::source_dir() / "tests/data")) {
        const auto name = entry.path().filename().string();
        if (!name.ends_with("-tiles.png") && !name.ends_with("-objects.png")) continue;
        CAPTURE(entry.path().string());
        const std::string bytes = test::read_text(entry.path());
        const auto pixels = test::decode_with_sfml(bytes);
        REQUIRE(pixels.has_value());
        CHECK(io::encode_png(*pixels) == bytes);
        ++files;
    }
    for (const char* path : {"tilesets/overworld/tileset.png", "tilesets/overworld/objects.png"}) {
        CAPTURE(path);
        const std::string bytes = test::read_text(test::source_dir() / path);
        const auto pixels = test::decode_with_sfml(bytes);
        REQUIRE(pixels.has_value());
        CHECK(io::encode_png(*pixels) == bytes);
        ++files;
    }
    CHECK(files >= 6);
    // And one image with long runs and noise (matches far back, lazy matches), through SFML's
    // writer itself.
    Image image(300, 40);
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const auto h = hash_values(3, (x / 9) + (y % 7) * 1000, x * (y % 3 == 0));
            image.set(x, y,
                      {static_cast<std::uint8_t>(h), static_cast<std::uint8_t>(x),
                       static_cast<std::uint8_t>(h >> 8 & 0xf0), static_cast<std::uint8_t>(y * 6)});
        }
    test::TempDir dir;
    sf::Image sfml;
    sfml.create(300, 40, image.pixels().data());
    REQUIRE(sfml.saveToFile((dir / "sfml.png").string()));
    CHECK(io::encode_png(image) == test::read_text(dir / "sfml.png"));
}
