#include "io/layer_encoding.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <zlib.h>
#include <zstd.h>

namespace tilegen::io {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string little_endian_bytes(std::span<const Gid> gids) {
    std::string out(gids.size() * 4, '\0');
    for (std::size_t i = 0; i < gids.size(); ++i)
        for (int b = 0; b < 4; ++b) out[i * 4 + static_cast<std::size_t>(b)] = static_cast<char>((gids[i] >> (8 * b)) & 0xff);
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

// Inflates in 1 MiB steps, so memory follows the data actually there, never more than `expected` bytes.
std::optional<std::string> inflate_bytes(std::string_view in, std::size_t expected) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) return std::nullopt; // +32: zlib or gzip header
    std::string out;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size(), 0x7fffffff));
    int rc = Z_OK;
    while (rc == Z_OK) {
        const std::size_t have = out.size();
        const std::size_t step = std::min<std::size_t>(std::size_t{1} << 20, expected + 1 - have);
        out.resize(have + step);
        z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
        z.avail_out = static_cast<uInt>(step);
        rc = inflate(&z, Z_NO_FLUSH);
        out.resize(have + step - z.avail_out);
        if (out.size() > expected) break;
        if (rc == Z_BUF_ERROR && z.avail_in == 0) break;
        if (rc == Z_BUF_ERROR) rc = Z_OK;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END || out.size() != expected) return std::nullopt;
    return out;
}

} // namespace

std::optional<LayerEncoding> parse_layer_encoding(std::string_view name) {
    for (LayerEncoding e : {LayerEncoding::csv, LayerEncoding::base64, LayerEncoding::base64_zlib,
                            LayerEncoding::base64_gzip, LayerEncoding::base64_zstd})
        if (name == layer_encoding_name(e)) return e;
    return std::nullopt;
}

const char* layer_encoding_name(LayerEncoding e) {
    switch (e) {
    case LayerEncoding::csv: return "csv";
    case LayerEncoding::base64: return "base64";
    case LayerEncoding::base64_zlib: return "base64+zlib";
    case LayerEncoding::base64_gzip: return "base64+gzip";
    case LayerEncoding::base64_zstd: return "base64+zstd";
    }
    return "csv";
}

const char* tmx_encoding_attribute(LayerEncoding e) { return e == LayerEncoding::csv ? "csv" : "base64"; }

const char* tmx_compression_attribute(LayerEncoding e) {
    switch (e) {
    case LayerEncoding::base64_zlib: return "zlib";
    case LayerEncoding::base64_gzip: return "gzip";
    case LayerEncoding::base64_zstd: return "zstd";
    default: return "";
    }
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const std::uint32_t v = (static_cast<std::uint8_t>(bytes[i]) << 16) | (static_cast<std::uint8_t>(bytes[i + 1]) << 8) |
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

std::optional<std::string> base64_decode(std::string_view text) {
    std::string out;
    out.reserve(text.size() / 4 * 3);
    std::uint32_t acc = 0;
    int bits = 0, pad = 0;
    for (char c : text) {
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        if (c == '=') {
            ++pad;
            continue;
        }
        if (pad) return std::nullopt; // data after padding
        const char* p = std::strchr(kAlphabet, c);
        if (!p || c == '\0') return std::nullopt;
        acc = (acc << 6) | static_cast<std::uint32_t>(p - kAlphabet);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    return out;
}

std::string encode_layer(std::span<const Gid> gids, int width, LayerEncoding e) {
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
    case LayerEncoding::base64: packed = raw; break;
    case LayerEncoding::base64_zlib: packed = deflate_bytes(raw, false); break;
    case LayerEncoding::base64_gzip: packed = deflate_bytes(raw, true); break;
    case LayerEncoding::base64_zstd: {
        packed.resize(ZSTD_compressBound(raw.size()));
        packed.resize(ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), 1));
        break;
    }
    default: break;
    }
    return "\n" + base64_encode(packed) + "\n";
}

std::optional<std::vector<Gid>> decode_layer(std::string_view text, std::string_view encoding,
                                             std::string_view compression, std::size_t expected, std::string& error) {
    std::vector<Gid> gids;
    gids.reserve(std::min(expected, text.size() / 2 + 1)); // what the text can hold, not what it claims
    if (encoding == "csv") {
        if (!compression.empty()) {
            error = "csv data cannot be compressed";
            return std::nullopt;
        }
        std::size_t i = 0;
        while (i < text.size()) {
            while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
            if (i >= text.size()) break;
            std::uint64_t v = 0;
            auto [p, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
            if (ec != std::errc() || v > 0xffffffffull) {
                error = "csv data has a bad number near character " + std::to_string(i + 1);
                return std::nullopt;
            }
            gids.push_back(static_cast<Gid>(v));
            i = static_cast<std::size_t>(p - text.data());
            while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
            if (i < text.size()) {
                if (text[i] != ',') {
                    error = "csv data has '" + std::string(1, text[i]) + "' where a comma belongs";
                    return std::nullopt;
                }
                ++i;
            }
            if (gids.size() > expected) break;
        }
    } else if (encoding == "base64") {
        auto bytes = base64_decode(text);
        if (!bytes) {
            error = "data is not valid base64";
            return std::nullopt;
        }
        std::string raw;
        if (compression.empty()) {
            raw = std::move(*bytes);
        } else if (compression == "zlib" || compression == "gzip") {
            auto r = inflate_bytes(*bytes, expected * 4);
            if (!r) {
                error = std::string(compression) + " data is corrupt or has the wrong size";
                return std::nullopt;
            }
            raw = std::move(*r);
        } else if (compression == "zstd") {
            const unsigned long long size = ZSTD_getFrameContentSize(bytes->data(), bytes->size());
            if (size != expected * 4) {
                error = "zstd data is corrupt or has the wrong size";
                return std::nullopt;
            }
            raw.assign(expected * 4, '\0');
            const std::size_t n = ZSTD_decompress(raw.data(), raw.size(), bytes->data(), bytes->size());
            if (ZSTD_isError(n) || n != expected * 4) {
                error = "zstd data is corrupt or has the wrong size";
                return std::nullopt;
            }
        } else {
            error = "unknown compression '" + std::string(compression) + "' (expected zlib, gzip or zstd)";
            return std::nullopt;
        }
        if (raw.size() % 4 != 0) {
            error = "data is not a whole number of 32-bit tiles";
            return std::nullopt;
        }
        for (std::size_t i = 0; i < raw.size(); i += 4) {
            Gid v = 0;
            for (int b = 0; b < 4; ++b) v |= static_cast<Gid>(static_cast<std::uint8_t>(raw[i + static_cast<std::size_t>(b)])) << (8 * b);
            gids.push_back(v);
        }
    } else {
        error = encoding.empty() ? "tile data without an encoding (XML <tile> elements) is not supported; save as CSV"
                                 : "unknown encoding '" + std::string(encoding) + "' (expected csv or base64)";
        return std::nullopt;
    }
    if (gids.size() != expected) {
        error = "layer data has " + std::to_string(gids.size()) + " tiles, expected " + std::to_string(expected);
        return std::nullopt;
    }
    return gids;
}

} // namespace tilegen::io
