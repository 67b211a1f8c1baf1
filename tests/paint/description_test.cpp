// The description's newer keys: rules outputs, several pairs per upper terrain, faces, blends,
// basic and symmetric sets, objects and sprites: what they parse to, and the error for each bad
// value (message and line:column).
#include <doctest/doctest.h>

#include <string>

#include "paint/description.hpp"
#include "paint/painter.hpp"

using namespace tilegen;
using namespace tilegen::paint;

namespace {

const std::string kTerrains =
    "[[terrain]]\nname = \"sand\"\nsymbol = \"s\"\nheight = 0\nstyle = \"grain\"\n"
    "palette = [\"#000000\", \"#808080\", \"#ffffff\"]\n"
    "[[terrain]]\nname = \"grass\"\nsymbol = \"g\"\nheight = 1\nstyle = \"blades\"\n"
    "palette = [\"#000000\", \"#008000\", \"#00ff00\"]\n"; // 12 lines

} // namespace

TEST_CASE("paint: descriptions: the newer keys parse") {
    const std::string text =
        "symmetric = false\n[[rules]]\npath = \"a.rules\"\nterrains = [\"grass\", \"sand\"]\n"
        "[[rules]]\npath = \"b.rules\"\n" +
        kTerrains +
        "[[pair]]\nupper = \"grass\"\nlower = \"sand\"\nwobble = 0\nrim_depth = 4\n"
        "face = \"cliff\"\nface_depth = 9\nface_palette = [\"#101010\", \"#505050\", "
        "\"#909090\"]\n"
        "[objects]\nsprite_width = 16\nsprite_height = 32\n"
        "[[sprite]]\nname = \"tree\"\nshape = \"pine\"\npalette = [\"grass.0\", \"grass.1\", "
        "\"grass.2\"]\nsize = 0.9\n";
    Diagnostics diags;
    auto d = parse_description(text, "d.toml", diags);
    for (const auto& e : diags)
        MESSAGE(format_diagnostic(e));
    REQUIRE(d);
    REQUIRE(d->rules.size() == 2);
    CHECK(d->rules[0].path == "a.rules");
    CHECK(d->rules[0].terrains == std::vector<int>{1, 0});
    CHECK(d->rules[1].terrains.empty());
    REQUIRE(d->pairs.size() == 1);
    CHECK(d->pairs[0].face == Face::cliff);
    CHECK(d->pairs[0].face_depth == 9);
    CHECK(d->pairs[0].face_palette.size() == 3);
    REQUIRE(d->objects);
    CHECK(d->objects->image == "objects.png");
    CHECK(d->objects->sprite_width == 16);
    REQUIRE(d->sprites.size() == 1);
    CHECK(d->sprites[0].shape == Shape::pine);
    CHECK(d->sprites[0].footprint_w == 1);
    CHECK(d->sprites[0].palette[1] == Rgba{0, 128, 0, 255});
    CHECK(d->sprites[0].size == 0.9);
    // A face is painted.
    const PaintedTileset ts = paint_tileset(*d);
    CHECK(ts.tile_count() == 2 + 1 + 46);
}

TEST_CASE("paint: descriptions: bad newer keys: message and line:column") {
    const std::string pair = "[[pair]]\nupper = \"grass\"\nlower = \"sand\"\n"; // lines 13..15
    struct Bad {
        std::string text;
        int line, column;
        const char* message;
    };
    const Bad cases[] = {
        {kTerrains + "[rules]\npath = \"x.rules\"\nterrains = [\"mud\"]\n", 15, 13,
         "'terrains': no terrain named 'mud'"},
        {kTerrains + "[[rules]]\npath = \"x.rules\"\nterrains = [\"sand\", \"sand\"]\n", 15, 21,
         "'sand' is listed twice"},
        {"rules = 3\n" + kTerrains, 1, 9, "'rules' must be a table"},
        {kTerrains + pair + "set = \"wang\"\n", 16, 7,
         "'pair.set' is \"wang\", expected one of \"blob\", \"basic\""},
        {kTerrains + pair + pair, 18, 9, "there is already a pair of 'grass' over 'sand'"},
        {kTerrains + pair +
             "face = \"cliff\"\nface_depth = 6\nface_palette = [\"#000000\", \"#111111\", "
             "\"#222222\"]\n",
         16, 8, "a face needs 'wobble' = 0"},
        {kTerrains + pair +
             "wobble = 0\nface = \"cliff\"\nface_palette = [\"#000000\", \"#111111\", "
             "\"#222222\"]\n",
         17, 8, "a face needs 'face_depth'"},
        {kTerrains + pair + "wobble = 0\nface = \"cliff\"\nface_depth = 6\n", 17, 8,
         "a face needs 'face_palette'"},
        {kTerrains + pair +
             "wobble = 0\nface = \"cliff\"\nface_depth = 14\nface_palette = [\"#000000\", "
             "\"#111111\", \"#222222\"]\n",
         18, 14, "'face_depth' + 'rim_depth' + 'corner_radius' must be at most tile_size"},
        {kTerrains + pair + "face = \"ledge\"\n", 16, 8, "'pair.face' is \"ledge\""},
        {kTerrains + pair + "face_depth = 3\n", 16, 14,
         "'face_depth' and 'face_palette' need 'face'"},
        {kTerrains + pair + "lower_lines = [\"#000000\", \"#000000\", \"#000000\"]\n", 16, 15,
         "must fit inside the rim"},
        {kTerrains + pair + "rim_depth = 2\nwobble = 0.5\nblend = 2\n", 13, 1,
         "must fit inside the rim"},
        {"symmetric = true\n" + kTerrains + pair, 14, 1,
         "with 'symmetric' = true a pair needs 'shadow' = 0"},
        {"symmetric = 1\n" + kTerrains, 1, 13, "'symmetric' must be true or false"},
        {kTerrains +
             "[[sprite]]\nname = \"oak\"\nshape = \"oak\"\npalette = [\"#000000\", \"#111111\", "
             "\"#222222\"]\n",
         13, 1, "[[sprite]] needs an [objects] table"},
        {kTerrains +
             "[objects]\n[[sprite]]\nname = \"oak\"\nshape = \"palm\"\npalette = [\"#000000\", "
             "\"#111111\", \"#222222\"]\n",
         16, 9, "'sprite.shape' is \"palm\""},
        {kTerrains + "[objects]\nsprite_width = 16\n[[sprite]]\nname = \"oak\"\nshape = "
                     "\"oak\"\nfootprint = [2, "
                     "2]\npalette = [\"#000000\", \"#111111\", \"#222222\"]\n",
         18, 13, "does not fit the sprite cell"},
        {kTerrains + "[objects]\nimage = \"sprites/objects.png\"\n", 14, 9,
         "'image' must be a file name"},
        {kTerrains + "[objects]\n[[sprite]]\nname = \"oak\"\nshape = \"oak\"\n", 14, 1,
         "[[sprite]] needs 'palette'"},
        {kTerrains + "[error]\ninclude = \"no\"\n", 14, 11,
         "'error.include' must be true or false"},
        // Each kind of check the TOML reader makes, at the offending value (or key, or table).
        {"terrain = 3\n", 1, 11,
         "'terrain' must be an array of tables ([[terrain]]), not an integer"},
        {"pair = [1, 2]\n" + kTerrains, 1, 8,
         "'pair' must be an array of tables ([[pair]]), not an array"},
        {kTerrains + "pair = 1\n", 13, 1, "unknown key 'terrain.pair' (expected one of: name,"},
        {"seed = -1\n" + kTerrains, 1, 8, "'seed' is -1, expected 0 to"},
        {"columns = 1.5\n" + kTerrains, 1, 11, "'columns' must be an integer, not a number"},
        {kTerrains + "weight = 0\n", 13, 10,
         "'terrain.weight' is 0, expected more than 0 and at most 1000"},
        {kTerrains + "density = \"high\"\n", 13, 11,
         "'terrain.density' must be a number, not a string"},
        {kTerrains + pair + "rim_depth = \"4\"\n", 16, 13,
         "'pair.rim_depth' must be a number, not a string"},
        {kTerrains + "[[terrain.variant]]\nname = \"g2\"\ndecoration = \"none\"\ncount = 9\n", 16,
         9, "'terrain.variant.count' is 9, expected 1 to 8"},
        {kTerrains + "[[terrain.variant]]\nname = \"g2\"\ndecoration = \"none\"\nshade = 1\n", 16,
         1, "unknown key 'terrain.variant.shade'"},
        {kTerrains + "[[terrain.variant]]\nname = \"g2\"\n", 13, 1,
         "[[terrain.variant]] needs 'decoration'"},
        {"objects = 3\n" + kTerrains, 1, 11, "'objects' must be a table, not an integer"},
        {"[[terrain]]\nname = \"sand\"\nsymbol = 3\nheight = 0\nstyle = \"grain\"\n"
         "palette = [\"#000000\", \"#808080\", \"#ffffff\"]\n",
         3, 10, "'terrain.symbol' must be a string, not an integer"},
        {"[[terrain]]\nname = \"sand\"\nsymbol = \"s\"\nheight = 0\nstyle = \"grain\"\n"
         "palette = \"#000000\"\n",
         6, 11, "'terrain.palette' must be an array, not a string"},
        {kTerrains + "[error]\nname = \"bad name\"\n", 14, 8, "'name' must be a tile name"},
        {kTerrains + "[objects]\n[[sprite]]\nname = \"oak\"\nshape = \"oak\"\nfootprint = [0, 1]\n"
                     "palette = [\"#000000\", \"#111111\", \"#222222\"]\n",
         17, 13, "'footprint' must be [width, height] in map cells, each 1 to 8"},
        {kTerrains + "[objects]\ncolumns = 65\n", 14, 11,
         "'objects.columns' is 65, expected 1 to 64"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics diags;
        CHECK_FALSE(parse_description(b.text, "d.toml", diags));
        REQUIRE(diags.size() >= 1);
        CAPTURE(diags[0].message);
        CHECK(diags[0].line == b.line);
        CHECK(diags[0].column == b.column);
        CHECK_MESSAGE(diags[0].message.find(b.message) != std::string::npos, diags[0].message);
    }
    // Pairs of one upper terrain must share the rim's shape.
    {
        const std::string text =
            kTerrains +
            "[[terrain]]\nname = \"water\"\nsymbol = \"w\"\nheight = -1\nstyle = \"waves\"\n"
            "palette = [\"#000000\", \"#000080\", \"#0000ff\"]\n" +
            pair + "[[pair]]\nupper = \"grass\"\nlower = \"water\"\nrim_depth = 5\n";
        Diagnostics diags;
        CHECK_FALSE(parse_description(text, "d.toml", diags));
        REQUIRE(diags.size() >= 1);
        CHECK(diags[0].message.find("must have the same rim_depth, wobble") != std::string::npos);
        CHECK(diags[0].line == 23);
    }
    // Rules cannot be written for a "basic" set (their rules are written by hand).
    {
        const std::string text =
            "[rules]\npath = \"x.rules\"\n" + kTerrains + pair + "set = \"basic\"\n";
        Diagnostics diags;
        CHECK_FALSE(parse_description(text, "d.toml", diags));
        REQUIRE(diags.size() >= 1);
        CHECK(diags[0].message.find("rules can only be written for pairs with set = \"blob\"") !=
              std::string::npos);
    }
}

TEST_CASE("paint: descriptions: a UTF-8 byte order mark is skipped") {
    const std::string bom = "\xEF\xBB\xBF";
    Diagnostics diags;
    const auto plain = parse_description(kTerrains, "d.toml", diags);
    const auto marked = parse_description(bom + kTerrains, "d.toml", diags);
    for (const auto& e : diags)
        MESSAGE(format_diagnostic(e));
    REQUIRE(plain);
    REQUIRE(marked);
    CHECK(diags.empty());
    REQUIRE(marked->terrains.size() == 2);
    CHECK(marked->terrains[0].name == "sand");
    const PaintedTileset a = paint_tileset(*plain), b = paint_tileset(*marked);
    CHECK(a.names == b.names);
    CHECK(a.image == b.image);

    // Positions after the mark count as without it: "tile_size = " is 12 characters, so the value
    // is at 1:13; the first [[terrain]] is then on line 2.
    for (const std::string& text :
         {"tile_size = 7\n" + kTerrains, bom + "tile_size = 7\n" + kTerrains,
          bom + "\n[[terrain]]\nname = \"sand\"\nsymbol = \"ss\"\n"}) {
        CAPTURE(text);
        Diagnostics bad;
        CHECK_FALSE(parse_description(text, "d.toml", bad));
        REQUIRE(bad.size() >= 1);
        const bool symbol = text.find("\"ss\"") != std::string::npos;
        CHECK(bad[0].line == (symbol ? 4 : 1));
        CHECK(bad[0].column == (symbol ? 10 : 13));
        CHECK(format_diagnostic(bad[0]).starts_with(
            symbol ? "d.toml:4:10: error: 'symbol' must be one printable character other than ? ! "
                     "[ ] @ * # / \\"
                   : "d.toml:1:13: error: 'tile_size' is 7"));
    }
}
