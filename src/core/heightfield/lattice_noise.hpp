// Lattice noise computed row by row over a region: value noise and Perlin (gradient) noise with
// fractal sums. Input: settings (scale, octaves, lacunarity, gain, fractal, interpolation), seed,
// region, threads. Output: Grid<float> in [0, 1]. Invariants: a cell's value depends only on its
// absolute position (per-column and per-row lattice coordinates are computed from absolute
// coordinates, lattice values are position hashes), so a region equals the same window of a larger
// one, at any thread count. Arithmetic is float, in a fixed order (no contraction, no
// reassociation), so every compiler and vector width gives the same bits.
// Cost: per octave and row, the lattice is blended along y once per lattice cell the row crosses
// (Perlin: the top and bottom corners of column j blend to an affine function of the x fraction,
// L_j(fx) = G_j * fx + C_j); each cell is then a few multiply-adds on per-column tables (fraction,
// fade) computed once per octave, in loops that run a lattice cell at a time with its coefficients
// held constant (vectorised, SSE2). Lattice rows are hashed once per thread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/grid.hpp"
#include "core/heightfield/noise_settings.hpp"

namespace tilegen {

// kind must be NoiseKind::value or NoiseKind::perlin.
Grid<float> lattice_noise(const NoiseSettings& s, std::uint64_t seed, Region region, int threads);

// The same noise one row at a time over the columns x .. x + width - 1: row(y, out) writes the
// cells (x.., y) of lattice_noise's map (values in [0, 1], identical bits) into out[0 .. width -
// 1]. signed_row: the fractal sum itself, sum of weight * octave over sum of weights, in [-1, 1] up
// to rounding and not clamped (row() is 0.5 plus half of it, clamped to [0, 1]). Rows may come in
// any order; consecutive rows reuse their lattice rows. Holds per-row state: one object per thread.
class LatticeRows {
  public:
    LatticeRows(const NoiseSettings& s, std::uint64_t seed, int x, int width);
    void row(int y, float* out);
    void signed_row(int y, float* out);
    int width() const { return width_; }

  private:
    struct Octave {
        // Per column (padded to whole blocks of 4): position inside the lattice cell, [0, 1], and
        // its fade.
        std::vector<float> frac, fade;
        // Per lattice cell crossed by the columns (a "span"): its columns [begin, end) and lattice
        // column.
        std::vector<int> begin, end;
        std::vector<std::int64_t> lattice;
        int index = 0;            // octave number
        std::uint64_t stream = 0; // hash stream of the octave's lattice
        double weight = 0;        // amplitude / total amplitude
        // Lattice rows iy (top) and iy + 1 (bottom) at each span's left and right lattice columns,
        // four arrays of one entry per span, one after the other: left gradient x, y, right
        // gradient x, y (Perlin), or left and right values in arrays 0 and 2 (value noise).
        std::int64_t row = INT64_MIN;
        std::vector<float> top, bottom;
        std::vector<float> coef; // this row's per-span coefficients, four arrays likewise
    };
    void load_lattice_row(const Octave& o, std::int64_t iy, std::vector<float>& dst) const;
    void add_octaves(int y, float* out,
                     float scale); // out[x] += scale * weight * octave, every octave

    double scale_ = 64, lacunarity_ = 2;
    Fractal fractal_ = Fractal::fbm;
    LatticeInterpolation interpolation_ = LatticeInterpolation::quintic;
    bool perlin_ = false;
    int width_ = 0;
    std::vector<Octave> octaves_;
    std::vector<float> noise_; // one octave's row before the fractal transform
};

} // namespace tilegen
