#include "core/quality/map_stats_of.hpp"

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

MapStats map_stats_of(const Project& project, const GenerateResult& result, int threads) {
    return compute_map_stats(result.classes, walkable_flags(project.recipe.terrain),
                             share_targets(project.recipe, result), result.unmatched, threads);
}

} // namespace tilegen
