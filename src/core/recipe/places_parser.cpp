#include "core/recipe/places_parser.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace tilegen {

namespace {

// A string of terrain symbols as a class mask; unknown symbols are errors at the value.
std::uint32_t class_mask(TomlReader& reader, const toml::table& t, std::string_view key,
                         const std::string& prefix, const std::vector<TerrainClass>& terrain) {
    const std::optional<std::string> s = reader.string(t, key, prefix);
    if (!s) return 0;
    std::uint32_t mask = 0;
    for (char c : *s) {
        bool found = false;
        for (std::size_t i = 0; i < terrain.size() && i < static_cast<std::size_t>(kMaxClasses);
             ++i)
            if (terrain[i].symbol == c) {
                mask |= 1u << i;
                found = true;
            }
        if (!found)
            reader.error(TomlReader::where(t, key), "'" + prefix + "." + std::string(key) +
                                                        "' uses symbol '" + std::string(1, c) +
                                                        "', which no [[terrain]] has");
    }
    if (s->empty())
        reader.error(TomlReader::where(t, key),
                     "'" + prefix + "." + std::string(key) + "' names no terrain symbol");
    return mask;
}

// One terrain symbol as a class id.
ClassId one_class(TomlReader& reader, const toml::table& t, std::string_view key,
                  const std::string& prefix, const std::vector<TerrainClass>& terrain) {
    const LocatedString s = reader.required_string(
        t, key, prefix, "[" + prefix + "] needs '" + std::string(key) + "' (a terrain symbol)");
    if (!t.get(key)) return 0;
    for (std::size_t i = 0; i < terrain.size(); ++i)
        if (s.value.size() == 1 && terrain[i].symbol == s.value[0]) return static_cast<ClassId>(i);
    reader.error(TomlReader::where(t, key), "'" + prefix + "." + std::string(key) + "' is \"" +
                                                s.value + "\", expected one terrain symbol");
    return 0;
}

} // namespace

PlacesRecipe parse_places_recipe(TomlReader& reader, const toml::table& root,
                                 const std::vector<TerrainClass>& terrain) {
    PlacesRecipe out;
    std::set<std::string> names;
    int starts = 0;
    if (const toml::array* arr = reader.table_array(root, "places", "")) {
        for (const toml::node& item : *arr) {
            const toml::table& t = *item.as_table();
            reader.reject_unknown_keys(t, "places",
                                       {"name", "sprite", "on", "count", "min_distance", "near",
                                        "near_distance", "flat", "face", "start"});
            PlaceRule p;
            p.line = static_cast<int>(t.source().begin.line);
            p.column = static_cast<int>(t.source().begin.column);
            p.name = reader.required_string(t, "name", "places", "[[places]] needs 'name'").value;
            if (t.get("name") && p.name.empty())
                reader.error(TomlReader::where(t, "name"), "place name is empty");
            else if (!p.name.empty() && !names.insert(p.name).second)
                reader.error(TomlReader::where(t, "name"), "duplicate place name '" + p.name + "'");
            p.sprite = reader.string(t, "sprite", "places", "");
            if (!t.get("on"))
                reader.error(t, "[[places]] needs 'on': the terrain symbols it stands on");
            p.on = class_mask(reader, t, "on", "places", terrain);
            p.count = static_cast<int>(reader.integer(t, "count", "places", 1, 0, 256));
            p.min_distance = reader.number(t, "min_distance", "places", 16, 0, 4096);
            p.near = class_mask(reader, t, "near", "places", terrain);
            p.near_distance =
                static_cast<int>(reader.integer(t, "near_distance", "places", 8, 1, 256));
            p.flat = reader.number(t, "flat", "places", 0, 0, 100);
            p.face = class_mask(reader, t, "face", "places", terrain);
            p.start = reader.boolean(t, "start", "places", false);
            if (p.start) {
                ++starts;
                if (starts > 1)
                    reader.error(TomlReader::where(t, "start"),
                                 "only one [[places]] may be the start");
                if (p.count != 1)
                    reader.error(TomlReader::where(t, "count"),
                                 "the start place must have count = 1");
            }
            out.places.push_back(std::move(p));
        }
    }
    if (const toml::table* t = reader.table(root, "roads", "")) {
        reader.reject_unknown_keys(*t, "roads",
                                   {"class", "bridge_class", "connect", "avoid", "costs",
                                    "bridge_over", "bridge_cost", "max_bridge", "slope_cost",
                                    "road_discount", "extra_links"});
        RoadSettings r;
        r.road_class = one_class(reader, *t, "class", "roads", terrain);
        r.bridge_class = one_class(reader, *t, "bridge_class", "roads", terrain);
        if (t->get("class") && t->get("bridge_class") && r.road_class == r.bridge_class)
            reader.error(TomlReader::where(*t, "bridge_class"),
                         "'roads.bridge_class' must differ from 'roads.class'");
        if (const toml::array* c = reader.array(*t, "connect", "roads")) {
            for (const toml::node& e : *c) {
                const auto* s = e.as_string();
                int found = -1;
                for (std::size_t i = 0; s && i < out.places.size(); ++i)
                    if (out.places[i].name == s->get()) found = static_cast<int>(i);
                if (!s)
                    reader.error(e, "'roads.connect' must list place names");
                else if (found < 0)
                    reader.error(e, "'roads.connect' names place '" + s->get() +
                                        "', which no [[places]] has");
                else
                    r.connect.push_back(found);
            }
            if (c->empty()) reader.error(*c, "'roads.connect' is empty");
        }
        r.avoid = class_mask(reader, *t, "avoid", "roads", terrain);
        r.bridge_over = class_mask(reader, *t, "bridge_over", "roads", terrain);
        r.costs.assign(terrain.size(), -1);
        if (const toml::table* costs = reader.table(*t, "costs", "roads")) {
            for (const auto& [key, node] : *costs) {
                const std::string sym(key.str());
                int found = -1;
                for (std::size_t i = 0; i < terrain.size(); ++i)
                    if (sym.size() == 1 && terrain[i].symbol == sym[0]) found = static_cast<int>(i);
                if (found < 0) {
                    reader.error(key.source(),
                                 "'roads.costs' key '" + sym + "' is not a terrain symbol");
                    continue;
                }
                r.costs[found] = reader.number(*costs, key.str(), "roads.costs", 1, 0.1, 1000);
            }
        }
        r.bridge_cost = reader.number(*t, "bridge_cost", "roads", 4, 0.1, 1000);
        r.max_bridge = static_cast<int>(reader.integer(*t, "max_bridge", "roads", 6, 0, 32));
        r.slope_cost = reader.number(*t, "slope_cost", "roads", 1, 0, 1000);
        r.road_discount = reader.number(*t, "road_discount", "roads", 0.25, 0.05, 1);
        r.extra_links = static_cast<int>(reader.integer(*t, "extra_links", "roads", 2, 0, 64));
        if (out.places.empty()) reader.error(t->source(), "[roads] needs [[places]] to connect");
        out.roads = std::move(r);
    }
    if (const toml::table* t = reader.table(root, "constraints", "")) {
        reader.reject_unknown_keys(
            *t, "constraints",
            {"walkable_regions", "min_region", "reachable_from", "policy", "pass_cost", "tries"});
        ConstraintSettings c;
        c.line = static_cast<int>(t->source().begin.line);
        c.column = static_cast<int>(t->source().begin.column);
        c.walkable_regions =
            static_cast<int>(reader.integer(*t, "walkable_regions", "constraints", 0, 0, 1));
        c.min_region =
            static_cast<int>(reader.integer(*t, "min_region", "constraints", 64, 1, 1 << 30));
        c.from_start = reader.choice(*t, "reachable_from", "constraints", "start",
                                     {"start", "largest"}) == "start";
        if (c.from_start && t->get("reachable_from") && starts == 0)
            reader.error(TomlReader::where(*t, "reachable_from"),
                         "'constraints.reachable_from' is \"start\", but no [[places]] has "
                         "start = true");
        c.policy = reader.choice(*t, "policy", "constraints", ReachPolicy::connect,
                                 {{"connect", ReachPolicy::connect},
                                  {"fill", ReachPolicy::fill},
                                  {"reseed", ReachPolicy::reseed}});
        c.pass_cost = reader.number(*t, "pass_cost", "constraints", 8, 0.1, 1000);
        c.tries = static_cast<int>(reader.integer(*t, "tries", "constraints", 1, 1, 1000));
        if (c.policy == ReachPolicy::connect && c.walkable_regions == 1 && !out.roads)
            reader.error(TomlReader::where(*t, "policy"),
                         "policy \"connect\" needs [roads] (its class, bridge_class and bridges)");
        out.constraints = c;
    }
    return out;
}

} // namespace tilegen
