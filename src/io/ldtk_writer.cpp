// The LDtk writer (ldtk_writer.hpp); the translation of rules is described in docs/ldtk.md.
#include "io/ldtk_writer.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

#include "core/hash.hpp"
#include "core/json_writer.hpp"
#include "core/quality/screen_graph.hpp"
#include "core/rules/rule_matcher.hpp"
#include "io/files.hpp"
#include "io/png.hpp"
#include "io/screens_writer.hpp"

namespace tilegen::io {

namespace fs = std::filesystem;

namespace {

// LDtk's pattern values beside IntGrid values (1..n) and their negations: 0 is "anything".
constexpr int kAnyValue = 1000001;
constexpr int kMaxExpansions = 16; // a rule whose class sets need more LDtk rules is inactive

std::string hex_colour(std::uint32_t rgb) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%06X", rgb & 0xFFFFFFu);
    return buf;
}

// A deterministic iid (LDtk's are UUIDs; any unique string is accepted): from names, not a clock.
std::string iid_of(std::uint64_t seed, std::string_view what, std::uint64_t n = 0) {
    const std::uint64_t a = hash_values(seed, hash_string(what), n);
    const std::uint64_t b = mix64(a ^ 0x5bd1e9955bd1e995ull);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                  static_cast<unsigned>((a >> 16) & 0xFFFF), static_cast<unsigned>(a & 0xFFFF),
                  static_cast<unsigned>(b >> 48),
                  static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
    return buf;
}

// An LDtk identifier (letters, digits, _; not starting with a digit), first letter capitalised.
std::string identifier_of(const std::string& name) {
    std::string out;
    for (char c : name)
        out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])) != 0) out = "_" + out;
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return out;
}

// Pixel (x, y) of a tile shown with Tiled's flips: diagonal (transpose) first, then horizontal,
// then vertical.
Image turned_tile(const Image& src, int sx0, int sy0, int w, Gid flips) {
    Image out(w, w);
    for (int y = 0; y < w; ++y)
        for (int x = 0; x < w; ++x) {
            int sx = x, sy = y;
            if (flips & kFlipVertical) sy = w - 1 - sy;
            if (flips & kFlipHorizontal) sx = w - 1 - sx;
            if (flips & kFlipDiagonal) std::swap(sx, sy);
            out.set(x, y, src.get(sx0 + sx, sy0 + sy));
        }
    return out;
}

// One tilegen rule (an entry of LayerRules::ordered) as LDtk rules.
struct Translated {
    int uid = 0;              // the first LDtk rule's uid (expansions follow: uid + k)
    int count = 0;            // LDtk rules written for it (0 when merged into the previous)
    bool mirror = false;      // merged into the previous rule as its flipX
    bool active = true;       // false: not expressible (written once, inactive)
    std::vector<int> pattern; // size*size values, expandable cells 0
    // The cells needing one rule per class (a class set LDtk cannot write in one cell): pattern
    // index, classes; expansion k picks class (k / product of later counts) % count.
    std::vector<std::pair<int, std::vector<int>>> expand;
};

ClassMask all_classes(int classes) {
    return classes >= 32 ? ~ClassMask{0} : (ClassMask{1} << classes) - 1;
}

// LDtk's pattern value of IntGrid value group `g` (1-based uid): (g + 1) * 1000.
int group_value(std::size_t g) {
    return static_cast<int>(g + 2) * 1000;
}

// IntGrid value groups (each class in at most one): the class sets the rules use most, or whose
// complement they use most, taken greedily while disjoint from the groups already taken.
std::vector<ClassMask> choose_groups(std::span<const LayerRules> layers, int classes) {
    const ClassMask all = all_classes(classes);
    std::map<ClassMask, long> uses;
    for (const LayerRules& layer : layers)
        for (const Rule& r : layer.ordered)
            for (int row = 0; row < r.pattern.size(); ++row)
                for (int col = 0; col < r.pattern.size() && !r.pattern.corner(); ++col) {
                    const ClassMask m = r.pattern.cell(col, row) & all;
                    if (std::popcount(m) >= 2 && std::popcount(all & ~m) >= 2) {
                        ++uses[m];
                        ++uses[all & ~m];
                    }
                }
    std::vector<std::pair<long, ClassMask>> ranked;
    for (const auto& [m, n] : uses)
        ranked.push_back({-n, m});
    std::sort(ranked.begin(), ranked.end());
    std::vector<ClassMask> groups;
    ClassMask taken = 0;
    for (const auto& [n, m] : ranked)
        if ((m & taken) == 0) {
            groups.push_back(m);
            taken |= m;
        }
    return groups;
}

// The LDtk conditions that together accept exactly the classes in `m`: one value (any, a class,
// all but a class, a group, all but a group), or several disjoint ones (groups inside m, then
// single classes) for one LDtk rule each.
std::vector<int> cell_options(ClassMask m, int classes, std::span<const ClassMask> groups) {
    const ClassMask all = all_classes(classes);
    m &= all;
    if (m == all) return {0};
    if (std::popcount(m) == 1) return {std::countr_zero(m) + 1};
    if (std::popcount(all & ~m) == 1) return {-(std::countr_zero(all & ~m) + 1)};
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (groups[g] == m) return {group_value(g)};
        if (groups[g] == (all & ~m)) return {-group_value(g)};
    }
    std::vector<int> out; // one of several (possibly none): expanded
    ClassMask rest = m;
    for (std::size_t g = 0; g < groups.size(); ++g)
        if ((groups[g] & ~m) == 0) {
            out.push_back(group_value(g));
            rest &= ~groups[g];
        }
    for (int c = 0; c < classes; ++c)
        if ((rest >> c) & 1u) out.push_back(c + 1);
    return out;
}

// Whether LDtk's condition `v` (a positive option of cell_options) accepts class value `value`.
bool option_accepts(int v, int value, std::span<const ClassMask> groups) {
    if (v < 1000) return v == value;
    const std::size_t g = static_cast<std::size_t>(v / 1000 - 2);
    return ((groups[g] >> (value - 1)) & 1u) != 0;
}

bool is_mirror_of(const Rule& a, const ResolvedTargets& ta, const Rule& b,
                  const ResolvedTargets& tb) {
    if (!(b.pattern == a.pattern.mirrored()) || ta.gids.size() != tb.gids.size()) return false;
    if (ta.weights != tb.weights) return false;
    for (std::size_t i = 0; i < ta.gids.size(); ++i) {
        if (ta.gids[i] == 0 || tb.gids[i] == 0) {
            if (ta.gids[i] != tb.gids[i]) return false;
        } else if (tb.gids[i] != (ta.gids[i] ^ kFlipHorizontal)) {
            return false;
        }
    }
    return true;
}

ClassId class_at(const ClassGrid& g, int x, int y, const std::optional<ClassId>& outside) {
    if (g.contains(x, y)) return g(x, y);
    if (outside) return *outside;
    return g(std::clamp(x, 0, g.width() - 1), std::clamp(y, 0, g.height() - 1));
}

void null_value(JsonWriter& j) {
    j.raw("null");
}

// A Tiled property type as LDtk's field type ("Int", "Float", "Bool", "String").
std::string ldtk_field_type(const std::string& tiled_type) {
    if (tiled_type == "int") return "Int";
    if (tiled_type == "float") return "Float";
    if (tiled_type == "bool") return "Bool";
    return "String";
}

// A property value (as MapProperty writes it) as a JSON value of LDtk field type `type`.
void field_value(JsonWriter& j, const std::string& type, const std::string& value) {
    if (type == "Int")
        j.value(static_cast<std::int64_t>(std::stoll(value.empty() ? "0" : value)));
    else if (type == "Float")
        j.value(std::stod(value.empty() ? "0" : value));
    else if (type == "Bool")
        j.value(value == "true");
    else
        j.value(value);
}

} // namespace

int LdtkAtlas::id_of(Gid gid) const {
    if ((gid & kFlipMask) == 0) return atlas_index_of(gid);
    auto it = std::lower_bound(copies.begin(), copies.end(), gid);
    if (it == copies.end() || *it != gid) return -1;
    return first_copy + static_cast<int>(it - copies.begin());
}

LdtkPaths ldtk_paths(const fs::path& path) {
    LdtkPaths p;
    p.ldtk = path;
    const std::string stem = path.stem().string();
    p.tiles = path.parent_path() / (stem + "-ldtk-tiles.png");
    p.objects = path.parent_path() / (stem + "-objects.png");
    return p;
}

bool ldtk_writes_objects(const Map& map) {
    bool objects = false;
    for (const ObjectLayer& o : map.object_layers)
        objects = objects || !o.objects.empty();
    return objects && map.sprites.sprite_count() > 0;
}

std::optional<std::string> ldtk_unsupported(const Map& map) {
    if (map.atlas.tile_width != map.atlas.tile_height)
        return "LDtk needs square tiles (its grid has one size); the tileset's tiles are " +
               std::to_string(map.atlas.tile_width) + "x" + std::to_string(map.atlas.tile_height);
    return std::nullopt;
}

LdtkDocument ldtk_document(const LdtkSource& src, const fs::path& path) {
    const Map& map = *src.map;
    const Atlas& atlas = map.atlas;
    const int grid = atlas.tile_width;
    const int k = static_cast<int>(src.terrain.size());
    const std::uint64_t seed = src.seed;
    const LdtkPaths paths = ldtk_paths(path);
    LdtkDocument doc;

    const std::vector<ClassMask> groups = choose_groups(src.layers, k);
    // Rules: each ordered rule translated; a rule right after its exact mirror joins it as flipX.
    int next_uid = 100;
    std::vector<std::vector<Translated>> translated(src.layers.size());
    for (std::size_t l = 0; l < src.layers.size(); ++l) {
        const LayerRules& layer = src.layers[l];
        auto& out = translated[l];
        if (map.layers[l].corner) continue; // baked only: LDtk rules cannot express 2x2 patterns
        out.resize(layer.ordered.size());
        for (std::size_t r = 0; r < layer.ordered.size(); ++r) {
            Translated& t = out[r];
            if (r > 0 && !out[r - 1].mirror &&
                is_mirror_of(layer.ordered[r - 1], layer.resolved[r - 1], layer.ordered[r],
                             layer.resolved[r])) {
                t = out[r - 1];
                t.mirror = true;
                t.count = 0;
                continue;
            }
            const Descriptor& p = layer.ordered[r].pattern;
            const int n = p.size();
            t.pattern.assign(static_cast<std::size_t>(n * n), 0);
            long long expansions = 1;
            for (int row = 0; row < n; ++row)
                for (int col = 0; col < n; ++col) {
                    std::vector<int> o = cell_options(p.cell(col, row), k, groups);
                    const int at = row * n + col;
                    if (o.size() == 1) {
                        t.pattern[static_cast<std::size_t>(at)] = o[0];
                    } else {
                        expansions *= static_cast<long long>(o.size());
                        t.expand.emplace_back(at, std::move(o));
                    }
                }
            if (expansions == 0 || expansions > kMaxExpansions) {
                t.active = false;
                expansions = 1;
                ++doc.inexpressible;
            }
            if (std::all_of(t.pattern.begin(), t.pattern.end(), [](int v) { return v == 0; }) &&
                t.expand.empty())
                t.pattern[static_cast<std::size_t>(n * n / 2)] = kAnyValue;
            t.uid = next_uid;
            t.count = static_cast<int>(expansions);
            next_uid += t.count;
        }
    }
    std::vector<int> catch_all_uid(src.layers.size());
    for (auto& u : catch_all_uid)
        u = next_uid++;

    // The oriented tiles: every turned target of a written rule, every baked tile.
    std::set<Gid> turned;
    for (std::size_t l = 0; l < src.layers.size(); ++l)
        for (std::size_t r = 0; r < translated[l].size(); ++r)
            if (!translated[l][r].mirror)
                for (Gid g : src.layers[l].resolved[r].gids)
                    if (g != 0 && (g & kFlipMask) != 0) turned.insert(g);
    // What each cell's baked tile shows before LDtk's flipX: the gid itself, or for a rule merged
    // as a mirror the source rule's target (the gid with its horizontal flip toggled).
    std::vector<Grid<int>> recomputed(src.layers.size());
    const auto decision = [&](std::size_t l, int x, int y) {
        if (l < src.decisions.size() && !src.decisions[l].empty()) return src.decisions[l](x, y);
        if (recomputed[l].empty()) {
            recomputed[l] = Grid<int>(map.width, map.height, kNoRule);
            OutsidePolicy policy;
            policy.fixed_class = src.outside;
            for (int yy = 0; yy < map.height; ++yy)
                for (int xx = 0; xx < map.width; ++xx)
                    recomputed[l](xx, yy) =
                        first_match(*src.classes, xx, yy, src.layers[l].ordered, policy);
        }
        return recomputed[l](x, y);
    };
    for (std::size_t l = 0; l < map.layers.size(); ++l) {
        if (map.layers[l].corner) { // (width+1) x (height+1) tiles, no rules
            for (Gid g : map.layers[l].tiles.cells())
                if ((g & kFlipMask) != 0) turned.insert(g);
            continue;
        }
        for (int y = 0; y < map.height; ++y)
            for (int x = 0; x < map.width; ++x) {
                Gid g = map.layers[l].tiles(x, y);
                if (g == 0) continue;
                const int r = decision(l, x, y);
                if (r != kNoRule && translated[l][static_cast<std::size_t>(r)].mirror)
                    g ^= kFlipHorizontal;
                if ((g & kFlipMask) != 0) turned.insert(g);
            }
    }
    LdtkAtlas& la = doc.atlas;
    la.columns = atlas.columns;
    la.first_copy = atlas.image_tile_count();
    la.copies.assign(turned.begin(), turned.end());
    {
        const int rows = atlas.image.height() / grid;
        const int extra = (static_cast<int>(la.copies.size()) + la.columns - 1) / la.columns;
        la.image = Image(la.columns * grid, (rows + extra) * grid);
        for (int y = 0; y < rows * grid; ++y)
            for (int x = 0; x < std::min(atlas.image.width(), la.columns * grid); ++x)
                la.image.set(x, y, atlas.image.get(x, y));
        for (std::size_t c = 0; c < la.copies.size(); ++c) {
            const int index = atlas_index_of(la.copies[c]);
            const Image t =
                turned_tile(atlas.image, (index % atlas.columns) * grid,
                            (index / atlas.columns) * grid, grid, la.copies[c] & kFlipMask);
            const int id = la.first_copy + static_cast<int>(c);
            for (int y = 0; y < grid; ++y)
                for (int x = 0; x < grid; ++x)
                    la.image.set((id % la.columns) * grid + x, (id / la.columns) * grid + y,
                                 t.get(x, y));
        }
    }
    const int cwid = la.columns;

    // uids of the definitions.
    const int tiles_uid = 1, sprites_uid = 2, intgrid_uid = 3, level_uid = 4;
    std::vector<int> auto_uid(map.layers.size()), group_uid(map.layers.size());
    for (std::size_t l = 0; l < map.layers.size(); ++l) {
        auto_uid[l] = next_uid++;
        group_uid[l] = next_uid++;
    }
    std::vector<const ObjectLayer*> object_layers;
    for (const ObjectLayer& o : map.object_layers)
        if (!o.objects.empty()) object_layers.push_back(&o);
    std::vector<int> entities_uid;
    for (std::size_t i = 0; i < object_layers.size(); ++i)
        entities_uid.push_back(next_uid++);
    // Entity definitions: one per sprite, one per place name.
    struct EntityDef {
        std::string identifier;
        int uid = 0;
        int sprite = -1; // -1: a rectangle
        int width = 0, height = 0;
        double pivot_y = 0;
        std::string colour;
        std::vector<std::pair<std::string, std::string>> fields; // a place's properties: name, type
        std::vector<int> field_uids;
    };
    std::vector<EntityDef> entity_defs;
    const auto entity_of = [&](const ObjectLayer& layer, std::size_t i) -> const EntityDef& {
        const MapObject& o = layer.objects[i];
        std::string id;
        if (layer.named.empty())
            id = identifier_of(map.sprites.names[static_cast<std::size_t>(o.sprite)]);
        else
            id = "Place_" + identifier_of(layer.named[i].type);
        for (const EntityDef& d : entity_defs)
            if (d.identifier == id) return d;
        EntityDef d;
        d.identifier = id;
        d.uid = next_uid++;
        d.sprite = o.sprite;
        if (o.sprite >= 0) {
            d.width = map.sprites.sprite_width;
            d.height = map.sprites.sprite_height;
            d.pivot_y = 1;
        } else {
            d.width = layer.named[i].width;
            d.height = layer.named[i].height;
        }
        d.colour = layer.named.empty() ? "#94D9B3" : "#BE4A2F";
        if (!layer.named.empty())
            for (const MapProperty& p : layer.named[i].properties) {
                d.fields.emplace_back(p.name, p.type);
                d.field_uids.push_back(next_uid++);
            }
        entity_defs.push_back(d);
        return entity_defs.back();
    };
    for (const ObjectLayer* layer : object_layers)
        for (std::size_t i = 0; i < layer->objects.size(); ++i)
            (void)entity_of(*layer, i);
    const int sprite_grid = std::gcd(map.sprites.sprite_width, map.sprites.sprite_height);
    const bool sprites = !object_layers.empty() && map.sprites.sprite_count() > 0;

    JsonWriter j;
    j.begin_object();
    j.key("__header__").begin_object();
    j.key("fileType").value("LDtk Project JSON");
    j.key("app").value("LDtk").key("doc").value("https://ldtk.io/json");
    j.key("schema").value("https://ldtk.io/files/JSON_SCHEMA.json");
    j.key("appAuthor").value("Sebastien 'deepnight' Benard");
    j.key("appVersion").value("1.5.3").key("url").value("https://ldtk.io");
    j.end_object();
    j.key("iid").value(iid_of(seed, "project"));
    j.key("jsonVersion").value("1.5.3");
    j.key("appBuildId").value(473703);
    // The levels: the whole map, or one per screen ([screens]: GridVania, level uids after the
    // definitions').
    const bool gridvania = src.screen_width > 0 && src.screen_height > 0;
    const std::vector<ScreenCell> screens =
        gridvania ? screen_grid(map.width, map.height, src.screen_width, src.screen_height)
                  : std::vector<ScreenCell>{ScreenCell{0, 0, 0, 0, map.width, map.height, {}, {}}};
    const int first_level_uid = gridvania ? next_uid : level_uid;
    if (gridvania) next_uid += static_cast<int>(screens.size());
    j.key("nextUid").value(next_uid);
    j.key("identifierStyle").value("Capitalize");
    j.key("toc").begin_array().end_array();
    const int level_w = gridvania ? src.screen_width : map.width;
    const int level_h = gridvania ? src.screen_height : map.height;
    j.key("worldLayout").value(gridvania ? "GridVania" : "Free");
    j.key("worldGridWidth").value(level_w * grid);
    j.key("worldGridHeight").value(level_h * grid);
    j.key("defaultLevelWidth").value(level_w * grid);
    j.key("defaultLevelHeight").value(level_h * grid);
    j.key("defaultPivotX").value(0).key("defaultPivotY").value(0);
    j.key("defaultGridSize").value(grid);
    j.key("defaultEntityWidth").value(grid).key("defaultEntityHeight").value(grid);
    j.key("bgColor").value("#40465B");
    j.key("defaultLevelBgColor").value("#696A79");
    j.key("minifyJson").value(false);
    j.key("externalLevels").value(false);
    j.key("exportTiled").value(false);
    j.key("simplifiedExport").value(false);
    j.key("imageExportMode").value("None");
    j.key("exportLevelBg").value(true);
    j.key("pngFilePattern");
    null_value(j);
    j.key("backupOnSave").value(false);
    j.key("backupLimit").value(10);
    j.key("backupRelPath");
    null_value(j);
    j.key("levelNamePattern").value("Level_%idx");
    j.key("tutorialDesc");
    null_value(j);
    j.key("customCommands").begin_array().end_array();
    j.key("flags").begin_array().end_array();

    // --- definitions
    j.key("defs").begin_object();
    const auto layer_def = [&](const std::string& type, const std::string& identifier, int uid,
                               auto&& body) {
        j.begin_object();
        j.key("__type").value(type).key("identifier").value(identifier);
        j.key("type").value(type).key("uid").value(uid);
        j.key("doc");
        null_value(j);
        j.key("uiColor");
        null_value(j);
        j.key("gridSize").value(grid);
        j.key("guideGridWid").value(0).key("guideGridHei").value(0);
        j.key("displayOpacity").value(1).key("inactiveOpacity").value(1);
        j.key("hideInList").value(false).key("hideFieldsWhenInactive").value(true);
        j.key("canSelectWhenInactive").value(true).key("renderInWorldView").value(true);
        j.key("pxOffsetX").value(0).key("pxOffsetY").value(0);
        j.key("parallaxFactorX").value(0).key("parallaxFactorY").value(0);
        j.key("parallaxScaling").value(true);
        j.key("requiredTags").begin_array().end_array();
        j.key("excludedTags").begin_array().end_array();
        j.key("autoTilesKilledByOtherLayerUid");
        null_value(j);
        j.key("uiFilterTags").begin_array().end_array();
        j.key("useAsyncRender").value(false);
        j.key("tilePivotX").value(0).key("tilePivotY").value(0);
        j.key("biomeFieldUid");
        null_value(j);
        body();
        j.end_object();
    };
    const auto no_auto = [&] {
        j.key("intGridValues").begin_array().end_array();
        j.key("intGridValuesGroups").begin_array().end_array();
        j.key("autoRuleGroups").begin_array().end_array();
        j.key("autoSourceLayerDefUid");
        null_value(j);
        j.key("tilesetDefUid");
        null_value(j);
        j.key("autoTilesetDefUid");
        null_value(j);
    };
    const auto rule_json = [&](int uid, bool active, int size, const std::vector<int>& pattern,
                               const std::vector<int>& tiles, double chance, bool flip_x) {
        j.begin_object();
        j.key("uid").value(uid).key("active").value(active).key("size").value(size);
        j.key("tileRectsIds").begin_array();
        for (int t : tiles)
            j.begin_array().value(t).end_array();
        j.end_array();
        j.key("alpha").value(1).key("chance").value(chance).key("breakOnMatch").value(true);
        j.key("pattern").begin_array();
        for (int v : pattern)
            j.value(v);
        j.end_array();
        j.key("flipX").value(flip_x).key("flipY").value(false);
        j.key("xModulo").value(1).key("yModulo").value(1);
        j.key("xOffset").value(0).key("yOffset").value(0);
        j.key("tileXOffset").value(0).key("tileYOffset").value(0);
        j.key("tileRandomXMin").value(0).key("tileRandomXMax").value(0);
        j.key("tileRandomYMin").value(0).key("tileRandomYMax").value(0);
        j.key("checker").value("None").key("tileMode").value("Single");
        j.key("pivotX").value(0).key("pivotY").value(0);
        j.key("outOfBoundsValue");
        if (src.outside)
            j.value(static_cast<int>(*src.outside) + 1);
        else
            null_value(j);
        j.key("invalidated").value(false);
        j.key("perlinActive").value(false).key("perlinSeed").value(0);
        j.key("perlinScale").value(0.2).key("perlinOctaves").value(2);
        j.end_object();
        ++doc.rules;
    };
    j.key("layers").begin_array();
    for (std::size_t i = object_layers.size(); i-- > 0;)
        layer_def("Entities", identifier_of(object_layers[i]->name), entities_uid[i], no_auto);
    for (std::size_t l = map.layers.size(); l-- > 0;) {
        if (map.layers[l].corner) { // a Tiles layer of baked tiles (its offset is the instance's)
            layer_def("Tiles", identifier_of(map.layers[l].name), auto_uid[l], [&] {
                j.key("intGridValues").begin_array().end_array();
                j.key("intGridValuesGroups").begin_array().end_array();
                j.key("autoRuleGroups").begin_array().end_array();
                j.key("autoSourceLayerDefUid");
                null_value(j);
                j.key("tilesetDefUid").value(tiles_uid);
                j.key("autoTilesetDefUid");
                null_value(j);
            });
            continue;
        }
        layer_def("AutoLayer", identifier_of(map.layers[l].name), auto_uid[l], [&] {
            j.key("intGridValues").begin_array().end_array();
            j.key("intGridValuesGroups").begin_array().end_array();
            j.key("autoRuleGroups").begin_array().begin_object();
            j.key("uid").value(group_uid[l]).key("name").value(map.layers[l].name);
            j.key("color");
            null_value(j);
            j.key("icon");
            null_value(j);
            j.key("active").value(true).key("isOptional").value(false);
            j.key("collapsed").value(false).key("usesWizard").value(false);
            j.key("requiredBiomeValues").begin_array().end_array();
            j.key("biomeRequirementMode").value(0);
            j.key("rules").begin_array();
            const LayerRules& layer = src.layers[l];
            for (std::size_t r = 0; r < layer.ordered.size(); ++r) {
                const Translated& t = translated[l][r];
                if (t.mirror) continue;
                const bool flip_x = r + 1 < layer.ordered.size() && translated[l][r + 1].mirror;
                std::vector<int> tiles;
                double tile_weight = 0, all_weight = 0;
                const ResolvedTargets& res = layer.resolved[r];
                for (std::size_t i = 0; i < res.gids.size(); ++i) {
                    all_weight += res.weights[i];
                    if (res.gids[i] == 0) continue;
                    tiles.push_back(la.id_of(res.gids[i]));
                    tile_weight += res.weights[i];
                }
                const double chance = all_weight > 0 ? tile_weight / all_weight : 0;
                for (int e = 0; e < t.count; ++e) {
                    std::vector<int> pattern = t.pattern;
                    if (t.active) {
                        int rest = e;
                        for (std::size_t c = t.expand.size(); c-- > 0;) {
                            const auto& [at, options] = t.expand[c];
                            const int n = static_cast<int>(options.size());
                            pattern[static_cast<std::size_t>(at)] =
                                options[static_cast<std::size_t>(rest % n)];
                            rest /= n;
                        }
                    }
                    rule_json(t.uid + e, t.active, layer.ordered[r].pattern.size(), pattern, tiles,
                              chance, flip_x);
                }
            }
            // tilegen's fallback: a cell no rule matched shows the error tile.
            rule_json(catch_all_uid[l], true, 1, {kAnyValue}, {atlas.tile_count() - 1}, 1, false);
            j.end_array();
            j.end_object().end_array();
            j.key("autoSourceLayerDefUid").value(intgrid_uid);
            j.key("tilesetDefUid").value(tiles_uid);
            j.key("autoTilesetDefUid");
            null_value(j);
        });
    }
    layer_def("IntGrid", "Classes", intgrid_uid, [&] {
        j.key("intGridValues").begin_array();
        for (int c = 0; c < k; ++c) {
            j.begin_object();
            j.key("value").value(c + 1);
            j.key("identifier").value(identifier_of(src.terrain[static_cast<std::size_t>(c)].name));
            j.key("color").value(hex_colour(src.colours[static_cast<std::size_t>(c)]));
            j.key("tile");
            null_value(j);
            int group = 0;
            for (std::size_t g = 0; g < groups.size(); ++g)
                if ((groups[g] >> c) & 1u) group = static_cast<int>(g) + 1;
            j.key("groupUid").value(group);
            j.end_object();
        }
        j.end_array();
        j.key("intGridValuesGroups").begin_array();
        for (std::size_t g = 0; g < groups.size(); ++g) {
            std::string name;
            for (int c = 0; c < k; ++c)
                if ((groups[g] >> c) & 1u)
                    name += (name.empty() ? "" : "_") +
                            identifier_of(src.terrain[static_cast<std::size_t>(c)].name);
            j.begin_object();
            j.key("uid").value(static_cast<int>(g) + 1);
            j.key("identifier").value(name);
            j.key("color");
            null_value(j);
            j.end_object();
        }
        j.end_array();
        j.key("autoRuleGroups").begin_array().end_array();
        j.key("autoSourceLayerDefUid");
        null_value(j);
        j.key("tilesetDefUid");
        null_value(j);
        j.key("autoTilesetDefUid");
        null_value(j);
    });
    j.end_array();

    const auto tileset_rect = [&](int sprite) {
        j.begin_object();
        j.key("tilesetUid").value(sprites_uid);
        j.key("x").value((sprite % map.sprites.columns) * map.sprites.sprite_width);
        j.key("y").value((sprite / map.sprites.columns) * map.sprites.sprite_height);
        j.key("w").value(map.sprites.sprite_width).key("h").value(map.sprites.sprite_height);
        j.end_object();
    };
    j.key("entities").begin_array();
    for (const EntityDef& d : entity_defs) {
        j.begin_object();
        j.key("identifier").value(d.identifier).key("uid").value(d.uid);
        j.key("tags").begin_array().end_array();
        j.key("exportToToc").value(false).key("allowOutOfBounds").value(false);
        j.key("doc");
        null_value(j);
        j.key("width").value(d.width).key("height").value(d.height);
        j.key("resizableX").value(false).key("resizableY").value(false);
        j.key("minWidth");
        null_value(j);
        j.key("maxWidth");
        null_value(j);
        j.key("minHeight");
        null_value(j);
        j.key("maxHeight");
        null_value(j);
        j.key("keepAspectRatio").value(false);
        j.key("tileOpacity").value(1).key("fillOpacity").value(0.08).key("lineOpacity").value(1);
        j.key("hollow").value(d.sprite < 0);
        j.key("color").value(d.colour);
        j.key("renderMode").value(d.sprite >= 0 ? "Tile" : "Rectangle");
        j.key("showName").value(d.sprite < 0);
        j.key("tilesetId");
        if (d.sprite >= 0)
            j.value(sprites_uid);
        else
            null_value(j);
        j.key("tileRenderMode").value("FitInside");
        j.key("tileRect");
        if (d.sprite >= 0)
            tileset_rect(d.sprite);
        else
            null_value(j);
        j.key("uiTileRect");
        null_value(j);
        j.key("nineSliceBorders").begin_array().end_array();
        j.key("maxCount").value(0).key("limitScope").value("PerLevel");
        j.key("limitBehavior").value("MoveLastOne");
        j.key("pivotX").value(0).key("pivotY").value(d.pivot_y);
        j.key("fieldDefs").begin_array();
        for (std::size_t f = 0; f < d.fields.size(); ++f) {
            const std::string type = ldtk_field_type(d.fields[f].second);
            j.begin_object();
            j.key("identifier").value(d.fields[f].first).key("uid").value(d.field_uids[f]);
            j.key("__type").value(type).key("type").value("F_" + type);
            j.key("isArray").value(false).key("canBeNull").value(false);
            j.key("doc");
            null_value(j);
            j.key("editorDisplayMode").value("Hidden").key("editorDisplayPos").value("Above");
            j.key("editorDisplayScale").value(1).key("editorLinkStyle").value("StraightArrow");
            j.key("editorAlwaysShow").value(false).key("editorShowInWorld").value(true);
            j.key("editorCutLongValues").value(true).key("exportToToc").value(false);
            j.key("searchable").value(false).key("useForSmartColor").value(false);
            j.key("allowOutOfLevelRef").value(true).key("allowedRefs").value("OnlySame");
            j.key("allowedRefTags").begin_array().end_array();
            j.key("autoChainRef").value(true).key("symmetricalRef").value(false);
            j.end_object();
        }
        j.end_array();
        j.end_object();
    }
    j.end_array();

    const auto tileset_def = [&](int uid, const std::string& identifier, const fs::path& image,
                                 int px_wid, int px_hei, int tile_grid, auto&& custom) {
        j.begin_object();
        j.key("__cWid").value(px_wid / tile_grid).key("__cHei").value(px_hei / tile_grid);
        j.key("identifier").value(identifier).key("uid").value(uid);
        j.key("relPath").value(image.filename().generic_string());
        j.key("embedAtlas");
        null_value(j);
        j.key("pxWid").value(px_wid).key("pxHei").value(px_hei);
        j.key("tileGridSize").value(tile_grid);
        j.key("spacing").value(0).key("padding").value(0);
        j.key("tags").begin_array().end_array();
        j.key("tagsSourceEnumUid");
        null_value(j);
        j.key("enumTags").begin_array().end_array();
        j.key("customData").begin_array();
        custom();
        j.end_array();
        j.key("savedSelections").begin_array().end_array();
        j.key("cachedPixelData");
        null_value(j);
        j.end_object();
    };
    j.key("tilesets").begin_array();
    tileset_def(tiles_uid, "Tiles", paths.tiles, la.image.width(), la.image.height(), grid, [&] {
        for (std::size_t c = 0; c < la.copies.size(); ++c) {
            const Gid g = la.copies[c];
            std::string flips;
            if (g & kFlipDiagonal) flips += 'd';
            if (g & kFlipHorizontal) flips += 'h';
            if (g & kFlipVertical) flips += 'v';
            j.begin_object();
            j.key("tileId").value(la.first_copy + static_cast<int>(c));
            j.key("data").value("tilegen:source=" + std::to_string(atlas_index_of(g)) +
                                ";flips=" + flips);
            j.end_object();
        }
    });
    if (sprites)
        tileset_def(sprites_uid, "Objects", paths.objects, map.sprites.image.width(),
                    map.sprites.image.height(), sprite_grid, [] {});
    j.end_array();
    j.key("enums").begin_array().end_array();
    j.key("externalEnums").begin_array().end_array();
    j.key("levelFields").begin_array().end_array();
    j.end_object();

    // --- the levels
    j.key("levels").begin_array();
    for (std::size_t n = 0; n < screens.size(); ++n) {
        const ScreenCell& screen = screens[n];
        const int level_uid_n = first_level_uid + static_cast<int>(n);
        // Level n's cells: screen.x .. screen.x + screen.width (the whole map without [screens]).
        const auto in_screen = [&](int x, int y) {
            return x >= screen.x && y >= screen.y && x < screen.x + screen.width &&
                   y < screen.y + screen.height;
        };
        j.begin_object();
        j.key("identifier").value("Level_" + std::to_string(n));
        j.key("iid").value(iid_of(seed, "level", n));
        j.key("uid").value(level_uid_n);
        j.key("worldX").value(screen.x * grid).key("worldY").value(screen.y * grid);
        j.key("worldDepth").value(0);
        j.key("pxWid").value(screen.width * grid).key("pxHei").value(screen.height * grid);
        j.key("__bgColor").value("#696A79");
        j.key("bgColor");
        null_value(j);
        j.key("useAutoIdentifier").value(false);
        j.key("bgRelPath");
        null_value(j);
        j.key("bgPos");
        null_value(j);
        j.key("bgPivotX").value(0.5).key("bgPivotY").value(0.5);
        j.key("__smartColor").value("#ADADB5");
        j.key("__bgPos");
        null_value(j);
        j.key("externalRelPath");
        null_value(j);
        j.key("fieldInstances").begin_array().end_array();
        j.key("layerInstances").begin_array();
        // A corner layer's instance: offset by half a tile up and left (LDtk counts a layer's
        // cells as ceil((level pxWid - instance pxOffsetX) / gridSize), the definition's offset
        // left out, so the offset is the instance's: screen.width + 1 columns), its tiles baked in
        // gridTiles. Corner tile (i, j) stands in the level of cell (min(i, W-1), min(j, H-1)).
        const auto corner_tiles = [&](const TileLayer& layer) {
            const int cw = screen.width + 1;
            const int x_end = screen.x + screen.width + (screen.x + screen.width == map.width);
            const int y_end = screen.y + screen.height + (screen.y + screen.height == map.height);
            j.key("gridTiles").begin_array();
            for (int y = screen.y; y < y_end; ++y)
                for (int x = screen.x; x < x_end; ++x) {
                    const Gid g = layer.tiles(x, y);
                    if (g == 0) continue;
                    const int id = la.id_of(g);
                    j.begin_object();
                    j.key("px")
                        .begin_array()
                        .value((x - screen.x) * grid)
                        .value((y - screen.y) * grid)
                        .end_array();
                    j.key("src")
                        .begin_array()
                        .value((id % cwid) * grid)
                        .value((id / cwid) * grid)
                        .end_array();
                    j.key("f").value(0).key("t").value(id);
                    j.key("d").begin_array().value((y - screen.y) * cw + (x - screen.x));
                    j.end_array();
                    j.key("a").value(1);
                    j.end_object();
                }
            j.end_array();
        };
        const auto layer_instance = [&](const std::string& type, const std::string& identifier,
                                        int def_uid, int tileset, const fs::path& tileset_path,
                                        auto&& body, const TileLayer* corner = nullptr) {
            const int off = corner != nullptr ? -(grid / 2) : 0;
            const int extra = corner != nullptr ? 1 : 0;
            j.begin_object();
            j.key("__identifier").value(identifier).key("__type").value(type);
            j.key("__cWid").value(screen.width + extra).key("__cHei").value(screen.height + extra);
            j.key("__gridSize").value(grid).key("__opacity").value(1);
            j.key("__pxTotalOffsetX").value(off).key("__pxTotalOffsetY").value(off);
            j.key("__tilesetDefUid");
            if (tileset > 0)
                j.value(tileset);
            else
                null_value(j);
            j.key("__tilesetRelPath");
            if (tileset > 0)
                j.value(tileset_path.filename().generic_string());
            else
                null_value(j);
            // Level 0's layers keep the ids of a single-level project.
            j.key("iid").value(n == 0 ? iid_of(seed, "layer", static_cast<std::uint64_t>(def_uid))
                                      : iid_of(seed, "layer-" + std::to_string(n),
                                               static_cast<std::uint64_t>(def_uid)));
            j.key("levelId").value(level_uid_n).key("layerDefUid").value(def_uid);
            j.key("pxOffsetX").value(off).key("pxOffsetY").value(off).key("visible").value(true);
            j.key("optionalRules").begin_array().end_array();
            j.key("seed").value(static_cast<std::int64_t>(seed & 0x7FFFFFFFull));
            j.key("overrideTilesetUid");
            null_value(j);
            if (corner != nullptr)
                corner_tiles(*corner);
            else
                j.key("gridTiles").begin_array().end_array();
            body();
            j.end_object();
        };
        for (std::size_t i = object_layers.size(); i-- > 0;) {
            const ObjectLayer& layer = *object_layers[i];
            layer_instance("Entities", identifier_of(layer.name), entities_uid[i], 0, {}, [&] {
                j.key("intGridCsv").begin_array().end_array();
                j.key("autoLayerTiles").begin_array().end_array();
                j.key("entityInstances").begin_array();
                for (std::size_t o = 0; o < layer.objects.size(); ++o) {
                    const MapObject& obj = layer.objects[o];
                    if (gridvania) { // each object in the level of its anchor cell (screens_writer)
                        const auto [cx, cy] = object_anchor_cell(map, layer, o);
                        if (!in_screen(cx, cy)) continue;
                    }
                    const int lx = obj.x - screen.x * grid, ly = obj.y - screen.y * grid;
                    const EntityDef& d = entity_of(layer, o);
                    const int w = obj.sprite >= 0 ? map.sprites.sprite_width : layer.named[o].width;
                    const int h =
                        obj.sprite >= 0 ? map.sprites.sprite_height : layer.named[o].height;
                    j.begin_object();
                    j.key("__identifier").value(d.identifier);
                    j.key("__grid").begin_array().value(lx / grid).value(ly / grid).end_array();
                    j.key("__pivot").begin_array().value(0).value(d.pivot_y).end_array();
                    j.key("__tags").begin_array().end_array();
                    j.key("__tile");
                    if (obj.sprite >= 0)
                        tileset_rect(obj.sprite);
                    else
                        null_value(j);
                    j.key("__smartColor").value(d.colour);
                    j.key("iid").value(iid_of(seed, layer.name, o));
                    j.key("width").value(w).key("height").value(h);
                    j.key("defUid").value(d.uid);
                    j.key("px").begin_array().value(lx).value(ly).end_array();
                    j.key("fieldInstances").begin_array();
                    for (std::size_t f = 0; f < d.fields.size(); ++f) {
                        std::string value;
                        for (const MapProperty& p : layer.named[o].properties)
                            if (p.name == d.fields[f].first) value = p.value;
                        const std::string type = ldtk_field_type(d.fields[f].second);
                        j.begin_object();
                        j.key("__identifier").value(d.fields[f].first).key("__type").value(type);
                        j.key("__value");
                        field_value(j, type, value);
                        j.key("__tile");
                        null_value(j);
                        j.key("defUid").value(d.field_uids[f]);
                        j.key("realEditorValues").begin_array().begin_object();
                        j.key("id").value("V_" + type).key("params").begin_array();
                        field_value(j, type, value);
                        j.end_array().end_object().end_array();
                        j.end_object();
                    }
                    j.end_array();
                    j.key("__worldX").value(obj.x).key("__worldY").value(obj.y);
                    j.end_object();
                }
                j.end_array();
            });
        }
        for (std::size_t l = map.layers.size(); l-- > 0;) {
            if (map.layers[l].corner) {
                layer_instance(
                    "Tiles", identifier_of(map.layers[l].name), auto_uid[l], tiles_uid, paths.tiles,
                    [&] {
                        j.key("intGridCsv").begin_array().end_array();
                        j.key("autoLayerTiles").begin_array().end_array();
                        j.key("entityInstances").begin_array().end_array();
                    },
                    &map.layers[l]);
                continue;
            }
            layer_instance(
                "AutoLayer", identifier_of(map.layers[l].name), auto_uid[l], tiles_uid, paths.tiles,
                [&] {
                    j.key("intGridCsv").begin_array().end_array();
                    j.key("autoLayerTiles").begin_array();
                    for (int y = screen.y; y < screen.y + screen.height; ++y)
                        for (int x = screen.x; x < screen.x + screen.width; ++x) {
                            Gid g = map.layers[l].tiles(x, y);
                            if (g == 0) continue;
                            const int r = decision(l, x, y);
                            int uid = catch_all_uid[l];
                            int f = 0;
                            if (r != kNoRule) {
                                const Translated& t = translated[l][static_cast<std::size_t>(r)];
                                if (t.mirror) {
                                    g ^= kFlipHorizontal;
                                    f = 1;
                                }
                                int e = 0;
                                if (t.active)
                                    for (const auto& [at, options] : t.expand) {
                                        const int side = src.layers[l]
                                                             .ordered[static_cast<std::size_t>(r)]
                                                             .pattern.size();
                                        const int dx = at % side - side / 2,
                                                  dy = at / side - side / 2;
                                        const int c =
                                            class_at(*src.classes, x + (t.mirror ? -dx : dx),
                                                     y + dy, src.outside) +
                                            1;
                                        const auto pos = std::find_if(
                                            options.begin(), options.end(),
                                            [&](int v) { return option_accepts(v, c, groups); });
                                        e = e * static_cast<int>(options.size()) +
                                            static_cast<int>(pos - options.begin());
                                    }
                                uid = t.uid + e;
                            }
                            const int id = la.id_of(g);
                            j.begin_object();
                            j.key("px")
                                .begin_array()
                                .value((x - screen.x) * grid)
                                .value((y - screen.y) * grid);
                            j.end_array();
                            j.key("src")
                                .begin_array()
                                .value((id % cwid) * grid)
                                .value((id / cwid) * grid)
                                .end_array();
                            j.key("f").value(f).key("t").value(id);
                            j.key("d").begin_array().value(uid).value(
                                (y - screen.y) * screen.width + (x - screen.x));
                            j.end_array();
                            j.key("a").value(1);
                            j.end_object();
                        }
                    j.end_array();
                    j.key("entityInstances").begin_array().end_array();
                });
        }
        layer_instance("IntGrid", "Classes", intgrid_uid, 0, {}, [&] {
            j.key("intGridCsv").begin_array();
            for (int y = screen.y; y < screen.y + screen.height; ++y)
                for (int x = screen.x; x < screen.x + screen.width; ++x)
                    j.value(static_cast<int>((*src.classes)(x, y)) + 1);
            j.end_array();
            j.key("autoLayerTiles").begin_array().end_array();
            j.key("entityInstances").begin_array().end_array();
        });
        j.end_array();
        j.key("__neighbours").begin_array().end_array();
        j.end_object();
    }
    j.end_array();
    j.key("worlds").begin_array().end_array();
    j.key("dummyWorldIid").value(iid_of(seed, "world"));
    j.end_object();
    doc.json = j.str();
    doc.json += '\n';
    return doc;
}

bool write_ldtk(const LdtkSource& source, const fs::path& path, Diagnostics& diags) {
    if (auto why = ldtk_unsupported(*source.map)) {
        diags.push_back(error_at(path.string(), 0, 0, *why));
        return false;
    }
    const LdtkPaths paths = ldtk_paths(path);
    LdtkDocument doc = ldtk_document(source, path);
    if (!save_png(paths.tiles, doc.atlas.image, diags)) return false;
    if (ldtk_writes_objects(*source.map) &&
        !save_png(paths.objects, source.map->sprites.image, diags))
        return false;
    return write_file_atomic(paths.ldtk, doc.json, diags);
}

} // namespace tilegen::io
