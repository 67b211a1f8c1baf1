// The built-in deflate encoder (io/strip_deflate.hpp). The reference is zlib: its inflate must
// give back every input byte for byte (tile-like rows of repeated pieces, random bytes that make
// stored blocks pay, long runs past 258 bytes, tiny and empty inputs, every piece size), pieces
// made without `last` must end on a byte boundary and join into one stream as pigz joins them, and
// adler32_update must equal zlib's adler32 for every length and starting value.
#include <doctest/doctest.h>
#include <zlib.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/hash.hpp"
#include "io/strip_deflate.hpp"

namespace {

using namespace tilegen;

// Raw inflate of a whole stream; nullopt unless it ends with the final block and uses every byte.
std::optional<std::vector<std::uint8_t>> inflate_raw(const std::vector<std::uint8_t>& in,
                                                     std::size_t expected) {
    std::vector<std::uint8_t> out(expected + 64);
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) return std::nullopt;
    z.next_in = const_cast<std::uint8_t*>(in.data());
    z.avail_in = static_cast<uInt>(in.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&z, Z_FINISH);
    const bool ok = rc == Z_STREAM_END && z.avail_in == 0;
    out.resize(z.total_out);
    inflateEnd(&z);
    if (!ok) return std::nullopt;
    return out;
}

// Rows of `stride` bytes (a zero filter byte, then pixels): pieces of `unit` bytes picked by hash
// from `kinds` different ones whose bytes take `values` values (256: anything); `noise` in 1000
// replaces a byte by a random one.
std::vector<std::uint8_t> tile_rows(std::uint64_t seed, std::size_t stride, std::size_t rows,
                                    std::size_t unit, std::size_t kinds, unsigned values,
                                    unsigned noise) {
    std::vector<std::uint8_t> bytes(stride * rows);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t x = 0; x + 1 < stride; ++x) {
            const std::uint64_t kind = hash_values(seed, 1, x / unit, r) % kinds;
            std::uint64_t v = hash_values(seed, 2, kind, x % unit) % values;
            if (hash_values(seed, 3, x, r) % 1000 < noise) v = hash_values(seed, 4, x, r) % 256;
            bytes[r * stride + 1 + x] = static_cast<std::uint8_t>(v);
        }
    return bytes;
}

} // namespace

TEST_CASE("strip deflate: zlib inflates every input back, for every piece size") {
    io::StripDeflater deflater;
    int cases = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const std::size_t stride = 1 + hash_values(seed, 10) % 900;
        const std::size_t rows = 1 + hash_values(seed, 11) % 40;
        const std::size_t unit = 1 + hash_values(seed, 12) % 20;
        const std::size_t kinds = 1 + hash_values(seed, 13) % 40;
        const unsigned values = seed % 5 == 0 ? 256 : 2 + static_cast<unsigned>(seed % 50);
        const unsigned noise = seed % 3 == 0 ? 20 : 0;
        CAPTURE(seed);
        const std::vector<std::uint8_t> in =
            tile_rows(seed, stride, rows, unit, kinds, values, noise);
        std::vector<std::uint8_t> out;
        out.resize(deflater.compress(in.data(), in.size(), stride, unit, true, out));
        const auto back = inflate_raw(out, in.size());
        REQUIRE(back.has_value());
        CHECK(*back == in);
        ++cases;
    }
    CHECK(cases == 60);
}

TEST_CASE("strip deflate: tile rows shrink, random bytes go stored, barely larger") {
    io::StripDeflater deflater;
    const std::vector<std::uint8_t> tiles = tile_rows(5, 4097, 64, 4, 12, 45, 0);
    std::vector<std::uint8_t> out;
    out.resize(deflater.compress(tiles.data(), tiles.size(), 4097, 4, true, out));
    CHECK(out.size() * 4 < tiles.size());
    CHECK(inflate_raw(out, tiles.size()) == tiles);

    // 200 000 random bytes: all literals, a block per kBlockSymbols of them, each stored (5 bytes
    // of header: 3 bits, padding, LEN and NLEN).
    std::vector<std::uint8_t> random(200000);
    for (std::size_t i = 0; i < random.size(); ++i)
        random[i] = static_cast<std::uint8_t>(hash_values(77, i));
    out.clear();
    out.resize(deflater.compress(random.data(), random.size(), 1001, 1, true, out));
    CHECK(out.size() <= random.size() + 5 * (random.size() / io::StripDeflater::kBlockSymbols + 1));
    CHECK(inflate_raw(out, random.size()) == random);

    // One byte repeated: matches far longer than 258 bytes, sent in pieces.
    const std::vector<std::uint8_t> run(100000, 7);
    out.clear();
    out.resize(deflater.compress(run.data(), run.size(), 100000, 1, true, out));
    CHECK(out.size() < 1000);
    CHECK(inflate_raw(out, run.size()) == run);

    // Nothing, and fewer bytes than one probe reads.
    for (std::size_t n : {0, 1, 7, 8, 9}) {
        CAPTURE(n);
        const std::vector<std::uint8_t> small(n, 3);
        out.clear();
        out.resize(deflater.compress(small.data(), small.size(), 4, 2, true, out));
        CHECK(inflate_raw(out, n) == small);
    }
}

TEST_CASE("strip deflate: pieces without `last` join into one stream (pigz style)") {
    io::StripDeflater deflater;
    std::vector<std::uint8_t> whole, joined, buffer; // buffer: reused, never cleared
    for (std::uint64_t part = 0; part < 5; ++part) {
        // Part 3 is random (stored), part 4 empty.
        const std::vector<std::uint8_t> in = part == 4 ? std::vector<std::uint8_t>{}
                                             : part == 3
                                                 ? tile_rows(part, 301, 50, 1, 100000, 256, 1000)
                                                 : tile_rows(part, 301, 50, 6, 9, 30, 5);
        whole.insert(whole.end(), in.begin(), in.end());
        const std::size_t n = deflater.compress(in.data(), in.size(), 301, 6, part == 4, buffer);
        REQUIRE(n <= buffer.size());
        const std::vector<std::uint8_t> out(buffer.begin(),
                                            buffer.begin() + static_cast<std::ptrdiff_t>(n));
        if (part < 4) {
            // A sync flush's end: an empty stored block, byte-aligned.
            REQUIRE(out.size() >= 4);
            CHECK(out[out.size() - 4] == 0x00);
            CHECK(out[out.size() - 3] == 0x00);
            CHECK(out[out.size() - 2] == 0xff);
            CHECK(out[out.size() - 1] == 0xff);
        }
        joined.insert(joined.end(), out.begin(), out.end());
    }
    CHECK(inflate_raw(joined, whole.size()) == whole);
}

TEST_CASE("strip deflate: adler32_update equals zlib's adler32") {
    std::vector<std::uint8_t> bytes(20000);
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<std::uint8_t>(i % 7 == 0 ? 255 : hash_values(9, i));
    for (std::size_t n : {0, 1, 31, 32, 33, 100, 4095, 4096, 4097, 5552, 5553, 20000}) {
        for (std::uint32_t start : {1u, 0xfff0fff0u, 0x12345678u % 65521u}) {
            CAPTURE(n);
            CAPTURE(start);
            const auto expected =
                static_cast<std::uint32_t>(adler32(start, bytes.data(), static_cast<uInt>(n)));
            CHECK(io::adler32_update(start, bytes.data(), n) == expected);
        }
    }
    // All 255s: the largest sums per lane.
    const std::vector<std::uint8_t> full(70000, 255);
    CHECK(io::adler32_update(1, full.data(), full.size()) ==
          static_cast<std::uint32_t>(adler32(1, full.data(), static_cast<uInt>(full.size()))));
}
