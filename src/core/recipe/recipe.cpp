#include "core/recipe/recipe.hpp"

#include <cmath>
#include <filesystem>
#include <set>

#include "core/toml_reader.hpp"

namespace tilegen {

namespace {
SourcePosition position_of(const toml::source_region& r) {
    return {static_cast<int>(r.begin.line), static_cast<int>(r.begin.column)};
}
} // namespace

bool is_valid_symbol(char c) {
    if (c <= ' ' || c >= 0x7f) return false;
    return std::string_view("?![]@*#/\\").find(c) == std::string_view::npos;
}

std::optional<Recipe> parse_recipe(std::string_view text, const std::string& path, Diagnostics& diags) {
    const std::size_t errors_before = diags.size();
    TomlReader reader(path, diags);
    auto doc = reader.parse(text);
    if (!doc) return std::nullopt;
    const toml::table& root = *doc;

    Recipe recipe;
    recipe.path = path;
    recipe.name = std::filesystem::path(path).stem().string();
    reader.reject_unknown_keys(root, "", {"map", "noise", "terrain", "rules", "tileset"});

    if (const toml::table* map = reader.table(root, "map", "")) {
        reader.reject_unknown_keys(*map, "map", {"width", "height", "seed"});
        recipe.map.width = static_cast<int>(reader.integer(*map, "width", "map", 128, 1, 65536));
        recipe.map.height = static_cast<int>(reader.integer(*map, "height", "map", 128, 1, 65536));
        recipe.map.seed = static_cast<std::uint64_t>(reader.integer(*map, "seed", "map", 1, 0, INT64_MAX));
    }

    if (const toml::table* noise = reader.table(root, "noise", "")) {
        reader.reject_unknown_keys(*noise, "noise", {"kind", "interpolation", "octaves", "persistence"});
        recipe.noise.kind = reader.choice(*noise, "kind", "noise", "harmonic", {"harmonic"});
        std::string interp =
            reader.choice(*noise, "interpolation", "noise", "bicubic", {"bicubic", "bilinear"});
        recipe.noise.harmonic.interpolation = interp == "bilinear" ? Interpolation::bilinear : Interpolation::bicubic;
        recipe.noise.harmonic.octaves = static_cast<int>(reader.integer(*noise, "octaves", "noise", 0, 0, 30));
        recipe.noise.harmonic.persistence = reader.number(*noise, "persistence", "noise", 0.5, 1e-6, 1.0);
    }

    // [[terrain]]
    if (const toml::node* node = root.get("terrain")) {
        const toml::array* arr = node->as_array();
        if (!arr || !arr->is_array_of_tables()) {
            reader.error(*node, "'terrain' must be an array of tables: write each class as [[terrain]]");
        } else {
            std::set<char> symbols;
            std::set<std::string> names;
            double total = 0;
            for (const toml::node& item : *arr) {
                const toml::table& t = *item.as_table();
                reader.reject_unknown_keys(t, "terrain", {"name", "symbol", "share"});
                TerrainClass cls;
                if (!t.get("name")) reader.error(t, "terrain class has no 'name'");
                if (!t.get("symbol")) reader.error(t, "terrain class has no 'symbol'");
                if (!t.get("share")) reader.error(t, "terrain class has no 'share'");
                cls.name = reader.string(t, "name", "terrain", "");
                std::string symbol = reader.string(t, "symbol", "terrain", "");
                cls.share = reader.number(t, "share", "terrain", 0, 0, 1);
                if (t.get("name") && cls.name.empty()) reader.error(TomlReader::where(t, "name"), "terrain name is empty");
                if (!cls.name.empty() && !names.insert(cls.name).second)
                    reader.error(TomlReader::where(t, "name"), "duplicate terrain name '" + cls.name + "'");
                if (t.get("symbol")) {
                    if (symbol.size() != 1 || !is_valid_symbol(symbol[0])) {
                        reader.error(TomlReader::where(t, "symbol"),
                                     "terrain symbol must be one printable character other than ? ! [ ] @ * # / \\ "
                                     "(got \"" + symbol + "\")");
                    } else {
                        cls.symbol = symbol[0];
                        if (!symbols.insert(cls.symbol).second)
                            reader.error(TomlReader::where(t, "symbol"),
                                         "duplicate terrain symbol '" + symbol + "'");
                    }
                }
                total += cls.share;
                recipe.terrain.push_back(cls);
                recipe.terrain_positions.push_back(position_of(t.source()));
            }
            if (recipe.terrain.size() < 2 || recipe.terrain.size() > static_cast<std::size_t>(kMaxClasses))
                reader.error(*node, "a recipe needs 2 to " + std::to_string(kMaxClasses) + " terrain classes, found " +
                                        std::to_string(recipe.terrain.size()));
            else if (std::abs(total - 1.0) > 1e-6)
                reader.error(*node, "terrain shares add up to " + std::to_string(total) + ", expected 1");
        }
    } else {
        reader.error(root.source(), "recipe has no [[terrain]] classes");
    }

    if (const toml::table* rules = reader.table(root, "rules", "")) {
        reader.reject_unknown_keys(*rules, "rules", {"files", "outside"});
        if (const toml::node* files = rules->get("files")) {
            const toml::array* arr = files->as_array();
            if (!arr) {
                reader.error(*files, "'rules.files' must be an array of paths, e.g. [\"../rules/overworld.rules\"]");
            } else {
                for (const toml::node& f : *arr) {
                    if (const auto* s = f.as_string())
                        recipe.rules.files.push_back({s->get(), position_of(f.source())});
                    else
                        reader.error(f, "rule file path must be a string, not " + toml_type_name(f.type()));
                }
                if (arr->empty()) reader.error(*files, "'rules.files' is empty");
            }
        } else {
            reader.error(rules->source(), "[rules] has no 'files'");
        }
        recipe.rules.outside = reader.string(*rules, "outside", "rules", "clamp");
        recipe.rules.outside_position = position_of(TomlReader::where(*rules, "outside"));
        if (recipe.rules.outside != "clamp") {
            bool known = false;
            for (const auto& c : recipe.terrain) known = known || std::string(1, c.symbol) == recipe.rules.outside;
            if (!known)
                reader.error(TomlReader::where(*rules, "outside"),
                             "'rules.outside' is \"" + recipe.rules.outside +
                                 "\", expected \"clamp\" or a terrain symbol");
        }
    } else {
        reader.error(root.source(), "recipe has no [rules] section (rules.files lists the rule files)");
    }

    if (const toml::table* tileset = reader.table(root, "tileset", "")) {
        reader.reject_unknown_keys(*tileset, "tileset", {"path"});
        if (!tileset->get("path")) reader.error(tileset->source(), "[tileset] has no 'path'");
        recipe.tileset.path = reader.string(*tileset, "path", "tileset", "");
        recipe.tileset.position = position_of(TomlReader::where(*tileset, "path"));
    } else {
        reader.error(root.source(), "recipe has no [tileset] section (tileset.path names the tileset manifest)");
    }

    for (std::size_t i = errors_before; i < diags.size(); ++i)
        if (diags[i].severity == Severity::error) return std::nullopt;
    return recipe;
}

} // namespace tilegen
