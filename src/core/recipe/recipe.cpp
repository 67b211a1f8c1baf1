#include "core/recipe/recipe.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/recipe/map_settings_parser.hpp"
#include "core/toml_reader.hpp"

namespace tilegen {

namespace {
SourcePosition position_of(const toml::source_region& r) {
    return {static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
}

// A terrain symbol of the recipe: its class index, or -1.
int class_of_symbol(const Recipe& recipe, char symbol) {
    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
        if (recipe.terrain[i].symbol == symbol) return static_cast<int>(i);
    return -1;
}

// An integer, or an array [min, max] of two, in min..max with first <= second.
void parse_range(TomlReader& reader, const toml::table& t, std::string_view key, int lo, int hi,
                 int& first, int& second) {
    const toml::node* n = t.get(key);
    if (!n) return;
    const std::string name = "'rivers." + std::string(key) + "'";
    const auto value = [&](const toml::node& v, int& out) {
        if (const auto* i = v.as_integer(); i && i->get() >= lo && i->get() <= hi) {
            out = static_cast<int>(i->get());
            return true;
        }
        reader.error(v, name + " must be whole numbers from " + std::to_string(lo) + " to " +
                            std::to_string(hi));
        return false;
    };
    if (n->is_integer()) {
        if (value(*n, first)) second = first;
        return;
    }
    const toml::array* a = n->as_array();
    if (!a || a->size() != 2) {
        reader.error(*n, name + " must be a whole number or [min, max]");
        return;
    }
    int a0 = first, a1 = second;
    if (value(*a->get(0), a0) && value(*a->get(1), a1)) {
        if (a0 > a1)
            reader.error(*n, name + " is [" + std::to_string(a0) + ", " + std::to_string(a1) +
                                 "]: the first number (the minimum) must not exceed the second");
        first = a0;
        second = std::max(a0, a1);
    }
}

// [rivers]: the hydrology stage's settings; marks the terrains it writes as overlays.
void parse_rivers(TomlReader& reader, const toml::table& root, Recipe& recipe,
                  const std::vector<const toml::table*>& missing_share) {
    const toml::table* rv = reader.table(root, "rivers", "");
    const bool biomes = root.get("biomes") != nullptr;
    std::vector<char> used_in_table;
    if (const toml::table* b = biomes ? root.get("biomes")->as_table() : nullptr)
        if (const toml::array* rows = b->get("table") ? b->get("table")->as_array() : nullptr)
            for (const toml::node& row : *rows)
                if (const auto* str = row.as_string())
                    for (char c : str->get())
                        used_in_table.push_back(c);
    if (rv) {
        reader.reject_unknown_keys(*rv, "rivers",
                                   {"method", "count", "threshold", "min_length", "width", "lakes",
                                    "carve", "rain", "class", "lake_class", "waterfall_class",
                                    "into", "waterfall_drop", "attempts", "widen", "slope"});
        RiverSettings s;
        s.line = static_cast<int>(rv->source().begin.line);
        s.column = static_cast<int>(rv->source().begin.column);
        s.method = reader.choice(*rv, "method", "rivers", RiverMethod::flow,
                                 {{"flow", RiverMethod::flow}, {"agents", RiverMethod::agents}});
        s.has_count = rv->get("count") != nullptr;
        parse_range(reader, *rv, "count", 0, 4096, s.count_min, s.count_max);
        s.threshold = reader.number(*rv, "threshold", "rivers", s.threshold, 1, 1e9);
        s.min_length =
            static_cast<int>(reader.integer(*rv, "min_length", "rivers", s.min_length, 1, 65536));
        parse_range(reader, *rv, "width", 1, 16, s.width_min, s.width_max);
        if (const toml::table* lakes = reader.table(*rv, "lakes", "rivers")) {
            reader.reject_unknown_keys(*lakes, "rivers.lakes", {"min_area"});
            s.lake_min_area = static_cast<int>(
                reader.integer(*lakes, "min_area", "rivers.lakes", 0, 0, 100000000));
        }
        s.carve = reader.number(*rv, "carve", "rivers", 0, 0, 1);
        s.rain = reader.string(*rv, "rain", "rivers", "");
        if (!s.rain.empty() && !find_map(recipe, s.rain))
            reader.error(TomlReader::where(*rv, "rain"), "'rivers.rain' names map '" + s.rain +
                                                             "', which the recipe does not define");
        s.waterfall_drop = reader.number(*rv, "waterfall_drop", "rivers", s.waterfall_drop, 0, 1);
        s.agent_attempts = static_cast<int>(
            reader.integer(*rv, "attempts", "rivers", s.agent_attempts, 1, 1000000));
        s.agent_widen = reader.number(*rv, "widen", "rivers", s.agent_widen, 0, 1);
        s.agent_slope = reader.number(*rv, "slope", "rivers", s.agent_slope, 0, 0.1);
        // The overlay terrains: declared [[terrain]] without a share (percentile recipes) or
        // used by no biome table row.
        std::vector<char> overlays;
        const auto overlay = [&](const char* key, char fallback) -> char {
            const std::optional<std::string> v = reader.string(*rv, key, "rivers");
            if (!v) return fallback;
            const std::string name = "'rivers." + std::string(key) + "'";
            const auto at = TomlReader::where(*rv, key);
            if (v->size() != 1) {
                reader.error(at, name + " must be one terrain symbol, not \"" + *v + "\"");
                return fallback;
            }
            const char c = (*v)[0];
            const int id = class_of_symbol(recipe, c);
            if (id < 0) {
                reader.error(at, name + " is '" + *v + "', which no [[terrain]] has");
                return fallback;
            }
            const bool has_share =
                !biomes &&
                std::find_if(missing_share.begin(), missing_share.end(), [&](const toml::table* t) {
                    const auto* sym = t->get("symbol");
                    return sym && sym->as_string() && sym->as_string()->get() == *v;
                }) == missing_share.end();
            const bool in_table =
                std::find(used_in_table.begin(), used_in_table.end(), c) != used_in_table.end();
            if (has_share || in_table) {
                reader.error(at, name + " is '" + *v + "' (terrain '" +
                                     recipe.terrain[static_cast<std::size_t>(id)].name +
                                     "'), which is not an overlay terrain: declare it " +
                                     (biomes ? "in no biome table row" : "without a share"));
                return fallback;
            }
            if (std::find(overlays.begin(), overlays.end(), c) != overlays.end())
                reader.error(at, name + " is '" + *v + "', which another key of [rivers] names");
            overlays.push_back(c);
            recipe.terrain[static_cast<std::size_t>(id)].overlay = true;
            return c;
        };
        if (!rv->get("class")) {
            reader.error(rv->source(), "[rivers] needs 'class': the overlay terrain rivers are "
                                       "written as, e.g. class = \"~\"");
            s.river_symbol = 0;
        } else {
            s.river_symbol = overlay("class", 0);
        }
        s.lake_symbol = overlay("lake_class", 0);
        s.waterfall_symbol = overlay("waterfall_class", 0);
        if (s.lake_min_area > 0 && !s.lake_symbol)
            reader.error(
                TomlReader::where(*rv, "lakes"),
                "'rivers.lakes' keeps lakes, which need 'lake_class' (an overlay terrain)");
        s.into = reader.string(*rv, "into", "rivers", "");
        for (char c : s.into) {
            const int id = class_of_symbol(recipe, c);
            if (id < 0 || recipe.terrain[static_cast<std::size_t>(id)].overlay)
                reader.error(TomlReader::where(*rv, "into"),
                             std::string("'rivers.into' uses symbol '") + c +
                                 "', which is no [[terrain]] cut from the heightfield");
        }
        if (s.into.empty() && !recipe.terrain.empty())
            s.into = std::string(1, recipe.terrain[0].symbol);
        recipe.rivers = s;
    }
    // Every terrain without a share is an overlay terrain: never cut from the heightfield; a
    // stage that writes it ([rivers], the roads) names it, else it appears only in a given
    // class map (as a hand-drawn --classes map may use it).
    for (const toml::table* t : missing_share) {
        const auto* sym = t->get("symbol");
        const int id = sym && sym->as_string() && sym->as_string()->get().size() == 1
                           ? class_of_symbol(recipe, sym->as_string()->get()[0])
                           : -1;
        if (id >= 0) recipe.terrain[static_cast<std::size_t>(id)].overlay = true;
    }
}

} // namespace

std::uint32_t overlay_mask(const Recipe& recipe) {
    std::uint32_t m = 0;
    for (std::size_t i = 0; i < recipe.terrain.size() && i < 32; ++i)
        if (recipe.terrain[i].overlay) m |= 1u << i;
    return m;
}

const MapDefinition* find_map(const Recipe& recipe, const std::string& name) {
    for (const auto& m : recipe.maps)
        if (m.name == name) return &m;
    return nullptr;
}

std::string terrain_symbols(const Recipe& recipe) {
    std::string s;
    for (const TerrainClass& t : recipe.terrain)
        s += t.symbol;
    return s;
}

bool is_valid_symbol(char c) {
    if (c <= ' ' || c >= 0x7f) return false;
    return std::string_view("?![]@*#/\\").find(c) == std::string_view::npos;
}

std::optional<Recipe> parse_recipe(std::string_view text, const std::string& path,
                                   Diagnostics& diags) {
    const std::size_t errors_before = diags.size();
    TomlReader reader(path, diags);
    auto doc = reader.parse(text);
    if (!doc) return std::nullopt;
    const toml::table& root = *doc;

    Recipe recipe;
    recipe.path = path;
    recipe.name = std::filesystem::path(path).stem().string();
    reader.reject_unknown_keys(root, "",
                               {"map", "noise", "maps", "classes", "biomes", "terrain", "rules",
                                "tileset", "objects", "output", "rivers", "places", "roads",
                                "constraints", "search", "screens"});

    if (const toml::table* map = reader.table(root, "map", "")) {
        reader.reject_unknown_keys(*map, "map", {"width", "height", "seed"});
        recipe.map.width = static_cast<int>(reader.integer(*map, "width", "map", 128, 1, 65536));
        recipe.map.height = static_cast<int>(reader.integer(*map, "height", "map", 128, 1, 65536));
        recipe.map.seed =
            static_cast<std::uint64_t>(reader.integer(*map, "seed", "map", 1, 0, INT64_MAX));
    }

    // Maps: [noise] is "elevation"; [maps.NAME] add more (a [maps.elevation] replaces [noise]'s
    // role).
    if (const toml::table* noise = reader.table(root, "noise", ""))
        recipe.maps.push_back(parse_map_definition(reader, *noise, "elevation", "noise"));
    if (const toml::table* maps = reader.table(root, "maps", "")) {
        for (const auto& [key, node] : *maps) {
            const std::string name(key.str());
            const toml::table* t = node.as_table();
            if (!t) {
                reader.error(node, "'maps." + name + "' must be a table");
                continue;
            }
            if (find_map(recipe, name)) {
                reader.error(key.source(),
                             "map '" + name + "' is defined twice (" +
                                 (name == "elevation" ? "[noise] is the map 'elevation'" : "") +
                                 ")");
                continue;
            }
            recipe.maps.push_back(parse_map_definition(reader, *t, name, "maps." + name));
        }
    }
    // The elevation map always exists ([noise] may be left out: harmonic noise with its defaults).
    if (!find_map(recipe, "elevation"))
        recipe.maps.insert(recipe.maps.begin(), MapDefinition{"elevation", {}, 0, 0});

    // [[terrain]]
    std::vector<const toml::table*> missing_share; // percentile terrains without a share
    if (const toml::node* node = root.get("terrain")) {
        const toml::array* arr = node->as_array();
        if (!arr || !arr->is_array_of_tables()) {
            reader.error(*node,
                         "'terrain' must be an array of tables: write each class as [[terrain]]");
        } else {
            std::set<char> symbols;
            std::set<std::string> names;
            double total = 0;
            for (const toml::node& item : *arr) {
                const toml::table& t = *item.as_table();
                reader.reject_unknown_keys(
                    t, "terrain",
                    {"name", "symbol", "share", "color", "walkable", "min_area", "min_width"});
                TerrainClass cls;
                if (!t.get("name")) reader.error(t, "terrain class has no 'name'");
                if (!t.get("symbol")) reader.error(t, "terrain class has no 'symbol'");
                // Without a share: an overlay terrain when [rivers] names it (checked below).
                if (!t.get("share") && !root.get("biomes")) missing_share.push_back(&t);
                cls.name = reader.string(t, "name", "terrain", "");
                std::string symbol = reader.string(t, "symbol", "terrain", "");
                cls.share = reader.number(t, "share", "terrain", 0, 0, 1);
                if (t.get("name") && cls.name.empty())
                    reader.error(TomlReader::where(t, "name"), "terrain name is empty");
                if (!cls.name.empty() && !names.insert(cls.name).second)
                    reader.error(TomlReader::where(t, "name"),
                                 "duplicate terrain name '" + cls.name + "'");
                if (t.get("symbol")) {
                    if (symbol.size() != 1 || !is_valid_symbol(symbol[0])) {
                        reader.error(TomlReader::where(t, "symbol"),
                                     "terrain symbol must be one printable character other than ? "
                                     "! [ ] @ * # / \\ "
                                     "(got \"" +
                                         symbol + "\")");
                    } else {
                        cls.symbol = symbol[0];
                        if (!symbols.insert(cls.symbol).second)
                            reader.error(TomlReader::where(t, "symbol"),
                                         "duplicate terrain symbol '" + symbol + "'");
                    }
                }
                if (t.get("color")) {
                    const std::string c = reader.string(t, "color", "terrain", "");
                    const bool hex =
                        c.size() == 7 && c[0] == '#' &&
                        c.find_first_not_of("0123456789abcdefABCDEF", 1) == std::string::npos;
                    if (!hex)
                        reader.error(TomlReader::where(t, "color"),
                                     "terrain color must be \"#rrggbb\", not \"" + c + "\"");
                    else
                        cls.color =
                            static_cast<std::uint32_t>(std::stoul(c.substr(1), nullptr, 16));
                }
                if (const toml::node* walkable = t.get("walkable")) {
                    if (const auto* b = walkable->as_boolean())
                        cls.walkable = b->get();
                    else
                        reader.error(*walkable, "'terrain.walkable' must be true or false, not " +
                                                    toml_type_name(walkable->type()));
                }
                ClassCleanup cleanup; // built-in clean-up (core/classes/class_cleanup.hpp)
                cleanup.min_area =
                    static_cast<int>(reader.integer(t, "min_area", "terrain", 0, 0, kMaxMinArea));
                cleanup.min_width =
                    static_cast<int>(reader.integer(t, "min_width", "terrain", 0, 0, kMaxMinWidth));
                recipe.cleanup.push_back(cleanup);
                total += cls.share;
                recipe.terrain.push_back(cls);
                recipe.terrain_positions.push_back(position_of(t.source()));
            }
            if (recipe.terrain.size() < 2 ||
                recipe.terrain.size() > static_cast<std::size_t>(kMaxClasses))
                reader.error(*node, "a recipe needs 2 to " + std::to_string(kMaxClasses) +
                                        " terrain classes, found " +
                                        std::to_string(recipe.terrain.size()));
            else if (!root.get("biomes") && std::abs(total - 1.0) > 1e-6)
                reader.error(*node,
                             "terrain shares add up to " + std::to_string(total) + ", expected 1");
        }
    } else {
        reader.error(root.source(), "recipe has no [[terrain]] classes");
    }

    // [classes] and [biomes]
    if (const toml::table* classes = reader.table(root, "classes", "")) {
        reader.reject_unknown_keys(*classes, "classes", {"map", "keep_shares"});
        recipe.classes.map = reader.string(*classes, "map", "classes", "elevation");
        recipe.classes.keep_shares = reader.boolean(*classes, "keep_shares", "classes", true);
        recipe.classes.position = position_of(TomlReader::where(*classes, "map"));
        if (!find_map(recipe, recipe.classes.map))
            reader.error(TomlReader::where(*classes, "map"),
                         "'classes.map' names map '" + recipe.classes.map +
                             "', which the recipe does not define");
    }
    if (const toml::table* biomes = reader.table(root, "biomes", "")) {
        reader.reject_unknown_keys(*biomes, "biomes",
                                   {"rows", "row_shares", "columns", "column_shares", "table"});
        BiomeTable b;
        b.position = position_of(biomes->source());
        b.rows_map = reader.string(*biomes, "rows", "biomes", "elevation");
        b.columns_map = reader.string(*biomes, "columns", "biomes", "moisture");
        for (const char* key : {"rows", "columns"}) {
            const std::string& name = std::string(key) == "rows" ? b.rows_map : b.columns_map;
            if (!find_map(recipe, name))
                reader.error(TomlReader::where(*biomes, key),
                             "'biomes." + std::string(key) + "' names map '" + name +
                                 "', which the recipe does not define");
        }
        auto shares = [&](const char* key, std::vector<double>& out) {
            const toml::node* n = biomes->get(key);
            const toml::array* arr = n ? n->as_array() : nullptr;
            if (!arr || arr->empty()) {
                reader.error(n ? n->source() : biomes->source(),
                             "'biomes." + std::string(key) +
                                 "' must be a non-empty array of fractions adding up to 1");
                return;
            }
            double total = 0;
            for (const toml::node& v : *arr) {
                double x = v.is_integer()          ? static_cast<double>(v.as_integer()->get())
                           : v.is_floating_point() ? v.as_floating_point()->get()
                                                   : -1;
                if (!(x >= 0 && x <= 1)) reader.error(v, "a share must be a number from 0 to 1");
                out.push_back(x);
                total += x;
            }
            if (std::abs(total - 1.0) > 1e-6)
                reader.error(*n, "'biomes." + std::string(key) + "' adds up to " +
                                     std::to_string(total) + ", expected 1");
        };
        shares("row_shares", b.row_shares);
        shares("column_shares", b.column_shares);
        const toml::node* tn = biomes->get("table");
        const toml::array* ta = tn ? tn->as_array() : nullptr;
        if (!ta) {
            reader.error(tn ? tn->source() : biomes->source(),
                         "'biomes.table' must be an array of strings: one per row band, one symbol "
                         "per column band");
        } else {
            if (ta->size() != b.row_shares.size())
                reader.error(*tn, "'biomes.table' has " + std::to_string(ta->size()) +
                                      " rows, expected " + std::to_string(b.row_shares.size()) +
                                      " (one per row share)");
            for (const toml::node& row : *ta) {
                const auto* str = row.as_string();
                if (!str) {
                    reader.error(row, "a biome table row must be a string of terrain symbols");
                    continue;
                }
                const std::string row_text = str->get();
                if (row_text.size() != b.column_shares.size())
                    reader.error(row, "biome table row \"" + row_text + "\" has " +
                                          std::to_string(row_text.size()) + " symbols, expected " +
                                          std::to_string(b.column_shares.size()) +
                                          " (one per column share)");
                for (char c : row_text) {
                    bool known = false;
                    for (const auto& t : recipe.terrain)
                        known = known || t.symbol == c;
                    if (!known)
                        reader.error(row, std::string("biome table uses symbol '") + c +
                                              "', which no [[terrain]] has");
                }
                b.table.push_back(row_text);
            }
        }
        recipe.classes.biomes = std::move(b);
    }

    parse_rivers(reader, root, recipe, missing_share);

    // [[objects]]
    if (const toml::node* node = root.get("objects")) {
        const toml::array* arr = node->as_array();
        if (!arr || !arr->is_array_of_tables()) {
            reader.error(*node, "'objects' must be an array of tables: write each as [[objects]]");
        } else {
            for (const toml::node& item : *arr) {
                const toml::table& t = *item.as_table();
                reader.reject_unknown_keys(
                    t, "objects", {"sprite", "on", "density", "threshold", "chance", "spacing"});
                ObjectRule rule;
                rule.line = static_cast<int>(t.source().begin.line);
                rule.column = static_cast<int>(t.source().begin.column);
                // sprite = "oak" | ["oak", "pine"] | { oak = 2, pine = 1 } (weights)
                if (const toml::node* sp = t.get("sprite")) {
                    if (const auto* str = sp->as_string()) {
                        rule.sprites.push_back(str->get());
                        rule.weights.push_back(1);
                    } else if (const auto* a = sp->as_array()) {
                        for (const toml::node& e : *a) {
                            if (const auto* es = e.as_string()) {
                                rule.sprites.push_back(es->get());
                                rule.weights.push_back(1);
                            } else {
                                reader.error(e, "a sprite name must be a string");
                            }
                        }
                    } else if (const auto* wt = sp->as_table()) {
                        for (const auto& [k, v] : *wt) {
                            double weight = v.is_integer()
                                                ? static_cast<double>(v.as_integer()->get())
                                            : v.is_floating_point() ? v.as_floating_point()->get()
                                                                    : -1;
                            if (!(weight >= 0 && weight <= 1e9))
                                reader.error(v, "a sprite weight must be a number from 0 to 1e9");
                            rule.sprites.emplace_back(k.str());
                            rule.weights.push_back(weight);
                        }
                    } else {
                        reader.error(*sp, "'objects.sprite' must be a sprite name, a list of names "
                                          "or a table of weights");
                    }
                    if (rule.sprites.empty()) reader.error(*sp, "'objects.sprite' names no sprite");
                } else {
                    reader.error(t, "[[objects]] needs 'sprite' (a name from the sprite sheet)");
                }
                if (!t.get("on"))
                    reader.error(
                        t,
                        "[[objects]] needs 'on': the terrain symbols it may stand on, e.g. \"gf\"");
                const std::string on = reader.string(t, "on", "objects", "");
                for (char c : on) {
                    bool found = false;
                    for (std::size_t i = 0; i < recipe.terrain.size(); ++i)
                        if (recipe.terrain[i].symbol == c) {
                            if (i < static_cast<std::size_t>(kMaxClasses)) rule.on |= 1u << i;
                            found = true;
                        }
                    if (!found)
                        reader.error(TomlReader::where(t, "on"),
                                     std::string("'objects.on' uses symbol '") + c +
                                         "', which no [[terrain]] has");
                }
                rule.density = reader.string(t, "density", "objects", "");
                if (!rule.density.empty() && !find_map(recipe, rule.density))
                    reader.error(TomlReader::where(t, "density"),
                                 "'objects.density' names map '" + rule.density +
                                     "', which the recipe does not define");
                rule.threshold = reader.number(t, "threshold", "objects", 0, 0, 1);
                rule.chance = reader.number(t, "chance", "objects", 1, 0, 1);
                rule.spacing = reader.number(t, "spacing", "objects", 2, 1, 256);
                recipe.objects.push_back(std::move(rule));
            }
        }
    }

    recipe.places = parse_places_recipe(reader, root, recipe.terrain);
    // The road and bridge terrains are overlays when nothing cuts them from the heightfield (in
    // a biome recipe: no table row uses them; percentile terrains without a share already are).
    if (recipe.places.roads && recipe.classes.biomes)
        for (const ClassId c :
             {recipe.places.roads->road_class, recipe.places.roads->bridge_class}) {
            if (c >= recipe.terrain.size()) continue;
            bool cut = false;
            for (const std::string& row : recipe.classes.biomes->table)
                cut = cut || row.find(recipe.terrain[c].symbol) != std::string::npos;
            if (!cut) recipe.terrain[c].overlay = true;
        }
    recipe.source = std::string(text);
    recipe.search = parse_search(reader, root, text);

    // combine references and cycles
    for (const MapDefinition& def : recipe.maps)
        for (const ModifierSettings& m : def.settings.modifiers)
            if (m.kind == ModifierKind::combine && !m.map.empty() && !find_map(recipe, m.map))
                diags.push_back(error_at(path, m.line, m.column,
                                         "combine names map '" + m.map +
                                             "', which the recipe does not define"));
    for (const MapDefinition& start : recipe.maps) {
        // Depth-first walk along combine edges; reaching `start` again is a cycle.
        std::vector<const MapDefinition*> stack{&start};
        std::set<std::string> seen;
        bool cycle = false;
        while (!stack.empty() && !cycle) {
            const MapDefinition* d = stack.back();
            stack.pop_back();
            for (const ModifierSettings& m : d->settings.modifiers) {
                if (m.kind != ModifierKind::combine) continue;
                if (m.map == start.name) cycle = true;
                const MapDefinition* next = find_map(recipe, m.map);
                if (next && seen.insert(next->name).second) stack.push_back(next);
            }
        }
        if (cycle)
            diags.push_back(
                error_at(path, start.line, start.column,
                         "map '" + start.name + "' depends on itself through combine modifiers"));
    }

    if (const toml::table* rules = reader.table(root, "rules", "")) {
        reader.reject_unknown_keys(*rules, "rules", {"files", "outside", "legalise"});
        if (const toml::node* files = rules->get("files")) {
            const toml::array* arr = files->as_array();
            if (!arr) {
                reader.error(
                    *files,
                    "'rules.files' must be an array of paths, e.g. [\"../rules/overworld.rules\"]");
            } else {
                for (const toml::node& f : *arr) {
                    if (const auto* s = f.as_string())
                        recipe.rules.files.push_back({s->get(), position_of(f.source())});
                    else
                        reader.error(f, "rule file path must be a string, not " +
                                            toml_type_name(f.type()));
                }
                if (arr->empty()) reader.error(*files, "'rules.files' is empty");
            }
        } else {
            reader.error(rules->source(), "[rules] has no 'files'");
        }
        recipe.rules.outside = reader.string(*rules, "outside", "rules", "clamp");
        recipe.rules.outside_position = position_of(TomlReader::where(*rules, "outside"));
        recipe.rules.legalise = reader.boolean(*rules, "legalise", "rules", false);
        if (recipe.rules.outside != "clamp") {
            bool known = false;
            for (const auto& c : recipe.terrain)
                known = known || std::string(1, c.symbol) == recipe.rules.outside;
            if (!known)
                reader.error(TomlReader::where(*rules, "outside"),
                             "'rules.outside' is \"" + recipe.rules.outside +
                                 "\", expected \"clamp\" or a terrain symbol");
        }
    } else {
        reader.error(root.source(),
                     "recipe has no [rules] section (rules.files lists the rule files)");
    }

    if (const toml::table* tileset = reader.table(root, "tileset", "")) {
        reader.reject_unknown_keys(*tileset, "tileset", {"path", "objects"});
        recipe.tileset.objects = reader.string(*tileset, "objects", "tileset", "");
        recipe.tileset.objects_position = position_of(TomlReader::where(*tileset, "objects"));
        if (!tileset->get("path")) reader.error(tileset->source(), "[tileset] has no 'path'");
        recipe.tileset.path = reader.string(*tileset, "path", "tileset", "");
        recipe.tileset.position = position_of(TomlReader::where(*tileset, "path"));
    } else {
        reader.error(root.source(),
                     "recipe has no [tileset] section (tileset.path names the tileset manifest)");
    }

    if (const toml::table* output = reader.table(root, "output", "")) {
        reader.reject_unknown_keys(*output, "output", {"encoding"});
        recipe.output.encoding =
            reader.choice(*output, "encoding", "output", "csv",
                          {"csv", "base64", "base64+zlib", "base64+gzip", "base64+zstd"});
        recipe.output.position = position_of(TomlReader::where(*output, "encoding"));
    }

    if (const toml::table* screens = reader.table(root, "screens", "")) {
        reader.reject_unknown_keys(*screens, "screens", {"size"});
        const toml::array* size = reader.array(*screens, "size", "screens");
        ScreenSettings s;
        s.position = position_of(size ? size->source() : screens->source());
        bool ok = size && size->size() == 2;
        if (ok)
            for (std::size_t i = 0; i < 2; ++i) {
                const auto v = (*size)[i].value<long long>();
                ok = ok && v && *v >= 1 && *v <= 65536;
                if (ok) (i == 0 ? s.width : s.height) = static_cast<int>(*v);
            }
        if (!ok)
            reader.error(size ? size->source() : screens->source(),
                         "screens.size takes [W, H], two whole numbers from 1 to 65536");
        else
            recipe.screens = s;
    }

    if (!recipe.objects.empty() && recipe.tileset.objects.empty() && root.get("tileset"))
        reader.error(
            root.get("tileset")->source(),
            "[[objects]] need a sprite sheet: add objects = \"path/to/objects.toml\" to [tileset]");

    if (has_errors(diags, errors_before)) return std::nullopt;
    return recipe;
}

} // namespace tilegen
