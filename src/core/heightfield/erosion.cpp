#include "core/heightfield/erosion.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/hash.hpp"
#include "core/parallel.hpp"

namespace tilegen {

ErosionTotals thermal_erosion(Grid<float>& g, const ThermalSettings& s, int threads) {
    ErosionTotals totals;
    const int w = g.width(), h = g.height();
    if (w == 0 || h == 0) return totals;
    constexpr int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    // Drops steeper than the talus settle to 0.9 of it (a little below, so slopes come to rest
    // instead of creeping towards the talus for ever).
    const float talus = static_cast<float>(s.talus), rest = 0.9f * talus;
    // out[4 i + k]: material moving from cell i to its neighbour k in this iteration.
    std::vector<float> out(static_cast<std::size_t>(w) * h * 4);
    Grid<float> next = Grid<float>::uninitialised(w, h);
    std::vector<double> moved(static_cast<std::size_t>(h));
    for (int it = 0; it < s.iterations; ++it) {
        parallel_for(h, threads, [&](int y0, int y1) {
            for (int y = y0; y < y1; ++y) {
                double row_moved = 0;
                for (int x = 0; x < w; ++x) {
                    const float v = g(x, y);
                    float excess[4], sum = 0, most = 0;
                    for (int k = 0; k < 4; ++k) {
                        const int nx = x + dx[k], ny = y + dy[k];
                        excess[k] = 0;
                        if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                        const float drop = v - g(nx, ny);
                        if (drop <= talus) continue;
                        const float d = drop - rest;
                        excess[k] = d, sum += d, most = std::max(most, d);
                    }
                    float* o = &out[(static_cast<std::size_t>(y) * w + x) * 4];
                    // Half the steepest excess moves, split in proportion to the excesses.
                    const float total = 0.5f * most;
                    for (int k = 0; k < 4; ++k)
                        o[k] = sum > 0 ? total * excess[k] / sum : 0.0f;
                    row_moved += total;
                }
                moved[static_cast<std::size_t>(y)] = row_moved;
            }
        });
        parallel_for(h, threads, [&](int y0, int y1) {
            for (int y = y0; y < y1; ++y)
                for (int x = 0; x < w; ++x) {
                    const float* o = &out[(static_cast<std::size_t>(y) * w + x) * 4];
                    float v = g(x, y) - (o[0] + o[1] + o[2] + o[3]);
                    // Inflows: neighbour k sends towards this cell in its direction k ^ 1.
                    for (int k = 0; k < 4; ++k) {
                        const int nx = x + dx[k], ny = y + dy[k];
                        if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
                        v += out[(static_cast<std::size_t>(ny) * w + nx) * 4 + (k ^ 1)];
                    }
                    next(x, y) = v;
                }
        });
        std::swap(g, next);
        for (double m : moved)
            totals.eroded += m;
    }
    totals.deposited = totals.eroded;
    return totals;
}

ErosionTotals hydraulic_erosion(Grid<float>& g, const HydraulicSettings& s, std::uint64_t seed) {
    ErosionTotals totals;
    const int w = g.width(), h = g.height();
    if (w < 2 || h < 2) return totals;
    const long long count = std::llround(s.droplets * w * h);
    const double gravity = 4, min_capacity = 0.01;
    // The brush: offsets within the radius, weighted by (radius − distance).
    struct Offset {
        int dx, dy;
        double weight;
    };
    std::vector<Offset> brush;
    for (int y = -s.radius; y <= s.radius; ++y)
        for (int x = -s.radius; x <= s.radius; ++x) {
            const double d = std::hypot(x, y);
            if (d < s.radius) brush.push_back({x, y, s.radius - d});
        }
    // Height and gradient at (px, py) by bilinear interpolation (px in [0, w − 1), py likewise).
    auto sample = [&](double px, double py, double& gx, double& gy) {
        const int x = static_cast<int>(px), y = static_cast<int>(py);
        const double u = px - x, v = py - y;
        const double a = g(x, y), b = g(x + 1, y), c = g(x, y + 1), d = g(x + 1, y + 1);
        gx = (b - a) * (1 - v) + (d - c) * v;
        gy = (c - a) * (1 - u) + (d - b) * u;
        return a * (1 - u) * (1 - v) + b * u * (1 - v) + c * (1 - u) * v + d * u * v;
    };
    auto deposit = [&](double px, double py, double amount) {
        const int x = static_cast<int>(px), y = static_cast<int>(py);
        const double u = px - x, v = py - y;
        g(x, y) += static_cast<float>(amount * (1 - u) * (1 - v));
        g(x + 1, y) += static_cast<float>(amount * u * (1 - v));
        g(x, y + 1) += static_cast<float>(amount * (1 - u) * v);
        g(x + 1, y + 1) += static_cast<float>(amount * u * v);
        totals.deposited += amount;
    };
    const std::uint64_t stream = hash_values(seed, 0x6879647261ull /* "hydra" */);
    std::vector<std::pair<int, double>> cells; // brush cells in the map, weights normalised
    for (long long i = 0; i < count; ++i) {
        const auto ui = static_cast<std::uint64_t>(i);
        double px = unit_double(hash_values(stream, ui, 0)) * (w - 1);
        double py = unit_double(hash_values(stream, ui, 1)) * (h - 1);
        double dirx = 0, diry = 0, speed = 1, water = 1, sediment = 0;
        bool off = false;
        for (int life = 0; life < s.lifetime; ++life) {
            double gx, gy;
            const double here = sample(px, py, gx, gy);
            dirx = dirx * s.inertia - gx * (1 - s.inertia);
            diry = diry * s.inertia - gy * (1 - s.inertia);
            const double len = std::hypot(dirx, diry);
            if (len < 1e-12) break; // flat: the droplet stops here
            dirx /= len;
            diry /= len;
            const double ox = px, oy = py;
            px += dirx;
            py += diry;
            if (px < 0 || py < 0 || px >= w - 1 || py >= h - 1) {
                totals.carried_off += sediment;
                sediment = 0;
                off = true;
                break;
            }
            double nx, ny;
            const double dh = sample(px, py, nx, ny) - here;
            const double capacity = std::max(-dh * speed * water * s.capacity, min_capacity);
            if (sediment > capacity || dh > 0) {
                // Uphill: fill the pit behind (at most the climb); else drop part of the excess.
                const double amount =
                    dh > 0 ? std::min(dh, sediment) : (sediment - capacity) * s.deposition;
                sediment -= amount;
                deposit(ox, oy, amount);
            } else {
                const double want = std::min((capacity - sediment) * s.erosion, -dh);
                const int cx = static_cast<int>(ox), cy = static_cast<int>(oy);
                cells.clear();
                double wsum = 0;
                for (const Offset& o : brush) {
                    const int x = cx + o.dx, y = cy + o.dy;
                    if (x < 0 || y < 0 || x >= w || y >= h) continue;
                    cells.emplace_back(y * w + x, o.weight);
                    wsum += o.weight;
                }
                for (auto& [cell, weight] : cells) {
                    float& v = g.cells()[static_cast<std::size_t>(cell)];
                    const double take = std::min(static_cast<double>(v), want * weight / wsum);
                    const float before = v;
                    v = static_cast<float>(v - take);
                    const double taken = static_cast<double>(before) - v; // exactly what left
                    sediment += taken;
                    totals.eroded += taken;
                }
            }
            speed = std::sqrt(std::max(0.0, speed * speed - dh * gravity));
            water *= 1 - s.evaporation;
        }
        if (!off && sediment > 0) deposit(px, py, sediment); // what it still carries settles
    }
    return totals;
}

} // namespace tilegen
