// Issue 17's "done when", recounted independently over 200 seeds of the overworld with places,
// roads, bridges and walkable_regions = 1 (tests/data/roads/roads.toml, and the default overworld
// samples/overworld.toml; 20 seeds each in the sanitizer build): from the TMX text (the classes
// read back from its ground layer through its tiles' `terrain` properties, the places from its
// object layer "places"; both must equal the result's), the same seed's grid without roads (what
// the roads were built over) and the objects; and byte-identical TMX at 1, 2 and 8 threads.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/pipeline.hpp"
#include "io/project_loader.hpp"
#include "io/tmx_writer.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

std::optional<Project> roads_project(const std::string& path = "tests/data/roads/roads.toml") {
    Diagnostics d;
    return io::load_project(test::source_dir() / path, io::DiskFiles{}, d);
}

int class_of(const Recipe& r, char symbol) {
    for (std::size_t i = 0; i < r.terrain.size(); ++i)
        if (r.terrain[i].symbol == symbol) return static_cast<int>(i);
    return -1;
}

// 4-connected flood from `from` over cells where in[] is set.
std::vector<std::uint8_t> flood(const std::vector<std::uint8_t>& in, int w, int h,
                                const std::vector<std::size_t>& from) {
    std::vector<std::uint8_t> seen(in.size(), 0);
    std::vector<std::size_t> stack;
    for (std::size_t c : from)
        if (in[c] && !seen[c]) {
            seen[c] = 1;
            stack.push_back(c);
        }
    while (!stack.empty()) {
        const std::size_t c = stack.back();
        stack.pop_back();
        const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
        const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; ++k) {
            const int nx = x + dx[k], ny = y + dy[k];
            if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            const std::size_t n = static_cast<std::size_t>(ny) * w + nx;
            if (in[n] && !seen[n]) {
                seen[n] = 1;
                stack.push_back(n);
            }
        }
    }
    return seen;
}

// The text of the attribute `name` in the tag starting at `at` (empty when the tag has none).
std::string attribute(const std::string& text, std::size_t at, const std::string& name) {
    const std::size_t end = text.find('>', at);
    const std::string key = " " + name + "=\"";
    const std::size_t p = text.find(key, at);
    if (p == std::string::npos || p > end) return {};
    const std::size_t from = p + key.size();
    return text.substr(from, text.find('"', from) - from);
}

// What a TMX with embedded tilesets says, read back from its text alone: the class of each cell
// of its ground layer (the `terrain` property of the cell's tile, as a class index of `symbols`;
// -1 where the tile has none) and its places (object layer "places": type, cell_x, cell_y,
// footprint_w, footprint_h).
struct TmxRecount {
    std::vector<int> classes;
    std::vector<std::pair<std::string, Place>> places; // (type, cells; rule left 0)
};
TmxRecount recount_tmx(const std::string& tmx, const std::string& symbols) {
    TmxRecount out;
    // The first tileset (firstgid 1, embedded): tile id -> terrain symbol.
    std::vector<char> terrain;
    const std::size_t tileset_end = tmx.find("</tileset>");
    REQUIRE(tileset_end != std::string::npos);
    REQUIRE(attribute(tmx, tmx.find("<tileset "), "firstgid") == "1");
    for (std::size_t t = tmx.find("<tile id=\""); t < tileset_end;
         t = tmx.find("<tile id=\"", t + 1)) {
        const auto id = static_cast<std::size_t>(std::stoul(attribute(tmx, t, "id")));
        const std::size_t close = std::min(tmx.find("</tile>", t), tmx.find("<tile id=", t + 1));
        const std::size_t p = tmx.find("name=\"terrain\" value=\"", t);
        if (terrain.size() <= id) terrain.resize(id + 1, 0);
        if (p < close) terrain[id] = tmx[p + std::string("name=\"terrain\" value=\"").size()];
    }
    const std::size_t layer = tmx.find("<layer ");
    REQUIRE(attribute(tmx, layer, "name") == "ground");
    const std::size_t data = tmx.find('>', tmx.find("<data encoding=\"csv\"", layer)) + 1;
    const std::size_t data_end = tmx.find("</data>", data);
    std::size_t p = data;
    while (p < data_end) {
        while (p < data_end && !std::isdigit(static_cast<unsigned char>(tmx[p])))
            ++p;
        if (p >= data_end) break;
        std::size_t used = 0;
        const unsigned long gid = std::stoul(tmx.substr(p, 12), &used) & 0x1FFFFFFFul;
        p += used;
        const std::size_t id = gid - 1;
        const char symbol = gid > 0 && id < terrain.size() ? terrain[id] : 0;
        const std::size_t at = symbol ? symbols.find(symbol) : std::string::npos;
        out.classes.push_back(at == std::string::npos ? -1 : static_cast<int>(at));
    }
    const std::size_t group = tmx.find("name=\"places\"");
    if (group == std::string::npos) return out;
    const std::size_t group_end = tmx.find("</objectgroup>", group);
    for (std::size_t o = tmx.find("<object ", group); o < group_end;
         o = tmx.find("<object ", o + 1)) {
        const auto property = [&](const std::string& name) {
            const std::string key = "name=\"" + name + "\" type=\"int\" value=\"";
            const std::size_t v = tmx.find(key, o) + key.size();
            return std::stoi(tmx.substr(v, tmx.find('"', v) - v));
        };
        Place place;
        place.x = property("cell_x");
        place.y = property("cell_y");
        place.w = property("footprint_w");
        place.h = property("footprint_h");
        out.places.emplace_back(attribute(tmx, o, "type"), place);
    }
    return out;
}

} // namespace

TEST_CASE("places, roads, bridges and one walkable region: 200 seeds recounted") {
    // The test recipe (plain tiles) and the default overworld (its painted art, rivers under the
    // bridges): 200 seeds each (20 in the sanitizer build).
    for (const std::string path : {"tests/data/roads/roads.toml", "samples/overworld.toml"}) {
        CAPTURE(path);
        const auto seeds = static_cast<std::uint64_t>(test::cases(200, 20));
        auto project = roads_project(path);
        REQUIRE(project);
        Project bare =
            *project; // the same recipe without roads and constraints: the grid roads see
        bare.recipe.places.roads.reset();
        bare.recipe.places.constraints.reset();
        const Recipe& recipe = project->recipe;
        const RoadSettings& rs = *recipe.places.roads;
        const ConstraintSettings& cs = *recipe.places.constraints;
        const int road = class_of(recipe, '+'), bridge = class_of(recipe, 'H');
        REQUIRE(road >= 0);
        REQUIRE(bridge >= 0);
        int met = 0, bridges_seen = 0, places_seen = 0;
        for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
            CAPTURE(seed);
            GenerateOptions options;
            options.seed = seed;
            options.keep_details = false;
            const GenerateResult r = generate_map(*project, options);
            REQUIRE(r.constraints.asked);
            if (!r.constraints.met) continue; // exit 1 in the app; counted below
            ++met;
            const int w = r.classes.width(), h = r.classes.height();
            const std::size_t n = r.classes.size();
            GenerateOptions bare_options = options;
            bare_options.seed = r.seed; // the kept seed
            const GenerateResult before = generate_map(bare, bare_options);
            CHECK(r.unmatched == 0);
            // The TMX (tilesets embedded: the text alone) says the same classes and places as the
            // result, so every count below is a count of the TMX's map.
            io::MapOutputOptions embedded;
            embedded.tilesets = io::TilesetPlacement::embedded;
            const TmxRecount read =
                recount_tmx(io::map_text(r.map, "m.tmx", embedded), terrain_symbols(recipe));
            REQUIRE(read.classes.size() == r.classes.size());
            // (The test recipe draws roads with the dirt tile and bridges with the sand tile, so
            // its TMX cannot tell them apart: the classes are read back from the overworld's.)
            if (path.starts_with("samples/")) {
                std::size_t classes_differ = 0;
                for (std::size_t i = 0; i < read.classes.size(); ++i)
                    classes_differ += read.classes[i] != r.classes.cells()[i] ? 1 : 0;
                CHECK(classes_differ == 0);
            }
            REQUIRE(read.places.size() == r.places.size());
            for (std::size_t i = 0; i < r.places.size(); ++i) {
                const Place& p = r.places[i];
                CHECK(read.places[i].first ==
                      recipe.places.places[static_cast<std::size_t>(p.rule)].name);
                CHECK(read.places[i].second.x == p.x);
                CHECK(read.places[i].second.y == p.y);
                CHECK(read.places[i].second.w == p.w);
                CHECK(read.places[i].second.h == p.h);
            }
            // Places: on their classes, min_distance to every earlier place, counts as asked.
            std::vector<std::uint8_t> footprint(n, 0);
            std::vector<int> counts(recipe.places.places.size(), 0);
            for (std::size_t i = 0; i < r.places.size(); ++i) {
                const Place& p = r.places[i];
                const PlaceRule& rule = recipe.places.places[static_cast<std::size_t>(p.rule)];
                ++counts[static_cast<std::size_t>(p.rule)];
                for (int y = p.y; y < p.y + p.h; ++y)
                    for (int x = p.x; x < p.x + p.w; ++x) {
                        REQUIRE(r.classes.contains(x, y));
                        CHECK((rule.on >> r.classes(x, y) & 1u) == 1u);
                        footprint[static_cast<std::size_t>(y) * w + x] = 1;
                    }
                for (std::size_t j = 0; j < i; ++j)
                    CHECK(std::hypot(p.x - r.places[j].x, p.y - r.places[j].y) >=
                          rule.min_distance);
            }
            for (std::size_t k = 0; k < counts.size(); ++k)
                CHECK(counts[k] == recipe.places.places[k].count);
            places_seen += static_cast<int>(r.places.size());
            // Roads and bridges: never on avoid classes; bridges only over bridge_over classes, in
            // straight runs of at most max_bridge with walkable non-bridge cells at both ends.
            std::vector<std::uint8_t> net(n, 0);
            for (std::size_t i = 0; i < n; ++i) {
                const int now = r.classes.cells()[i], was = before.classes.cells()[i];
                if (now == road || now == bridge) CHECK((rs.avoid >> was & 1u) == 0u);
                if (now == bridge) {
                    ++bridges_seen;
                    CHECK((rs.bridge_over >> was & 1u) == 1u);
                    const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
                    bool ok = false;
                    for (int axis = 0; axis < 2 && !ok; ++axis) {
                        const int dx = axis == 0 ? 1 : 0, dy = axis == 0 ? 0 : 1;
                        int a = 0, b = 0; // run of bridge cells through (x, y) along the axis
                        while (r.classes.contains(x - (a + 1) * dx, y - (a + 1) * dy) &&
                               r.classes(x - (a + 1) * dx, y - (a + 1) * dy) == bridge)
                            ++a;
                        while (r.classes.contains(x + (b + 1) * dx, y + (b + 1) * dy) &&
                               r.classes(x + (b + 1) * dx, y + (b + 1) * dy) == bridge)
                            ++b;
                        const int x0 = x - (a + 1) * dx, y0 = y - (a + 1) * dy;
                        const int x1 = x + (b + 1) * dx, y1 = y + (b + 1) * dy;
                        const auto land = [&](int lx, int ly) {
                            return r.classes.contains(lx, ly) &&
                                   recipe.terrain[r.classes(lx, ly)].walkable &&
                                   r.classes(lx, ly) != bridge;
                        };
                        ok = a + b + 1 <= rs.max_bridge && land(x0, y0) && land(x1, y1);
                    }
                    CHECK_MESSAGE(ok, "bridge cell " << i % w << "," << i / w);
                }
                net[i] = now == road || now == bridge || footprint[i];
            }
            // One network holding every connect place, each touching road or bridge.
            const Place* start = nullptr;
            for (const Place& p : r.places)
                if (recipe.places.places[static_cast<std::size_t>(p.rule)].start) start = &p;
            REQUIRE(start);
            const auto reached =
                flood(net, w, h, {static_cast<std::size_t>(start->y) * w + start->x});
            for (const Place& p : r.places) {
                bool connect = false;
                for (int k : rs.connect)
                    connect = connect || k == p.rule;
                if (!connect) continue;
                CHECK(reached[static_cast<std::size_t>(p.y) * w + p.x] == 1);
                bool touches = false;
                for (int y = p.y - 1; y <= p.y + p.h; ++y)
                    for (int x = p.x - 1; x <= p.x + p.w; ++x)
                        if (r.classes.contains(x, y) &&
                            (x < p.x || x >= p.x + p.w) != (y < p.y || y >= p.y + p.h)) {
                            const int c = r.classes(x, y);
                            touches = touches || c == road || c == bridge;
                        }
                CHECK(touches);
            }
            // Walkable regions of >= min_region cells: exactly one, holding the start.
            std::vector<std::uint8_t> walk(n, 0);
            for (std::size_t i = 0; i < n; ++i)
                walk[i] = recipe.terrain[r.classes.cells()[i]].walkable ? 1 : 0;
            std::vector<std::uint8_t> labelled(n, 0);
            int big = 0;
            bool start_in_big = false;
            for (std::size_t i = 0; i < n; ++i) {
                if (!walk[i] || labelled[i]) continue;
                const auto region = flood(walk, w, h, {i});
                std::size_t size = 0;
                for (std::size_t k = 0; k < n; ++k)
                    if (region[k]) {
                        labelled[k] = 1;
                        ++size;
                    }
                if (size >= static_cast<std::size_t>(cs.min_region)) {
                    ++big;
                    for (int y = start->y - 1; y <= start->y + start->h; ++y)
                        for (int x = start->x - 1; x <= start->x + start->w; ++x)
                            if (r.classes.contains(x, y) &&
                                region[static_cast<std::size_t>(y) * w + x])
                                start_in_big = true;
                }
            }
            CHECK(big == 1);
            CHECK(start_in_big);
            // No object on a road, bridge or place cell.
            for (const PlacedObject& o : r.objects) {
                const SpriteInfo& info =
                    project->sprites->sprites[static_cast<std::size_t>(o.sprite)];
                for (int y = o.y; y < o.y + info.footprint_h; ++y)
                    for (int x = o.x; x < o.x + info.footprint_w; ++x) {
                        const std::size_t i = static_cast<std::size_t>(y) * w + x;
                        CHECK(!net[i]);
                    }
            }
            // The TMX: one object per place in the layer "places", typed by the place's name.
            if (seed <= 5) {
                const std::string tmx = io::map_text(r.map, "m.tmx");
                const auto at = tmx.find("name=\"places\"");
                REQUIRE(at != std::string::npos);
                std::size_t objects = 0;
                for (auto p = tmx.find("<object ", at); p != std::string::npos;
                     p = tmx.find("<object ", p + 1))
                    ++objects;
                CHECK(objects == r.places.size());
                for (const Place& p : r.places) {
                    const std::string& name =
                        recipe.places.places[static_cast<std::size_t>(p.rule)].name;
                    CHECK(tmx.find("type=\"" + name + "\"", at) != std::string::npos);
                    CHECK(tmx.find("name=\"cell_x\" type=\"int\" value=\"" + std::to_string(p.x) +
                                       "\"",
                                   at) != std::string::npos);
                }
                const bool seed_property =
                    tmx.find("name=\"seed\" type=\"int\" value=\"" + std::to_string(r.seed)) !=
                        std::string::npos ||
                    tmx.find("name=\"seed\" value=\"" + std::to_string(r.seed)) !=
                        std::string::npos;
                CHECK(seed_property);
            }
        }
        MESSAGE(path << ": met " << met << " of " << seeds << "; bridge cells " << bridges_seen
                     << "; places " << places_seen);
        CHECK(met == static_cast<int>(seeds));
        CHECK(bridges_seen > 0);
    }
}

TEST_CASE("places and roads: the same TMX at 1, 2 and 8 threads") {
    for (const std::string path : {"tests/data/roads/roads.toml", "samples/overworld.toml"}) {
        CAPTURE(path);
        auto project = roads_project(path);
        REQUIRE(project);
        for (std::uint64_t seed : {1u, 17u, 99u}) {
            std::string first;
            for (int threads : {1, 2, 8}) {
                GenerateOptions options;
                options.seed = seed;
                options.threads = threads;
                const GenerateResult r = generate_map(*project, options);
                const std::string tmx = io::map_text(r.map, "m.tmx");
                if (first.empty())
                    first = tmx;
                else
                    CHECK(tmx == first);
            }
        }
    }
}

TEST_CASE("a constraint that cannot be met within tries: exit 1 naming it, nothing written") {
    const test::TempDir dir;
    const auto data = test::source_dir() / "tests/data/roads";
    auto text = test::read_text(data / "roads.toml");
    const auto replace = [&](const std::string& from, const std::string& to) {
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    };
    // 200 towns 20 cells apart do not fit on a 96x64 map.
    replace("count = 3", "count = 200");
    replace("tries = 8", "tries = 2");
    replace("\"roads.rules\"", "\"" + (data / "roads.rules").generic_string() + "\"");
    for (int i = 0; i < 2; ++i)
        replace("\"../../../tilesets/", "\"" + (test::source_dir() / "tilesets/").generic_string());
    const auto recipe = dir / "unmet.toml";
    test::write_text(recipe, text);
    const auto out = dir / "unmet.tmx";
    const test::RunResult run = test::run_tilegen("generate " + test::shell_quote(recipe.string()) +
                                                  " -o " + test::shell_quote(out.string()));
    CHECK(run.exit_code == 1);
    CHECK(run.err.find("constraint not met after 2 tries") != std::string::npos);
    CHECK(run.err.find("[[places]] 'town': count = 200") != std::string::npos);
    CHECK(run.err.find("try 1/2 seed") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out));
}
