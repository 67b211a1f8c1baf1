#include "io/png.hpp"

#include <png.h>

#include <array>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <zlib.h>

#include "io/files.hpp"

namespace tilegen::io {

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

namespace {

// libpng reads from memory; its errors longjmp back to decode_png_pixels, which holds no C++
// object across setjmp (the Image is made before and only written through a raw pointer).
struct PngReadContext {
    std::string_view bytes;
    std::size_t at = 0;
    char error[200] = {};
};
void png_read_from_memory(png_structp png, png_bytep out, size_t n) {
    auto* ctx = static_cast<PngReadContext*>(png_get_io_ptr(png));
    if (n > ctx->bytes.size() - ctx->at) png_error(png, "the file ends early");
    std::memcpy(out, ctx->bytes.data() + ctx->at, n);
    ctx->at += n;
}
void png_read_error(png_structp png, png_const_charp message) {
    auto* ctx = static_cast<PngReadContext*>(png_get_error_ptr(png));
    std::snprintf(ctx->error, sizeof ctx->error, "%s", message);
    png_longjmp(png, 1);
}
void png_read_warning(png_structp, png_const_charp) {}

// Every PNG form to 8-bit RGBA as stb_image (SFML's decoder until now) gives it: 16-bit samples
// keep their high byte, grey and palette images are expanded, tRNS becomes alpha, no gamma is
// applied; missing alpha is 255. `rows` must point at height row pointers into width*4 bytes each.
bool decode_png_pixels(png_structp png, png_infop info, png_bytepp rows) {
    if (setjmp(png_jmpbuf(png))) return false;
    png_read_info(png, info);
    const int type = png_get_color_type(png, info);
    const int depth = png_get_bit_depth(png, info);
    if (depth == 16) png_set_strip_16(png);
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    png_set_filler(png, 0xff, PNG_FILLER_AFTER); // RGB -> RGBA (no effect when alpha is there)
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != png_get_image_width(png, info) * 4)
        png_error(png, "unexpected row size");
    png_read_image(png, rows);
    png_read_end(png, nullptr);
    return true;
}

std::optional<Image> decode_png(std::string_view bytes, const std::string& name,
                                Diagnostics& diags) {
    // image_header_problem checked the IHDR: the size is in range.
    auto u32 = [&](std::size_t at) {
        return (std::uint32_t{static_cast<unsigned char>(bytes[at])} << 24) |
               (std::uint32_t{static_cast<unsigned char>(bytes[at + 1])} << 16) |
               (std::uint32_t{static_cast<unsigned char>(bytes[at + 2])} << 8) |
               std::uint32_t{static_cast<unsigned char>(bytes[at + 3])};
    };
    Image image(static_cast<int>(u32(16)), static_cast<int>(u32(20)));
    std::vector<png_bytep> rows(static_cast<std::size_t>(image.height()));
    for (std::size_t y = 0; y < rows.size(); ++y)
        rows[y] = image.pixels().data() + y * static_cast<std::size_t>(image.width()) * 4;
    PngReadContext ctx;
    ctx.bytes = bytes;
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, png_read_error, png_read_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    bool ok = false;
    if (png && info) {
        png_set_read_fn(png, &ctx, png_read_from_memory);
        // stb_image did not check chunk CRCs of ancillary chunks nor stop at benign errors.
        png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
        png_set_benign_errors(png, 1);
        ok = decode_png_pixels(png, info, rows.data());
    }
    png_destroy_read_struct(png ? &png : nullptr, info ? &info : nullptr, nullptr);
    if (!ok) {
        diags.push_back(error_at(name, 0, 0,
                                 std::string("not a readable image (PNG or BMP expected)") +
                                     (ctx.error[0] ? std::string(": ") + ctx.error : "")));
        return std::nullopt;
    }
    return image;
}

// Uncompressed BMP (BITMAPINFOHEADER or later, 24 or 32 bits per pixel, bottom-up or top-down) to
// RGBA as stb_image gives it: 24-bit pixels are opaque; 32-bit ones keep their fourth byte as
// alpha unless every pixel's is 0 (then all are opaque).
std::optional<Image> decode_bmp(std::string_view b, const std::string& name, Diagnostics& diags) {
    auto fail = [&](const std::string& what) -> std::optional<Image> {
        diags.push_back(error_at(name, 0, 0, what));
        return std::nullopt;
    };
    auto le = [&](std::size_t at, int n) {
        std::uint32_t v = 0;
        for (int i = n - 1; i >= 0; --i)
            v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
        return v;
    };
    if (b.size() < 54) return fail("not a readable image (the BMP header is cut short)");
    const std::uint32_t data_at = le(10, 4), header = le(14, 4);
    const auto width = static_cast<std::int32_t>(le(18, 4));
    const auto height_signed = static_cast<std::int32_t>(le(22, 4));
    const std::uint32_t bits = le(28, 2), compression = le(30, 4);
    if (header < 40 || (bits != 24 && bits != 32) || (compression != 0 && compression != 3))
        return fail("BMP form not supported (24 or 32 bits per pixel, uncompressed, expected)");
    const std::int64_t height = height_signed < 0 ? -std::int64_t{height_signed} : height_signed;
    if (width <= 0 || height <= 0 || width > 65536 || height > 65536 ||
        std::int64_t{width} * height > (std::int64_t{1} << 28))
        return fail("BMP size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is out of range (1 to 65536 per side, 2^28 pixels)");
    const std::size_t bytes_pp = bits / 8;
    const std::size_t row_bytes = (static_cast<std::size_t>(width) * bytes_pp + 3) / 4 * 4;
    if (data_at > b.size() || (b.size() - data_at) / row_bytes < static_cast<std::size_t>(height))
        return fail("not a readable image (the BMP pixels are cut short)");
    Image image(width, static_cast<int>(height));
    bool any_alpha = false;
    for (int y = 0; y < image.height(); ++y) {
        const int source_row = height_signed < 0 ? y : image.height() - 1 - y;
        const char* row = b.data() + data_at + static_cast<std::size_t>(source_row) * row_bytes;
        for (int x = 0; x < width; ++x) {
            const auto* p = reinterpret_cast<const unsigned char*>(row) + x * bytes_pp;
            const std::uint8_t a = bits == 32 ? p[3] : 255;
            any_alpha = any_alpha || a != 0;
            image.set(x, y, {p[2], p[1], p[0], a});
        }
    }
    if (bits == 32 && !any_alpha)
        for (std::size_t i = 3; i < image.pixels().size(); i += 4)
            image.pixels()[i] = 255;
    return image;
}

} // namespace

std::optional<Image> decode_image(std::string_view bytes, const std::string& name,
                                  Diagnostics& diags) {
    if (auto problem = image_header_problem(bytes)) {
        diags.push_back(error_at(name, 0, 0, *problem));
        return std::nullopt;
    }
    if (bytes[0] == 'B') return decode_bmp(bytes, name, diags);
    return decode_png(bytes, name, diags);
}

namespace {

// The PNG encoder tilegen's files have always been written with (stb_image_write 1.x as SFML 2.5
// embeds it), so atlases stay byte-identical: per row the PNG filter (None, Sub, Up, Average,
// Paeth) whose filtered bytes, read as signed, have the smallest sum of magnitudes (the lowest
// filter on ties; on the first row Up, Average and Paeth see a zero row above), then one zlib
// stream of one fixed-Huffman block, matched greedily with one step of lazy matching over hash
// chains of the last 8 to 16 positions per 3-byte hash, in one IDAT chunk.
class StbStyleDeflate {
  public:
    explicit StbStyleDeflate(std::string& out) : out_(out) {}

    void compress(const std::uint8_t* data, std::size_t size) {
        out_.push_back(static_cast<char>(0x78));
        out_.push_back(static_cast<char>(0x5e));
        bits(1, 1);                      // final block
        bits(1, 2);                      // fixed Huffman codes
        constexpr std::size_t kKeep = 8; // entries kept when a chain reaches 2 * kKeep
        std::vector<std::vector<std::size_t>> chains(kHashSize);
        std::size_t i = 0;
        while (i + 3 < size) {
            std::size_t best = 3, best_at = 0;
            bool found = false;
            auto& chain = chains[hash(data + i)];
            for (std::size_t at : chain) {
                if (at + 32768 <= i) continue; // outside the window
                const std::size_t n = match(data, at, i, size - i);
                if (n >= best) best = n, best_at = at, found = true;
            }
            if (chain.size() == 2 * kKeep) chain.erase(chain.begin(), chain.begin() + kKeep);
            chain.push_back(i);
            if (found) { // a longer match one byte later: this byte goes out as a literal
                for (std::size_t at : chains[hash(data + i + 1)]) {
                    if (at + 32767 <= i) continue;
                    if (match(data, at, i + 1, size - i - 1) > best) {
                        found = false;
                        break;
                    }
                }
            }
            if (found) {
                emit_match(best, i - best_at);
                i += best;
            } else {
                literal(data[i]);
                ++i;
            }
        }
        for (; i < size; ++i)
            literal(data[i]);
        symbol(256);
        while (count_ != 0)
            bits(0, 1);
        std::uint32_t s1 = 1, s2 = 0;
        for (std::size_t k = 0; k < size; ++k) {
            s1 = (s1 + data[k]) % 65521;
            s2 = (s2 + s1) % 65521;
        }
        for (int shift : {8, 0})
            out_.push_back(static_cast<char>((s2 >> shift) & 0xff));
        for (int shift : {8, 0})
            out_.push_back(static_cast<char>((s1 >> shift) & 0xff));
    }

  private:
    static constexpr std::size_t kHashSize = 16384;

    static std::size_t hash(const std::uint8_t* p) {
        std::uint32_t h = p[0] + (std::uint32_t{p[1]} << 8) + (std::uint32_t{p[2]} << 16);
        h ^= h << 3;
        h += h >> 5;
        h ^= h << 4;
        h += h >> 17;
        h ^= h << 25;
        h += h >> 6;
        return h & (kHashSize - 1);
    }
    static std::size_t match(const std::uint8_t* data, std::size_t a, std::size_t b,
                             std::size_t limit) {
        std::size_t n = 0;
        while (n < limit && n < 258 && data[a + n] == data[b + n])
            ++n;
        return n;
    }
    void bits(std::uint32_t value, int count) {
        buffer_ |= std::uint64_t{value} << count_;
        count_ += count;
        while (count_ >= 8) {
            out_.push_back(static_cast<char>(buffer_ & 0xff));
            buffer_ >>= 8;
            count_ -= 8;
        }
    }
    static std::uint32_t reversed(std::uint32_t code, int count) {
        std::uint32_t r = 0;
        for (int k = 0; k < count; ++k, code >>= 1)
            r = (r << 1) | (code & 1);
        return r;
    }
    void huffman(std::uint32_t code, int count) { bits(reversed(code, count), count); }
    void symbol(int s) { // the fixed literal/length code (RFC 1951, 3.2.6)
        if (s <= 143)
            huffman(0x30 + static_cast<std::uint32_t>(s), 8);
        else if (s <= 255)
            huffman(0x190 + static_cast<std::uint32_t>(s - 144), 9);
        else if (s <= 279)
            huffman(static_cast<std::uint32_t>(s - 256), 7);
        else
            huffman(0xc0 + static_cast<std::uint32_t>(s - 280), 8);
    }
    void literal(std::uint8_t byte) { symbol(byte); }
    void emit_match(std::size_t length, std::size_t distance) {
        static constexpr std::array<int, 30> kLength = {
            3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23,  27,
            31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258, 259};
        static constexpr std::array<int, 31> kDistance = {
            1,    2,    3,    4,    5,    7,     9,     13,    17,   25,   33,
            49,   65,   97,   129,  193,  257,   385,   513,   769,  1025, 1537,
            2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577, 32768};
        const int len = static_cast<int>(length), dist = static_cast<int>(distance);
        int j = 0;
        while (len > kLength[static_cast<std::size_t>(j) + 1] - 1)
            ++j;
        symbol(257 + j);
        const int length_extra = j < 8 ? 0 : j == 28 ? 0 : (j - 4) / 4;
        if (length_extra)
            bits(static_cast<std::uint32_t>(len - kLength[static_cast<std::size_t>(j)]),
                 length_extra);
        int k = 0;
        while (dist > kDistance[static_cast<std::size_t>(k) + 1] - 1)
            ++k;
        huffman(static_cast<std::uint32_t>(k), 5);
        const int distance_extra = k < 4 ? 0 : (k - 2) / 2;
        if (distance_extra)
            bits(static_cast<std::uint32_t>(dist - kDistance[static_cast<std::size_t>(k)]),
                 distance_extra);
    }

    std::string& out_;
    std::uint64_t buffer_ = 0;
    int count_ = 0;
};

std::uint8_t paeth(int a, int b, int c) {
    const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
    if (pa <= pb && pa <= pc) return static_cast<std::uint8_t>(a);
    if (pb <= pc) return static_cast<std::uint8_t>(b);
    return static_cast<std::uint8_t>(c);
}

// Row `y` of the RGBA pixels filtered with `filter` into out (row_bytes bytes); the first row sees
// a zero row above.
void filter_row(const std::uint8_t* pixels, std::size_t row_bytes, int y, int filter,
                std::uint8_t* out) {
    const std::uint8_t* z = pixels + static_cast<std::size_t>(y) * row_bytes;
    const std::uint8_t* up = y > 0 ? z - row_bytes : nullptr;
    for (std::size_t i = 0; i < row_bytes; ++i) {
        const int left = i >= 4 ? z[i - 4] : 0;
        const int above = up ? up[i] : 0;
        const int corner = up && i >= 4 ? up[i - 4] : 0;
        int predicted = 0;
        switch (filter) {
        case 1:
            predicted = left;
            break;
        case 2:
            predicted = above;
            break;
        case 3:
            predicted = (left + above) >> 1;
            break;
        case 4:
            predicted = paeth(left, above, corner);
            break;
        default:
            break;
        }
        out[i] = static_cast<std::uint8_t>(z[i] - predicted);
    }
}

} // namespace

std::string encode_png(const Image& image) {
    const std::size_t row_bytes = static_cast<std::size_t>(image.width()) * 4;
    const std::uint8_t* pixels = image.pixels().data();
    std::vector<std::uint8_t> filtered((row_bytes + 1) * static_cast<std::size_t>(image.height()));
    std::vector<std::uint8_t> trial(row_bytes);
    for (int y = 0; y < image.height(); ++y) {
        int best = 0;
        long best_cost = -1;
        for (int filter = 0; filter < 5; ++filter) {
            filter_row(pixels, row_bytes, y, filter, trial.data());
            long cost = 0;
            for (std::uint8_t v : trial)
                cost += std::abs(static_cast<int>(static_cast<std::int8_t>(v)));
            if (best_cost < 0 || cost < best_cost) best_cost = cost, best = filter;
        }
        std::uint8_t* row = filtered.data() + static_cast<std::size_t>(y) * (row_bytes + 1);
        row[0] = static_cast<std::uint8_t>(best);
        filter_row(pixels, row_bytes, y, best, row + 1);
    }
    std::string idat;
    StbStyleDeflate(idat).compress(filtered.data(), filtered.size());

    std::string png("\x89PNG\r\n\x1a\n", 8);
    auto u32 = [](std::string& s, std::uint32_t v) {
        for (int shift : {24, 16, 8, 0})
            s.push_back(static_cast<char>((v >> shift) & 0xff));
    };
    auto chunk = [&](const char* tag, const std::string& body) {
        u32(png, static_cast<std::uint32_t>(body.size()));
        const std::size_t start = png.size();
        png.append(tag, 4);
        png += body;
        const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(png.data() + start),
                               static_cast<uInt>(png.size() - start));
        u32(png, static_cast<std::uint32_t>(crc));
    };
    std::string ihdr;
    u32(ihdr, static_cast<std::uint32_t>(image.width()));
    u32(ihdr, static_cast<std::uint32_t>(image.height()));
    ihdr += std::string("\x08\x06\x00\x00\x00", 5); // 8-bit RGBA, deflate, no interlace
    chunk("IHDR", ihdr);
    chunk("IDAT", idat);
    chunk("IEND", "");
    return png;
}

bool save_png(const std::filesystem::path& path, const Image& image, Diagnostics& diags) {
    if (image.width() <= 0 || image.height() <= 0) {
        diags.push_back(error_at(path.string(), 0, 0, "cannot write an empty image"));
        return false;
    }
    return write_file_atomic(path, encode_png(image), diags);
}

} // namespace tilegen::io
