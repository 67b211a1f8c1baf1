#include "core/objects/sprite_sheet.hpp"

#include "core/toml_reader.hpp"

namespace tilegen {

const SpriteInfo* SpriteSheet::find(const std::string& name) const {
    for (const auto& s : sprites)
        if (s.name == name) return &s;
    return nullptr;
}

std::optional<SpriteSheet> parse_sprite_sheet(std::string_view text, const std::string& path,
                                              Diagnostics& diags) {
    return read_toml_document<
        SpriteSheet>(text, path, diags, [&](TomlReader& r, const toml::table& root) {
        SpriteSheet sheet;
        sheet.path = path;
        r.reject_unknown_keys(root, "", {"image", "sprite_width", "sprite_height", "sprites"});
        LocatedString image = r.required_string(root, "image", "", "sprite sheet has no 'image'");
        sheet.image_path = std::move(image.value);
        sheet.image_line = image.line;
        sheet.image_column = image.column;
        sheet.sprite_width = static_cast<int>(r.integer(root, "sprite_width", "", 32, 1, 1024));
        sheet.sprite_height = static_cast<int>(r.integer(root, "sprite_height", "", 48, 1, 1024));
        // Named entries, walked like the tileset manifest's [tiles]; the entries differ.
        if (const toml::table* sprites = r.table(root, "sprites", "")) {
            for (const auto& [key, node] : *sprites) {
                SpriteInfo s;
                s.name = std::string(key.str());
                s.line = static_cast<int>(key.source().begin.line);
                s.column = static_cast<int>(key.source().begin.column);
                const toml::table* t = node.as_table();
                if (!t) {
                    r.error(node, "sprite '" + s.name +
                                      "' must be a table like { index = 0, footprint = [2, 2] }");
                    continue;
                }
                const std::string prefix = "sprites." + s.name;
                r.reject_unknown_keys(*t, prefix, {"index", "footprint"});
                if (!t->get("index")) r.error(*t, "sprite '" + s.name + "' has no 'index'");
                s.index = static_cast<int>(r.integer(*t, "index", prefix, 0, 0, 100000));
                if (const toml::node* f = t->get("footprint")) {
                    const toml::array* a = f->as_array();
                    if (!a || a->size() != 2 || !(*a)[0].is_integer() || !(*a)[1].is_integer() ||
                        (*a)[0].as_integer()->get() < 1 || (*a)[1].as_integer()->get() < 1 ||
                        (*a)[0].as_integer()->get() > 16 || (*a)[1].as_integer()->get() > 16) {
                        r.error(
                            *f,
                            "'" + prefix +
                                ".footprint' must be [width, height] in map cells, each 1 to 16");
                    } else {
                        s.footprint_w = static_cast<int>((*a)[0].as_integer()->get());
                        s.footprint_h = static_cast<int>((*a)[1].as_integer()->get());
                    }
                }
                sheet.sprites.push_back(s);
            }
        } else if (!root.get("sprites")) {
            r.error(root.source(), "sprite sheet has no [sprites] table");
        }
        return sheet;
    });
}

bool attach_sprite_image(SpriteSheet& sheet, Image image, int tile_width, int tile_height,
                         Diagnostics& diags) {
    sheet.columns = image.width() / sheet.sprite_width;
    const int rows = image.height() / sheet.sprite_height;
    bool ok = true;
    if (sheet.columns < 1 || rows < 1) {
        diags.push_back(error_at(sheet.path, sheet.image_line, sheet.image_column,
                                 "image is smaller than one " + std::to_string(sheet.sprite_width) +
                                     "x" + std::to_string(sheet.sprite_height) + " sprite"));
        return false;
    }
    for (const SpriteInfo& s : sheet.sprites) {
        if (s.index >= sheet.columns * rows) {
            diags.push_back(error_at(sheet.path, s.line, s.column,
                                     "sprite '" + s.name + "' has index " +
                                         std::to_string(s.index) + " but the image holds " +
                                         std::to_string(sheet.columns * rows) + " sprites"));
            ok = false;
        }
        if (s.footprint_w * tile_width > sheet.sprite_width ||
            s.footprint_h * tile_height > sheet.sprite_height) {
            diags.push_back(
                error_at(sheet.path, s.line, s.column,
                         "sprite '" + s.name + "' has a footprint of " +
                             std::to_string(s.footprint_w) + "x" + std::to_string(s.footprint_h) +
                             " tiles, larger than its " + std::to_string(sheet.sprite_width) + "x" +
                             std::to_string(sheet.sprite_height) + " pixel cell"));
            ok = false;
        }
    }
    sheet.image = std::move(image);
    return ok;
}

} // namespace tilegen
