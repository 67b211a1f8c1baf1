// Simplex and Worley noise computed row by row over a region, with their fractal sums.
// Input: settings (kind simplex or worley, scale, octaves, lacunarity, gain, fractal, Worley return
// and distance), seed, region, threads. Output: Grid<float> in [0, 1].
// Invariants: every cell has exactly the bits of fractal_noise (point_noise.hpp), the per-point
// reference, at its centre: the same double operations in the same order, only regrouped so that
// loops run over a row (no contraction, no reassociation; selects instead of branches). So a region
// equals the same window of a larger one, at any thread count, on every build.
// Cost, per octave and row: lattice points are hashed once per row they are used in, never once
// per cell (Worley: the three lattice rows around the row, once per lattice column and kept while
// the rows stay; simplex: the two new corners of each skewed square the row crosses). Cells are
// then straight-line arithmetic on the constants of their span (Worley: the nine candidates of a
// lattice column; simplex: a square's four gradients), N cells at a time: 2 (SSE2) or, where the
// processor has AVX2, 4 (kernels compiled for both, chosen at run time; the same IEEE operations
// per lane, so the same bits). No square root per candidate: Worley compares squared distances
// and roots the returned one(s) once per cell.
#pragma once

#include <cstdint>
#include <vector>

#include "core/grid.hpp"
#include "core/heightfield/noise_settings.hpp"

namespace tilegen {

// kind must be NoiseKind::simplex or NoiseKind::worley.
Grid<float> point_noise_grid(const NoiseSettings& s, std::uint64_t seed, Region region,
                             int threads);

// The kernels a PointNoiseRows runs (two lanes, or four where the processor has AVX2).
struct PointNoiseKernels;

// The same noise one row at a time over the columns x .. x + width - 1: row(y, out) writes the
// cells (x.., y) of point_noise_grid's map into out[0 .. width - 1]. Rows may come in any order
// (consecutive rows reuse Worley's lattice rows). Holds per-row state: one object per thread.
// wide: run the four-lane (AVX2) kernels where the processor has them (the default; the values
// are the same bits either way, and tests turn it off to check the two-lane kernels too).
class PointNoiseRows {
  public:
    PointNoiseRows(const NoiseSettings& s, std::uint64_t seed, int x, int width, bool wide = true);
    void row(int y, float* out);
    static bool wide_kernels_available(); // AVX2 kernels built in and avx2_enabled()

  private:
    struct Octave {
        std::uint64_t stream = 0; // hash stream of the octave's lattice
        double amplitude = 0;     // weight of the octave in the fractal sum
        std::vector<double> x;    // per column: its noise-space x (padded)
        double largest_x = 0;     // the largest |x|
        // Worley: the columns as spans of one lattice column each: columns [begin, end), and the
        // indices into `lattice` of the span's lattice columns left, centre and right.
        std::vector<int> begin, end;
        std::vector<std::size_t> left, centre, right;
        std::vector<std::int64_t> lattice; // distinct lattice columns the spans search, ascending
        // Worley: feature points of lattice rows row - 1, row, row + 1 (rows of `lattice` each).
        std::int64_t row = INT64_MIN;
        std::vector<double> px[3], py[3];
    };
    void add_simplex(const Octave& o, double y);
    void add_worley(Octave& o, double y);
    void load_feature_row(const Octave& o, std::int64_t ly, std::vector<double>& px,
                          std::vector<double>& py) const;

    NoiseSettings settings_;
    int width_ = 0;
    const PointNoiseKernels* kernels_ = nullptr;
    double total_ = 0; // sum of the octaves' amplitudes
    std::vector<Octave> octaves_;
    std::vector<double> sum_;               // the fractal sum of the row so far (padded)
    std::vector<double> value_;             // one octave's value per column (padded)
    std::vector<double> f2_;                // Worley: second distance per column (padded)
    std::vector<double> span_px_, span_dy_; // Worley: each span's nine candidates
    std::vector<double> scratch_;           // simplex: a chunk's per-column arrays
    std::vector<int> span_begin_;           // simplex: a chunk's spans (see SimplexScratch)
    std::vector<std::int64_t> changed_;     // simplex: a chunk's span starts, as lane masks
};

} // namespace tilegen
