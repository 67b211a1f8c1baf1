// Streaming TMX/TMJ writers: the bytes are exactly those of the former whole-string writers (kept
// below as the reference, verbatim), for every encoding, at any thread count, for maps spanning
// many chunks and odd shapes.
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
#include "io/xml_text.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::io;
namespace fs = std::filesystem;

namespace {

constexpr LayerEncoding kEncodings[] = {LayerEncoding::csv, LayerEncoding::base64,
                                        LayerEncoding::base64_zlib, LayerEncoding::base64_gzip,
                                        LayerEncoding::base64_zstd};
constexpr int kThreads[] = {1, 2, 3, 8};

// ------------------------------------------------------------------ the former writers (reference,
// unchanged)

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

std::size_t object_count(const Map& map) {
    std::size_t n = 0;
    for (const auto& l : map.object_layers)
        n += l.objects.size();
    return n;
}

void properties_json(JsonWriter& j, const std::vector<std::pair<std::string, std::string>>& props) {
    j.key("properties").begin_array();
    for (const auto& [name, value] : props) {
        j.begin_object();
        j.key("name").value(name).key("type").value("string").key("value").value(value);
        j.end_object();
    }
    j.end_array();
}

std::string legacy_tmx_text(const Map& map, const std::string& tsx_file,
                            const std::string& objects_tsx_file, const MapOutputOptions& options) {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<map version=\"1.8\" tiledversion=\"1.8.2\" orientation=\"orthogonal\" "
           "renderorder=\"right-down\" width=\"" +
           std::to_string(map.width) + "\" height=\"" + std::to_string(map.height) +
           "\" tilewidth=\"" + std::to_string(map.atlas.tile_width) + "\" tileheight=\"" +
           std::to_string(map.atlas.tile_height) + "\" infinite=\"0\" nextlayerid=\"" +
           std::to_string(map.layers.size() + map.object_layers.size() + 1) + "\" nextobjectid=\"" +
           std::to_string(object_count(map) + 1) + "\">\n";
    if (!map.properties.empty()) {
        out += " <properties>\n";
        for (const auto& p : map.properties) {
            out += "  <property name=\"" + xml_escape(p.name) + "\"";
            if (p.type != "string") out += " type=\"" + xml_escape(p.type) + "\"";
            out += " value=\"" + xml_escape(p.value) + "\"/>\n";
        }
        out += " </properties>\n";
    }
    out += " <tileset firstgid=\"1\" source=\"" + xml_escape(tsx_file) + "\"/>\n";
    const bool objects = object_count(map) > 0;
    const int sprite_firstgid = map.atlas.tile_count() + 1;
    if (objects)
        out += " <tileset firstgid=\"" + std::to_string(sprite_firstgid) + "\" source=\"" +
               xml_escape(objects_tsx_file) + "\"/>\n";
    int id = 1;
    for (const TileLayer& layer : map.layers) {
        out += " <layer id=\"" + std::to_string(id++) + "\" name=\"" + xml_escape(layer.name) +
               "\" width=\"" + std::to_string(map.width) + "\" height=\"" +
               std::to_string(map.height) + "\">\n";
        out += "  <data encoding=\"" + std::string(tmx_encoding_attribute(options.encoding)) + "\"";
        const std::string compression = tmx_compression_attribute(options.encoding);
        if (!compression.empty()) out += " compression=\"" + compression + "\"";
        out += ">";
        out += legacy_encode_layer(layer.tiles.cells(), map.width, options.encoding);
        out += "</data>\n </layer>\n";
    }
    int object_id = 1;
    for (const ObjectLayer& layer : map.object_layers) {
        if (!objects) break;
        // draworder "index": Tiled draws in file order, which is tilegen's y-order.
        out += " <objectgroup id=\"" + std::to_string(id++) + "\" name=\"" +
               xml_escape(layer.name) + "\" draworder=\"index\">\n";
        for (const MapObject& o : layer.objects) {
            out += "  <object id=\"" + std::to_string(object_id++) + "\" name=\"" +
                   xml_escape(map.sprites.names[static_cast<std::size_t>(o.sprite)]) + "\" gid=\"" +
                   std::to_string(sprite_firstgid + o.sprite) + "\" x=\"" + std::to_string(o.x) +
                   "\" y=\"" + std::to_string(o.y) + "\" width=\"" +
                   std::to_string(map.sprites.sprite_width) + "\" height=\"" +
                   std::to_string(map.sprites.sprite_height) + "\"/>\n";
        }
        out += " </objectgroup>\n";
    }
    out += "</map>\n";
    return out;
}

std::string legacy_tmj_text(const Map& map, const std::string& tsj_file,
                            const std::string& objects_tsj_file, const MapOutputOptions& options) {
    const bool objects = object_count(map) > 0;
    const int sprite_firstgid = map.atlas.tile_count() + 1;
    JsonWriter j;
    j.begin_object();
    j.key("compressionlevel").value(-1);
    j.key("height").value(map.height);
    j.key("infinite").value(false);
    j.key("layers").begin_array();
    int id = 1;
    for (const TileLayer& layer : map.layers) {
        j.begin_object();
        const std::string compression = tmx_compression_attribute(options.encoding);
        if (!compression.empty()) j.key("compression").value(compression);
        if (options.encoding == LayerEncoding::csv) {
            std::string data =
                legacy_encode_layer(layer.tiles.cells(), map.width, LayerEncoding::csv);
            std::string arr = "[";
            for (char c : data)
                if (c != '\n') arr += c;
            arr += "]";
            j.key("data").raw(arr);
        } else {
            std::string data =
                legacy_encode_layer(layer.tiles.cells(), map.width, options.encoding);
            j.key("data").value(
                std::string_view(data).substr(1, data.size() - 2)); // strip the newlines
            j.key("encoding").value("base64");
        }
        j.key("height").value(map.height);
        j.key("id").value(id++);
        j.key("name").value(layer.name);
        j.key("opacity").value(1);
        j.key("type").value("tilelayer");
        j.key("visible").value(true);
        j.key("width").value(map.width);
        j.key("x").value(0);
        j.key("y").value(0);
        j.end_object();
    }
    int object_id = 1;
    for (const ObjectLayer& layer : map.object_layers) {
        if (!objects) break;
        j.begin_object();
        j.key("draworder").value("index");
        j.key("id").value(id++);
        j.key("name").value(layer.name);
        j.key("objects").begin_array();
        for (const MapObject& o : layer.objects) {
            j.begin_object();
            j.key("gid").value(sprite_firstgid + o.sprite);
            j.key("height").value(map.sprites.sprite_height);
            j.key("id").value(object_id++);
            j.key("name").value(map.sprites.names[static_cast<std::size_t>(o.sprite)]);
            j.key("rotation").value(0);
            j.key("type").value("");
            j.key("visible").value(true);
            j.key("width").value(map.sprites.sprite_width);
            j.key("x").value(o.x);
            j.key("y").value(o.y);
            j.end_object();
        }
        j.end_array();
        j.key("opacity").value(1);
        j.key("type").value("objectgroup");
        j.key("visible").value(true);
        j.key("x").value(0);
        j.key("y").value(0);
        j.end_object();
    }
    j.end_array();
    j.key("nextlayerid").value(id);
    j.key("nextobjectid").value(static_cast<std::uint64_t>(object_count(map) + 1));
    j.key("orientation").value("orthogonal");
    std::vector<std::pair<std::string, std::string>> props;
    for (const auto& p : map.properties)
        props.emplace_back(p.name, p.value);
    properties_json(j, props);
    j.key("renderorder").value("right-down");
    j.key("tiledversion").value("1.8.2");
    j.key("tileheight").value(map.atlas.tile_height);
    j.key("tilesets").begin_array();
    j.begin_object().key("firstgid").value(1).key("source").value(tsj_file).end_object();
    if (objects)
        j.begin_object()
            .key("firstgid")
            .value(sprite_firstgid)
            .key("source")
            .value(objects_tsj_file)
            .end_object();
    j.end_array();
    j.key("tilewidth").value(map.atlas.tile_width);
    j.key("type").value("map");
    j.key("version").value("1.8");
    j.key("width").value(map.width);
    j.end_object();
    return j.str() + "\n";
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
        std::string error;
        auto back = decode_layer(expected, tmx_encoding_attribute(e), tmx_compression_attribute(e),
                                 gids.size(), error);
        REQUIRE_MESSAGE(back, error);
        CHECK(*back == gids);
    }
}

TEST_CASE("write_tmx/write_tmj stream the former tmx_text/tmj_text bytes at any thread count") {
    // 20000 objects span several chunks of <object> lines; x runs negative too.
    const std::tuple<int, int, std::size_t> maps[] = {
        {517, 389, 20000}, {1, 1, 1}, {1, 1000, 0}, {1000, 1, 3}};
    for (const auto& shape : maps) {
        const int w = std::get<0>(shape), h = std::get<1>(shape);
        const std::size_t objects = std::get<2>(shape);
        const Map map = sample_map(w, h, objects);
        for (LayerEncoding e : kEncodings) {
            CAPTURE(w);
            CAPTURE(h);
            CAPTURE(layer_encoding_name(e));
            MapOutputOptions options;
            options.encoding = e;
            const std::string tmx = legacy_tmx_text(map, "m.tsx", "m-objects.tsx", options);
            const std::string tmj = legacy_tmj_text(map, "m.tsj", "m-objects.tsj", options);
            for (int threads : kThreads) {
                CAPTURE(threads);
                options.threads = threads;
                CHECK(tmx_text(map, "m.tsx", "m-objects.tsx", options) == tmx);
                CHECK(tmj_text(map, "m.tsj", "m-objects.tsj", options) == tmj);
                CountingSink count;
                write_tmx(count, map, "m.tsx", "m-objects.tsx", options);
                CHECK(count.bytes == tmx.size());
                StringSink sink;
                write_tmj(sink, map, "m.tsj", "m-objects.tsj", options);
                CHECK(sink.text == tmj);
            }
        }
    }
}

TEST_CASE("write_tmx_bundle streams the map into its file atomically, with the former bytes") {
    test::TempDir dir;
    const Map map = sample_map(300, 211, 50);
    for (const char* name : {"m.tmx", "m.tmj"})
        for (LayerEncoding e : {LayerEncoding::csv, LayerEncoding::base64_zstd}) {
            CAPTURE(name);
            MapOutputOptions options;
            options.encoding = e;
            options.threads = 3;
            Diagnostics d;
            REQUIRE(write_tmx_bundle(map, dir / name, d, options));
            CHECK(d.empty());
            const bool json = std::string(name) == "m.tmj";
            CHECK(test::read_text(dir / name) ==
                  (json ? legacy_tmj_text(map, "m.tsj", "m-objects.tsj", options)
                        : legacy_tmx_text(map, "m.tsx", "m-objects.tsx", options)));
        }
    for (const auto& entry : fs::directory_iterator(dir.path()))
        CHECK_MESSAGE(entry.path().filename().string()[0] != '.',
                      "temporary left: " << entry.path());
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
