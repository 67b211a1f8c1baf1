#include "core/places/anchor_rows.hpp"

#include <cmath>
#include <limits>

#include "core/hash.hpp"

namespace tilegen {

float float_at_or_below(double limit) {
    if (std::isnan(limit)) return std::numeric_limits<float>::quiet_NaN();
    constexpr float inf = std::numeric_limits<float>::infinity();
    if (limit == static_cast<double>(inf)) return inf;
    if (limit >= static_cast<double>(std::numeric_limits<float>::max()))
        return std::numeric_limits<float>::max(); // only +inf is above both
    if (limit < static_cast<double>(std::numeric_limits<float>::lowest()))
        return -std::numeric_limits<float>::infinity();
    float f = static_cast<float>(limit); // nearest: may be just above
    if (static_cast<double>(f) > limit) f = std::nextafter(f, -inf);
    return f;
}

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define TILEGEN_LOW_SCORES_CLONES __attribute__((target_clones("default", "arch=x86-64-v4")))
#else
#define TILEGEN_LOW_SCORES_CLONES
#endif

TILEGEN_LOW_SCORES_CLONES
bool low_scores(std::uint64_t stream, int x0, int y, int n, const std::uint8_t* __restrict bits,
                int k, std::uint64_t limit, std::uint8_t* __restrict low) {
    std::uint8_t high = 0;
    for (int i = 0; i < n; ++i) {
        const std::uint64_t score = hash_position(stream, x0 + i, y);
        const auto anchor = static_cast<std::uint8_t>(bits[i] >> k & 1u);
        low[i] = static_cast<std::uint8_t>(anchor & (score <= limit));
        high = static_cast<std::uint8_t>(high | (anchor & (score > limit)));
    }
    return high != 0;
}

AnchorRows::AnchorRows(std::span<const AnchorRule> rules, int w) : w_(w) {
    for (std::size_t k = 0; k < rules.size(); ++k) {
        const AnchorRule& r = rules[k];
        const auto bit = static_cast<std::uint8_t>(1u << k);
        for (int c = 0; c < kMaxClasses; ++c)
            if (r.on >> c & 1u) on_[c] |= bit;
        if (r.limited) { // rules with the same limit share one compare per cell
            auto same = std::find_if(lim_.begin(), lim_.end(),
                                     [&](const auto& l) { return l.second == r.steeper; });
            if (same == lim_.end()) same = lim_.insert(lim_.end(), {0, r.steeper});
            same->first = static_cast<std::uint8_t>(same->first | bit);
        }
        if (r.face) {
            for (int c = 0; c < kMaxClasses; ++c)
                if (r.face >> c & 1u) face_[c] |= bit;
            face_at_[r.fh] |= bit;
        }
        max_fw_ = std::max(max_fw_, r.fw);
        max_fh_ = std::max(max_fh_, r.fh);
        for (int i = 0; i < kMaxSide; ++i) {
            if (r.fw <= i) keep_w_[i] |= bit;
            if (r.fh <= i) keep_h_[i] |= bit;
        }
    }
    bool any_face = false;
    for (const std::uint8_t f : face_at_)
        any_face = any_face || f != 0;
    rows_ = max_fh_ + (any_face ? 1 : 0);
    cells_.assign(static_cast<std::size_t>(w) + max_fw_, 0);
    ring_.assign(static_cast<std::size_t>(w) * rows_, 0);
    if (any_face) face_ring_.assign(static_cast<std::size_t>(w) * rows_, 0);
    anchors_.assign(static_cast<std::size_t>(w), 0);
}

// The loops below read members into locals and write through restrict pointers, so the compiler
// keeps them in registers and vectorises the byte loops.
void AnchorRows::covered_row(const ClassId* classes, const float* slopes, int y,
                             std::uint8_t* out_row, std::uint8_t* face_out) {
    const int w = w_;
    const std::size_t at = static_cast<std::size_t>(y) * w;
    const ClassId* __restrict cls = classes + at;
    std::uint8_t* __restrict cell = cells_.data();
    std::uint8_t* __restrict out = out_row;
    const std::uint8_t* on = on_;
    for (int x = 0; x < w; ++x)
        cell[x] = on[cls[x]];
    if (slopes)
        for (const auto& [rules, steeper] : lim_) {
            const float* __restrict s = slopes + at;
            const float t = steeper;
            const std::uint8_t bit = rules; // a local: no reload per cell (cell may alias it)
            for (int x = 0; x < w; ++x)
                cell[x] = static_cast<std::uint8_t>(cell[x] & ~(s[x] > t ? bit : 0));
        }
    blocks_of_fw(cell, out);
    if (face_ring_.empty()) return;
    // The same blocks on the face classes (cells_ reused: the covered bits are out already).
    const std::uint8_t* face = face_;
    for (int x = 0; x < w; ++x)
        cell[x] = face[cls[x]];
    blocks_of_fw(cell, face_out);
}

void AnchorRows::blocks_of_fw(const std::uint8_t* cell_bits, std::uint8_t* out_bits) const {
    // A block of fw cells starting at x: cells x .. x + fw - 1 (the zeros past the row end
    // clear the blocks that would leave the map).
    const int w = w_;
    const std::uint8_t* __restrict cell = cell_bits;
    std::uint8_t* __restrict out = out_bits;
    std::copy_n(cell, w, out);
    for (int i = 1; i < max_fw_; ++i) {
        const std::uint8_t keep = keep_w_[i];
        const std::uint8_t* __restrict shifted = cell + i;
        for (int x = 0; x < w; ++x)
            out[x] = static_cast<std::uint8_t>(out[x] & (shifted[x] | keep));
    }
}

void AnchorRows::anchor_row(int y, int h) {
    const int w = w_;
    std::uint8_t* __restrict a = anchors_.data();
    std::copy_n(ring_row(y), w, a);
    for (int j = 1; j < max_fh_; ++j) {
        const std::uint8_t keep = keep_h_[j];
        if (y + j >= h) { // no row y + j: only rules with fh <= j keep their anchors
            for (int x = 0; x < w; ++x)
                a[x] = static_cast<std::uint8_t>(a[x] & keep);
            continue;
        }
        const std::uint8_t* __restrict below = ring_row(y + j);
        for (int x = 0; x < w; ++x)
            a[x] = static_cast<std::uint8_t>(a[x] & (below[x] | keep));
    }
    if (face_ring_.empty()) return;
    for (int j = 1; j <= max_fh_; ++j) { // face rules of height j: row y + j, the face row
        const auto need = static_cast<std::uint8_t>(face_at_[j]);
        if (!need) continue;
        if (y + j >= h) { // no row below: no anchor
            for (int x = 0; x < w; ++x)
                a[x] = static_cast<std::uint8_t>(a[x] & ~need);
            continue;
        }
        const std::uint8_t* __restrict face = face_row(y + j);
        const auto keep = static_cast<std::uint8_t>(~need);
        for (int x = 0; x < w; ++x)
            a[x] = static_cast<std::uint8_t>(a[x] & (face[x] | keep));
    }
}

} // namespace tilegen
