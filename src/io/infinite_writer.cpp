#include "io/infinite_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/files.hpp"
#include "io/png.hpp"
#include "io/tmx_writer.hpp"
#include "io/xml_text.hpp"

namespace tilegen::io {

namespace {

int floor_div(int a, int b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}
} // namespace

std::optional<InfiniteMapResult> write_infinite_map(
    const Project& project, const WorldSetup& world, const std::filesystem::path& tmx_path,
    const std::optional<std::filesystem::path>& png_path, const InfiniteMapOptions& options,
    const std::vector<MapProperty>& properties, Diagnostics& diags) {
    const int c = options.chunk;
    InfiniteMapResult result;
    const int cx0 = floor_div(options.region.x, c), cy0 = floor_div(options.region.y, c);
    const int cx1 = floor_div(options.region.x + options.region.width - 1, c);
    const int cy1 = floor_div(options.region.y + options.region.height - 1, c);
    result.written = {cx0 * c, cy0 * c, (cx1 - cx0 + 1) * c, (cy1 - cy0 + 1) * c};
    const Atlas& atlas = world.atlas;
    const int tw = atlas.tile_width, th = atlas.tile_height;

    const TmxBundlePaths paths = tmx_bundle_paths(tmx_path);
    if (!save_png(paths.atlas, atlas.image, diags)) return std::nullopt;
    if (!write_file_atomic(
            paths.tsx, tsx_text(atlas, tmx_path.stem().string(), paths.atlas.filename().string()),
            diags))
        return std::nullopt;

    const std::filesystem::path tmp = temporary_path_for(tmx_path);
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) {
        diags.push_back(error_at(tmx_path.string(), 0, 0,
                                 std::string("cannot write file: ") + std::strerror(errno)));
        return std::nullopt;
    }
    bool ok = true;
    auto put = [&](const std::string& s) {
        ok = ok && std::fwrite(s.data(), 1, s.size(), f) == s.size();
    };

    Map preview; // one chunk, drawn into the PNG preview
    preview.width = c;
    preview.height = c;
    if (png_path) preview.atlas = atlas;
    Image image;
    if (png_path) image = Image(result.written.width * tw, result.written.height * th);

    put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    put("<map version=\"1.8\" tiledversion=\"1.8.2\" orientation=\"orthogonal\" "
        "renderorder=\"right-down\" width=\"" +
        std::to_string(c) + "\" height=\"" + std::to_string(c) + "\" tilewidth=\"" +
        std::to_string(tw) + "\" tileheight=\"" + std::to_string(th) +
        "\" infinite=\"1\" nextlayerid=\"" + std::to_string(world.layers.size() + 1) +
        "\" nextobjectid=\"1\">\n");
    if (!properties.empty()) {
        put(" <properties>\n");
        for (const auto& p : properties)
            put("  <property name=\"" + xml_escape(p.name) + "\" value=\"" + xml_escape(p.value) +
                "\"/>\n");
        put(" </properties>\n");
    }
    put(" <tileset firstgid=\"1\" source=\"" + xml_escape(paths.tsx.filename().string()) +
        "\"/>\n");
    const std::string compression = tmx_compression_attribute(options.encoding);
    for (std::size_t li = 0; li < world.layers.size() && ok; ++li) {
        put(" <layer id=\"" + std::to_string(li + 1) + "\" name=\"" +
            xml_escape(world.layers[li].name) + "\" width=\"" +
            std::to_string(result.written.width) + "\" height=\"" +
            std::to_string(result.written.height) + "\">\n");
        put("  <data encoding=\"" + std::string(tmx_encoding_attribute(options.encoding)) + "\"" +
            (compression.empty() ? std::string() : " compression=\"" + compression + "\"") + ">\n");
        for (int cy = cy0; cy <= cy1 && ok; ++cy)
            for (int cx = cx0; cx <= cx1 && ok; ++cx) {
                const Region chunk{cx * c, cy * c, c, c};
                std::uint64_t unmatched = 0;
                // Every layer is recomputed per pass: memory stays one chunk, at the cost of
                // repeating the noise.
                std::vector<Grid<Gid>> layers = generate_chunk(project, world, chunk, unmatched);
                if (li == 0) {
                    result.unmatched += unmatched;
                    ++result.chunks;
                }
                const Grid<Gid>& g = layers[li];
                put("   <chunk x=\"" + std::to_string(chunk.x) + "\" y=\"" +
                    std::to_string(chunk.y) + "\" width=\"" + std::to_string(c) + "\" height=\"" +
                    std::to_string(c) + "\">");
                put(encode_layer(g.cells(), c, options.encoding));
                put("</chunk>\n");
                if (png_path && li == 0) {
                    // The preview gets every layer of the chunk at once, composed as render_map
                    // composes them.
                    preview.layers.clear();
                    for (std::size_t k = 0; k < layers.size(); ++k)
                        preview.layers.push_back({world.layers[k].name, std::move(layers[k])});
                    const Image drawn = render_map(preview);
                    image.copy_from(drawn, 0, 0, drawn.width(), drawn.height(),
                                    (chunk.x - result.written.x) * tw,
                                    (chunk.y - result.written.y) * th);
                }
            }
        put("  </data>\n </layer>\n");
    }
    put("</map>\n");
    ok = (std::fclose(f) == 0) && ok;
    if (!ok) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        diags.push_back(error_at(tmx_path.string(), 0, 0, "cannot write file (disk full?)"));
        return std::nullopt;
    }
    if (!commit_temporary(tmp, tmx_path, diags)) return std::nullopt;
    if (png_path && !save_png(*png_path, image, diags)) return std::nullopt;
    return result;
}

} // namespace tilegen::io
