#include "core/quality/map_stats_of.hpp"

#include <array>

#include <cmath>
#include <limits>

namespace tilegen {

ShareTarget share_target_kind(const Recipe& recipe) {
    return recipe.classes.biomes ? ShareTarget::classification : ShareTarget::recipe;
}

const char* share_target_name(ShareTarget kind) {
    return kind == ShareTarget::recipe ? "recipe" : "classification";
}

std::vector<double> share_targets(const Recipe& recipe, const GenerateResult& result) {
    if (share_target_kind(recipe) == ShareTarget::recipe)
        return target_shares(recipe.terrain, true);
    // The fractions of the classification (before any class pass; see the header).
    return result.classified_fractions;
}

ClassGrid joined_overlays(const ClassGrid& classes, const std::vector<TerrainClass>& terrain) {
    // Each overlay class id -> the first overlay class of the same walkability.
    std::array<ClassId, 256> to{};
    for (std::size_t c = 0; c < to.size(); ++c)
        to[c] = static_cast<ClassId>(c);
    int first_walkable = -1, first_blocker = -1;
    for (std::size_t c = 0; c < terrain.size() && c < to.size(); ++c) {
        if (!terrain[c].overlay) continue;
        int& first = terrain[c].walkable ? first_walkable : first_blocker;
        if (first < 0) first = static_cast<int>(c);
        to[c] = static_cast<ClassId>(first);
    }
    ClassGrid joined = classes;
    for (ClassId& c : joined.cells())
        c = to[c];
    return joined;
}

MapStats map_stats_of(const Project& project, const GenerateResult& result, int threads) {
    const Recipe& recipe = project.recipe;
    std::vector<double> targets = share_targets(recipe, result);
    const std::uint32_t overlays = overlay_mask(recipe);
    MapStats stats = compute_map_stats(
        overlays ? joined_overlays(result.classes, recipe.terrain) : result.classes,
        walkable_flags(recipe.terrain), targets, result.unmatched, threads);
    if (overlays) { // the class fractions of the grid itself (the joined grid moved overlays)
        const auto fractions =
            class_fractions(result.classes, static_cast<int>(recipe.terrain.size()), threads);
        for (std::size_t c = 0; c < fractions.size() && c < stats.class_fractions.size(); ++c)
            stats.class_fractions[c] = fractions[c];
    }
    // Overlay terrains ([rivers]) have no share: share_error is measured over the other cells
    // (each class's fraction of the non-overlay cells against its target, the targets likewise
    // renormalised), and not reported for the overlays.
    if (!overlays) return stats;
    double overlay_now = 0, overlay_target = 0;
    for (std::size_t c = 0; c < recipe.terrain.size(); ++c)
        if ((overlays >> c) & 1u) {
            overlay_now += stats.class_fractions[c];
            if (c < targets.size() && !std::isnan(targets[c])) overlay_target += targets[c];
        }
    for (std::size_t c = 0; c < recipe.terrain.size() && c < stats.share_error.size(); ++c) {
        if ((overlays >> c) & 1u || c >= targets.size() || std::isnan(targets[c])) {
            stats.share_error[c] = std::numeric_limits<double>::quiet_NaN();
            continue;
        }
        const double now = overlay_now < 1 ? stats.class_fractions[c] / (1 - overlay_now) : 0;
        const double target = overlay_target < 1 ? targets[c] / (1 - overlay_target) : 0;
        stats.share_error[c] = (now - target) * 100.0;
    }
    return stats;
}

} // namespace tilegen
