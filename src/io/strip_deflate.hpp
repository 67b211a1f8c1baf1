// A fast deflate encoder (RFC 1951) for image rows built from repeated pieces (tile art: a row of
// the preview is a sequence of tile rows of cell_w pixels), and Adler-32 (RFC 1950).
// Input: rows of `stride` bytes (a PNG filter byte, then the pixels), the piece size `unit` in
// bytes. Output: deflate blocks appended to a byte vector; with last = false they end as zlib's
// Z_SYNC_FLUSH ends them (an empty stored block, so the output ends on a byte boundary and a
// further piece of the same stream may follow, as pigz joins them); with last = true the final
// block (BFINAL) ends it.
// How: greedy LZ77 that looks for matches only where a piece starts (every `unit` bytes from each
// row's first pixel): a hash of the 8 bytes there picks the two latest earlier probes with the
// same hash (32 KiB window), the longer match is taken (extended forward 16 bytes at a time, and
// backward over pending literals 8 at a time), and matches longer than 258 bytes are sent as
// several. Blocks of at most kBlockSymbols symbols each get their own Huffman codes (length-limited
// to 15 bits, code-length codes to 7), or are stored when that is smaller (random pixels); symbols
// are kept with their distance codes, so writing a block takes no branch per symbol. Invariants:
// the output depends only on the input, stride and unit (integer arithmetic only: the same bytes
// with every compiler, thread count and processor); inflate gives back the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tilegen::io {

class StripDeflater {
  public:
    StripDeflater();
    // Writes the deflate blocks of in[0, n) at out's start and returns their size in bytes (out
    // may be longer). stride >= 1 (bytes per row, the first a filter byte that is never probed),
    // unit >= 1 (bytes between probes); n may be 0.
    std::size_t compress(const std::uint8_t* in, std::size_t n, std::size_t stride,
                         std::size_t unit, bool last, std::vector<std::uint8_t>& out);

    static constexpr std::size_t kBlockSymbols = 1 << 15;

  private:
    // A symbol as the block writer sends it, with no branch: a literal or length code and its
    // extra bits, then a distance code (kNoDist: none) and its extra bits.
    struct Symbol {
        std::uint16_t litlen;     // a literal's byte (0..255), or 256 + a match's length (3..258)
        std::uint16_t dist_extra; // a match's distance minus its code's base (0 for a literal)
        std::uint8_t dist_code;   // a match's distance code (0..29), kNoDist for a literal
    };
    static constexpr std::uint8_t kNoDist = 30;
    // out's bytes from written_ on, at least `bytes` of them.
    std::uint8_t* room(std::vector<std::uint8_t>& out, std::size_t bytes);
    // Room in symbols_ for `more` symbols past the count_ gathered.
    void symbol_room(std::size_t more) {
        if (count_ + more > symbols_.size()) symbols_.resize(count_ + more + kBlockSymbols / 8);
    }
    void literal(std::uint8_t b);               // after symbol_room
    void match(unsigned length, unsigned dist); // after symbol_room
    // Writes the block of the symbols gathered, which cover in[block_start, end).
    void flush_block(const std::uint8_t* in, std::size_t block_start, std::size_t end, bool final,
                     std::vector<std::uint8_t>& out);

    std::vector<std::uint32_t> table_; // hash -> the 2 latest probes' positions + 1 (0: none)
    std::vector<Symbol> symbols_;      // the first count_ are the block's
    std::size_t count_ = 0;
    std::uint32_t litlen_freq_[286] = {}, dist_freq_[30] = {};
    std::uint64_t bits_ = 0; // bits not yet written, LSB first
    int bit_count_ = 0;
    std::size_t written_ = 0; // bytes of out written
};

// Adler-32 of p[0, n) continued from `adler` (1 for a fresh start): zlib's adler32.
std::uint32_t adler32_update(std::uint32_t adler, const std::uint8_t* p, std::size_t n);

} // namespace tilegen::io
