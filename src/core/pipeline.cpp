#include "core/pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

#include "core/hash.hpp"
#include "core/heightfield/heightfield.hpp"
#include "core/parallel.hpp"
#include "core/rules/explain.hpp"
#include "core/rules/legalise.hpp"
#include "core/rules/rule_matcher.hpp"
#include "core/tileset/wang.hpp"

namespace tilegen {

namespace {

// Shortest decimal text that reads back as the same float (9 significant digits).
std::string float_text(float v) {
    std::ostringstream s;
    s.precision(9);
    s << v;
    return s.str();
}

} // namespace

std::uint32_t terrain_rgb(const Recipe& recipe, std::size_t index) {
    static constexpr std::uint32_t kDefaultColors[] = {0x3060c0, 0xd8c078, 0x40a040, 0x206028,
                                                       0x8a6a3a, 0x808080, 0x1c3a7a, 0xc04040};
    return recipe.terrain[index].color.value_or(kDefaultColors[index % 8]);
}

void annotate_atlas(Atlas& atlas, const std::vector<LayerRules>& layers, const Recipe& recipe) {
    // Wang ids from tile names (the painter's naming convention), when any tile follows it.
    std::vector<std::string> terrain_names;
    for (const auto& t : recipe.terrain)
        terrain_names.push_back(t.name);
    // A map with a corner layer gets a corner Wang set (its corner tiles), others a mixed one.
    const bool corner =
        std::any_of(layers.begin(), layers.end(), [](const LayerRules& l) { return l.corner(); });
    auto wang = corner ? corner_wang_ids_from_names(atlas.names, terrain_names)
                       : wang_ids_from_names(atlas.names, terrain_names);
    // Without transition tiles named by the convention, the ground rules' patterns give the ids
    // (a two-terrain set such as grass-edge-n, grass-island: wang_ids_from_rules).
    bool transitions = false;
    for (const auto& id : wang)
        for (auto v : id)
            transitions = transitions || v != id[0];
    if (!corner && !transitions && !layers.empty()) {
        const auto derived = wang_ids_from_rules(
            layers.front(), static_cast<int>(recipe.terrain.size()), atlas.tile_count());
        for (std::size_t i = 0; i < wang.size() && i < derived.size(); ++i)
            if (derived[i][0] != 0) wang[i] = derived[i];
    }
    bool any = false;
    for (const auto& id : wang)
        any = any || id != WangId{};
    atlas.wang_corner = corner;
    atlas.wang.clear();
    atlas.wang_colors.clear();
    atlas.wang_rgb.clear();
    if (any) {
        atlas.wang = std::move(wang);
        for (std::size_t i = 0; i < recipe.terrain.size(); ++i) {
            atlas.wang_colors.push_back(recipe.terrain[i].name);
            atlas.wang_rgb.push_back(terrain_rgb(recipe, i));
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
                if (cls >= 0 && layer.name == layers.front().name && !layer.corner())
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
        std::vector<Rule> rules;
        for (const auto& [rule, resolved] : group)
            rules.push_back(rule);
        for (std::size_t i : specificity_order(rules)) {
            layers[li].ordered.push_back(std::move(group[i].first));
            layers[li].resolved.push_back(std::move(group[i].second));
        }
    }
    return layers;
}

Grid<float> compute_map(const Recipe& recipe, const std::string& name, std::uint64_t seed,
                        int map_width, int map_height, Region region, int threads) {
    const MapDefinition* def = find_map(recipe, name);
    if (!def) throw std::logic_error("compute_map: the recipe defines no map '" + name + "'");
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
    throw std::logic_error("map '" + name + "' was not computed");
}
} // namespace

std::vector<std::string> class_maps(const Recipe& recipe) {
    if (recipe.classes.biomes)
        return {recipe.classes.biomes->rows_map, recipe.classes.biomes->columns_map};
    return {recipe.classes.map};
}

OutsidePolicy outside_policy(const Recipe& recipe) {
    OutsidePolicy outside;
    if (recipe.rules.outside == "clamp") return outside;
    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
        if (std::string(1, recipe.terrain[i].symbol) == recipe.rules.outside) {
            outside.fixed_class = static_cast<ClassId>(i);
            return outside;
        }
    throw std::logic_error("rules.outside '" + recipe.rules.outside + "' is no terrain symbol");
}

std::vector<MapProperty> map_properties(const Project& project, const MapPropertyValues& values) {
    const Recipe& recipe = project.recipe;
    std::vector<MapProperty> props{
        {"generator", "string", std::string("tilegen ") + TILEGEN_VERSION},
        {"recipe", "string", std::filesystem::path(recipe.path).filename().string()},
        {"seed", "string", std::to_string(values.seed)},
        {"size", "string", std::to_string(values.width) + "x" + std::to_string(values.height)}};
    // Infinite maps have never carried inputs_hash and classes; left so to keep their bytes.
    const bool infinite = values.threshold_sample.has_value();
    if (!infinite) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx",
                      static_cast<unsigned long long>(project.input_hash));
        props.push_back({"inputs_hash", "string", hex});
    }
    if (infinite) {
        const Region& s = *values.threshold_sample;
        props.push_back({"threshold_sample", "string",
                         std::to_string(s.x) + "," + std::to_string(s.y) + "," +
                             std::to_string(s.width) + "," + std::to_string(s.height)});
    }
    if (values.rivers >= 0) props.push_back({"rivers", "int", std::to_string(values.rivers)});
    if (values.thresholds) {
        std::string t;
        for (std::size_t i = 0; i < values.thresholds->size(); ++i)
            t += (i ? " " : "") + float_text((*values.thresholds)[i]);
        props.push_back({"thresholds", "string", t});
    }
    if (!infinite) {
        std::string classes;
        for (const auto& c : recipe.terrain)
            classes += (classes.empty() ? "" : " ") + std::string(1, c.symbol) + "=" + c.name;
        props.push_back({"classes", "string", classes});
    }
    return props;
}

ClassGrid classes_with_thresholds(const Recipe& recipe,
                                  const std::vector<std::pair<std::string, Grid<float>>>& maps,
                                  const std::vector<float>& thresholds, int threads,
                                  std::vector<std::uint64_t>* counts) {
    if (!recipe.classes.biomes) {
        const std::uint32_t overlays = overlay_mask(recipe);
        if (!overlays)
            return classify(grid_named(maps, recipe.classes.map), thresholds, threads, counts);
        // Overlay terrains have no band: classify into the bands of the others, then name them.
        std::vector<ClassId> class_of_band;
        for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
            if (!recipe.terrain[i].overlay) class_of_band.push_back(static_cast<ClassId>(i));
        std::vector<std::uint64_t> band_counts(class_of_band.size(), 0);
        ClassGrid g = classify(grid_named(maps, recipe.classes.map), thresholds, threads,
                               counts ? &band_counts : nullptr);
        parallel_for(g.height(), threads, [&](int y0, int y1) {
            for (int y = y0; y < y1; ++y) {
                ClassId* row = g.row(y);
                for (int x = 0; x < g.width(); ++x)
                    row[x] = class_of_band[row[x]];
            }
        });
        if (counts) {
            std::fill(counts->begin(), counts->end(), 0);
            for (std::size_t b = 0; b < class_of_band.size(); ++b)
                if (class_of_band[b] < counts->size()) (*counts)[class_of_band[b]] = band_counts[b];
        }
        return g;
    }
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

std::vector<float> thresholds_of_maps(const Recipe& recipe,
                                      const std::vector<std::pair<std::string, Grid<float>>>& maps,
                                      int threads, std::pair<float, float>* range) {
    std::vector<float> thresholds;
    if (!recipe.classes.biomes) {
        std::vector<double> shares;
        for (const auto& c : recipe.terrain)
            if (!c.overlay) shares.push_back(c.share);
        thresholds =
            thresholds_from_shares(grid_named(maps, recipe.classes.map), shares, threads, range);
    } else {
        const BiomeTable& b = *recipe.classes.biomes;
        thresholds =
            thresholds_from_shares(grid_named(maps, b.rows_map), b.row_shares, threads, range);
        const auto col =
            thresholds_from_shares(grid_named(maps, b.columns_map), b.column_shares, threads);
        thresholds.insert(thresholds.end(), col.begin(), col.end());
    }
    return thresholds;
}

ClassGrid classes_from_maps(const Recipe& recipe,
                            const std::vector<std::pair<std::string, Grid<float>>>& maps,
                            std::vector<float>& thresholds, int threads,
                            std::vector<std::uint64_t>* counts) {
    thresholds = thresholds_of_maps(recipe, maps, threads);
    return classes_with_thresholds(recipe, maps, thresholds, threads, counts);
}

std::optional<WorldSetup> prepare_world(const Project& project, std::uint64_t seed, int scale_width,
                                        int scale_height, Region sample, Diagnostics& diags) {
    const Recipe& recipe = project.recipe;
    if (recipe.rivers) {
        diags.push_back(error_at(recipe.path, recipe.rivers->line, recipe.rivers->column,
                                 "[rivers] routes water over the whole map (a whole-map stage); "
                                 "infinite maps and --region windows cannot have rivers"));
        return std::nullopt;
    }
    // Every map the classes need, and what they combine, must be position-based.
    std::vector<std::string> pending = class_maps(recipe), seen;
    while (!pending.empty()) {
        const std::string name = pending.back();
        pending.pop_back();
        if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
        seen.push_back(name);
        const MapDefinition* def = find_map(recipe, name);
        if (!def) throw std::logic_error("prepare_world: the recipe defines no map '" + name + "'");
        if (!is_position_based(def->settings.kind)) {
            diags.push_back(
                error_at(recipe.path, def->line, def->column,
                         "map '" + name + "' is kind \"" + noise_kind_name(def->settings.kind) +
                             "\", a whole-map algorithm; infinite maps and regions need "
                             "position-based kinds "
                             "(harmonic, value, perlin, simplex, worley, profile, white)"));
            return std::nullopt;
        }
        for (const auto& m : def->settings.modifiers) {
            if (m.kind == ModifierKind::thermal || m.kind == ModifierKind::hydraulic) {
                diags.push_back(error_at(recipe.path, m.line, m.column,
                                         "map '" + name +
                                             "' erodes (thermal or hydraulic), a whole-map "
                                             "modifier; infinite maps cannot use it"));
                return std::nullopt;
            }
            if (m.kind == ModifierKind::combine) pending.push_back(m.map);
        }
    }
    for (const ClassPass& pass : project.class_passes)
        if (pass.until_stable) {
            diags.push_back(error_at(pass.file, pass.line, 1,
                                     "[classes *] runs until the whole map is stable; infinite "
                                     "maps and regions need a fixed number of runs ([classes N])"));
            return std::nullopt;
        }
    for (std::size_t c = 0; c < recipe.cleanup.size(); ++c)
        if (recipe.cleanup[c].min_area > 1 || recipe.cleanup[c].min_width > 1) {
            const SourcePosition& at = recipe.terrain_positions[c];
            diags.push_back(error_at(recipe.path, at.line, at.column,
                                     "terrain '" + recipe.terrain[c].name +
                                         "' sets min_area or min_width, a clean-up of the whole "
                                         "map; infinite maps and regions cannot apply it"));
            return std::nullopt;
        }
    if (recipe.rules.legalise) {
        diags.push_back(error_at(recipe.path, 0, 0,
                                 "[rules] legalise rewrites the whole map's classes; infinite maps "
                                 "and regions cannot apply it"));
        return std::nullopt;
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
    w.outside = outside_policy(recipe);
    w.radius = 0;
    for (const auto& l : w.layers)
        for (const auto& r : l.ordered)
            w.radius = std::max(w.radius, r.pattern.radius());
    for (const ClassPass& pass : project.class_passes) {
        int radius = 0;
        for (const Rule& r : pass.ordered)
            radius = std::max(radius, r.pattern.radius());
        w.pass_reach += pass.runs * radius;
    }
    return w;
}

ClassGrid world_classes(const Project& project, const WorldSetup& world, Region area) {
    const Recipe& recipe = project.recipe;
    // The class passes see `pass_reach` cells further: classes are cut over that margin too, the
    // passes run over it (choices hashed at world coordinates), and the margin is dropped.
    const int reach = world.pass_reach;
    const Region seen{area.x - reach, area.y - reach, area.width + 2 * reach,
                      area.height + 2 * reach};
    std::vector<std::pair<std::string, Grid<float>>> maps;
    for (const std::string& name : class_maps(recipe))
        maps.emplace_back(name, compute_map(recipe, name, world.seed, world.scale_width,
                                            world.scale_height, seen));
    ClassGrid classes = classes_with_thresholds(recipe, maps, world.thresholds);
    if (!project.class_passes.empty()) {
        const ClassGrid passed = run_class_passes(
            std::move(classes), project.class_passes, static_cast<int>(recipe.terrain.size()),
            world.outside, world.seed, 1, nullptr, {seen.x, seen.y});
        classes = crop(passed, Region{reach, reach, area.width, area.height});
    }
    return classes;
}

std::vector<PlacedObject> window_objects(const Project& project, const WorldSetup& world,
                                         std::optional<Region> bounds, Region window, int threads) {
    const Recipe& recipe = project.recipe;
    if (!project.sprites || recipe.objects.empty() || window.width <= 0 || window.height <= 0)
        return {};
    // The window and the cells its objects depend on, clipped to the world's bounds.
    const long long margin = object_margin(recipe.objects, *project.sprites);
    long long x0 = window.x - margin, y0 = window.y - margin;
    long long x1 = static_cast<long long>(window.x) + window.width + margin;
    long long y1 = static_cast<long long>(window.y) + window.height + margin;
    if (bounds) {
        x0 = std::max<long long>(x0, bounds->x);
        y0 = std::max<long long>(y0, bounds->y);
        x1 = std::min<long long>(x1, static_cast<long long>(bounds->x) + bounds->width);
        y1 = std::min<long long>(y1, static_cast<long long>(bounds->y) + bounds->height);
    }
    if (x0 >= x1 || y0 >= y1) return {};
    const Region area{static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0),
                      static_cast<int>(y1 - y0)};
    const ClassGrid classes = world_classes(project, world, area);
    NamedMaps maps;
    for (const ObjectRule& rule : recipe.objects)
        if (!rule.density.empty() && std::none_of(maps.begin(), maps.end(), [&](const auto& m) {
                return m.first == rule.density;
            }))
            maps.emplace_back(rule.density,
                              compute_map(recipe, rule.density, world.seed, world.scale_width,
                                          world.scale_height, area, threads));
    PlacementFrame frame;
    frame.x = area.x;
    frame.y = area.y;
    frame.bounds = bounds;
    frame.unbounded = !bounds;
    frame.keep = window;
    return place_objects(classes, maps, recipe.objects, *project.sprites, world.seed, threads,
                         frame);
}

std::vector<PlacedObject> world_objects(const Project& project, const WorldSetup& world,
                                        Region bounds, int threads) {
    if (!project.sprites || project.recipe.objects.empty()) return {};
    // Bands of rows, each placed with the margin around it: memory for one band.
    const int margin = object_margin(project.recipe.objects, *project.sprites);
    const int band = std::max(256, 2 * margin);
    std::vector<PlacedObject> objects;
    for (long long y = bounds.y; y < static_cast<long long>(bounds.y) + bounds.height; y += band) {
        const int rows = static_cast<int>(
            std::min<long long>(band, static_cast<long long>(bounds.y) + bounds.height - y));
        const auto part =
            window_objects(project, world, bounds,
                           Region{bounds.x, static_cast<int>(y), bounds.width, rows}, threads);
        objects.insert(objects.end(), part.begin(), part.end());
    }
    // Drawing order across the bands (an object's footprint may end in the next band).
    sort_for_drawing(objects, *project.sprites, threads);
    return objects;
}

// The sprite sheet as the map carries it, and the placed objects as tile objects in pixels (the
// sprite's bottom-left at its footprint's bottom-left).
void add_object_layer(Map& map, const SpriteSheet& sheet,
                      const std::vector<PlacedObject>& objects) {
    map.sprites.image = sheet.image;
    map.sprites.sprite_width = sheet.sprite_width;
    map.sprites.sprite_height = sheet.sprite_height;
    map.sprites.columns = sheet.columns;
    map.sprites.names.assign(
        static_cast<std::size_t>(sheet.columns * (sheet.image.height() / sheet.sprite_height)), "");
    for (const SpriteInfo& info : sheet.sprites)
        map.sprites.names[static_cast<std::size_t>(info.index)] = info.name;
    ObjectLayer layer;
    layer.objects.reserve(objects.size());
    const int tw = map.atlas.tile_width, th = map.atlas.tile_height;
    for (const PlacedObject& o : objects) {
        const SpriteInfo& info = sheet.sprites[static_cast<std::size_t>(o.sprite)];
        layer.objects.push_back({info.index, o.x * tw, (o.y + info.footprint_h) * th});
    }
    map.object_layers.push_back(std::move(layer));
}

std::vector<Grid<Gid>> generate_chunk(const Project& project, const WorldSetup& world, Region chunk,
                                      std::uint64_t& unmatched) {
    const Recipe& recipe = project.recipe;
    const int r = world.radius;
    const Region padded{chunk.x - r, chunk.y - r, chunk.width + 2 * r, chunk.height + 2 * r};
    const ClassGrid classes = world_classes(project, world, padded);
    AutotileResult tiles = autotile(classes, world.layers, static_cast<int>(recipe.terrain.size()),
                                    world.outside, world.seed, world.error_gid);
    std::vector<Grid<Gid>> out;
    for (std::size_t li = 0; li < tiles.layers.size(); ++li) {
        // A corner layer: corners x .. x+width, y .. y+height (one more column and row); the
        // padded grid's corner (x + r, y + r) is world corner (chunk.x + x, chunk.y + y).
        const int extra = world.layers[li].corner() ? 1 : 0;
        Grid<Gid> g(chunk.width + extra, chunk.height + extra);
        for (int y = 0; y < chunk.height + extra; ++y)
            for (int x = 0; x < chunk.width + extra; ++x) {
                g(x, y) = tiles.layers[li].tiles(x + r, y + r);
                // The cell's own decision: autotile() ran on the padded grid, so its choice hash
                // used padded coordinates; redo the pick at world coordinates so every chunking
                // gives the same tiles.
                const int d = tiles.decisions[li](x + r, y + r);
                if (d == kNoRule) {
                    ++unmatched;
                    continue;
                }
                // (unmatched counts a corner layer's extra column and row too)
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

// ---- The stages of generate_map ----

namespace {

// The run's state: what the stages read and fill in, in order. `result` is the run's output; the
// rest is handed from one stage to the next.
struct Run {
    Run(const Project& p, const GenerateOptions& o) : project(p), options(o) {}
    const Project& project;
    const GenerateOptions& options;
    int width = 0, height = 0; // the map's size in cells
    GenerateResult result;
    Atlas atlas;                  // rules -> map
    Gid error_gid = 0;            // rules -> map
    AutotileResult tiles;         // rules -> map
    bool layers_resolved = false; // atlas, error_gid and result.layers are built (legalise, rules)
    Grid<float> slope;            // places -> roads: slope_of the classes' first map
    Router router;                // roads -> reachability: buffers reused
    // roads -> reachability: reachability's preparation, made on the classes before the roads
    // (while the routes run) and patched for the road cells by the reachability stage
    std::optional<ReachPrep> reach_prep;
    // reachability -> objects: the objects' density maps, made beside reachability's search when
    // `objects_follow` (they read nothing the stages make: compute_map of the recipe and the seed)
    std::future<NamedMaps> density_maps;
    bool objects_follow = false;        // the run goes on to `objects` after a met constraint
    std::vector<PlaceRule> place_rules; // places -> roads, constraints: at the run's size
    // hydrology -> classes; its `into` grid holds the uncarved classes after the clean-up where
    // they are of an `into` class (that class + 1; 0 elsewhere)
    std::optional<HydrologyResult> hydro;
    ClassGrid uncarved; // hydrology -> classes: the uncarved classes (before the clean-up)
    // classes -> cleanup, legalise: each river's end cell and the `into` class predicted there
    std::vector<std::pair<std::uint32_t, ClassId>> river_ends;

    // Everything the stages left in `from` (another project's run; the router's buffers aside).
    void take_state(const Run& from) {
        width = from.width;
        height = from.height;
        result = from.result;
        atlas = from.atlas;
        error_gid = from.error_gid;
        tiles = from.tiles;
        layers_resolved = from.layers_resolved;
        slope = from.slope;
        hydro = from.hydro;
        uncarved = from.uncarved;
        river_ends = from.river_ends;
    }
};

// The terrains' walkable flags, indexed by class id.
std::vector<bool> walkable_table(const Recipe& recipe) {
    std::vector<bool> w;
    for (const TerrainClass& t : recipe.terrain)
        w.push_back(t.walkable);
    return w;
}

int start_rule(const Recipe& recipe) {
    for (std::size_t i = 0; i < recipe.places.places.size(); ++i)
        if (recipe.places.places[i].start) return static_cast<int>(i);
    return -1;
}

std::vector<std::uint32_t> run_start_cells(const Run& run) {
    const int start = start_rule(run.project.recipe);
    for (const Place& p : run.result.places)
        if (p.rule == start) return start_cells_of(p, run.width, run.height);
    return {};
}

// places: [[places]] on the classes (places.hpp).
bool has_places(const Run& run) {
    return !run.project.recipe.places.places.empty();
}
// The [[places]] rules at the run's size. They are written for the recipe's [map] size; a map of
// fewer cells (generate --size) gets each count times (its cells / the recipe's cells), rounded to
// the nearest whole number (the start keeps its 1), and each min_distance times the square root of
// that ratio, so a small map has fewer places closer together instead of no room for them. At the
// recipe's size or larger: the rules as written.
std::vector<PlaceRule> place_rules_at_size(const Recipe& recipe, int width, int height) {
    std::vector<PlaceRule> rules = recipe.places.places;
    const double ratio = static_cast<double>(width) * height /
                         (static_cast<double>(recipe.map.width) * recipe.map.height);
    if (ratio >= 1) return rules;
    for (PlaceRule& rule : rules) {
        if (!rule.start) rule.count = static_cast<int>(std::lround(rule.count * ratio));
        rule.min_distance *= std::sqrt(ratio);
    }
    return rules;
}

bool has_roads(const Run& run);
bool has_reachability(const Run& run);
void drop_spent_maps(Run& run, bool places_done);
bool places_objects(const Run& run);
std::vector<std::string> density_maps_needed(const Run& run);
NamedMaps density_maps_of(const Run& run, const std::vector<std::string>& names, int threads);

void make_places(Run& run) {
    GenerateResult& r = run.result;
    const Recipe& recipe = run.project.recipe;
    run.place_rules = place_rules_at_size(recipe, run.width, run.height);
    const Grid<float>* heights = nullptr;
    if (!run.options.classes)
        for (const auto& [name, grid] : r.maps)
            if (name == class_maps(recipe).front()) heights = &grid;
    if (heights) run.slope = slope_of(*heights, run.options.threads);
    const Grid<float> no_heights; // (`heights ? *heights : Grid<float>{}` would copy the grid)
    r.places = place_places(r.classes, heights ? *heights : no_heights, run.place_rules, r.seed,
                            heights ? &run.slope : nullptr, run.options.threads)
                   .places;
    drop_spent_maps(run, true);
    if (!has_roads(run)) run.slope = Grid<float>(); // only the roads read it
}

// roads: [roads] between the places, written as overlay terrains (roads.hpp).
bool has_roads(const Run& run) {
    return has_places(run) && run.project.recipe.places.roads.has_value();
}
void make_roads(Run& run) {
    GenerateResult& r = run.result;
    const Recipe& recipe = run.project.recipe;
    if (run.options.keep_details) r.classes_before_roads = r.classes;
    const std::vector<bool> walkable = walkable_table(recipe);
    // Reachability's preparation (labels, borders) on the classes before the roads, on a thread
    // of its own while the roads' routes (one thread) run, started once the roads' cost grid (a
    // pass on every thread) is made; its search grid waits for the reachability stage (memory:
    // the roads' grids are alive now). On one thread the reachability stage prepares from the
    // classes after the roads instead (no patch to make).
    std::future<ReachPrep> prep;
    const auto start_prep = [&] {
        if (has_reachability(run) && run.options.threads >= 2)
            prep = start_task(run.options.threads, [&r, &walkable, threads = run.options.threads] {
                return prepare_reachable(r.classes, walkable, std::max(1, threads / 2));
            });
    };
    r.roads = build_roads(r.classes, run.slope, r.places, run.place_rules, *recipe.places.roads,
                          walkable, r.seed, run.router, run.options.threads, start_prep);
    if (prep.valid()) run.reach_prep = prep.get();     // before the roads change the classes
    run.slope = Grid<float>();                         // read by the roads only
    if (!has_reachability(run)) run.router = Router(); // its buffers back to the pool
    write_roads(r.classes, r.roads, r.places, *recipe.places.roads);
    if (!has_reachability(run)) // else the reachability stage, next, counts them
        r.class_fractions = class_fractions(r.classes, static_cast<int>(recipe.terrain.size()),
                                            run.options.threads);
}

// reachability: [constraints] walkable_regions = 1 (reachability.hpp).
bool has_reachability(const Run& run) {
    const auto& c = run.project.recipe.places.constraints;
    return c && c->walkable_regions == 1;
}
void make_reachable_stage(Run& run) {
    GenerateResult& r = run.result;
    const Recipe& recipe = run.project.recipe;
    if (run.options.keep_details && r.classes_before_roads.empty())
        r.classes_before_roads = r.classes;
    const RoadSettings roads = recipe.places.roads.value_or(RoadSettings{});
    const std::vector<bool> walkable = walkable_table(recipe);
    // The roads' preparation patched for the cells they wrote; from scratch when there is none
    // or the patch cannot be made (a road cell that blocks walkable land). The same either way.
    std::optional<ReachPrep> prep = std::move(run.reach_prep);
    run.reach_prep.reset();
    if (prep) {
        std::vector<std::uint32_t> changed;
        for (const Road& road : r.roads.roads)
            changed.insert(changed.end(), road.cells.begin(), road.cells.end());
        if (!patch_reachable(*prep, r.classes, walkable, changed, run.options.threads))
            prep.reset();
    }
    if (!prep) prep = prepare_reachable(r.classes, walkable, run.options.threads);
    // The search is one thread's work: the objects' density maps are made beside it (on a thread
    // of their own when there are two or more; else by the objects stage, as without this),
    // started once the search's grid (a pass on every thread) is made.
    const auto start_density_maps = [&run] {
        if (run.objects_follow && places_objects(run) && run.options.threads >= 2)
            if (std::vector<std::string> names = density_maps_needed(run); !names.empty())
                run.density_maps =
                    start_task(run.options.threads,
                               [&run, names, threads = std::max(1, run.options.threads / 2)] {
                                   return density_maps_of(run, names, threads);
                               });
    };
    r.reach = make_reachable(r.classes, walkable, run_start_cells(run), *recipe.places.constraints,
                             roads, place_mask(run.width, run.height, r.places), run.router,
                             run.options.threads, std::move(*prep), start_density_maps);
    run.router = Router(); // the last search: its buffers back to the pool
    r.class_fractions =
        class_fractions(r.classes, static_cast<int>(recipe.terrain.size()), run.options.threads);
}

// The first constraint the run misses, as a message naming it; empty when all are met.
std::string unmet_constraint(const Run& run) {
    const Recipe& recipe = run.project.recipe;
    const GenerateResult& r = run.result;
    std::vector<int> placed(recipe.places.places.size(), 0);
    for (const Place& p : r.places)
        ++placed[static_cast<std::size_t>(p.rule)];
    for (std::size_t i = 0; i < placed.size(); ++i) {
        const PlaceRule& rule = run.place_rules[i];
        if (placed[i] < rule.count)
            return "[[places]] '" + rule.name + "': count = " + std::to_string(rule.count) +
                   ", only " + std::to_string(placed[i]) + " found room";
    }
    if (!r.roads.unreached.empty())
        return "[roads] connect: no road reaches place '" +
               recipe.places
                   .places[static_cast<std::size_t>(
                       r.places[static_cast<std::size_t>(r.roads.unreached[0])].rule)]
                   .name +
               "' (avoid, max_bridge and costs leave no way)";
    if (has_reachability(run)) {
        const ConstraintSettings& c = *recipe.places.constraints;
        if (!r.reach.start_found)
            return "[constraints] reachable_from = \"start\": no walkable cell at the start place";
        if (!r.reach.met)
            return "[constraints] walkable_regions = 1: " + std::to_string(r.reach.big_after) +
                   " walkable regions of >= " + std::to_string(c.min_region) + " cells (policy " +
                   (c.policy == ReachPolicy::reseed ? "reseed" : "connect") + ")";
    }
    return {};
}

bool places_objects(const Run& run) {
    return run.project.sprites && !run.project.recipe.objects.empty();
}

// The maps the noise stage computes: those the classes are cut from (none with a given class map)
// and the rivers' rain map, in recipe order (compute_map adds what they combine). The objects'
// density maps wait for the objects stage (density_maps_needed): made after the hydrology, they
// take the blocks its temporaries left in the grid pool instead of fresh pages, and they are not
// alive during its peak.
std::vector<std::string> maps_needed(const Run& run) {
    const Recipe& recipe = run.project.recipe;
    std::vector<std::string> wanted;
    if (!run.options.classes) wanted = class_maps(recipe);
    if (!run.options.classes && recipe.rivers && !recipe.rivers->rain.empty())
        wanted.push_back(recipe.rivers->rain);
    std::vector<std::string> needed;
    for (const MapDefinition& def : recipe.maps)
        if (std::find(wanted.begin(), wanted.end(), def.name) != wanted.end())
            needed.push_back(def.name);
    return needed;
}

// Whether an [[objects]] rule reads map `name` as its density.
bool is_density_map(const Recipe& recipe, const std::string& name) {
    return std::any_of(recipe.objects.begin(), recipe.objects.end(),
                       [&](const ObjectRule& o) { return o.density == name; });
}

// The objects' density maps the run has not computed yet, in recipe order.
std::vector<std::string> density_maps_needed(const Run& run) {
    const Recipe& recipe = run.project.recipe;
    std::vector<std::string> needed;
    for (const MapDefinition& def : recipe.maps) {
        const bool density = is_density_map(recipe, def.name);
        const bool computed = std::any_of(run.result.maps.begin(), run.result.maps.end(),
                                          [&](const auto& m) { return m.first == def.name; });
        if (density && !computed) needed.push_back(def.name);
    }
    return needed;
}

// The named maps over the run's whole map (compute_map of the recipe and the seed), in order.
NamedMaps density_maps_of(const Run& run, const std::vector<std::string>& names, int threads) {
    NamedMaps maps;
    for (const std::string& name : names)
        maps.emplace_back(name,
                          compute_map(run.project.recipe, name, run.result.seed, run.width,
                                      run.height, Region{0, 0, run.width, run.height}, threads));
    return maps;
}

// Frees the maps no later stage reads (their blocks go back to the grid pool for the stages
// after): once the classes are cut, every map but the first class map while `places` has still to
// read it (its heights and slope) and the objects' density maps; with keep_details (explain, the
// viewer) every map stays.
void drop_spent_maps(Run& run, bool places_done) {
    if (run.options.keep_details) return;
    const Recipe& recipe = run.project.recipe;
    const std::string heights = class_maps(recipe).front();
    std::erase_if(run.result.maps, [&](const auto& m) {
        if (!places_done && has_places(run) && m.first == heights) return false;
        return !is_density_map(recipe, m.first);
    });
}

// noise: every map maps_needed names, over the whole map.
bool computes_maps(const Run& run) {
    return !maps_needed(run).empty();
}
void compute_maps(Run& run) {
    const Recipe& recipe = run.project.recipe;
    GenerateResult& r = run.result;
    for (const std::string& name : maps_needed(run))
        r.maps.emplace_back(name,
                            compute_map(recipe, name, r.seed, run.width, run.height,
                                        Region{0, 0, run.width, run.height}, run.options.threads));
    if (run.options.keep_details && !run.options.classes)
        for (const auto& [name, grid] : r.maps)
            if (name == class_maps(recipe).front()) r.heights = grid;
}

bool cleanup_wanted(const Recipe& recipe);

// hydrology: [rivers] carves the map classes are cut from (hydrology.hpp), with the thresholds
// read off the uncarved maps (so only cells the carving lowers can change class).
bool has_rivers(const Run& run) {
    return run.project.recipe.rivers.has_value() && !run.options.classes;
}
Grid<float>& map_named(std::vector<std::pair<std::string, Grid<float>>>& maps,
                       const std::string& name) {
    for (auto& [n, g] : maps)
        if (n == name) return g;
    throw std::logic_error("map '" + name + "' was not computed");
}
std::uint32_t class_mask(const Recipe& recipe, const std::string& symbols) {
    std::uint32_t m = 0;
    for (char c : symbols)
        for (std::size_t i = 0; i < recipe.terrain.size() && i < 32; ++i)
            if (recipe.terrain[i].symbol == c) m |= 1u << i;
    return m;
}
void route_water(Run& run) {
    const Recipe& recipe = run.project.recipe;
    const RiverSettings& settings = *recipe.rivers;
    GenerateResult& r = run.result;
    // Where rivers may end: the `into` classes of the uncarved maps after the clean-up (a puddle
    // the clean-up removes ends no river), turned in place into the `into` grid: that class + 1
    // on those cells, 0 elsewhere (write_overlay reads the class at the rivers' ends). Made while
    // the hydrology's flood runs (run_hydrology_in_place): it reads only the uncarved maps, which
    // nothing changes before it returns, and writes only the thresholds and `uncarved`, which the
    // hydrology does not read.
    const std::uint32_t into = class_mask(recipe, settings.into);
    auto predict = [&run, &recipe, into](int threads) {
        GenerateResult& res = run.result;
        // The thresholds' histogram reads every height: it finds their range for the
        // quantising too, which takes it on one thread only (two threads and more quantise beside
        // the prediction, hydrology.cpp); there the histogram pass stays as it was.
        const bool range_wanted = run.options.threads < 2;
        std::pair<float, float> range;
        res.thresholds =
            thresholds_of_maps(recipe, res.maps, threads, range_wanted ? &range : nullptr);
        ClassGrid predicted = classes_with_thresholds(recipe, res.maps, res.thresholds, threads);
        run.uncarved = predicted;
        if (cleanup_wanted(recipe))
            (void)clean_up_classes(predicted, recipe.cleanup, overlay_mask(recipe), threads);
        parallel_for(predicted.height(), threads, [&](int y0, int y1) {
            for (int y = y0; y < y1; ++y)
                mark_into_classes(predicted.row(y), static_cast<std::size_t>(predicted.width()),
                                  into);
        });
        return range_wanted ? IntoGrid(std::move(predicted), range)
                            : IntoGrid(std::move(predicted));
    };
    Grid<float>& heights = map_named(r.maps, class_maps(recipe).front());
    const Grid<float>* rain = settings.rain.empty() ? nullptr : &grid_named(r.maps, settings.rain);
    Grid<float> rain_copy; // the rain map is the class map: read after that one was carved
    if (rain == &heights) {
        rain_copy = heights;
        rain = &rain_copy;
    }
    // The map is carved in place, where it is (the prediction reads it from r.maps meanwhile).
    run.hydro = run_hydrology_in_place(heights, rain, settings, r.seed, predict,
                                       run.options.keep_details, run.options.threads);
    if (run.options.keep_details) r.heights = heights;
    r.flow = std::move(run.hydro->flow);
}

// The classes of the carved maps, from those of the uncarved ones (`uncarved`, the same
// thresholds): classes are cut cell by cell, and the carving (hydrology.hpp) changed the map only
// at the rivers' cells and the cells around them, so only those are cut again, as a one-row map of
// their values. The same grid as classes_with_thresholds over the carved maps.
ClassGrid classes_after_carving(const Recipe& recipe,
                                const std::vector<std::pair<std::string, Grid<float>>>& maps,
                                const std::vector<float>& thresholds, ClassGrid uncarved,
                                const HydrologyResult& hydro) {
    const int w = uncarved.width(), h = uncarved.height();
    std::vector<std::uint32_t> cells;
    auto around = [&](std::uint32_t c) {
        const int x = static_cast<int>(c % static_cast<std::uint32_t>(w));
        const int y = static_cast<int>(c / static_cast<std::uint32_t>(w));
        for (int ny = std::max(y - 1, 0); ny <= std::min(y + 1, h - 1); ++ny)
            for (int nx = std::max(x - 1, 0); nx <= std::min(x + 1, w - 1); ++nx)
                cells.push_back(static_cast<std::uint32_t>(ny * w + nx));
    };
    for (const RiverPath& river : hydro.rivers) {
        for (std::uint32_t c : river.stem)
            around(c);
        for (const RiverPath::Bank& bank : river.banks)
            around(bank.cell);
    }
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    if (cells.empty()) return uncarved;
    std::vector<std::pair<std::string, Grid<float>>> values;
    for (const std::string& name : class_maps(recipe)) {
        const Grid<float>& map = grid_named(maps, name);
        Grid<float> row(static_cast<int>(cells.size()), 1);
        for (std::size_t i = 0; i < cells.size(); ++i)
            row.cells()[i] = map.cells()[cells[i]];
        values.emplace_back(name, std::move(row));
    }
    const ClassGrid cut = classes_with_thresholds(recipe, values, thresholds);
    for (std::size_t i = 0; i < cells.size(); ++i)
        uncarved.cells()[cells[i]] = cut.cells()[i];
    return uncarved;
}

// The overlay cells: lakes, rivers and waterfalls over the cut classes.
void write_overlay(Run& run) {
    const Recipe& recipe = run.project.recipe;
    const RiverSettings& s = *recipe.rivers;
    GenerateResult& r = run.result;
    const std::string symbols = terrain_symbols(recipe);
    const auto id = [&](char c) { return c ? static_cast<int>(symbols.find(c)) : -1; };
    RiverClasses ids;
    ids.river = static_cast<ClassId>(id(s.river_symbol));
    ids.lake = id(s.lake_symbol);
    ids.waterfall = id(s.waterfall_symbol);
    ids.waterfall_drop = static_cast<float>(s.waterfall_drop);
    const std::size_t row_cuts =
        recipe.classes.biomes ? recipe.classes.biomes->row_shares.size() - 1 : r.thresholds.size();
    ids.top_band =
        row_cuts > 0 ? r.thresholds[row_cuts - 1] : std::numeric_limits<float>::infinity();
    const Grid<float>& carved = grid_named(r.maps, class_maps(recipe).front());
    r.hydrology = write_rivers(r.classes, *run.hydro, carved, ids);
    const std::uint8_t* predicted_into = run.hydro->into.cells().data();
    for (const RiverReport& river : r.hydrology->rivers)
        if (river.end >= 0) {
            const auto cell = static_cast<std::uint32_t>(river.end);
            if (predicted_into[cell])
                run.river_ends.push_back({cell, static_cast<ClassId>(predicted_into[cell] - 1)});
        }
    run.hydro.reset();
}

// The cells of the 4-connected region of class `c` holding `from` that are not yet in `seen`, up
// to `limit` of them, appended to `out` (breadth-first, 4-neighbours N, W, E, S).
void flood_class(const ClassGrid& g, std::uint32_t from, ClassId c, std::size_t limit,
                 std::unordered_set<std::uint32_t>& seen, std::vector<std::uint32_t>& out) {
    if (!seen.insert(from).second) return;
    std::size_t next = out.size();
    out.push_back(from);
    const int w = g.width(), h = g.height();
    for (std::size_t taken = 1; next < out.size() && taken < limit; ++next) {
        const std::uint32_t at = out[next];
        const int x = static_cast<int>(at % static_cast<std::uint32_t>(w));
        const int y = static_cast<int>(at / static_cast<std::uint32_t>(w));
        const int dx[4] = {0, -1, 1, 0}, dy[4] = {-1, 0, 0, 1};
        for (int k = 0; k < 4 && taken < limit; ++k) {
            const int nx = x + dx[k], ny = y + dy[k];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h || g(nx, ny) != c) continue;
            const auto n = static_cast<std::uint32_t>(ny) * static_cast<std::uint32_t>(w) +
                           static_cast<std::uint32_t>(nx);
            if (seen.insert(n).second) {
                out.push_back(n);
                ++taken;
            }
        }
    }
}

// Grows the region of river end cell `end` to `min_area` cells: the cells nearest to it
// (breadth-first from the region, 4-neighbours N, W, E, S) take its class, joining every region
// of that class they reach, until the region holds min_area cells. Never takes an overlay cell
// (`frozen` classes) nor another river's end cell (`ends`, sorted). Returns whether a cell changed.
bool grow_end_region(ClassGrid& g, std::uint32_t end, int min_area, std::uint32_t frozen,
                     const std::vector<std::uint32_t>& ends) {
    if (min_area <= 1) return false;
    const ClassId c = g.cells()[end];
    const auto want = static_cast<std::size_t>(min_area);
    std::unordered_set<std::uint32_t> seen;
    std::vector<std::uint32_t> region;
    flood_class(g, end, c, want, seen, region);
    if (region.size() >= want) return false;
    const int w = g.width(), h = g.height();
    bool changed = false;
    for (std::size_t next = 0; next < region.size() && region.size() < want; ++next) {
        const std::uint32_t at = region[next];
        const int x = static_cast<int>(at % static_cast<std::uint32_t>(w));
        const int y = static_cast<int>(at / static_cast<std::uint32_t>(w));
        const int dx[4] = {0, -1, 1, 0}, dy[4] = {-1, 0, 0, 1};
        for (int k = 0; k < 4 && region.size() < want; ++k) {
            const int nx = x + dx[k], ny = y + dy[k];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            const auto n = static_cast<std::uint32_t>(ny) * static_cast<std::uint32_t>(w) +
                           static_cast<std::uint32_t>(nx);
            const ClassId was = g(nx, ny);
            if (seen.count(n) || (was < 32 && ((frozen >> was) & 1u)) ||
                std::binary_search(ends.begin(), ends.end(), n))
                continue;
            if (was == c) { // another region of the class: it joins, whole
                flood_class(g, n, c, want - region.size(), seen, region);
                continue;
            }
            seen.insert(n);
            g(nx, ny) = c;
            region.push_back(n);
            changed = true;
        }
    }
    return changed;
}

// The river end cells, sorted.
std::vector<std::uint32_t> river_end_cells(const Run& run) {
    std::vector<std::uint32_t> ends;
    for (const auto& [cell, c] : run.river_ends)
        ends.push_back(cell);
    std::sort(ends.begin(), ends.end());
    return ends;
}

// After a stage that rewrites classes: every river still ends in a region of an `into` class (or
// a lake) of at least that class's min_area cells. A river's end cell that is no longer of an
// `into` class or a lake (the clean-up merged away a shore the prediction kept) takes the `into`
// class predicted there; a region of an `into` class at a river's end smaller than the class's
// min_area (the end cell alone, or a shore the carving or the clean-up cut short) grows to
// min_area (grow_end_region); land regions the growth left smaller than their min_area are then
// merged into their surroundings (merge_small_regions), which never shrinks a region that has
// min_area cells. Afterwards no region is smaller than its min_area (but regions only overlay
// cells border, as after the clean-up), and every river ends where it did.
void keep_river_ends(Run& run) {
    if (run.river_ends.empty()) return;
    const Recipe& recipe = run.project.recipe;
    std::uint32_t ok = class_mask(recipe, recipe.rivers->into);
    if (recipe.rivers->lake_symbol)
        ok |= class_mask(recipe, std::string(1, recipe.rivers->lake_symbol));
    ClassGrid& g = run.result.classes;
    ClassId* cls = g.cells().data();
    const std::vector<std::uint32_t> ends = river_end_cells(run);
    const std::uint32_t overlays = overlay_mask(recipe);
    bool grew = false;
    for (const auto& [cell, c] : run.river_ends) {
        if (!((ok >> cls[cell]) & 1u)) cls[cell] = c;
        if ((overlays >> cls[cell]) & 1u) continue; // a lake
        grew = grow_end_region(g, cell, recipe.cleanup[cls[cell]].min_area, overlays, ends) || grew;
    }
    if (grew) {
        CleanupReport merged;
        merge_small_regions(g, recipe.cleanup, merged, overlays);
    }
}

// classes: the class grid (cut from the maps, or the given one) and the fraction of each class.
void cut_classes(Run& run) {
    GenerateResult& r = run.result;
    const auto class_count = run.project.recipe.terrain.size();
    if (run.options.classes) {
        r.classes = *run.options.classes;
        r.class_fractions =
            class_fractions(r.classes, static_cast<int>(class_count), run.options.threads);
        r.classified_fractions = r.class_fractions;
        return;
    }
    // The cells of each class are counted as they are classified.
    std::vector<std::uint64_t> counts(class_count, 0);
    if (run.hydro) { // thresholds of the uncarved maps, classes of the carved ones
        r.classes = classes_after_carving(run.project.recipe, r.maps, r.thresholds,
                                          std::move(run.uncarved), *run.hydro);
        run.uncarved = ClassGrid();
        write_overlay(run);
        r.class_fractions =
            class_fractions(r.classes, static_cast<int>(class_count), run.options.threads);
        r.classified_fractions = r.class_fractions;
        drop_spent_maps(run, false);
        return;
    }
    r.classes =
        classes_from_maps(run.project.recipe, r.maps, r.thresholds, run.options.threads, &counts);
    r.class_fractions = fractions_of_counts(counts, r.classes.size());
    r.classified_fractions = r.class_fractions;
    drop_spent_maps(run, false);
}

// class_passes: the rule files' [classes] sections rewrite the class grid, in order.
bool has_class_passes(const Run& run) {
    return !run.project.class_passes.empty();
}
void run_passes(Run& run) {
    GenerateResult& r = run.result;
    const int class_count = static_cast<int>(run.project.recipe.terrain.size());
    if (run.options.keep_details) r.classes_before_passes = r.classes;
    PassHistory history;
    r.classes = run_class_passes(std::move(r.classes), run.project.class_passes, class_count,
                                 outside_policy(run.project.recipe), r.seed, run.options.threads,
                                 &history, {0, 0}, overlay_mask(run.project.recipe));
    keep_river_ends(run);
    r.pass_runs = std::move(history.runs);
    r.pass_changed = std::move(history.changed);
    r.class_fractions = class_fractions(r.classes, class_count, run.options.threads);
}

// cleanup: [[terrain]] min_width and min_area (class_cleanup.hpp), after the passes.
bool cleanup_wanted(const Recipe& recipe) {
    for (const ClassCleanup& c : recipe.cleanup)
        if (c.min_area > 1 || c.min_width > 1) return true;
    return false;
}
bool cleans_up(const Run& run) {
    return cleanup_wanted(run.project.recipe);
}
void clean_up(Run& run) {
    GenerateResult& r = run.result;
    if (run.options.keep_details) r.classes_before_cleanup = r.classes;
    r.cleanup = clean_up_classes(r.classes, run.project.recipe.cleanup,
                                 overlay_mask(run.project.recipe), run.options.threads);
    keep_river_ends(run);
    r.class_fractions = class_fractions(
        r.classes, static_cast<int>(run.project.recipe.terrain.size()), run.options.threads);
}

// objects: sprites on the classes, guided by the density maps.
void place_sprites(Run& run) {
    GenerateResult& r = run.result;
    // The density maps the noise stage did not compute, over the whole class grid (place_objects
    // throws std::logic_error on a missing or smaller one: a bug, never a fallback): those made
    // beside reachability's search, then any other.
    if (run.density_maps.valid())
        for (auto& map : run.density_maps.get())
            r.maps.push_back(std::move(map));
    for (auto& map : density_maps_of(run, density_maps_needed(run), run.options.threads))
        r.maps.push_back(std::move(map));
    // Nothing stands on an overlay terrain (rivers, lakes, waterfalls).
    std::vector<ObjectRule> rules = run.project.recipe.objects;
    for (ObjectRule& rule : rules)
        rule.on &= ~overlay_mask(run.project.recipe);
    r.objects =
        place_objects(r.classes, r.maps, rules, *run.project.sprites, r.seed, run.options.threads);
    if (r.places.empty()) return;
    // Never on a place, road or bridge cell.
    const GridCells<std::uint8_t> taken = place_mask(run.width, run.height, r.places);
    const auto& roads = run.project.recipe.places.roads;
    std::erase_if(r.objects, [&](const PlacedObject& o) {
        const SpriteInfo& info = run.project.sprites->sprites[static_cast<std::size_t>(o.sprite)];
        for (int y = o.y; y < o.y + info.footprint_h; ++y)
            for (int x = o.x; x < o.x + info.footprint_w; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * run.width + x;
                if (taken[i]) return true;
                if (roads && (r.classes.cells()[i] == roads->road_class ||
                              r.classes.cells()[i] == roads->bridge_class))
                    return true;
            }
        return false;
    });
}

// Per rule of the project (file order): the cells it decided, over every layer.
std::vector<RuleHits> rule_hits(const Project& project, const std::vector<LayerRules>& layers,
                                const std::vector<std::vector<std::uint64_t>>& hits_by_layer) {
    std::map<std::pair<std::string, int>, std::uint64_t> hits;
    for (std::size_t li = 0; li < layers.size(); ++li)
        for (std::size_t r = 0; r < layers[li].ordered.size(); ++r) {
            const Rule& rule = layers[li].ordered[r];
            hits[{rule.file, rule.line}] += hits_by_layer[li][r];
        }
    std::vector<RuleHits> out;
    for (const Rule& rule : project.rules)
        out.push_back({rule.file, rule.line, rule.layer, hits[{rule.file, rule.line}]});
    return out;
}

// rules: one tile grid per rule layer, and what the rules decided.
// The atlas and the rule layers as ordered and resolved for this run (once: legalise needs them
// before the rules stage).
void resolve_layers(Run& run) {
    if (run.layers_resolved) return;
    std::vector<int> image_index;
    int error_index = 0;
    run.atlas = build_atlas(run.project.tileset, run.project.images, image_index, error_index);
    run.error_gid = gid_of(error_index);
    run.result.layers = build_layers(run.project, image_index, error_index);
    run.layers_resolved = true;
}

// legalise: [rules] legalise = true rewrites the class grid so the tile rules can draw every cell
// (legalise.hpp), after the passes and the clean-up and before anything stands on the classes.
bool legalises(const Run& run) {
    return run.project.recipe.rules.legalise;
}
void legalise_classes(Run& run) {
    GenerateResult& r = run.result;
    resolve_layers(run);
    const int class_count = static_cast<int>(run.project.recipe.terrain.size());
    if (run.options.keep_details) r.classes_before_legalise = r.classes;
    const std::uint32_t overlays = overlay_mask(run.project.recipe);
    ClassGrid before;
    if (overlays) before = r.classes;
    LegaliseResult legal = legalise(std::move(r.classes), r.layers, class_count,
                                    outside_policy(run.project.recipe), {}, run.options.threads);
    // Overlay cells stay, and no cell becomes one: legalise's changes there are undone.
    if (overlays) {
        ClassId* after = legal.classes.cells().data();
        const ClassId* was = before.cells().data();
        for (std::size_t i = 0; i < before.size(); ++i)
            if (((overlays >> was[i]) | (overlays >> after[i])) & 1u) after[i] = was[i];
    }
    r.classes = std::move(legal.classes);
    keep_river_ends(run);
    r.legalise = legal.report;
    r.class_fractions = class_fractions(r.classes, class_count, run.options.threads);
}

// shares: cells moved back along class borders so every class keeps its share (class_shares.hpp),
// after the passes, clean-up and legalise that moved them; after legalise, only moves that keep
// every cell drawable. The targets: the recipe's shares, or (biome table, or a given class map)
// the fractions the classes stage produced.
bool keeps_shares(const Run& run) {
    return run.project.recipe.classes.keep_shares &&
           (has_class_passes(run) || cleanup_wanted(run.project.recipe) || legalises(run));
}
void keep_shares(Run& run) {
    GenerateResult& r = run.result;
    const Recipe& recipe = run.project.recipe;
    const int class_count = static_cast<int>(recipe.terrain.size());
    std::vector<double> targets = r.classified_fractions;
    if (!recipe.classes.biomes && !run.options.classes)
        for (std::size_t c = 0; c < recipe.terrain.size(); ++c)
            targets[c] = recipe.terrain[c].share;
    // Overlay terrains ([rivers]) have no target: their cells are never taken nor given.
    for (std::size_t c = 0; c < recipe.terrain.size(); ++c)
        if (recipe.terrain[c].overlay) targets[c] = std::numeric_limits<double>::quiet_NaN();
    if (run.options.keep_details) r.classes_before_shares = r.classes;
    std::optional<DrawableCheck> legal;
    ShareMoveCheck allowed;
    if (legalises(run)) {
        legal.emplace(r.layers, class_count, outside_policy(recipe));
        allowed = [&legal](const ClassGrid& g, int x, int y, ClassId to) {
            return legal->keeps_drawable(g, x, y, to);
        };
    }
    // A river's end cell never moves (its region keeps min_area: class_shares.hpp).
    const std::vector<std::uint32_t> ends = river_end_cells(run);
    if (!ends.empty())
        allowed = [&ends, inner = std::move(allowed)](const ClassGrid& g, int x, int y,
                                                      ClassId to) {
            const auto cell =
                static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(g.width()) +
                static_cast<std::uint32_t>(x);
            if (std::binary_search(ends.begin(), ends.end(), cell)) return false;
            return !inner || inner(g, x, y, to);
        };
    r.shares =
        keep_class_shares(r.classes, targets, recipe.cleanup, r.seed, allowed, run.options.threads);
    keep_river_ends(run);
    r.class_fractions = class_fractions(r.classes, class_count, run.options.threads);
}

void apply_rules(Run& run) {
    GenerateResult& r = run.result;
    if (!run.options.keep_details) r.maps.clear(); // the maps have done their work: free them
    resolve_layers(run);
    run.tiles = autotile(r.classes, r.layers, static_cast<int>(run.project.recipe.terrain.size()),
                         outside_policy(run.project.recipe), r.seed, run.error_gid,
                         run.options.threads, run.options.keep_details);
    r.rule_hits = rule_hits(run.project, r.layers, run.tiles.hits);
    r.unmatched = run.tiles.unmatched;
    r.layer_unmatched = std::move(run.tiles.layer_unmatched);
    r.first_unmatched = std::move(run.tiles.first_unmatched);
    r.decisions = std::move(run.tiles.decisions);
}

// The sprite sheet as the map carries it.
void use_sprite_sheet(Map& map, const SpriteSheet& sheet) {
    map.sprites.image = sheet.image;
    map.sprites.sprite_width = sheet.sprite_width;
    map.sprites.sprite_height = sheet.sprite_height;
    map.sprites.columns = sheet.columns;
    map.sprites.names.assign(
        static_cast<std::size_t>(sheet.columns * (sheet.image.height() / sheet.sprite_height)), "");
    for (const SpriteInfo& info : sheet.sprites)
        map.sprites.names[static_cast<std::size_t>(info.index)] = info.name;
}

// The places as the object layer "places": per place an object named and typed by its
// [[places]] name, its sprite (bottom-left at its footprint's bottom-left) or a rectangle over its
// footprint, and the properties index (n-th place of its name), cell_x, cell_y, footprint_w,
// footprint_h, start.
void add_places_layer(Map& map, const SpriteSheet* sheet, const std::vector<Place>& places,
                      const std::vector<PlaceRule>& rules) {
    ObjectLayer layer;
    layer.name = "places";
    const int tw = map.atlas.tile_width, th = map.atlas.tile_height;
    std::vector<int> seen(rules.size(), 0);
    for (const Place& p : places) {
        const PlaceRule& rule = rules[static_cast<std::size_t>(p.rule)];
        const SpriteInfo* info = sheet && !rule.sprite.empty() ? sheet->find(rule.sprite) : nullptr;
        if (info)
            layer.objects.push_back({info->index, p.x * tw, (p.y + p.h) * th});
        else
            layer.objects.push_back({-1, p.x * tw, p.y * th});
        ObjectLayer::Named n;
        n.name = rule.name;
        n.type = rule.name;
        n.width = p.w * tw;
        n.height = p.h * th;
        n.properties = {{"index", "int", std::to_string(seen[static_cast<std::size_t>(p.rule)]++)},
                        {"cell_x", "int", std::to_string(p.x)},
                        {"cell_y", "int", std::to_string(p.y)},
                        {"footprint_w", "int", std::to_string(p.w)},
                        {"footprint_h", "int", std::to_string(p.h)},
                        {"start", "bool", rule.start ? "true" : "false"}};
        layer.named.push_back(std::move(n));
    }
    map.object_layers.push_back(std::move(layer));
}

// map: the Map from the tile grids, the objects and the run's properties.
void assemble_map(Run& run) {
    GenerateResult& r = run.result;
    // What each river ends in, in the final classes (the clean-up may have turned a shore cell
    // it flows into to water).
    if (r.hydrology)
        for (RiverReport& river : r.hydrology->rivers)
            river.ends_in =
                river.end < 0 ? -1 : r.classes.cells()[static_cast<std::size_t>(river.end)];
    Map& map = r.map;
    map.width = r.classes.width();
    map.height = r.classes.height();
    map.atlas = std::move(run.atlas);
    annotate_atlas(map.atlas, r.layers, run.project.recipe);
    map.layers = std::move(run.tiles.layers);
    if (run.project.sprites && !r.objects.empty())
        add_object_layer(map, *run.project.sprites, r.objects);
    if (!r.places.empty()) {
        if (run.project.sprites) use_sprite_sheet(map, *run.project.sprites);
        add_places_layer(map, run.project.sprites ? &*run.project.sprites : nullptr, r.places,
                         run.project.recipe.places.places);
    }
    map.properties = map_properties(
        run.project,
        {r.seed, map.width, map.height, run.options.classes ? nullptr : &r.thresholds, std::nullopt,
         r.hydrology ? static_cast<int>(r.hydrology->rivers.size()) : -1});
}

struct Stage {
    const char* name;                      // its key in the timings
    void (*run)(Run&);                     // reads what earlier stages left, adds its part
    bool (*applies)(const Run&) = nullptr; // nullptr: always
};

// The pipeline, in order.
const Stage kStages[] = {
    {"noise", compute_maps, computes_maps},
    {"hydrology", route_water, has_rivers},
    {"classes", cut_classes},
    {"class_passes", run_passes, has_class_passes},
    {"cleanup", clean_up, cleans_up},
    {"legalise", legalise_classes, legalises},
    {"shares", keep_shares, keeps_shares},
    {"places", make_places, has_places},
    {"roads", make_roads, has_roads},
    {"reachability", make_reachable_stage, has_reachability},
    {"objects", place_sprites, places_objects},
    {"rules", apply_rules},
    {"map", assemble_map},
};

} // namespace

Grid<float> carved_class_map(const Project& project, std::uint64_t seed, int width, int height,
                             int threads) {
    GenerateOptions options;
    options.seed = seed;
    options.width = width;
    options.height = height;
    options.threads = threads;
    options.keep_details = false;
    Run run(project, options);
    run.result.seed = seed;
    run.width = width;
    run.height = height;
    compute_maps(run);
    route_water(run);
    return std::move(map_named(run.result.maps, class_maps(project.recipe).front()));
}

std::vector<std::string> pipeline_stage_names() {
    std::vector<std::string> names;
    for (const Stage& stage : kStages)
        names.emplace_back(stage.name);
    return names;
}

namespace {

// The weighted sum of the evaluation functions [search] weights.
double search_score(const SearchSettings& s, const Fitness& f) {
    return s.weight_accessibility * f.accessibility + s.weight_obstacle_edges * f.obstacle_edges +
           s.weight_fairness * f.fairness;
}

// The project with the search's values written into its recipe (and no [search]).
std::optional<Project> with_values(const Project& project, const std::vector<double>& values) {
    const Recipe& recipe = project.recipe;
    const auto text = apply_search_values(recipe.source, recipe.search->ranges, values);
    if (!text) return std::nullopt;
    Diagnostics diags;
    std::optional<Recipe> changed = parse_recipe(*text, recipe.path, diags);
    if (!changed) return std::nullopt;
    Project p = project;
    // What the project loader resolved stays: the places' footprints from their sprites.
    auto& places = changed->places.places;
    for (std::size_t i = 0; i < places.size() && i < recipe.places.places.size(); ++i) {
        places[i].footprint_w = recipe.places.places[i].footprint_w;
        places[i].footprint_h = recipe.places.places[i].footprint_h;
    }
    p.recipe = std::move(*changed);
    p.recipe.source = recipe.source;
    p.recipe.search.reset();
    return p;
}

std::string score_text(double score) {
    std::ostringstream out;
    out << score;
    return out.str();
}

std::string fitness_text(const Fitness& f) {
    std::ostringstream out;
    out << "accessibility " << f.accessibility << ", obstacle_edges " << f.obstacle_edges
        << ", fairness " << f.fairness;
    return out.str();
}

GenerateResult generate_tries(const Project& project, const GenerateOptions& options);

// The stages from `places` through reachability on a copy of `prefix` (the state the stages
// before `places` left), and the constraints and evaluation functions.
SearchEvaluation evaluate_from(const Project& project, const GenerateOptions& options,
                               const Run& prefix) {
    Run run(project, options);
    run.take_state(prefix);
    bool started = false;
    for (const Stage& stage : kStages) {
        started = started || std::string_view(stage.name) == "places";
        if (!started) continue;
        if (!stage.applies || stage.applies(run)) stage.run(run);
        if (std::string_view(stage.name) == "reachability") break;
    }
    SearchEvaluation e;
    e.met = unmet_constraint(run).empty();
    e.fitness =
        evaluate_fitness(run.result.classes, walkable_table(project.recipe), run_start_cells(run),
                         run.result.places, start_rule(project.recipe), options.threads);
    return e;
}

} // namespace

GenerateResult generate_map(const Project& project, const GenerateOptions& options) {
    const Recipe& recipe = project.recipe;
    if (!recipe.search || options.classes) return generate_tries(project, options);
    // [search]: a deterministic evolutionary loop over the ranges' values (search_parser.hpp).
    const auto t_start = std::chrono::steady_clock::now();
    const SearchSettings& s = *recipe.search;
    const std::uint64_t seed = options.seed.value_or(recipe.map.seed);
    const std::size_t params = s.ranges.size();
    struct Individual {
        std::vector<double> values;
        bool met = false;
        double score = 0;
        Fitness fitness;
    };
    GenerateOptions quiet = options;
    quiet.progress = nullptr;
    quiet.keep_details = false;
    int evaluations = 0;
    // When every searched value is under [[places]], [roads] or [constraints], the stages before
    // `places` give every individual the same state: computed once, copied to each.
    bool places_only = true;
    for (const SearchRange& r : s.ranges) {
        const std::string head = r.path.substr(0, r.path.find_first_of(".["));
        places_only = places_only && (head == "places" || head == "roads" || head == "constraints");
    }
    std::optional<Run> prefix;
    if (places_only) {
        prefix.emplace(project, quiet);
        prefix->result.seed = seed;
        prefix->width = quiet.width.value_or(recipe.map.width);
        prefix->height = quiet.height.value_or(recipe.map.height);
        for (const Stage& stage : kStages) {
            if (std::string_view(stage.name) == "places") break;
            if (!stage.applies || stage.applies(*prefix)) stage.run(*prefix);
        }
    }
    const auto evaluate = [&](Individual& ind) {
        ++evaluations;
        const std::optional<Project> p = with_values(project, ind.values);
        if (!p) return; // cannot happen: both ends of every range were checked
        const SearchEvaluation e =
            prefix ? evaluate_from(*p, quiet, *prefix) : evaluate_constraints(*p, quiet, seed);
        ind.met = e.met;
        ind.fitness = e.fitness;
        ind.score = search_score(s, e.fitness);
    };
    // A uniform number in [0, 1) from (seed, generation, individual, parameter): no state.
    const auto uniform = [&](int generation, int individual, std::size_t param) {
        return static_cast<double>(hash_values(seed, 0x65766f6c7665ull /* "evolve" */, generation,
                                               individual, param) >>
                                   11) *
               0x1.0p-53;
    };
    const auto settle = [&](const SearchRange& r, double v) {
        v = std::clamp(v, r.low, r.high);
        return r.integer ? static_cast<double>(std::llround(v)) : v;
    };
    // Better: constraints met first, then the higher score; ties keep the earlier individual.
    const auto better = [](const Individual& a, const Individual& b) {
        if (a.met != b.met) return a.met;
        return a.score > b.score;
    };
    std::vector<Individual> population;
    for (int i = 0; i < s.population; ++i) {
        Individual ind;
        for (std::size_t k = 0; k < params; ++k) {
            const SearchRange& r = s.ranges[k];
            ind.values.push_back(i == 0 ? r.initial
                                        : settle(r, r.low + uniform(0, i, k) * (r.high - r.low)));
        }
        evaluate(ind);
        population.push_back(std::move(ind));
    }
    const int elites = (s.population + 1) / 2;
    for (int g = 0;; ++g) {
        std::stable_sort(population.begin(), population.end(), better);
        const Individual& best = population.front();
        if (options.progress) {
            std::string line = "search generation " + std::to_string(g + 1) + "/" +
                               std::to_string(s.generations) + ": best score " +
                               score_text(best.score) + " (" + fitness_text(best.fitness) + ")" +
                               (best.met ? "" : ", constraints missed");
            for (std::size_t k = 0; k < params; ++k)
                line += ", " + s.ranges[k].path + " = " +
                        search_value_text(s.ranges[k], best.values[k]);
            options.progress(line);
        }
        if (g + 1 >= s.generations) break;
        // The elites stay (not evaluated again); each other slot is a mutated elite: every value
        // moves by up to a quarter of its range either way.
        population.resize(static_cast<std::size_t>(elites));
        for (int i = elites; i < s.population; ++i) {
            Individual child;
            const Individual& parent = population[static_cast<std::size_t>((i - elites) % elites)];
            for (std::size_t k = 0; k < params; ++k) {
                const SearchRange& r = s.ranges[k];
                const double step = (uniform(g + 1, i, k) - 0.5) * 0.5 * (r.high - r.low);
                child.values.push_back(settle(r, parent.values[k] + step));
            }
            evaluate(child);
            population.push_back(std::move(child));
        }
    }
    const Individual& best = population.front();
    std::optional<Project> kept = with_values(project, best.values);
    GenerateResult result = generate_tries(kept ? *kept : project, options);
    SearchReport& report = result.search;
    report.ran = true;
    report.generations = s.generations;
    report.population = s.population;
    report.evaluations = evaluations;
    report.score = search_score(s, result.constraints.fitness);
    for (std::size_t k = 0; k < params; ++k) {
        report.values.push_back({s.ranges[k].path, best.values[k]});
        result.map.properties.push_back({"search." + s.ranges[k].path,
                                         s.ranges[k].integer ? "int" : "float",
                                         search_value_text(s.ranges[k], best.values[k])});
    }
    result.constraints.asked = true;
    if (!result.timings.empty() && result.timings.back().stage == "total")
        result.timings.back().ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_start)
                .count();
    return result;
}

namespace {

GenerateResult generate_tries(const Project& project, const GenerateOptions& options) {
    const auto t_start = std::chrono::steady_clock::now();
    const Recipe& recipe = project.recipe;
    const std::uint64_t base_seed = options.seed.value_or(recipe.map.seed);
    const bool asked = !recipe.places.places.empty() || recipe.places.constraints.has_value();
    const int tries = recipe.places.constraints ? recipe.places.constraints->tries : 1;
    std::size_t constrained = 0; // stages up to and including the last constrained one
    for (std::size_t i = 0; i < std::size(kStages); ++i)
        if (std::string_view(kStages[i].name) == "reachability") constrained = i + 1;
    for (int t = 0;; ++t) {
        Run run(project, options);
        run.objects_follow = true;
        // Try 0 keeps the seed; try t a derived one (0..2^63-1, as [map] seed allows).
        run.result.seed = t == 0 ? base_seed : hash_values(base_seed, 0x736561726368ull, t) >> 1;
        run.width =
            options.classes ? options.classes->width() : options.width.value_or(recipe.map.width);
        run.height = options.classes ? options.classes->height()
                                     : options.height.value_or(recipe.map.height);
        std::size_t i = 0;
        for (; i < constrained; ++i)
            if (!kStages[i].applies || kStages[i].applies(run))
                run_timed(run.result.timings, kStages[i].name, [&] { kStages[i].run(run); });
        ConstraintsReport& c = run.result.constraints;
        c.asked = asked;
        c.tries = t + 1;
        // The evaluation functions read only the classes and the places, which no later stage
        // changes, so they run beside `objects` and `rules` (on a thread of their own when there
        // are two or more; else when collected) and are collected before `map`.
        std::future<Fitness> fitness;
        if (asked) {
            // The check and the evaluation functions, timed as a step of their own (with the
            // wait for the evaluation, if any, added when it is collected).
            run_timed(run.result.timings, "constraints", [&] {
                c.unmet = unmet_constraint(run);
                c.met = c.unmet.empty();
            });
            if (!c.met && t + 1 < tries) {
                if (options.progress)
                    options.progress("try " + std::to_string(t + 1) + "/" + std::to_string(tries) +
                                     " seed " + std::to_string(run.result.seed) + ": " + c.unmet);
                continue;
            }
            const int fitness_threads = std::max(1, options.threads / 2);
            fitness = start_task(options.threads, [&run, &recipe, fitness_threads] {
                return evaluate_fitness(run.result.classes, walkable_table(recipe),
                                        run_start_cells(run), run.result.places, start_rule(recipe),
                                        fitness_threads);
            });
        }
        const auto collect_fitness = [&] {
            if (!fitness.valid()) return;
            const auto t0 = std::chrono::steady_clock::now();
            c.fitness = fitness.get();
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            for (StageTiming& timing : run.result.timings)
                if (timing.stage == "constraints") timing.ms += ms;
        };
        for (; i < std::size(kStages); ++i) {
            if (std::string_view(kStages[i].name) == "map") collect_fitness();
            if (!kStages[i].applies || kStages[i].applies(run))
                run_timed(run.result.timings, kStages[i].name, [&] { kStages[i].run(run); });
        }
        collect_fitness(); // (if no stage is named "map")
        run.result.timings.push_back({"total", std::chrono::duration<double, std::milli>(
                                                   std::chrono::steady_clock::now() - t_start)
                                                   .count()});
        return std::move(run.result);
    }
}

} // namespace

SearchEvaluation evaluate_constraints(const Project& project, const GenerateOptions& options,
                                      std::uint64_t seed) {
    const Recipe& recipe = project.recipe;
    Run run(project, options);
    run.result.seed = seed;
    run.width = options.width.value_or(recipe.map.width);
    run.height = options.height.value_or(recipe.map.height);
    for (const Stage& stage : kStages) {
        if (!stage.applies || stage.applies(run)) stage.run(run);
        if (std::string_view(stage.name) == "reachability") break;
    }
    SearchEvaluation e;
    e.met = unmet_constraint(run).empty();
    e.fitness = evaluate_fitness(run.result.classes, walkable_table(recipe), run_start_cells(run),
                                 run.result.places, start_rule(recipe), options.threads);
    return e;
}

std::vector<ClassStep> class_history(const Project& project, const GenerateResult& result, int x,
                                     int y) {
    if (project.class_passes.empty() || result.classes_before_passes.empty()) return {};
    return replay_class_history(result.classes_before_passes, project.class_passes,
                                result.pass_runs, static_cast<int>(project.recipe.terrain.size()),
                                outside_policy(project.recipe), result.seed, x, y);
}

std::vector<std::string> class_change_lines(const Project& project, const GenerateResult& result,
                                            int x, int y) {
    std::vector<std::string> lines;
    const auto& terrain = project.recipe.terrain;
    const auto named = [&](ClassId c) {
        return terrain[c].name + " (" + std::string(1, terrain[c].symbol) + ")";
    };
    const ClassGrid& first =
        !result.classes_before_passes.empty()     ? result.classes_before_passes
        : !result.classes_before_cleanup.empty()  ? result.classes_before_cleanup
        : !result.classes_before_legalise.empty() ? result.classes_before_legalise
        : !result.classes_before_shares.empty()   ? result.classes_before_shares
                                                  : result.classes_before_roads;
    if (first.empty() || !first.contains(x, y)) return place_road_lines(project, result, x, y);
    lines.push_back("classified as " + named(first(x, y)));
    if (!result.classes_before_passes.empty())
        for (std::string& line : class_history_lines(project.class_passes, result.pass_runs,
                                                     class_history(project, result, x, y),
                                                     terrain_symbols(project.recipe)))
            lines.push_back("class pass " + std::move(line));
    // A stage that rewrote the grid: the cell's class before it, and after it (the grid the next
    // such stage started from, or the final one).
    const std::pair<const char*, const ClassGrid*> stages[] = {
        {"clean-up (min_width, min_area)", &result.classes_before_cleanup},
        {"legalise", &result.classes_before_legalise},
        {"shares (keep_shares)", &result.classes_before_shares},
        {"roads and passes", &result.classes_before_roads},
    };
    for (std::size_t i = 0; i < std::size(stages); ++i) {
        const ClassGrid& before = *stages[i].second;
        if (before.empty()) continue;
        const ClassGrid* after = &result.classes;
        for (std::size_t j = i + 1; j < std::size(stages); ++j)
            if (!stages[j].second->empty()) {
                after = stages[j].second;
                break;
            }
        const ClassId from = before(x, y), to = (*after)(x, y);
        lines.push_back(std::string(stages[i].first) + ": " +
                        (from == to ? "keeps " + named(to) : named(from) + " -> " + named(to)));
    }
    if (result.hydrology && result.classes.contains(x, y))
        for (std::string& line : hydrology_lines(project, result, x, y))
            lines.push_back(std::move(line));
    for (std::string& line : place_road_lines(project, result, x, y))
        lines.push_back(std::move(line));
    return lines;
}

std::vector<std::string> place_road_lines(const Project& project, const GenerateResult& result,
                                          int x, int y) {
    std::vector<std::string> lines;
    if (!result.classes.contains(x, y)) return lines;
    const auto& rules = project.recipe.places.places;
    const auto& places = result.places;
    // A place as the TMX names it: its [[places]] name and index (n-th place of that name).
    const auto place_name = [&](int pi) {
        if (pi < 0 || pi >= static_cast<int>(places.size())) return std::string("the network");
        const int rule = places[static_cast<std::size_t>(pi)].rule;
        int index = 0;
        for (int k = 0; k < pi; ++k)
            index += places[static_cast<std::size_t>(k)].rule == rule ? 1 : 0;
        return "'" + rules[static_cast<std::size_t>(rule)].name + "' (index " +
               std::to_string(index) + ")";
    };
    const auto at = [](int px, int py) {
        return "(" + std::to_string(px) + ", " + std::to_string(py) + ")";
    };
    const auto cost_text = [](std::uint64_t cost) {
        std::ostringstream out;
        out << static_cast<double>(cost) / kCostScale;
        return out.str();
    };
    for (std::size_t pi = 0; pi < places.size(); ++pi) {
        const Place& p = places[pi];
        if (x < p.x || y < p.y || x >= p.x + p.w || y >= p.y + p.h) continue;
        const PlaceRule& rule = rules[static_cast<std::size_t>(p.rule)];
        int index = 0, of = 0;
        for (std::size_t k = 0; k < places.size(); ++k)
            if (places[k].rule == p.rule) {
                index += k < pi ? 1 : 0;
                ++of;
            }
        lines.push_back("place '" + rule.name + "' (index " + std::to_string(index) + " of " +
                        std::to_string(of) + "): cell " + at(p.x, p.y) + ", footprint " +
                        std::to_string(p.w) + "x" + std::to_string(p.h) +
                        (rule.sprite.empty() ? std::string() : ", sprite " + rule.sprite) +
                        (rule.start ? ", start" : ""));
    }
    const auto cell = static_cast<std::uint32_t>(y * result.classes.width() + x);
    const auto& roads = result.roads.roads;
    bool on_road = false;
    for (std::size_t ri = 0; ri < roads.size(); ++ri) {
        const Road& r = roads[ri];
        const auto it = std::find(r.cells.begin(), r.cells.end(), cell);
        if (it == r.cells.end()) continue;
        on_road = true;
        std::size_t bridges = 0;
        for (std::uint8_t b : r.bridged)
            bridges += b;
        const bool bridge = r.bridged[static_cast<std::size_t>(it - r.cells.begin())] != 0;
        lines.push_back(std::string(bridge ? "bridge on road " : "road ") + std::to_string(ri + 1) +
                        " of " + std::to_string(roads.size()) + (r.loop ? " (a loop)" : "") +
                        ": from " + place_name(r.network_place) + " to " + place_name(r.to_place) +
                        ", " + std::to_string(r.cells.size()) + " cells (" +
                        std::to_string(bridges) + " bridge cells), cost " + cost_text(r.cost));
    }
    const auto& settings = project.recipe.places.roads;
    const ClassId c = result.classes(x, y);
    if (!on_road && settings && result.reach.carved > 0) {
        const ClassId road = settings->road_class, bridge = settings->bridge_class;
        if (c == road || c == bridge)
            lines.push_back(std::string(c == bridge ? "bridge" : "pass") +
                            " carved by [constraints] walkable_regions = 1 (policy connect): "
                            "joins walkable regions");
    }
    return lines;
}

std::vector<std::string> hydrology_lines(const Project& project, const GenerateResult& result,
                                         int x, int y) {
    std::vector<std::string> lines;
    if (!result.hydrology || !result.classes.contains(x, y)) return lines;
    const std::string symbols = terrain_symbols(project.recipe);
    const auto cell = static_cast<std::uint32_t>(y * result.classes.width() + x);
    const auto at = [](int px, int py) {
        return "(" + std::to_string(px) + ", " + std::to_string(py) + ")";
    };
    const auto& rivers = result.hydrology->rivers;
    for (std::size_t i = 0; i < rivers.size(); ++i) {
        const RiverReport& r = rivers[i];
        bool in = std::find(r.stem.begin(), r.stem.end(), cell) != r.stem.end();
        for (const auto& b : r.banks)
            in = in || b.cell == cell;
        if (!in) continue;
        lines.push_back(
            "river " + std::to_string(i + 1) + " of " + std::to_string(rivers.size()) +
            ": source " + at(r.source_x, r.source_y) + ", mouth " + at(r.mouth_x, r.mouth_y) +
            ", length " + std::to_string(r.length) + ", width up to " +
            std::to_string(r.max_width) + ", ends in " +
            (r.ends_in < 0
                 ? std::string("the map edge")
                 : "'" + std::string(1, symbols[static_cast<std::size_t>(r.ends_in)]) + "'"));
    }
    const RiverSettings& s = *project.recipe.rivers;
    if (s.lake_symbol && result.classes(x, y) == symbols.find(s.lake_symbol))
        lines.push_back("lake (a filled depression of at least " + std::to_string(s.lake_min_area) +
                        " cells)");
    return lines;
}

} // namespace tilegen
