#include "paint/description.hpp"

#include "paint/blob.hpp"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <set>
#include <toml++/toml.h>

namespace tilegen::paint {

namespace {

// Collects diagnostics for one description; every error carries the position of the node it is
// about.
class Reader {
  public:
    Reader(const std::string& path, Diagnostics& diags) : path_(path), diags_(diags) {}

    bool ok() const { return ok_; }

    void error(const toml::source_region& where, const std::string& message) {
        diags_.push_back(error_at(path_, static_cast<int>(where.begin.line),
                                  static_cast<int>(where.begin.column), message));
        ok_ = false;
    }

    // Reports every key of `t` that is not in `allowed`.
    void check_keys(const toml::table& t, std::initializer_list<std::string_view> allowed,
                    std::string_view where) {
        for (const auto& [key, node] : t) {
            (void)node;
            if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
            std::string list;
            for (auto a : allowed)
                list += (list.empty() ? "" : ", ") + std::string(a);
            error(key.source(), "unknown key '" + std::string(key.str()) + "' in " +
                                    std::string(where) + " (expected one of: " + list + ")");
        }
    }

    bool get_int(const toml::table& t, std::string_view key, long long lo, long long hi,
                 long long& out) {
        const toml::node* n = t.get(key);
        if (!n) return false;
        if (!n->is_integer()) {
            error(n->source(), "'" + std::string(key) + "' must be an integer");
            return false;
        }
        long long v = n->as_integer()->get();
        if (v < lo || v > hi) {
            error(n->source(), "'" + std::string(key) + "' must be in " + std::to_string(lo) +
                                   ".." + std::to_string(hi) + ", got " + std::to_string(v));
            return false;
        }
        out = v;
        return true;
    }

    template <class Int>
    void read_int(const toml::table& t, std::string_view key, long long lo, long long hi,
                  Int& out) {
        long long v = 0;
        if (get_int(t, key, lo, hi, v)) out = static_cast<Int>(v);
    }

    // Reads a number (integer or float) in [lo, hi] (lo excluded when open_lo).
    void read_number(const toml::table& t, std::string_view key, double lo, double hi, double& out,
                     bool open_lo = false) {
        const toml::node* n = t.get(key);
        if (!n) return;
        double v = 0;
        if (n->is_integer())
            v = static_cast<double>(n->as_integer()->get());
        else if (n->is_floating_point())
            v = n->as_floating_point()->get();
        else {
            error(n->source(), "'" + std::string(key) + "' must be a number");
            return;
        }
        if (!(open_lo ? v > lo : v >= lo) || !(v <= hi)) {
            error(n->source(), "'" + std::string(key) + "' must be in " + (open_lo ? "(" : "[") +
                                   num(lo) + ", " + num(hi) + "], got " + num(v));
            return;
        }
        out = v;
    }

    const toml::value<std::string>* get_string(const toml::table& t, std::string_view key) {
        const toml::node* n = t.get(key);
        if (!n) return nullptr;
        if (!n->is_string()) {
            error(n->source(), "'" + std::string(key) + "' must be a string");
            return nullptr;
        }
        return n->as_string();
    }

    // A required string key: reports its absence at the table.
    const toml::value<std::string>* require_string(const toml::table& t, std::string_view key,
                                                   std::string_view where) {
        if (!t.contains(key)) {
            error(t.source(), std::string(where) + " needs '" + std::string(key) + "'");
            return nullptr;
        }
        return get_string(t, key);
    }

    void read_tile_name(const toml::table& t, std::string_view key, std::string_view where,
                        std::string& out, bool required = true) {
        const auto* s = required ? require_string(t, key, where) : get_string(t, key);
        if (!s) return;
        if (!is_valid_tile_name(s->get())) {
            error(s->source(), "'" + std::string(key) +
                                   "' must be a tile name made of letters, digits, '_' and "
                                   "'-', got \"" +
                                   s->get() + "\"");
            return;
        }
        out = s->get();
    }

    const toml::array* get_array(const toml::table& t, std::string_view key) {
        const toml::node* n = t.get(key);
        if (!n) return nullptr;
        if (!n->is_array()) {
            error(n->source(), "'" + std::string(key) + "' must be an array");
            return nullptr;
        }
        return n->as_array();
    }

    // A colour value: "#rrggbb" or "TERRAIN.N" (palette entry N of a terrain parsed so far).
    std::optional<Rgba> color(const toml::node& n, std::string_view key,
                              const std::vector<Terrain>& terrains) {
        if (!n.is_string()) {
            error(n.source(), "'" + std::string(key) +
                                  "' colours must be strings like \"#3a8c2f\" or \"grass.0\"");
            return std::nullopt;
        }
        const std::string& s = n.as_string()->get();
        if (auto c = parse_hex_color(s)) return c;
        auto dot = s.rfind('.');
        if (s.empty() || s[0] == '#' || dot == std::string::npos) {
            error(n.source(), "bad colour \"" + s + "\" (expected \"#rrggbb\" or \"TERRAIN.N\")");
            return std::nullopt;
        }
        std::string tname = s.substr(0, dot);
        int index = -1;
        auto [p, ec] = std::from_chars(s.data() + dot + 1, s.data() + s.size(), index);
        if (ec != std::errc() || p != s.data() + s.size()) {
            error(n.source(), "bad colour \"" + s + "\" (expected \"#rrggbb\" or \"TERRAIN.N\")");
            return std::nullopt;
        }
        for (const auto& t : terrains) {
            if (t.name != tname) continue;
            if (index < 0 || index >= static_cast<int>(t.palette.size())) {
                error(n.source(), "colour \"" + s + "\": terrain '" + tname +
                                      "' has palette entries 0.." +
                                      std::to_string(static_cast<int>(t.palette.size()) - 1));
                return std::nullopt;
            }
            return t.palette[static_cast<std::size_t>(index)];
        }
        error(n.source(), "colour \"" + s + "\": no terrain named '" + tname + "'");
        return std::nullopt;
    }

    void read_colors(const toml::table& t, std::string_view key, std::size_t min_count,
                     std::size_t max_count, const std::vector<Terrain>& terrains,
                     std::vector<Rgba>& out) {
        const toml::array* a = get_array(t, key);
        if (!a) return;
        if (a->size() < min_count || a->size() > max_count) {
            error(a->source(), "'" + std::string(key) + "' must have " + std::to_string(min_count) +
                                   ".." + std::to_string(max_count) + " colours, got " +
                                   std::to_string(a->size()));
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

    // An array of tables ([[name]]); nullptr when absent or wrong type.
    const toml::array* get_table_array(const toml::table& t, std::string_view key) {
        const toml::node* n = t.get(key);
        if (!n) return nullptr;
        if (!n->is_array_of_tables()) {
            error(n->source(), "'" + std::string(key) + "' must be an array of tables ([[" +
                                   std::string(key) + "]])");
            return nullptr;
        }
        return n->as_array();
    }

    const toml::table* get_table(const toml::table& t, std::string_view key) {
        const toml::node* n = t.get(key);
        if (!n) return nullptr;
        if (!n->is_table()) {
            error(n->source(),
                  "'" + std::string(key) + "' must be a table ([" + std::string(key) + "])");
            return nullptr;
        }
        return n->as_table();
    }

    static std::string num(double v) {
        char buf[32];
        auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
        return ec == std::errc() ? std::string(buf, p) : std::string("?");
    }

  private:
    const std::string& path_;
    Diagnostics& diags_;
    bool ok_ = true;
};

template <class E>
std::optional<E> lookup(std::string_view s,
                        std::initializer_list<std::pair<std::string_view, E>> m) {
    for (const auto& [k, v] : m)
        if (k == s) return v;
    return std::nullopt;
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
    r.check_keys(t,
                 {"name", "symbol", "height", "style", "palette", "density", "weight", "variant"},
                 "[[terrain]]");
    Terrain terrain;
    r.read_tile_name(t, "name", "[[terrain]]", terrain.name);
    if (const auto* s = r.require_string(t, "symbol", "[[terrain]]")) {
        const std::string& v = s->get();
        if (v.size() != 1 || !((v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z')))
            r.error(s->source(), "'symbol' must be one ASCII letter, got \"" + v + "\"");
        else
            terrain.symbol = v[0];
    }
    if (!t.contains("height")) r.error(t.source(), "[[terrain]] needs 'height'");
    r.read_int(t, "height", -1000, 1000, terrain.height);
    if (const auto* s = r.require_string(t, "style", "[[terrain]]")) {
        auto style = lookup<Style>(s->get(), {{"blades", Style::blades},
                                              {"grain", Style::grain},
                                              {"waves", Style::waves},
                                              {"flags", Style::flags},
                                              {"void", Style::void_},
                                              {"rocky", Style::rocky},
                                              {"leafy", Style::leafy}});
        if (!style)
            r.error(s->source(),
                    "unknown style \"" + s->get() +
                        "\" (expected \"blades\", \"grain\", \"waves\", \"flags\", \"void\", "
                        "\"rocky\" or \"leafy\")");
        else
            terrain.style = *style;
    }
    if (!t.contains("palette"))
        r.error(t.source(), "[[terrain]] needs 'palette' (3 to 5 colours, darkest first)");
    r.read_colors(t, "palette", 3, 5, terrains, terrain.palette);
    r.read_number(t, "density", 0.0, 1.0, terrain.density);
    r.read_number(t, "weight", 0.0, 1000.0, terrain.weight, true);
    terrains.push_back(std::move(terrain));
}

void read_variants(Reader& r, const toml::table& t, const std::vector<Terrain>& terrains,
                   Terrain& terrain) {
    const toml::array* variants = r.get_table_array(t, "variant");
    if (!variants) return;
    if (variants->size() > 8) r.error(variants->source(), "at most 8 variants per terrain");
    for (const toml::node& vn : *variants) {
        const toml::table& vt = *vn.as_table();
        r.check_keys(vt, {"name", "weight", "decoration", "count", "colors"},
                     "[[terrain.variant]]");
        Variant v;
        r.read_tile_name(vt, "name", "[[terrain.variant]]", v.name);
        r.read_number(vt, "weight", 0.0, 1000.0, v.weight, true);
        if (const auto* s = r.require_string(vt, "decoration", "[[terrain.variant]]")) {
            auto d = lookup<Decoration>(s->get(), {{"none", Decoration::none},
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
            if (!d)
                r.error(s->source(),
                        "unknown decoration \"" + s->get() +
                            "\" (expected \"none\", \"flowers\", \"tuft\", \"pebbles\", "
                            "\"sparkle\", \"cracks\", \"leaves\", \"mushrooms\", \"ripples\", "
                            "\"lilypad\", \"crests\" or \"reseed\")");
            else
                v.decoration = *d;
        }
        r.read_int(vt, "count", 1, 8, v.count);
        v.colors = default_decoration_colors(v.decoration);
        r.read_colors(vt, "colors", 0, 4, terrains, v.colors);
        if (v.colors.empty()) v.colors = default_decoration_colors(v.decoration);
        terrain.variants.push_back(std::move(v));
    }
}

void read_pair(Reader& r, const toml::table& t, const Description& d, std::vector<Pair>& pairs) {
    r.check_keys(t,
                 {"upper", "lower", "set", "rim_depth", "wobble", "wobble_period", "corner_radius",
                  "upper_lines", "lower_lines", "shadow", "blend", "face", "face_depth",
                  "face_palette"},
                 "[[pair]]");
    Pair p;
    auto terrain_index = [&](std::string_view key, int& out) {
        const auto* s = r.require_string(t, key, "[[pair]]");
        if (!s) return false;
        for (std::size_t i = 0; i < d.terrains.size(); ++i)
            if (d.terrains[i].name == s->get()) {
                out = static_cast<int>(i);
                return true;
            }
        r.error(s->source(), "'" + std::string(key) + "': no terrain named '" + s->get() + "'");
        return false;
    };
    bool have_upper = terrain_index("upper", p.upper);
    bool have_lower = terrain_index("lower", p.lower);
    if (const auto* s = r.get_string(t, "set")) {
        auto set = lookup<RimSet>(s->get(), {{"blob", RimSet::blob}, {"basic", RimSet::basic}});
        if (!set)
            r.error(s->source(),
                    "unknown set \"" + s->get() + "\" (expected \"blob\" or \"basic\")");
        else
            p.set = *set;
    }
    const double half = d.tile_size / 2.0 - 1.0;
    r.read_number(t, "rim_depth", 1.0, half, p.rim_depth);
    r.read_number(t, "wobble", 0.0, half, p.wobble);
    if (p.wobble > p.rim_depth - 1.0 || p.rim_depth + p.wobble > half)
        r.error(t.contains("wobble") ? t.get("wobble")->source() : t.source(),
                "'wobble' must keep the rim between 1 and " + Reader::num(half) +
                    " px (rim_depth +- wobble)");
    r.read_int(t, "wobble_period", 4, d.tile_size, p.wobble_period);
    if (p.wobble_period <= 0 || d.tile_size % p.wobble_period != 0)
        r.error(t.contains("wobble_period") ? t.get("wobble_period")->source() : t.source(),
                "'wobble_period' must divide tile_size (" + std::to_string(d.tile_size) + ")");
    // Keeps the field's slope from the wobble below 1/2, so 1-px lines have no gaps.
    if (p.wobble_period > 0 && p.wobble > p.wobble_period / 8.0 + 1e-9)
        r.error(t.contains("wobble") ? t.get("wobble")->source() : t.source(),
                "'wobble' must be at most wobble_period / 8 (" +
                    Reader::num(p.wobble_period / 8.0) + ") so that the rim lines stay unbroken");
    r.read_number(t, "corner_radius", 0.0, half, p.corner_radius);
    r.read_colors(t, "upper_lines", 0, 3, d.terrains, p.upper_lines);
    r.read_colors(t, "lower_lines", 0, 3, d.terrains, p.lower_lines);
    r.read_number(t, "shadow", 0.0, 2.0, p.shadow);
    r.read_number(t, "blend", 0.0, 2.0, p.blend);
    // The rim's outer edge (next to the plain lower cell) must stay lower terrain: lines and blend
    // fit inside.
    const double room = p.rim_depth - p.wobble - 0.5;
    if (static_cast<double>(p.lower_lines.size()) + (p.lower_lines.empty() ? 0.0 : p.shadow) >
            room + 1e-9 ||
        p.blend > room + 1e-9)
        r.error(t.contains("lower_lines") ? t.get("lower_lines")->source() : t.source(),
                "the lower lines (1 px each, plus 'shadow') and 'blend' must fit inside the rim: "
                "at most "
                "rim_depth - wobble - 0.5 = " +
                    Reader::num(room) + " px");
    if (const auto* s = r.get_string(t, "face")) {
        auto face = lookup<Face>(
            s->get(), {{"none", Face::none}, {"cliff", Face::cliff}, {"bricks", Face::bricks}});
        if (!face)
            r.error(s->source(), "unknown face \"" + s->get() +
                                     "\" (expected \"none\", \"cliff\" or \"bricks\")");
        else
            p.face = *face;
    }
    r.read_int(t, "face_depth", 0, d.tile_size, p.face_depth);
    // The face scan reaches face_depth px into the cell below, whose own south rim and rounded
    // corners must stay out of reach.
    if (p.face_depth > 0 && p.face_depth + p.rim_depth + p.corner_radius > d.tile_size)
        r.error(t.get("face_depth")->source(),
                "'face_depth' + 'rim_depth' + 'corner_radius' must be at most "
                "tile_size (" +
                    std::to_string(d.tile_size) + ")");
    r.read_colors(t, "face_palette", 3, 5, d.terrains, p.face_palette);
    if (p.face != Face::none) {
        if (p.face_depth == 0) r.error(t.get("face")->source(), "a face needs 'face_depth' (px)");
        if (p.face_palette.empty())
            r.error(t.get("face")->source(),
                    "a face needs 'face_palette' (3 to 5 colours, darkest first)");
        if (p.wobble != 0.0)
            r.error(t.get("face")->source(), "a face needs 'wobble' = 0 (straight rims)");
    } else if (t.contains("face_depth") || t.contains("face_palette")) {
        r.error(t.contains("face_depth") ? t.get("face_depth")->source()
                                         : t.get("face_palette")->source(),
                "'face_depth' and 'face_palette' need 'face' (\"cliff\" or \"bricks\")");
    }
    if (d.symmetric && (p.shadow != 0.0 || p.face != Face::none))
        r.error(t.source(),
                "with 'symmetric' = true a pair needs 'shadow' = 0 and no face (rims are turned)");
    if (have_upper && have_lower) {
        const auto& up = d.terrains[static_cast<std::size_t>(p.upper)];
        const auto& lo = d.terrains[static_cast<std::size_t>(p.lower)];
        if (up.height <= lo.height)
            r.error(t.get("upper")->source(), "the upper terrain '" + up.name + "' (height " +
                                                  std::to_string(up.height) +
                                                  ") must be higher than the lower '" + lo.name +
                                                  "' (height " + std::to_string(lo.height) + ")");
        for (const auto& other : pairs) {
            if (other.upper != p.upper) continue;
            if (other.lower == p.lower)
                r.error(t.get("lower")->source(),
                        "there is already a pair of '" + up.name + "' over '" + lo.name + "'");
            else if (other.rim_depth != p.rim_depth || other.wobble != p.wobble ||
                     other.wobble_period != p.wobble_period ||
                     other.corner_radius != p.corner_radius)
                r.error(
                    t.get("upper")->source(),
                    "pairs of the same upper terrain '" + up.name +
                        "' must have the same rim_depth, wobble, wobble_period and corner_radius "
                        "(their rims meet)");
            else if (other.set != p.set)
                r.error(t.get("upper")->source(), "pairs of the same upper terrain '" + up.name +
                                                      "' must have the same 'set'");
        }
    }
    pairs.push_back(std::move(p));
}

void read_rules_output(Reader& r, const toml::table& t, const Description& d,
                       std::vector<RulesOutput>& out) {
    r.check_keys(t, {"path", "terrains"}, "[rules]");
    RulesOutput o;
    if (const auto* s = r.require_string(t, "path", "[rules]")) {
        if (s->get().empty())
            r.error(s->source(), "'path' must not be empty");
        else
            o.path = s->get();
    }
    if (const toml::array* a = r.get_array(t, "terrains")) {
        if (a->empty()) r.error(a->source(), "'terrains' must name at least one terrain");
        for (const toml::node& n : *a) {
            if (!n.is_string()) {
                r.error(n.source(), "'terrains' must be terrain names");
                continue;
            }
            const std::string& name = n.as_string()->get();
            int found = -1;
            for (std::size_t i = 0; i < d.terrains.size(); ++i)
                if (d.terrains[i].name == name) found = static_cast<int>(i);
            if (found < 0)
                r.error(n.source(), "'terrains': no terrain named '" + name + "'");
            else if (std::find(o.terrains.begin(), o.terrains.end(), found) != o.terrains.end())
                r.error(n.source(), "'terrains': '" + name + "' is listed twice");
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
    r.check_keys(
        t,
        {"name", "shape", "footprint", "palette", "trunk", "accents", "outline", "shadow", "size"},
        "[[sprite]]");
    Sprite s;
    r.read_tile_name(t, "name", "[[sprite]]", s.name);
    if (const auto* v = r.require_string(t, "shape", "[[sprite]]")) {
        auto shape = lookup<Shape>(v->get(), {{"oak", Shape::oak},
                                              {"pine", Shape::pine},
                                              {"rock", Shape::rock},
                                              {"bush", Shape::bush},
                                              {"stalagmite", Shape::stalagmite},
                                              {"crystal", Shape::crystal}});
        if (!shape)
            r.error(v->source(),
                    "unknown shape \"" + v->get() +
                        "\" (expected \"oak\", \"pine\", \"rock\", \"bush\", \"stalagmite\" or "
                        "\"crystal\")");
        else
            s.shape = *shape;
    }
    if (const toml::array* a = r.get_array(t, "footprint")) {
        if (a->size() != 2 || !(*a)[0].is_integer() || !(*a)[1].is_integer() ||
            (*a)[0].as_integer()->get() < 1 || (*a)[1].as_integer()->get() < 1 ||
            (*a)[0].as_integer()->get() > 8 || (*a)[1].as_integer()->get() > 8)
            r.error(a->source(), "'footprint' must be [width, height] in map cells, each 1 to 8");
        else {
            s.footprint_w = static_cast<int>((*a)[0].as_integer()->get());
            s.footprint_h = static_cast<int>((*a)[1].as_integer()->get());
        }
    }
    if (!t.contains("palette"))
        r.error(t.source(), "[[sprite]] needs 'palette' (3 to 5 colours, darkest first)");
    r.read_colors(t, "palette", 3, 5, d.terrains, s.palette);
    s.trunk = default_trunk();
    r.read_colors(t, "trunk", 3, 5, d.terrains, s.trunk);
    r.read_colors(t, "accents", 0, 4, d.terrains, s.accents);
    r.read_color(t, "outline", d.terrains, s.outline);
    r.read_number(t, "shadow", 0.0, 1.0, s.shadow);
    r.read_number(t, "size", 0.5, 1.2, s.size);
    if (d.objects) {
        const auto& o = *d.objects;
        if (s.footprint_w * d.tile_size > o.sprite_width ||
            s.footprint_h * d.tile_size > o.sprite_height)
            r.error(t.contains("footprint") ? t.get("footprint")->source() : t.source(),
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
    if (d.error.include)
        add(d.error.name, root.contains("error") ? root.get("error")->source() : root.source());
    for (std::size_t i = 0; i < d.terrains.size(); ++i) {
        const auto& t = d.terrains[i];
        add(t.name, where(i));
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
        for (const RimTile& tile : rim_tiles(d, d.pairs[i]))
            add(tile.name, (*pair_nodes)[i].source());
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
    toml::table root;
#if TOML_EXCEPTIONS
    try {
        root = toml::parse(text, path);
    } catch (const toml::parse_error& e) {
        diags.push_back(error_at(path, static_cast<int>(e.source().begin.line),
                                 static_cast<int>(e.source().begin.column),
                                 std::string(e.description())));
        return std::nullopt;
    }
#else
    toml::parse_result result = toml::parse(text, path);
    if (!result) {
        const auto& e = result.error();
        diags.push_back(error_at(path, static_cast<int>(e.source().begin.line),
                                 static_cast<int>(e.source().begin.column),
                                 std::string(e.description())));
        return std::nullopt;
    }
    root = std::move(result).table();
#endif

    Reader r(path, diags);
    Description d;
    r.check_keys(root,
                 {"tile_size", "columns", "seed", "symmetric", "error", "rules", "terrain", "pair",
                  "objects", "sprite"},
                 "the description");
    r.read_int(root, "tile_size", 8, 64, d.tile_size);
    if (d.tile_size % 8 != 0)
        r.error(root.get("tile_size")->source(),
                "'tile_size' must be a multiple of 8 (the textures' noise period)");
    r.read_int(root, "columns", 1, 64, d.columns);
    {
        long long seed = 0;
        if (r.get_int(root, "seed", 0, INT64_MAX, seed)) d.seed = static_cast<std::uint64_t>(seed);
    }
    if (const toml::node* n = root.get("symmetric")) {
        if (!n->is_boolean())
            r.error(n->source(), "'symmetric' must be true or false");
        else
            d.symmetric = n->as_boolean()->get();
    }

    // Terrains first: colours elsewhere may refer to their palettes.
    const toml::array* terrains = r.get_table_array(root, "terrain");
    if (!terrains && !root.contains("terrain"))
        r.error(root.source(), "the description needs at least one [[terrain]]");
    if (terrains) {
        if (terrains->size() > 16) r.error(terrains->source(), "at most 16 terrains");
        for (const toml::node& n : *terrains)
            read_terrain_basics(r, *n.as_table(), d.terrains);
        for (std::size_t i = 0; i < terrains->size(); ++i)
            read_variants(r, *(*terrains)[i].as_table(), d.terrains, d.terrains[i]);
    }
    if (!r.ok()) return std::nullopt;

    if (const toml::table* e = r.get_table(root, "error")) {
        r.check_keys(*e, {"include", "name", "color", "mark"}, "[error]");
        if (const toml::node* n = e->get("include")) {
            if (!n->is_boolean())
                r.error(n->source(), "'include' must be true or false");
            else
                d.error.include = n->as_boolean()->get();
        }
        r.read_tile_name(*e, "name", "[error]", d.error.name, false);
        r.read_color(*e, "color", d.terrains, d.error.color);
        r.read_color(*e, "mark", d.terrains, d.error.mark);
    }
    if (const toml::node* rules = root.get("rules")) {
        if (rules->is_table())
            read_rules_output(r, *rules->as_table(), d, d.rules);
        else if (rules->is_array_of_tables()) {
            if (rules->as_array()->size() > 8) r.error(rules->source(), "at most 8 rules files");
            for (const toml::node& n : *rules->as_array())
                read_rules_output(r, *n.as_table(), d, d.rules);
        } else
            r.error(rules->source(),
                    "'rules' must be a table ([rules]) or an array of tables ([[rules]])");
    }
    if (const toml::array* pairs = r.get_table_array(root, "pair")) {
        if (pairs->size() > 32) r.error(pairs->source(), "at most 32 pairs");
        for (const toml::node& n : *pairs)
            read_pair(r, *n.as_table(), d, d.pairs);
        if (!d.rules.empty())
            for (std::size_t i = 0; i < d.pairs.size(); ++i)
                if (d.pairs[i].set != RimSet::blob)
                    r.error((*pairs)[i].source(),
                            "rules can only be written for pairs with set = \"blob\"; "
                            "write the rules of a \"basic\" set by hand");
    }
    if (const toml::table* o = r.get_table(root, "objects")) {
        r.check_keys(*o, {"image", "sprite_width", "sprite_height", "columns"}, "[objects]");
        Objects objects;
        if (const auto* s = r.get_string(*o, "image")) {
            const std::string& v = s->get();
            if (v.empty() || v.find('/') != std::string::npos ||
                v.find('\\') != std::string::npos || v.size() < 5 ||
                v.substr(v.size() - 4) != ".png")
                r.error(s->source(), "'image' must be a file name ending in .png (no folders)");
            else
                objects.image = v;
        }
        r.read_int(*o, "sprite_width", 8, 256, objects.sprite_width);
        r.read_int(*o, "sprite_height", 8, 256, objects.sprite_height);
        r.read_int(*o, "columns", 1, 64, objects.columns);
        d.objects = objects;
    }
    if (const toml::array* sprites = r.get_table_array(root, "sprite")) {
        if (!d.objects)
            r.error(sprites->source(), "[[sprite]] needs an [objects] table (the sprite sheet)");
        if (sprites->size() > 64) r.error(sprites->source(), "at most 64 sprites");
        for (const toml::node& n : *sprites)
            read_sprite(r, *n.as_table(), d, d.sprites);
    }
    if (!r.ok()) return std::nullopt;
    check_unique_names(r, root, d);
    if (!r.ok()) return std::nullopt;
    return d;
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
