// The public facade (include/tilegen/tilegen.hpp) over the core pipeline and the I/O library:
// loads a Project, runs generate_map or prepare_world + generate_chunk, and copies the results
// into the public value types. Input: recipe paths or text, overrides. Output: api::Map values,
// Tiled files, PNGs. Invariant: nothing here changes what the pipeline computes; it only copies.
#include "tilegen/tilegen.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>

#include "core/diagnostic.hpp"
#include "core/parallel.hpp"
#include "core/pipeline.hpp"
#include "io/file_source.hpp"
#include "io/png_stream.hpp"
#include "io/project_loader.hpp"
#include "io/tmx_writer.hpp"

namespace tilegen::api {

namespace {

Diagnostic to_public(const tilegen::Diagnostic& d) {
    Diagnostic out;
    out.severity = d.severity == Severity::error     ? Diagnostic::Severity::error
                   : d.severity == Severity::warning ? Diagnostic::Severity::warning
                                                     : Diagnostic::Severity::note;
    out.file = d.file;
    out.line = d.line;
    out.column = d.column;
    out.message = d.message;
    return out;
}
void append(Diagnostics& to, const tilegen::Diagnostics& from) {
    for (const auto& d : from)
        to.push_back(to_public(d));
}
tilegen::Diagnostic to_internal(const Diagnostic& d) {
    return {d.severity == Diagnostic::Severity::error     ? Severity::error
            : d.severity == Diagnostic::Severity::warning ? Severity::warning
                                                          : Severity::note,
            d.file, d.line, d.column, d.message};
}

// The recipe text given in memory at `recipe_path`; every other file from the disk.
class RecipeInMemory final : public io::FileSource {
  public:
    RecipeInMemory(std::filesystem::path recipe_path, std::string text)
        : recipe_path_(std::move(recipe_path)), text_(std::move(text)) {}
    std::optional<std::string> read(const std::filesystem::path& path,
                                    tilegen::Diagnostics& diags) const override {
        if (path.lexically_normal() == recipe_path_.lexically_normal()) return text_;
        return io::DiskFiles{}.read(path, diags);
    }

  private:
    std::filesystem::path recipe_path_;
    std::string text_;
};

Pixels pixels_of(const Image& image) {
    return {image.width(), image.height(), {image.pixels().begin(), image.pixels().end()}};
}

} // namespace

std::string Diagnostic::text() const {
    return format_diagnostic(to_internal(*this));
}

const char* version() {
    return TILEGEN_VERSION;
}

// ---- Map ----

struct Map::Impl {
    int x = 0, y = 0;
    // Layers, atlas, sprites, object layers, properties (what writers take). A World's regions
    // leave the atlas empty and share the world's (`world_atlas`) until a writer needs it.
    tilegen::Map map;
    std::shared_ptr<const void> world; // keeps world_atlas alive
    const Atlas* world_atlas = nullptr;
    std::vector<std::uint8_t> classes;
    std::vector<Layer> layers;
    std::vector<Object> objects;
    std::vector<Place> places;
    Stats stats;
};

Map::Map() : impl_(std::make_unique<Impl>()) {}
Map::~Map() = default;
Map::Map(Map&&) noexcept = default;
Map& Map::operator=(Map&&) noexcept = default;
int Map::x() const {
    return impl_->x;
}
int Map::y() const {
    return impl_->y;
}
int Map::width() const {
    return impl_->map.width;
}
int Map::height() const {
    return impl_->map.height;
}
int Map::class_at(int cx, int cy) const {
    return impl_->classes[static_cast<std::size_t>(cy) * static_cast<std::size_t>(width()) +
                          static_cast<std::size_t>(cx)];
}
const std::vector<std::uint8_t>& Map::classes() const {
    return impl_->classes;
}
const std::vector<Layer>& Map::layers() const {
    return impl_->layers;
}
Tile Map::tile(std::size_t layer, int cx, int cy) const {
    const Layer& l = impl_->layers[layer];
    const std::size_t row = static_cast<std::size_t>(width()) + (l.corner ? 1 : 0);
    return {l.gids[static_cast<std::size_t>(cy) * row + static_cast<std::size_t>(cx)]};
}
const std::vector<Object>& Map::objects() const {
    return impl_->objects;
}
const std::vector<Place>& Map::places() const {
    return impl_->places;
}
const Stats& Map::stats() const {
    return impl_->stats;
}

namespace {
// The map with its atlas (a region's copy of its world's atlas, made only for writing).
template <class Body> auto with_atlas(const Map::Impl& impl, Body&& body) {
    if (!impl.world_atlas) return body(impl.map);
    tilegen::Map copy;
    copy.width = impl.map.width;
    copy.height = impl.map.height;
    copy.layers = impl.map.layers;
    copy.sprites = impl.map.sprites;
    copy.object_layers = impl.map.object_layers;
    copy.properties = impl.map.properties;
    copy.atlas = *impl.world_atlas;
    return body(copy);
}
} // namespace

bool Map::write_tiled(const std::filesystem::path& path, Diagnostics& diags) const {
    tilegen::Diagnostics d;
    const bool ok =
        with_atlas(*impl_, [&](const tilegen::Map& m) { return io::write_tmx_bundle(m, path, d); });
    append(diags, d);
    return ok;
}
bool Map::write_png(const std::filesystem::path& path, Diagnostics& diags) const {
    tilegen::Diagnostics d;
    const bool ok = with_atlas(*impl_, [&](const tilegen::Map& m) {
        return io::save_preview_png(path, m, io::kPreviewMaxSide, {}, d).has_value();
    });
    append(diags, d);
    return ok;
}
Pixels Map::render() const {
    return with_atlas(*impl_, [](const tilegen::Map& m) { return pixels_of(render_map(m)); });
}

namespace {

void fill_layers(Map::Impl& impl) {
    for (const auto& layer : impl.map.layers)
        impl.layers.push_back(
            {layer.name, {layer.tiles.cells().begin(), layer.tiles.cells().end()}, layer.corner});
}
void fill_classes(Map::Impl& impl, const ClassGrid& classes) {
    impl.classes.assign(classes.cells().begin(), classes.cells().end());
}

} // namespace

// ---- Generator ----

struct Generator::Impl {
    std::shared_ptr<const Project> project;
    std::vector<Terrain> terrains;
    Tileset tileset; // the atlas every run builds (build_atlas), as public values
    Sprites sprites; // the objects' sheet, as public values
    std::optional<std::uint64_t> seed;
    std::optional<int> width, height;
    int threads = 1;
};

struct World::Impl {
    std::shared_ptr<const Project> project;
    WorldSetup world;
    std::vector<Terrain> terrains;
    Tileset tileset;
    Sprites sprites;
};

namespace {

Sprites sprites_of(const std::optional<SpriteSheet>& sheet) {
    Sprites s;
    if (!sheet) return s;
    s.sprite_width = sheet->sprite_width;
    s.sprite_height = sheet->sprite_height;
    s.columns = sheet->columns;
    if (sheet->sprite_height > 0)
        s.names.assign(static_cast<std::size_t>(sheet->columns *
                                                (sheet->image.height() / sheet->sprite_height)),
                       "");
    for (const SpriteInfo& info : sheet->sprites)
        if (info.index >= 0 && static_cast<std::size_t>(info.index) < s.names.size())
            s.names[static_cast<std::size_t>(info.index)] = info.name;
    s.image = pixels_of(sheet->image);
    return s;
}

Tileset tileset_of(const Atlas& atlas) {
    return {atlas.tile_width, atlas.tile_height, atlas.columns, atlas.names,
            pixels_of(atlas.image)};
}

// The loaded project behind a new Generator's state; null (diagnostics appended) on failure.
std::shared_ptr<Generator::Impl> finish_load(std::optional<Project> project,
                                             const tilegen::Diagnostics& d, Diagnostics& diags) {
    append(diags, d);
    if (!project) return nullptr;
    auto impl = std::make_shared<Generator::Impl>();
    for (const auto& t : project->recipe.terrain)
        impl->terrains.push_back({t.name, t.symbol, t.walkable});
    std::vector<int> image_index;
    int error_index = 0;
    impl->tileset =
        tileset_of(build_atlas(project->tileset, project->images, image_index, error_index));
    impl->sprites = sprites_of(project->sprites);
    impl->project = std::make_shared<const Project>(std::move(*project));
    return impl;
}

} // namespace

Generator::Generator(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Generator::Generator(const Generator&) = default;
Generator& Generator::operator=(const Generator&) = default;
Generator::Generator(Generator&&) noexcept = default;
Generator& Generator::operator=(Generator&&) noexcept = default;
Generator::~Generator() = default;

std::optional<Generator> Generator::from_file(const std::filesystem::path& path,
                                              Diagnostics& diags) {
    tilegen::Diagnostics d;
    auto project = io::load_project(path, io::DiskFiles{}, d);
    auto impl = finish_load(std::move(project), d, diags);
    if (!impl) return std::nullopt;
    return Generator(std::move(impl));
}

std::optional<Generator> Generator::from_string(const std::string& toml,
                                                const std::filesystem::path& base_dir,
                                                Diagnostics& diags) {
    const std::filesystem::path path = base_dir / "<recipe>.toml";
    tilegen::Diagnostics d;
    auto project = io::load_project(path, RecipeInMemory(path, toml), d);
    auto impl = finish_load(std::move(project), d, diags);
    if (!impl) return std::nullopt;
    return Generator(std::move(impl));
}

std::optional<Generator> Generator::builtin(Diagnostics& diags) {
    tilegen::Diagnostics d;
    auto project = io::load_project(io::kDefaultRecipePath, io::EmbeddedFiles{}, d);
    auto impl = finish_load(std::move(project), d, diags);
    if (!impl) return std::nullopt;
    return Generator(std::move(impl));
}

// The overrides change a private copy, so copies of a Generator stay independent.
void Generator::set_seed(std::uint64_t seed) {
    impl_ = std::make_shared<Impl>(*impl_);
    impl_->seed = seed;
}
void Generator::set_size(int width, int height) {
    impl_ = std::make_shared<Impl>(*impl_);
    impl_->width = width;
    impl_->height = height;
}
void Generator::set_threads(int threads) {
    impl_ = std::make_shared<Impl>(*impl_);
    impl_->threads = resolve_threads(threads);
}
std::uint64_t Generator::seed() const {
    return impl_->seed.value_or(impl_->project->recipe.map.seed);
}
int Generator::width() const {
    return impl_->width.value_or(impl_->project->recipe.map.width);
}
int Generator::height() const {
    return impl_->height.value_or(impl_->project->recipe.map.height);
}
const std::vector<Terrain>& Generator::terrains() const {
    return impl_->terrains;
}
const Sprites& Generator::sprites() const {
    return impl_->sprites;
}
const Tileset& Generator::tileset() const {
    return impl_->tileset;
}

namespace {
// set_size's values are checked when they are used: an error naming the recipe when out of range.
bool size_in_range(const Generator& g, const Project& project, Diagnostics& diags) {
    if (g.width() >= 1 && g.width() <= 65536 && g.height() >= 1 && g.height() <= 65536) return true;
    diags.push_back(to_public(error_at(project.recipe.path, 0, 0,
                                       "map size " + std::to_string(g.width()) + "x" +
                                           std::to_string(g.height()) +
                                           " is out of range (1 to 65536 cells per side)")));
    return false;
}
} // namespace

std::optional<Map> Generator::generate(Diagnostics& diags) const {
    const Project& project = *impl_->project;
    if (!size_in_range(*this, project, diags)) return std::nullopt;
    GenerateOptions options;
    options.seed = impl_->seed;
    options.width = impl_->width;
    options.height = impl_->height;
    options.threads = impl_->threads;
    options.keep_details = false;
    const auto t0 = std::chrono::steady_clock::now();
    GenerateResult result = generate_map(project, options);
    const double total_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!result.constraints.met) {
        const auto& c = project.recipe.places.constraints;
        diags.push_back(to_public(error_at(project.recipe.path, c ? c->line : 0, c ? c->column : 0,
                                           "constraint not met after " +
                                               std::to_string(result.constraints.tries) +
                                               " tries: " + result.constraints.unmet)));
        return std::nullopt;
    }
    Map out;
    Map::Impl& impl = *out.impl_;
    fill_classes(impl, result.classes);
    impl.map = std::move(result.map);
    fill_layers(impl);
    if (project.sprites)
        for (const auto& o : result.objects) {
            const auto& info = project.sprites->sprites[static_cast<std::size_t>(o.sprite)];
            impl.objects.push_back(
                {info.name, info.index, o.x, o.y, info.footprint_w, info.footprint_h});
        }
    for (const auto& p : result.places)
        impl.places.push_back({project.recipe.places.places[static_cast<std::size_t>(p.rule)].name,
                               p.x, p.y, p.w, p.h});
    impl.stats.seed = result.seed;
    impl.stats.class_fractions = result.class_fractions;
    impl.stats.unmatched = result.unmatched;
    impl.stats.total_ms = total_ms;
    for (const auto& t : result.timings)
        impl.stats.stage_ms.emplace_back(t.stage, t.ms);
    return out;
}

std::optional<World> Generator::world(Diagnostics& diags) const {
    const Project& project = *impl_->project;
    if (!size_in_range(*this, project, diags)) return std::nullopt;
    const int w = width(), h = height();
    const Region sample{0, 0, std::min(w, 1024), std::min(h, 1024)};
    tilegen::Diagnostics d;
    auto setup = prepare_world(project, seed(), w, h, sample, d);
    append(diags, d);
    if (!setup) return std::nullopt;
    auto impl = std::make_shared<World::Impl>();
    impl->project = impl_->project;
    impl->terrains = impl_->terrains;
    impl->tileset = tileset_of(setup->atlas);
    impl->sprites = impl_->sprites;
    impl->world = std::move(*setup);
    return World(std::move(impl));
}

// ---- World ----

World::World(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
World::World(const World&) = default;
World& World::operator=(const World&) = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;
World::~World() = default;
const std::vector<Terrain>& World::terrains() const {
    return impl_->terrains;
}
const Tileset& World::tileset() const {
    return impl_->tileset;
}
const Sprites& World::sprites() const {
    return impl_->sprites;
}

Map World::region(int x, int y, int width, int height) const {
    if (width < 1 || height < 1) throw std::invalid_argument("World::region: empty region");
    const auto t0 = std::chrono::steady_clock::now();
    const Region area{x, y, width, height};
    std::uint64_t unmatched = 0;
    std::vector<Grid<Gid>> tiles = generate_chunk(*impl_->project, impl_->world, area, unmatched);
    Map out;
    Map::Impl& impl = *out.impl_;
    impl.x = x;
    impl.y = y;
    impl.map.width = width;
    impl.map.height = height;
    impl.world = impl_;
    impl.world_atlas = &impl_->world.atlas;
    for (std::size_t k = 0; k < tiles.size(); ++k)
        impl.map.layers.push_back(
            {impl_->world.layers[k].name, std::move(tiles[k]), impl_->world.layers[k].corner()});
    fill_layers(impl);
    fill_classes(impl, world_classes(*impl_->project, impl_->world, area));
    // The endless world's objects anchored in the region (position-based: every region agrees
    // with every other where they meet), in the region's cells.
    const Project& project = *impl_->project;
    if (project.sprites) {
        std::vector<PlacedObject> objects =
            window_objects(project, impl_->world, std::nullopt, area, 1);
        for (PlacedObject& o : objects) {
            o.x -= x;
            o.y -= y;
            const auto& info = project.sprites->sprites[static_cast<std::size_t>(o.sprite)];
            impl.objects.push_back(
                {info.name, info.index, o.x, o.y, info.footprint_w, info.footprint_h});
        }
        if (!objects.empty()) {
            // Pixel positions by the world's tile size (the region shares its atlas).
            tilegen::Map drawn;
            drawn.atlas.tile_width = impl_->world.atlas.tile_width;
            drawn.atlas.tile_height = impl_->world.atlas.tile_height;
            add_object_layer(drawn, *project.sprites, objects);
            impl.map.sprites = std::move(drawn.sprites);
            impl.map.object_layers = std::move(drawn.object_layers);
        }
    }
    impl.stats.seed = impl_->world.seed;
    impl.stats.unmatched = unmatched;
    std::vector<double> counts(impl_->terrains.size(), 0.0);
    for (std::uint8_t c : impl.classes)
        if (c < counts.size()) counts[c] += 1;
    for (double& c : counts)
        c /= static_cast<double>(impl.classes.size());
    impl.stats.class_fractions = std::move(counts);
    impl.stats.total_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

} // namespace tilegen::api
