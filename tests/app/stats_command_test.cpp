// `tilegen stats` and the "stats" key of `generate --json`, as a user runs them: the numbers equal
// an independent recount (tests/core/quality/map_stats_recount.hpp) on hand-made class maps with
// known answers, both commands agree, the aggregate is the min / median / max of the per-seed
// values, the table has a row per seed, and no output depends on the thread count.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/fixture.hpp"
#include "app/json_reader.hpp"
#include "app/stats_command.hpp"
#include "core/quality/map_stats.hpp"
#include "core/quality/map_stats_recount.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

namespace {

// The fixture's tiles and rules with water marked as a blocker (shares 0.4 / 0.6, seed 3).
void write_stats_recipe(Fixture& f, const std::string& name, const std::string& rules) {
    write_text(f.dir / name, "[map]\nwidth = 40\nheight = 24\nseed = 3\n"
                             "[[terrain]]\nname = \"water\"\nsymbol = \"w\"\nshare = 0.4\n"
                             "walkable = false\n"
                             "[[terrain]]\nname = \"grass\"\nsymbol = \"g\"\nshare = 0.6\n"
                             "[rules]\nfiles = [\"" +
                                 rules + "\"]\n[tileset]\npath = \"tiles.toml\"\n");
}

// A w/g class map as text and as a grid (w = class 0, g = class 1), from one predicate.
struct HandMap {
    std::string text;
    ClassGrid grid;
};
template <class IsGrass> HandMap hand_map(int w, int h, IsGrass is_grass) {
    HandMap m{"", ClassGrid(w, h)};
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const bool g = is_grass(x, y);
            m.text += g ? 'g' : 'w';
            m.grid(x, y) = g ? 1 : 0;
        }
        m.text += '\n';
    }
    return m;
}

Json parse_json(const RunResult& r) {
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return JsonReader::parse(r.out);
}

// The printed value of a number: 6 significant digits (JsonWriter).
doctest::Approx printed(double v) {
    return doctest::Approx(v).epsilon(1e-5);
}

// One map's numbers as printed (a seed of `stats --json`, or `generate --json`'s "stats") equal
// the recount of `grid`; `unmatched` is known independently.
void check_recount(const Json& s, const ClassGrid& grid, const std::vector<bool>& walkable,
                   const std::vector<std::pair<std::string, double>>& shares,
                   std::uint64_t unmatched) {
    const MapStatsRecount r = recount_map_stats(grid, walkable);
    CHECK(s["specks"].num == static_cast<double>(r.specks));
    CHECK(s["thin"].num == printed(r.thin()));
    CHECK(s["walkable_regions"].num == static_cast<double>(r.walkable_regions));
    CHECK(s["largest_walkable"].num == printed(r.largest_walkable()));
    CHECK(s["corner_density"].num == printed(r.corner_density()));
    REQUIRE(s["share_error"].pairs.size() == shares.size());
    for (std::size_t c = 0; c < shares.size(); ++c) {
        CAPTURE(shares[c].first);
        CHECK(s["share_error"][shares[c].first].num ==
              printed((r.fraction(c) - shares[c].second) * 100));
    }
    CHECK(s["unmatched"].num == static_cast<double>(unmatched));
}

std::vector<std::string> stats_keys_with(const std::string& first) {
    std::vector<std::string> keys;
    if (!first.empty()) keys.push_back(first);
    for (auto k : kMapStatsKeys)
        keys.emplace_back(k);
    return keys;
}

} // namespace

TEST_CASE("stats --classes: hand-made maps give the numbers of a plain recount") {
    Fixture f;
    write_stats_recipe(f, "stats.toml", "map.rules");
    // Only water has a rule: every grass cell is unmatched, a count known without the program.
    write_text(f.dir / "water-only.rules", "??? ?w? ???  water\n");
    write_stats_recipe(f, "partial.toml", "water-only.rules");
    const std::vector<bool> walkable{false, true};
    const std::vector<std::pair<std::string, double>> shares{{"water", 0.4}, {"grass", 0.6}};

    struct Case {
        std::string name;
        HandMap map;
    };
    const int n = 24;
    const Case cases[] = {
        {"checkerboard", hand_map(9, 7, [](int x, int y) { return (x + y) % 2 == 1; })},
        {"half plane", hand_map(12, 8, [](int x, int) { return x >= 5; })},
        {"45-degree half plane", hand_map(n, n, [&](int x, int y) { return x + y >= n; })},
        {"two discs", hand_map(40, 24,
                               [](int x, int y) {
                                   auto in = [&](int cx, int cy, int r) {
                                       return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r;
                                   };
                                   return in(10, 12, 7) || in(29, 12, 6);
                               })},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        write_text(f.dir / "hand.txt", c.map.text);
        std::uint64_t grass = 0;
        for (int y = 0; y < c.map.grid.height(); ++y)
            for (int x = 0; x < c.map.grid.width(); ++x)
                grass += c.map.grid(x, y);

        const Json all = parse_json(f.tilegen("stats stats.toml --classes hand.txt --json"));
        CHECK(all.keys() == std::vector<std::string>{"recipe", "width", "height", "share_target",
                                                     "seeds", "aggregate"});
        CHECK(all["width"].num == c.map.grid.width());
        CHECK(all["height"].num == c.map.grid.height());
        CHECK(all["share_target"].str == "recipe");
        REQUIRE(all["seeds"].items.size() == 1);
        const Json& one = all["seeds"][0];
        CHECK(one.keys() == stats_keys_with("seed"));
        CHECK(one["seed"].num == 3); // the recipe's seed
        check_recount(one, c.map.grid, walkable, shares, 0);
        // One map: min, median and max are its numbers.
        for (const std::string& key : stats_keys_with("")) {
            CAPTURE(key);
            if (key == "share_error") {
                for (const auto& [cls, v] : one["share_error"].pairs)
                    for (const char* m : {"min", "median", "max"})
                        CHECK(all["aggregate"]["share_error"][cls][m].num == v.num);
            } else {
                for (const char* m : {"min", "median", "max"})
                    CHECK(all["aggregate"][key][m].num == one[key].num);
            }
        }

        // With rules for water only, the grass cells are the unmatched ones.
        const Json partial = parse_json(f.tilegen("stats partial.toml --classes hand.txt --json"));
        check_recount(partial["seeds"][0], c.map.grid, walkable, shares, grass);

        // generate --json reports the same numbers under "stats".
        const Json gen =
            parse_json(f.generate("partial.toml --classes hand.txt -o g.tmx --png none --json"));
        CHECK(gen["stats"].keys() == stats_keys_with(""));
        check_recount(gen["stats"], c.map.grid, walkable, shares, grass);
    }

    // Known answers, worked out by hand.
    write_text(f.dir / "board.txt", cases[0].map.text);
    const Json board = parse_json(f.tilegen("stats stats.toml --classes board.txt --json"));
    CHECK(board["seeds"][0]["specks"].num == 63);           // every cell a region of its own
    CHECK(board["seeds"][0]["corner_density"].num == 0);    // every window holds 2 + 2
    CHECK(board["seeds"][0]["walkable_regions"].num == 31); // the g cells, (x + y) odd
    write_text(f.dir / "half.txt", cases[1].map.text);
    const Json half = parse_json(f.tilegen("stats stats.toml --classes half.txt --json"));
    CHECK(half["seeds"][0]["specks"].num == 0);
    CHECK(half["seeds"][0]["thin"].num == 0);
    CHECK(half["seeds"][0]["corner_density"].num == 0);
    CHECK(half["seeds"][0]["largest_walkable"].num == 1);
    CHECK(half["seeds"][0]["share_error"]["water"].num == printed((5.0 / 12 - 0.4) * 100));
}

TEST_CASE("stats: generate --json's stats equal stats --json for the same seed and size") {
    Fixture f;
    write_stats_recipe(f, "stats.toml", "map.rules");
    for (const char* seed : {"5", "77"}) {
        CAPTURE(seed);
        const std::string s(seed);
        const Json gen = parse_json(
            f.generate("stats.toml --seed " + s + " --size 33x21 -o g.tmx --png none --json"));
        const Json st =
            parse_json(f.tilegen("stats stats.toml --seeds " + s + " --size 33x21 --json"));
        REQUIRE(st["seeds"].items.size() == 1);
        const Json& one = st["seeds"][0];
        CHECK(one["seed"].num == gen["seed"].num);
        CHECK(gen["stats"].keys() == stats_keys_with(""));
        for (const std::string& key : stats_keys_with("")) {
            CAPTURE(key);
            if (key == "share_error") {
                CHECK(gen["stats"][key].keys() == std::vector<std::string>{"water", "grass"});
                for (const auto& [cls, v] : one[key].pairs)
                    CHECK(gen["stats"][key][cls].num == v.num);
            } else {
                CHECK(gen["stats"][key].num == one[key].num);
            }
        }
        CHECK(gen["timings_ms"].has("stats"));
    }
    // A biome table has no shares: the targets are the classification's fractions. The errors add
    // up to 0 (both sets of fractions add up to 1) and are the same in both. Without places, they
    // are what the clean-up (min_area 4 on every class of the built-in default overworld) moved
    // and keep_shares did not move back: each is within a point. (With them, roads, bridges and
    // the reachability fill move cells afterwards on purpose, mostly grass.)
    std::string dry = read_text(source_dir() / "samples" / "overworld.toml");
    const auto places = dry.find("\n[[places]]");
    REQUIRE(places != std::string::npos);
    dry.erase(places);
    for (const char* path :
         {"\"../rules/", "\"../tilesets/overworld/tileset", "\"../tilesets/overworld/objects"}) {
        const auto at = dry.find(path);
        REQUIRE(at != std::string::npos);
        dry.replace(at, 4, "\"" + (source_dir() / "samples").generic_string() + "/../");
    }
    write_text(f.dir / "no-places.toml", dry);
    for (const std::string recipe : {"", "no-places.toml "}) {
        CAPTURE(recipe);
        const Json gen =
            parse_json(f.generate(recipe + "--seed 4 --size 48x32 -o o.tmx --png none --json"));
        const Json st = parse_json(f.tilegen("stats " + recipe + "--seeds 4 --size 48x32 --json"));
        CHECK(st["share_target"].str == "classification");
        if (recipe.empty()) CHECK(gen["places"].items.size() == 3u);
        // 7 classes; the overlays (river, lake, waterfall, and road and bridge when [roads]
        // writes them) have no share_error
        CHECK(st["seeds"][0]["share_error"].pairs.size() == (recipe.empty() ? 7u : 9u));
        double sum = 0;
        for (const auto& [cls, v] : st["seeds"][0]["share_error"].pairs) {
            CAPTURE(cls);
            CHECK(gen["stats"]["share_error"][cls].num == v.num);
            sum += v.num;
            if (!recipe.empty()) CHECK(std::abs(v.num) <= 1.0);
        }
        CHECK(std::abs(sum) < 1e-4); // the JSON keeps 6 significant digits
        for (const char* key : {"specks", "thin", "walkable_regions", "corner_density"})
            CHECK(gen["stats"][key].num == st["seeds"][0][key].num);
    }
}

TEST_CASE("stats: the aggregate is the min, median and max of the seeds") {
    Fixture f;
    write_stats_recipe(f, "stats.toml", "map.rules");
    struct Range {
        std::string text;
        double first;
        std::size_t count;
    };
    for (const Range& range : {Range{"1-6", 1, 6}, Range{"10-14", 10, 5}}) { // even and odd
        CAPTURE(range.text);
        const Json all =
            parse_json(f.tilegen("stats stats.toml --size 30x20 --json --seeds " + range.text));
        const std::vector<Json>& seeds = all["seeds"].items;
        REQUIRE(seeds.size() == range.count);
        for (std::size_t i = 0; i < seeds.size(); ++i)
            CHECK(seeds[i]["seed"].num == range.first + static_cast<double>(i));
        auto check_summary = [&](const Json& summary, std::vector<double> v) {
            std::sort(v.begin(), v.end());
            const std::size_t n = v.size();
            CHECK(summary["min"].num == v.front());
            CHECK(summary["max"].num == v.back());
            const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
            CHECK(summary["median"].num == printed(median));
        };
        std::set<double> distinct_specks;
        for (const std::string& key : stats_keys_with("")) {
            CAPTURE(key);
            if (key == "share_error") {
                for (const char* cls : {"water", "grass"}) {
                    std::vector<double> v;
                    for (const Json& s : seeds)
                        v.push_back(s[key][cls].num);
                    check_summary(all["aggregate"][key][cls], v);
                }
                continue;
            }
            std::vector<double> v;
            for (const Json& s : seeds)
                v.push_back(s[key].num);
            if (key == "specks") distinct_specks.insert(v.begin(), v.end());
            check_summary(all["aggregate"][key], v);
        }
        CHECK(all["aggregate"].keys() == stats_keys_with(""));
        CHECK(distinct_specks.size() > 1); // the seeds are different maps
    }
}

TEST_CASE("stats: the table has a row per seed, then min, median and max") {
    Fixture f;
    write_stats_recipe(f, "stats.toml", "map.rules");
    const RunResult text = f.tilegen("stats stats.toml --seeds 7-9 --size 30x20");
    INFO(text.err);
    REQUIRE(text.exit_code == 0);
    const Json all = parse_json(f.tilegen("stats stats.toml --seeds 7-9 --size 30x20 --json"));
    std::istringstream in(text.out);
    std::string line;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string x; words >> x;)
            w.push_back(x);
        if (!w.empty() && w[0] == "seed") header = w;
        if (!header.empty() && !w.empty() && w[0] != "seed" && w[0][0] != '-') rows.push_back(w);
    }
    REQUIRE(header == std::vector<std::string>{"seed", "specks", "thin", "walkable_regions",
                                               "largest_walkable", "corner_density", "unmatched",
                                               "water", "grass"});
    REQUIRE(rows.size() == 6);
    const char* labels[] = {"7", "8", "9", "min", "median", "max"};
    for (std::size_t i = 0; i < rows.size(); ++i) {
        CAPTURE(i);
        REQUIRE(rows[i].size() == header.size());
        CHECK(rows[i][0] == labels[i]);
    }
    for (std::size_t i = 0; i < 3; ++i) {
        const Json& s = all["seeds"][i];
        CHECK(std::stod(rows[i][1]) == s["specks"].num);
        CHECK(std::stod(rows[i][2]) == doctest::Approx(s["thin"].num).epsilon(1e-3));
        CHECK(std::stod(rows[i][3]) == s["walkable_regions"].num);
        CHECK(std::stod(rows[i][6]) == s["unmatched"].num);
        CHECK(std::stod(rows[i][7]) ==
              doctest::Approx(s["share_error"]["water"].num).epsilon(1e-2));
    }
    CHECK(text.out.find("share_error") != std::string::npos);
}

TEST_CASE("stats: the output is the same for any thread count") {
    Fixture f;
    write_stats_recipe(f, "stats.toml", "map.rules");
    for (const char* json : {"", " --json"}) {
        const std::string args = std::string("stats stats.toml --seeds 1-4 --size 61x37") + json;
        const RunResult one = f.tilegen(args + " --threads 1");
        const RunResult two = f.tilegen(args + " --threads 2");
        REQUIRE(one.exit_code == 0);
        CHECK(one.out == two.out);
        CHECK(!one.out.empty());
    }
    const RunResult one = f.tilegen("stats --seeds 2-3 --size 64x40 --json --threads 1");
    CHECK(one.out == f.tilegen("stats --seeds 2-3 --size 64x40 --json --threads 2").out);
    // Nothing is written.
    for (const auto& e : fs::directory_iterator(f.dir.path()))
        CHECK(e.path().extension() != ".tmx");
}

TEST_CASE("stats: bad input files exit 1 with path:line:col") {
    Fixture f;
    write_stats_recipe(f, "stats.toml", "map.rules");
    write_text(f.dir / "bad.txt", "wwg\nwqg\n");
    const RunResult r = f.tilegen("stats stats.toml --classes bad.txt");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.err.find("bad.txt:2:2: error:") != std::string::npos, r.err);
    CHECK(r.out.empty());
    write_text(f.dir / "broken.toml", "[map]\nwidth = \"wide\"\n");
    const RunResult b = f.tilegen("stats broken.toml");
    CHECK(b.exit_code == 1);
    CHECK_MESSAGE(b.err.find("broken.toml:2:") != std::string::npos, b.err);
    const RunResult missing = f.tilegen("stats nothing-here.toml");
    CHECK(missing.exit_code == 1);
    CHECK(missing.err.find("nothing-here.toml") != std::string::npos);
}

TEST_CASE("stats: seed ranges") {
    using app::parse_seed_range;
    CHECK(parse_seed_range("7")->first == 7);
    CHECK(parse_seed_range("7")->last == 7);
    CHECK(parse_seed_range("3-9")->first == 3);
    CHECK(parse_seed_range("3-9")->last == 9);
    CHECK(parse_seed_range("0-99999").has_value()); // exactly kMaxStatsSeeds
    CHECK(!parse_seed_range("0-100000"));
    CHECK(parse_seed_range("9223372036854775807").has_value());
    CHECK(parse_seed_range("9223372036854775806-9223372036854775807")->last ==
          9223372036854775807ull);
    for (const char* bad :
         {"", "-", "-1", "1-", "9-3", "1-2-3", "x", "1 - 2", "+1", "9223372036854775808", "0x10"}) {
        CAPTURE(bad);
        CHECK(!parse_seed_range(bad));
    }
}
