#include "core/tileset/tileset.hpp"

#include <set>

#include "core/toml_reader.hpp"

namespace tilegen {

std::optional<TilesetManifest> parse_tileset_manifest(std::string_view text,
                                                      const std::string& path, Diagnostics& diags) {
    return read_toml_document<TilesetManifest>(
        text, path, diags, [&](TomlReader& reader, const toml::table& root) {
            TilesetManifest m;
            m.path = path;
            reader.reject_unknown_keys(root, "", {"image", "tile_width", "tile_height", "tiles"});
            LocatedString image =
                reader.required_string(root, "image", "", "tileset manifest has no 'image'");
            m.image = std::move(image.value);
            m.image_line = image.line;
            m.image_col = image.column;
            m.tile_width = static_cast<int>(reader.integer(root, "tile_width", "", 16, 1, 1024));
            m.tile_height = static_cast<int>(reader.integer(root, "tile_height", "", 16, 1, 1024));
            // Named entries, walked like the sprite sheet's [sprites]; the entries differ.
            if (const toml::table* tiles = reader.table(root, "tiles", "")) {
                for (const auto& [key, node] : *tiles) {
                    TilesetManifest::Entry e;
                    e.name = std::string(key.str());
                    e.line = static_cast<int>(key.source().begin.line);
                    e.col = static_cast<int>(key.source().begin.column);
                    if (const auto* i = node.as_integer()) {
                        if (i->get() < 0 || i->get() > 1'000'000) {
                            reader.error(node, "tile index " + std::to_string(i->get()) +
                                                   " is out of range (0 to 1000000)");
                            continue;
                        }
                        e.index = static_cast<int>(i->get());
                    } else if (const auto* a = node.as_array(); a && a->size() == 2 &&
                                                                (*a)[0].as_integer() &&
                                                                (*a)[1].as_integer()) {
                        long long c = (*a)[0].as_integer()->get(), r = (*a)[1].as_integer()->get();
                        if (c < 0 || r < 0 || c > 100000 || r > 100000) {
                            reader.error(node, "tile position [" + std::to_string(c) + ", " +
                                                   std::to_string(r) + "] is out of range");
                            continue;
                        }
                        e.column = static_cast<int>(c);
                        e.row = static_cast<int>(r);
                    } else {
                        reader.error(node, "tile '" + e.name +
                                               "' must be an index or [column, row], not " +
                                               toml_type_name(node.type()));
                        continue;
                    }
                    m.tiles.push_back(std::move(e));
                }
            } else if (!root.get("tiles")) {
                reader.error(root.source(), "tileset manifest has no [tiles] table");
            }
            return m;
        });
}

std::optional<Tileset> make_tileset(TilesetManifest manifest, Image image, Diagnostics& diags) {
    Tileset t;
    t.columns = image.width() / manifest.tile_width;
    t.rows = image.height() / manifest.tile_height;
    if (t.columns < 1 || t.rows < 1) {
        diags.push_back(error_at(manifest.path, manifest.image_line, manifest.image_col,
                                 "image is " + std::to_string(image.width()) + "x" +
                                     std::to_string(image.height()) + " pixels, smaller than one " +
                                     std::to_string(manifest.tile_width) + "x" +
                                     std::to_string(manifest.tile_height) + " tile"));
        return std::nullopt;
    }
    const int count = t.columns * t.rows;
    bool ok = true;
    for (const auto& e : manifest.tiles) {
        int index = e.index;
        if (index < 0) {
            if (e.column >= t.columns || e.row >= t.rows) {
                diags.push_back(error_at(
                    manifest.path, e.line, e.col,
                    "tile '" + e.name + "' at [" + std::to_string(e.column) + ", " +
                        std::to_string(e.row) + "] is outside the image (" +
                        std::to_string(t.columns) + " x " + std::to_string(t.rows) + " tiles)"));
                ok = false;
                continue;
            }
            index = e.row * t.columns + e.column;
        } else if (index >= count) {
            diags.push_back(error_at(manifest.path, e.line, e.col,
                                     "tile '" + e.name + "' has index " + std::to_string(index) +
                                         " but the image holds " + std::to_string(count) +
                                         " tiles"));
            ok = false;
            continue;
        }
        t.index_of[e.name] = index;
    }
    if (!ok) return std::nullopt;
    t.manifest = std::move(manifest);
    t.image = std::move(image);
    return t;
}

Image error_tile_image(int w, int h) {
    Image img(w, h, Rgba{220, 20, 30, 255});
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            bool border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            int d1 = x * h - y * w, d2 = x * h - (h - 1 - y) * w;
            bool cross = std::abs(d1) < std::max(w, h) || std::abs(d2) < std::max(w, h);
            if (border || cross) img.set(x, y, Rgba{90, 0, 10, 255});
        }
    return img;
}

Atlas build_atlas(const Tileset& tileset, const std::vector<std::pair<std::string, Image>>& extra,
                  std::vector<int>& extra_index, int& error_index) {
    Atlas atlas;
    const int tw = tileset.manifest.tile_width, th = tileset.manifest.tile_height;
    atlas.tile_width = tw;
    atlas.tile_height = th;
    atlas.columns = tileset.columns;
    const int base = tileset.columns * tileset.rows;
    const int total = base + static_cast<int>(extra.size()) + 1;
    const int rows = (total + atlas.columns - 1) / atlas.columns;
    atlas.image = Image(atlas.columns * tw, rows * th);
    atlas.image.copy_from(tileset.image, 0, 0, tileset.columns * tw, tileset.rows * th, 0, 0);
    atlas.names.assign(static_cast<std::size_t>(total), std::string());
    for (const auto& [name, index] : tileset.index_of)
        if (atlas.names[static_cast<std::size_t>(index)].empty())
            atlas.names[static_cast<std::size_t>(index)] = name;
    auto place = [&](int index, const Image& img, const std::string& name) {
        atlas.image.copy_from(img, 0, 0, tw, th, (index % atlas.columns) * tw,
                              (index / atlas.columns) * th);
        atlas.names[static_cast<std::size_t>(index)] = name;
    };
    extra_index.clear();
    for (std::size_t i = 0; i < extra.size(); ++i) {
        int index = base + static_cast<int>(i);
        place(index, extra[i].second, extra[i].first);
        extra_index.push_back(index);
    }
    error_index = total - 1;
    place(error_index, error_tile_image(tw, th), "@error");
    return atlas;
}

} // namespace tilegen
