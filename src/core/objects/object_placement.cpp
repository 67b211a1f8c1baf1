#include "core/objects/object_placement.hpp"

#include <algorithm>
#include <cmath>

#include "core/hash.hpp"

namespace tilegen {

std::vector<PlacedObject> place_objects(const ClassGrid& classes, const NamedMaps& maps,
                                        const std::vector<ObjectRule>& rules, const SpriteSheet& sheet,
                                        std::uint64_t seed) {
    std::vector<PlacedObject> placed;
    const int w = classes.width(), h = classes.height();
    if (w == 0 || h == 0) return placed;
    Grid<std::uint8_t> occupied(w, h, 0);

    for (std::size_t ri = 0; ri < rules.size(); ++ri) {
        const ObjectRule& rule = rules[ri];
        std::vector<int> sprite_index;
        for (const auto& name : rule.sprites)
            for (std::size_t s = 0; s < sheet.sprites.size(); ++s)
                if (sheet.sprites[s].name == name) sprite_index.push_back(static_cast<int>(s));
        if (sprite_index.empty()) continue;
        const Grid<float>* density = nullptr;
        for (const auto& [name, g] : maps)
            if (name == rule.density) density = &g;
        double total_weight = 0;
        for (double wt : rule.weights) total_weight += wt;

        // Cells closer than `spacing` to an accepted anchor of this rule: stamped as a disc when an object is
        // accepted, so the spacing test is one lookup.
        const int block = std::max(1, static_cast<int>(std::floor(rule.spacing / std::sqrt(2.0))));
        const int bw = (w + block - 1) / block, bh = (h + block - 1) / block;
        Grid<std::uint8_t> near(w, h, 0);
        const int reach = static_cast<int>(std::ceil(rule.spacing));
        const double spacing2 = rule.spacing * rule.spacing;
        const std::uint64_t stream = hash_values(seed, 0x6f626a656374ull /* "object" */, static_cast<std::uint64_t>(ri));

        for (int by = 0; by < bh; ++by)
            for (int bx = 0; bx < bw; ++bx)
                for (int attempt = 0; attempt < 2; ++attempt) {
                    const std::uint64_t hsh = hash_values(stream, static_cast<std::uint64_t>(bx),
                                                          static_cast<std::uint64_t>(by), static_cast<std::uint64_t>(attempt));
                    const int x = bx * block + static_cast<int>(hsh % static_cast<std::uint64_t>(block));
                    const int y = by * block + static_cast<int>((hsh >> 20) % static_cast<std::uint64_t>(block));
                    if (x >= w || y >= h) continue;
                    // Acceptance by density and chance.
                    double p = rule.chance;
                    if (density) {
                        const double d = (*density)(x, y);
                        p *= rule.threshold >= 1 ? 0 : std::clamp((d - rule.threshold) / (1 - rule.threshold), 0.0, 1.0);
                    }
                    if (unit_double(mix64(hsh ^ 0x5bd1e995ull)) >= p) continue;
                    // Which sprite.
                    int pick = 0;
                    if (sprite_index.size() > 1 && total_weight > 0) {
                        double u = unit_double(mix64(hsh + 17)) * total_weight, acc = 0;
                        for (std::size_t k = 0; k < rule.weights.size(); ++k) {
                            acc += rule.weights[k];
                            if (u < acc) {
                                pick = static_cast<int>(std::min(k, sprite_index.size() - 1));
                                break;
                            }
                        }
                    }
                    const SpriteInfo& s = sheet.sprites[static_cast<std::size_t>(sprite_index[static_cast<std::size_t>(pick)])];
                    // Footprint inside, on allowed classes, free.
                    bool ok = x + s.footprint_w <= w && y + s.footprint_h <= h;
                    for (int fy = 0; ok && fy < s.footprint_h; ++fy)
                        for (int fx = 0; ok && fx < s.footprint_w; ++fx)
                            ok = !occupied(x + fx, y + fy) && (rule.on & (1u << classes(x + fx, y + fy)));
                    // Spacing to this rule's other anchors.
                    ok = ok && !near(x, y);
                    if (!ok) continue;
                    for (int fy = 0; fy < s.footprint_h; ++fy)
                        for (int fx = 0; fx < s.footprint_w; ++fx) occupied(x + fx, y + fy) = 1;
                    for (int ny = std::max(0, y - reach); ny <= std::min(h - 1, y + reach); ++ny)
                        for (int nx = std::max(0, x - reach); nx <= std::min(w - 1, x + reach); ++nx) {
                            const double dx = nx - x, dy = ny - y;
                            if (dx * dx + dy * dy < spacing2) near(nx, ny) = 1;
                        }
                    placed.push_back({sprite_index[static_cast<std::size_t>(pick)], x, y, static_cast<int>(ri)});
                    break;
                }
    }
    std::stable_sort(placed.begin(), placed.end(), [&](const PlacedObject& a, const PlacedObject& b) {
        const int ab = a.y + sheet.sprites[static_cast<std::size_t>(a.sprite)].footprint_h;
        const int bb = b.y + sheet.sprites[static_cast<std::size_t>(b.sprite)].footprint_h;
        return ab != bb ? ab < bb : a.x < b.x;
    });
    return placed;
}

} // namespace tilegen
