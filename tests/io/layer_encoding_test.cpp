#include <doctest/doctest.h>

#include "io/layer_encoding.hpp"

using namespace tilegen;
using namespace tilegen::io;

TEST_CASE("base64 matches the RFC 4648 test vectors and round-trips") {
    const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                           {"f", "Zg=="},
                                                           {"fo", "Zm8="},
                                                           {"foo", "Zm9v"},
                                                           {"foob", "Zm9vYg=="},
                                                           {"fooba", "Zm9vYmE="},
                                                           {"foobar", "Zm9vYmFy"}};
    for (auto [plain, coded] : vectors) {
        CHECK(base64_encode(plain) == coded);
        CHECK(base64_decode(coded) == std::optional<std::string>(plain));
    }
    CHECK_FALSE(base64_decode("Zm9v*"));
    CHECK_FALSE(base64_decode("Zg==Zg"));
}

TEST_CASE("every layer encoding round-trips gids with flip bits") {
    std::vector<Gid> gids;
    for (Gid i = 0; i < 600; ++i)
        gids.push_back((i * 2654435761u) % 97 | (i % 7 == 0 ? kFlipHorizontal | kFlipDiagonal : 0));
    for (auto e : {LayerEncoding::csv, LayerEncoding::base64, LayerEncoding::base64_zlib,
                   LayerEncoding::base64_gzip, LayerEncoding::base64_zstd}) {
        CAPTURE(layer_encoding_name(e));
        CHECK(parse_layer_encoding(layer_encoding_name(e)) == e);
        const std::string text = encode_layer(gids, 30, e);
        Diagnostics diags;
        auto back = decode_layer(text, tmx_encoding_attribute(e), tmx_compression_attribute(e),
                                 gids.size(), diags);
        REQUIRE_MESSAGE(back, (diags.empty() ? "" : diags[0].message));
        CHECK(diags.empty());
        CHECK(*back == gids);
    }
    CHECK(encode_layer(std::vector<Gid>{1, 2, 3, 4}, 2, LayerEncoding::csv) == "\n1,2,\n3,4\n");
    CHECK_FALSE(parse_layer_encoding("base64+lzma"));
}

TEST_CASE("bad layer data is refused with a reason") {
    struct Bad {
        const char* text;
        const char* encoding;
        const char* compression;
        std::size_t expected;
        const char* message;
    };
    const Bad cases[] = {
        {"1,2,3", "csv", "", 4, "layer data has 3 tiles, expected 4"},
        {"1,x,3", "csv", "", 3, "bad number"},
        {"1;2", "csv", "", 2, "where a comma belongs"},
        {"1,2", "csv", "zlib", 2, "csv data cannot be compressed"},
        {"!!!!", "base64", "", 1, "not valid base64"},
        {"AAAA", "base64", "", 1, "not a whole number of 32-bit tiles"},
        {"AAAAAA==", "base64", "zlib", 1, "zlib data is corrupt"},
        {"AAAAAA==", "base64", "zstd", 1, "zstd data is corrupt"},
        {"AAAAAA==", "base64", "lzma", 1, "unknown compression 'lzma'"},
        {"1", "xml", "", 1, "unknown encoding 'xml'"},
        {"", "", "", 1, "not supported; save as CSV"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics diags;
        CHECK_FALSE(
            decode_layer(b.text, b.encoding, b.compression, b.expected, diags, "m.tmx", 7, 2));
        REQUIRE(diags.size() == 1);
        const Diagnostic& d = diags[0];
        CHECK(d.severity == Severity::error);
        CHECK((d.file == "m.tmx" && d.line == 7 && d.column == 2));
        CHECK_MESSAGE(d.message.find(b.message) != std::string::npos, d.message);
    }
}
