// The tilegen program as a user runs it: files in, files out, exit codes and messages.
#include <doctest/doctest.h>

#include <filesystem>

#include "app/fixture.hpp"
#include "test_support.hpp"

using namespace tilegen;
using namespace tilegen::test;
namespace fs = std::filesystem;

TEST_CASE("generate writes TMX, TSX, atlas and PNG, and a JSON summary") {
    Fixture f;
    auto r = f.generate("map.toml -o out.tmx --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    for (const char* file : {"out.tmx", "out.tsx", "out-tiles.png", "out.png"})
        CHECK(fs::exists(f.dir / file));
    for (const char* key :
         {"\"width\":40", "\"height\":24", "\"seed\":3", "\"classes\":{\"water\":0.4",
          "\"unmatched\":0", "\"rules\":[{\"file\":\"map.rules\",\"line\":2", "\"timings_ms\":{",
          "\"total\":", "\"outputs\":[\"out.tmx\",\"out.tsx\",\"out-tiles.png\",\"out.png\"]"})
        CHECK_MESSAGE(r.out.find(key) != std::string::npos, key << " in " << r.out);
    const std::string tmx = read_text(f.dir / "out.tmx");
    CHECK(tmx.find("<tileset firstgid=\"1\" source=\"out.tsx\"/>") != std::string::npos);
    CHECK(tmx.find("<data encoding=\"csv\">") != std::string::npos);
    CHECK(tmx.find("<property name=\"seed\" value=\"3\"/>") != std::string::npos);
    Diagnostics d;
    auto png = io::load_image(f.dir / "out.png", d);
    REQUIRE(png);
    CHECK(png->width() == 40 * 8);
    CHECK(png->height() == 24 * 8);
}

TEST_CASE("a map wider than 16384 pixels gets a reduced preview, and the note says by how much") {
    Fixture f; // 8-pixel tiles: 4200 cells are 33 600 pixels, a third of it fits
    auto r = f.generate("map.toml -o out.tmx --size 4200x3");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.find("note: the map is too large for a full-size PNG; the preview is 1/3 of its "
                     "size, one pixel of 3 along each side") != std::string::npos);
    Diagnostics d;
    auto png = io::load_image(f.dir / "out.png", d);
    REQUIRE(png);
    CHECK(png->width() == 4200 * 8 / 3);
    CHECK(png->height() == 3 * 8 / 3);
}

TEST_CASE("default output goes to out/<recipe name>.tmx and .png") {
    Fixture f;
    auto r = f.generate("map.toml");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(fs::exists(f.dir / "out" / "map.tmx"));
    CHECK(fs::exists(f.dir / "out" / "map.png"));
}

TEST_CASE("same seed gives byte-identical files, another seed another map") {
    Fixture f;
    REQUIRE(f.generate("map.toml -o a.tmx").exit_code == 0);
    REQUIRE(f.generate("map.toml -o b.tmx").exit_code == 0);
    REQUIRE(f.generate("map.toml -o c.tmx --seed 4").exit_code == 0);
    auto body = [](std::string s) { return s.replace(s.find("source=\""), 14, ""); };
    CHECK(body(read_text(f.dir / "a.tmx")) == body(read_text(f.dir / "b.tmx")));
    CHECK(read_text(f.dir / "a.png") == read_text(f.dir / "b.png"));
    CHECK(read_text(f.dir / "a-tiles.png") == read_text(f.dir / "b-tiles.png"));
    CHECK(read_text(f.dir / "a.png") != read_text(f.dir / "c.png"));
}

TEST_CASE("--size and --seed override the recipe") {
    Fixture f;
    auto r = f.generate("map.toml -o s.tmx --size 17x9 --seed 99 --json");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"width\":17,\"height\":9,\"seed\":99") != std::string::npos);
}

TEST_CASE("--classes autotiles a hand-drawn class map") {
    Fixture f;
    write_text(f.dir / "drawn.txt", "wwww\nwggw\nwggw\n");
    auto r = f.generate("map.toml -o d.tmx --classes drawn.txt --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"width\":4,\"height\":3") != std::string::npos);
    // Row 1 of the ground layer: water, shore, shore, water (gids: water=1 or 2, shore=4).
    const std::string tmx = read_text(f.dir / "d.tmx");
    CHECK(tmx.find(",4,4,") != std::string::npos);
    CHECK(tmx.find(",3,3,") != std::string::npos);
}

TEST_CASE("unmatched cells get the error tile, are counted and reported") {
    Fixture f;
    write_text(f.dir / "partial.rules", "??? ?w? ???  water\n");
    f.write_recipe("partial.toml", "partial.rules");
    auto r = f.generate("partial.toml -o p.tmx --json");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"unmatched\":576") != std::string::npos); // 60% of 40x24
    CHECK(r.err.find("576 cells of layer 'ground' matched no rule") != std::string::npos);
    // The error tile is the last tile of the atlas (index 4 -> gid 5).
    CHECK(read_text(f.dir / "p.tmx").find("5,5,5") != std::string::npos);
}

TEST_CASE("bad input: exit 1, path:line:col message, no output written or clobbered") {
    Fixture f;
    struct Bad {
        std::string rules;
        std::string expected;
    };
    const Bad cases[] = {
        {"??? ?w? ???  water\n??? ?q? ??? grass\n",
         "bad.rules:2:6: error: unknown terrain symbol 'q'"},
        {"??? ?w? ???  watr\n", "bad.rules:1:14: error: unknown tile 'watr'"},
        {"??? ?w? ???  missing.png\n", "bad.rules:1:14: error: missing.png: cannot read file"},
        {"??? ?w? ?? water\n", "bad.rules:1:9: error: row group 3 has 2 cells, expected 3"},
    };
    write_text(f.dir / "keep.tmx", "previous map");
    for (const Bad& b : cases) {
        CAPTURE(b.rules);
        write_text(f.dir / "bad.rules", b.rules);
        f.write_recipe("bad.toml", "bad.rules");
        auto r = f.generate("bad.toml -o keep.tmx");
        CHECK(r.exit_code == 1);
        CHECK_MESSAGE(r.err.find(b.expected) != std::string::npos, r.err);
        CHECK(read_text(f.dir / "keep.tmx") == "previous map");
        CHECK_FALSE(fs::exists(f.dir / "keep.png"));
    }
    // Recipe errors.
    f.write_recipe("r.toml", "map.rules", "depth = 3\n");
    auto r = f.generate("r.toml -o keep.tmx");
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.err.find("r.toml:5:1: error: unknown key 'map.depth'") != std::string::npos,
                  r.err);
    r = f.generate("nowhere.toml");
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("nowhere.toml: error: cannot read file") != std::string::npos);
    r = f.generate(".");
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("is a directory") != std::string::npos);
    write_text(f.dir / "c.txt", "wwx\n");
    r = f.generate("map.toml -o keep.tmx --classes c.txt");
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("c.txt:1:3: error: unknown terrain symbol 'x'") != std::string::npos);
    r = f.generate("map.toml -o no/such/dir/x.tmx");
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("does not exist") != std::string::npos);
    CHECK(read_text(f.dir / "keep.tmx") == "previous map");
    // No temporary files left behind.
    for (const auto& e : fs::directory_iterator(f.dir.path()))
        CHECK_MESSAGE(e.path().filename().string().find(".tmp") == std::string::npos,
                      e.path().string());
}

TEST_CASE("bad usage: exit 2") {
    Fixture f;
    for (const char* args :
         {"map.toml --seed", "map.toml --seed -1", "map.toml --seed x", "map.toml --size 0x4",
          "map.toml --size 4", "map.toml --bogus", "map.toml other.toml", "map.toml -o x.png",
          "map.toml --classes a.txt --size 4x4"}) {
        CAPTURE(args);
        auto r = f.generate(args);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("error:") != std::string::npos);
    }
    CHECK(run_tilegen("frobnicate").exit_code == 2);
    CHECK(run_tilegen("").exit_code == 2);
    auto help = run_tilegen("--help");
    CHECK(help.exit_code == 0);
    CHECK(help.out.find("tilegen generate") != std::string::npos);
    CHECK(run_tilegen("generate --help").out.find("--classes") != std::string::npos);
    CHECK(run_tilegen("--version").out.find("tilegen ") == 0);
}

TEST_CASE("an infinite map's width and height are the size asked for, its layers span the chunks") {
    Fixture f;
    const std::string recipe = (test::source_dir() / "samples" / "meadows.toml").string();
    for (const char* out : {"inf.tmx", "inf.tmj"}) {
        CAPTURE(out);
        auto r = f.tilegen("generate " + recipe + " --size 40x30 --infinite --png none -o " + out);
        REQUIRE(r.exit_code == 0);
        const std::string map = read_text(f.dir / out);
        if (std::string(out).ends_with(".tmx")) {
            CHECK(map.find("width=\"40\" height=\"30\" tilewidth") != std::string::npos);
            CHECK(map.find("name=\"ground\" width=\"48\" height=\"32\"") != std::string::npos);
        } else {
            CHECK(map.find("\"height\":30,\"infinite\":true") != std::string::npos);
            CHECK(map.ends_with("\"width\":40}\n"));
        }
    }
}

TEST_CASE("tilecount is columns x rows of the image, and the objects tileset's firstgid follows it "
          "(TMX and TMJ)") {
    Fixture f;
    for (const char* out : {"o.tmx", "o.tmj"}) {
        CAPTURE(out);
        auto r = f.tilegen(std::string("generate --size 24x16 --png none -o ") + out);
        REQUIRE(r.exit_code == 0);
        const bool json = std::string(out).ends_with(".tmj");
        Diagnostics d;
        auto atlas = io::load_image(f.dir / "o-tiles.png", d);
        auto sprites = io::load_image(f.dir / "o-objects.png", d);
        REQUIRE(atlas);
        REQUIRE(sprites);
        const std::string tsx = read_text(f.dir / (json ? "o.tsj" : "o.tsx"));
        const std::string objects = read_text(f.dir / (json ? "o-objects.tsj" : "o-objects.tsx"));
        const auto number_after = [](const std::string& text, const std::string& key) {
            const auto p = text.find(key);
            REQUIRE(p != std::string::npos);
            return std::stoi(text.substr(p + key.size()));
        };
        const std::string count_key = json ? "\"tilecount\":" : "tilecount=\"";
        const std::string columns_key = json ? "\"columns\":" : "columns=\"";
        const std::string height_key = json ? "\"tileheight\":" : "tileheight=\"";
        const int tiles = number_after(tsx, count_key);
        CHECK(tiles ==
              number_after(tsx, columns_key) * (atlas->height() / number_after(tsx, height_key)));
        CHECK(number_after(objects, count_key) ==
              number_after(objects, columns_key) *
                  (sprites->height() / number_after(objects, height_key)));
        const std::string map = read_text(f.dir / out);
        const std::string second = json ? "\"firstgid\":" : "firstgid=\"";
        const auto first = map.find(second);
        REQUIRE(first != std::string::npos);
        CHECK(number_after(map.substr(first + 1), second) == tiles + 1);
    }
}

TEST_CASE("image targets are packed into the map's atlas, after the tileset's tiles and before the "
          "error tile") {
    Fixture f;
    std::filesystem::create_directories(f.dir / "art");
    Image rock(8, 8, Rgba{120, 110, 100, 255});
    rock.set(3, 3, Rgba{20, 20, 20, 255});
    Diagnostics d;
    REQUIRE(io::save_png(f.dir / "art" / "rock.png", rock, d));
    REQUIRE(io::save_png(f.dir / "art" / "big.png", Image(16, 8, Rgba{1, 1, 1, 255}), d));
    write_text(f.dir / "img.rules", "w art/rock.png\ng grass art/rock.png*0\n");
    f.write_recipe("img.toml", "img.rules");
    auto r = f.generate("img.toml -o i.tmx");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string tsx = read_text(f.dir / "i.tsx");
    // 4 tiles, the image, the error tile: 6 tiles in 2 rows of the tileset's 4 columns; the
    // tilecount is what the image holds (Tiled's count), 8.
    CHECK(tsx.find("tilecount=\"8\" columns=\"4\"") != std::string::npos);
    CHECK(tsx.find("value=\"art/rock.png\"") != std::string::npos);
    auto atlas = io::load_image(f.dir / "i-tiles.png", d);
    REQUIRE(atlas);
    CHECK(atlas->get(3, 8 + 3) == Rgba{20, 20, 20, 255}); // row 1, column 0: the rock
    CHECK(read_text(f.dir / "i.tmx").find("5,5,5") != std::string::npos); // water cells use gid 5
    write_text(f.dir / "img.rules", "w art/big.png\ng grass\n");
    auto bad = f.generate("img.toml -o j.tmx");
    CHECK(bad.exit_code == 1);
    CHECK(bad.err.find("img.rules:1:3: error: image 'art/big.png' is 16x8 pixels, the tileset's "
                       "tiles are 8x8") != std::string::npos);
}

TEST_CASE("legalise: generate --json reports what it rewrote, without it the map differs") {
    const fs::path dir = fs::temp_directory_path() / "tilegen-legalise-json";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path sample = source_dir() / "samples" / "pairwise.toml";
    // Seed 2 of samples/pairwise.toml puts grass right beside water, which its rules cannot draw.
    auto on = run_tilegen("generate " + sample.string() + " --seed 2 -o " +
                          (dir / "on.tmx").string() + " --png none --json");
    INFO(on.err);
    REQUIRE(on.exit_code == 0);
    const auto at = on.out.find("\"legalise\":{\"undrawable_before\":");
    REQUIRE(at != std::string::npos);
    CHECK(on.out.find("\"undrawable_before\":0,", at) == std::string::npos);
    CHECK(on.out.find("\"undrawable\":0,", at) != std::string::npos);
    CHECK(on.out.find("\"changed\":0,", at) == std::string::npos);
    // The same recipe with legalise = false (its paths made absolute): no report, another map
    // (the cells legalise rewrote keep their class and get the catch-all error tile).
    std::string recipe = read_text(sample);
    const auto key = recipe.find("\nlegalise = true"); // the key, not the header's comment
    REQUIRE(key != std::string::npos);
    recipe.replace(key + 1, 15, "legalise = false");
    for (auto p = recipe.find("\"../"); p != std::string::npos; p = recipe.find("\"../", p))
        recipe.replace(p + 1, 3, source_dir().generic_string() + "/");
    write_text(dir / "off.toml", recipe);
    auto off = run_tilegen("generate " + (dir / "off.toml").string() + " --seed 2 -o " +
                           (dir / "off.tmx").string() + " --png none --json");
    INFO(off.err);
    REQUIRE(off.exit_code == 0);
    CHECK(off.out.find("\"legalise\":{") == std::string::npos);
    CHECK(read_text(dir / "on.tmx") != read_text(dir / "off.tmx"));
    fs::remove_all(dir);
}
