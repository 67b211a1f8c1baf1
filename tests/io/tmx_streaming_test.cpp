// Streaming layer data and map documents: the layer data is exactly what a plain whole-string
// encoder makes (below, the reference), for every encoding, at any thread count, for layers
// spanning many chunks and odd shapes; the map writer (finite and infinite, TMX and TMJ) writes the
// same bytes at 1/2/3/8 threads, the same document for every encoding apart from the data, and data
// that decodes back to the map's gids. The documents themselves are checked by the golden files
// (map_writer_golden_test.cpp) and by Tiled (tests/app/tiled_formats_test.cpp).
#include <doctest/doctest.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <tuple>
#include <zlib.h>
#include <zstd.h>

#include "core/json_writer.hpp"
#include "io/files.hpp"
#include "io/layer_encoding.hpp"
#include "io/tmx_writer.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::io;
namespace fs = std::filesystem;

namespace {

constexpr LayerEncoding kEncodings[] = {LayerEncoding::csv, LayerEncoding::base64,
                                        LayerEncoding::base64_zlib, LayerEncoding::base64_gzip,
                                        LayerEncoding::base64_zstd};
constexpr int kThreads[] = {1, 2, 3, 8};

// ------------------------------------------------------------------ the plain layer encoder
// (reference)

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string little_endian_bytes(std::span<const Gid> gids) {
    std::string out(gids.size() * 4, '\0');
    for (std::size_t i = 0; i < gids.size(); ++i)
        for (int b = 0; b < 4; ++b)
            out[i * 4 + static_cast<std::size_t>(b)] =
                static_cast<char>((gids[i] >> (8 * b)) & 0xff);
    return out;
}

// zlib (windowBits 15) or gzip (windowBits 31) deflate at level 6.
std::string deflate_bytes(std::string_view in, bool gzip) {
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, gzip ? 31 : 15, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, static_cast<uLong>(in.size())) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

std::string legacy_base64(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const std::uint32_t v = (static_cast<std::uint8_t>(bytes[i]) << 16) |
                                (static_cast<std::uint8_t>(bytes[i + 1]) << 8) |
                                static_cast<std::uint8_t>(bytes[i + 2]);
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    if (i < bytes.size()) {
        std::uint32_t v = static_cast<std::uint8_t>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= static_cast<std::uint8_t>(bytes[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::string legacy_encode_layer(std::span<const Gid> gids, int width, LayerEncoding e) {
    if (e == LayerEncoding::csv) {
        std::string out;
        out.reserve(gids.size() * 4 + 2);
        out += '\n';
        char buf[16];
        for (std::size_t i = 0; i < gids.size(); ++i) {
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, gids[i]);
            out.append(buf, end);
            if (i + 1 < gids.size()) out += ',';
            if ((i + 1) % static_cast<std::size_t>(width) == 0) out += '\n';
        }
        return out;
    }
    const std::string raw = little_endian_bytes(gids);
    std::string packed;
    switch (e) {
    case LayerEncoding::base64:
        packed = raw;
        break;
    case LayerEncoding::base64_zlib:
        packed = deflate_bytes(raw, false);
        break;
    case LayerEncoding::base64_gzip:
        packed = deflate_bytes(raw, true);
        break;
    case LayerEncoding::base64_zstd: {
        packed.resize(ZSTD_compressBound(raw.size()));
        packed.resize(ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), 1));
        break;
    }
    default:
        break;
    }
    return "\n" + legacy_base64(packed) + "\n";
}

// -----------------------------------------------------------------------------------------------
// test data

// Gids like a real map's (runs of the same tile, so compression has work to do) mixed with every
// digit count, the table edge (4095/4096), flip bits, 0 and the largest gid.
std::vector<Gid> sample_gids(std::size_t n, std::uint64_t seed) {
    static const Gid kSpecial[] = {0,
                                   1,
                                   9,
                                   10,
                                   99,
                                   100,
                                   999,
                                   1000,
                                   4095,
                                   4096,
                                   9999,
                                   10000,
                                   99999,
                                   100000,
                                   999999,
                                   1000000,
                                   kFlipHorizontal | 7,
                                   kFlipDiagonal | kFlipVertical | 4095,
                                   0xffffffffu,
                                   kFlipMask | 123456};
    std::vector<Gid> g(n);
    std::uint64_t s = seed;
    Gid run = 1;
    for (std::size_t i = 0; i < n; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const auto r = static_cast<std::uint32_t>(s >> 33);
        if (r % 64 == 0) run = r % 300 + 1;
        g[i] = r % 100 < 80   ? run
               : r % 100 < 95 ? (r >> 8) % 4200
                              : kSpecial[(r >> 8) % std::size(kSpecial)];
    }
    return g;
}

std::string legacy_json_data(std::span<const Gid> gids, int width, LayerEncoding e) {
    const std::string data = legacy_encode_layer(gids, width, e);
    if (e == LayerEncoding::csv) {
        std::string arr = "[";
        for (char c : data)
            if (c != '\n') arr += c;
        return arr + "]";
    }
    return json_quote(std::string_view(data).substr(1, data.size() - 2));
}

Map sample_map(int width, int height, std::size_t objects) {
    Map m;
    m.width = width;
    m.height = height;
    m.atlas.image = Image(32, 16);
    m.atlas.tile_width = 16;
    m.atlas.tile_height = 16;
    m.atlas.columns = 2;
    m.atlas.names = {"grass", "water"};
    m.layers.push_back({"ground", Grid<Gid>(width, height)});
    m.layers.push_back({"over & <detail>", Grid<Gid>(width, height)});
    {
        const auto gids = sample_gids(m.layers[0].tiles.size(), 1);
        m.layers[0].tiles.cells().assign(gids.begin(), gids.end());
    }
    {
        const auto gids = sample_gids(m.layers[1].tiles.size(), 2);
        m.layers[1].tiles.cells().assign(gids.begin(), gids.end());
    }
    m.properties = {{"seed", "string", "42"}, {"quote\"d", "int", "7"}};
    m.sprites.image = Image(64, 48);
    m.sprites.sprite_width = 32;
    m.sprites.sprite_height = 48;
    m.sprites.columns = 2;
    m.sprites.names = {"tree", "rock <big>"};
    if (objects > 0) {
        m.object_layers.push_back({"objects", {}});
        m.object_layers.push_back({"decor", {}}); // ids continue from the first layer's
        for (std::size_t i = 0; i < objects; ++i)
            m.object_layers[i % 3 == 2].objects.push_back({static_cast<int>(i % 2),
                                                           static_cast<int>(i % 997) * 5 - 40,
                                                           static_cast<int>(i / 997) * 7 + 48});
    }
    return m;
}

} // namespace

TEST_CASE("streamed layer data equals the former encoder for every encoding, 1/2/3/8 threads, many "
          "chunks and odd shapes") {
    // 517x389 spans several csv and base64 chunks and many zstd blocks; 1x70001 and 70001x2 are
    // chunked by the long side; 1000 gids 7 wide end in a partial row.
    const std::pair<int, std::size_t> shapes[] = {{1, 1},           {1, 1000},  {1000, 1000},
                                                  {517, 517 * 389}, {1, 70001}, {70001, 140002},
                                                  {7, 1000},        {3, 0}};
    for (const auto& shape : shapes) {
        const int width = shape.first;
        const std::size_t cells = shape.second;
        const std::vector<Gid> gids =
            sample_gids(cells, static_cast<std::uint64_t>(width) * 31 + cells);
        for (LayerEncoding e : kEncodings) {
            CAPTURE(width);
            CAPTURE(cells);
            CAPTURE(layer_encoding_name(e));
            const std::string expected = legacy_encode_layer(gids, width, e);
            const std::string expected_json = legacy_json_data(gids, width, e);
            for (int threads : kThreads) {
                CAPTURE(threads);
                CHECK(encode_layer(gids, width, e, threads) == expected);
                StringSink sink;
                write_layer(sink, gids, width, e, threads);
                CHECK(sink.text == expected);
                StringSink json;
                write_layer_json(json, gids, width, e, threads);
                CHECK(json.text == expected_json);
            }
        }
    }
}

TEST_CASE("a 1024x1024 layer (zstd over many windows) streams the former bytes and decodes back") {
    const std::vector<Gid> gids = sample_gids(1024 * 1024, 5);
    for (LayerEncoding e : kEncodings) {
        CAPTURE(layer_encoding_name(e));
        const std::string expected = legacy_encode_layer(gids, 1024, e);
        for (int threads : {1, 3})
            CHECK(encode_layer(gids, 1024, e, threads) == expected);
        Diagnostics diags;
        auto back = decode_layer(expected, tmx_encoding_attribute(e), tmx_compression_attribute(e),
                                 gids.size(), diags);
        REQUIRE(back);
        CHECK(diags.empty());
        CHECK(*back == gids);
    }
}

namespace {

// Gids of an infinite test map as a function of the world cell: every digit count, flip bits, 0.
Gid world_gid(std::size_t layer, int x, int y) {
    static const Gid kSpecial[] = {0, 9, 4095, 4096, 100000, kFlipHorizontal | 7, 0xffffffffu};
    std::uint32_t h = static_cast<std::uint32_t>(x) * 73856093u ^
                      static_cast<std::uint32_t>(y) * 19349663u ^
                      static_cast<std::uint32_t>(layer + 1) * 83492791u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return h % 100 < 90 ? (h >> 8) % 300 : kSpecial[(h >> 8) % std::size(kSpecial)];
}

// An infinite map's chunks over `region`, each chunk made when asked; records the calls.
struct WorldChunks {
    std::vector<Gid> cells;
    std::vector<std::tuple<std::size_t, int, int>> calls; // layer, x, y
    MapChunks chunks;
    WorldChunks(int chunk, Region region) {
        chunks.chunk = chunk;
        chunks.region = region;
        chunks.gids = [this](std::size_t layer, const Region& area) -> std::span<const Gid> {
            calls.emplace_back(layer, area.x, area.y);
            cells.clear();
            for (int y = area.y; y < area.y + area.height; ++y)
                for (int x = area.x; x < area.x + area.width; ++x)
                    cells.push_back(world_gid(layer, x, y));
            return cells;
        };
    }
};

// A map document cut into its layer data (the text in <data> or each <chunk>, or each TMJ "data"
// value) and the rest (the skeleton), with the encoding attributes and keys taken out, so the
// skeletons of one map in every encoding must be equal.
struct Cut {
    std::string skeleton;
    std::vector<std::string> data;
};

void erase_all(std::string& s, const std::string& what) {
    for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p))
        s.erase(p, what.size());
}

Cut cut_tmx(const std::string& text, bool chunked) {
    Cut c;
    const std::string close = chunked ? "</chunk>" : "</data>";
    std::size_t from = 0;
    for (auto end = text.find(close); end != std::string::npos; end = text.find(close, end + 1)) {
        const std::size_t begin = text.rfind('>', end) + 1;
        c.skeleton += text.substr(from, begin - from) + "@";
        c.data.push_back(text.substr(begin, end - begin));
        from = end;
    }
    c.skeleton += text.substr(from);
    for (const char* a : {" encoding=\"csv\"", " encoding=\"base64\"", " compression=\"zlib\"",
                          " compression=\"gzip\"", " compression=\"zstd\""})
        erase_all(c.skeleton, a);
    return c;
}

Cut cut_tmj(const std::string& text) {
    Cut c;
    std::size_t from = 0;
    for (auto at = text.find("\"data\":"); at != std::string::npos;
         at = text.find("\"data\":", at + 1)) {
        const std::size_t begin = at + 7;
        const std::size_t end =
            text[begin] == '[' ? text.find(']', begin) + 1 : text.find('"', begin + 1) + 1;
        c.skeleton += text.substr(from, begin - from) + "@";
        c.data.push_back(text.substr(begin, end - begin));
        from = end;
    }
    c.skeleton += text.substr(from);
    for (const char* a : {"\"encoding\":\"base64\",", "\"compression\":\"zlib\",",
                          "\"compression\":\"gzip\",", "\"compression\":\"zstd\","})
        erase_all(c.skeleton, a);
    return c;
}

// One piece of layer data back to gids: TMX text, or a TMJ value ([csv] or "base64").
std::vector<Gid> decode_piece(std::string piece, LayerEncoding e, bool json, std::size_t expected) {
    if (json) piece = piece.substr(1, piece.size() - 2);
    Diagnostics diags;
    auto gids = decode_layer(piece, tmx_encoding_attribute(e), tmx_compression_attribute(e),
                             expected, diags);
    CHECK(diags.empty());
    return gids ? *gids : std::vector<Gid>{};
}

// The map text at 1 thread, checked against 2, 3 and 8 threads (string and counting sinks).
std::string text_at_every_thread_count(const Map& map, const fs::path& path,
                                       MapOutputOptions options, const MapChunks* chunks) {
    options.threads = 1;
    const std::string one = map_text(map, path, options, chunks);
    for (int threads : kThreads) {
        CAPTURE(threads);
        options.threads = threads;
        CHECK(map_text(map, path, options, chunks) == one);
        CountingSink count;
        write_map(count, map, path, options, chunks);
        CHECK(count.bytes == one.size());
    }
    return one;
}

} // namespace

TEST_CASE("the map writer: same bytes at 1/2/3/8 threads, one document for every encoding, whose "
          "data decodes back to the map (finite)") {
    // 20000 objects span several chunks of <object> lines; x runs negative too. (The sanitizer
    // build writes a smaller first map: test::cases.)
    const std::tuple<int, int, std::size_t> maps[] = {
        {test::cases(517, 200), test::cases(389, 150),
         static_cast<std::size_t>(test::cases(20000, 3000))},
        {1, 1, 1},
        {1, 1000, 0},
        {1000, 1, 3}};
    for (const auto& shape : maps) {
        const int w = std::get<0>(shape), h = std::get<1>(shape);
        const Map map = sample_map(w, h, std::get<2>(shape));
        for (const char* path : {"m.tmx", "m.tmj"})
            for (auto placement : {TilesetPlacement::external, TilesetPlacement::embedded}) {
                CAPTURE(w);
                CAPTURE(h);
                CAPTURE(path);
                const bool json = std::string(path) == "m.tmj";
                std::string skeleton;
                for (LayerEncoding e : kEncodings) {
                    CAPTURE(layer_encoding_name(e));
                    MapOutputOptions options;
                    options.encoding = e;
                    options.tilesets = placement;
                    const std::string text =
                        text_at_every_thread_count(map, path, options, nullptr);
                    const Cut cut = json ? cut_tmj(text) : cut_tmx(text, false);
                    if (skeleton.empty()) skeleton = cut.skeleton;
                    CHECK(cut.skeleton == skeleton);
                    REQUIRE(cut.data.size() == map.layers.size());
                    for (std::size_t l = 0; l < map.layers.size(); ++l) {
                        const auto& cells = map.layers[l].tiles.cells();
                        const std::vector<Gid> want(cells.begin(), cells.end());
                        CHECK(decode_piece(cut.data[l], e, json, want.size()) == want);
                    }
                }
            }
    }
}

TEST_CASE("the map writer: infinite maps chunk by chunk, the same bytes at any thread count, data "
          "that decodes back to the world's gids") {
    const std::pair<int, Region> worlds[] = {
        {16, {-48, -32, 96, 64}}, {5, {-5, 0, 15, 10}}, {1, {3, -2, 2, 3}}};
    Map header = sample_map(0, 0, 0);
    for (const auto& [chunk, region] : worlds)
        for (const char* path : {"w.tmx", "w.tmj"}) {
            CAPTURE(chunk);
            CAPTURE(path);
            const bool json = std::string(path) == "w.tmj";
            std::string skeleton;
            for (LayerEncoding e : kEncodings) {
                CAPTURE(layer_encoding_name(e));
                WorldChunks world(chunk, region);
                MapOutputOptions options;
                options.encoding = e;
                const std::string text =
                    text_at_every_thread_count(header, path, options, &world.chunks);
                const Cut cut = json ? cut_tmj(text) : cut_tmx(text, true);
                if (skeleton.empty()) skeleton = cut.skeleton;
                CHECK(cut.skeleton == skeleton);
                // Layer by layer, chunks by rows: the order of the data and of the calls.
                std::vector<std::tuple<std::size_t, int, int>> order;
                for (std::size_t l = 0; l < header.layers.size(); ++l)
                    for (int y = region.y; y < region.y + region.height; y += chunk)
                        for (int x = region.x; x < region.x + region.width; x += chunk)
                            order.emplace_back(l, x, y);
                CHECK(std::vector(world.calls.begin(),
                                  world.calls.begin() +
                                      static_cast<std::ptrdiff_t>(order.size())) == order);
                REQUIRE(cut.data.size() == order.size());
                for (std::size_t i = 0; i < order.size(); ++i) {
                    const auto [l, x0, y0] = order[i];
                    std::vector<Gid> want;
                    for (int y = y0; y < y0 + chunk; ++y)
                        for (int x = x0; x < x0 + chunk; ++x)
                            want.push_back(world_gid(l, x, y));
                    CHECK(decode_piece(cut.data[i], e, json, want.size()) == want);
                }
                // The chunk's place: <chunk x=.. y=..> or "x":..,"y":.. right after its data.
                const auto [l, x0, y0] = order.back();
                const std::string place =
                    json
                        ? ",\"height\":" + std::to_string(chunk) +
                              ",\"width\":" + std::to_string(chunk) +
                              ",\"x\":" + std::to_string(x0) + ",\"y\":" + std::to_string(y0) + "}]"
                        : "<chunk x=\"" + std::to_string(x0) + "\" y=\"" + std::to_string(y0) +
                              "\" width=\"" + std::to_string(chunk) + "\" height=\"" +
                              std::to_string(chunk) + "\">";
                CHECK(text.find(place) != std::string::npos);
            }
        }
}

TEST_CASE(
    "write_tmx_bundle streams the map into its file atomically, tilesets beside it or inside") {
    test::TempDir dir;
    const Map map = sample_map(300, 211, 50);
    for (const char* name : {"m.tmx", "m.tmj"})
        for (auto placement : {TilesetPlacement::external, TilesetPlacement::embedded}) {
            CAPTURE(name);
            fs::remove_all(dir / "out");
            fs::create_directories(dir / "out");
            MapOutputOptions options;
            options.encoding = LayerEncoding::base64_zstd;
            options.threads = 3;
            options.tilesets = placement;
            Diagnostics d;
            REQUIRE(write_tmx_bundle(map, dir / "out" / name, d, options));
            CHECK(d.empty());
            CHECK(test::read_text(dir / "out" / name) == map_text(map, name, options));
            const bool json = std::string(name) == "m.tmj";
            const bool external = placement == TilesetPlacement::external;
            CHECK(fs::exists(dir / "out" / (json ? "m.tsj" : "m.tsx")) == external);
            CHECK(fs::exists(dir / "out" / (json ? "m-objects.tsj" : "m-objects.tsx")) == external);
            CHECK(fs::exists(dir / "out" / "m-tiles.png"));
            CHECK(fs::exists(dir / "out" / "m-objects.png"));
            for (const auto& entry : fs::directory_iterator(dir / "out"))
                CHECK_MESSAGE(entry.path().filename().string()[0] != '.',
                              "temporary left: " << entry.path());
        }
}

TEST_CASE(
    "streamed atomic writes: a failure or an exception leaves the previous file and no temporary") {
    test::TempDir dir;
    const fs::path path = dir / "keep.tmx";
    test::write_text(path, "previous");
    Diagnostics d;
    CHECK_THROWS_AS(write_file_atomic(
                        path,
                        [](ByteSink& sink) {
                            sink.write("partial");
                            throw std::runtime_error("out of memory, say");
                        },
                        d),
                    std::runtime_error);
    CHECK(test::read_text(path) == "previous");
    const auto two_pieces = [](ByteSink& sink) {
        sink.write("new ");
        sink.write("bytes");
    };
    CHECK(write_file_atomic(path, two_pieces, d));
    CHECK(test::read_text(path) == "new bytes");
    CHECK_FALSE(write_file_atomic(
        dir / "missing" / "x.tmx", [](ByteSink& sink) { sink.write("x"); }, d));
    CHECK_FALSE(d.empty());
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir.path())) {
        ++files;
        CHECK(entry.path().filename() == "keep.tmx");
    }
    CHECK(files == 1);
}
