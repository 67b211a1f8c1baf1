// tilegen view hot reload under stress: the real viewer (under xvfb-run) watches a small project
// while a script breaks the recipe or its rule file and repairs it again, many times over, waiting
// for each reload to show. The viewer must never crash (exit 0 after the last reload), print every
// broken edit's diagnostics, say it keeps the last good map, and show each repaired version (the
// repaired recipes change the map's width, so every "generated" line tells which good version is on
// screen).
//
// How many: the viewer polls the files twice a second (kPollSeconds = 0.5 in src/viewer/viewer.cpp)
// and one reload is seen per poll at most, so every edit costs ~0.5 s: 100 breakages, each followed
// by its repair, are 200 reloads, about 100 s.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <vector>

#include "app/fixture.hpp"
#include "test_support.hpp"

namespace {

using namespace tilegen::test;

constexpr int kBreakages = 100; // each followed by a repair: 2 * kBreakages reloads

bool have_xvfb_for_stress() {
    if (have_program("xvfb-run")) return true;
    if (std::getenv("CI"))
        FAIL("xvfb-run is missing: the viewer tests need it on CI (Debian: apt-get install xvfb "
             "xauth)");
    MESSAGE("skipped: xvfb-run is not installed (the viewer needs a display)");
    return false;
}

std::string recipe_text(int width, const std::string& rules = "map.rules") {
    return "[map]\nwidth = " + std::to_string(width) +
           "\nheight = 24\nseed = 3\n"
           "[[terrain]]\nname = \"water\"\nsymbol = \"w\"\nshare = 0.4\n"
           "[[terrain]]\nname = \"grass\"\nsymbol = \"g\"\nshare = 0.6\n"
           "[rules]\nfiles = [\"" +
           rules + "\"]\n[tileset]\npath = \"tiles.toml\"\n";
}

struct Step {
    bool broken = false;
    std::string file;            // "map.rules" or "map.toml"
    std::string version;         // file under versions/ to install, or "" to delete `file`
    int width = 0;               // the map width a good step shows
    std::string expect_in_error; // a broken step: text its diagnostics must contain
};

} // namespace

TEST_CASE("view hot reload stress: 100 broken and 100 repaired edits, no crash, the last good map "
          "stays") {
    if (!have_xvfb_for_stress()) return;
    Fixture f; // tiles.png, tiles.toml, map.rules, map.toml (40 x 24)
    const std::string good_rules = read_text(f.dir / "map.rules");
    std::filesystem::create_directories(f.dir / "versions");
    write_text(f.dir / "versions/rules-good", good_rules);
    // Broken rule files: an unknown tile, a bad cell, a wrong group size, bytes that are not text,
    // no file.
    const std::vector<std::pair<std::string, std::string>> rule_breaks = {
        {good_rules + "??? ?g? ???  nosuchtile\n", "nosuchtile"},
        {good_rules + "?[? ?g? ???  grass\n", "map.rules:5:"},
        {good_rules + "?? ?g? ???  grass\n", "map.rules:5:"},
        {std::string("\x01\xff\xfe(\x80\n\x00\x7f[!\n", 11), "map.rules:"},
        {"", "map.rules"}, // deleted
    };
    // Broken recipes: TOML syntax, an unknown key, a value out of range, a missing rule file, a
    // cut-off file.
    const std::string good_recipe = recipe_text(40);
    const std::vector<std::pair<std::string, std::string>> recipe_breaks = {
        {good_recipe + "[map\n", "map.toml:"},
        {"colour = 3\n" + good_recipe, "map.toml:1:"},
        {recipe_text(0), "map.toml:2:"},
        {recipe_text(40, "missing.rules"), "missing.rules"},
        {good_recipe.substr(0, 60), "map.toml:"},
    };
    for (std::size_t i = 0; i < rule_breaks.size(); ++i)
        if (!rule_breaks[i].first.empty())
            write_text(f.dir / ("versions/rules-bad-" + std::to_string(i)), rule_breaks[i].first);
    for (std::size_t i = 0; i < recipe_breaks.size(); ++i)
        write_text(f.dir / ("versions/recipe-bad-" + std::to_string(i)), recipe_breaks[i].first);

    // The plan: breakage k (0-based) breaks the rules when k is even, the recipe when odd; the
    // repair after a recipe breakage installs a good recipe of a new width.
    std::vector<Step> steps;
    int width = 40;
    for (int k = 0; k < kBreakages; ++k) {
        const std::size_t which = static_cast<std::size_t>(k / 2) % 5;
        if (k % 2 == 0) {
            const bool deleted = rule_breaks[which].first.empty();
            steps.push_back({true, "map.rules", deleted ? "" : "rules-bad-" + std::to_string(which),
                             0, rule_breaks[which].second});
            steps.push_back({false, "map.rules", "rules-good", width, ""});
        } else {
            steps.push_back({true, "map.toml", "recipe-bad-" + std::to_string(which), 0,
                             recipe_breaks[which].second});
            width = 30 + (k * 7) % 40; // 37, 51, 65, 39, 53, ...
            const std::string name = "recipe-good-" + std::to_string(k);
            write_text(f.dir / ("versions/" + name), recipe_text(width));
            steps.push_back({false, "map.toml", name, width, ""});
        }
    }

    // The driver: start the viewer, then per step install the version atomically (copy, then
    // rename, as editors save) and wait until the viewer reported that reload before the next edit.
    std::ostringstream script;
    script << R"SH(
count() { grep -c "$1" view.err 2>/dev/null || true; }
wait_count() { for i in $(seq 1 300); do [ "$(count "$1")" -ge "$2" ] && return 0; sleep 0.05; done
               echo "timed out waiting for $2 x '$1'" >&2; return 1; }
install() { cp "versions/$1" ".edit.tmp" && mv -f ".edit.tmp" "$2"; }
( nice -n 5 xvfb-run -a -s '-screen 0 640x480x24' )SH"
           << shell_quote(TILEGEN_EXE) << " view map.toml --window 320x240 --quit-after-reloads "
           << steps.size() << R"SH( > view.out 2> view.err; echo $? > view.rc ) &
wait_count "tilegen view: generated" 1 || exit 3
)SH";
    int failed = 0, generated = 1;
    for (const Step& s : steps) {
        if (s.version.empty())
            script << "rm -f " << s.file << "\n";
        else
            script << "install " << s.version << " " << s.file << "\n";
        if (s.broken)
            script << "wait_count 'reload failed' " << ++failed << " || exit 4\n";
        else
            script << "wait_count 'tilegen view: generated' " << ++generated << " || exit 5\n";
    }
    script << R"SH(for i in $(seq 1 200); do [ -s view.rc ] && break; sleep 0.05; done
cat view.rc
)SH";
    write_text(f.dir / "stress.sh", script.str());
    const auto start = std::chrono::steady_clock::now();
    const RunResult r = run("timeout 300 bash stress.sh", f.dir.path());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE(steps.size() << " reloads (" << kBreakages << " breakages) in " << seconds << " s");
    const std::string err = read_text(f.dir / "view.err");
    INFO("driver stderr: " << r.err);
    INFO("viewer stderr (last 3000 bytes): " << err.substr(err.size() > 3000 ? err.size() - 3000
                                                                             : 0));
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "0\n"); // the viewer's exit code
    for (const char* crash :
         {"Sanitizer", "runtime error:", "terminate called", "Segmentation", "Aborted"})
        CHECK_MESSAGE(err.find(crash) == std::string::npos, crash);

    // The viewer's story, event by event: the first map, then per step a failure with its
    // diagnostics (and the last good map kept) or a new map of the repaired version's width.
    std::vector<std::string> lines;
    {
        std::istringstream in(err);
        for (std::string line; std::getline(in, line);)
            lines.push_back(line);
    }
    const std::regex generated_line(
        R"(^tilegen view: generated map (\d+)x(\d+) seed 3 in \d+ ms$)");
    std::size_t at = 0;
    auto next_event = [&]() -> std::size_t {
        while (at < lines.size() && lines[at].rfind("tilegen view: ", 0) != 0)
            ++at;
        return at < lines.size() ? at++ : lines.size();
    };
    std::smatch m;
    std::size_t e = next_event();
    REQUIRE(e < lines.size());
    REQUIRE(std::regex_match(lines[e], m, generated_line));
    CHECK(m[1].str() == "40");
    int last_good_width = 40;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        CAPTURE(i);
        e = next_event();
        REQUIRE(e < lines.size());
        if (s.broken) {
            REQUIRE(lines[e] == "tilegen view: reload failed, keeping the last good map:");
            // The diagnostics are the lines up to the next event; one names the broken file's
            // problem.
            std::string diagnostics;
            for (std::size_t j = e + 1;
                 j < lines.size() && lines[j].rfind("tilegen view: ", 0) != 0; ++j)
                diagnostics += lines[j] + "\n";
            CAPTURE(diagnostics);
            CHECK(diagnostics.find("error: ") != std::string::npos);
            CHECK(diagnostics.find(s.expect_in_error) != std::string::npos);
        } else {
            REQUIRE(std::regex_match(lines[e], m, generated_line));
            CHECK(std::stoi(m[1].str()) == s.width);
            CHECK(m[2].str() == "24");
            last_good_width = s.width;
        }
    }
    CHECK(next_event() == lines.size()); // nothing after the last reload
    CHECK(last_good_width == steps.back().width);
}
