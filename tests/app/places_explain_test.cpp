// Explain and the viewer's inspector name places and roads (issue 17): over every cell of a few
// seeds of tests/data/roads/roads.toml, the lines class_change_lines gives are checked against the
// TMX's places layer (name, index and cell of each place object), the roads' cells and their ends,
// and the final class grid (bridge cells, passes the reachability stage carved); and `tilegen
// explain` prints them.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/pipeline.hpp"
#include "io/project_loader.hpp"
#include "io/tmx_writer.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

struct TmxPlace {
    std::string name;
    int index = 0, x = 0, y = 0, w = 0, h = 0;
};

// The objects of the TMX's "places" layer, read back from the text.
std::vector<TmxPlace> tmx_places(const std::string& tmx) {
    std::vector<TmxPlace> out;
    const auto layer = tmx.find("name=\"places\"");
    if (layer == std::string::npos) return out;
    const auto end = tmx.find("</objectgroup>", layer);
    const auto attr = [&](std::size_t from, const std::string& key) {
        const auto at = tmx.find(key, from) + key.size();
        return tmx.substr(at, tmx.find('"', at) - at);
    };
    const auto property = [&](std::size_t from, const std::string& name) {
        return std::stoi(attr(tmx.find("name=\"" + name + "\"", from), "value=\""));
    };
    for (auto at = tmx.find("<object ", layer); at < end; at = tmx.find("<object ", at + 1)) {
        TmxPlace p;
        p.name = attr(at, " type=\"");
        p.index = property(at, "index");
        p.x = property(at, "cell_x");
        p.y = property(at, "cell_y");
        p.w = property(at, "footprint_w");
        p.h = property(at, "footprint_h");
        out.push_back(p);
    }
    return out;
}

bool has_line(const std::vector<std::string>& lines, const std::string& prefix) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
}

} // namespace

TEST_CASE("explain names the place, the roads and the carved passes of every cell") {
    Diagnostics d;
    const auto project =
        io::load_project(test::source_dir() / "tests/data/roads/roads.toml", io::DiskFiles{}, d);
    REQUIRE(project);
    const Recipe& recipe = project->recipe;
    const RoadSettings& rs = *recipe.places.roads;
    int bridges = 0, carved = 0, loops = 0;
    // Seeds 2 and 11 have bridges, 4 and 12 carve passes (tried once, kept as examples).
    for (std::uint64_t seed : {2u, 4u, 11u, 12u}) {
        CAPTURE(seed);
        GenerateOptions options;
        options.seed = seed;
        const GenerateResult r = generate_map(*project, options);
        REQUIRE(r.constraints.met);
        const std::vector<TmxPlace> tmx = tmx_places(io::map_text(r.map, "m.tmx"));
        REQUIRE(tmx.size() == r.places.size());
        const int w = r.classes.width();
        const auto inside = [](const TmxPlace& p, std::uint32_t c, int width) {
            const int x = static_cast<int>(c % width), y = static_cast<int>(c / width);
            return x >= p.x && y >= p.y && x < p.x + p.w && y < p.y + p.h;
        };
        const auto of_name = [&](const std::string& name) {
            int n = 0;
            for (const TmxPlace& p : tmx)
                n += p.name == name ? 1 : 0;
            return n;
        };
        const auto road_name = [&](std::size_t ri) {
            return "road " + std::to_string(ri + 1) + " of " + std::to_string(r.roads.roads.size());
        };
        // Per cell: the roads over it.
        std::vector<std::vector<std::size_t>> on(r.classes.size());
        for (std::size_t ri = 0; ri < r.roads.roads.size(); ++ri)
            for (std::uint32_t c : r.roads.roads[ri].cells)
                on[c].push_back(ri);
        std::uint64_t carved_here = 0;
        for (int y = 0; y < r.classes.height(); ++y)
            for (int x = 0; x < w; ++x) {
                const auto c = static_cast<std::uint32_t>(y * w + x);
                const std::vector<std::string> lines = class_change_lines(*project, r, x, y);
                bool in_place = false;
                for (const TmxPlace& p : tmx)
                    if (inside(p, c, w)) {
                        in_place = true;
                        CHECK(has_line(lines,
                                       "place '" + p.name + "' (index " + std::to_string(p.index) +
                                           " of " + std::to_string(of_name(p.name)) + "): cell (" +
                                           std::to_string(p.x) + ", " + std::to_string(p.y) + ")"));
                    }
                if (!in_place) CHECK_FALSE(has_line(lines, "place "));
                const bool is_bridge = r.classes.cells()[c] == rs.bridge_class;
                for (std::size_t ri : on[c]) {
                    // A span of the road is drawn as bridge, the rest as road (footprints
                    // aside, which keep their class).
                    const std::string what = (is_bridge ? "bridge on " : "") + road_name(ri);
                    const auto line = std::find_if(lines.begin(), lines.end(), [&](auto& l) {
                        return l.rfind(what + (r.roads.roads[ri].loop ? " (a loop): " : ": "), 0) ==
                               0;
                    });
                    REQUIRE(line != lines.end());
                    bridges += is_bridge ? 1 : 0;
                    loops += r.roads.roads[ri].loop ? 1 : 0;
                    // "from A (index i) to B (index j)": B's footprint holds the road's last
                    // cell; A's holds its first cell, or an earlier road to A does.
                    const Road& road = r.roads.roads[ri];
                    bool to_ok = false, from_ok = false;
                    for (const TmxPlace& p : tmx) {
                        const std::string named =
                            "'" + p.name + "' (index " + std::to_string(p.index) + ")";
                        if (line->find(" to " + named + ", ") != std::string::npos)
                            to_ok = inside(p, road.cells.back(), w);
                        if (line->find(": from " + named + " to ") == std::string::npos) continue;
                        from_ok = inside(p, road.cells.front(), w);
                        for (std::size_t k = 0; k < ri && !from_ok; ++k) {
                            const Road& e = r.roads.roads[k];
                            from_ok = !e.loop && inside(p, e.cells.back(), w) &&
                                      std::find(e.cells.begin(), e.cells.end(),
                                                road.cells.front()) != e.cells.end();
                        }
                    }
                    CHECK_MESSAGE(to_ok, *line);
                    CHECK_MESSAGE(from_ok, *line);
                    CHECK(line->find(", " + std::to_string(road.cells.size()) + " cells (") !=
                          std::string::npos);
                }
                if (on[c].empty()) CHECK_FALSE(has_line(lines, "road "));
                const bool pass_line = has_line(lines, "pass carved by [constraints]") ||
                                       has_line(lines, "bridge carved by [constraints]");
                const ClassId cls = r.classes.cells()[c];
                const bool expect_pass =
                    on[c].empty() && (cls == rs.road_class || cls == rs.bridge_class);
                CHECK(pass_line == expect_pass);
                carved_here += expect_pass ? 1 : 0;
                // The class a road or pass replaced is named too (footprints keep theirs).
                if (!in_place && (!on[c].empty() || expect_pass)) {
                    const auto line = std::find_if(lines.begin(), lines.end(), [](auto& l) {
                        return l.rfind("roads and passes: ", 0) == 0;
                    });
                    REQUIRE(line != lines.end());
                    CHECK(line->find(" -> " + recipe.terrain[cls].name) != std::string::npos);
                }
            }
        CHECK(carved_here == r.reach.carved);
        carved += static_cast<int>(carved_here);
    }
    CHECK(bridges > 0);
    CHECK(carved > 0);
    CHECK(loops > 0);
}

TEST_CASE("tilegen explain names a place and the road at it") {
    const std::string recipe =
        test::shell_quote((test::source_dir() / "tests/data/roads/roads.toml").string());
    Diagnostics d;
    const auto project =
        io::load_project(test::source_dir() / "tests/data/roads/roads.toml", io::DiskFiles{}, d);
    REQUIRE(project);
    GenerateOptions options;
    options.seed = 2;
    const GenerateResult r = generate_map(*project, options);
    REQUIRE(r.roads.roads.size() >= 2);
    const Place& town = r.places[1]; // places are listed rule by rule: start, then towns
    auto e = test::run_tilegen("explain " + recipe + " " + std::to_string(town.x) + " " +
                               std::to_string(town.y) + " --seed 2");
    REQUIRE(e.exit_code == 0);
    CHECK(e.out.find("  place 'town' (index 0 of 3): cell (" + std::to_string(town.x) + ", " +
                     std::to_string(town.y) + "), footprint 2x2, sprite boulder\n") !=
          std::string::npos);
    // The middle cell of the first road.
    const Road& road = r.roads.roads.front();
    const std::uint32_t c = road.cells[road.cells.size() / 2];
    const int w = r.classes.width();
    e = test::run_tilegen("explain " + recipe + " " + std::to_string(c % w) + " " +
                          std::to_string(c / w) + " --seed 2");
    REQUIRE(e.exit_code == 0);
    CHECK(e.out.find("road 1 of " + std::to_string(r.roads.roads.size()) +
                     ": from 'start' (index "
                     "0) to 'town'") != std::string::npos);
    CHECK(e.out.find("roads and passes: ") != std::string::npos);
}
