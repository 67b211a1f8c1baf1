#include "paint/description.hpp"

#include "paint/blob.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <toml++/toml.h>

#include "core/recipe/recipe.hpp"
#include "core/toml_reader.hpp"

namespace tilegen::paint {

namespace {

// The index of the terrain named `name`, or -1.
int terrain_index(const std::vector<Terrain>& terrains, std::string_view name) {
    for (std::size_t i = 0; i < terrains.size(); ++i)
        if (terrains[i].name == name) return static_cast<int>(i);
    return -1;
}

// The project's TomlReader (parse, positions, key checks, typed getters) plus the values only
// descriptions have: tile names and colours, which may refer to the palettes of terrains parsed so
// far. Every error carries the position of the node it is about.
class Reader : public TomlReader {
  public:
    using TomlReader::TomlReader;

    // A tile name ([A-Za-z0-9_-]+) into `out`; `what` names the table when a required key is
    // missing.
    void read_tile_name(const toml::table& t, std::string_view key, std::string_view prefix,
                        std::string_view what, std::string& out, bool required = true) {
        if (required && !require(t, key, what)) return;
        const std::optional<std::string> s = string(t, key, prefix);
        if (!s) return;
        if (!is_valid_tile_name(*s)) {
            error(where(t, key), "'" + std::string(key) +
                                     "' must be a tile name made of letters, digits, '_' and "
                                     "'-', got \"" +
                                     *s + "\"");
            return;
        }
        out = *s;
    }

    // A colour value: "#rrggbb" or "TERRAIN.N" (palette entry N of a terrain parsed so far).
    std::optional<Rgba> color(const toml::node& n, std::string_view key,
                              const std::vector<Terrain>& terrains) {
        if (!n.is_string()) {
            error(n, "'" + std::string(key) +
                         "' colours must be strings like \"#3a8c2f\" or \"grass.0\"");
            return std::nullopt;
        }
        const std::string& s = n.as_string()->get();
        if (auto c = parse_hex_color(s)) return c;
        auto dot = s.rfind('.');
        int index = -1;
        if (s.empty() || s[0] == '#' || dot == std::string::npos ||
            !parse_int(std::string_view(s).substr(dot + 1), index)) {
            error(n, "bad colour \"" + s + "\" (expected \"#rrggbb\" or \"TERRAIN.N\")");
            return std::nullopt;
        }
        const std::string tname = s.substr(0, dot);
        const int ti = terrain_index(terrains, tname);
        if (ti < 0) {
            error(n, "colour \"" + s + "\": no terrain named '" + tname + "'");
            return std::nullopt;
        }
        const auto& palette = terrains[static_cast<std::size_t>(ti)].palette;
        if (index < 0 || index >= static_cast<int>(palette.size())) {
            error(n, "colour \"" + s + "\": terrain '" + tname + "' has palette entries 0.." +
                         std::to_string(static_cast<int>(palette.size()) - 1));
            return std::nullopt;
        }
        return palette[static_cast<std::size_t>(index)];
    }

    // min_count..max_count colours into `out` (left as it is on an error).
    void read_colors(const toml::table& t, std::string_view key, std::string_view prefix,
                     std::size_t min_count, std::size_t max_count,
                     const std::vector<Terrain>& terrains, std::vector<Rgba>& out) {
        const toml::array* a = array(t, key, prefix);
        if (!a) return;
        if (a->size() < min_count || a->size() > max_count) {
            error(*a, "'" + std::string(key) + "' must have " + std::to_string(min_count) + ".." +
                          std::to_string(max_count) + " colours, got " + std::to_string(a->size()));
            return;
        }
        std::vector<Rgba> colors;
        for (const toml::node& n : *a) {
            auto c = color(n, key, terrains);
            if (!c) return;
            colors.push_back(*c);
        }
        out = std::move(colors);
    }

    void read_color(const toml::table& t, std::string_view key,
                    const std::vector<Terrain>& terrains, Rgba& out) {
        if (const toml::node* n = t.get(key))
            if (auto c = color(*n, key, terrains)) out = *c;
    }

  private:
    static bool parse_int(std::string_view text, int& out) {
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
        return ec == std::errc() && p == text.data() + text.size();
    }
};

// Shortest round-trip text of a number, for messages.
std::string num(double v) {
    char buf[32];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, p) : std::string("?");
}

std::vector<Rgba> default_decoration_colors(Decoration d) {
    switch (d) {
    case Decoration::flowers:
        return {{248, 248, 232, 255}, {248, 208, 48, 255}, {232, 96, 120, 255}};
    case Decoration::tuft:
        return {{24, 80, 40, 255}, {136, 208, 88, 255}};
    case Decoration::pebbles:
        return {{136, 104, 64, 255}, {176, 168, 152, 255}, {232, 228, 216, 255}};
    case Decoration::sparkle:
        return {{248, 252, 255, 255}, {168, 216, 248, 255}};
    case Decoration::cracks:
        return {{40, 32, 32, 255}, {200, 192, 176, 255}};
    case Decoration::leaves:
        return {{96, 48, 24, 255}, {176, 96, 40, 255}, {224, 168, 64, 255}};
    case Decoration::mushrooms:
        return {{200, 40, 40, 255}, {248, 240, 232, 255}, {224, 208, 176, 255}};
    case Decoration::ripples:
        return {{168, 216, 248, 255}, {24, 56, 120, 255}};
    case Decoration::lilypad:
        return {{24, 88, 40, 255}, {64, 152, 56, 255}, {136, 200, 88, 255}, {248, 176, 208, 255}};
    case Decoration::crests:
        return {{98, 160, 228, 255}, {180, 220, 250, 255}, {40, 86, 168, 255}};
    case Decoration::none:
    case Decoration::reseed:
        break;
    }
    return {};
}

void read_terrain_basics(Reader& r, const toml::table& t, std::vector<Terrain>& terrains) {
    r.reject_unknown_keys(t, "terrain",
                          {"name", "symbol", "height", "style", "palette", "density", "weight",
                           "variant", "draws_as", "own_rims", "group", "bridge", "ruts"});
    Terrain terrain;
    r.read_tile_name(t, "name", "terrain", "[[terrain]]", terrain.name);
    if (r.require(t, "symbol", "[[terrain]]"))
        if (const auto v = r.string(t, "symbol", "terrain")) {
            if (v->size() != 1 || !is_valid_symbol((*v)[0]))
                r.error(TomlReader::where(t, "symbol"),
                        "'symbol' must be one printable character other than ? ! [ ] @ * # / \\ "
                        "(e.g. \"g\" or \"~\"), got \"" +
                            *v + "\"");
            else
                terrain.symbol = (*v)[0];
        }
    r.require(t, "height", "[[terrain]]");
    terrain.height =
        static_cast<int>(r.integer(t, "height", "terrain", terrain.height, -1000, 1000));
    if (!t.contains("bridge")) r.require(t, "style", "[[terrain]]");
    // The names each enum key accepts (style, decoration, set, face, shape) are tables of the same
    // shape with different data (deliberate).
    terrain.style = r.choice<Style>(t, "style", "terrain", terrain.style,
                                    {{"blades", Style::blades},
                                     {"grain", Style::grain},
                                     {"waves", Style::waves},
                                     {"flags", Style::flags},
                                     {"void", Style::void_},
                                     {"rocky", Style::rocky},
                                     {"leafy", Style::leafy},
                                     {"flow", Style::flow},
                                     {"falls", Style::falls}});
    r.require(t, "palette", "[[terrain]]", " (3 to 5 colours, darkest first)");
    r.read_colors(t, "palette", "terrain", 3, 5, terrains, terrain.palette);
    terrain.density = r.number(t, "density", "terrain", terrain.density, 0.0, 1.0);
    terrain.weight = r.number_above(t, "weight", "terrain", terrain.weight, 0.0, 1000.0);
    terrain.ruts = r.boolean(t, "ruts", "terrain", terrain.ruts);
    if (terrain.ruts && t.contains("bridge"))
        r.error(TomlReader::where(t, "ruts"), "a bridge has no ruts");
    terrains.push_back(std::move(terrain));
}

// `draws_as` of terrain i (read once every terrain is known: it may name a later one).
void read_draws_as(Reader& r, const toml::table& t, std::vector<Terrain>& terrains, std::size_t i) {
    const auto name = r.string(t, "draws_as", "terrain");
    if (!name) return;
    const auto where = TomlReader::where(t, "draws_as");
    const int target = terrain_index(terrains, *name);
    Terrain& me = terrains[i];
    if (target < 0) {
        r.error(where, "'draws_as': no terrain named '" + *name + "'");
        return;
    }
    if (static_cast<std::size_t>(target) == i) {
        r.error(where, "'draws_as': a terrain cannot draw as itself");
        return;
    }
    me.draws_as = target;
}

void read_own_rims(Reader& r, const toml::table& t, Terrain& terrain) {
    terrain.own_rims = r.boolean(t, "own_rims", "terrain", terrain.own_rims);
    if (terrain.own_rims && terrain.draws_as < 0)
        r.error(TomlReader::where(t, "own_rims"),
                "'own_rims' needs 'draws_as' (it is for overlay terrains)");
}

// `group` of a terrain (after draws_as: the default is 1 for an overlay, else 0).
void read_group(Reader& r, const toml::table& t, Terrain& terrain) {
    terrain.group =
        static_cast<int>(r.integer(t, "group", "terrain", terrain.draws_as >= 0 ? 1 : 0, 0, 8));
}

// `bridge` of terrain i: the names of the terrains it spans (read once every terrain is known).
void read_bridge(Reader& r, const toml::table& t, std::vector<Terrain>& terrains, std::size_t i) {
    const toml::node* node = t.get("bridge");
    if (!node) return;
    const toml::array* a = node->as_array();
    if (!a || a->empty() || a->size() > 16) {
        r.error(*node,
                "'bridge' must be an array of 1 to 16 terrain names (the terrains it spans)");
        return;
    }
    Terrain& me = terrains[i];
    std::vector<int> spans;
    for (const toml::node& n : *a) {
        const int k = n.is_string() ? terrain_index(terrains, n.as_string()->get()) : -1;
        if (k < 0 || static_cast<std::size_t>(k) == i ||
            std::find(spans.begin(), spans.end(), k) != spans.end()) {
            r.error(n, "'bridge': each entry must name another terrain, once");
            return;
        }
        spans.push_back(k);
    }
    const auto where = TomlReader::where(t, "bridge");
    if (me.draws_as >= 0 || me.own_rims)
        r.error(where, "a bridge cannot have 'draws_as' or 'own_rims'");
    if (!me.variants.empty()) r.error(where, "a bridge has no variants");
    for (std::size_t k = 0; k < terrains.size(); ++k)
        if (k != i && terrains[k].height >= me.height) {
            r.error(TomlReader::where(t, "height"),
                    "a bridge must be the highest terrain ('" + terrains[k].name + "' is at " +
                        std::to_string(terrains[k].height) + "): the others see it as their level");
            break;
        }
    me.bridge = std::move(spans);
}

// An overlay's height lies above its draws_as terrain and below every terrain without draws_as
// above that one, so the layering the other terrains see does not change.
void check_draws_as(Reader& r, const toml::array& nodes, const std::vector<Terrain>& terrains) {
    for (std::size_t i = 0; i < terrains.size(); ++i) {
        const Terrain& me = terrains[i];
        if (me.draws_as < 0) continue;
        const toml::table& t = *nodes[i].as_table();
        const auto where = TomlReader::where(t, "draws_as");
        const Terrain& as = terrains[static_cast<std::size_t>(me.draws_as)];
        if (as.draws_as >= 0) {
            r.error(where, "'draws_as': '" + as.name + "' draws as '" +
                               terrains[static_cast<std::size_t>(as.draws_as)].name +
                               "' itself; name a terrain without draws_as");
            continue;
        }
        const Terrain* next = nullptr; // the lowest terrain without draws_as above `as`
        for (const Terrain& o : terrains)
            if (o.draws_as < 0 && o.height > as.height && (!next || o.height < next->height))
                next = &o;
        if (me.height <= as.height || (next && me.height >= next->height))
            r.error(
                TomlReader::where(t, "height"),
                "'height' of '" + me.name + "' (" + std::to_string(me.height) +
                    ") must lie above '" + as.name + "' (" + std::to_string(as.height) + ")" +
                    (next ? " and below '" + next->name + "' (" + std::to_string(next->height) + ")"
                          : std::string()) +
                    ": it draws as '" + as.name + "'");
    }
}

void read_variants(Reader& r, const toml::table& t, const std::vector<Terrain>& terrains,
                   Terrain& terrain) {
    const toml::array* variants = r.table_array(t, "variant", "terrain");
    if (!variants) return;
    if (variants->size() > 8) r.error(*variants, "at most 8 variants per terrain");
    const std::string_view prefix = "terrain.variant";
    for (const toml::node& vn : *variants) {
        const toml::table& vt = *vn.as_table();
        r.reject_unknown_keys(vt, prefix, {"name", "weight", "decoration", "count", "colors"});
        Variant v;
        r.read_tile_name(vt, "name", prefix, "[[terrain.variant]]", v.name);
        v.weight = r.number_above(vt, "weight", prefix, v.weight, 0.0, 1000.0);
        r.require(vt, "decoration", "[[terrain.variant]]");
        v.decoration = r.choice<Decoration>(vt, "decoration", prefix, v.decoration,
                                            {{"none", Decoration::none},
                                             {"flowers", Decoration::flowers},
                                             {"tuft", Decoration::tuft},
                                             {"pebbles", Decoration::pebbles},
                                             {"sparkle", Decoration::sparkle},
                                             {"cracks", Decoration::cracks},
                                             {"leaves", Decoration::leaves},
                                             {"mushrooms", Decoration::mushrooms},
                                             {"ripples", Decoration::ripples},
                                             {"lilypad", Decoration::lilypad},
                                             {"crests", Decoration::crests},
                                             {"reseed", Decoration::reseed}});
        v.count = static_cast<int>(r.integer(vt, "count", prefix, v.count, 1, 8));
        v.colors = default_decoration_colors(v.decoration);
        r.read_colors(vt, "colors", prefix, 0, 4, terrains, v.colors);
        if (v.colors.empty()) v.colors = default_decoration_colors(v.decoration);
        terrain.variants.push_back(std::move(v));
    }
}

void read_pair(Reader& r, const toml::table& t, const Description& d, std::vector<Pair>& pairs) {
    r.reject_unknown_keys(t, "pair",
                          {"upper", "lower", "set", "rim_depth", "wobble", "wobble_period",
                           "corner_radius", "upper_lines", "lower_lines", "shadow", "blend", "face",
                           "face_depth", "face_palette"});
    Pair p;
    auto read_terrain = [&](std::string_view key, int& out) {
        if (!r.require(t, key, "[[pair]]")) return false;
        const auto name = r.string(t, key, "pair");
        if (!name) return false;
        const int i = terrain_index(d.terrains, *name);
        if (i < 0) {
            r.error(TomlReader::where(t, key),
                    "'" + std::string(key) + "': no terrain named '" + *name + "'");
            return false;
        }
        out = i;
        return true;
    };
    bool have_upper = read_terrain("upper", p.upper);
    bool have_lower = read_terrain("lower", p.lower);
    p.set = r.choice<RimSet>(t, "set", "pair", p.set,
                             {{"blob", RimSet::blob},
                              {"basic", RimSet::basic},
                              {"corner", RimSet::corner},
                              {"corner-layer", RimSet::corner_layer}});
    const double half = d.tile_size / 2.0 - 1.0;
    p.rim_depth = r.number(t, "rim_depth", "pair", p.rim_depth, 1.0, half);
    p.wobble = r.number(t, "wobble", "pair", p.wobble, 0.0, half);
    if (p.wobble > p.rim_depth - 1.0 || p.rim_depth + p.wobble > half)
        r.error(TomlReader::where(t, "wobble"), "'wobble' must keep the rim between 1 and " +
                                                    num(half) + " px (rim_depth +- wobble)");
    p.wobble_period =
        static_cast<int>(r.integer(t, "wobble_period", "pair", p.wobble_period, 4, d.tile_size));
    if (p.wobble_period <= 0 || d.tile_size % p.wobble_period != 0)
        r.error(TomlReader::where(t, "wobble_period"),
                "'wobble_period' must divide tile_size (" + std::to_string(d.tile_size) + ")");
    // Keeps the field's slope from the wobble below 1/2, so 1-px lines have no gaps.
    if (p.wobble_period > 0 && p.wobble > p.wobble_period / 8.0 + 1e-9)
        r.error(TomlReader::where(t, "wobble"), "'wobble' must be at most wobble_period / 8 (" +
                                                    num(p.wobble_period / 8.0) +
                                                    ") so that the rim lines stay unbroken");
    p.corner_radius = r.number(t, "corner_radius", "pair", p.corner_radius, 0.0, half);
    r.read_colors(t, "upper_lines", "pair", 0, 3, d.terrains, p.upper_lines);
    r.read_colors(t, "lower_lines", "pair", 0, 3, d.terrains, p.lower_lines);
    p.shadow = r.number(t, "shadow", "pair", p.shadow, 0.0, 2.0);
    p.blend = r.number(t, "blend", "pair", p.blend, 0.0, 2.0);
    // The rim's outer edge (next to the plain lower cell) must stay lower terrain: lines and blend
    // fit inside.
    const double room = p.rim_depth - p.wobble - 0.5;
    if (static_cast<double>(p.lower_lines.size()) + (p.lower_lines.empty() ? 0.0 : p.shadow) >
            room + 1e-9 ||
        p.blend > room + 1e-9)
        r.error(TomlReader::where(t, "lower_lines"),
                "the lower lines (1 px each, plus 'shadow') and 'blend' must fit inside the rim: "
                "at most rim_depth - wobble - 0.5 = " +
                    num(room) + " px");
    p.face =
        r.choice<Face>(t, "face", "pair", p.face,
                       {{"none", Face::none}, {"cliff", Face::cliff}, {"bricks", Face::bricks}});
    p.face_depth =
        static_cast<int>(r.integer(t, "face_depth", "pair", p.face_depth, 0, d.tile_size));
    // The face scan reaches face_depth px into the cell below, whose own south rim and rounded
    // corners must stay out of reach.
    if (p.face_depth > 0 && p.face_depth + p.rim_depth + p.corner_radius > d.tile_size)
        r.error(TomlReader::where(t, "face_depth"),
                "'face_depth' + 'rim_depth' + 'corner_radius' must be at most tile_size (" +
                    std::to_string(d.tile_size) + ")");
    r.read_colors(t, "face_palette", "pair", 3, 5, d.terrains, p.face_palette);
    if (p.face != Face::none) {
        const auto face = TomlReader::where(t, "face");
        if (p.face_depth == 0) r.error(face, "a face needs 'face_depth' (px)");
        if (p.face_palette.empty())
            r.error(face, "a face needs 'face_palette' (3 to 5 colours, darkest first)");
        if (p.wobble != 0.0) r.error(face, "a face needs 'wobble' = 0 (straight rims)");
    } else if (t.contains("face_depth") || t.contains("face_palette")) {
        r.error(TomlReader::where(t, t.contains("face_depth") ? "face_depth" : "face_palette"),
                "'face_depth' and 'face_palette' need 'face' (\"cliff\" or \"bricks\")");
    }
    if (d.symmetric && (p.shadow != 0.0 || p.face != Face::none))
        r.error(t.source(),
                "with 'symmetric' = true a pair needs 'shadow' = 0 and no face (rims are turned)");
    if (have_upper && have_lower) {
        const auto& up = d.terrains[static_cast<std::size_t>(p.upper)];
        const auto& lo = d.terrains[static_cast<std::size_t>(p.lower)];
        if (!up.bridge.empty() || !lo.bridge.empty())
            r.error(TomlReader::where(t, up.bridge.empty() ? "lower" : "upper"),
                    "a bridge ('" + (up.bridge.empty() ? lo.name : up.name) +
                        "') has no pairs: it draws its own ends");
        if (up.height <= lo.height)
            r.error(TomlReader::where(t, "upper"),
                    "the upper terrain '" + up.name + "' (height " + std::to_string(up.height) +
                        ") must be higher than the lower '" + lo.name + "' (height " +
                        std::to_string(lo.height) + ")");
        for (const auto& other : pairs) {
            if (other.upper != p.upper) continue;
            if (other.lower == p.lower)
                r.error(TomlReader::where(t, "lower"),
                        "there is already a pair of '" + up.name + "' over '" + lo.name + "'");
            else if (other.rim_depth != p.rim_depth || other.wobble != p.wobble ||
                     other.wobble_period != p.wobble_period ||
                     other.corner_radius != p.corner_radius)
                r.error(
                    TomlReader::where(t, "upper"),
                    "pairs of the same upper terrain '" + up.name +
                        "' must have the same rim_depth, wobble, wobble_period and corner_radius "
                        "(their rims meet)");
            else if (other.set != p.set)
                r.error(TomlReader::where(t, "upper"), "pairs of the same upper terrain '" +
                                                           up.name + "' must have the same 'set'");
        }
    }
    pairs.push_back(std::move(p));
}

// Every pair of a terrain without draws_as over terrain A is repeated over each overlay drawn as A
// with own_rims (same geometry and lines, the overlay's texture), unless the description has that
// pair already.
void derive_overlay_pairs(Description& d) {
    const std::size_t explicit_pairs = d.pairs.size();
    for (std::size_t o = 0; o < d.terrains.size(); ++o) {
        const int as = d.terrains[o].draws_as;
        if (as < 0 || !d.terrains[o].own_rims) continue;
        for (std::size_t i = 0; i < explicit_pairs; ++i) {
            const Pair& p = d.pairs[i];
            if (p.lower != as || d.terrains[static_cast<std::size_t>(p.upper)].draws_as >= 0)
                continue;
            const bool declared = std::any_of(
                d.pairs.begin(), d.pairs.begin() + static_cast<std::ptrdiff_t>(explicit_pairs),
                [&](const Pair& q) {
                    return q.upper == p.upper && q.lower == static_cast<int>(o);
                });
            if (declared) continue;
            Pair copy = p;
            copy.lower = static_cast<int>(o);
            copy.derived_from = static_cast<int>(i);
            d.pairs.push_back(copy);
        }
    }
}

void read_rules_output(Reader& r, const toml::table& t, const Description& d,
                       std::vector<RulesOutput>& out) {
    r.reject_unknown_keys(t, "rules", {"path", "terrains"});
    RulesOutput o;
    if (r.require(t, "path", "[rules]"))
        if (const auto path = r.string(t, "path", "rules")) {
            if (path->empty())
                r.error(TomlReader::where(t, "path"), "'path' must not be empty");
            else
                o.path = *path;
        }
    if (const toml::array* a = r.array(t, "terrains", "rules")) {
        if (a->empty()) r.error(*a, "'terrains' must name at least one terrain");
        for (const toml::node& n : *a) {
            if (!n.is_string()) {
                r.error(n, "'terrains' must be terrain names");
                continue;
            }
            const std::string& name = n.as_string()->get();
            const int found = terrain_index(d.terrains, name);
            if (found < 0)
                r.error(n, "'terrains': no terrain named '" + name + "'");
            else if (std::find(o.terrains.begin(), o.terrains.end(), found) != o.terrains.end())
                r.error(n, "'terrains': '" + name + "' is listed twice");
            else
                o.terrains.push_back(found);
        }
    }
    out.push_back(std::move(o));
}

std::vector<Rgba> default_trunk() {
    return {{56, 32, 24, 255}, {104, 64, 40, 255}, {144, 96, 56, 255}, {184, 136, 88, 255}};
}

void read_sprite(Reader& r, const toml::table& t, const Description& d, std::vector<Sprite>& out) {
    r.reject_unknown_keys(
        t, "sprite",
        {"name", "shape", "footprint", "palette", "trunk", "accents", "outline", "shadow", "size"});
    Sprite s;
    r.read_tile_name(t, "name", "sprite", "[[sprite]]", s.name);
    r.require(t, "shape", "[[sprite]]");
    s.shape = r.choice<Shape>(t, "shape", "sprite", s.shape,
                              {{"oak", Shape::oak},
                               {"pine", Shape::pine},
                               {"rock", Shape::rock},
                               {"bush", Shape::bush},
                               {"stalagmite", Shape::stalagmite},
                               {"town", Shape::town},
                               {"village", Shape::village},
                               {"cave", Shape::cave},
                               {"tent", Shape::tent},
                               {"crystal", Shape::crystal}});
    if (const toml::array* a = r.array(t, "footprint", "sprite")) {
        const auto cells = [&](std::size_t i) {
            const auto v = (*a)[i].value<long long>();
            return (*a)[i].is_integer() && v && *v >= 1 && *v <= 8 ? static_cast<int>(*v) : 0;
        };
        if (a->size() != 2 || cells(0) == 0 || cells(1) == 0)
            r.error(*a, "'footprint' must be [width, height] in map cells, each 1 to 8");
        else {
            s.footprint_w = cells(0);
            s.footprint_h = cells(1);
        }
    }
    r.require(t, "palette", "[[sprite]]", " (3 to 5 colours, darkest first)");
    r.read_colors(t, "palette", "sprite", 3, 5, d.terrains, s.palette);
    s.trunk = default_trunk();
    r.read_colors(t, "trunk", "sprite", 3, 5, d.terrains, s.trunk);
    r.read_colors(t, "accents", "sprite", 0, 4, d.terrains, s.accents);
    r.read_color(t, "outline", d.terrains, s.outline);
    s.shadow = r.number(t, "shadow", "sprite", s.shadow, 0.0, 1.0);
    s.size = r.number(t, "size", "sprite", s.size, 0.5, 1.2);
    if (d.objects) {
        const auto& o = *d.objects;
        if (s.footprint_w * d.tile_size > o.sprite_width ||
            s.footprint_h * d.tile_size > o.sprite_height)
            r.error(TomlReader::where(t, "footprint"),
                    "the footprint (" + std::to_string(s.footprint_w * d.tile_size) + "x" +
                        std::to_string(s.footprint_h * d.tile_size) +
                        " px) does not fit the sprite cell (" + std::to_string(o.sprite_width) +
                        "x" + std::to_string(o.sprite_height) + ")");
    }
    for (const auto& other : out)
        if (other.name == s.name && !s.name.empty())
            r.error(t.source(), "sprite name '" + s.name + "' is used twice");
    out.push_back(std::move(s));
}

void check_unique_names(Reader& r, const toml::table& root, const Description& d) {
    std::set<std::string> names;
    std::set<char> symbols;
    std::set<int> heights;
    auto terrain_nodes = root.get("terrain")->as_array();
    auto where = [&](std::size_t i) -> toml::source_region { return (*terrain_nodes)[i].source(); };
    auto add = [&](const std::string& name, toml::source_region src) {
        if (name.empty()) return;
        if (!names.insert(name).second) r.error(src, "tile name '" + name + "' is used twice");
    };
    if (d.error.include) add(d.error.name, TomlReader::where(root, "error"));
    for (std::size_t i = 0; i < d.terrains.size(); ++i) {
        const auto& t = d.terrains[i];
        add(t.name, where(i));
        if (!t.bridge.empty())
            for (const BridgeTile& b : bridge_tiles(t))
                add(b.name, where(i));
        if (t.ruts) {
            add(t.name + "-ruts-ns", where(i));
            add(t.name + "-ruts-ew", where(i));
        }
        const toml::array* variant_nodes =
            (*terrain_nodes)[i].as_table()->contains("variant")
                ? (*terrain_nodes)[i].as_table()->get("variant")->as_array()
                : nullptr;
        for (std::size_t j = 0; j < t.variants.size(); ++j)
            add(t.variants[j].name, variant_nodes ? (*variant_nodes)[j].source() : where(i));
        if (t.symbol != '?' && !symbols.insert(t.symbol).second)
            r.error(where(i), std::string("symbol '") + t.symbol + "' is used by two terrains");
        if (!heights.insert(t.height).second)
            r.error(where(i), "height " + std::to_string(t.height) +
                                  " is used by two terrains (heights must differ)");
    }
    const toml::array* pair_nodes = root.contains("pair") ? root.get("pair")->as_array() : nullptr;
    for (std::size_t i = 0; i < d.pairs.size(); ++i) {
        const int node =
            d.pairs[i].derived_from >= 0 ? d.pairs[i].derived_from : static_cast<int>(i);
        for (const RimTile& tile : rim_tiles(d, d.pairs[i]))
            add(tile.name, (*pair_nodes)[static_cast<std::size_t>(node)].source());
    }
}

} // namespace

std::optional<Rgba> parse_hex_color(std::string_view s) {
    if (s.size() != 7 || s[0] != '#') return std::nullopt;
    auto hex = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    int v[6];
    for (int i = 0; i < 6; ++i) {
        v[i] = hex(s[static_cast<std::size_t>(i) + 1]);
        if (v[i] < 0) return std::nullopt;
    }
    return Rgba{static_cast<std::uint8_t>(v[0] * 16 + v[1]),
                static_cast<std::uint8_t>(v[2] * 16 + v[3]),
                static_cast<std::uint8_t>(v[4] * 16 + v[5]), 255};
}

bool is_valid_tile_name(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    return true;
}

std::optional<Description> parse_description(std::string_view text, const std::string& path,
                                             Diagnostics& diags) {
    Reader r(path, diags);
    const std::optional<toml::table> parsed = r.parse(text);
    if (!parsed) return std::nullopt;
    const toml::table& root = *parsed;

    Description d;
    r.reject_unknown_keys(root, "",
                          {"tile_size", "columns", "seed", "symmetric", "error", "rules", "terrain",
                           "pair", "objects", "sprite"});
    d.tile_size = static_cast<int>(r.integer(root, "tile_size", "", d.tile_size, 8, 64));
    if (d.tile_size % 8 != 0)
        r.error(TomlReader::where(root, "tile_size"),
                "'tile_size' must be a multiple of 8 (the textures' noise period)");
    d.columns = static_cast<int>(r.integer(root, "columns", "", d.columns, 1, 64));
    d.seed = static_cast<std::uint64_t>(
        r.integer(root, "seed", "", static_cast<long long>(d.seed), 0, INT64_MAX));
    d.symmetric = r.boolean(root, "symmetric", "", d.symmetric);

    // Terrains first: colours elsewhere may refer to their palettes.
    const toml::array* terrains = r.table_array(root, "terrain", "");
    if (!root.contains("terrain"))
        r.error(root.source(), "the description needs at least one [[terrain]]");
    if (terrains) {
        if (terrains->size() > 16) r.error(*terrains, "at most 16 terrains");
        for (const toml::node& n : *terrains)
            read_terrain_basics(r, *n.as_table(), d.terrains);
        for (std::size_t i = 0; i < terrains->size(); ++i)
            read_variants(r, *(*terrains)[i].as_table(), d.terrains, d.terrains[i]);
        if (r.ok()) {
            for (std::size_t i = 0; i < terrains->size(); ++i) {
                read_draws_as(r, *(*terrains)[i].as_table(), d.terrains, i);
                read_own_rims(r, *(*terrains)[i].as_table(), d.terrains[i]);
                read_group(r, *(*terrains)[i].as_table(), d.terrains[i]);
            }
            for (std::size_t i = 0; i < terrains->size(); ++i)
                read_bridge(r, *(*terrains)[i].as_table(), d.terrains, i);
            check_draws_as(r, *terrains, d.terrains);
        }
    }
    if (!r.ok()) return std::nullopt;

    if (const toml::table* e = r.table(root, "error", "")) {
        r.reject_unknown_keys(*e, "error", {"include", "name", "color", "mark"});
        d.error.include = r.boolean(*e, "include", "error", d.error.include);
        r.read_tile_name(*e, "name", "error", "[error]", d.error.name, false);
        r.read_color(*e, "color", d.terrains, d.error.color);
        r.read_color(*e, "mark", d.terrains, d.error.mark);
    }
    if (const toml::node* rules = root.get("rules")) {
        if (rules->is_table())
            read_rules_output(r, *rules->as_table(), d, d.rules);
        else if (rules->is_array_of_tables()) {
            if (rules->as_array()->size() > 8) r.error(*rules, "at most 8 rules files");
            for (const toml::node& n : *rules->as_array())
                read_rules_output(r, *n.as_table(), d, d.rules);
        } else
            r.error(*rules, "'rules' must be a table ([rules]) or an array of tables ([[rules]])");
    }
    if (const toml::array* pairs = r.table_array(root, "pair", "")) {
        if (pairs->size() > 32) r.error(*pairs, "at most 32 pairs");
        for (const toml::node& n : *pairs)
            read_pair(r, *n.as_table(), d, d.pairs);
        derive_overlay_pairs(d);
        if (!d.rules.empty())
            for (std::size_t i = 0; i < pairs->size(); ++i)
                if (d.pairs[i].set != RimSet::blob)
                    r.error((*pairs)[i], "rules can only be written for pairs with set = \"blob\"; "
                                         "write the rules of a \"basic\" set by hand");
    }
    for (std::size_t i = 0; i < d.terrains.size(); ++i)
        if (d.terrains[i].ruts && std::none_of(d.pairs.begin(), d.pairs.end(), [&](const Pair& p) {
                return p.upper == static_cast<int>(i);
            }))
            r.error(TomlReader::where(*(*terrains)[i].as_table(), "ruts"),
                    "'ruts' needs a [[pair]] with '" + d.terrains[i].name +
                        "' as upper (the ruts replace its plain blob case)");
    if (const toml::table* o = r.table(root, "objects", "")) {
        r.reject_unknown_keys(*o, "objects", {"image", "sprite_width", "sprite_height", "columns"});
        Objects objects;
        if (const auto image = r.string(*o, "image", "objects")) {
            const std::string& v = *image;
            if (v.empty() || v.find('/') != std::string::npos ||
                v.find('\\') != std::string::npos || v.size() < 5 ||
                v.substr(v.size() - 4) != ".png")
                r.error(TomlReader::where(*o, "image"),
                        "'image' must be a file name ending in .png (no folders)");
            else
                objects.image = v;
        }
        objects.sprite_width = static_cast<int>(
            r.integer(*o, "sprite_width", "objects", objects.sprite_width, 8, 256));
        objects.sprite_height = static_cast<int>(
            r.integer(*o, "sprite_height", "objects", objects.sprite_height, 8, 256));
        objects.columns =
            static_cast<int>(r.integer(*o, "columns", "objects", objects.columns, 1, 64));
        d.objects = objects;
    }
    if (const toml::array* sprites = r.table_array(root, "sprite", "")) {
        if (!d.objects) r.error(*sprites, "[[sprite]] needs an [objects] table (the sprite sheet)");
        if (sprites->size() > 64) r.error(*sprites, "at most 64 sprites");
        for (const toml::node& n : *sprites)
            read_sprite(r, *n.as_table(), d, d.sprites);
    }
    if (!r.ok()) return std::nullopt;
    check_unique_names(r, root, d);
    if (!r.ok()) return std::nullopt;
    return d;
}

std::vector<BridgeTile> bridge_tiles(const Terrain& bridge) {
    std::vector<BridgeTile> out;
    for (const bool ns : {false, true})
        for (int ends = 0; ends < 4; ++ends) {
            const bool a = (ends & 1) != 0, b = (ends & 2) != 0;
            std::string name = bridge.name + (ns ? "-ns" : "-ew");
            if (a) name += ns ? "-n" : "-w";
            if (b) name += ns ? "-s" : "-e";
            out.push_back({name, ns, a, b});
        }
    return out;
}

int bridge_tile_for(int n, int e, int s, int w) {
    const int h = (e != 0) + (w != 0), v = (n != 0) + (s != 0); // sides not spanned
    bool ns = v > h;
    if (h == v) ns = (n == 1) + (s == 1) > (e == 1) + (w == 1);
    const bool a = ns ? n == 2 : w == 2, b = ns ? s == 2 : e == 2;
    return (ns ? 4 : 0) + (a ? 1 : 0) + (b ? 2 : 0);
}

std::vector<RimTile> rim_tiles(const Description& d, const Pair& pair) {
    const auto& up = d.terrains[static_cast<std::size_t>(pair.upper)].name;
    const auto& lo = d.terrains[static_cast<std::size_t>(pair.lower)].name;
    std::vector<RimTile> out;
    if (pair.set == RimSet::blob) {
        for (BlobMask m : blob_cases())
            if (m != 0) out.push_back({transition_name(up, lo, m), m});
        return out;
    }
    if (pair.set == RimSet::corner || pair.set == RimSet::corner_layer) {
        // mask: bit 3 top-left, 2 top-right, 1 bottom-left, 0 bottom-right; 1 = upper.
        for (int m = 1; m < 15; ++m) {
            std::string quadrants;
            for (int b = 3; b >= 0; --b)
                quadrants += ((m >> b) & 1) ? 'u' : 'l';
            out.push_back({up + "-" + lo + "-corner-" + quadrants, static_cast<std::uint8_t>(m)});
        }
        return out;
    }
    const BlobMask n = bit(kN), e = bit(kE), s = bit(kS), w = bit(kW);
    const std::pair<const char*, BlobMask> basic[] = {
        {"edge-n", n},          {"edge-e", e},          {"edge-s", s},
        {"edge-w", w},          {"corner-ne", n | e},   {"corner-se", e | s},
        {"corner-sw", s | w},   {"corner-nw", w | n},   {"inner-ne", bit(kNE)},
        {"inner-se", bit(kSE)}, {"inner-sw", bit(kSW)}, {"inner-nw", bit(kNW)},
        {"band-ns", n | s},     {"band-ew", e | w},     {"island", n | e | s | w},
    };
    for (const auto& [suffix, m] : basic)
        out.push_back({up + "-" + suffix, m});
    return out;
}

} // namespace tilegen::paint
