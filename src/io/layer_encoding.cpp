#include "io/layer_encoding.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <memory>
#include <zlib.h>
#define ZSTD_STATIC_LINKING_ONLY // ZSTD_c_stableInBuffer
#include <zstd.h>

#include "io/chunked_output.hpp"

namespace tilegen::io {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Chunk sizes. The bytes never depend on them (nor on the thread count): they only bound the memory
// in flight.
constexpr std::size_t kCsvChunkCells = std::size_t{1}
                                       << 16;        // csv: max(1, this / width) rows per chunk
constexpr std::size_t kBase64ChunkCells = 3 * 21845; // base64: 3 gids = 12 bytes = 16 characters
constexpr std::size_t kStreamBytes = std::size_t{1}
                                     << 18; // compressor input slices and output buffers

// ------------------------------------------------------------------------------------------
// integer formatting

// "0," .. "4095,": the decimal text and a comma in bytes 0..6, its length in byte 7. Copied 8 bytes
// at a time.
constexpr Gid kSmallGids = 4096;
using SmallText = std::array<std::array<char, 8>, kSmallGids>;
constexpr SmallText make_small_text() {
    SmallText t{};
    for (Gid v = 0; v < kSmallGids; ++v) {
        char digits[4]{};
        int n = 0;
        Gid x = v;
        do {
            digits[n++] = static_cast<char>('0' + x % 10);
            x /= 10;
        } while (x > 0);
        for (int i = 0; i < n; ++i)
            t[v][static_cast<std::size_t>(i)] = digits[n - 1 - i];
        t[v][static_cast<std::size_t>(n)] = ',';
        t[v][7] = static_cast<char>(n + 1);
    }
    return t;
}
constexpr SmallText kSmallText = make_small_text();

// Writes the gid's decimal text and a comma; may store up to 8 bytes past the start
// (detail::kChunkSlack).
inline char* put_gid_comma(char* p, Gid v) {
    if (v < kSmallGids) {
        std::memcpy(p, kSmallText[v].data(), 8);
        return p + kSmallText[v][7];
    }
    p = detail::put_uint(p, v);
    *p++ = ',';
    return p;
}

// Rows [r0, r1) of the csv text: gids separated by commas (none after the layer's last gid) and,
// with `newlines`, a newline after every complete row. Needs room for 11 bytes per cell and 1 per
// row.
char* csv_rows(char* p, std::span<const Gid> gids, std::size_t width, std::size_t r0,
               std::size_t r1, bool newlines) {
    const std::size_t n = gids.size();
    const Gid* g = gids.data();
    for (std::size_t r = r0; r < r1; ++r) {
        const std::size_t begin = r * width, end = std::min(n, begin + width);
        for (std::size_t i = begin; i < end; ++i)
            p = put_gid_comma(p, g[i]);
        if (end == n) --p; // no comma after the last gid
        if (newlines && end - begin == width) *p++ = '\n';
    }
    return p;
}

// ----------------------------------------------------------------------------------------------------
// base64

// n bytes, n a multiple of 3, to n / 3 * 4 characters.
inline char* base64_triples(char* p, const unsigned char* in, std::size_t n) {
    for (std::size_t i = 0; i + 2 < n; i += 3) {
        const std::uint32_t v =
            (std::uint32_t{in[i]} << 16) | (std::uint32_t{in[i + 1]} << 8) | in[i + 2];
        p[0] = kAlphabet[(v >> 18) & 63];
        p[1] = kAlphabet[(v >> 12) & 63];
        p[2] = kAlphabet[(v >> 6) & 63];
        p[3] = kAlphabet[v & 63];
        p += 4;
    }
    return p;
}

// Any n bytes: whole triples, then the last 1 or 2 bytes with '=' padding.
char* base64_chars(char* p, const unsigned char* in, std::size_t n) {
    const std::size_t whole = n / 3 * 3;
    p = base64_triples(p, in, whole);
    if (whole < n) {
        std::uint32_t v = std::uint32_t{in[whole]} << 16;
        if (whole + 1 < n) v |= std::uint32_t{in[whole + 1]} << 8;
        *p++ = kAlphabet[(v >> 18) & 63];
        *p++ = kAlphabet[(v >> 12) & 63];
        *p++ = whole + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
        *p++ = '=';
    }
    return p;
}

inline void little_endian(Gid g, unsigned char* out) {
    for (int b = 0; b < 4; ++b)
        out[b] = static_cast<unsigned char>((g >> (8 * b)) & 0xff);
}

// Base64 of the little-endian bytes of `count` gids; count is a multiple of 3 except in the layer's
// last chunk.
char* base64_gids(char* p, const Gid* g, std::size_t count) {
    unsigned char bytes[12];
    std::size_t i = 0;
    for (; i + 3 <= count; i += 3) {
        little_endian(g[i], bytes);
        little_endian(g[i + 1], bytes + 4);
        little_endian(g[i + 2], bytes + 8);
        p = base64_triples(p, bytes, 12);
    }
    const std::size_t rest = count - i; // 0, 1 or 2 gids
    if (rest > 0) little_endian(g[i], bytes);
    if (rest > 1) little_endian(g[i + 1], bytes + 4);
    return base64_chars(p, bytes, rest * 4);
}

// Base64 of a byte stream that arrives in pieces of any length (compressor output), written to the
// sink in blocks; finish() pads the end.
class Base64Stream {
  public:
    explicit Base64Stream(ByteSink& sink)
        : sink_(sink), out_(std::make_unique_for_overwrite<char[]>(kStreamBytes)) {}

    void put(const unsigned char* in, std::size_t n) {
        while (n > 0) {
            if (held_ > 0 || n < 3) {
                while (held_ < 3 && n > 0) {
                    hold_[held_++] = *in++;
                    --n;
                }
                if (held_ == 3) {
                    if (used_ + 4 > kStreamBytes) flush();
                    used_ = static_cast<std::size_t>(base64_triples(out_.get() + used_, hold_, 3) -
                                                     out_.get());
                    held_ = 0;
                }
                continue;
            }
            const std::size_t take = std::min(n / 3, (kStreamBytes - used_) / 4) * 3;
            if (take == 0) {
                flush();
                continue;
            }
            used_ =
                static_cast<std::size_t>(base64_triples(out_.get() + used_, in, take) - out_.get());
            in += take;
            n -= take;
        }
    }
    void finish() {
        if (used_ + 4 > kStreamBytes) flush();
        used_ =
            static_cast<std::size_t>(base64_chars(out_.get() + used_, hold_, held_) - out_.get());
        held_ = 0;
        flush();
    }

  private:
    void flush() {
        if (used_ > 0) sink_.write({out_.get(), used_});
        used_ = 0;
    }
    ByteSink& sink_;
    std::unique_ptr<char[]> out_;
    std::size_t used_ = 0, held_ = 0;
    unsigned char hold_[3]{};
};

// -----------------------------------------------------------------------------------------------
// compression

// Bytes [pos, pos + n) of the gids' little-endian bytes (pos and n multiples of 4): the gids' own
// memory on little-endian machines, else converted into `scratch`.
const unsigned char* little_endian_slice(std::span<const Gid> gids, std::size_t pos, std::size_t n,
                                         std::vector<unsigned char>& scratch) {
    if constexpr (std::endian::native == std::endian::little) {
        return reinterpret_cast<const unsigned char*>(gids.data()) + pos;
    } else {
        scratch.resize(n);
        for (std::size_t k = 0; k < n / 4; ++k)
            little_endian(gids[pos / 4 + k], scratch.data() + 4 * k);
        return scratch.data();
    }
}

// zlib (windowBits 15) or gzip (windowBits 31) deflate at level 6, fed in slices: the output does
// not depend on how the input is sliced, so it is the one a single deflate call over everything
// makes.
void deflate_to(Base64Stream& out, std::span<const Gid> gids, bool gzip) {
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, gzip ? 31 : 15, 8, Z_DEFAULT_STRATEGY);
    const auto buffer = std::make_unique_for_overwrite<unsigned char[]>(kStreamBytes);
    std::vector<unsigned char> scratch;
    const std::size_t total = gids.size() * 4;
    std::size_t pos = 0;
    do {
        const std::size_t n = std::min(kStreamBytes, total - pos);
        z.next_in = const_cast<Bytef*>(little_endian_slice(gids, pos, n, scratch));
        z.avail_in = static_cast<uInt>(n);
        pos += n;
        const int flush = pos == total ? Z_FINISH : Z_NO_FLUSH;
        do { // until deflate leaves room in the buffer: then it has taken all input (and,
             // finishing, ended)
            z.next_out = buffer.get();
            z.avail_out = static_cast<uInt>(kStreamBytes);
            deflate(&z, flush);
            out.put(buffer.get(), kStreamBytes - z.avail_out);
        } while (z.avail_out == 0);
    } while (pos < total);
    deflateEnd(&z);
}

// zstd at level 1, the frame ZSTD_compress makes (content size in the header). Streamed out with
// the input read in place (ZSTD_c_stableInBuffer): zstd then sees the input as ZSTD_compress does,
// so the bytes are the same (copied through zstd's own input buffer they differ by a few bytes).
// Without that option: one ZSTD_compress.
void zstd_to(Base64Stream& out, std::span<const Gid> gids) {
    std::vector<unsigned char> copy;
    const std::size_t size = gids.size() * 4;
    const unsigned char* src = little_endian_slice(gids, 0, size, copy);
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    const bool stream = cctx &&
                        !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1)) &&
                        !ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(cctx, size)) &&
                        !ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_stableInBuffer, 1));
    if (stream) {
        const auto buffer = std::make_unique_for_overwrite<unsigned char[]>(kStreamBytes);
        ZSTD_inBuffer in{src, size, 0};
        std::size_t left = 0;
        do {
            ZSTD_outBuffer o{buffer.get(), kStreamBytes, 0};
            left = ZSTD_compressStream2(cctx, &o, &in, ZSTD_e_end);
            out.put(buffer.get(), o.pos);
        } while (left != 0 && !ZSTD_isError(left));
    } else {
        const std::size_t bound = ZSTD_compressBound(size);
        const auto packed =
            std::make_unique_for_overwrite<unsigned char[]>(bound); // pages touched as written
        const std::size_t n = ZSTD_compress(packed.get(), bound, src, size, 1);
        if (!ZSTD_isError(n)) out.put(packed.get(), n);
    }
    ZSTD_freeCCtx(cctx);
}

// Inflates in 1 MiB steps, so memory follows the data actually there, never more than `expected`
// bytes.
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

// ---------------------------------------------------------------------------------------------
// chunked output

// The layer data: TMX <data> text, or with `json` the TMJ "data" value (csv as [..] without
// newlines, base64 in quotes without the newlines).
void write_layer_data(ByteSink& sink, std::span<const Gid> gids, int width, LayerEncoding e,
                      int threads, bool json) {
    const std::size_t n = gids.size();
    const std::size_t w = width > 0 ? static_cast<std::size_t>(width) : std::max<std::size_t>(n, 1);
    if (e == LayerEncoding::csv) {
        sink.write(json ? "[" : "\n");
        const std::size_t rows = (n + w - 1) / w;
        const std::size_t per = std::max<std::size_t>(1, kCsvChunkCells / w); // rows per chunk
        detail::write_chunks_in_order(
            sink, (rows + per - 1) / per, per * w * 11 + per, threads, [&](std::size_t i, char* p) {
                return csv_rows(p, gids, w, i * per, std::min(rows, (i + 1) * per), !json);
            });
        if (json)
            sink.write(
                "]"); // the text ends with the last row (and its newline when the row is complete)
        return;
    }
    sink.write(json ? "\"" : "\n");
    if (e == LayerEncoding::base64) {
        detail::write_chunks_in_order(
            sink, (n + kBase64ChunkCells - 1) / kBase64ChunkCells, kBase64ChunkCells / 3 * 16,
            threads, [&](std::size_t i, char* p) {
                const std::size_t begin = i * kBase64ChunkCells;
                return base64_gids(p, gids.data() + begin, std::min(kBase64ChunkCells, n - begin));
            });
    } else {
        Base64Stream out(sink);
        if (e == LayerEncoding::base64_zstd)
            zstd_to(out, gids);
        else
            deflate_to(out, gids, e == LayerEncoding::base64_gzip);
        out.finish();
    }
    sink.write(json ? "\"" : "\n");
}

} // namespace

std::optional<LayerEncoding> parse_layer_encoding(std::string_view name) {
    for (LayerEncoding e : {LayerEncoding::csv, LayerEncoding::base64, LayerEncoding::base64_zlib,
                            LayerEncoding::base64_gzip, LayerEncoding::base64_zstd})
        if (name == layer_encoding_name(e)) return e;
    return std::nullopt;
}

// Lookups, one case per encoding (name, compression): shared shape, not logic (deliberate).
const char* layer_encoding_name(LayerEncoding e) {
    switch (e) {
    case LayerEncoding::csv:
        return "csv";
    case LayerEncoding::base64:
        return "base64";
    case LayerEncoding::base64_zlib:
        return "base64+zlib";
    case LayerEncoding::base64_gzip:
        return "base64+gzip";
    case LayerEncoding::base64_zstd:
        return "base64+zstd";
    }
    return "csv";
}

const char* tmx_encoding_attribute(LayerEncoding e) {
    return e == LayerEncoding::csv ? "csv" : "base64";
}

const char* tmx_compression_attribute(LayerEncoding e) {
    switch (e) {
    case LayerEncoding::base64_zlib:
        return "zlib";
    case LayerEncoding::base64_gzip:
        return "gzip";
    case LayerEncoding::base64_zstd:
        return "zstd";
    default:
        return "";
    }
}

std::string base64_encode(std::string_view bytes) {
    std::string out((bytes.size() + 2) / 3 * 4, '\0');
    base64_chars(out.data(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
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

std::string encode_layer(std::span<const Gid> gids, int width, LayerEncoding e, int threads) {
    StringSink sink;
    write_layer(sink, gids, width, e, threads);
    return std::move(sink.text);
}

void write_layer(ByteSink& sink, std::span<const Gid> gids, int width, LayerEncoding e,
                 int threads) {
    write_layer_data(sink, gids, width, e, threads, false);
}

void write_layer_json(ByteSink& sink, std::span<const Gid> gids, int width, LayerEncoding e,
                      int threads) {
    write_layer_data(sink, gids, width, e, threads, true);
}

std::optional<std::vector<Gid>> decode_layer(std::string_view text, std::string_view encoding,
                                             std::string_view compression, std::size_t expected,
                                             Diagnostics& diags, const std::string& file, int line,
                                             int column) {
    const auto fail = [&](std::string message) -> std::optional<std::vector<Gid>> {
        diags.push_back(error_at(file, line, column, std::move(message)));
        return std::nullopt;
    };
    std::vector<Gid> gids;
    gids.reserve(
        std::min(expected, text.size() / 2 + 1)); // what the text can hold, not what it claims
    if (encoding == "csv") {
        if (!compression.empty()) {
            return fail("csv data cannot be compressed");
        }
        std::size_t i = 0;
        while (i < text.size()) {
            while (i < text.size() &&
                   (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
                ++i;
            if (i >= text.size()) break;
            std::uint64_t v = 0;
            auto [p, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
            if (ec != std::errc() || v > 0xffffffffull) {
                return fail("csv data has a bad number near character " + std::to_string(i + 1));
            }
            gids.push_back(static_cast<Gid>(v));
            i = static_cast<std::size_t>(p - text.data());
            while (i < text.size() &&
                   (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
                ++i;
            if (i < text.size()) {
                if (text[i] != ',') {
                    return fail("csv data has '" + std::string(1, text[i]) +
                                "' where a comma belongs");
                }
                ++i;
            }
            if (gids.size() > expected) break;
        }
    } else if (encoding == "base64") {
        auto bytes = base64_decode(text);
        if (!bytes) {
            return fail("data is not valid base64");
        }
        std::string raw;
        if (compression.empty()) {
            raw = std::move(*bytes);
        } else if (compression == "zlib" || compression == "gzip") {
            auto r = inflate_bytes(*bytes, expected * 4);
            if (!r) {
                return fail(std::string(compression) + " data is corrupt or has the wrong size");
            }
            raw = std::move(*r);
        } else if (compression == "zstd") {
            const unsigned long long size = ZSTD_getFrameContentSize(bytes->data(), bytes->size());
            if (size != expected * 4) {
                return fail("zstd data is corrupt or has the wrong size");
            }
            raw.assign(expected * 4, '\0');
            const std::size_t n =
                ZSTD_decompress(raw.data(), raw.size(), bytes->data(), bytes->size());
            if (ZSTD_isError(n) || n != expected * 4) {
                return fail("zstd data is corrupt or has the wrong size");
            }
        } else {
            return fail("unknown compression '" + std::string(compression) +
                        "' (expected zlib, gzip or zstd)");
        }
        if (raw.size() % 4 != 0) {
            return fail("data is not a whole number of 32-bit tiles");
        }
        for (std::size_t i = 0; i < raw.size(); i += 4) {
            Gid v = 0;
            for (int b = 0; b < 4; ++b)
                v |= static_cast<Gid>(
                         static_cast<std::uint8_t>(raw[i + static_cast<std::size_t>(b)]))
                     << (8 * b);
            gids.push_back(v);
        }
    } else {
        return fail(
            encoding.empty()
                ? "tile data without an encoding (XML <tile> elements) is not supported; save "
                  "as CSV"
                : "unknown encoding '" + std::string(encoding) + "' (expected csv or base64)");
    }
    if (gids.size() != expected) {
        return fail("layer data has " + std::to_string(gids.size()) + " tiles, expected " +
                    std::to_string(expected));
    }
    return gids;
}

} // namespace tilegen::io
