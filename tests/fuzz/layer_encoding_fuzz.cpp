// Fuzz target: TMX tile layer data: io::base64_decode and io::decode_layer directly.
// Input: byte 0 picks the encoding (csv, base64, base64+zlib, base64+gzip, base64+zstd, or an
// unknown one), bytes 1-2 the expected tile count (little-endian, 0..65535), the rest is the <data>
// text. Properties: no crash/UB/leak; decode_layer returns exactly `expected` gids or an error
// message; base64 and every encoding round-trip (decode(encode(x)) == x) for the gids decoded.
#include <cstdint>
#include <span>

#include "fuzz_support.hpp"
#include "io/layer_encoding.hpp"

using namespace tilegen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3 || size > 256 * 1024) return -1;
    const std::string_view text = fuzz::text_of(data + 3, size - 3);
    const std::size_t expected =
        static_cast<std::size_t>(data[1]) | (static_cast<std::size_t>(data[2]) << 8);

    // base64 alone: decoding never fails on what encoding made, and re-encoding what it decoded
    // round-trips.
    if (const auto bytes = io::base64_decode(text)) {
        FUZZ_CHECK(io::base64_decode(io::base64_encode(*bytes)) == *bytes, "base64 round trip");
    }

    static const char* const kEncodings[][2] = {
        {"csv", ""},        {"base64", ""},    {"base64", "zlib"}, {"base64", "gzip"},
        {"base64", "zstd"}, {"base64", "lz4"}, {"xml", ""},        {"csv", "zlib"}};
    const auto& [encoding, compression] = kEncodings[data[0] % 8];
    Diagnostics diags;
    const auto gids = io::decode_layer(text, encoding, compression, expected, diags);
    if (!gids) {
        FUZZ_CHECK(diags.size() == 1 && !diags[0].message.empty(), "a failed decode says why");
        return 0;
    }
    FUZZ_CHECK(gids->size() == expected, "decode_layer returns the expected tile count");
    // Encode what was decoded in every encoding, and decode it back.
    const int width = expected == 0 ? 1 : static_cast<int>(1 + data[0] % 16);
    for (auto e :
         {io::LayerEncoding::csv, io::LayerEncoding::base64, io::LayerEncoding::base64_zlib,
          io::LayerEncoding::base64_gzip, io::LayerEncoding::base64_zstd}) {
        const std::string encoded = io::encode_layer(std::span<const Gid>(*gids), width, e);
        Diagnostics d2;
        const auto back = io::decode_layer(encoded, io::tmx_encoding_attribute(e),
                                           io::tmx_compression_attribute(e), expected, d2);
        FUZZ_CHECK(back && *back == *gids, io::layer_encoding_name(e));
    }
    return 0;
}
