// Position-based noise functions: value, Perlin (gradient), simplex and Worley, with fractal sums.
// Input: a point in noise space (cells / scale), a seed. Output: a value; single octaves lie in
// about [-1, 1] (Worley: a distance >= 0), fractal sums are normalised to [0, 1]. Invariants: pure
// functions of (seed, point) built on integer hashing: any region gives the same values.
// Maps of kind simplex and worley are computed row by row by point_noise_rows.hpp, which gives
// fractal_noise's bits exactly: these functions are its reference (and the level-2 warp's fields).
#pragma once

#include <cstdint>
#include <vector>

#include "core/hash.hpp"
#include "core/heightfield/noise_settings.hpp"

namespace tilegen {

// Lattice building blocks shared by the point functions and the row-by-row lattice noise (inline:
// the row noise hashes whole lattice rows with them).
inline double lattice_value(std::uint64_t stream, std::int64_t x, std::int64_t y) { // in [-1, 1)
    return unit_double(hash_position(stream, x, y)) * 2.0 - 1.0;
}
inline void lattice_gradient(std::uint64_t stream, std::int64_t x, std::int64_t y, double& gx,
                             double& gy) { // unit, 8 dirs
    static constexpr double d = 0.70710678118654752;
    static constexpr double table[8][2] = {{1, 0}, {-1, 0}, {0, 1},  {0, -1},
                                           {d, d}, {-d, d}, {d, -d}, {-d, -d}};
    const auto i = hash_position(stream, x, y) >> 61;
    gx = table[i][0];
    gy = table[i][1];
}
double lattice_fade(double t, LatticeInterpolation interp); // [0,1] -> [0,1]

double value_noise(std::uint64_t stream, double x, double y, LatticeInterpolation interp);
double perlin_noise(std::uint64_t stream, double x, double y);
double simplex_noise(std::uint64_t stream, double x, double y);
// Distance-based; f1 is 0 exactly at a feature point.
double worley_noise(std::uint64_t stream, double x, double y, WorleyReturn ret,
                    WorleyDistance dist);

// The fractal sum of `settings.kind` (value, perlin, simplex or worley) at cell coordinates (cx,
// cy), normalised to [0, 1].
double fractal_noise(const NoiseSettings& settings, std::uint64_t seed, double cx, double cy);
// The same with the octaves' streams computed once (octave_streams(seed, settings.octaves)): the
// hot path.
std::vector<std::uint64_t> octave_streams(std::uint64_t seed, int octaves);
double fractal_noise(const NoiseSettings& settings, const std::vector<std::uint64_t>& streams,
                     double cx, double cy);

// A 1D profile (side-view ground line), in [0, 1]: octaves of hashed points 2^k per `scale` cells,
// linear or cosine interpolated, weights halving (000 reference).
double profile_height(const NoiseSettings& settings, std::uint64_t seed, double x);

} // namespace tilegen
