#include "io/infinite_writer.hpp"

#include "io/png.hpp"

namespace tilegen::io {

namespace {

int floor_div(int a, int b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

} // namespace

std::optional<InfiniteMapResult> write_infinite_map(
    const Project& project, const WorldSetup& world, const std::filesystem::path& map_path,
    const std::optional<std::filesystem::path>& png_path, const InfiniteMapOptions& options,
    const std::vector<MapProperty>& properties, Diagnostics& diags) {
    const int c = options.chunk;
    InfiniteMapResult result;
    const int cx0 = floor_div(options.region.x, c), cy0 = floor_div(options.region.y, c);
    const int cx1 = floor_div(options.region.x + options.region.width - 1, c);
    const int cy1 = floor_div(options.region.y + options.region.height - 1, c);
    result.written = {cx0 * c, cy0 * c, (cx1 - cx0 + 1) * c, (cy1 - cy0 + 1) * c};
    const int tw = world.atlas.tile_width, th = world.atlas.tile_height;

    // What the writer needs besides the chunks: the atlas, the layers' names, the properties.
    Map document;
    document.atlas = world.atlas;
    // The map's width and height: the size asked for (the layers declare the chunks' bounds), so
    // loaders that size the world from them (melonJS, Phaser) get the world generated.
    document.width = options.region.width;
    document.height = options.region.height;
    for (const LayerRules& layer : world.layers)
        document.layers.push_back({layer.name, {}});
    document.properties = properties;
    // Objects: placed band by band with the margin they depend on (world_objects), inside the
    // region asked for, so they are the finite map's objects where the classes are the same.
    if (project.sprites && !project.recipe.objects.empty()) {
        const auto objects = world_objects(project, world, options.region, options.threads);
        result.objects = objects.size();
        if (!objects.empty()) add_object_layer(document, *project.sprites, objects);
    }

    Map current; // every layer of the chunk last generated; drawn into the PNG preview
    current.width = c;
    current.height = c;
    if (png_path) current.atlas = world.atlas;
    Image image;
    if (png_path) image = Image(result.written.width * tw, result.written.height * th);

    MapChunks chunks;
    chunks.chunk = c;
    chunks.region = result.written;
    chunks.gids = [&](std::size_t layer, const Region& area) -> std::span<const Gid> {
        // Every layer is recomputed per layer written: memory stays one chunk, at the cost of
        // repeating the noise.
        std::uint64_t unmatched = 0;
        std::vector<Grid<Gid>> layers = generate_chunk(project, world, area, unmatched);
        current.layers.clear();
        for (std::size_t k = 0; k < layers.size(); ++k)
            current.layers.push_back({world.layers[k].name, std::move(layers[k])});
        if (layer == 0) {
            result.unmatched += unmatched;
            ++result.chunks;
            if (png_path) {
                // The preview gets every layer of the chunk at once, composed as render_map
                // composes them.
                const Image drawn = render_map(current);
                image.copy_from(drawn, 0, 0, drawn.width(), drawn.height(),
                                (area.x - result.written.x) * tw, (area.y - result.written.y) * th);
            }
        }
        return current.layers[layer].tiles.cells();
    };

    MapOutputOptions output;
    output.encoding = options.encoding;
    output.tilesets = options.tilesets;
    if (!write_tmx_bundle(document, map_path, diags, output, &chunks)) return std::nullopt;
    if (png_path) {
        for (const ObjectLayer& layer : document.object_layers)
            for (const MapObject& o : layer.objects)
                draw_sprite(document.sprites, o.sprite, image, o.x - result.written.x * tw,
                            o.y - document.sprites.sprite_height - result.written.y * th);
        if (!save_png(*png_path, image, diags)) return std::nullopt;
    }
    return result;
}

} // namespace tilegen::io
