#include "core/recipe/map_settings_parser.hpp"

#include <initializer_list>
#include <map>
#include <vector>

namespace tilegen {

namespace {

// The keys each kind takes; its name in recipes is noise_kind_name(kind).
struct KindInfo {
    NoiseKind kind;
    std::vector<std::string_view> keys;
};

const std::vector<KindInfo>& kinds() {
    static const std::vector<KindInfo> k = {
        {NoiseKind::harmonic, {"interpolation", "octaves", "persistence"}},
        {NoiseKind::value, {"scale", "octaves", "lacunarity", "gain", "fractal", "interpolation"}},
        {NoiseKind::perlin, {"scale", "octaves", "lacunarity", "gain", "fractal"}},
        {NoiseKind::simplex, {"scale", "octaves", "lacunarity", "gain", "fractal"}},
        {NoiseKind::worley,
         {"scale", "octaves", "lacunarity", "gain", "fractal", "return", "distance"}},
        {NoiseKind::diamond_square, {"roughness"}},
        {NoiseKind::fault, {"faults", "smoothing"}},
        {NoiseKind::hills, {"hills", "radius_min", "radius_max"}},
        {NoiseKind::particle, {"drops", "particles", "smoothing"}},
        {NoiseKind::profile, {"scale", "octaves", "base", "amplitude", "interpolation"}},
        {NoiseKind::white, {}},
        {NoiseKind::agents, {"sea_level", "coastline", "smoothing", "beach", "mountain", "hill"}},
    };
    return k;
}

template <class E>
E pick(TomlReader& r, const toml::table& t, std::string_view key, const std::string& prefix,
       E fallback, std::initializer_list<std::pair<std::string_view, E>> options) {
    std::string fallback_name;
    for (const auto& [n, v] : options)
        if (v == fallback) fallback_name = std::string(n);
    std::vector<std::string_view> names;
    for (const auto& [n, v] : options)
        names.push_back(n);
    const toml::node* node = t.get(key);
    if (!node) return fallback;
    const std::string got = r.string(t, key, prefix, fallback_name);
    for (const auto& [n, v] : options)
        if (n == got) return v;
    std::string list;
    for (auto n : names)
        list += (list.empty() ? "\"" : ", \"") + std::string(n) + "\"";
    r.error(*node, "'" + prefix + "." + std::string(key) + "' is \"" + got +
                       "\", expected one of " + list);
    return fallback;
}

ModifierSettings parse_modifier(TomlReader& r, const toml::table& t, const std::string& prefix) {
    ModifierSettings m;
    m.line = static_cast<int>(t.source().begin.line);
    m.column = static_cast<int>(t.source().begin.column);
    if (!t.get("kind"))
        r.error(t, "modifier has no 'kind' (warp, island, terrace, smooth, combine, thermal or "
                   "hydraulic)");
    // The name tables of pick() (here and for 'op') share their shape, not logic (deliberate).
    m.kind = pick(r, t, "kind", prefix, ModifierKind::island,
                  {{"warp", ModifierKind::warp},
                   {"island", ModifierKind::island},
                   {"terrace", ModifierKind::terrace},
                   {"smooth", ModifierKind::smooth},
                   {"combine", ModifierKind::combine},
                   {"thermal", ModifierKind::thermal},
                   {"hydraulic", ModifierKind::hydraulic}});
    switch (m.kind) {
    case ModifierKind::warp:
        r.reject_unknown_keys(t, prefix, {"kind", "strength", "scale", "octaves", "levels"});
        m.strength = r.number(t, "strength", prefix, 16, 0, 4096);
        m.warp_scale = r.number(t, "scale", prefix, 64, 1, 1e6);
        m.warp_octaves = static_cast<int>(r.integer(t, "octaves", prefix, 3, 1, 12));
        m.levels = static_cast<int>(r.integer(t, "levels", prefix, 1, 1, 2));
        break;
    case ModifierKind::island:
        r.reject_unknown_keys(t, prefix, {"kind", "shape", "falloff", "radius", "start"});
        m.shape = pick(r, t, "shape", prefix, IslandShape::circle,
                       {{"circle", IslandShape::circle}, {"square", IslandShape::square}});
        m.falloff = r.number(t, "falloff", prefix, 0.7, 0, 1);
        m.radius = r.number(t, "radius", prefix, 0.9, 0.05, 4);
        m.start = r.number(t, "start", prefix, 0.3, 0, m.radius);
        break;
    case ModifierKind::terrace:
        r.reject_unknown_keys(t, prefix, {"kind", "steps", "sharpness"});
        m.steps = static_cast<int>(r.integer(t, "steps", prefix, 6, 2, 256));
        m.sharpness = r.number(t, "sharpness", prefix, 0.8, 0, 1);
        break;
    case ModifierKind::smooth:
        r.reject_unknown_keys(t, prefix, {"kind", "radius", "passes"});
        m.smooth_radius = static_cast<int>(r.integer(t, "radius", prefix, 1, 1, 64));
        m.passes = static_cast<int>(r.integer(t, "passes", prefix, 1, 1, 16));
        break;
    case ModifierKind::combine:
        r.reject_unknown_keys(t, prefix, {"kind", "op", "map", "amount"});
        m.op = pick(r, t, "op", prefix, CombineOp::add,
                    {{"add", CombineOp::add},
                     {"multiply", CombineOp::multiply},
                     {"min", CombineOp::min},
                     {"max", CombineOp::max},
                     {"mix", CombineOp::mix}});
        if (!t.get("map")) r.error(t, "combine needs 'map', the name of another map");
        m.map = r.string(t, "map", prefix, "");
        if (t.get("map")) { // messages about the name point at it
            const toml::source_region where = TomlReader::where(t, "map");
            m.line = static_cast<int>(where.begin.line);
            m.column = static_cast<int>(where.begin.column);
        }
        m.amount = r.number(t, "amount", prefix, 0.5, 0, 1);
        break;
    case ModifierKind::thermal:
        r.reject_unknown_keys(t, prefix, {"kind", "talus", "iterations"});
        m.thermal.talus = r.number(t, "talus", prefix, 0.01, 0, 1);
        m.thermal.iterations = static_cast<int>(r.integer(t, "iterations", prefix, 50, 1, 10000));
        break;
    case ModifierKind::hydraulic: {
        r.reject_unknown_keys(t, prefix,
                              {"kind", "droplets", "inertia", "capacity", "deposition", "erosion",
                               "evaporation", "radius", "lifetime"});
        auto& k = m.hydraulic;
        k.droplets = r.number(t, "droplets", prefix, 0.5, 0, 64);
        k.inertia = r.number(t, "inertia", prefix, 0.05, 0, 1);
        k.capacity = r.number(t, "capacity", prefix, 4, 0, 100);
        k.deposition = r.number(t, "deposition", prefix, 0.3, 0, 1);
        k.erosion = r.number(t, "erosion", prefix, 0.3, 0, 1);
        k.evaporation = r.number(t, "evaporation", prefix, 0.01, 0, 1);
        k.radius = static_cast<int>(r.integer(t, "radius", prefix, 3, 1, 16));
        k.lifetime = static_cast<int>(r.integer(t, "lifetime", prefix, 30, 1, 1000));
        break;
    }
    }
    return m;
}

// One agent type's table of kind = "agents" (missing: the defaults, e.g. no beach agents).
void parse_ridges(TomlReader& r, const toml::table& parent, std::string_view key,
                  const std::string& prefix, RidgeAgents& a, bool foothills) {
    const toml::table* t = r.table(parent, key, prefix);
    if (!t) return;
    const std::string p = prefix + "." + std::string(key);
    if (foothills)
        r.reject_unknown_keys(*t, p,
                              {"agents", "steps", "width", "slope", "altitude", "turn",
                               "foothill_length", "foothill_every"});
    else
        r.reject_unknown_keys(*t, p, {"agents", "steps", "width", "slope", "altitude", "turn"});
    a.agents = static_cast<int>(r.integer(*t, "agents", p, a.agents, 0, 10000));
    a.steps = static_cast<int>(r.integer(*t, "steps", p, a.steps, 1, 100000));
    a.width = static_cast<int>(r.integer(*t, "width", p, a.width, 1, 64));
    a.slope = r.number(*t, "slope", p, a.slope, 0.0001, 1);
    a.altitude = r.number(*t, "altitude", p, a.altitude, 0, 1);
    a.turn = r.number(*t, "turn", p, a.turn, 0, 1);
    if (foothills) {
        a.foothill_length =
            static_cast<int>(r.integer(*t, "foothill_length", p, a.foothill_length, 0, 1000));
        a.foothill_every =
            static_cast<int>(r.integer(*t, "foothill_every", p, a.foothill_every, 1, 100000));
    }
}

void parse_agents(TomlReader& r, const toml::table& t, const std::string& prefix,
                  AgentSettings& a) {
    a.sea_level = r.number(t, "sea_level", prefix, 0.3, 0.01, 0.9);
    if (const toml::table* c = r.table(t, "coastline", prefix)) {
        const std::string p = prefix + ".coastline";
        r.reject_unknown_keys(
            *c, p,
            {"budget", "limit", "spread", "attractor", "repulsor", "edge", "compact", "rise"});
        auto& k = a.coastline;
        k.budget = r.number(*c, "budget", p, k.budget, 0, 0.95);
        k.limit = static_cast<int>(r.integer(*c, "limit", p, k.limit, 16, 100000000));
        k.spread = r.number(*c, "spread", p, k.spread, 0, 4);
        k.attractor = r.number(*c, "attractor", p, k.attractor, 0, 100);
        k.repulsor = r.number(*c, "repulsor", p, k.repulsor, 0, 100);
        k.edge = r.number(*c, "edge", p, k.edge, 0, 100);
        k.compact = r.number(*c, "compact", p, k.compact, 0, 100);
        k.rise = r.number(*c, "rise", p, k.rise, 0, 0.1);
    }
    if (const toml::table* m = r.table(t, "smoothing", prefix)) {
        const std::string p = prefix + ".smoothing";
        r.reject_unknown_keys(*m, p, {"agents", "revisits", "steps"});
        auto& k = a.smoothing;
        k.agents = static_cast<int>(r.integer(*m, "agents", p, k.agents, 0, 1000000));
        k.revisits = static_cast<int>(r.integer(*m, "revisits", p, k.revisits, 1, 1000));
        k.steps = static_cast<int>(r.integer(*m, "steps", p, k.steps, 1, 100000));
    }
    if (const toml::table* b = r.table(t, "beach", prefix)) {
        const std::string p = prefix + ".beach";
        r.reject_unknown_keys(*b, p, {"agents", "steps", "width", "altitude", "low", "high"});
        auto& k = a.beach;
        k.agents = static_cast<int>(r.integer(*b, "agents", p, k.agents, 0, 1000000));
        k.steps = static_cast<int>(r.integer(*b, "steps", p, k.steps, 1, 1000000));
        k.width = static_cast<int>(r.integer(*b, "width", p, k.width, 1, 64));
        k.altitude = r.number(*b, "altitude", p, k.altitude, 0, 1);
        // Beach heights stay land: above sea level.
        k.low = r.number_above(*b, "low", p, std::max(k.low, a.sea_level + 0.005), a.sea_level, 1);
        k.high = r.number(*b, "high", p, std::max(k.high, k.low), k.low, 1);
    }
    parse_ridges(r, t, "mountain", prefix, a.mountain, true);
    parse_ridges(r, t, "hill", prefix, a.hill, false);
}

} // namespace

MapDefinition parse_map_definition(TomlReader& r, const toml::table& t, const std::string& name,
                                   const std::string& prefix) {
    MapDefinition def;
    def.name = name;
    def.line = static_cast<int>(t.source().begin.line);
    def.column = static_cast<int>(t.source().begin.column);
    NoiseSettings& s = def.settings;

    std::string kind_name = r.string(t, "kind", prefix, "harmonic");
    const KindInfo* info = nullptr;
    for (const auto& k : kinds())
        if (kind_name == noise_kind_name(k.kind)) info = &k;
    if (!info) {
        std::string list;
        for (const auto& k : kinds())
            list += (list.empty() ? "\"" : ", \"") + std::string(noise_kind_name(k.kind)) + "\"";
        r.error(TomlReader::where(t, "kind"),
                "'" + prefix + ".kind' is \"" + kind_name + "\", expected one of " + list);
        return def;
    }
    s.kind = info->kind;
    // Keys: the common ones and the kind's own.
    for (const auto& [key, node] : t) {
        const std::string_view k = key.str();
        if (k == "kind" || k == "seed_offset" || k == "modifiers") continue;
        if (std::find(info->keys.begin(), info->keys.end(), k) != info->keys.end()) continue;
        bool other_kind = false;
        for (const auto& other : kinds())
            other_kind = other_kind ||
                         std::find(other.keys.begin(), other.keys.end(), k) != other.keys.end();
        std::string list;
        for (auto a : info->keys)
            list += std::string(a) + ", ";
        r.error(key.source(),
                other_kind ? "'" + prefix + "." + std::string(k) + "' does not apply to kind \"" +
                                 kind_name + "\" (its keys: " + list + "seed_offset, modifiers)"
                           : "unknown key '" + prefix + "." + std::string(k) + "' (kind \"" +
                                 kind_name + "\" takes: " + list + "seed_offset, modifiers)");
    }
    s.seed_offset =
        static_cast<std::uint64_t>(r.integer(t, "seed_offset", prefix, 0, 0, INT64_MAX));

    switch (s.kind) {
    case NoiseKind::harmonic:
        s.harmonic.interpolation =
            pick(r, t, "interpolation", prefix, Interpolation::smoothstep,
                 {{"smoothstep", Interpolation::smoothstep},
                  {"bilinear", Interpolation::bilinear},
                  {"bicubic", Interpolation::smoothstep}}); // "bicubic": the old name
        s.harmonic.octaves = static_cast<int>(r.integer(t, "octaves", prefix, 0, 0, 30));
        s.harmonic.persistence = r.number(t, "persistence", prefix, 0.5, 1e-6, 1.0);
        break;
    case NoiseKind::value:
    case NoiseKind::perlin:
    case NoiseKind::simplex:
    case NoiseKind::worley:
        s.scale = r.number(t, "scale", prefix, 64, 1, 1e6);
        s.octaves = static_cast<int>(r.integer(t, "octaves", prefix, 5, 1, 16));
        s.lacunarity = r.number(t, "lacunarity", prefix, 2, 1, 8);
        s.gain = r.number(t, "gain", prefix, 0.5, 0, 1);
        s.fractal =
            pick(r, t, "fractal", prefix, Fractal::fbm,
                 {{"fbm", Fractal::fbm}, {"ridged", Fractal::ridged}, {"billow", Fractal::billow}});
        if (s.kind == NoiseKind::value)
            s.lattice_interpolation =
                pick(r, t, "interpolation", prefix, LatticeInterpolation::quintic,
                     {{"linear", LatticeInterpolation::linear},
                      {"cosine", LatticeInterpolation::cosine},
                      {"cubic", LatticeInterpolation::cubic},
                      {"quintic", LatticeInterpolation::quintic}});
        if (s.kind == NoiseKind::worley) {
            s.worley_return = pick(r, t, "return", prefix, WorleyReturn::f1,
                                   {{"f1", WorleyReturn::f1},
                                    {"f2", WorleyReturn::f2},
                                    {"f2-f1", WorleyReturn::f2_minus_f1}});
            s.worley_distance = pick(r, t, "distance", prefix, WorleyDistance::euclidean,
                                     {{"euclidean", WorleyDistance::euclidean},
                                      {"manhattan", WorleyDistance::manhattan},
                                      {"chebyshev", WorleyDistance::chebyshev}});
        }
        break;
    case NoiseKind::diamond_square:
        s.roughness = r.number(t, "roughness", prefix, 0.5, 0, 1);
        break;
    case NoiseKind::fault:
        s.faults = static_cast<int>(r.integer(t, "faults", prefix, 200, 1, 100000));
        s.smoothing = static_cast<int>(r.integer(t, "smoothing", prefix, 2, 0, 32));
        break;
    case NoiseKind::hills:
        s.hills = static_cast<int>(r.integer(t, "hills", prefix, 300, 1, 1000000));
        s.hill_radius_min = r.number(t, "radius_min", prefix, 4, 1, 1e5);
        s.hill_radius_max = r.number(t, "radius_max", prefix, std::max(20.0, s.hill_radius_min),
                                     s.hill_radius_min, 1e5);
        break;
    case NoiseKind::particle:
        s.drops = static_cast<int>(r.integer(t, "drops", prefix, 40, 1, 100000));
        s.particles = static_cast<int>(r.integer(t, "particles", prefix, 2000, 1, 10000000));
        s.smoothing = static_cast<int>(r.integer(t, "smoothing", prefix, 2, 0, 32));
        break;
    case NoiseKind::profile:
        s.scale = r.number(t, "scale", prefix, 64, 1, 1e6);
        s.octaves = static_cast<int>(r.integer(t, "octaves", prefix, 5, 1, 16));
        s.base = r.number(t, "base", prefix, 0.5, 0, 1);
        s.amplitude = r.number(t, "amplitude", prefix, 0.35, 0, 1);
        s.cosine = pick(r, t, "interpolation", prefix, true, {{"cosine", true}, {"linear", false}});
        break;
    case NoiseKind::white: // no keys of its own
        break;
    case NoiseKind::agents:
        parse_agents(r, t, prefix, s.agents);
        break;
    }

    if (const toml::node* mods = t.get("modifiers")) {
        const toml::array* arr = mods->as_array();
        if (!arr || !arr->is_array_of_tables()) {
            r.error(*mods, "'" + prefix +
                               ".modifiers' must be an array of tables: write each as [[" + prefix +
                               ".modifiers]]");
        } else {
            for (const toml::node& m : *arr)
                s.modifiers.push_back(parse_modifier(r, *m.as_table(), prefix + ".modifiers"));
        }
    }
    return def;
}

} // namespace tilegen
