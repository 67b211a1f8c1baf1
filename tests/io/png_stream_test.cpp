// The streamed PNG (io/png_stream.hpp) and the preview renderer behind it (core/preview.hpp).
// The reference is render_map_preview, the whole-image renderer (render_map: the viewer's and the
// tests' reference too): every decoded pixel must equal it, for each colour form (palette of 1, 2,
// 4 and 8 bits, RGB, RGBA), full size and reduced (cell by cell and pixel by pixel), with flips,
// translucency, holes and objects across the strips' edges; the file is decoded by SFML's reader
// (not libpng, which wrote its chunks), its zlib stream inflated whole by zlib (Adler-32 checked)
// and its bytes must not change with the thread count.
#include <doctest/doctest.h>
#include <zlib.h>

#include <string>

#include "core/hash.hpp"
#include "core/preview.hpp"
#include "io/png.hpp"
#include "io/png_stream.hpp"
#include "io/sfml_image.hpp"

namespace {

using namespace tilegen;

enum class Alpha { binary, partial, opaque };

struct MapSpec {
    int tw = 6, th = 4, width = 70, height = 45;
    Alpha alpha = Alpha::partial;
    int colours = 0;           // 0: a hash colour per pixel (thousands), else this many colours
    bool holes = true;         // ground cells left empty
    bool decor = true;         // a second, sparse layer
    int objects = 400;         // per object layer (two layers, the second unsorted)
    bool diagonal = true;      // diagonal flips used
    bool opaque_decor = false; // decor tiles opaque too (alpha binary keeps 0 and 255)
};

Rgba colour_of(std::uint64_t h, int colours, std::uint8_t alpha) {
    if (colours > 0) h = hash_values(99, h % static_cast<std::uint64_t>(colours));
    return {static_cast<std::uint8_t>(h), static_cast<std::uint8_t>(h >> 8),
            static_cast<std::uint8_t>(h >> 16), alpha};
}

// Tiles: 0 and 3 opaque, 1 translucent (or holed when alpha is binary), 2 with holes.
Map make_map(const MapSpec& s) {
    Map map;
    map.width = s.width;
    map.height = s.height;
    Atlas& atlas = map.atlas;
    atlas.tile_width = s.tw;
    atlas.tile_height = s.th;
    atlas.columns = 2;
    atlas.names = {"opaque", "translucent", "holes", "opaque-2"};
    atlas.image = Image(2 * s.tw, 2 * s.th);
    for (int y = 0; y < 2 * s.th; ++y)
        for (int x = 0; x < 2 * s.tw; ++x) {
            const int tile = (y / s.th) * 2 + x / s.tw;
            const std::uint64_t h =
                hash_values(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
            const bool hole = (x + y) % 3 == 0;
            std::uint8_t alpha = 255;
            if (tile == 1) alpha = s.alpha == Alpha::partial ? 120 : hole ? 0 : 255;
            if (tile == 2) alpha = hole ? 0 : 255;
            if (s.alpha == Alpha::opaque && s.opaque_decor) alpha = 255;
            atlas.image.set(x, y, colour_of(h, s.colours, alpha));
        }
    const Gid all_flips[] = {0,
                             kFlipHorizontal,
                             kFlipVertical,
                             kFlipHorizontal | kFlipVertical,
                             kFlipDiagonal,
                             kFlipHorizontal | kFlipDiagonal,
                             kFlipVertical | kFlipDiagonal,
                             kFlipMask};
    const std::uint64_t flip_count = s.diagonal ? 8 : 4;
    for (int layer = 0; layer < (s.decor ? 2 : 1); ++layer) {
        TileLayer tiles{layer == 0 ? "ground" : "decor", Grid<Gid>(map.width, map.height)};
        for (int y = 0; y < map.height; ++y)
            for (int x = 0; x < map.width; ++x) {
                const std::uint64_t h =
                    hash_values(7, static_cast<std::uint64_t>(layer), static_cast<std::uint64_t>(x),
                                static_cast<std::uint64_t>(y));
                if (layer == 1 && h % 3 != 0) continue;
                if (layer == 0 && s.holes && h % 17 == 0) continue;
                // The ground uses the opaque tiles only when it must cover every cell.
                const int tile =
                    layer == 0 && !s.holes ? ((h % 2) ? 3 : 0) : static_cast<int>(h % 4);
                tiles.tiles(x, y) = gid_of(tile, all_flips[(h >> 8) % flip_count]);
            }
        map.layers.push_back(std::move(tiles));
    }
    SpriteAtlas& sprites = map.sprites;
    sprites.sprite_width = 9;
    sprites.sprite_height = 14;
    sprites.columns = 2;
    sprites.names = {"tree", "rock"};
    sprites.image = Image(18, 14);
    for (int y = 0; y < 14; ++y)
        for (int x = 0; x < 18; ++x) {
            const std::uint64_t h =
                hash_values(3, static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
            const std::uint8_t alpha = h % 4 == 0                                  ? 0
                                       : (h % 4 == 1 && s.alpha == Alpha::partial) ? 90
                                                                                   : 255;
            sprites.image.set(x, y, colour_of(h >> 3, s.colours, alpha));
        }
    const int map_w = map.width * s.tw, map_h = map.height * s.th;
    for (int layer = 0; layer < 2 && s.objects > 0; ++layer) {
        ObjectLayer objects;
        for (int i = 0; i < s.objects; ++i) {
            const std::uint64_t h =
                hash_values(11, static_cast<std::uint64_t>(layer), static_cast<std::uint64_t>(i));
            // Some hang over the map's edges, many across a strip's edge (every 64 rows).
            objects.objects.push_back(
                {static_cast<int>(h % 3) - (i == 5 ? 7 : 0), // one sprite outside the sheet
                 static_cast<int>((h >> 8) % static_cast<std::uint64_t>(map_w + 12)) - 6,
                 static_cast<int>((h >> 24) % static_cast<std::uint64_t>(map_h + 20)) - 2});
        }
        if (layer == 0)
            std::stable_sort(objects.objects.begin(), objects.objects.end(),
                             [](const MapObject& a, const MapObject& b) { return a.y < b.y; });
        map.object_layers.push_back(std::move(objects));
    }
    return map;
}

std::string encode(const Map& map, int max_side, int threads, int* factor = nullptr) {
    io::StringSink sink;
    Diagnostics d;
    io::PngStreamOptions options;
    options.threads = threads;
    const std::optional<int> f = io::write_preview_png(sink, map, max_side, options, "x.png", d);
    REQUIRE(f.has_value());
    REQUIRE(d.empty());
    if (factor) *factor = *f;
    return sink.text;
}

std::uint32_t be32(const std::string& s, std::size_t at) {
    return (std::uint32_t{static_cast<unsigned char>(s[at])} << 24) |
           (std::uint32_t{static_cast<unsigned char>(s[at + 1])} << 16) |
           (std::uint32_t{static_cast<unsigned char>(s[at + 2])} << 8) |
           std::uint32_t{static_cast<unsigned char>(s[at + 3])};
}

struct Parsed {
    int width = 0, height = 0, depth = 0, colour_type = 0, idat_chunks = 0;
    std::string zlib; // the IDAT chunks' data, joined
    std::vector<std::string> chunks;
};

// Walks the chunks (each CRC checked) and joins the IDAT data.
Parsed parse_png(const std::string& png) {
    Parsed p;
    REQUIRE(png.size() > 8);
    REQUIRE(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
    std::size_t at = 8;
    while (at < png.size()) {
        REQUIRE(at + 12 <= png.size());
        const std::uint32_t n = be32(png, at);
        const std::string type = png.substr(at + 4, 4);
        REQUIRE(at + 12 + n <= png.size());
        const auto* bytes = reinterpret_cast<const Bytef*>(png.data() + at + 4);
        CHECK(crc32(0, bytes, n + 4) == be32(png, at + 8 + n));
        p.chunks.push_back(type);
        if (type == "IHDR") {
            p.width = static_cast<int>(be32(png, at + 8));
            p.height = static_cast<int>(be32(png, at + 12));
            p.depth = static_cast<unsigned char>(png[at + 16]);
            p.colour_type = static_cast<unsigned char>(png[at + 17]);
        }
        if (type == "IDAT") {
            p.zlib += png.substr(at + 8, n);
            ++p.idat_chunks;
        }
        at += 12 + n;
    }
    CHECK(at == png.size());
    REQUIRE(!p.chunks.empty());
    CHECK(p.chunks.back() == "IEND");
    return p;
}

// Inflates the whole zlib stream (zlib checks the Adler-32 at its end); returns its length.
std::size_t inflated_size(const std::string& zlib) {
    z_stream z{};
    REQUIRE(inflateInit(&z) == Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zlib.data()));
    z.avail_in = static_cast<uInt>(zlib.size());
    std::vector<unsigned char> out(1 << 16);
    std::size_t total = 0;
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = out.data();
        z.avail_out = static_cast<uInt>(out.size());
        rc = inflate(&z, Z_NO_FLUSH);
        total += out.size() - z.avail_out;
    }
    CHECK(rc == Z_STREAM_END);
    CHECK(z.avail_in == 0); // nothing after the Adler-32
    inflateEnd(&z);
    return total;
}

// Encodes `map`'s preview and checks everything the file must be; returns the colour form.
PreviewColor check_preview(const Map& map, int max_side) {
    const PreviewRenderer renderer(map, max_side);
    int factor = 0;
    const std::string png = encode(map, max_side, 2, &factor);
    int reference_factor = 0;
    const Image expected = render_map_preview(map, max_side, reference_factor);
    CHECK(factor == reference_factor);
    Diagnostics d;
    const std::optional<Image> decoded = test::decode_with_sfml(png);
    REQUIRE(decoded.has_value());
    REQUIRE(decoded->width() == expected.width());
    REQUIRE(decoded->height() == expected.height());
    CHECK(*decoded == expected);

    const Parsed p = parse_png(png);
    CHECK(p.idat_chunks == (expected.height() + 63) / 64); // one per strip of 64 rows
    const int channels = renderer.color() == PreviewColor::indexed ? 1
                         : renderer.color() == PreviewColor::rgb   ? 3
                                                                   : 4;
    const std::size_t row_bytes =
        (static_cast<std::size_t>(expected.width()) * channels * p.depth + 7) / 8;
    CHECK(inflated_size(p.zlib) == (row_bytes + 1) * static_cast<std::size_t>(expected.height()));
    CHECK(p.colour_type == (channels == 1 ? 3 : channels == 3 ? 2 : 6));

    // The same bytes at any thread count.
    for (int threads : {1, 3, 8})
        CHECK(encode(map, max_side, threads) == png);
    return renderer.color();
}

} // namespace

TEST_CASE("streamed preview: RGBA pixels equal render_map's (translucency, flips of non-square "
          "tiles, holes, objects across strips and edges)") {
    const Map map = make_map({});
    CHECK(check_preview(map, 16384) == PreviewColor::rgba);
}

TEST_CASE("streamed preview: a palette when every pixel is opaque or clear and 256 colours hold "
          "them (8, 4, 2 and 1 bits)") {
    MapSpec s;
    s.alpha = Alpha::binary;
    s.colours = 100; // each also with alpha 0, + transparent black: at most 201
    const Map map = make_map(s);
    CHECK(check_preview(map, 16384) == PreviewColor::indexed);
    CHECK(PreviewRenderer(map, 16384).palette().size() > 16);

    s.colours = 5; // the same with alpha 0 and transparent black: at most 11, 4 bits
    s.width = 37;  // rows of odd lengths: packed pixels end mid-byte
    const Map four = make_map(s);
    CHECK(check_preview(four, 16384) == PreviewColor::indexed);
    CHECK(PreviewRenderer(four, 16384).palette().size() <= 16);
    CHECK(parse_png(encode(four, 16384, 1)).depth == 4);

    // One opaque colour everywhere (plus transparent black): 1 bit; three: 2 bits.
    for (int colours : {1, 3}) {
        MapSpec t;
        t.alpha = Alpha::opaque;
        t.opaque_decor = true;
        t.colours = colours;
        t.width = 29;
        t.objects = 0;
        const Map small = make_map(t);
        CHECK(check_preview(small, 16384) == PreviewColor::indexed);
        CHECK(parse_png(encode(small, 16384, 1)).depth == (colours == 1 ? 1 : 2));
    }
}

TEST_CASE("streamed preview: RGB when every cell has an opaque tile and the colours are many") {
    MapSpec s;
    s.holes = false;    // the ground covers every cell with an opaque tile
    s.diagonal = false; // (a diagonal flip of a non-square tile leaves pixels undrawn)
    const Map map = make_map(s);
    CHECK(check_preview(map, 16384) == PreviewColor::rgb);
}

TEST_CASE("streamed preview: reduced previews equal render_map_preview's (cell by cell when the "
          "factor divides square tiles, else pixel by pixel)") {
    MapSpec s;
    s.tw = s.th = 8;
    s.width = 40;
    s.height = 30; // 320 x 240 pixels
    for (Alpha alpha : {Alpha::partial, Alpha::binary}) {
        s.alpha = alpha;
        s.colours = alpha == Alpha::binary ? 100 : 0;
        const Map map = make_map(s);
        for (int max_side : {100, 107, 160, 61}) { // factors 4, 3, 2 and 6
            CAPTURE(max_side);
            const PreviewColor color = check_preview(map, max_side);
            CHECK(color == (alpha == Alpha::binary ? PreviewColor::indexed : PreviewColor::rgba));
        }
    }
    // Non-square tiles: always pixel by pixel (a diagonal flip reads outside the tile there).
    MapSpec n;
    n.diagonal = false;
    n.holes = false;
    const Map map = make_map(n); // 420 x 180
    CHECK(check_preview(map, 210) == PreviewColor::rgb);
}

TEST_CASE("png strips: any strip height gives the same pixels, a broken palette is refused") {
    io::PngStrips image;
    image.width = 13;
    image.height = 11;
    image.color = io::PngColor::rgba;
    image.buffer_bytes = [&](int rows) { return static_cast<std::size_t>(rows) * 13 * 4; };
    image.rows = [&](int y0, int y1, std::uint8_t* out, std::size_t pitch) {
        if (pitch == 0) pitch = 13 * 4;
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < 13; ++x) {
                const std::uint64_t h =
                    hash_values(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y));
                for (int c = 0; c < 4; ++c)
                    out[static_cast<std::size_t>(y - y0) * pitch + static_cast<std::size_t>(x) * 4 +
                        static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(h >> (8 * c));
            }
    };
    Image expected(13, 11);
    image.rows(0, 11, expected.pixels().data(), 0);
    // The built-in deflater (level -1, with pieces of 3 pixels) and zlib at levels 1 and 9.
    for (const auto& [strip_rows, level] :
         {std::pair{1, -1}, {4, -1}, {11, -1}, {64, -1}, {1, 1}, {4, 1}, {11, 9}, {64, 1}}) {
        CAPTURE(strip_rows);
        CAPTURE(level);
        image.strip_rows = strip_rows;
        image.piece_pixels = 3;
        io::StringSink sink;
        Diagnostics d;
        REQUIRE(io::write_png_strips(sink, image, {2, level}, "x.png", d));
        const Parsed p = parse_png(sink.text);
        CHECK(p.idat_chunks == (11 + strip_rows - 1) / strip_rows);
        CHECK(inflated_size(p.zlib) == (13 * 4 + 1) * 11);
        const std::optional<Image> decoded = test::decode_with_sfml(sink.text);
        REQUIRE(decoded.has_value());
        CHECK(*decoded == expected);
    }
    image.color = io::PngColor::indexed; // no palette
    io::StringSink sink;
    Diagnostics d;
    CHECK_FALSE(io::write_png_strips(sink, image, {}, "x.png", d));
    REQUIRE(d.size() == 1);
    CHECK(d[0].message.find("palette") != std::string::npos);
}
