#include "io/project_loader.hpp"

#include <map>

#include "core/hash.hpp"
#include "io/png.hpp"

namespace tilegen::io {

namespace fs = std::filesystem;

namespace {
// A path relative to `base_file`'s folder, normalised, for reading and for messages.
fs::path beside(const fs::path& base_file, const std::string& relative) {
    fs::path p(relative);
    if (p.is_absolute()) return p.lexically_normal();
    fs::path r = (base_file.parent_path() / p).lexically_normal();
    return r.empty() ? fs::path(".") : r;
}

// Re-points diagnostics that name `path` with no position to the position that referenced it.
void attribute(Diagnostics& diags, std::size_t from, const std::string& file, int line,
               int column) {
    for (std::size_t i = from; i < diags.size(); ++i)
        if (diags[i].line == 0) {
            diags[i].message = diags[i].file + ": " + diags[i].message;
            diags[i].file = file;
            diags[i].line = line;
            diags[i].column = column;
        }
}

// Reads the file at `path`, which `file` names at line:column: a file that cannot be read is said
// there.
std::optional<std::string> read_named(const FileSource& files, const fs::path& path,
                                      const std::string& file, int line, int column,
                                      Diagnostics& diags) {
    const std::size_t mark = diags.size();
    auto text = files.read(path, diags);
    attribute(diags, mark, file, line, column);
    return text;
}

// Reads and decodes the image at `path`, which `file` names at line:column: an image that cannot be
// read or decoded is said there.
std::optional<Image> read_named_image(const FileSource& files, const fs::path& path,
                                      const std::string& file, int line, int column,
                                      Diagnostics& diags) {
    const std::size_t mark = diags.size();
    std::optional<Image> image;
    if (auto bytes = files.read(path, diags))
        image = decode_image(*bytes, path.generic_string(), diags);
    attribute(diags, mark, file, line, column);
    return image;
}
} // namespace

namespace {
// Reads through `files` and folds every file's bytes into a hash, so a map can name exactly what
// made it.
class HashingReader final : public FileSource {
  public:
    explicit HashingReader(const FileSource& files) : files_(files) {}
    std::optional<std::string> read(const fs::path& path, Diagnostics& diags) const override {
        auto bytes = files_.read(path, diags);
        if (bytes) hash_ = hash_values(hash_, hash_string(*bytes));
        paths_.push_back(path.string());
        return bytes;
    }
    std::uint64_t hash() const { return hash_; }
    const std::vector<std::string>& paths() const { return paths_; }

  private:
    const FileSource& files_;
    mutable std::uint64_t hash_ = 0x74696c6567656eull; // "tilegen"
    mutable std::vector<std::string> paths_;
};
} // namespace

std::optional<Project> load_project(const fs::path& recipe_path, const FileSource& source,
                                    Diagnostics& diags) {
    const std::size_t before = diags.size();
    HashingReader files(source);
    auto recipe_text = files.read(recipe_path, diags);
    if (!recipe_text) return std::nullopt;
    const std::string recipe_name = recipe_path.generic_string();
    auto recipe = parse_recipe(*recipe_text, recipe_name, diags);
    if (!recipe) return std::nullopt;

    Project project;
    project.recipe = std::move(*recipe);
    project.symbols = symbol_table(project.recipe);

    // Tileset manifest and image.
    const fs::path manifest_path = beside(recipe_path, project.recipe.tileset.path);
    std::optional<Tileset> tileset;
    if (auto text =
            read_named(files, manifest_path, recipe_name, project.recipe.tileset.position.line,
                       project.recipe.tileset.position.column, diags)) {
        if (auto manifest = parse_tileset_manifest(*text, manifest_path.generic_string(), diags)) {
            auto image = read_named_image(files, beside(manifest_path, manifest->image),
                                          manifest_path.generic_string(), manifest->image_line,
                                          manifest->image_col, diags);
            if (image) tileset = make_tileset(std::move(*manifest), std::move(*image), diags);
        }
    }

    // Sprite sheet for [[objects]].
    if (!project.recipe.tileset.objects.empty()) {
        const fs::path sheet_path = beside(recipe_path, project.recipe.tileset.objects);
        const auto& pos = project.recipe.tileset.objects_position;
        if (auto text = read_named(files, sheet_path, recipe_name, pos.line, pos.column, diags)) {
            if (auto sheet = parse_sprite_sheet(*text, sheet_path.generic_string(), diags)) {
                auto image = read_named_image(files, beside(sheet_path, sheet->image_path),
                                              sheet_path.generic_string(), sheet->image_line,
                                              sheet->image_column, diags);
                if (image && tileset &&
                    attach_sprite_image(*sheet, std::move(*image), tileset->manifest.tile_width,
                                        tileset->manifest.tile_height, diags))
                    project.sprites = std::move(*sheet);
            }
        }
        for (const ObjectRule& rule : project.recipe.objects)
            for (const std::string& name : rule.sprites)
                if (project.sprites && !project.sprites->find(name))
                    diags.push_back(error_at(recipe_name, rule.line, rule.column,
                                             "[[objects]] sprite '" + name + "' is not in " +
                                                 sheet_path.generic_string()));
        // [[places]] sprites: their footprints from the sheet.
        for (PlaceRule& place : project.recipe.places.places) {
            if (place.sprite.empty() || !project.sprites) continue;
            if (const SpriteInfo* info = project.sprites->find(place.sprite)) {
                place.footprint_w = info->footprint_w;
                place.footprint_h = info->footprint_h;
            } else {
                diags.push_back(error_at(recipe_name, place.line, place.column,
                                         "[[places]] sprite '" + place.sprite + "' is not in " +
                                             sheet_path.generic_string()));
            }
        }
    }

    if (project.recipe.tileset.objects.empty())
        for (const PlaceRule& place : project.recipe.places.places)
            if (!place.sprite.empty())
                diags.push_back(error_at(recipe_name, place.line, place.column,
                                         "[[places]] sprite '" + place.sprite +
                                             "' needs a sprite sheet: add objects = "
                                             "\"path/to/objects.toml\" to [tileset]"));

    // Rule files, in recipe order.
    for (const RuleFileRef& ref : project.recipe.rules.files) {
        const fs::path path = beside(recipe_path, ref.path);
        auto text =
            read_named(files, path, recipe_name, ref.position.line, ref.position.column, diags);
        if (!text) continue;
        RuleFile file = parse_rule_file(*text, path.generic_string(), project.symbols, diags);
        for (Rule& r : file.rules)
            project.rules.push_back(std::move(r));
        for (ClassPass& pass : file.passes)
            project.class_passes.push_back(std::move(pass));
    }

    check_corner_layers(project.rules, diags);
    if (project.recipe.rules.legalise)
        for (const Rule& rule : project.rules)
            if (rule.pattern.corner()) {
                diags.push_back(error_at(rule.file, rule.line, rule.column,
                                         "layer '" + rule.layer +
                                             "' is a corner layer (2x2 rules); [rules] legalise "
                                             "does not support corner layers yet"));
                break;
            }

    if (project.rules.empty() && !has_errors(diags) && !project.recipe.rules.files.empty()) {
        const auto& first = project.recipe.rules.files.front().position;
        diags.push_back(error_at(recipe_name, first.line, first.column,
                                 "the rule files define no rules: every cell would be unmatched"));
    }

    // Targets: tile names must exist; image files are loaded once each.
    std::map<std::string, std::size_t> image_slot;
    for (const Rule& rule : project.rules) {
        std::vector<std::string> keys(rule.targets.size());
        for (std::size_t t = 0; t < rule.targets.size(); ++t) {
            const Target& target = rule.targets[t];
            if (target.kind == Target::Kind::tile) {
                if (tileset && !tileset->index_of.contains(target.name)) {
                    std::string hint;
                    for (const auto& [name, index] : tileset->index_of)
                        if (name.starts_with(target.name.substr(
                                0, std::min<std::size_t>(target.name.size(), 4)))) {
                            hint = " (did you mean '" + name + "'?)";
                            break;
                        }
                    diags.push_back(error_at(rule.file, rule.line, target.column,
                                             "unknown tile '" + target.name + "' in tileset " +
                                                 tileset->manifest.path + hint));
                }
            } else if (target.kind == Target::Kind::image) {
                const fs::path path = beside(fs::path(rule.file), target.name);
                const std::string key = path.generic_string();
                keys[t] = key;
                if (image_slot.contains(key)) continue;
                auto image =
                    read_named_image(files, path, rule.file, rule.line, target.column, diags);
                if (!image) continue;
                if (tileset && (image->width() != tileset->manifest.tile_width ||
                                image->height() != tileset->manifest.tile_height)) {
                    diags.push_back(error_at(
                        rule.file, rule.line, target.column,
                        "image '" + target.name + "' is " + std::to_string(image->width()) + "x" +
                            std::to_string(image->height()) + " pixels, the tileset's tiles are " +
                            std::to_string(tileset->manifest.tile_width) + "x" +
                            std::to_string(tileset->manifest.tile_height)));
                    continue;
                }
                image_slot[key] = project.images.size();
                project.images.emplace_back(key, std::move(*image));
            }
        }
        project.image_key_of.push_back(std::move(keys));
    }

    if (!tileset) return std::nullopt;
    if (has_errors(diags, before)) return std::nullopt;
    project.tileset = std::move(*tileset);
    project.input_hash = files.hash();
    project.input_files = files.paths();
    return project;
}

} // namespace tilegen::io
