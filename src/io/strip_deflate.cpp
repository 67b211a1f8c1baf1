#include "io/strip_deflate.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tilegen::io {

namespace {

constexpr int kHashBits = 15;
constexpr std::size_t kWindow = 32768;
constexpr int kMaxMatch = 258;

constexpr std::array<int, 29> kLengthBase = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                             15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                             67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<int, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                              2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<int, 30> kDistBase = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<int, 30> kDistExtra = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                            6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
// The order code-length code lengths are sent in (RFC 1951 3.2.7).
constexpr std::array<int, 19> kCodeLengthOrder = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                  11, 4,  12, 3, 13, 2, 14, 1, 15};

struct Tables {
    std::array<std::uint8_t, kMaxMatch + 1> length_code{};
    std::array<std::uint8_t, 257> dist_code_small{}; // distances 1..256
    Tables() {
        int code = 0;
        for (int l = 3; l <= kMaxMatch; ++l) {
            while (code < 28 && l >= kLengthBase[static_cast<std::size_t>(code) + 1])
                ++code;
            length_code[static_cast<std::size_t>(l)] = static_cast<std::uint8_t>(code);
        }
        code = 0;
        for (int d = 1; d <= 256; ++d) {
            while (code < 29 && d >= kDistBase[static_cast<std::size_t>(code) + 1])
                ++code;
            dist_code_small[static_cast<std::size_t>(d)] = static_cast<std::uint8_t>(code);
        }
    }
};
const Tables kTables;

inline int dist_code(unsigned d) {
    if (d <= 256) return kTables.dist_code_small[d];
    const unsigned x = d - 1; // >= 256: two codes per power of two
    const int l = 31 - __builtin_clz(x);
    return 2 * l + static_cast<int>((x >> (l - 1)) & 1);
}

// The number of bytes a[i] == b[i] from i = 0 on, at most `limit`: 16 bytes a step (SSE2) or 8.
inline std::size_t equal_after(const std::uint8_t* a, const std::uint8_t* b, std::size_t limit) {
    std::size_t k = 0;
#if defined(__SSE2__)
    for (; k + 16 <= limit; k += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + k));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + k));
        const unsigned differ = ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
        if (differ & 0xffff) return k + static_cast<std::size_t>(__builtin_ctz(differ));
    }
#endif
    for (; k + 8 <= limit; k += 8) {
        std::uint64_t x, y;
        std::memcpy(&x, a + k, 8);
        std::memcpy(&y, b + k, 8);
        if (x != y) return k + static_cast<std::size_t>(__builtin_ctzll(x ^ y) >> 3);
    }
    while (k < limit && a[k] == b[k])
        ++k;
    return k;
}

// The number of bytes in[at - 1 - i] == in[at - 1 - i - dist] from i = 0 on, at most `limit`
// (at >= dist + limit): the 8 bytes before `at` in one comparison when they lie in the input.
inline std::size_t equal_before(const std::uint8_t* in, std::size_t at, std::size_t dist,
                                std::size_t limit) {
    std::size_t k = 0;
    while (at >= dist + k + 8) {
        std::uint64_t x, y;
        std::memcpy(&x, in + at - k - 8, 8);
        std::memcpy(&y, in + at - k - 8 - dist, 8);
        if (x != y)
            return std::min(limit, k + static_cast<std::size_t>(__builtin_clzll(x ^ y) >> 3));
        k += 8;
        if (k >= limit) return limit;
    }
    while (k < limit && in[at - 1 - k] == in[at - 1 - k - dist])
        ++k;
    return k;
}

// Huffman code lengths for freq[0, n), none above `limit`: a Huffman tree (two queues over the
// symbols sorted by frequency, ties by symbol); while it is too deep, the frequencies are halved
// (rounding up, so used symbols stay used) and the tree rebuilt. At least two symbols get codes
// (unused ones are given frequency 1 first), so every code is complete.
void code_lengths(const std::uint32_t* freq_in, int n, int limit, std::uint8_t* lengths) {
    std::array<std::uint32_t, 320> freq{};
    std::copy(freq_in, freq_in + n, freq.begin());
    int used = 0;
    for (int i = 0; i < n; ++i)
        used += freq[static_cast<std::size_t>(i)] != 0;
    for (int i = 0; used < 2 && i < n; ++i)
        if (!freq[static_cast<std::size_t>(i)]) {
            freq[static_cast<std::size_t>(i)] = 1;
            ++used;
        }
    std::array<std::uint64_t, 640> weight{};
    std::array<int, 640> parent{}, depth{};
    std::array<std::pair<std::uint32_t, int>, 320> leaves{};
    for (;;) {
        int m = 0;
        for (int i = 0; i < n; ++i)
            if (freq[static_cast<std::size_t>(i)])
                leaves[static_cast<std::size_t>(m++)] = {freq[static_cast<std::size_t>(i)], i};
        std::sort(leaves.begin(), leaves.begin() + m);
        for (int i = 0; i < m; ++i)
            weight[static_cast<std::size_t>(i)] = leaves[static_cast<std::size_t>(i)].first;
        int leaf = 0, inner = m, next = m;
        auto take = [&] {
            if (leaf < m && (inner >= next || weight[static_cast<std::size_t>(leaf)] <=
                                                  weight[static_cast<std::size_t>(inner)]))
                return leaf++;
            return inner++;
        };
        while (next < 2 * m - 1) {
            const int a = take(), b = take();
            weight[static_cast<std::size_t>(next)] =
                weight[static_cast<std::size_t>(a)] + weight[static_cast<std::size_t>(b)];
            parent[static_cast<std::size_t>(a)] = parent[static_cast<std::size_t>(b)] = next;
            ++next;
        }
        depth[static_cast<std::size_t>(2 * m - 2)] = 0;
        int deepest = 0;
        for (int k = 2 * m - 3; k >= 0; --k)
            depth[static_cast<std::size_t>(k)] =
                depth[static_cast<std::size_t>(parent[static_cast<std::size_t>(k)])] + 1;
        std::fill(lengths, lengths + n, 0);
        for (int i = 0; i < m; ++i) {
            const int d = depth[static_cast<std::size_t>(i)];
            lengths[leaves[static_cast<std::size_t>(i)].second] = static_cast<std::uint8_t>(d);
            deepest = std::max(deepest, d);
        }
        if (deepest <= limit) return;
        for (int i = 0; i < n; ++i)
            freq[static_cast<std::size_t>(i)] = (freq[static_cast<std::size_t>(i)] + 1) / 2;
    }
}

// Canonical codes for the lengths (RFC 1951 3.2.2), bit-reversed: deflate sends them MSB first
// into an LSB-first bit stream.
void canonical_codes(const std::uint8_t* lengths, int n, std::uint32_t* codes) {
    std::array<int, 16> count{};
    for (int i = 0; i < n; ++i)
        ++count[lengths[i]];
    count[0] = 0;
    std::array<std::uint32_t, 16> next{};
    std::uint32_t code = 0;
    for (int b = 1; b < 16; ++b) {
        code = (code + static_cast<std::uint32_t>(count[static_cast<std::size_t>(b) - 1])) << 1;
        next[static_cast<std::size_t>(b)] = code;
    }
    for (int i = 0; i < n; ++i) {
        codes[i] = 0;
        if (!lengths[i]) continue;
        std::uint32_t v = next[lengths[i]]++, r = 0;
        for (int k = 0; k < lengths[i]; ++k, v >>= 1)
            r = (r << 1) | (v & 1);
        codes[i] = r;
    }
}

// An LSB-first bit writer into a buffer with room for 8 bytes past every flush.
struct BitWriter {
    std::uint8_t* p;
    std::uint64_t bits;
    int count;
    void put(std::uint64_t v, int n) {
        bits |= v << count;
        count += n;
    }
    // Writes the whole bytes; at most 7 bits stay. Call while count <= 63.
    void flush() {
        std::memcpy(p, &bits, 8);
        const int bytes = count >> 3;
        p += bytes;
        bits = bytes == 8 ? 0 : bits >> (8 * bytes);
        count &= 7;
    }
    // Pads with zeros to a byte boundary and writes everything.
    void align() {
        flush();
        if (count > 0) put(0, 8 - count);
        flush();
    }
};

} // namespace

StripDeflater::StripDeflater() : table_(std::size_t{2} << kHashBits) {
    symbols_.resize(kBlockSymbols + 2 * kMaxMatch);
}

inline void StripDeflater::literal(std::uint8_t b) {
    symbols_[count_++] = {b, 0, kNoDist};
    ++litlen_freq_[b];
}

inline void StripDeflater::match(unsigned length, unsigned dist) {
    const int d = dist_code(dist);
    symbols_[count_++] = {static_cast<std::uint16_t>(256 + length),
                          static_cast<std::uint16_t>(
                              dist - static_cast<unsigned>(kDistBase[static_cast<std::size_t>(d)])),
                          static_cast<std::uint8_t>(d)};
    ++litlen_freq_[257 + kTables.length_code[length]];
    ++dist_freq_[d];
}

std::uint8_t* StripDeflater::room(std::vector<std::uint8_t>& out, std::size_t bytes) {
    if (out.size() < written_ + bytes) out.resize(std::max(written_ + bytes, out.size() * 2));
    return out.data() + written_;
}

std::size_t StripDeflater::compress(const std::uint8_t* in, std::size_t n, std::size_t stride,
                                    std::size_t unit, bool last, std::vector<std::uint8_t>& out) {
    written_ = 0;
    stride = std::max<std::size_t>(stride, 1);
    unit = std::max<std::size_t>(unit, 1);
    const bool pow2_unit = (unit & (unit - 1)) == 0; // the usual 1, 4, 8, 16, ...: no division
    count_ = 0;
    std::fill(std::begin(litlen_freq_), std::end(litlen_freq_), 0);
    std::fill(std::begin(dist_freq_), std::end(dist_freq_), 0);
    std::fill(table_.begin(), table_.end(), 0);
    bits_ = 0;
    bit_count_ = 0;
    auto load64 = [&](std::size_t p) {
        std::uint64_t v;
        std::memcpy(&v, in + p, 8);
        return v;
    };
    auto hash = [](std::uint64_t v) {
        return static_cast<std::uint32_t>((v * 0x9E3779B97F4A7C15ull) >> (64 - kHashBits));
    };
    std::size_t pos = 0;                // in[0, pos) is in symbols (or written)
    std::size_t block_start = 0;        // the symbols gathered cover in[block_start, pos)
    std::size_t row_start = 0;          // the row of the next probe
    std::size_t q = stride > 1 ? 1 : 0; // the next probe
    // The next probe at or after e: a piece start of e's row, or the next row's first.
    auto next_probe = [&](std::size_t e) {
        while (e >= row_start + stride)
            row_start += stride;
        std::size_t at = row_start + (stride > 1 ? 1 : 0);
        if (e > at) {
            const std::size_t ahead = e - at + unit - 1; // rounded down to whole pieces
            at += pow2_unit ? ahead & ~(unit - 1) : ahead / unit * unit;
        }
        if (at >= row_start + stride) {
            row_start += stride;
            at = row_start + (stride > 1 ? 1 : 0);
        }
        return at;
    };
    // The end of the match at distance at - (c1 - 1), when c1 names a probe whose 8 bytes equal v;
    // else 0.
    auto match_end = [&](std::size_t at, std::uint64_t v, std::uint32_t c1) -> std::size_t {
        if (c1 == 0 || at - (c1 - 1) > kWindow || load64(c1 - 1) != v) return 0;
        return at + 8 + equal_after(in + at + 8, in + (c1 - 1) + 8, n - at - 8);
    };
    while (n >= 8 && q <= n - 8) {
        const std::uint64_t v = load64(q);
        std::uint32_t* bucket = &table_[hash(v) * 2];
        const std::uint32_t c0 = bucket[0], c1 = bucket[1];
        bucket[1] = c0;
        bucket[0] = static_cast<std::uint32_t>(q + 1);
        const std::size_t e0 = match_end(q, v, c0), e1 = match_end(q, v, c1);
        if (e0 != 0 || e1 != 0) {
            // The longer match (the nearer on a tie).
            const std::size_t dist = q - ((e0 >= e1 ? c0 : c1) - 1), e = std::max(e0, e1);
            const std::size_t s = q - equal_before(in, q, dist, q - std::max(pos, dist));
            symbol_room((s - pos) + (e - s) / (kMaxMatch - 2) + 1);
            for (std::size_t i = pos; i < s; ++i)
                literal(in[i]);
            std::size_t length = e - s;
            while (length > 0) {
                // Pieces of at most 258, none below 3 (a 259 goes as 256 + 3).
                const std::size_t k = length <= kMaxMatch      ? length
                                      : length - kMaxMatch < 3 ? length - 3
                                                               : kMaxMatch;
                match(static_cast<unsigned>(k), static_cast<unsigned>(dist));
                length -= k;
            }
            pos = e;
            q = next_probe(e);
            if (count_ >= kBlockSymbols) {
                flush_block(in, block_start, pos, false, out);
                block_start = pos;
            }
            continue;
        }
        q += unit;
        if (q >= row_start + stride) q = next_probe(q);
        if (count_ + (q - pos) >= kBlockSymbols) {
            const std::size_t to = std::min(q, n);
            symbol_room(to - pos);
            for (std::size_t i = pos; i < to; ++i)
                literal(in[i]);
            pos = to;
            flush_block(in, block_start, pos, false, out);
            block_start = pos;
        }
    }
    symbol_room(n - pos);
    for (std::size_t i = pos; i < n; ++i)
        literal(in[i]);
    flush_block(in, block_start, n, last, out);
    // Pending bits, then (not last) the empty stored block of a sync flush.
    BitWriter w{room(out, 16), bits_, bit_count_};
    if (!last) {
        w.put(0, 3);
        w.align();
        w.put(0xffff0000u, 32);
        w.flush();
    } else {
        w.align();
    }
    written_ = static_cast<std::size_t>(w.p - out.data());
    bits_ = 0;
    bit_count_ = 0;
    return written_;
}

void StripDeflater::flush_block(const std::uint8_t* in, std::size_t block_start, std::size_t end,
                                bool final, std::vector<std::uint8_t>& out) {
    ++litlen_freq_[256]; // end of block
    std::array<std::uint8_t, 286 + 30> lengths{};
    code_lengths(litlen_freq_, 286, 15, lengths.data());
    code_lengths(dist_freq_, 30, 15, lengths.data() + 286);
    const std::uint8_t* dist_lengths = lengths.data() + 286;
    int hlit = 286, hdist = 30;
    while (hlit > 257 && !lengths[static_cast<std::size_t>(hlit) - 1])
        --hlit;
    while (hdist > 1 && !dist_lengths[hdist - 1])
        --hdist;
    // The code lengths, run-length coded (16: repeat the last 3..6 times, 17: 3..10 zeros, 18:
    // 11..138 zeros).
    std::array<std::uint8_t, 316> all{}, rle{}, rle_extra{};
    int na = 0, nr = 0;
    for (int i = 0; i < hlit; ++i)
        all[static_cast<std::size_t>(na++)] = lengths[static_cast<std::size_t>(i)];
    for (int i = 0; i < hdist; ++i)
        all[static_cast<std::size_t>(na++)] = dist_lengths[i];
    std::array<std::uint32_t, 19> cl_freq{};
    auto emit = [&](int symbol, int extra) {
        rle[static_cast<std::size_t>(nr)] = static_cast<std::uint8_t>(symbol);
        rle_extra[static_cast<std::size_t>(nr++)] = static_cast<std::uint8_t>(extra);
        ++cl_freq[static_cast<std::size_t>(symbol)];
    };
    for (int i = 0; i < na;) {
        const std::uint8_t len = all[static_cast<std::size_t>(i)];
        int j = i;
        while (j < na && all[static_cast<std::size_t>(j)] == len)
            ++j;
        int run = j - i;
        if (len == 0) {
            while (run >= 11) {
                const int k = std::min(run, 138);
                emit(18, k - 11);
                run -= k;
            }
            if (run >= 3) {
                emit(17, run - 3);
                run = 0;
            }
        } else {
            emit(len, 0);
            --run;
            while (run >= 3) {
                const int k = std::min(run, 6);
                emit(16, k - 3);
                run -= k;
            }
        }
        for (; run > 0; --run)
            emit(len, 0);
        i = j;
    }
    std::array<std::uint8_t, 19> cl_lengths{};
    std::array<std::uint32_t, 19> cl_codes{};
    code_lengths(cl_freq.data(), 19, 7, cl_lengths.data());
    canonical_codes(cl_lengths.data(), 19, cl_codes.data());
    int hclen = 19;
    while (hclen > 4 && !cl_lengths[static_cast<std::size_t>(
                            kCodeLengthOrder[static_cast<std::size_t>(hclen) - 1])])
        --hclen;

    // Sizes in bits: this Huffman block against stored blocks of the same bytes.
    std::uint64_t dynamic_bits = 3 + 5 + 5 + 4 + 3 * static_cast<std::uint64_t>(hclen);
    for (int i = 0; i < nr; ++i) {
        const int s = rle[static_cast<std::size_t>(i)];
        dynamic_bits +=
            cl_lengths[static_cast<std::size_t>(s)] + static_cast<std::uint64_t>(s == 16   ? 2
                                                                                 : s == 17 ? 3
                                                                                 : s == 18 ? 7
                                                                                           : 0);
    }
    for (int i = 0; i < 286; ++i)
        dynamic_bits += static_cast<std::uint64_t>(litlen_freq_[i]) *
                        (lengths[static_cast<std::size_t>(i)] +
                         (i >= 257 ? kLengthExtra[static_cast<std::size_t>(i) - 257] : 0));
    for (int i = 0; i < 30; ++i)
        dynamic_bits += static_cast<std::uint64_t>(dist_freq_[i]) *
                        (dist_lengths[i] + kDistExtra[static_cast<std::size_t>(i)]);
    const std::size_t raw = end - block_start;
    const std::size_t stored_blocks = std::max<std::size_t>(1, (raw + 65534) / 65535);
    const std::uint64_t stored_bits = stored_blocks * (3 + 7 + 32) + 8 * raw;

    BitWriter w{room(out, std::max(dynamic_bits, stored_bits) / 8 + 64), bits_, bit_count_};
    if (stored_bits < dynamic_bits) {
        for (std::size_t b = 0; b < stored_blocks; ++b) {
            const std::size_t from = block_start + b * 65535,
                              len = std::min<std::size_t>(65535, end - from);
            w.put(final && b + 1 == stored_blocks ? 1 : 0, 3);
            w.align();
            w.put(len | ((len ^ 0xffff) << 16), 32);
            w.flush();
            if (len > 0) { // (an empty piece may come with no buffer at all)
                std::memcpy(w.p, in + from, len);
                w.p += len;
            }
        }
    } else {
        std::array<std::uint32_t, 286> litlen_codes{};
        std::array<std::uint32_t, 30> dist_codes{};
        canonical_codes(lengths.data(), 286, litlen_codes.data());
        canonical_codes(dist_lengths, 30, dist_codes.data());
        w.put(final ? 1 : 0, 1);
        w.put(2, 2); // dynamic Huffman
        w.put(static_cast<std::uint64_t>(hlit - 257), 5);
        w.put(static_cast<std::uint64_t>(hdist - 1), 5);
        w.put(static_cast<std::uint64_t>(hclen - 4), 4);
        w.flush();
        for (int i = 0; i < hclen; ++i) {
            w.put(
                cl_lengths[static_cast<std::size_t>(kCodeLengthOrder[static_cast<std::size_t>(i)])],
                3);
            w.flush();
        }
        for (int i = 0; i < nr; ++i) {
            const int s = rle[static_cast<std::size_t>(i)];
            w.put(cl_codes[static_cast<std::size_t>(s)], cl_lengths[static_cast<std::size_t>(s)]);
            const int extra = s == 16 ? 2 : s == 17 ? 3 : s == 18 ? 7 : 0;
            if (extra) w.put(rle_extra[static_cast<std::size_t>(i)], extra);
            w.flush();
        }
        // Per Symbol::litlen (a literal, or 256 + a match length): its code and extra bits as
        // one field; per distance code: its code and how many bits go before the extra bits.
        std::array<std::uint32_t, 256 + kMaxMatch + 1> litlen_bits{};
        std::array<std::uint8_t, 256 + kMaxMatch + 1> litlen_count{};
        for (std::size_t b = 0; b < 256; ++b) {
            litlen_bits[b] = litlen_codes[b];
            litlen_count[b] = lengths[b];
        }
        for (int l = 3; l <= kMaxMatch; ++l) {
            const std::size_t c = kTables.length_code[static_cast<std::size_t>(l)];
            const int code_len = lengths[257 + c];
            litlen_bits[256 + static_cast<std::size_t>(l)] =
                litlen_codes[257 + c] |
                (static_cast<std::uint32_t>(l - kLengthBase[c]) << code_len);
            litlen_count[256 + static_cast<std::size_t>(l)] =
                static_cast<std::uint8_t>(code_len + kLengthExtra[c]);
        }
        std::array<std::uint32_t, kNoDist + 1> dist_bits{};
        std::array<std::uint8_t, kNoDist + 1> dist_shift{}, dist_count{}; // kNoDist: 0 bits
        for (std::size_t d = 0; d < kNoDist; ++d) {
            dist_bits[d] = dist_codes[d];
            dist_shift[d] = dist_lengths[d];
            dist_count[d] = static_cast<std::uint8_t>(dist_lengths[d] + kDistExtra[d]);
        }
        // At most 15 + 5 + 15 + 13 bits a symbol, after at most 7 pending: one flush each.
        for (std::size_t i = 0; i < count_; ++i) {
            const Symbol s = symbols_[i];
            w.put(litlen_bits[s.litlen], litlen_count[s.litlen]);
            w.put(dist_bits[s.dist_code] |
                      (static_cast<std::uint64_t>(s.dist_extra) << dist_shift[s.dist_code]),
                  dist_count[s.dist_code]);
            w.flush();
        }
        w.put(litlen_codes[256], lengths[256]);
        w.flush();
    }
    bits_ = w.bits;
    bit_count_ = w.count;
    written_ = static_cast<std::size_t>(w.p - out.data());
    count_ = 0;
    std::fill(std::begin(litlen_freq_), std::end(litlen_freq_), 0);
    std::fill(std::begin(dist_freq_), std::end(dist_freq_), 0);
}

std::uint32_t adler32_update(std::uint32_t adler, const std::uint8_t* p, std::size_t n) {
    constexpr std::uint32_t kMod = 65521;
    std::uint64_t s1 = adler & 0xffff, s2 = adler >> 16;
#if defined(__SSE2__)
    // 32 bytes a step: s2 gains 32 * s1 (as of the step's start) plus the bytes weighted 32..1;
    // s1 the bytes' sum. Chunks of 4096 bytes keep every 32-bit lane far from overflowing.
    const __m128i zero = _mm_setzero_si128();
    const __m128i w0 = _mm_setr_epi16(32, 31, 30, 29, 28, 27, 26, 25);
    const __m128i w1 = _mm_setr_epi16(24, 23, 22, 21, 20, 19, 18, 17);
    const __m128i w2 = _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9);
    const __m128i w3 = _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1);
    auto lanes = [](__m128i v) {
        alignas(16) std::uint32_t a[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(a), v);
        return static_cast<std::uint64_t>(a[0]) + a[1] + a[2] + a[3];
    };
    while (n >= 32) {
        const std::size_t chunk = std::min<std::size_t>(n, 4096) & ~std::size_t{31};
        __m128i sum = zero, prefix = zero, weighted = zero;
        for (std::size_t i = 0; i < chunk; i += 32) {
            const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
            const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16));
            prefix = _mm_add_epi32(prefix, sum);
            sum = _mm_add_epi32(sum, _mm_add_epi32(_mm_sad_epu8(a, zero), _mm_sad_epu8(b, zero)));
            weighted = _mm_add_epi32(
                weighted,
                _mm_add_epi32(_mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(a, zero), w0),
                                            _mm_madd_epi16(_mm_unpackhi_epi8(a, zero), w1)),
                              _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi8(b, zero), w2),
                                            _mm_madd_epi16(_mm_unpackhi_epi8(b, zero), w3))));
        }
        s2 = (s2 + chunk * s1 + 32 * lanes(prefix) + lanes(weighted)) % kMod;
        s1 = (s1 + lanes(sum)) % kMod;
        p += chunk;
        n -= chunk;
    }
#endif
    while (n > 0) {
        const std::size_t chunk = std::min<std::size_t>(n, 5552);
        for (std::size_t i = 0; i < chunk; ++i) {
            s1 += p[i];
            s2 += s1;
        }
        s1 %= kMod;
        s2 %= kMod;
        p += chunk;
        n -= chunk;
    }
    return static_cast<std::uint32_t>((s2 << 16) | s1);
}

} // namespace tilegen::io
