#include "core/heightfield/whole_map_generators.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/hash.hpp"

namespace tilegen {

namespace {
double random01(std::uint64_t seed, std::uint64_t stream, std::uint64_t i, std::uint64_t j = 0) {
    return unit_double(hash_values(seed, stream, i, j));
}

// The i-th random point of a stream, uniform over a width x height map (cell units, not rounded).
struct Point {
    double x, y;
};
Point random_point(std::uint64_t seed, std::uint64_t stream, std::uint64_t i, int width,
                   int height) {
    return {random01(seed, stream, i, 0) * width, random01(seed, stream, i, 1) * height};
}
} // namespace

void normalise_min_max(Grid<float>& g) {
    if (g.empty()) return;
    auto [lo, hi] = std::minmax_element(g.cells().begin(), g.cells().end());
    const float a = *lo, b = *hi;
    for (float& v : g.cells())
        v = b > a ? (v - a) / (b - a) : 0.5f;
}

void box_blur(Grid<float>& g, int radius, int passes) {
    const int w = g.width(), h = g.height();
    if (w == 0 || h == 0 || radius < 1) return;
    std::vector<float> line;
    const float inv = 1.0f / static_cast<float>(2 * radius + 1);
    for (int p = 0; p < passes; ++p) {
        // Horizontal, then vertical; running sums with clamped edges.
        line.resize(static_cast<std::size_t>(w));
        for (int y = 0; y < h; ++y) {
            float* row = g.row(y);
            std::copy(row, row + w, line.begin());
            for (int x = 0; x < w; ++x) {
                float sum = 0;
                for (int k = -radius; k <= radius; ++k)
                    sum += line[static_cast<std::size_t>(std::clamp(x + k, 0, w - 1))];
                row[x] = sum * inv;
            }
        }
        line.resize(static_cast<std::size_t>(h));
        for (int x = 0; x < w; ++x) {
            for (int y = 0; y < h; ++y)
                line[static_cast<std::size_t>(y)] = g(x, y);
            for (int y = 0; y < h; ++y) {
                float sum = 0;
                for (int k = -radius; k <= radius; ++k)
                    sum += line[static_cast<std::size_t>(std::clamp(y + k, 0, h - 1))];
                g(x, y) = sum * inv;
            }
        }
    }
}

Grid<float> diamond_square(const NoiseSettings& s, std::uint64_t seed, int width, int height) {
    int n = 1;
    while (n + 1 < std::max(width, height))
        n *= 2;
    const int size = n + 1;
    Grid<float> g(size, size, 0.0f);
    const std::uint64_t stream = 0x6473ull; // "ds"
    auto rnd = [&](int x, int y) {
        return static_cast<float>(
            random01(seed, stream, static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y)) *
                2 -
            1);
    };
    g(0, 0) = rnd(0, 0);
    g(n, 0) = rnd(n, 0);
    g(0, n) = rnd(0, n);
    g(n, n) = rnd(n, n);
    float amplitude = 1.0f;
    for (int step = n; step > 1; step /= 2) {
        const int half = step / 2;
        // Diamond: centres of squares.
        for (int y = half; y < size; y += step)
            for (int x = half; x < size; x += step) {
                const float avg = (g(x - half, y - half) + g(x + half, y - half) +
                                   g(x - half, y + half) + g(x + half, y + half)) *
                                  0.25f;
                g(x, y) = avg + rnd(x, y) * amplitude;
            }
        // Square: edge midpoints, averaging the neighbours that exist.
        for (int y = 0; y < size; y += half)
            for (int x = (y / half) % 2 == 0 ? half : 0; x < size; x += step) {
                float sum = 0;
                int count = 0;
                if (x >= half) sum += g(x - half, y), ++count;
                if (x + half < size) sum += g(x + half, y), ++count;
                if (y >= half) sum += g(x, y - half), ++count;
                if (y + half < size) sum += g(x, y + half), ++count;
                g(x, y) = sum / static_cast<float>(count) + rnd(x, y) * amplitude;
            }
        amplitude *= static_cast<float>(s.roughness);
    }
    Grid<float> out(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            out(x, y) = g(x, y);
    normalise_min_max(out);
    return out;
}

// The point-based generators (fault, hills, particle) open alike (a zero grid, a hash stream, a
// loop over random points): shared shape, separate algorithms (deliberate).
Grid<float> fault_formation(const NoiseSettings& s, std::uint64_t seed, int width, int height) {
    Grid<float> g(width, height, 0.0f);
    const std::uint64_t stream = 0x6661756c74ull; // "fault"
    for (int f = 0; f < s.faults; ++f) {
        // A random line through a random point of the map; displacement decreases from 1 to 0.1.
        const auto [px, py] =
            random_point(seed, stream, static_cast<std::uint64_t>(f), width, height);
        const double angle =
            random01(seed, stream, static_cast<std::uint64_t>(f), 2) * 2 * std::numbers::pi;
        const double dx = std::cos(angle), dy = std::sin(angle);
        const float d = static_cast<float>(1.0 - 0.9 * f / std::max(1, s.faults - 1));
        for (int y = 0; y < height; ++y) {
            float* row = g.row(y);
            for (int x = 0; x < width; ++x) {
                const double side = (x + 0.5 - px) * dy - (y + 0.5 - py) * dx;
                row[x] += side > 0 ? d : -d;
            }
        }
    }
    box_blur(g, 1, s.smoothing);
    normalise_min_max(g);
    return g;
}

Grid<float> random_hills(const NoiseSettings& s, std::uint64_t seed, int width, int height) {
    Grid<float> g(width, height, 0.0f);
    const std::uint64_t stream = 0x68696c6c73ull; // "hills"
    for (int i = 0; i < s.hills; ++i) {
        const auto u = static_cast<std::uint64_t>(i);
        const auto [cx, cy] = random_point(seed, stream, u, width, height);
        const double r = s.hill_radius_min +
                         random01(seed, stream, u, 2) * (s.hill_radius_max - s.hill_radius_min);
        const int x0 = std::max(0, static_cast<int>(cx - r)),
                  x1 = std::min(width - 1, static_cast<int>(cx + r));
        const int y0 = std::max(0, static_cast<int>(cy - r)),
                  y1 = std::min(height - 1, static_cast<int>(cy + r));
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                const double ddx = x + 0.5 - cx, ddy = y + 0.5 - cy;
                const double z = r * r - (ddx * ddx + ddy * ddy);
                if (z > 0) g(x, y) += static_cast<float>(z);
            }
    }
    normalise_min_max(g);
    return g;
}

Grid<float> particle_deposition(const NoiseSettings& s, std::uint64_t seed, int width, int height) {
    Grid<float> g(width, height, 0.0f);
    const std::uint64_t stream = 0x7061727469ull; // "parti"
    static constexpr int dx[8] = {1, -1, 0, 0, 1, 1, -1, -1};
    static constexpr int dy[8] = {0, 0, 1, -1, 1, -1, 1, -1};
    for (int d = 0; d < s.drops; ++d) {
        const auto du = static_cast<std::uint64_t>(d);
        const Point drop = random_point(seed, stream, du, width, height);
        int x = static_cast<int>(drop.x);
        int y = static_cast<int>(drop.y);
        for (int p = 0; p < s.particles; ++p) {
            // The drop point wanders a little; each particle rolls downhill until it rests.
            int px = x, py = y;
            for (int roll = 0; roll < 64; ++roll) {
                const float here = g(px, py);
                const int start =
                    static_cast<int>(hash_values(seed, stream, du, static_cast<std::uint64_t>(p),
                                                 static_cast<std::uint64_t>(roll)) %
                                     8);
                bool moved = false;
                for (int k = 0; k < 8 && !moved; ++k) {
                    const int dir = (start + k) % 8;
                    const int nx = px + dx[dir], ny = py + dy[dir];
                    if (!g.contains(nx, ny) || g(nx, ny) + 1.0f > here)
                        continue; // stable unless 1 lower
                    px = nx;
                    py = ny;
                    moved = true;
                }
                if (!moved) break;
            }
            g(px, py) += 1.0f;
            if (p % 64 == 63) {
                const auto h = hash_values(seed, stream, du, static_cast<std::uint64_t>(p), 99);
                x = std::clamp(x + static_cast<int>(h % 3) - 1, 0, width - 1);
                y = std::clamp(y + static_cast<int>((h >> 8) % 3) - 1, 0, height - 1);
            }
        }
    }
    box_blur(g, 1, s.smoothing);
    normalise_min_max(g);
    return g;
}

} // namespace tilegen
