#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/objects/placement_bits.hpp"

using namespace tilegen;

namespace {

struct Random {
    std::uint64_t s;
    std::uint64_t next() {
        s += 0x9e3779b97f4a7c15ull;
        std::uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
};

// The acceptance as object_placement.hpp states it, written out once more: attempt a passes when
// !(u_a >= p).
std::uint32_t reference(double threshold, double chance, std::uint64_t bits, double d) {
    double p = 0;
    if (threshold < 1) {
        double q = (d - threshold) / (1 - threshold);
        if (q < 0) q = 0;
        if (q > 1) q = 1;
        p = chance * q;
    }
    std::uint32_t out = 0;
    for (int a = 0; a < 2; ++a) {
        const double u =
            static_cast<double>(static_cast<std::uint32_t>(bits >> (32 * a))) / 4294967296.0;
        if (!(u >= p)) out |= 1u << a;
    }
    return out;
}

} // namespace

TEST_CASE("objects: acceptance at a density with no division gives the quotient's bits") {
    Random rnd{0x616363657074ull};
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> thresholds = {0, 0.3, 0.5, 0.999, 1 - 0x1p-30, 1, 1.5, -0.25};
    std::vector<double> chances = {0, 1, 0.95, 0.25, 1e-9, -0.5};
    for (int i = 0; i < 24; ++i) {
        thresholds.push_back(rnd.unit());
        chances.push_back(rnd.unit());
    }
    long long checked = 0;
    for (const double t : thresholds)
        for (const double c : chances) {
            CAPTURE(t);
            CAPTURE(c);
            const DensityAcceptance acceptance(t, c);
            // Densities as the maps hold them (floats), around the threshold, and odd values.
            std::vector<double> densities = {0, 1, -1, 2, inf, -inf, std::nan(""), t};
            const auto tf = static_cast<float>(t);
            densities.push_back(tf);
            densities.push_back(std::nextafter(tf, 2.0f));
            densities.push_back(std::nextafter(tf, -2.0f));
            for (int k = 0; k < 200; ++k)
                densities.push_back(static_cast<float>(rnd.unit() * 1.4 - 0.2));
            for (const double d : densities) {
                // Random uniforms, and uniforms right at the probability's edge (u * 2^32 next to
                // p * 2^32), where a rounding of the quotient would show.
                const double p = t < 1 ? c * std::clamp((d - t) / (1 - t), 0.0, 1.0) : 0;
                std::vector<std::uint64_t> all;
                for (int k = 0; k < 8; ++k)
                    all.push_back(rnd.next());
                if (std::isfinite(p) && p >= 0 && p <= 1) {
                    const double edge = std::floor(p * 4294967296.0);
                    for (double dv = -2; dv <= 2; ++dv) {
                        const double v = edge + dv;
                        if (v < 0 || v > 4294967295.0) continue;
                        const auto u = static_cast<std::uint64_t>(v);
                        all.push_back(u | (rnd.next() << 32));
                        all.push_back((u << 32) | (rnd.next() & 0xffffffffull));
                        all.push_back(u | (u << 32));
                    }
                }
                for (const std::uint64_t bits : all) {
                    CAPTURE(d);
                    CAPTURE(bits);
                    const std::uint32_t expected = reference(t, c, bits, d);
                    REQUIRE(acceptance.plain(bits, d) == expected);
                    REQUIRE(acceptance(bits, d) == expected);
                    ++checked;
                }
            }
        }
    CHECK(checked > 100000);
}
