// The public API (include/tilegen/tilegen.hpp) against the program and the pipeline it wraps:
// a whole map's files equal `tilegen generate`'s byte for byte, a recipe given as text equals the
// same recipe read from its file, errors come back as diagnostics, and a World's regions (made on
// their own, in any order, from several threads) equal the same windows of the finite map.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "test_support.hpp"
#include "tilegen/tilegen.hpp"

using namespace tilegen::test;
namespace api = tilegen::api;

namespace {

std::string messages(const api::Diagnostics& diags) {
    std::string s;
    for (const auto& d : diags)
        s += d.text() + "\n";
    return s;
}

} // namespace

TEST_CASE("api: a whole map's Tiled files and preview equal tilegen generate's") {
    TempDir dir;
    const auto recipe = source_dir() / "samples/overworld.toml";
    api::Diagnostics diags;
    auto generator = api::Generator::from_file(recipe, diags);
    REQUIRE_MESSAGE(generator, messages(diags));
    generator->set_seed(5);
    generator->set_size(48, 40);
    CHECK(generator->seed() == 5);
    CHECK(generator->width() == 48);
    auto map = generator->generate(diags);
    REQUIRE_MESSAGE(map, messages(diags));
    CHECK(map->width() == 48);
    CHECK(map->height() == 40);
    REQUIRE(map->write_tiled(dir / "api.tmx", diags));
    REQUIRE(map->write_png(dir / "api.png", diags));
    const auto cli = run_tilegen("generate " + shell_quote(recipe.string()) +
                                     " --seed 5 --size 48x40 -o cli.tmx --png cli.png",
                                 dir.path());
    REQUIRE(cli.exit_code == 0);
    for (const auto& [a, b] :
         std::vector<std::pair<std::string, std::string>>{{"api-tiles.png", "cli-tiles.png"},
                                                          {"api-objects.png", "cli-objects.png"},
                                                          {"api.png", "cli.png"}}) {
        CAPTURE(a);
        CHECK(read_text(dir / a) == read_text(dir / b));
    }
    // The TMX differs only in the names of its tileset files.
    std::string tmx = read_text(dir / "api.tmx");
    for (std::size_t at; (at = tmx.find("api")) != std::string::npos;)
        tmx.replace(at, 3, "cli");
    CHECK(tmx == read_text(dir / "cli.tmx"));

    // What the map holds in memory is what the TMX says: the first layer's gids as CSV.
    const std::string csv = read_text(dir / "cli.tmx");
    const auto from = csv.find("<data encoding=\"csv\">") + 22;
    std::string expected;
    for (std::size_t i = from; csv[i] != '<'; ++i)
        if (csv[i] != '\n' && csv[i] != '\r') expected += csv[i];
    std::string got;
    for (int y = 0; y < map->height(); ++y)
        for (int x = 0; x < map->width(); ++x) {
            got += std::to_string(map->tile(0, x, y).gid);
            if (x + 1 < map->width() || y + 1 < map->height()) got += ",";
        }
    CHECK(got == expected);
    // Tiles, classes, objects, places and stats are consistent with the recipe and the tileset.
    const auto& tileset = generator->tileset();
    CHECK(tileset.atlas.width == tileset.columns * tileset.tile_width);
    for (const auto& layer : map->layers())
        for (std::uint32_t gid : layer.gids) {
            const api::Tile t{gid};
            CAPTURE(t.id());
            CAPTURE(tileset.names.size());
            CHECK((t.empty() || (t.id() >= 0 && t.id() < static_cast<int>(tileset.names.size()))));
        }
    CHECK(map->classes().size() == 48u * 40u);
    for (std::uint8_t c : map->classes())
        CHECK(c < generator->terrains().size());
    CHECK_FALSE(map->objects().empty());
    for (const auto& o : map->objects())
        CHECK((o.x >= 0 && o.x < 48 && !o.sprite.empty()));
    CHECK(map->stats().seed == 5);
    double sum = 0;
    for (double f : map->stats().class_fractions)
        sum += f;
    CHECK(sum == doctest::Approx(1.0));
    const auto pixels = map->render();
    CHECK(pixels.width == 48 * tileset.tile_width);
    CHECK(pixels.rgba.size() == static_cast<std::size_t>(pixels.width * pixels.height * 4));
}

TEST_CASE("api: a recipe given as text with a base directory equals the file, errors are values") {
    const auto recipe = source_dir() / "samples/meadows.toml";
    api::Diagnostics diags;
    auto from_file = api::Generator::from_file(recipe, diags);
    auto from_text =
        api::Generator::from_string(read_text(recipe), source_dir() / "samples", diags);
    REQUIRE_MESSAGE((from_file && from_text), messages(diags));
    for (auto* g : {&*from_file, &*from_text})
        g->set_size(40, 30);
    auto a = from_file->generate(diags), b = from_text->generate(diags);
    REQUIRE((a && b));
    CHECK(a->classes() == b->classes());
    REQUIRE(a->layers().size() == b->layers().size());
    for (std::size_t i = 0; i < a->layers().size(); ++i)
        CHECK(a->layers()[i].gids == b->layers()[i].gids);

    diags.clear();
    CHECK_FALSE(api::Generator::from_string("[map]\nwidth = -3\n", source_dir(), diags));
    REQUIRE_FALSE(diags.empty());
    CHECK(diags[0].severity == api::Diagnostic::Severity::error);
    CHECK(diags[0].line > 0);
    CHECK(diags[0].text().find("error:") != std::string::npos);
    diags.clear();
    CHECK_FALSE(api::Generator::from_file(source_dir() / "no-such.toml", diags));
    CHECK_FALSE(diags.empty());
    // Sizes out of range are reported when used, not clamped.
    from_text->set_size(0, 30);
    diags.clear();
    CHECK_FALSE(from_text->generate(diags));
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].message.find("out of range") != std::string::npos);
    CHECK_FALSE(from_text->world(diags));
    // The built-in recipe needs the whole map (clean-up): no World for it.
    auto builtin = api::Generator::builtin(diags);
    REQUIRE(builtin);
    diags.clear();
    CHECK_FALSE(builtin->world(diags));
    CHECK_FALSE(diags.empty());
}

TEST_CASE("api: World regions made on the fly equal the same windows of the finite map") {
    api::Diagnostics diags;
    auto generator = api::Generator::from_file(source_dir() / "samples/meadows.toml", diags);
    REQUIRE(generator);
    generator->set_seed(21);
    generator->set_size(72, 56);
    auto whole = generator->generate(diags);
    auto world = generator->world(diags);
    REQUIRE_MESSAGE((whole && world), messages(diags));
    // Chunks of 16 x 16 (the last ones cut by the map's edge), made on 3 threads in a scrambled
    // order, then compared cell by cell with the finite map.
    struct Job {
        int x, y;
        std::optional<api::Map> map;
    };
    std::vector<Job> jobs;
    for (int y = 0; y < 56; y += 16)
        for (int x = 0; x < 72; x += 16)
            jobs.push_back({x, y, std::nullopt});
    std::reverse(jobs.begin(), jobs.end());
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
        threads.emplace_back([&, t] {
            for (std::size_t i = static_cast<std::size_t>(t); i < jobs.size(); i += 3)
                jobs[i].map = world->region(jobs[i].x, jobs[i].y, std::min(16, 72 - jobs[i].x),
                                            std::min(16, 56 - jobs[i].y));
        });
    for (auto& t : threads)
        t.join();
    constexpr int kEdge = 2; // at least the widest tile pattern's radius in meadows' rules
    long compared = 0, tiles_compared = 0;
    for (const auto& job : jobs) {
        const api::Map& chunk = *job.map;
        CHECK(chunk.x() == job.x);
        for (int y = 0; y < chunk.height(); ++y)
            for (int x = 0; x < chunk.width(); ++x) {
                CHECK(chunk.class_at(x, y) == whole->class_at(job.x + x, job.y + y));
                ++compared;
                CAPTURE(job.x + x);
                CAPTURE(job.y + y);
                // The finite map's rules see clamped neighbours beyond its edges ([rules] outside
                // = "clamp"), the world's see the world: tiles are compared off the edge ring.
                const int wx = job.x + x, wy = job.y + y;
                if (wx < kEdge || wy < kEdge || wx >= 72 - kEdge || wy >= 56 - kEdge) continue;
                for (std::size_t l = 0; l < whole->layers().size(); ++l)
                    CHECK(chunk.tile(l, x, y).gid == whole->tile(l, wx, wy).gid);
                ++tiles_compared;
            }
    }
    CHECK(compared == 72 * 56);
    CHECK(tiles_compared == static_cast<long>(whole->layers().size()) * (72 - 4) * (56 - 4));
    // Far away and at negative cells the same region twice gives the same tiles.
    const auto far1 = world->region(-5000, 123456, 20, 20),
               far2 = world->region(-5000, 123456, 20, 20);
    CHECK(far1.layers()[0].gids == far2.layers()[0].gids);
    CHECK(far1.classes() == far2.classes());
}

TEST_CASE("api: a corner layer's regions hold (width + 1) x (height + 1) corners, the same tiles "
          "in every region") {
    api::Diagnostics diags;
    auto generator =
        api::Generator::from_file(source_dir() / "samples/two-terrain-corners.toml", diags);
    REQUIRE(generator);
    auto world = generator->world(diags);
    REQUIRE_MESSAGE(world, messages(diags));
    const api::Map big = world->region(0, 0, 30, 20);
    const api::Map part = world->region(7, 4, 10, 9);
    REQUIRE(big.layers().size() == 1);
    CHECK(big.layers()[0].corner);
    CHECK(big.layers()[0].gids.size() == 31u * 21u);
    CHECK(part.layers()[0].gids.size() == 11u * 10u);
    bool same = true;
    for (int j = 0; j <= 9; ++j)
        for (int i = 0; i <= 10; ++i)
            same = same && part.tile(0, i, j).gid == big.tile(0, 7 + i, 4 + j).gid;
    CHECK(same);
}

TEST_CASE("api: World regions carry the objects anchored in them, the same however cut") {
    api::Diagnostics diags;
    auto generator =
        api::Generator::from_file(source_dir() / "tests/data/infinite-objects/woods.toml", diags);
    REQUIRE(generator);
    generator->set_seed(8);
    auto world = generator->world(diags);
    REQUIRE_MESSAGE(world, messages(diags));
    REQUIRE(!world->sprites().names.empty());
    // One region of 64 x 48 at negative cells, and the same cells as four regions of 32 x 24: the
    // same objects (in world cells), none twice.
    using Key = std::tuple<int, int, int>; // y, x, sprite
    auto keys = [](const api::Map& m, std::vector<Key>& out) {
        for (const auto& o : m.objects()) {
            CHECK(o.x >= 0);
            CHECK(o.y >= 0);
            CHECK(o.x < m.width());
            CHECK(o.y < m.height());
            out.emplace_back(m.y() + o.y, m.x() + o.x, o.sprite_index);
        }
    };
    std::vector<Key> whole, parts;
    keys(world->region(-40, -30, 64, 48), whole);
    for (int y : {-30, -6})
        for (int x : {-40, -8})
            keys(world->region(x, y, 32, 24), parts);
    std::sort(whole.begin(), whole.end());
    std::sort(parts.begin(), parts.end());
    CHECK(whole.size() > 20);
    CHECK(parts == whole);
}
