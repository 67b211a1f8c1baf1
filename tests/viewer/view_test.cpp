// tilegen view: runs the real viewer under Xvfb (xvfb-run) in its scripted modes (--screenshot,
// --frames,
// --quit-after-reloads) and checks what it drew and printed against `tilegen generate` and `tilegen
// explain`.
#include <doctest/doctest.h>

#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/fixture.hpp"
#include "core/image.hpp"
#include "io/png.hpp"
#include "test_support.hpp"
#include "viewer/viewer.hpp"

namespace {

using namespace tilegen;
using namespace tilegen::test;

// True when the viewer can run here. Without xvfb-run: a failure on CI (env CI set), else a skip
// message.
bool have_xvfb() {
    if (have_program("xvfb-run")) return true;
    if (std::getenv("CI"))
        FAIL("xvfb-run is missing: the viewer tests need it on CI (Debian: apt-get install xvfb "
             "xauth)");
    MESSAGE("skipped: xvfb-run is not installed (the viewer needs a display)");
    return false;
}

std::string view_command(const std::string& args) {
    return "xvfb-run -a -s '-screen 0 1280x800x24' " + shell_quote(TILEGEN_EXE) + " view " + args;
}

RunResult view(const std::string& args, const std::filesystem::path& cwd) {
    return run(view_command(args), cwd);
}

Image load_png(const std::filesystem::path& path) {
    Diagnostics d;
    auto img = io::load_image(path, d);
    REQUIRE_MESSAGE(img.has_value(), "cannot read " << path.string());
    return std::move(*img);
}

// Counts pixels of `shot` inside w x h (from the top-left) that differ from `png` where png is
// opaque.
long count_differences(const Image& shot, const Image& png, int w, int h) {
    long differing = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const Rgba p = png.get(x, y);
            if (p.a != 255) continue;
            const Rgba s = shot.get(x, y);
            if (s.r != p.r || s.g != p.g || s.b != p.b) ++differing;
        }
    return differing;
}

} // namespace

TEST_CASE(
    "view: bad usage exits 2 and a bad recipe exits 1 with path:line:col before any window opens") {
    Fixture f;
    for (const char* args : {"--bogus", "--frames 0", "--frames x", "--frames",
                             "--screenshot shot.txt", "--size 0x5", "--seed -1", "--overlay nope",
                             "--inspect 3", "map.toml other.toml", "--frame-log f.csv"}) {
        CAPTURE(args);
        const RunResult r = f.tilegen(std::string("view ") + args);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("tilegen view: error:") != std::string::npos);
    }
    f.write_recipe("bad.toml", "map.rules", "colour = 3\n");
    const RunResult bad = f.tilegen("view bad.toml --screenshot shot.png");
    CHECK(bad.exit_code == 1);
    CHECK(std::regex_search(bad.err, std::regex(R"(bad\.toml:\d+:\d+: error: )")));
    f.write_recipe("broken-rules.toml", "missing.rules");
    const RunResult missing = f.tilegen("view broken-rules.toml --screenshot shot.png");
    CHECK(missing.exit_code == 1);
    CHECK(std::regex_search(missing.err,
                            std::regex(R"(broken-rules\.toml:\d+:\d+: error: .*missing\.rules)")));
    CHECK_FALSE(std::filesystem::exists(f.dir / "shot.png"));
}

TEST_CASE("view: failures of the window as a whole are diagnostics and exit 1") {
    Fixture f;
    // No display: said before any window is tried, in the diagnostics' form.
    const RunResult none = run("env -u DISPLAY -u WAYLAND_DISPLAY " + shell_quote(TILEGEN_EXE) +
                                   " view map.toml --screenshot shot.png",
                               f.dir.path());
    CHECK(none.exit_code == 1);
    CHECK(none.err == "tilegen view: error: no display (DISPLAY is not set); run it on a desktop "
                      "or under xvfb-run\n");
    CHECK_FALSE(std::filesystem::exists(f.dir / "shot.png"));
    if (!have_xvfb()) return;
    // A frame log that cannot be written: its path, then the error.
    const RunResult log =
        view("map.toml --frames 2 --window 320x240 --frame-log no-dir/f.csv", f.dir.path());
    CHECK(log.exit_code == 1);
    CHECK(log.err.find("no-dir/f.csv: error: cannot write the frame log\n") != std::string::npos);
    CHECK(log.out.empty());
}

TEST_CASE("view --screenshot: the map region equals tilegen generate's PNG") {
    if (!have_xvfb()) return;
    Fixture f;
    REQUIRE(f.generate("map.toml -o gen.tmx --png gen.png").exit_code == 0);
    const RunResult r = view("map.toml --screenshot shot.png --window 640x480", f.dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Image shot = load_png(f.dir / "shot.png");
    const Image png = load_png(f.dir / "gen.png");
    REQUIRE(shot.width() == 640);
    REQUIRE(shot.height() == 480);
    REQUIRE(png.width() == 320); // 40 x 24 cells of 8 px: the whole map is inside the window
    REQUIRE(png.height() == 192);
    CHECK(count_differences(shot, png, png.width(), png.height()) == 0);
    // Beside and below the map (above the status bar strip) there is only the plain background.
    const Rgba background = shot.get(639, 0);
    long other = 0;
    for (int y = 0; y < 400; ++y)
        for (int x = 0; x < 640; ++x)
            if ((x >= 320 || y >= 192) && !(shot.get(x, y) == background)) ++other;
    CHECK(other == 0);
}

TEST_CASE("view --screenshot with the built-in recipe and --seed and --size matches generate in "
          "the window") {
    if (!have_xvfb()) return;
    TempDir dir;
    REQUIRE(run_tilegen("generate --seed 42 --size 100x60 -o gen.tmx --png gen.png", dir.path())
                .exit_code == 0);
    const RunResult r = view("--seed 42 --size 100x60 --screenshot shot.png", dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Image shot = load_png(dir / "shot.png");
    const Image png = load_png(dir / "gen.png");
    REQUIRE(shot.width() == 1280);
    REQUIRE(shot.height() == 800);
    REQUIRE(png.width() == 1600); // larger than the window: the window shows its top-left part
    // The status bar is the bottom strip (under 60 px); everything above it is map.
    CHECK(count_differences(shot, png, 1280, 740) == 0);
}

TEST_CASE("view --frames prints frame-time statistics and --frame-log each frame's times") {
    if (!have_xvfb()) return;
    Fixture f;
    const RunResult r =
        view("map.toml --frames 12 --window 320x240 --frame-log frames.csv", f.dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(std::regex_search(
        r.out, std::regex(R"(^frames 12 mean_ms \d+\.\d\d p95_ms \d+\.\d\d max_ms \d+\.\d\d\n)")));
    CHECK(std::regex_search(
        r.out, std::regex(R"(\nmap 40x24 generate_ms \d+ stand_in_frames \d+ pieces_cached \d+)")));
    std::istringstream log(read_text(f.dir / "frames.csv"));
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(log, line))
        lines.push_back(line);
    REQUIRE(lines.size() == 13);
    CHECK(lines[0] ==
          "frame,ms,update_ms,draw_ms,display_ms,uploaded,upload_ms,stand_ins,level,zoom");
    CHECK(std::regex_match(
        lines[12],
        std::regex(
            R"(11,\d+\.\d{3},\d+\.\d{3},\d+\.\d{3},\d+\.\d{3},\d+,\d+\.\d{3},\d+,-?\d+,\d+\.\d{5})")));
}

TEST_CASE("view --inspect: the hover inspector states what tilegen explain says for that cell") {
    if (!have_xvfb()) return;
    Fixture f;
    // Window pixel (100, 60) at zoom 1 with 8 px tiles is cell (12, 7).
    const RunResult r =
        view("map.toml --inspect 100,60 --screenshot shot.png --window 640x480", f.dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const RunResult e = f.tilegen("explain map.toml 12 7");
    REQUIRE(e.exit_code == 0);
    CHECK(r.out.find("cell (12, 7)") != std::string::npos);
    std::smatch decided, tile, inspected;
    REQUIRE(std::regex_search(e.out, decided, std::regex(R"(decided by (\S+:\d+))")));
    REQUIRE(std::regex_search(e.out, tile, std::regex(R"(tile: ([^,\n]+), gid (\d+))")));
    REQUIRE(std::regex_search(r.out, inspected,
                              std::regex(R"(ground: (\S+:\d+) .* -> ([^,\n]+), gid (\d+))")));
    CHECK(inspected[1].str() == decided[1].str());
    CHECK(inspected[2].str() == tile[1].str());
    CHECK(inspected[3].str() == tile[2].str());
    // The screenshot shows the inspector panel (not only map pixels) near the cursor.
    REQUIRE(f.generate("map.toml -o gen.tmx --png gen.png").exit_code == 0);
    CHECK(count_differences(load_png(f.dir / "shot.png"), load_png(f.dir / "gen.png"), 320, 192) >
          100);
}

TEST_CASE("view --overlay classes draws one color per terrain class") {
    if (!have_xvfb()) return;
    Fixture f;
    const RunResult r =
        view("map.toml --overlay classes --screenshot shot.png --window 640x480", f.dir.path());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const Image shot = load_png(f.dir / "shot.png");
    std::set<std::tuple<int, int, int>> colors;
    for (int y = 0; y < 192; ++y)
        for (int x = 0; x < 320; ++x) {
            const Rgba c = shot.get(x, y);
            colors.insert({c.r, c.g, c.b});
        }
    CHECK(colors.size() == 2); // water and grass
}

TEST_CASE(
    "view hot reload: a broken rule file shows its error and keeps the map and fixing it reloads") {
    if (!have_xvfb()) return;
    Fixture f;
    // The viewer runs in the background; the script edits the rules once the map is shown, waits
    // for the failed reload to be reported, restores them, and the viewer exits after that second
    // reload.
    const std::string script = R"(
wait_for() { for i in $(seq 1 400); do grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.1; done; return 1; }
( )" + view_command("map.toml --window 320x240 --quit-after-reloads 2") +
                               R"( > view.out 2> view.err; echo $? > view.rc ) &
wait_for "tilegen view: generated" view.err || { echo "no first map" >&2; exit 3; }
cp map.rules good.rules
printf '??? ?g? ???  nosuchtile\n' >> map.rules
wait_for "reload failed" view.err || { echo "no failed reload" >&2; exit 4; }
cp good.rules map.rules
for i in $(seq 1 400); do [ -s view.rc ] && break; sleep 0.1; done
cat view.rc
)";
    write_text(f.dir / "reload.sh", script);
    const RunResult r = run("timeout 120 bash reload.sh", f.dir.path());
    const std::string err = read_text(f.dir / "view.err");
    INFO(r.err);
    INFO(err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "0\n");
    CHECK(std::regex_search(
        err,
        std::regex(
            R"(reload failed, keeping the last good map:\n.*map\.rules:5:\d+: error: .*nosuchtile)")));
    // Generated twice: at start and after the fix.
    std::size_t count = 0;
    for (std::size_t at = err.find("tilegen view: generated"); at != std::string::npos;
         at = err.find("tilegen view: generated", at + 1))
        ++count;
    CHECK(count == 2);
}

TEST_CASE("view: the status bar's layer labels keep every key and the focused layer's name when "
          "the names do not fit") {
    using tilegen::viewer::layer_labels;
    const std::vector<std::string> nine = {"deep",  "water",  "river", "sand",  "dirt",
                                           "grass", "forest", "rock",  "bridge"};
    const std::uint64_t all = ~std::uint64_t{0}, no_water = all & ~std::uint64_t{2};
    // Room for all: "N:name", hidden ones in parentheses.
    const auto labels = layer_labels(nine, no_water, 0, 200);
    CHECK(labels == std::vector<std::string>{"1:deep", "2:(water)", "3:river", "4:sand", "5:dirt",
                                             "6:grass", "7:forest", "8:rock", "9:bridge"});
    // Exactly the room the full labels take (each and a space): still full; one less: compact.
    std::size_t full = 0;
    for (const auto& l : labels)
        full += l.size() + 1;
    CHECK(layer_labels(nine, no_water, 5, full) == labels);
    const auto compact = layer_labels(nine, no_water, 5, full - 1);
    CHECK(compact == std::vector<std::string>{"1", "(2)", "3", "4", "5", "6:grass", "7", "8", "9"});
    // No focus: every layer by its number; past the ninth, the first three letters of the name.
    std::vector<std::string> eleven = nine;
    eleven.push_back("decoration");
    eleven.push_back("top");
    const auto many = layer_labels(eleven, all & ~(std::uint64_t{1} << 9), -1, 10);
    CHECK(many ==
          std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8", "9", "(dec)", "top"});
}
