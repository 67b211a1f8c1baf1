#include "core/tileset/wang.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

namespace tilegen {

namespace {
std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    std::string p;
    while (std::getline(in, p, '-'))
        parts.push_back(p);
    return parts;
}

// A tile name of the painter's convention, UPPER[-LOWER[-...]]: its parts and the Wang colours
// (terrain index + 1) of its first two; nothing when the first part names no terrain.
struct NamedTile {
    std::vector<std::string> parts;
    int upper = 0, lower = 0; // lower 0: a plain tile or a variant of one
};

std::optional<NamedTile> named_tile(const std::string& tile_name,
                                    const std::vector<std::string>& terrain_names) {
    auto color = [&](const std::string& name) -> int {
        for (std::size_t i = 0; i < terrain_names.size(); ++i)
            if (terrain_names[i] == name) return static_cast<int>(i) + 1;
        return 0;
    };
    NamedTile tile{split(tile_name)};
    if (tile.parts.empty()) return std::nullopt;
    tile.upper = color(tile.parts[0]);
    if (!tile.upper) return std::nullopt;
    tile.lower = tile.parts.size() >= 2 ? color(tile.parts[1]) : 0;
    return tile;
}
} // namespace

std::vector<WangId> corner_wang_ids_from_names(const std::vector<std::string>& tile_names,
                                               const std::vector<std::string>& terrain_names) {
    std::vector<WangId> out(tile_names.size(), WangId{});
    for (std::size_t t = 0; t < tile_names.size(); ++t) {
        const std::optional<NamedTile> tile = named_tile(tile_names[t], terrain_names);
        if (!tile) continue;
        const auto& parts = tile->parts;
        const int upper = tile->upper, lower = tile->lower;
        if (!lower) {
            if (parts.size() <= 2)
                for (int k = 1; k < 8; k += 2)
                    out[t][static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(upper);
            continue;
        }
        if (parts.size() != 4 || parts[2] != "corner" || parts[3].size() != 4 ||
            parts[3].find_first_not_of("ul") != std::string::npos)
            continue;
        auto c = [&](int i) {
            return static_cast<std::uint8_t>(parts[3][static_cast<std::size_t>(i)] == 'u' ? upper
                                                                                          : lower);
        };
        // top-left, top-right, bottom-left, bottom-right -> wangid 7, 1, 5, 3
        out[t][7] = c(0);
        out[t][1] = c(1);
        out[t][5] = c(2);
        out[t][3] = c(3);
    }
    return out;
}

std::vector<WangId> wang_ids_from_names(const std::vector<std::string>& tile_names,
                                        const std::vector<std::string>& terrain_names) {
    std::vector<WangId> out(tile_names.size(), WangId{});
    for (std::size_t t = 0; t < tile_names.size(); ++t) {
        const std::optional<NamedTile> tile = named_tile(tile_names[t], terrain_names);
        if (!tile) continue;
        const auto& parts = tile->parts;
        const int upper = tile->upper, lower = tile->lower;
        if (!lower) { // a plain tile or a variant of one
            if (parts.size() <= 2) out[t].fill(static_cast<std::uint8_t>(upper));
            continue;
        }
        bool n = false, e = false, s = false, w = false, ne = false, se = false, sw = false,
             nw = false, valid = true;
        for (std::size_t i = 2; i < parts.size(); ++i) {
            const std::string& d = parts[i];
            // One branch per direction word: shared shape, not logic (deliberate).
            if (d == "n")
                n = true;
            else if (d == "e")
                e = true;
            else if (d == "s")
                s = true;
            else if (d == "w")
                w = true;
            else if (d == "ne")
                ne = true;
            else if (d == "se")
                se = true;
            else if (d == "sw")
                sw = true;
            else if (d == "nw")
                nw = true;
            else
                valid = false;
        }
        if (!valid) continue;
        auto c = [&](bool is_lower) { return static_cast<std::uint8_t>(is_lower ? lower : upper); };
        out[t] = {c(n), c(n || e || ne), c(e), c(e || s || se),
                  c(s), c(s || w || sw), c(w), c(w || n || nw)};
    }
    return out;
}

std::vector<WangId> wang_ids_from_rules(const LayerRules& layer, int class_count, int tile_count) {
    std::vector<WangId> out(static_cast<std::size_t>(std::max(tile_count, 0)), WangId{});
    std::vector<bool> done(out.size(), false);
    auto single = [&](ClassMask m) -> int {
        for (int c = 0; c < class_count; ++c)
            if (m == (ClassMask{1} << c)) return c;
        return -1;
    };
    for (std::size_t r = 0; r < layer.ordered.size(); ++r) {
        const Descriptor& p = layer.ordered[r].pattern;
        if (p.size() > 3) continue;
        const int centre = single(p.at(0, 0));
        if (centre < 0) continue;
        // Edges n, e, s, w; -1 = a set without the centre (no id).
        constexpr int kEdge[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};
        int edge[4];
        bool ok = true;
        for (int e = 0; e < 4; ++e) {
            if (p.size() == 1) {
                edge[e] = centre;
                continue;
            }
            const ClassMask m = p.at(kEdge[e][0], kEdge[e][1]);
            const int s = single(m);
            edge[e] = s >= 0 ? s : ((m >> centre) & 1u) ? centre : -1;
            ok = ok && edge[e] >= 0;
        }
        if (!ok) continue;
        // Corners ne, se, sw, nw: between edges (n, e), (e, s), (s, w), (w, n).
        constexpr int kCorner[4][2] = {{1, -1}, {1, 1}, {-1, 1}, {-1, -1}};
        int corner[4];
        for (int k = 0; k < 4; ++k) {
            const int a = edge[k], b = edge[(k + 1) % 4];
            if (a != centre)
                corner[k] = a;
            else if (b != centre)
                corner[k] = b;
            else {
                const int d = p.size() == 1 ? -1 : single(p.at(kCorner[k][0], kCorner[k][1]));
                corner[k] = d >= 0 ? d : centre;
            }
        }
        const ResolvedTargets& t = layer.resolved[r];
        for (Gid g : t.gids) {
            if (g == 0 || (g & kFlipMask)) continue;
            const auto i = static_cast<std::size_t>(atlas_index_of(g));
            if (i >= out.size() || done[i]) continue;
            done[i] = true;
            auto c = [](int cls) { return static_cast<std::uint8_t>(cls + 1); };
            out[i] = {c(edge[0]), c(corner[0]), c(edge[1]), c(corner[1]),
                      c(edge[2]), c(corner[2]), c(edge[3]), c(corner[3])};
        }
    }
    return out;
}

} // namespace tilegen
