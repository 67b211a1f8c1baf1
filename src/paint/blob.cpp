#include "paint/blob.hpp"

#include <algorithm>
#include <bit>

namespace tilegen::paint {

BlobMask reduce_blob(BlobMask mask) {
    BlobMask out = mask;
    for (int d = 1; d < 8; d += 2)
        if (!diagonal_counts(mask, d)) out = static_cast<BlobMask>(out & ~bit(d));
    return out;
}

const std::vector<BlobMask>& blob_cases() {
    static const std::vector<BlobMask> cases = [] {
        std::vector<BlobMask> v;
        for (int m = 0; m < 256; ++m)
            if (reduce_blob(static_cast<BlobMask>(m)) == m) v.push_back(static_cast<BlobMask>(m));
        constexpr BlobMask kEdges = 0x55;
        std::stable_sort(v.begin(), v.end(), [](BlobMask a, BlobMask b) {
            int ea = std::popcount(static_cast<unsigned>(a & kEdges));
            int eb = std::popcount(static_cast<unsigned>(b & kEdges));
            if (ea != eb) return ea < eb;
            int da = std::popcount(static_cast<unsigned>(a & ~kEdges & 0xFF));
            int db = std::popcount(static_cast<unsigned>(b & ~kEdges & 0xFF));
            if (da != db) return da < db;
            return a < b;
        });
        return v;
    }();
    return cases;
}

std::string blob_suffix(BlobMask reduced) {
    std::string out;
    for (int k = 0; k < 8; ++k) {
        if ((reduced & bit(k)) == 0) continue;
        if (!out.empty()) out += '-';
        out += kNeighbourName[static_cast<std::size_t>(k)];
    }
    return out;
}

} // namespace tilegen::paint
