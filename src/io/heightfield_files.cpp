#include "io/heightfield_files.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <zlib.h>

#include "io/files.hpp"

namespace tilegen::io {

namespace {

void put_u32(std::string& out, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8)
        out += static_cast<char>((v >> s) & 0xff);
}

void chunk(std::string& out, const char type[4], const std::string& data) {
    put_u32(out, static_cast<std::uint32_t>(data.size()));
    std::string body(type, 4);
    body += data;
    out += body;
    put_u32(out, static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()),
                                                  static_cast<uInt>(body.size()))));
}

} // namespace

std::string grey_png_bytes(const Grid<float>& g) {
    const auto w = static_cast<std::size_t>(g.width()), h = static_cast<std::size_t>(g.height());
    std::string raw;
    raw.reserve((w + 1) * h);
    for (int y = 0; y < g.height(); ++y) {
        raw += '\0'; // filter: none
        for (int x = 0; x < g.width(); ++x)
            raw += static_cast<char>(
                static_cast<std::uint8_t>(std::lround(std::clamp(g(x, y), 0.0f, 1.0f) * 255.0f)));
    }
    uLongf size = compressBound(static_cast<uLong>(raw.size()));
    std::string packed(size, '\0');
    compress2(reinterpret_cast<Bytef*>(packed.data()), &size,
              reinterpret_cast<const Bytef*>(raw.data()), static_cast<uLong>(raw.size()), 6);
    packed.resize(size);

    std::string out = "\x89PNG\r\n\x1a\n";
    std::string ihdr;
    put_u32(ihdr, static_cast<std::uint32_t>(w));
    put_u32(ihdr, static_cast<std::uint32_t>(h));
    ihdr += '\x08';               // bit depth
    ihdr += '\x00';               // colour type: greyscale
    ihdr += std::string(3, '\0'); // compression, filter, interlace
    chunk(out, "IHDR", ihdr);
    chunk(out, "IDAT", packed);
    chunk(out, "IEND", "");
    return out;
}

std::string pfm_bytes(const Grid<float>& g) {
    std::string out =
        "Pf\n" + std::to_string(g.width()) + " " + std::to_string(g.height()) + "\n-1.0\n";
    for (int y = g.height() - 1; y >= 0; --y)
        for (int x = 0; x < g.width(); ++x) {
            std::uint32_t bits = std::bit_cast<std::uint32_t>(g(x, y));
            for (int b = 0; b < 4; ++b)
                out += static_cast<char>((bits >> (8 * b)) & 0xff); // little-endian
        }
    return out;
}

std::optional<Grid<float>> parse_pfm(std::string_view bytes, const std::string& name,
                                     Diagnostics& diags) {
    // Three whitespace-separated header tokens after "Pf", then one whitespace byte.
    std::size_t pos = 0;
    auto token = [&]() {
        while (pos < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[pos])))
            ++pos;
        std::size_t start = pos;
        while (pos < bytes.size() && !std::isspace(static_cast<unsigned char>(bytes[pos])))
            ++pos;
        return std::string(bytes.substr(start, pos - start));
    };
    const std::string magic = token(), ws = token(), hs = token(), scale = token();
    if (magic != "Pf") {
        diags.push_back(error_at(name, 1, 1, "not a greyscale PFM file (expected 'Pf')"));
        return std::nullopt;
    }
    char* end = nullptr;
    const long w = std::strtol(ws.c_str(), &end, 10), h = std::strtol(hs.c_str(), &end, 10);
    const double sc = std::strtod(scale.c_str(), &end);
    if (w < 1 || h < 1 || w > 65536 || h > 65536 || sc == 0) {
        diags.push_back(error_at(name, 2, 1, "bad PFM size or scale"));
        return std::nullopt;
    }
    ++pos;
    const std::size_t need = static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4;
    if (bytes.size() < pos + need) {
        diags.push_back(error_at(name, 0, 0, "PFM file is truncated"));
        return std::nullopt;
    }
    Grid<float> g(static_cast<int>(w), static_cast<int>(h));
    const bool little = sc < 0;
    for (long y = h - 1; y >= 0; --y)
        for (long x = 0; x < w; ++x) {
            std::uint32_t bits = 0;
            for (int b = 0; b < 4; ++b) {
                const auto byte =
                    static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[pos++]));
                bits |= little ? byte << (8 * b) : byte << (8 * (3 - b));
            }
            g(static_cast<int>(x), static_cast<int>(y)) = std::bit_cast<float>(bits);
        }
    return g;
}

bool write_heightfield(const std::filesystem::path& path, const Grid<float>& g,
                       Diagnostics& diags) {
    const std::string ext = path.extension().string();
    if (ext == ".pfm") return write_file_atomic(path, pfm_bytes(g), diags);
    return write_file_atomic(path, grey_png_bytes(g), diags);
}

} // namespace tilegen::io
