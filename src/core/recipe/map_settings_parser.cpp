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
        r.error(t, "modifier has no 'kind' (warp, island, terrace, smooth or combine)");
    // The name tables of pick() (here and for 'op') share their shape, not logic (deliberate).
    m.kind = pick(r, t, "kind", prefix, ModifierKind::island,
                  {{"warp", ModifierKind::warp},
                   {"island", ModifierKind::island},
                   {"terrace", ModifierKind::terrace},
                   {"smooth", ModifierKind::smooth},
                   {"combine", ModifierKind::combine}});
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
    }
    return m;
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
