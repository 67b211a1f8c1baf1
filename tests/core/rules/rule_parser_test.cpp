#include <doctest/doctest.h>

#include "core/rules/descriptor.hpp"
#include "core/rules/rule_parser.hpp"
#include "core/rules/tile_transform.hpp"

using namespace tilegen;

namespace {
const SymbolTable kSymbols{{'w', 0}, {'s', 1}, {'g', 2}};
constexpr ClassMask W = 1, S = 2, G = 4;
} // namespace

TEST_CASE("a 3x3 rule: cells, targets, weights, line and identity") {
    Diagnostics d;
    auto rules =
        parse_rules("# comment\n\n?s? ggg ?s?   grass-band1-sand\n?[sw]? g!wg ???  a*0.25 b\n",
                    "r.rules", kSymbols, d);
    REQUIRE(d.empty());
    REQUIRE(rules.size() == 2);
    const Rule& r = rules[0];
    CHECK(r.line == 3);
    CHECK(r.layer == "ground");
    CHECK(r.pattern.size() == 3);
    CHECK(r.pattern.specificity() == 5);
    CHECK(r.pattern.at(0, -1) == S);
    CHECK(r.pattern.at(-1, -1) == kAnyClass);
    CHECK(r.pattern.at(0, 0) == G);
    REQUIRE(r.targets.size() == 1);
    CHECK(r.targets[0].name == "grass-band1-sand");
    CHECK(r.targets[0].column == 15);

    const Rule& q = rules[1];
    CHECK(q.pattern.at(0, -1) == (S | W));
    CHECK(q.pattern.at(0, 0) == static_cast<ClassMask>(~W));
    CHECK(q.pattern.at(1, 0) == G);
    CHECK(q.targets[0].weight == 0.25);
    CHECK(q.targets[1].weight == 1.0);
    CHECK(r.identity != q.identity);
}

TEST_CASE("1x1 and 5x5 patterns, built-in targets, image targets, sections") {
    Diagnostics d;
    auto rules = parse_rules("?  @error\r\n[decor]\ng @none flower*0.1 art/rock.png\n"
                             "????? ????? ??g?? ????? ????? tile\n",
                             "r.rules", kSymbols, d);
    REQUIRE(d.empty());
    REQUIRE(rules.size() == 3);
    CHECK(rules[0].pattern.size() == 1);
    CHECK(rules[0].pattern.specificity() == 0);
    CHECK(rules[0].targets[0].kind == Target::Kind::error);
    CHECK(rules[1].layer == "decor");
    CHECK(rules[1].targets[0].kind == Target::Kind::none);
    CHECK(rules[1].targets[2].kind == Target::Kind::image);
    CHECK(rules[2].pattern.size() == 5);
    CHECK(rules[2].pattern.at(0, 0) == G);
    CHECK(rules[2].pattern.specificity() == 1);
}

TEST_CASE("descriptor rotation and mirroring") {
    Descriptor d(3);
    d.set(0, -1, S); // north
    d.set(1, -1, W); // north-east
    auto r = d.rotated();
    CHECK(r.at(1, 0) == S); // north -> east
    CHECK(r.at(1, 1) == W); // north-east -> south-east
    CHECK(r.rotated().rotated().rotated() == d);
    auto m = d.mirrored();
    CHECK(m.at(-1, -1) == W);
    CHECK(m.at(0, -1) == S);
    CHECK(m.mirrored() == d);
    CHECK(r.specificity() == 2);
}

TEST_CASE("rule identity depends on the rule's text only") {
    Diagnostics d;
    auto a = parse_rules("ggg ggg ggg grass flowers*0.2\n", "a.rules", kSymbols, d);
    auto b =
        parse_rules("\n\n# moved down\nggg   ggg ggg grass flowers*0.2\n", "b.rules", kSymbols, d);
    REQUIRE(a.size() == 1);
    REQUIRE(b.size() == 1);
    CHECK(a[0].identity == b[0].identity);
}

TEST_CASE("malformed rule lines: message and column") {
    struct Bad {
        const char* line;
        int column;
        const char* message;
    };
    const Bad cases[] = {
        {"?s? ggg ?x? grass", 10, "unknown terrain symbol 'x'"},
        {"?s? ggg ?s?", 12, "rule has no target"},
        {"?s? ggg", 8, "expected 3 row groups of 3 cells, found 2"},
        {"?s? gg ?s? grass", 5, "row group 2 has 2 cells, expected 3"},
        {"?s?? gggg ?s?? ???? grass", 1, "patterns are 1x1, 3x3 or 5x5"},
        {"?? ?? grass", 1, "a row group has 2 cells"},
        {"?s? g!g ?s? grass", 5, "row group 2 has 2 cells"},
        {"?s? gg! ?s? grass", 7, "'!' must be followed by a terrain symbol"},
        {"?[sw? ggg ??? grass", 2, "'[' without a closing ']'"},
        {"?[]? ggg ??? grass", 2, "empty class set"},
        {"?s] ggg ??? grass", 3, "']' without an opening '['"},
        {"?[sq]? ggg ??? grass", 4, "unknown terrain symbol 'q'"},
        {"??? ?g? ??? grass*abc", 19, "weight 'abc' is not a number"},
        {"??? ?g? ??? grass*-1", 19, "out of range"},
        {"??? ?g? ??? grass*", 19, "weight '' is not a number"},
        {"??? ?g? ??? *2", 13, "target has a weight but no tile name"},
        {"??? ?g? ??? @oops", 13, "unknown built-in target '@oops'"},
        {"\t??? ?g? ??? grass*1e999", 20, "out of range"},
        {"??? ?\x01? ??? grass", 6, "unknown terrain symbol '\\x01'"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.line);
        Diagnostics d;
        auto rules = parse_rules(std::string("\n") + b.line + "\n", "bad.rules", kSymbols, d);
        CHECK(rules.empty());
        REQUIRE(d.size() == 1);
        CHECK(d[0].file == "bad.rules");
        CHECK(d[0].line == 2);
        CHECK(d[0].column == b.column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
    }
}

TEST_CASE("a bad line does not stop the others from being checked") {
    Diagnostics d;
    auto rules =
        parse_rules("?x? ggg ??? a\n??? ?g? ??? grass\n??? ?y? ??? b\n", "r.rules", kSymbols, d);
    CHECK(rules.size() == 1);
    REQUIRE(d.size() == 2);
    CHECK(d[0].line == 1);
    CHECK(d[1].line == 3);
}

TEST_CASE("tile transforms compose like the dihedral group and match Tiled's flip bits") {
    const TileTransform r90 = TileTransform::rotation(1), m = TileTransform::mirror();
    CHECK(r90.flip_bits() == (kFlipHorizontal | kFlipDiagonal));
    CHECK(r90.then(r90).flip_bits() == (kFlipHorizontal | kFlipVertical));
    CHECK(r90.then(r90).then(r90).flip_bits() == (kFlipVertical | kFlipDiagonal));
    CHECK(r90.then(r90).then(r90).then(r90) == TileTransform{});
    CHECK(m.then(m) == TileTransform{});
    CHECK(m.then(TileTransform::rotation(2)).flip_bits() == kFlipVertical);
    // Rotating then mirroring is mirroring then rotating the other way.
    CHECK(r90.then(m) == m.then(TileTransform::rotation(3)));
    for (int r = 0; r < 4; ++r)
        for (int k = 0; k < 2; ++k) {
            TileTransform t{r, k == 1};
            CHECK(TileTransform::from_flip_bits(t.flip_bits()) == t);
        }
}

TEST_CASE("target suffixes set flip bits") {
    Diagnostics d;
    auto rules =
        parse_rules("g a@r90 b@r180*2 c@r270 d@fx e@fy f@fx@r90 @error\n", "r", kSymbols, d);
    REQUIRE(d.empty());
    REQUIRE(rules.size() == 1);
    const auto& t = rules[0].targets;
    CHECK(t[0].name == "a");
    CHECK(t[0].flips == (kFlipHorizontal | kFlipDiagonal));
    CHECK(t[1].name == "b");
    CHECK(t[1].weight == 2);
    CHECK(t[1].flips == (kFlipHorizontal | kFlipVertical));
    CHECK(t[2].flips == (kFlipVertical | kFlipDiagonal));
    CHECK(t[3].flips == kFlipHorizontal);
    CHECK(t[4].flips == kFlipVertical);
    CHECK(t[5].flips == TileTransform::mirror().then(TileTransform::rotation(1)).flip_bits());
    CHECK(t[6].kind == Target::Kind::error);
    CHECK(t[6].flips == 0);

    auto bad = parse_rules("g a@r45\n", "r", kSymbols, d);
    CHECK(bad.empty());
    REQUIRE(d.size() == 1);
    CHECK(d[0].column == 4);
    CHECK(d[0].message.find("unknown tile transform '@r45'") != std::string::npos);
}

TEST_CASE("rotate adds the three turned variants right after the source, targets turned alike") {
    Diagnostics d;
    auto rules = parse_rules("rotate ?s? ggg ??? edge\n??? ?g? ??? grass\n", "r", kSymbols, d);
    REQUIRE(d.empty());
    REQUIRE(rules.size() == 5);
    CHECK(rules[0].variant.empty());
    CHECK(rules[1].variant == "r90");
    CHECK(rules[2].variant == "r180");
    CHECK(rules[3].variant == "r270");
    CHECK(rules[4].targets[0].name == "grass");
    CHECK(rules[1].pattern.at(1, 0) == S); // north sand turned to east sand
    CHECK(rules[2].pattern.at(0, 1) == S);
    CHECK(rules[3].pattern.at(-1, 0) == S);
    CHECK(rules[1].targets[0].flips == TileTransform::rotation(1).flip_bits());
    CHECK(rules[3].targets[0].flips == TileTransform::rotation(3).flip_bits());
    for (int i = 0; i < 4; ++i)
        CHECK(rules[static_cast<std::size_t>(i)].line == 1);
    CHECK(rules[0].identity != rules[1].identity);
}

TEST_CASE("mirror adds left-right mirrors; symmetric variants are not repeated") {
    Diagnostics d;
    auto rules = parse_rules(
        "mirror rotate s?? ?g? ??? corner@r90\nrotate ?s? sgs ?s? cross\nmirror ?s? ggg ?s? band\n",
        "r", kSymbols, d);
    REQUIRE(d.empty());
    // corner: 4 rotations x 2 mirrors, but a corner cell mirrored equals another rotation: 4
    // distinct.
    int corner = 0, cross = 0, band = 0;
    for (const Rule& r : rules) {
        corner += r.targets[0].name == "corner";
        cross += r.targets[0].name == "cross";
        band += r.targets[0].name == "band";
    }
    CHECK(corner == 4);
    CHECK(cross == 1);
    CHECK(band == 1);
    // The mirrored-only pattern for a north-west corner is the north-east corner.
    Descriptor nw(3);
    nw.set(-1, -1, S);
    nw.set(0, 0, G);
    CHECK(nw.mirrored().at(1, -1) == S);

    auto m = parse_rules("mirror s?? ggg ??? corner\n", "r", kSymbols, d);
    REQUIRE(m.size() == 2);
    CHECK(m[1].variant == "m");
    CHECK(m[1].pattern.at(1, -1) == S);
    CHECK(m[1].targets[0].flips == kFlipHorizontal);
}

TEST_CASE("modifier errors") {
    Diagnostics d;
    CHECK(parse_rules("rotate rotate ?s? ggg ??? e\n", "r", kSymbols, d).empty());
    REQUIRE(d.size() == 1);
    CHECK(d[0].column == 8);
    CHECK(d[0].message.find("'rotate' is given twice") != std::string::npos);
    d.clear();
    CHECK(parse_rules("mirror\n", "r", kSymbols, d).empty());
    REQUIRE(d.size() == 1);
    CHECK(d[0].column == 7);
    CHECK(d[0].message.find("expected a pattern after 'mirror'") != std::string::npos);
}
