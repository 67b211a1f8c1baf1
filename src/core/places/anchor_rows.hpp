// Anchor rows: the covered anchors of up to 8 [[places]] rules in one pass, one byte per cell.
// Input: the class grid's cells, per-cell slopes (or none), up to 8 rules' `on` masks, slope
// limits and footprints, a band of anchor rows.
// Output: per anchor row y of the band, in order, bits[x] for x in 0..w-1 with bit k set iff rule
// k's footprint anchored (top-left) at (x, y) lies inside the map with every cell on rule k's
// classes and, with a limit, no cell's slope above it, and, with `face`, the fw cells of the row
// just below it inside the map and on the face classes. Occupancy is not looked at.
// Invariants: per rule, the anchors of for_each_covered_anchor with covered = on && !steep whose
// row below passes `face`.
// Cost: per map row, a table look-up per cell, a compare per cell and limited rule, then
// (max fw - 1) byte ANDs per cell; per anchor row (max fh - 1) byte ANDs per cell over a ring of
// the last max-fh rows (one more with `face`: a second ring of the face classes' blocks). A band
// reads max fh - 1 rows past its end (max fh with face), so bands run apart.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/classes/terrain_classes.hpp"

namespace tilegen {

// The largest float not above `limit`: for every float s, (double)s > limit iff s > the result,
// so a per-cell float compare decides the same as the double one (NaN: false both ways).
float float_at_or_below(double limit);

// For i in 0..n-1, with bit k of bits[i] set: low[i] = 1 when hash_position(stream, x0 + i, y)
// <= limit, else 0 (low[i] = 0 without the bit). Returns whether some i with the bit scored above
// the limit. On x86-64 Linux with GCC, a clone for x86-64-v4 (64-bit lane multiplies) is picked
// when the program loads; the same flags either way.
bool low_scores(std::uint64_t stream, int x0, int y, int n, const std::uint8_t* bits, int k,
                std::uint64_t limit, std::uint8_t* low);

struct AnchorRule {
    std::uint32_t on = 0;   // classes every footprint cell stands on
    bool limited = false;   // with a slope limit (and slopes given)
    float steeper = 0;      // limited: a cell with slope > steeper is not covered
    int fw = 1, fh = 1;     // footprint, 1..16
    std::uint32_t face = 0; // classes of the row below the footprint (0: no test)
};

class AnchorRows {
  public:
    static constexpr int kMaxRules = 8;
    static constexpr int kMaxSide = 16;

    // rules.size() <= kMaxRules; w: the map's width.
    AnchorRows(std::span<const AnchorRule> rules, int w);

    // f(y, bits) for y = y_begin .. y_end - 1 (0 <= y_begin <= y_end <= h); bits: w bytes, valid
    // during the call. `classes`, `slopes` (null: no limits apply): the w x h map's cells.
    template <class F>
    void scan(const ClassId* classes, const float* slopes, int h, int y_begin, int y_end, F&& f) {
        int next = y_begin; // the next map row to cover into the ring
        for (int y = y_begin; y < y_end; ++y) {
            const int need = std::min(h, y + rows_);
            for (; next < need; ++next)
                covered_row(classes, slopes, next, ring_row(next), face_row(next));
            anchor_row(y, h);
            f(y, static_cast<const std::uint8_t*>(anchors_.data()));
        }
    }

  private:
    std::uint8_t* ring_row(int y) {
        return ring_.data() + static_cast<std::size_t>(y % rows_) * w_;
    }
    std::uint8_t* face_row(int y) {
        return face_ring_.data() + static_cast<std::size_t>(y % rows_) * w_;
    }
    // out[x]: bit k iff rule k's fw cells x .. x + fw - 1 of row y are all covered; face_out[x]
    // (with a face rule): bit k iff they are all on rule k's face classes.
    void covered_row(const ClassId* classes, const float* slopes, int y, std::uint8_t* out,
                     std::uint8_t* face_out);
    // out_bits[x]: bit k iff cell_bits[x + i] has it for i in 0 .. fw_k - 1 (cell_bits: w bytes
    // and max_fw zeros after them).
    void blocks_of_fw(const std::uint8_t* cell_bits, std::uint8_t* out_bits) const;
    // anchors_[x]: bit k iff rows y .. y + fh - 1 of the ring have bit k at x (and with face,
    // row y + fh of the face ring).
    void anchor_row(int y, int h);

    int w_;
    int max_fw_ = 1, max_fh_ = 1;
    int rows_ = 1;              // ring rows: max_fh, plus one with a face rule
    std::uint8_t on_[256] = {}; // per class: the rules standing on it
    std::vector<std::pair<std::uint8_t, float>> lim_; // (rules, steeper) per distinct limit
    std::uint8_t keep_w_[kMaxSide] = {};      // [i]: rules with fw <= i (need no cell x + i)
    std::uint8_t keep_h_[kMaxSide] = {};      // [j]: rules with fh <= j (need no row y + j)
    std::uint8_t face_[256] = {};             // per class: the face rules it is a face for
    std::uint8_t face_at_[kMaxSide + 1] = {}; // [j]: face rules with fh == j
    std::vector<std::uint8_t> cells_;         // one row's covered bits, max_fw zeros after it
    std::vector<std::uint8_t> ring_;          // rows_ rows of covered_row
    std::vector<std::uint8_t> face_ring_;     // rows_ rows of its face blocks (with a face rule)
    std::vector<std::uint8_t> anchors_;       // the current anchor row
};

} // namespace tilegen
