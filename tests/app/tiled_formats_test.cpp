// Issue "Tiled interop in depth": every encoding, TMJ, infinite chunks, properties and reading maps
// back, judged by Tiled's own tools where Tiled is installed; the map writer's golden cases and
// every combination of format, finite/infinite and tileset placement rendered by Tiled.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "app/fixture.hpp"
#include "io/layer_encoding.hpp"
#include "io/png.hpp"
#include "io/writer_sample.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

namespace {

bool tiled_here() {
    if (have_program("tmxrasterizer") && have_program("tiled")) return true;
    if (std::getenv("CI"))
        FAIL("tmxrasterizer/tiled are missing; .ci/run must install the Debian package 'tiled'");
    MESSAGE("skipped: Tiled is not installed (apt-get install tiled)");
    return false;
}

bool same_pixels(const fs::path& a, const fs::path& b) {
    Diagnostics d;
    auto x = io::load_image(a, d), y = io::load_image(b, d);
    if (!x || !y || x->width() != y->width() || x->height() != y->height()) return false;
    for (int j = 0; j < x->height(); ++j)
        for (int i = 0; i < x->width(); ++i) {
            const Rgba p = x->get(i, j), q = y->get(i, j);
            if (!(p == q) && !(p.a == 0 && q.a == 0)) return false;
        }
    return true;
}

// The gids of the first tile layer of a Tiled JSON export: "data":[...], or a base64 string
// (compressed as the layer's "compression" says), which Tiled keeps when the map was saved that
// way.
std::vector<Gid> exported_gids(const std::string& json, std::size_t expected = 40 * 24) {
    std::vector<Gid> out;
    auto p = json.find("\"data\":[");
    if (p == std::string::npos) {
        auto q = json.find("\"data\":\"");
        if (q == std::string::npos) return out;
        q += 8;
        std::string data = json.substr(q, json.find('"', q) - q);
        std::erase(data, '\\'); // JSON writes '/' as "\/"
        std::string compression;
        if (auto c = json.find("\"compression\":\""); c != std::string::npos) {
            c += 15;
            compression = json.substr(c, json.find('"', c) - c);
        }
        Diagnostics diags;
        auto gids = io::decode_layer(data, "base64", compression, expected, diags);
        return gids ? *gids : out;
    }
    p += 8;
    std::string cur;
    for (; p < json.size() && json[p] != ']'; ++p) {
        if (json[p] >= '0' && json[p] <= '9')
            cur += json[p];
        else if (!cur.empty())
            out.push_back(static_cast<Gid>(std::stoul(cur))), cur.clear();
    }
    if (!cur.empty()) out.push_back(static_cast<Gid>(std::stoul(cur)));
    return out;
}

std::string strip_spaces(std::string s) {
    std::erase_if(s, [](char c) { return c == ' ' || c == '\n'; });
    return s;
}

std::string property(const std::string& tmx, const std::string& name) {
    const std::string key = "<property name=\"" + name + "\" value=\"";
    auto p = tmx.find(key);
    if (p == std::string::npos) return "";
    p += key.size();
    return tmx.substr(p, tmx.find('"', p) - p);
}

} // namespace

TEST_CASE("every layer encoding renders in Tiled like tilegen's PNG and exports the same gids") {
    if (!tiled_here()) return;
    Fixture f;
    REQUIRE(f.generate("map.toml -o csv.tmx").exit_code == 0);
    REQUIRE(run("QT_QPA_PLATFORM=offscreen tiled --export-map json csv.tmx csv.json", f.dir.path())
                .exit_code == 0);
    const auto reference = exported_gids(strip_spaces(read_text(f.dir / "csv.json")));
    REQUIRE(reference.size() == 40 * 24);
    int n = 0;
    for (const char* e : {"csv", "base64", "base64+zlib", "base64+gzip", "base64+zstd"}) {
        CAPTURE(e);
        const std::string name = "m" + std::to_string(n++);
        auto r = f.generate("map.toml -o " + name + ".tmx --encoding " + e);
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(read_text(f.dir / (name + ".tmx"))
                  .find(std::string("encoding=\"") + (e[0] == 'c' ? "csv" : "base64")) !=
              std::string::npos);
        REQUIRE(
            run("QT_QPA_PLATFORM=offscreen tmxrasterizer " + name + ".tmx " + name + "-tiled.png",
                f.dir.path())
                .exit_code == 0);
        CHECK(same_pixels(f.dir / (name + ".png"), f.dir / (name + "-tiled.png")));
        REQUIRE(run("QT_QPA_PLATFORM=offscreen tiled --export-map json " + name + ".tmx " + name +
                        ".json",
                    f.dir.path())
                    .exit_code == 0);
        CHECK(exported_gids(strip_spaces(read_text(f.dir / (name + ".json")))) == reference);
    }
}

TEST_CASE("TMJ (Tiled JSON) with a TSJ tileset loads in Tiled with the same tiles and pixels") {
    if (!tiled_here()) return;
    Fixture f;
    REQUIRE(f.generate("map.toml -o a.tmx").exit_code == 0);
    auto r = f.generate("map.toml -o b.tmj --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"outputs\":[\"b.tmj\",\"b.tsj\",\"b-tiles.png\",\"b.png\"]") !=
          std::string::npos);
    CHECK(read_text(f.dir / "b.tsj").find("\"type\":\"tileset\"") != std::string::npos);
    REQUIRE(run("QT_QPA_PLATFORM=offscreen tiled --export-map json a.tmx a.json", f.dir.path())
                .exit_code == 0);
    REQUIRE(run("QT_QPA_PLATFORM=offscreen tiled --export-map json b.tmj b.json", f.dir.path())
                .exit_code == 0);
    CHECK(exported_gids(strip_spaces(read_text(f.dir / "b.json"))) ==
          exported_gids(strip_spaces(read_text(f.dir / "a.json"))));
    REQUIRE(
        run("QT_QPA_PLATFORM=offscreen tmxrasterizer b.tmj b-tiled.png", f.dir.path()).exit_code ==
        0);
    CHECK(same_pixels(f.dir / "b.png", f.dir / "b-tiled.png"));
    REQUIRE(f.generate("map.toml -o z.tmj --encoding base64+zstd").exit_code == 0);
    REQUIRE(
        run("QT_QPA_PLATFORM=offscreen tmxrasterizer z.tmj z-tiled.png", f.dir.path()).exit_code ==
        0);
    CHECK(same_pixels(f.dir / "z.png", f.dir / "z-tiled.png"));
}

TEST_CASE(
    "infinite maps: chunks Tiled renders like tilegen's PNG, the same tiles for any chunk size") {
    Fixture f;
    auto r = f.generate("map.toml -o i16.tmx --infinite --size 48x32 --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"infinite\":true,\"chunks\":6") != std::string::npos);
    const std::string tmx = read_text(f.dir / "i16.tmx");
    CHECK(tmx.find("infinite=\"1\"") != std::string::npos);
    CHECK(tmx.find("<chunk x=\"32\" y=\"16\" width=\"16\" height=\"16\">") != std::string::npos);
    REQUIRE(
        f.generate("map.toml -o i8.tmx --infinite --size 48x32 --chunk 8 --encoding base64+zlib")
            .exit_code == 0);
    CHECK(read_text(f.dir / "i8.png") == read_text(f.dir / "i16.png"));
    // The same world as a finite map (thresholds from the same cells) agrees away from the map's
    // edge, where the finite map clamps and the infinite one sees its neighbours.
    REQUIRE(f.generate("map.toml -o fin.tmx --size 48x32").exit_code == 0);
    Diagnostics d;
    auto a = io::load_image(f.dir / "fin.png", d), b = io::load_image(f.dir / "i16.png", d);
    REQUIRE(a);
    REQUIRE(b);
    bool same = true;
    for (int y = 8; y < 31 * 8; ++y)
        for (int x = 8; x < 47 * 8; ++x)
            same = same && a->get(x, y) == b->get(x, y);
    CHECK(same);
    auto whole = f.generate("map.toml -o bad.tmx --infinite --classes x.txt");
    CHECK(whole.exit_code == 2);
    if (!tiled_here()) return;
    REQUIRE(run("QT_QPA_PLATFORM=offscreen tmxrasterizer i16.tmx i16-tiled.png", f.dir.path())
                .exit_code == 0);
    CHECK(same_pixels(f.dir / "i16.png", f.dir / "i16-tiled.png"));
    REQUIRE(run("QT_QPA_PLATFORM=offscreen tmxrasterizer i8.tmx i8-tiled.png", f.dir.path())
                .exit_code == 0);
    CHECK(same_pixels(f.dir / "i8.png", f.dir / "i8-tiled.png"));
}

TEST_CASE("infinite maps refuse whole-map generators") {
    Fixture f;
    write_text(f.dir / "ds.toml",
               "[noise]\nkind = \"diamond-square\"\n" + read_text(f.dir / "map.toml"));
    auto r = f.generate("ds.toml -o x.tmx --infinite");
    CHECK(r.exit_code == 1);
    // At the map's definition ([noise], line 1).
    CHECK(r.err.find("ds.toml:1:1: error: map 'elevation' is kind \"diamond-square\", a whole-map "
                     "algorithm") != std::string::npos);
}

TEST_CASE("infinite and finite maps of the same cells carry the same thresholds, 9 digits") {
    Fixture f;
    // Up to 1024 cells a side the infinite map reads its thresholds from the whole map.
    REQUIRE(f.generate("map.toml -o fin.tmx --seed 9 --size 48x32").exit_code == 0);
    REQUIRE(f.generate("map.toml -o inf.tmx --seed 9 --size 48x32 --infinite").exit_code == 0);
    const std::string finite = property(read_text(f.dir / "fin.tmx"), "thresholds");
    CHECK(finite.size() > 3);
    CHECK(property(read_text(f.dir / "inf.tmx"), "thresholds") == finite);
}

TEST_CASE(
    "map properties name the seed, size, inputs and thresholds, a map is reproduced from them") {
    Fixture f;
    REQUIRE(f.generate("map.toml -o p.tmx --seed 41 --size 30x20").exit_code == 0);
    const std::string tmx = read_text(f.dir / "p.tmx");
    CHECK(property(tmx, "seed") == "41");
    CHECK(property(tmx, "size") == "30x20");
    CHECK(property(tmx, "recipe") == "map.toml");
    CHECK(property(tmx, "generator").starts_with("tilegen "));
    CHECK(property(tmx, "thresholds").size() > 3);
    const std::string hash = property(tmx, "inputs_hash");
    CHECK(hash.size() == 16);
    // Reproduce from the properties alone.
    REQUIRE(f.generate("map.toml -o q.tmx --seed " + property(tmx, "seed") + " --size " +
                       property(tmx, "size"))
                .exit_code == 0);
    std::string q = read_text(f.dir / "q.tmx");
    CHECK(q.replace(q.find("q.tsx"), 5, "p.tsx") == tmx);
    // Any change to an input changes the hash.
    write_text(f.dir / "map.rules", read_text(f.dir / "map.rules") + "# edited\n");
    REQUIRE(f.generate("map.toml -o e.tmx --seed 41 --size 30x20").exit_code == 0);
    CHECK(property(read_text(f.dir / "e.tmx"), "inputs_hash") != hash);
}

TEST_CASE(
    "reading maps back: TMX (any encoding, Tiled's own re-save, infinite) and PNG class maps") {
    Fixture f;
    write_text(f.dir / "drawn.txt", "wwwwwwww\nwwgggwww\nwggggggw\nwwggggww\nwwwwwwww\n");
    REQUIRE(f.generate("map.toml -o a.tmx --classes drawn.txt").exit_code == 0);
    const std::string a = read_text(f.dir / "a.tmx");
    auto data_of = [](const std::string& tmx) {
        return tmx.substr(tmx.find("<data"), tmx.find("</data>") - tmx.find("<data"));
    };
    for (const char* e : {"csv", "base64+gzip", "base64+zstd"}) {
        CAPTURE(e);
        REQUIRE(f.generate(std::string("map.toml -o enc.tmx --classes drawn.txt --encoding ") + e)
                    .exit_code == 0);
        auto r = f.generate("map.toml -o back.tmx --classes enc.tmx");
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(data_of(read_text(f.dir / "back.tmx")) ==
              data_of(a)); // identical cells, so identical tiles
    }
    auto named = f.generate("map.toml -o n.tmx --classes a.tmx:ground");
    CHECK(named.exit_code == 0);
    auto missing_layer = f.generate("map.toml -o n.tmx --classes a.tmx:decor");
    CHECK(missing_layer.exit_code == 1);
    CHECK(missing_layer.err.find("a.tmx:2:1: error: the map has no tile layer 'decor'") !=
          std::string::npos);

    // PNG class maps with the recipe's colours.
    f.write_recipe("c.toml", "map.rules");
    {
        std::string c = read_text(f.dir / "c.toml");
        c.replace(c.find("symbol = \"w\""), 12, "symbol = \"w\"\ncolor = \"#3060c0\"");
        c.replace(c.find("symbol = \"g\""), 12, "symbol = \"g\"\ncolor = \"#40a040\"");
        write_text(f.dir / "c.toml", c);
    }
    Image img(8, 5, Rgba{0x30, 0x60, 0xc0, 255});
    const char* rows[] = {"wwwwwwww", "wwgggwww", "wggggggw", "wwggggww", "wwwwwwww"};
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 8; ++x)
            if (rows[y][x] == 'g') img.set(x, y, Rgba{0x40, 0xa0, 0x40, 255});
    Diagnostics d;
    REQUIRE(io::save_png(f.dir / "painted.png", img, d));
    auto p = f.generate("c.toml -o fromimg.tmx --classes painted.png");
    INFO(p.err);
    REQUIRE(p.exit_code == 0);
    CHECK(data_of(read_text(f.dir / "fromimg.tmx")) == data_of(a));
    img.set(3, 3, Rgba{1, 2, 3, 255});
    REQUIRE(io::save_png(f.dir / "wrong.png", img, d));
    auto w = f.generate("c.toml -o x.tmx --classes wrong.png");
    CHECK(w.exit_code == 1);
    CHECK(w.err.find("wrong.png: error: pixel (3, 3) is #010203, which is no terrain's color "
                     "(water #3060c0, grass #40a040)") != std::string::npos);
    auto nocolor = f.generate("map.toml -o x.tmx --classes painted.png");
    CHECK(nocolor.exit_code == 1);
    CHECK(nocolor.err.find("give each [[terrain]] a color") != std::string::npos);

    // Infinite maps read back too.
    REQUIRE(f.generate("map.toml -o inf.tmx --infinite --size 32x16 --chunk 8").exit_code == 0);
    auto inf = f.generate("map.toml -o inf-back.tmx --classes inf.tmx --json");
    INFO(inf.err);
    CHECK(inf.exit_code == 0);
    CHECK(inf.out.find("\"width\":32,\"height\":16") != std::string::npos);

    if (!tiled_here()) return;
    // A fixture written by Tiled itself: Tiled re-saves our map in its own hand.
    REQUIRE(
        run("QT_QPA_PLATFORM=offscreen tiled --export-map tmx a.tmx tiled-saved.tmx", f.dir.path())
            .exit_code == 0);
    auto t = f.generate("map.toml -o t.tmx --classes tiled-saved.tmx");
    INFO(t.err);
    REQUIRE(t.exit_code == 0);
    CHECK(data_of(read_text(f.dir / "t.tmx")) == data_of(a));
}

TEST_CASE("malformed TMX class maps are refused with a location") {
    Fixture f;
    REQUIRE(f.generate("map.toml -o good.tmx --size 6x4").exit_code == 0);
    const std::string good = read_text(f.dir / "good.tmx");
    struct Bad {
        std::string text;
        const char* message;
    };
    auto replace = [&](const std::string& from, const std::string& to) {
        std::string s = good;
        return s.replace(s.find(from), from.size(), to);
    };
    const Bad cases[] = {
        {"<map", "bad.tmx:1:1: error: not well-formed XML"},
        {"<?xml version=\"1.0\"?>\n<tileset/>\n", "bad.tmx:1:1: error: not a TMX map"},
        {replace("encoding=\"csv\"", "encoding=\"base64\""), "error: data is not valid base64"},
        {replace("<data encoding=\"csv\">\n", "<data encoding=\"csv\">\n1,"),
         "layer data has 25 tiles, expected 24"},
        {replace("source=\"good.tsx\"", "source=\"nope.tsx\""),
         "bad.tmx:12:1: error: tileset 'nope.tsx': cannot read file"},
        {replace("<data encoding=\"csv\">\n", "<data encoding=\"csv\">\n0,")
             .replace(good.find("</data>") - 3, 2, ""),
         "is empty: every cell of a class map needs a tile"},
    };
    for (const Bad& b : cases) {
        write_text(f.dir / "bad.tmx", b.text);
        auto r = f.generate("map.toml -o out.tmx --classes bad.tmx");
        CAPTURE(b.message);
        CHECK(r.exit_code == 1);
        CHECK_MESSAGE(r.err.find(b.message) != std::string::npos, r.err);
        CHECK_FALSE(fs::exists(f.dir / "out.tmx"));
    }
}

TEST_CASE("the TSX carries a mixed Wang set for the shipped tileset that Tiled loads") {
    TempDir dir;
    auto r = run_tilegen("generate --size 30x20 -o w.tmx", dir.path());
    REQUIRE(r.exit_code == 0);
    const std::string tsx = read_text(dir / "w.tsx");
    CHECK(tsx.find("<wangset name=\"terrains\" type=\"mixed\" tile=\"-1\">") != std::string::npos);
    CHECK(tsx.find("<wangcolor name=\"water\"") != std::string::npos);
    CHECK(tsx.find("wangid=\"3,3,3,3,3,3,3,3\"") != std::string::npos); // plain grass
    const auto count = [](const std::string& s, const std::string& what) {
        std::size_t n = 0;
        for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
            ++n;
        return n;
    };
    CHECK(count(tsx, "<wangtile ") >= 90);
    REQUIRE(run_tilegen("generate --size 30x20 -o j.tmj", dir.path()).exit_code == 0);
    CHECK(read_text(dir / "j.tsj").find("\"wangsets\":[{\"colors\":[") != std::string::npos);
    if (!tiled_here()) return;
    REQUIRE(run("QT_QPA_PLATFORM=offscreen tiled --export-tileset json w.tsx w.json", dir.path())
                .exit_code == 0);
    const std::string exported = strip_spaces(read_text(dir / "w.json"));
    CHECK(count(exported, "\"tileid\":") == count(tsx, "<wangtile "));
    CHECK(exported.find("\"type\":\"mixed\"") != std::string::npos);
}

TEST_CASE("the map writer's golden cases load in Tiled: drawn like tilegen draws the map, exported "
          "to JSON") {
    if (!tiled_here()) return;
    TempDir out;
    for (const WriterCase& c : writer_cases()) {
        CAPTURE(c.dir);
        const fs::path map = source_dir() / "tests" / "data" / c.dir / c.map_file;
        const fs::path png = out / (c.dir + ".png"), json = out / (c.dir + ".json");
        REQUIRE(run("QT_QPA_PLATFORM=offscreen tmxrasterizer " + shell_quote(map.string()) + " " +
                    shell_quote(png.string()))
                    .exit_code == 0);
        // Finite: the map as tilegen draws it. Infinite: Tiled draws its own 16-cell chunks around
        // the region (x -8..7, y -4..3: cells -16..15 on both axes), clear where no tile is.
        Image expected = render_map(writer_sample_map(true));
        if (c.infinite) {
            const Image region = render_map(writer_sample_map(false, 16, 8, -8, -4));
            expected = Image(32 * 8, 32 * 8);
            expected.copy_from(region, 0, 0, region.width(), region.height(), 8 * 8, 12 * 8);
        }
        Diagnostics d;
        REQUIRE(io::save_png(out / (c.dir + "-tilegen.png"), expected, d));
        CHECK(same_pixels(out / (c.dir + "-tilegen.png"), png));
        REQUIRE(run("QT_QPA_PLATFORM=offscreen tiled --export-map json " +
                    shell_quote(map.string()) + " " + shell_quote(json.string()))
                    .exit_code == 0);
        const std::string exported = strip_spaces(read_text(json));
        CHECK(exported.find(c.infinite ? "\"infinite\":true" : "\"infinite\":false") !=
              std::string::npos);
        CHECK(exported.find("\"name\":\"over&<detail>\"") != std::string::npos);
        if (c.tilesets == io::TilesetPlacement::embedded)
            CHECK(exported.find("\"name\":\"terrain\",\"type\":\"string\",\"value\":\"w\"") !=
                  std::string::npos);
        if (!c.infinite) {
            std::vector<Gid> ground;
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 6; ++x)
                    ground.push_back(writer_sample_gid(0, x, y));
            CHECK(exported_gids(exported, ground.size()) == ground);
        }
    }
}

TEST_CASE("tilegen generate: TMX/TMJ x finite/infinite x external/embedded tilesets all render in "
          "Tiled like tilegen's PNG") {
    Fixture f;
    int n = 0;
    for (const char* ext : {".tmx", ".tmj"})
        for (const char* infinite : {"", " --infinite --size 48x32"})
            for (const char* tilesets : {"external", "embedded"}) {
                const std::string name = "g" + std::to_string(n++);
                const std::string map = name + ext;
                CAPTURE(map);
                CAPTURE(infinite);
                CAPTURE(tilesets);
                auto r = f.generate("map.toml -o " + map + infinite + " --tilesets " + tilesets +
                                    " --json");
                INFO(r.err);
                REQUIRE(r.exit_code == 0);
                const bool embedded = std::string(tilesets) == "embedded";
                const std::string tileset = name + (std::string(ext) == ".tmx" ? ".tsx" : ".tsj");
                CHECK(fs::exists(f.dir / tileset) == !embedded);
                CHECK((r.out.find("\"" + tileset + "\"") == std::string::npos) == embedded);
                if (!tiled_here()) continue;
                REQUIRE(run("QT_QPA_PLATFORM=offscreen tmxrasterizer " + map + " " + name +
                                "-tiled.png",
                            f.dir.path())
                            .exit_code == 0);
                CHECK(same_pixels(f.dir / (name + ".png"), f.dir / (name + "-tiled.png")));
            }
    auto bad = f.generate("map.toml -o x.tmx --tilesets inside");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--tilesets takes external or embedded, not 'inside'") != std::string::npos);
}

TEST_CASE("--embed-tilesets writes what --tilesets embedded writes: a map with no external "
          "tileset reference (TMX and TMJ)") {
    Fixture f;
    for (const char* ext : {"tmx", "tmj"}) {
        CAPTURE(ext);
        const std::string a = std::string("a.") + ext, b = std::string("b.") + ext;
        REQUIRE(f.generate("map.toml --png none -o " + a + " --tilesets embedded").exit_code == 0);
        REQUIRE(f.generate("map.toml --png none -o " + b + " --embed-tilesets").exit_code == 0);
        // The same document but for the file names (the map's and the tileset's name follow it).
        const auto named_x = [](std::string text, const std::string& stem) {
            for (std::size_t p = text.find(stem); p != std::string::npos; p = text.find(stem, p))
                text.replace(p, stem.size(), "X");
            return text;
        };
        const std::string first = named_x(read_text(f.dir / a), "\"a"),
                          second = named_x(read_text(f.dir / b), "\"b");
        CHECK(first == second);
        CHECK(second.find("source=\"X.ts") == std::string::npos);
        CHECK(second.find("\"source\"") == std::string::npos);
        CHECK(second.find("-tiles.png") != std::string::npos);
        CHECK_FALSE(fs::exists(f.dir / (std::string("b.ts") + (ext[2] == 'x' ? "x" : "j"))));
    }
    auto both = f.generate("map.toml -o c.tmx --embed-tilesets --tilesets external");
    CHECK(both.exit_code == 2);
}

TEST_CASE("class maps read back from maps with embedded tilesets, finite and infinite") {
    Fixture f;
    write_text(f.dir / "drawn.txt", "wwwwwwww\nwwgggwww\nwggggggw\nwwggggww\nwwwwwwww\n");
    REQUIRE(f.generate("map.toml -o a.tmx --classes drawn.txt").exit_code == 0);
    REQUIRE(f.generate("map.toml -o e.tmx --classes drawn.txt --tilesets embedded").exit_code == 0);
    CHECK_FALSE(fs::exists(f.dir / "e.tsx"));
    auto back = f.generate("map.toml -o back.tmx --classes e.tmx");
    INFO(back.err);
    REQUIRE(back.exit_code == 0);
    const auto data_of = [](const std::string& tmx) {
        return tmx.substr(tmx.find("<data"), tmx.find("</data>") - tmx.find("<data"));
    };
    CHECK(data_of(read_text(f.dir / "back.tmx")) == data_of(read_text(f.dir / "a.tmx")));
    REQUIRE(f.generate("map.toml -o inf.tmx --infinite --size 32x16 --chunk 8 --tilesets embedded")
                .exit_code == 0);
    auto inf = f.generate("map.toml -o inf-back.tmx --classes inf.tmx --json");
    INFO(inf.err);
    CHECK(inf.exit_code == 0);
    CHECK(inf.out.find("\"width\":32,\"height\":16") != std::string::npos);
}
