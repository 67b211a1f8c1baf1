// Issue "Reliability": every bad input gets a clear message, a non-zero exit, and no output. One
// table, run as a user runs tilegen: the files of a small project, the command line, the exit code,
// and what stderr must say (with path:line:col where the input is a file). Finer tables per parser
// live beside each parser's tests.
#include <doctest/doctest.h>

#include <filesystem>
#include <unistd.h>

#include "app/fixture.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

namespace {

const std::string kRecipe = "[map]\nwidth = 24\nheight = 16\nseed = 3\n"
                            "[[terrain]]\nname = \"water\"\nsymbol = \"w\"\nshare = 0.4\n"
                            "[[terrain]]\nname = \"grass\"\nsymbol = \"g\"\nshare = 0.6\n"
                            "[rules]\nfiles = [\"map.rules\"]\n[tileset]\npath = \"tiles.toml\"\n";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
    auto p = s.find(from);
    REQUIRE_MESSAGE(p != std::string::npos, from);
    return s.replace(p, from.size(), to);
}

std::string crlf(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

struct Case {
    std::string name;
    std::vector<std::pair<std::string, std::string>>
        files;        // written before the run (over the fixture's)
    std::string args; // after "tilegen"
    int exit_code;
    std::string message; // substring of stderr ("" = not checked)
};

} // namespace

TEST_CASE("bad inputs: exit code, message and location, no output written") {
    const std::string long_line = "??? ?g? ??? " + std::string(100000, 'x') + "*oops\n";
    const std::vector<Case> cases = {
        // --- recipes
        {"empty recipe",
         {{"r.toml", ""}},
         "generate r.toml",
         1,
         "r.toml:1:1: error: recipe has no [[terrain]] classes"},
        {"binary garbage recipe",
         {{"r.toml", std::string("\x00\x01\xff\xfe garbage\x80", 13)}},
         "generate r.toml",
         1,
         "r.toml:1:"},
        {"huge width",
         {{"r.toml", replaced(kRecipe, "width = 24", "width = 99999999999999999999")}},
         "generate r.toml",
         1,
         "r.toml:2:"},
        {"negative height",
         {{"r.toml", replaced(kRecipe, "height = 16", "height = -16")}},
         "generate r.toml",
         1,
         "r.toml:3:10: error: 'map.height' is -16, expected 1 to 65536"},
        {"zero width",
         {{"r.toml", replaced(kRecipe, "width = 24", "width = 0")}},
         "generate r.toml",
         1,
         "r.toml:2:9: error: 'map.width' is 0"},
        {"nan share",
         {{"r.toml", replaced(kRecipe, "share = 0.4", "share = nan")}},
         "generate r.toml",
         1,
         "r.toml:8:9: error: 'terrain.share' is nan"},
        {"inf persistence",
         {{"r.toml", "[noise]\npersistence = inf\n" + kRecipe}},
         "generate r.toml",
         1,
         "r.toml:2:15: error: 'noise.persistence' is inf"},
        {"shares not adding to 1",
         {{"r.toml", replaced(kRecipe, "share = 0.6", "share = 0.5")}},
         "generate r.toml",
         1,
         "r.toml:5:1: error: terrain shares add up to 0.9"},
        {"duplicate symbols",
         {{"r.toml", replaced(kRecipe, "symbol = \"g\"", "symbol = \"w\"")}},
         "generate r.toml",
         1,
         "r.toml:11:10: error: duplicate terrain symbol 'w'"},
        {"unknown key",
         {{"r.toml", replaced(kRecipe, "seed = 3", "sed = 3")}},
         "generate r.toml",
         1,
         "r.toml:4:1: error: unknown key 'map.sed'"},
        {"wrong type",
         {{"r.toml", replaced(kRecipe, "seed = 3", "seed = \"three\"")}},
         "generate r.toml",
         1,
         "r.toml:4:8: error: 'map.seed' must be an integer, not a string"},
        {"missing recipe", {}, "generate nowhere.toml", 1, "nowhere.toml: error: cannot read file"},
        {"recipe is a directory", {}, "generate .", 1, ".: error: is a directory"},
        // --- rule files
        {"missing rule file",
         {{"r.toml", replaced(kRecipe, "map.rules", "gone.rules")}},
         "generate r.toml",
         1,
         "r.toml:14:10: error: gone.rules: cannot read file"},
        {"rule file is a directory",
         {{"r.toml", replaced(kRecipe, "map.rules", "sub")}},
         "generate r.toml",
         1,
         "r.toml:14:10: error: sub: is a directory"},
        {"empty rule file",
         {{"map.rules", "# nothing yet\n"}},
         "generate map.toml -o o.tmx",
         1,
         "map.toml:14:10: error: the rule files define no rules"},
        {"binary rule file",
         {{"map.rules", std::string("\x01\x02\x03 \xff\n", 7)}},
         "generate map.toml",
         1,
         "map.rules:1:1: error: unknown terrain symbol '\\x01'"},
        {"unknown tile",
         {{"map.rules", "w water\ng grasss\n"}},
         "generate map.toml",
         1,
         "map.rules:2:3: error: unknown tile 'grasss'"},
        {"unknown symbol",
         {{"map.rules", "w water\n?x? ?g? ??? grass\n"}},
         "generate map.toml",
         1,
         "map.rules:2:2: error: unknown terrain symbol 'x'"},
        {"very long line",
         {{"map.rules", "w water\n" + long_line}},
         "generate map.toml",
         1,
         "map.rules:2:100014: error: weight 'oops' is not a number"},
        {"missing image target",
         {{"map.rules", "w water\ng art/none.png\n"}},
         "generate map.toml",
         1,
         "map.rules:2:3: error: art/none.png: cannot read file"},
        // --- tileset manifest
        {"manifest missing",
         {{"r.toml", replaced(kRecipe, "tiles.toml", "none.toml")}},
         "generate r.toml",
         1,
         "r.toml:16:8: error: none.toml: cannot read file"},
        {"manifest garbage",
         {{"tiles.toml", "image = \n[tiles\n"}},
         "generate map.toml",
         1,
         "tiles.toml:1:"},
        {"manifest image missing",
         {{"tiles.toml", "image = \"nope.png\"\n[tiles]\nwater = 0\n"}},
         "generate map.toml",
         1,
         "tiles.toml:1:9: error: nope.png: cannot read file"},
        {"manifest image not an image",
         {{"tiles.toml", "image = \"map.rules\"\n[tiles]\nwater = 0\n"}},
         "generate map.toml",
         1,
         "tiles.toml:1:9: error: map.rules: not a readable image"},
        {"tile index out of range",
         {{"tiles.toml",
           "image = \"tiles.png\"\ntile_width = 8\ntile_height = 8\n[tiles]\nwater = 99\n"}},
         "generate map.toml",
         1,
         "tiles.toml:5:1: error: tile 'water' has index 99 but the image holds 4 tiles"},
        // --- class maps
        {"empty class map",
         {{"c.txt", ""}},
         "generate map.toml --classes c.txt",
         1,
         "c.txt:1:1: error: class map is empty"},
        {"ragged class map",
         {{"c.txt", "wgw\nww\n"}},
         "generate map.toml --classes c.txt",
         1,
         "c.txt:2:3: error: row has 2 cells"},
        {"class map unknown symbol",
         {{"c.txt", "wgw\nwqw\n"}},
         "generate map.toml --classes c.txt",
         1,
         "c.txt:2:2: error: unknown terrain symbol 'q'"},
        {"class map CRLF and BOM work",
         {{"c.txt", "\xEF\xBB\xBFwgw\r\nwww\r\n"}},
         "generate map.toml --classes c.txt -o o.tmx",
         0,
         ""},
        {"PNG class map garbage",
         {{"c.png", "\x89PNG not really"}},
         "generate map.toml --classes c.png",
         1,
         "c.png: error: not a readable image"},
        {"TMX class map garbage",
         {{"c.tmx", "<map><layer>"}},
         "generate map.toml --classes c.tmx",
         1,
         "c.tmx:1:1: error: not well-formed XML"},
        {"TMX class map empty", {{"c.tmx", ""}}, "generate map.toml --classes c.tmx", 1, "c.tmx:"},
        {"class map missing",
         {},
         "generate map.toml --classes none.txt",
         1,
         "none.txt: error: cannot read file"},
        // --- encodings that should simply work
        {"recipe with BOM and CRLF",
         {{"r.toml", "\xEF\xBB\xBF" + crlf(kRecipe)}},
         "generate r.toml -o o.tmx",
         0,
         ""},
        {"rules with tabs, CRLF and BOM",
         {{"map.rules", "\xEF\xBB\xBF??? ?w?\t???\twater\r\n\t???\t?g? ???   grass\r\n"}},
         "generate map.toml -o o.tmx",
         0,
         ""},
        // --- command line
        {"no command", {}, "", 2, "Usage"},
        {"unknown command", {}, "frobnicate", 2, "unknown command 'frobnicate'"},
        {"zero size", {}, "generate map.toml --size 0x5", 2, "--size takes WxH"},
        {"negative size", {}, "generate map.toml --size -3x4", 2, "--size takes WxH"},
        {"size not a number", {}, "generate map.toml --size axb", 2, "--size takes WxH"},
        {"seed not a number", {}, "generate map.toml --seed 1e5", 2, "--seed takes a whole number"},
        {"huge seed",
         {},
         "generate map.toml --seed 99999999999999999999999",
         2,
         "--seed takes a whole number"},
        {"threads zero", {}, "generate map.toml --threads 0", 2, "--threads takes a whole number"},
        {"bad encoding", {}, "generate map.toml --encoding lzma", 2, "--encoding takes csv"},
        {"bad chunk",
         {},
         "generate map.toml --infinite --chunk 0",
         2,
         "--chunk takes a whole number"},
        {"option without value", {}, "generate map.toml -o", 2, "-o needs a value"},
        {"unknown option", {}, "generate map.toml --fast", 2, "unknown option '--fast'"},
        {"output in a missing directory",
         {},
         "generate map.toml -o no/such/dir/m.tmx",
         1,
         "directory 'no/such/dir' does not exist"},
        {"output over an input",
         {},
         "generate map.toml -o o.tmx --png tiles.png",
         1,
         "tiles.png: error: refusing to write over 'tiles.png', an input of this run"},
        {"map larger than the memory limit",
         {},
         "generate map.toml --size 60000x60000",
         1,
         "a 60000x60000 map needs about"},
        {"memory limit can be raised",
         {},
         "generate map.toml --size 600x400 --max-memory 0.001",
         1,
         "--max-memory GIB"},
        {"stats: map larger than the memory limit",
         {},
         "stats map.toml --size 60000x60000",
         1,
         "tilegen stats: error: a 60000x60000 map needs about"},
        {"bad max-memory",
         {},
         "generate map.toml --max-memory lots",
         2,
         "--max-memory takes a number"},
        {"explain outside the map", {}, "explain map.toml 99 0", 2, "is outside the 40x24 map"},
        {"noise bad region",
         {},
         "noise map.toml -o n.png --region 1,2,3",
         2,
         "--region takes X,Y,W,H"},
        {"check on a broken rule file",
         {{"map.rules", "w water\n?[gw ggg ??? grass\n"}},
         "check map.toml",
         1,
         "map.rules:2:2: error: '[' without a closing ']'"},
    };
    CHECK(cases.size() >= 60 - 8); // with the per-parser tables, well over 60 bad inputs in all
    for (const Case& c : cases) {
        CAPTURE(c.name);
        Fixture f;
        fs::create_directories(f.dir / "sub");
        for (const auto& [name, content] : c.files)
            write_text(f.dir / name, content);
        const auto before =
            std::distance(fs::directory_iterator(f.dir.path()), fs::directory_iterator{});
        auto r = f.tilegen(c.args);
        CHECK(r.exit_code == c.exit_code);
        if (!c.message.empty()) CHECK_MESSAGE(r.err.find(c.message) != std::string::npos, r.err);
        if (c.exit_code != 0) {
            // Nothing new was written: no map, no half-written or temporary file.
            const auto after =
                std::distance(fs::directory_iterator(f.dir.path()), fs::directory_iterator{});
            CHECK(after == before);
        }
        CHECK(r.err.find("Segmentation") == std::string::npos);
    }
}

TEST_CASE("a file tilegen cannot read is reported, not crashed on") {
    if (::geteuid() == 0) {
        // root reads files whatever their mode: use a path through a regular file instead.
        Fixture f;
        write_text(f.dir / "r.toml", replaced(kRecipe, "map.rules", "map.rules/inner.rules"));
        auto r = f.tilegen("generate r.toml");
        CHECK(r.exit_code == 1);
        CHECK(r.err.find("map.rules/inner.rules: cannot read file") != std::string::npos);
        return;
    }
    Fixture f;
    fs::permissions(f.dir / "map.rules", fs::perms::none);
    auto r = f.tilegen("generate map.toml");
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("map.rules: cannot read file") != std::string::npos);
}

TEST_CASE("killing tilegen while it writes leaves the previous map intact") {
    Fixture f;
    write_text(f.dir / "big.tmx", "previous map\n");
    // An infinite map streams its TMX chunk by chunk into a temporary file for a while: kill it
    // mid-write.
    const std::string cmd =
        shell_quote(TILEGEN_EXE) +
        " generate map.toml --infinite --size 3000x3000 -o big.tmx "
        "--png none --threads 1 & pid=$!; for i in $(seq 1 20000); do if ls .big.tmp* >/dev/null "
        "2>&1; "
        "then sleep 0.05; kill -9 $pid; echo killed; break; fi; done; wait $pid; true";
    auto r = run("(" + cmd + ")", f.dir.path());
    INFO(r.out << r.err);
    if (r.out.find("killed") == std::string::npos) {
        MESSAGE("tilegen finished before it could be killed; the map must then be complete");
        CHECK(read_text(f.dir / "big.tmx").find("</map>") != std::string::npos);
        return;
    }
    CHECK(read_text(f.dir / "big.tmx") == "previous map\n");
}
