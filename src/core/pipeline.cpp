#include "core/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/heightfield/heightfield.hpp"
#include "core/parallel.hpp"
#include "core/rules/rule_matcher.hpp"
#include "core/tileset/wang.hpp"

namespace tilegen {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::string float_text(float v) {
    std::ostringstream s;
    s.precision(9);
    s << v;
    return s.str();
}

} // namespace

void annotate_atlas(Atlas& atlas, const std::vector<LayerRules>& layers, const Recipe& recipe) {
    // Wang ids from tile names (the painter's naming convention), when any tile follows it.
    std::vector<std::string> terrain_names;
    for (const auto& t : recipe.terrain)
        terrain_names.push_back(t.name);
    auto wang = wang_ids_from_names(atlas.names, terrain_names);
    bool any = false;
    for (const auto& id : wang)
        any = any || id[0] != 0;
    atlas.wang.clear();
    atlas.wang_colors.clear();
    atlas.wang_rgb.clear();
    if (any) {
        static constexpr std::uint32_t kDefaultColours[] = {0x3060c0, 0xd8c078, 0x40a040, 0x206028,
                                                            0x8a6a3a, 0x808080, 0x1c3a7a, 0xc04040};
        atlas.wang = std::move(wang);
        for (std::size_t i = 0; i < recipe.terrain.size(); ++i) {
            atlas.wang_colors.push_back(recipe.terrain[i].name);
            atlas.wang_rgb.push_back(recipe.terrain[i].color.value_or(kDefaultColours[i % 8]));
        }
    }
    atlas.terrain.assign(static_cast<std::size_t>(atlas.tile_count()), 0);
    atlas.probability.assign(static_cast<std::size_t>(atlas.tile_count()), 1.0);
    std::vector<bool> seen(static_cast<std::size_t>(atlas.tile_count()), false);
    for (const LayerRules& layer : layers)
        for (std::size_t r = 0; r < layer.ordered.size(); ++r) {
            const ClassMask centre = layer.ordered[r].pattern.at(0, 0);
            int cls = -1;
            for (std::size_t c = 0; c < recipe.terrain.size(); ++c)
                if (centre == (ClassMask{1} << c)) cls = static_cast<int>(c);
            const ResolvedTargets& t = layer.resolved[r];
            double max_weight = 0;
            for (double w : t.weights)
                max_weight = std::max(max_weight, w);
            for (std::size_t i = 0; i < t.gids.size(); ++i) {
                if (t.gids[i] == 0) continue;
                const auto index = static_cast<std::size_t>(atlas_index_of(t.gids[i]));
                if (index >= seen.size() || seen[index]) continue;
                seen[index] = true;
                if (cls >= 0 && layer.name == layers.front().name)
                    atlas.terrain[index] = recipe.terrain[static_cast<std::size_t>(cls)].symbol;
                if (t.gids.size() > 1 && max_weight > 0)
                    atlas.probability[index] = t.weights[i] / max_weight;
            }
        }
}

SymbolTable symbol_table(const Recipe& recipe) {
    SymbolTable t;
    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
        t[recipe.terrain[i].symbol] = static_cast<int>(i);
    return t;
}

std::vector<LayerRules> build_layers(const Project& project,
                                     const std::vector<int>& atlas_index_of_image,
                                     int error_index) {
    std::map<std::string, int> image_slot;
    for (std::size_t i = 0; i < project.images.size(); ++i)
        image_slot[project.images[i].first] = static_cast<int>(i);

    // Rules grouped by layer, in order of first appearance, each rule with its resolved targets.
    std::vector<LayerRules> layers;
    std::vector<std::vector<std::pair<Rule, ResolvedTargets>>> grouped;
    for (std::size_t r = 0; r < project.rules.size(); ++r) {
        const Rule& rule = project.rules[r];
        std::size_t li = 0;
        while (li < layers.size() && layers[li].name != rule.layer)
            ++li;
        if (li == layers.size()) {
            layers.push_back(LayerRules{rule.layer, {}, {}});
            grouped.emplace_back();
        }
        ResolvedTargets resolved;
        for (std::size_t t = 0; t < rule.targets.size(); ++t) {
            const Target& target = rule.targets[t];
            Gid gid = 0;
            switch (target.kind) {
            case Target::Kind::tile:
                gid = gid_of(project.tileset.index_of.at(target.name), target.flips);
                break;
            case Target::Kind::image: {
                const std::string& key = project.image_key_of[r][t];
                gid = gid_of(atlas_index_of_image[static_cast<std::size_t>(image_slot.at(key))],
                             target.flips);
                break;
            }
            case Target::Kind::error:
                gid = gid_of(error_index);
                break;
            case Target::Kind::none:
                gid = 0;
                break;
            }
            resolved.gids.push_back(gid);
            resolved.weights.push_back(target.weight);
        }
        grouped[li].emplace_back(rule, std::move(resolved));
    }
    for (std::size_t li = 0; li < layers.size(); ++li) {
        auto& group = grouped[li];
        std::stable_sort(group.begin(), group.end(), [](const auto& a, const auto& b) {
            return a.first.pattern.specificity() > b.first.pattern.specificity();
        });
        for (auto& [rule, resolved] : group) {
            layers[li].ordered.push_back(std::move(rule));
            layers[li].resolved.push_back(std::move(resolved));
        }
    }
    return layers;
}

Grid<float> compute_map(const Recipe& recipe, const std::string& name, std::uint64_t seed,
                        int map_width, int map_height, Region region, int threads) {
    const MapDefinition* def = find_map(recipe, name);
    if (!def) return Grid<float>(region.width, region.height, 0.0f);
    MapLookup lookup = [&](const std::string& other, Region r) {
        return compute_map(recipe, other, seed, map_width, map_height, r, threads);
    };
    return generate_heightfield(*def, seed, map_width, map_height, region, lookup, threads);
}

namespace {
const Grid<float>& grid_named(const std::vector<std::pair<std::string, Grid<float>>>& maps,
                              const std::string& name) {
    for (const auto& [n, g] : maps)
        if (n == name) return g;
    return maps.front().second;
}

std::vector<std::string> class_maps(const Recipe& recipe) {
    if (recipe.classes.biomes)
        return {recipe.classes.biomes->rows_map, recipe.classes.biomes->columns_map};
    return {recipe.classes.map};
}
} // namespace

ClassGrid classes_with_thresholds(const Recipe& recipe,
                                  const std::vector<std::pair<std::string, Grid<float>>>& maps,
                                  const std::vector<float>& thresholds, int threads,
                                  std::vector<std::uint64_t>* counts) {
    if (!recipe.classes.biomes)
        return classify(grid_named(maps, recipe.classes.map), thresholds, threads, counts);
    const BiomeTable& b = *recipe.classes.biomes;
    const std::size_t row_cuts = b.row_shares.size() - 1;
    const std::vector<float> row_t(thresholds.begin(),
                                   thresholds.begin() + static_cast<std::ptrdiff_t>(row_cuts));
    const std::vector<float> col_t(thresholds.begin() + static_cast<std::ptrdiff_t>(row_cuts),
                                   thresholds.end());
    // The table as class ids, row-major: one lookup per cell after the two band counts.
    std::vector<ClassId> class_of_symbol(256, 0);
    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
        class_of_symbol[static_cast<unsigned char>(recipe.terrain[i].symbol)] =
            static_cast<ClassId>(i);
    const std::size_t ncols = b.column_shares.size();
    std::vector<ClassId> table(b.table.size() * ncols, 0);
    for (std::size_t r = 0; r < b.table.size(); ++r)
        for (std::size_t c = 0; c < ncols && c < b.table[r].size(); ++c)
            table[r * ncols + c] = class_of_symbol[static_cast<unsigned char>(b.table[r][c])];
    return classify_table(grid_named(maps, b.rows_map), row_t, grid_named(maps, b.columns_map),
                          col_t, table, threads, counts);
}

ClassGrid classes_from_maps(const Recipe& recipe,
                            const std::vector<std::pair<std::string, Grid<float>>>& maps,
                            std::vector<float>& thresholds, int threads,
                            std::vector<std::uint64_t>* counts) {
    thresholds.clear();
    if (!recipe.classes.biomes) {
        std::vector<double> shares;
        for (const auto& c : recipe.terrain)
            shares.push_back(c.share);
        thresholds = thresholds_from_shares(grid_named(maps, recipe.classes.map), shares, threads);
    } else {
        const BiomeTable& b = *recipe.classes.biomes;
        thresholds = thresholds_from_shares(grid_named(maps, b.rows_map), b.row_shares, threads);
        const auto col =
            thresholds_from_shares(grid_named(maps, b.columns_map), b.column_shares, threads);
        thresholds.insert(thresholds.end(), col.begin(), col.end());
    }
    return classes_with_thresholds(recipe, maps, thresholds, threads, counts);
}

std::optional<WorldSetup> prepare_world(const Project& project, std::uint64_t seed, int scale_width,
                                        int scale_height, Region sample, std::string& error) {
    const Recipe& recipe = project.recipe;
    // Every map the classes need, and what they combine, must be position-based.
    std::vector<std::string> pending = class_maps(recipe), seen;
    while (!pending.empty()) {
        const std::string name = pending.back();
        pending.pop_back();
        if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
        seen.push_back(name);
        const MapDefinition* def = find_map(recipe, name);
        if (!def) continue;
        if (!is_position_based(def->settings.kind)) {
            error = "map '" + name + "' is kind \"" + noise_kind_name(def->settings.kind) +
                    "\", a whole-map algorithm; infinite maps need position-based kinds (harmonic, "
                    "value, perlin, "
                    "simplex, worley, profile)";
            return std::nullopt;
        }
        for (const auto& m : def->settings.modifiers)
            if (m.kind == ModifierKind::combine) pending.push_back(m.map);
    }
    WorldSetup w;
    w.seed = seed;
    w.scale_width = scale_width;
    w.scale_height = scale_height;
    w.sample = sample;
    std::vector<std::pair<std::string, Grid<float>>> maps;
    for (const std::string& name : class_maps(recipe))
        maps.emplace_back(name, compute_map(recipe, name, seed, scale_width, scale_height, sample));
    classes_from_maps(recipe, maps, w.thresholds);
    std::vector<int> image_index;
    int error_index = 0;
    w.atlas = build_atlas(project.tileset, project.images, image_index, error_index);
    w.layers = build_layers(project, image_index, error_index);
    annotate_atlas(w.atlas, w.layers, recipe);
    w.error_gid = gid_of(error_index);
    if (recipe.rules.outside != "clamp")
        if (auto it = project.symbols.find(recipe.rules.outside[0]); it != project.symbols.end())
            w.outside.fixed_class = static_cast<ClassId>(it->second);
    w.radius = 0;
    for (const auto& l : w.layers)
        for (const auto& r : l.ordered)
            w.radius = std::max(w.radius, r.pattern.radius());
    return w;
}

std::vector<Grid<Gid>> generate_chunk(const Project& project, const WorldSetup& world, Region chunk,
                                      std::uint64_t& unmatched) {
    const Recipe& recipe = project.recipe;
    const int r = world.radius;
    const Region padded{chunk.x - r, chunk.y - r, chunk.width + 2 * r, chunk.height + 2 * r};
    std::vector<std::pair<std::string, Grid<float>>> maps;
    for (const std::string& name : class_maps(recipe))
        maps.emplace_back(name, compute_map(recipe, name, world.seed, world.scale_width,
                                            world.scale_height, padded));
    const ClassGrid classes = classes_with_thresholds(recipe, maps, world.thresholds);
    AutotileResult tiles = autotile(classes, world.layers, static_cast<int>(recipe.terrain.size()),
                                    world.outside, world.seed, world.error_gid);
    std::vector<Grid<Gid>> out;
    for (std::size_t li = 0; li < tiles.layers.size(); ++li) {
        Grid<Gid> g(chunk.width, chunk.height);
        for (int y = 0; y < chunk.height; ++y)
            for (int x = 0; x < chunk.width; ++x) {
                g(x, y) = tiles.layers[li].tiles(x + r, y + r);
                // The cell's own decision: autotile() ran on the padded grid, so its choice hash
                // used padded coordinates; redo the pick at world coordinates so every chunking
                // gives the same tiles.
                const int d = tiles.decisions[li](x + r, y + r);
                if (d == kNoRule) {
                    ++unmatched;
                    continue;
                }
                const auto& targets = world.layers[li].resolved[static_cast<std::size_t>(d)];
                const int t = choose_target(
                    targets, world.layers[li].ordered[static_cast<std::size_t>(d)].identity,
                    world.seed, chunk.x + x, chunk.y + y);
                g(x, y) = t < 0 ? world.error_gid : targets.gids[static_cast<std::size_t>(t)];
            }
        out.push_back(std::move(g));
    }
    return out;
}

GenerateResult generate_map(const Project& project, const GenerateOptions& options) {
    const auto t_start = Clock::now();
    const Recipe& recipe = project.recipe;
    GenerateResult result;
    result.seed = options.seed.value_or(recipe.map.seed);
    const int class_count = static_cast<int>(recipe.terrain.size());

    // Heightfield -> ClassGrid (or the given class map).
    if (options.classes) {
        result.classes = *options.classes;
        result.class_fractions = class_fractions(result.classes, class_count, options.threads);
    } else {
        const int width = options.width.value_or(recipe.map.width);
        const int height = options.height.value_or(recipe.map.height);
        auto t0 = Clock::now();
        // Every map the classes use, with what they combine (compute_map resolves dependencies).
        std::vector<std::string> needed;
        if (recipe.classes.biomes) {
            needed = {recipe.classes.biomes->rows_map, recipe.classes.biomes->columns_map};
        } else {
            needed = {recipe.classes.map};
        }
        for (const ObjectRule& rule : recipe.objects)
            if (!rule.density.empty()) needed.push_back(rule.density);
        for (const MapDefinition& def : recipe.maps)
            if (std::find(needed.begin(), needed.end(), def.name) != needed.end())
                result.maps.emplace_back(def.name,
                                         compute_map(recipe, def.name, result.seed, width, height,
                                                     Region{0, 0, width, height}, options.threads));
        if (options.keep_details)
            for (const auto& [name, grid] : result.maps)
                if (name == needed.front()) result.heights = grid;
        result.timings.push_back({"noise", ms_since(t0)});
        t0 = Clock::now();
        // The cells of each class are counted as they are classified.
        std::vector<std::uint64_t> counts(static_cast<std::size_t>(class_count), 0);
        result.classes =
            classes_from_maps(recipe, result.maps, result.thresholds, options.threads, &counts);
        result.class_fractions = fractions_of_counts(counts, result.classes.size());
        result.timings.push_back({"classes", ms_since(t0)});
    }

    // Objects on top (density maps are computed here when the class map was given).
    if (project.sprites && !recipe.objects.empty()) {
        auto t0 = Clock::now();
        for (const ObjectRule& rule : recipe.objects) {
            if (rule.density.empty()) continue;
            bool have = false;
            for (const auto& [name, g] : result.maps)
                have = have || name == rule.density;
            if (!have)
                result.maps.emplace_back(
                    rule.density,
                    compute_map(recipe, rule.density, result.seed, result.classes.width(),
                                result.classes.height(),
                                Region{0, 0, result.classes.width(), result.classes.height()}));
        }
        result.objects = place_objects(result.classes, result.maps, recipe.objects,
                                       *project.sprites, result.seed, options.threads);
        result.timings.push_back({"objects", ms_since(t0)});
    }
    if (!options.keep_details)
        result.maps.clear(); // the maps have done their work: free them before the tiles

    // ClassGrid -> TileGrids.
    auto t0 = Clock::now();
    std::vector<int> image_index;
    int error_index = 0;
    Atlas atlas = build_atlas(project.tileset, project.images, image_index, error_index);
    result.layers = build_layers(project, image_index, error_index);
    OutsidePolicy outside;
    if (recipe.rules.outside != "clamp") {
        auto it = project.symbols.find(recipe.rules.outside[0]);
        if (it != project.symbols.end()) outside.fixed_class = static_cast<ClassId>(it->second);
    }
    AutotileResult tiles =
        autotile(result.classes, result.layers, class_count, outside, result.seed,
                 gid_of(error_index), options.threads, options.keep_details);
    result.timings.push_back({"rules", ms_since(t0)});

    // Rule statistics in file order.
    std::map<std::pair<std::string, int>, std::uint64_t> hits;
    for (std::size_t li = 0; li < result.layers.size(); ++li)
        for (std::size_t r = 0; r < result.layers[li].ordered.size(); ++r) {
            const Rule& rule = result.layers[li].ordered[r];
            hits[{rule.file, rule.line}] += tiles.hits[li][r];
        }
    for (const Rule& rule : project.rules)
        result.rule_hits.push_back(
            {rule.file, rule.line, rule.layer, hits[{rule.file, rule.line}]});
    result.unmatched = tiles.unmatched;
    result.layer_unmatched = std::move(tiles.layer_unmatched);
    result.first_unmatched = std::move(tiles.first_unmatched);
    result.decisions = std::move(tiles.decisions);

    // TileGrids -> Map.
    t0 = Clock::now();
    Map& map = result.map;
    map.width = result.classes.width();
    map.height = result.classes.height();
    map.atlas = std::move(atlas);
    annotate_atlas(map.atlas, result.layers, recipe);
    map.layers = std::move(tiles.layers);
    if (project.sprites && !result.objects.empty()) {
        const SpriteSheet& sheet = *project.sprites;
        map.sprites.image = sheet.image;
        map.sprites.sprite_width = sheet.sprite_width;
        map.sprites.sprite_height = sheet.sprite_height;
        map.sprites.columns = sheet.columns;
        map.sprites.names.assign(
            static_cast<std::size_t>(sheet.columns * (sheet.image.height() / sheet.sprite_height)),
            "");
        for (const SpriteInfo& info : sheet.sprites)
            map.sprites.names[static_cast<std::size_t>(info.index)] = info.name;
        ObjectLayer layer;
        layer.objects.reserve(result.objects.size());
        const int tw = map.atlas.tile_width, th = map.atlas.tile_height;
        for (const PlacedObject& o : result.objects) {
            const SpriteInfo& info = sheet.sprites[static_cast<std::size_t>(o.sprite)];
            layer.objects.push_back({info.index, o.x * tw, (o.y + info.footprint_h) * th});
        }
        map.object_layers.push_back(std::move(layer));
    }
    map.properties.push_back({"generator", "string", std::string("tilegen ") + TILEGEN_VERSION});
    map.properties.push_back(
        {"recipe", "string", std::filesystem::path(recipe.path).filename().string()});
    map.properties.push_back({"seed", "string", std::to_string(result.seed)});
    map.properties.push_back(
        {"size", "string", std::to_string(map.width) + "x" + std::to_string(map.height)});
    {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx",
                      static_cast<unsigned long long>(project.input_hash));
        map.properties.push_back({"inputs_hash", "string", hex});
    }
    std::string thresholds;
    for (std::size_t i = 0; i < result.thresholds.size(); ++i)
        thresholds += (i ? " " : "") + float_text(result.thresholds[i]);
    if (!options.classes) map.properties.push_back({"thresholds", "string", thresholds});
    std::string classes;
    for (const auto& c : recipe.terrain)
        classes += (classes.empty() ? "" : " ") + std::string(1, c.symbol) + "=" + c.name;
    map.properties.push_back({"classes", "string", classes});
    result.timings.push_back({"map", ms_since(t0)});
    result.timings.push_back({"total", ms_since(t_start)});
    return result;
}

} // namespace tilegen
