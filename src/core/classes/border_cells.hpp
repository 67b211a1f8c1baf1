// Border cells of a class grid, for stages that visit them many times (keep_class_shares).
// Input: a class grid (scan), then cells noted as the caller changes the grid (note).
// Output: visits. for_each(part, parts, f) calls f(x, y) for the cells of the scan in part's band
// of rows (rows h * part / parts .. h * (part + 1) / parts - 1, row-major) and for the noted
// entries in part's slice of the noted list (entries n * part / parts .. n * (part + 1) / parts -
// 1, in the order noted). Over parts 0..parts-1, every cell the scan found is visited once and
// every noted entry once: a cell noted k times (or noted and found) is visited as often, exactly as
// a list of the scan's cells followed by the noted ones would give it. The scan's cells: those
// whose class differs from one of their 4-neighbours (the map's edge is no neighbour), kept as a
// bitset of one bit per cell (an eighth of a byte per cell instead of a 4-byte index per border
// cell), made by one pass with rows split over the threads. Visits read x and y off the bitset's
// rows (no division per cell); a noted entry is a cell index. Invariant: a map has at most 2^32
// cells (cell indices are 32-bit).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/byte_bits.hpp"
#include "core/classes/terrain_classes.hpp"
#include "core/grid.hpp"
#include "core/parallel.hpp"

namespace tilegen {

class BorderCells {
  public:
    // Finds the border cells of `g` (rows split over `threads`); forgets earlier scans and notes.
    void scan(const ClassGrid& g, int threads) {
        w_ = g.width();
        h_ = g.height();
        words_ = (w_ + 63) / 64;
        // Uninitialised (GridCells): every word is written below, by the thread of its row.
        bits_ = GridCells<std::uint64_t>(static_cast<std::size_t>(words_) *
                                         static_cast<std::size_t>(h_));
        noted_.clear();
        const int h = h_, w = w_;
        parallel_for(h, threads, [&](int y0, int y1) {
            std::vector<std::uint8_t> border(static_cast<std::size_t>(words_) * 64, 0);
            for (int y = y0; y < y1; ++y) {
                mark_row(g.row(y), y > 0 ? g.row(y - 1) : nullptr,
                         y + 1 < h ? g.row(y + 1) : nullptr, w, border.data());
                pack_nonzero_bytes(border.data(), static_cast<std::size_t>(words_), row_bits(y));
            }
        });
        ready_ = true;
    }

    bool ready() const { return ready_; }

    // Cell (x, y) of the scanned grid may now differ from a neighbour: visit it (again).
    void note(int x, int y) {
        noted_.push_back(static_cast<std::uint32_t>(static_cast<std::uint64_t>(y) *
                                                        static_cast<std::uint64_t>(w_) +
                                                    static_cast<std::uint64_t>(x)));
    }

    template <class F> void for_each(int part, int parts, F&& f) const {
        visit<false>(
            part, parts, [](int, std::uint64_t*) {}, f);
    }

    // As for_each, but of the scan's cells of row y only those whose bit mask(y, words) sets:
    // mask writes the row's (w + 63) / 64 words (bit x % 64 of word x / 64 for cell x). The noted
    // entries are all visited. For callers that look for a few of the border cells: the mask
    // is computed a row at a time with vector instructions, instead of testing every cell.
    template <class Mask, class F>
    void for_each_masked(int part, int parts, Mask&& mask, F&& f) const {
        visit<true>(part, parts, mask, f);
    }

    // border[x] = 1 when cell x of `row` differs from one of its 4-neighbours (the rows above and
    // below may be null: the map's edge), else 0. Plain loops over bytes the compiler vectorises.
    static void mark_row(const ClassId* row, const ClassId* up, const ClassId* down, int w,
                         std::uint8_t* border) {
        for (int x = 0; x < w; ++x)
            border[x] = 0;
        for (int x = 1; x < w; ++x) {
            const std::uint8_t differs = row[x] != row[x - 1];
            border[x] |= differs;
            border[x - 1] |= differs;
        }
        if (up)
            for (int x = 0; x < w; ++x)
                border[x] |= static_cast<std::uint8_t>(row[x] != up[x]);
        if (down)
            for (int x = 0; x < w; ++x)
                border[x] |= static_cast<std::uint8_t>(row[x] != down[x]);
    }

  private:
    std::uint64_t* row_bits(int y) {
        return bits_.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(words_);
    }
    const std::uint64_t* row_bits(int y) const {
        return bits_.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(words_);
    }

    template <bool kMasked, class Mask, class F>
    void visit(int part, int parts, Mask&& mask, F&& f) const {
        const int y0 = static_cast<int>(static_cast<std::int64_t>(h_) * part / parts);
        const int y1 = static_cast<int>(static_cast<std::int64_t>(h_) * (part + 1) / parts);
        std::vector<std::uint64_t> m(kMasked ? static_cast<std::size_t>(words_) : 0);
        for (int y = y0; y < y1; ++y) {
            const std::uint64_t* row = row_bits(y);
            if constexpr (kMasked) mask(y, m.data());
            for (int i = 0; i < words_; ++i) {
                std::uint64_t b = row[i];
                if constexpr (kMasked) b &= m[static_cast<std::size_t>(i)];
                for (; b; b &= b - 1)
                    f(i * 64 + __builtin_ctzll(b), y);
            }
        }
        const auto n = static_cast<std::int64_t>(noted_.size());
        const auto w = static_cast<std::uint32_t>(w_);
        for (std::int64_t k = n * part / parts, end = n * (part + 1) / parts; k < end; ++k) {
            const std::uint32_t cell = noted_[static_cast<std::size_t>(k)];
            f(static_cast<int>(cell % w), static_cast<int>(cell / w));
        }
    }

    int w_ = 0, h_ = 0, words_ = 0;
    GridCells<std::uint64_t> bits_;  // h_ rows of words_ words: the scan's cells
    GridCells<std::uint32_t> noted_; // cell indices, in the order noted
    bool ready_ = false;
};

// Row masks for BorderCells::for_each_masked: mask(y, out) sets bit x of row y (bit x % 64 of
// out[x / 64], (w + 63) / 64 words; bits past the row 0) exactly when flags[class of (x, y)] has
// bit 1 and flags[class of one of its 4-neighbours inside the grid] has bit 2 (keep_class_shares:
// the cell's class gives cells and a neighbour's class grows). Rows asked in increasing order
// (a band) read one row of flags each: three rows of flags are kept.
class FlaggedNeighbourRows {
  public:
    FlaggedNeighbourRows(const ClassGrid& g, const std::array<std::uint8_t, 256>& flags)
        : g_(g), flags_(flags), w_(g.width()), words_((g.width() + 63) / 64),
          bytes_(static_cast<std::size_t>(words_) * 64, 0) {
        for (auto& r : rows_)
            r.assign(static_cast<std::size_t>(w_) + 2, 0); // one cell of 0 on either side
    }

    void mask(int y, std::uint64_t* out) {
        if (y == at_ + 1) {
            std::swap(rows_[0], rows_[1]);
            std::swap(rows_[1], rows_[2]);
            load(y + 1, rows_[2]);
        } else {
            for (int k = 0; k < 3; ++k)
                load(y - 1 + k, rows_[static_cast<std::size_t>(k)]);
        }
        at_ = y;
        const std::uint8_t* up = rows_[0].data() + 1;
        const std::uint8_t* c = rows_[1].data() + 1;
        const std::uint8_t* down = rows_[2].data() + 1;
        std::uint8_t* b = bytes_.data();
        for (int x = 0; x < w_; ++x)
            b[x] = static_cast<std::uint8_t>(c[x] & ((c[x - 1] | c[x + 1] | up[x] | down[x]) >> 1) &
                                             1);
        pack_nonzero_bytes(b, static_cast<std::size_t>(words_), out);
    }

  private:
    void load(int y, std::vector<std::uint8_t>& r) const {
        if (y < 0 || y >= g_.height()) {
            std::fill(r.begin(), r.end(), 0);
            return;
        }
        const ClassId* row = g_.row(y);
        for (int x = 0; x < w_; ++x)
            r[static_cast<std::size_t>(x) + 1] = flags_[row[x]];
    }

    const ClassGrid& g_;
    const std::array<std::uint8_t, 256>& flags_;
    int w_, words_;
    int at_ = -2;                                   // the row whose mask was made last
    std::array<std::vector<std::uint8_t>, 3> rows_; // flags of rows at_ - 1, at_, at_ + 1
    std::vector<std::uint8_t> bytes_;               // the mask as bytes, words_ * 64 of them
};

} // namespace tilegen
