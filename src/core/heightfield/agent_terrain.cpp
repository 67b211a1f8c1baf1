#include "core/heightfield/agent_terrain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/hash.hpp"

namespace tilegen {

namespace {

// Streams of the agent types: every decision is unit(hash(seed, stream, agent, step, k)).
constexpr std::uint64_t kCoast = 0x636f617374ull, kSmooth = 0x736d6f6f7468ull,
                        kBeach = 0x6265616368ull, kMountain = 0x6d6f756e74ull,
                        kHill = 0x68696c6cull;

constexpr int kDx[8] = {1, 1, 0, -1, -1, -1, 0, 1}; // 45° steps, counter-clockwise from east
constexpr int kDy[8] = {0, 1, 1, 1, 0, -1, -1, -1};

double unit(std::uint64_t seed, std::uint64_t stream, std::uint64_t agent, std::uint64_t step,
            std::uint64_t k) {
    return unit_double(hash_values(seed, stream, agent, step, k));
}

struct Map {
    int w, h;
    Grid<float>& g;
    bool inside(int x, int y) const { return x >= 0 && y >= 0 && x < w && y < h; }
};

// Chamfer distance (1, √2) from every cell to the nearest cell where target[i] is set; cells with
// no target anywhere get a large value.
std::vector<float> distance_to(const std::vector<unsigned char>& target, int w, int h) {
    const float big = 1e9f, diag = std::numbers::sqrt2_v<float>;
    std::vector<float> d(target.size());
    for (std::size_t i = 0; i < d.size(); ++i)
        d[i] = target[i] ? 0.0f : big;
    auto at = [&](int x, int y) -> float& { return d[static_cast<std::size_t>(y) * w + x]; };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float& v = at(x, y);
            if (x > 0) v = std::min(v, at(x - 1, y) + 1);
            if (y > 0) {
                v = std::min(v, at(x, y - 1) + 1);
                if (x > 0) v = std::min(v, at(x - 1, y - 1) + diag);
                if (x + 1 < w) v = std::min(v, at(x + 1, y - 1) + diag);
            }
        }
    for (int y = h - 1; y >= 0; --y)
        for (int x = w - 1; x >= 0; --x) {
            float& v = at(x, y);
            if (x + 1 < w) v = std::min(v, at(x + 1, y) + 1);
            if (y + 1 < h) {
                v = std::min(v, at(x, y + 1) + 1);
                if (x + 1 < w) v = std::min(v, at(x + 1, y + 1) + diag);
                if (x > 0) v = std::min(v, at(x - 1, y + 1) + diag);
            }
        }
    return d;
}

// ---- Coastline -------------------------------------------------------------------------------

struct Leaf {
    double x, y; // seed point
    long long tokens;
    std::uint64_t id;
};

void subdivide(const CoastlineAgents& c, std::uint64_t seed, double x, double y, long long tokens,
               std::uint64_t id, int w, int h, int depth, std::vector<Leaf>& leaves) {
    if (tokens <= c.limit || depth >= 40) {
        leaves.push_back({x, y, tokens, id});
        return;
    }
    const double r = c.spread * std::sqrt(static_cast<double>(tokens) / std::numbers::pi);
    for (std::uint64_t k = 0; k < 2; ++k) {
        const std::uint64_t child = hash_values(id, k);
        const double a = unit(seed, kCoast, child, 0, 0) * 2 * std::numbers::pi;
        const double d = r * std::sqrt(unit(seed, kCoast, child, 0, 1));
        const double cx = std::clamp(x + d * std::cos(a), 0.0, w - 1.0),
                     cy = std::clamp(y + d * std::sin(a), 0.0, h - 1.0);
        const long long half = tokens / 2 + (k == 0 ? tokens % 2 : 0);
        subdivide(c, seed, cx, cy, half, child, w, h, depth + 1, leaves);
    }
}

// Raises `budget` sea cells to land; returns the land mask.
std::vector<unsigned char> coastline(const CoastlineAgents& c, std::uint64_t seed, int w, int h) {
    std::vector<unsigned char> land(static_cast<std::size_t>(w) * h, 0);
    const long long total = std::llround(c.budget * w * h);
    if (total <= 0) return land;
    std::vector<Leaf> leaves;
    subdivide(c, seed, (w - 1) / 2.0, (h - 1) / 2.0, total, 1, w, h, 0, leaves);
    auto is_land = [&](int x, int y) { return land[static_cast<std::size_t>(y) * w + x] != 0; };
    const double margin = 0.1 * std::min(w, h);
    long long raised = 0;
    for (const Leaf& leaf : leaves) {
        // Attractor and repulsor: random points about one blob radius from the seed.
        const double r = std::sqrt(static_cast<double>(leaf.tokens) / std::numbers::pi) + 2;
        const double aa = unit(seed, kCoast, leaf.id, 1, 0) * 2 * std::numbers::pi,
                     ra = unit(seed, kCoast, leaf.id, 1, 1) * 2 * std::numbers::pi;
        const double ax = leaf.x + r * std::cos(aa), ay = leaf.y + r * std::sin(aa);
        const double rx = leaf.x + r * std::cos(ra), ry = leaf.y + r * std::sin(ra);
        auto score = [&](int x, int y) {
            const double da = (x - ax) * (x - ax) + (y - ay) * (y - ay);
            const double dr = (x - rx) * (x - rx) + (y - ry) * (y - ry);
            const double de = std::min({x, y, w - 1 - x, h - 1 - y});
            const double pen = std::max(0.0, margin - de) / margin;
            int around = 0; // land among the 8 neighbours: fills bays, keeps the coast compact
            for (int k = 0; k < 8; ++k) {
                const int nx = x + kDx[k], ny = y + kDy[k];
                around += nx >= 0 && ny >= 0 && nx < w && ny < h && is_land(nx, ny);
            }
            return (c.repulsor * dr - c.attractor * da) / (r * r) - c.edge * pen * pen +
                   c.compact * around;
        };
        double hx = leaf.x + 0.5, hy = leaf.y + 0.5; // home: the seed point's centre
        const double reach = r + 8; // rays longer than the agent's own blob cross others' land
        for (long long t = 0; t < leaf.tokens && raised < static_cast<long long>(w) * h; ++t) {
            // Candidates: the first sea cell along rays from home in hashed directions; the best
            // scoring is raised (four rays a token; rays leaving the map or running longer than
            // `reach` over land find nothing).
            const auto ut = static_cast<std::uint64_t>(t) + 2;
            int bx = -1, by = -1, found = 0;
            double best = -std::numeric_limits<double>::infinity();
            for (std::uint64_t k = 0; k < 16 && found < 4; ++k) {
                const double a = unit(seed, kCoast, leaf.id, ut, k) * 2 * std::numbers::pi;
                const double dx = std::cos(a), dy = std::sin(a);
                for (double d = 0; d <= reach; d += 1) {
                    const int x = static_cast<int>(std::floor(hx + dx * d)),
                              y = static_cast<int>(std::floor(hy + dy * d));
                    if (x < 0 || y < 0 || x >= w || y >= h) break;
                    if (!is_land(x, y)) {
                        ++found;
                        const double sc = score(x, y);
                        if (sc > best) best = sc, bx = x, by = y;
                        break;
                    }
                }
            }
            // Home deep in land: search along hashed directions for the coast and move home
            // there (the sea cell found is raised).
            for (std::uint64_t k = 0; k < 8 && bx < 0; ++k) {
                const double a = unit(seed, kCoast, leaf.id, ut, 100 + k) * 2 * std::numbers::pi;
                const double dx = std::cos(a), dy = std::sin(a);
                for (double d = 0;; d += 1) {
                    const int x = static_cast<int>(std::floor(hx + dx * d)),
                              y = static_cast<int>(std::floor(hy + dy * d));
                    if (x < 0 || y < 0 || x >= w || y >= h) break;
                    if (!is_land(x, y)) {
                        bx = x, by = y;
                        break;
                    }
                }
            }
            if (bx < 0) break; // land all round to the edges
            if (found == 0) hx = bx + 0.5, hy = by + 0.5;
            land[static_cast<std::size_t>(by) * w + bx] = 1;
            ++raised;
        }
    }
    return land;
}

// ---- Landform agents ------------------------------------------------------------------------

// Mountains and hills: a cone (flat crest `width` cells, falling `slope` per cell beyond it) raised
// under each step, never lowering a cell and never touching the sea.
void ridges(const RidgeAgents& r, bool foothills, std::uint64_t stream, std::uint64_t seed,
            double sea_level, const std::vector<float>& coast_distance, Map m) {
    const int reach =
        std::min(64, r.width + static_cast<int>(std::ceil((r.altitude - sea_level) / r.slope)));
    const float min_coast = static_cast<float>(std::max(r.width + 3, (reach * 2) / 3));
    auto ok = [&](int x, int y) {
        return m.inside(x, y) && coast_distance[static_cast<std::size_t>(y) * m.w + x] >= min_coast;
    };
    auto stamp = [&](int cx, int cy, double top, int width) {
        for (int y = std::max(0, cy - reach); y <= std::min(m.h - 1, cy + reach); ++y)
            for (int x = std::max(0, cx - reach); x <= std::min(m.w - 1, cx + reach); ++x) {
                float& v = m.g(x, y);
                if (v <= sea_level) continue;
                const double d = std::hypot(x - cx, y - cy);
                const double z = top - r.slope * std::max(0.0, d - width);
                if (z > v) v = static_cast<float>(z);
            }
    };
    for (int a = 0; a < r.agents; ++a) {
        const auto ua = static_cast<std::uint64_t>(a);
        int x = -1, y = -1;
        for (std::uint64_t k = 0; k < 64 && x < 0; ++k) {
            const int tx = static_cast<int>(unit(seed, stream, ua, k, 0) * m.w);
            const int ty = static_cast<int>(unit(seed, stream, ua, k, 1) * m.h);
            if (ok(tx, ty)) x = tx, y = ty;
        }
        if (x < 0) continue; // no room inland
        int dir = static_cast<int>(unit(seed, stream, ua, 64, 0) * 8);
        for (int s = 0; s < r.steps; ++s) {
            const auto us = static_cast<std::uint64_t>(s) + 100;
            // The ridge rises over its first `width` steps and falls over its last.
            const double ends = std::min(1.0, (std::min(s, r.steps - 1 - s) + 1.0) / (r.width + 1));
            const double top = sea_level + (r.altitude - sea_level) * (0.6 + 0.4 * ends) *
                                               (0.9 + 0.1 * unit(seed, stream, ua, us, 0));
            stamp(x, y, top, r.width);
            if (foothills && r.foothill_length > 0 && s > 0 && s % r.foothill_every == 0) {
                const int side = (dir + (unit(seed, stream, ua, us, 1) < 0.5 ? 2 : 6)) % 8;
                int fx = x, fy = y;
                for (int f = 1; f <= r.foothill_length; ++f) {
                    fx += kDx[side];
                    fy += kDy[side];
                    if (!ok(fx, fy)) break;
                    const double t = static_cast<double>(f) / (r.foothill_length + 1);
                    stamp(fx, fy, sea_level + (top - sea_level) * 0.75 * (1 - t),
                          std::max(0, r.width / 2));
                }
            }
            if (unit(seed, stream, ua, us, 2) < r.turn)
                dir = (dir + (unit(seed, stream, ua, us, 3) < 0.5 ? 1 : 7)) % 8;
            // Keep inland: turn (alternating sides, widening) until the next cell is.
            bool moved = false;
            for (int k = 0; k < 8 && !moved; ++k) {
                const int d = (dir + ((k % 2 == 0) ? k / 2 : 8 - (k + 1) / 2)) % 8;
                if (ok(x + kDx[d], y + kDy[d])) {
                    dir = d;
                    x += kDx[d];
                    y += kDy[d];
                    moved = true;
                }
            }
            if (!moved) break;
        }
    }
}

void smoothing(const SmoothingAgents& s, std::uint64_t seed, Map m) {
    auto at = [&](int x, int y) {
        return m.g(std::clamp(x, 0, m.w - 1), std::clamp(y, 0, m.h - 1));
    };
    for (int a = 0; a < s.agents; ++a) {
        const auto ua = static_cast<std::uint64_t>(a);
        const int sx = static_cast<int>(unit(seed, kSmooth, ua, 0, 0) * m.w);
        const int sy = static_cast<int>(unit(seed, kSmooth, ua, 0, 1) * m.h);
        for (int v = 0; v < s.revisits; ++v) {
            int x = sx, y = sy;
            for (int k = 0; k < s.steps; ++k) {
                const float near = at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1);
                const float far = at(x - 2, y) + at(x + 2, y) + at(x, y - 2) + at(x, y + 2);
                m.g(x, y) = (3 * m.g(x, y) + 2 * near + far) / 15.0f;
                const int d = static_cast<int>(
                    unit(seed, kSmooth, ua, static_cast<std::uint64_t>(v) << 32 | k, 2) * 8);
                x = std::clamp(x + kDx[d], 0, m.w - 1);
                y = std::clamp(y + kDy[d], 0, m.h - 1);
            }
        }
    }
}

void beaches(const BeachAgents& b, std::uint64_t seed, double sea_level, Map m) {
    if (b.agents <= 0) return;
    auto land = [&](int x, int y) { return m.inside(x, y) && m.g(x, y) > sea_level; };
    auto coast = [&](int x, int y) {
        return land(x, y) &&
               ((m.inside(x - 1, y) && !land(x - 1, y)) ||
                (m.inside(x + 1, y) && !land(x + 1, y)) ||
                (m.inside(x, y - 1) && !land(x, y - 1)) || (m.inside(x, y + 1) && !land(x, y + 1)));
    };
    std::vector<int> cells; // coast cells, row-major
    for (int y = 0; y < m.h; ++y)
        for (int x = 0; x < m.w; ++x)
            if (coast(x, y)) cells.push_back(y * m.w + x);
    if (cells.empty()) return;
    auto pick = [&](std::uint64_t a, std::uint64_t s) {
        return cells[static_cast<std::size_t>(unit(seed, kBeach, a, s, 0) *
                                              static_cast<double>(cells.size()))];
    };
    const int wd = b.width;
    for (int a = 0; a < b.agents; ++a) {
        const auto ua = static_cast<std::uint64_t>(a);
        int c = pick(ua, 0);
        int x = c % m.w, y = c / m.w;
        int hx = kDx[static_cast<int>(unit(seed, kBeach, ua, 0, 1) * 8)],
            hy = kDy[static_cast<int>(unit(seed, kBeach, ua, 0, 1) * 8)];
        int px = -1, py = -1; // the cell came from
        for (int s = 0; s < b.steps; ++s) {
            const auto us = static_cast<std::uint64_t>(s) + 1;
            for (int yy = std::max(0, y - wd); yy <= std::min(m.h - 1, y + wd); ++yy)
                for (int xx = std::max(0, x - wd); xx <= std::min(m.w - 1, x + wd); ++xx) {
                    if ((xx - x) * (xx - x) + (yy - y) * (yy - y) > wd * wd) continue;
                    float& v = m.g(xx, yy);
                    if (v <= sea_level || v >= b.altitude) continue;
                    const double u = unit_double(hash_position(hash_values(seed, kBeach), xx, yy));
                    v = static_cast<float>(b.low + (b.high - b.low) * u);
                }
            // Along the shore: the coast neighbour best in line with the heading.
            int best = -1, bscore = std::numeric_limits<int>::min();
            const int off = static_cast<int>(unit(seed, kBeach, ua, us, 1) * 8);
            for (int k = 0; k < 8; ++k) {
                const int d = (k + off) % 8;
                const int nx = x + kDx[d], ny = y + kDy[d];
                if ((nx == px && ny == py) || !coast(nx, ny)) continue;
                const int sc = kDx[d] * hx + kDy[d] * hy;
                if (sc > bscore) bscore = sc, best = d;
            }
            px = x, py = y;
            if (best < 0) { // lost the shore: start again elsewhere
                c = pick(ua, us);
                x = c % m.w, y = c / m.w;
                px = py = -1;
                continue;
            }
            hx = kDx[best], hy = kDy[best];
            x += hx;
            y += hy;
        }
    }
}

} // namespace

Grid<float> agent_terrain(const AgentSettings& s, std::uint64_t seed, int width, int height) {
    Grid<float> g(width, height, 0.0f);
    if (width <= 0 || height <= 0) return g;
    const std::vector<unsigned char> land = coastline(s.coastline, seed, width, height);
    std::vector<unsigned char> sea(land.size());
    for (std::size_t i = 0; i < land.size(); ++i)
        sea[i] = land[i] ? 0 : 1;
    const std::vector<float> to_land = distance_to(land, width, height);
    const std::vector<float> to_sea = distance_to(sea, width, height);
    const double sl = s.sea_level;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const auto i = static_cast<std::size_t>(y) * width + x;
            const double v = land[i]
                                 ? sl + 0.01 + std::min(0.2, s.coastline.rise * (to_sea[i] - 1))
                                 : sl - 0.01 - (sl - 0.05) * std::min(1.0, (to_land[i] - 1) / 24.0);
            // A small hashed texture (±0.001) so that percentile classes find no ties on the flat
            // sea floor and the even rise inland.
            const double jitter = unit_double(hash_position(hash_values(seed, kCoast), x, y)) - 0.5;
            g(x, y) = static_cast<float>(v + 0.002 * jitter);
        }
    Map m{width, height, g};
    ridges(s.mountain, true, kMountain, seed, sl, to_sea, m);
    ridges(s.hill, false, kHill, seed, sl, to_sea, m);
    smoothing(s.smoothing, seed, m);
    beaches(s.beach, seed, sl, m);
    for (float& v : g.cells())
        v = std::clamp(v, 0.0f, 1.0f);
    return g;
}

} // namespace tilegen
