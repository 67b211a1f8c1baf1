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
        {"?? ??? grass", 4, "row group 2 has 3 cells, expected 2"},
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

TEST_CASE("mirror adds left-right mirrors, symmetric variants are not repeated") {
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

TEST_CASE("class passes: sections, run counts, targets, specificity order") {
    Diagnostics d;
    const std::string text = "[classes]\n?s? sgs ?s? s\n"
                             "[classes 4]\ng s*2 @keep\n"
                             "[ground]\ng s\n"
                             "[classes *]\n? @keep\nrotate ?w? ?g? ??? s\n"
                             "[classes  256 ]   # a comment\n";
    const RuleFile file = parse_rule_file(text, "c.rules", kSymbols, d);
    REQUIRE(d.empty());
    REQUIRE(file.passes.size() == 4);
    const ClassPass& first = file.passes[0];
    CHECK(first.runs == 1);
    CHECK(!first.until_stable);
    CHECK(first.file == "c.rules");
    CHECK(first.line == 1);
    REQUIRE(first.ordered.size() == 1);
    CHECK(first.ordered[0].layer == "classes");
    CHECK(first.ordered[0].line == 2);
    CHECK(first.ordered[0].pattern.at(0, 0) == G);
    CHECK(first.targets[0].classes == std::vector<int>{1});

    const ClassPass& second = file.passes[1];
    CHECK(second.runs == 4);
    CHECK(second.line == 3);
    REQUIRE(second.targets.size() == 1);
    CHECK(second.targets[0].classes == std::vector<int>{1, kKeepClass});
    CHECK(second.targets[0].weights == std::vector<double>{2, 1});
    CHECK(second.ordered[0].targets[1].name == "@keep");

    // The tile section between passes keeps its rule, which shares its text with a class rule but
    // not its identity.
    REQUIRE(file.rules.size() == 1);
    CHECK(file.rules[0].layer == "ground");
    CHECK(file.rules[0].targets[0].name == "s");
    CHECK(file.rules[0].identity != second.ordered[0].identity);
    CHECK(parse_rules(text, "c.rules", kSymbols, d).size() == 1);

    // Most specific first: the four turns of the rotated rule before the catch-all written first.
    const ClassPass& third = file.passes[2];
    CHECK(third.until_stable);
    CHECK(third.runs == kMaxClassRuns);
    REQUIRE(third.ordered.size() == 5);
    for (int i = 0; i < 4; ++i) {
        CHECK(third.ordered[static_cast<std::size_t>(i)].pattern.specificity() == 2);
        CHECK(third.targets[static_cast<std::size_t>(i)].classes == std::vector<int>{1});
        CHECK(third.ordered[static_cast<std::size_t>(i)].targets[0].flips == 0);
    }
    CHECK(third.ordered[0].variant.empty());
    CHECK(third.ordered[1].variant == "r90");
    CHECK(third.ordered[1].pattern.at(1, 0) == W); // north turned to east
    CHECK(third.ordered[4].pattern.size() == 1);
    CHECK(third.targets[4].classes == std::vector<int>{kKeepClass});

    CHECK(file.passes[3].runs == 256);
    CHECK(!file.passes[3].until_stable);
    CHECK(file.passes[3].ordered.empty());
}

TEST_CASE("malformed class passes: message, line and column") {
    struct Bad {
        const char* text;
        int line;
        int column;
        const char* message;
    };
    const Bad cases[] = {
        {"[classes 0]", 1, 10, "run count 0 is out of range (1 to 256)"},
        {"[classes 257]", 1, 10, "run count 257 is out of range (1 to 256)"},
        {"[classes 99999999999]", 1, 10, "is out of range (1 to 256)"},
        {"[classes x]", 1, 10, "run count 'x' is not a number"},
        {"[classes -1]", 1, 10, "run count '-1' is not a number"},
        {"[classes ]", 1, 10, "run count '' is not a number"},
        {"[classes", 1, 9, "expected '[classes N]' with a run count N from 1 to 256"},
        {"[classes 3", 1, 11, "expected ']' to close the section header"},
        {"[classes 3] g", 1, 13, "unexpected 'g' after the section header"},
        {"[classes] g", 1, 11, "unexpected 'g' after the section header '[classes]'"},
        {"[classes]\ng grass", 2, 3, "class target 'grass' is not a terrain symbol"},
        {"[classes]\ng z", 2, 3, "unknown terrain symbol 'z'"},
        {"[classes]\ng s z*2", 2, 5, "unknown terrain symbol 'z'"},
        {"[classes]\ng art/rock.png", 2, 3, "image 'art/rock.png' is a tile target"},
        {"[classes]\ng @error", 2, 3, "'@error' is a tile target"},
        {"[classes]\ng @none", 2, 3, "'@none' is a tile target"},
        {"[classes]\ng @oops", 2, 3, "unknown built-in target '@oops'"},
        {"[classes]\ng s@r90", 2, 4, "tile transform '@r90' on a class target"},
        {"[classes]\ng s*x", 2, 5, "weight 'x' is not a number"},
        {"[classes]\ng s*-2", 2, 5, "out of range"},
        {"[classes]\ng *2", 2, 3, "target has a weight but no terrain symbol"},
        {"[classes 2]\n?s? ggg ?s?", 2, 12, "class rule has no target (a terrain symbol or @keep)"},
        {"[classes *]\n?s? gqg ?s? s", 2, 6, "unknown terrain symbol 'q'"},
        {"[classes]\n[ground]\ng @keep", 3, 3, "unknown built-in target '@keep'"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.text);
        Diagnostics d;
        const RuleFile file = parse_rule_file(b.text, "bad.rules", kSymbols, d);
        CHECK(file.rules.empty());
        for (const ClassPass& p : file.passes)
            CHECK(p.ordered.empty());
        REQUIRE(d.size() == 1);
        CHECK(d[0].file == "bad.rules");
        CHECK(d[0].line == b.line);
        CHECK(d[0].column == b.column);
        CHECK_MESSAGE(d[0].message.find(b.message) != std::string::npos, d[0].message);
    }
}
