#include <doctest/doctest.h>

#include "core/tileset/tileset.hpp"

using namespace tilegen;

TEST_CASE("a manifest names tiles by index or [column, row]") {
    Diagnostics d;
    auto m = parse_tileset_manifest(
        "image = \"t.png\"\ntile_width = 8\ntile_height = 8\n[tiles]\na = 0\nb = [1, 1]\n",
        "t.toml", d);
    REQUIRE(m);
    auto t = make_tileset(*m, Image(16, 24), d);
    REQUIRE(t);
    CHECK(t->columns == 2);
    CHECK(t->rows == 3);
    CHECK(t->index_of.at("a") == 0);
    CHECK(t->index_of.at("b") == 3);

    std::vector<int> extra_index;
    int error_index = -1;
    Atlas atlas =
        build_atlas(*t, {{"x.png", Image(8, 8, {1, 2, 3, 255})}}, extra_index, error_index);
    CHECK(atlas.tile_count() == 8);
    CHECK(extra_index == std::vector<int>{6});
    CHECK(error_index == 7);
    CHECK(atlas.names[3] == "b");
    CHECK(atlas.image.get(0, 24) == Rgba{1, 2, 3, 255}); // the extra tile, row 3
    CHECK(atlas.image.get(12, 25).r > 150);              // the red error tile
}

TEST_CASE("bad manifests: message and line:column") {
    struct Bad {
        const char* text;
        int image_w, image_h;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {"tile_width = 8\n[tiles]\na = 0\n", 8, 8, 1, 1, "tileset manifest has no 'image'"},
        {"image = \"t.png\"\ntile_width = 0\n[tiles]\n", 8, 8, 2, 14, "'tile_width' is 0"},
        {"image = \"t.png\"\n[tiles]\na = \"zero\"\n", 16, 16, 3, 5,
         "tile 'a' must be an index or [column, row]"},
        {"image = \"t.png\"\n[tiles]\na = -1\n", 16, 16, 3, 5, "out of range"},
        {"image = \"t.png\"\n[tiles]\na = 1\n", 16, 16, 3, 1,
         "tile 'a' has index 1 but the image holds 1 tiles"},
        {"image = \"t.png\"\n[tiles]\na = [1, 0]\n", 16, 16, 3, 1, "is outside the image"},
        {"image = \"t.png\"\n", 8, 8, 1, 1, "tileset manifest has no [tiles] table"},
        {"image = \"t.png\"\nimage_width = 3\n[tiles]\n", 8, 8, 2, 1, "unknown key 'image_width'"},
        {"image = \"t.png\"\n[tiles]\n", 8, 8, 1, 9, "smaller than one 16x16 tile"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics d;
        auto m = parse_tileset_manifest(b.text, "t.toml", d);
        if (m) CHECK_FALSE(make_tileset(*m, Image(b.image_w, b.image_h), d));
        REQUIRE(d.size() >= 1);
        CHECK(d[0].line == b.line);
        CHECK(d[0].column == b.column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
    }
}
