// The project's one TOML reader: the byte order mark, and each typed getter's value, fallback,
// message and line:column (positions counted by hand from the tiny inputs).
#include <doctest/doctest.h>

#include <string>

#include "core/toml_reader.hpp"

using namespace tilegen;

namespace {

enum class Colour { red, green };

} // namespace

TEST_CASE("toml reader: a byte order mark is skipped and positions count without it") {
    Diagnostics diags;
    TomlReader r("t.toml", diags);
    const auto root = r.parse("\xEF\xBB\xBF"
                              "a = 1\nb = \"x\"\n");
    REQUIRE(root);
    CHECK(r.integer(*root, "a", "", 0, 0, 9) == 1);
    CHECK(r.integer(*root, "b", "", 5, 0, 9) == 5); // wrong type: fallback
    REQUIRE(diags.size() == 1);
    CHECK(format_diagnostic(diags[0]) == "t.toml:2:5: error: 'b' must be an integer, not a string");
    CHECK_FALSE(r.ok());

    Diagnostics syntax;
    TomlReader s("s.toml", syntax);
    CHECK_FALSE(s.parse("\xEF\xBB\xBF"
                        "a = = 1\n"));
    REQUIRE(syntax.size() == 1);
    CHECK(syntax[0].line == 1);
}

TEST_CASE("toml reader: typed getters: value, fallback, message and line:column") {
    const std::string text = "flag = true\n"        // 1
                             "bad_flag = 1\n"       // 2
                             "w = 0\n"              // 3
                             "v = 0.5\n"            // 4
                             "colour = \"green\"\n" // 5
                             "hue = \"blue\"\n"     // 6
                             "list = [1, 2]\n"      // 7
                             "notes = 3\n"          // 8
                             "[[item]]\n"           // 9
                             "x = 1\n"              // 10
                             "[t]\n";               // 11
    Diagnostics diags;
    TomlReader r("t.toml", diags);
    const auto parsed = r.parse(text);
    REQUIRE(parsed);
    const toml::table& root = *parsed;
    CHECK(r.ok());

    CHECK(r.boolean(root, "flag", "", false) == true);
    CHECK(r.boolean(root, "missing", "", true) == true);
    CHECK(r.number_above(root, "v", "", 1.0, 0.0, 1.0) == 0.5);
    CHECK(r.number_above(root, "missing", "", 1.0, 0.0, 1.0) == 1.0);
    CHECK(r.number(root, "w", "", 1.0, 0.0, 1.0) == 0.0); // the closed range takes the minimum
    CHECK(r.choice<Colour>(root, "colour", "", Colour::red,
                           {{"red", Colour::red}, {"green", Colour::green}}) == Colour::green);
    CHECK(r.string(root, "colour", "") == std::optional<std::string>("green"));
    CHECK_FALSE(r.string(root, "missing", ""));
    REQUIRE(r.array(root, "list", ""));
    CHECK(r.array(root, "list", "")->size() == 2);
    REQUIRE(r.table_array(root, "item", ""));
    CHECK(r.table_array(root, "item", "")->size() == 1);
    CHECK(r.require(root, "list", "the file"));
    CHECK(diags.empty());
    CHECK(r.ok());

    struct Bad {
        bool (*read)(TomlReader&, const toml::table&); // true when it returned the fallback
        const char* expected;
    };
    const Bad cases[] = {
        {[](TomlReader& rd, const toml::table& t) {
             return rd.boolean(t, "bad_flag", "", false) == false;
         },
         "t.toml:2:12: error: 'bad_flag' must be true or false, not an integer"},
        {[](TomlReader& rd, const toml::table& t) {
             return rd.number_above(t, "w", "", 0.25, 0.0, 1.0) == 0.25;
         },
         "t.toml:3:5: error: 'w' is 0, expected more than 0 and at most 1"},
        {[](TomlReader& rd, const toml::table& t) {
             return rd.choice<Colour>(t, "hue", "", Colour::red,
                                      {{"red", Colour::red}, {"green", Colour::green}}) ==
                    Colour::red;
         },
         "t.toml:6:7: error: 'hue' is \"blue\", expected one of \"red\", \"green\""},
        {[](TomlReader& rd, const toml::table& t) { return rd.array(t, "notes", "") == nullptr; },
         "t.toml:8:9: error: 'notes' must be an array, not an integer"},
        {[](TomlReader& rd, const toml::table& t) {
             return rd.table_array(t, "list", "") == nullptr;
         },
         "t.toml:7:8: error: 'list' must be an array of tables ([[list]]), not an array"},
        {[](TomlReader& rd, const toml::table& t) {
             return !rd.require(*t.get("t")->as_table(), "size", "[t]", " (in px)");
         },
         "t.toml:11:1: error: [t] needs 'size' (in px)"},
    };
    for (const Bad& b : cases) {
        CAPTURE(b.expected);
        Diagnostics one;
        TomlReader reader("t.toml", one);
        CHECK(b.read(reader, root));
        CHECK_FALSE(reader.ok());
        REQUIRE(one.size() == 1);
        CHECK(format_diagnostic(one[0]) == b.expected);
    }
}

TEST_CASE("toml reader: required_string and read_toml_document") {
    Diagnostics diags;
    TomlReader r("t.toml", diags);
    const auto root = r.parse("a = 1\n"     // 1
                              "[t]\n"       // 2
                              "s = \"x\"\n" // 3
    );
    REQUIRE(root);
    const toml::table& t = *(*root)["t"].as_table();
    const LocatedString s = r.required_string(t, "s", "t", "t has no 's'");
    CHECK(s.value == "x");
    CHECK(s.line == 3);
    CHECK(s.column == 5);
    CHECK(diags.empty());
    const LocatedString missing = r.required_string(*root, "image", "", "the file has no 'image'");
    CHECK(missing.value.empty());
    CHECK(missing.line == 1); // the table's position: the document's start
    REQUIRE(diags.size() == 1);
    CHECK(format_diagnostic(diags[0]) == "t.toml:1:1: error: the file has no 'image'");

    // A document is read when it parses and `read` reports nothing; else nullopt.
    const auto read_a = [](TomlReader& rd, const toml::table& top) {
        return rd.integer(top, "a", "", -1, 0, 9);
    };
    Diagnostics ok;
    CHECK(read_toml_document<long long>("a = 7\n", "d.toml", ok, read_a) == 7);
    CHECK(ok.empty());
    Diagnostics range;
    CHECK_FALSE(read_toml_document<long long>("a = 70\n", "d.toml", range, read_a));
    REQUIRE(range.size() == 1);
    CHECK(format_diagnostic(range[0]) == "d.toml:1:5: error: 'a' is 70, expected 0 to 9");
    Diagnostics syntax;
    CHECK_FALSE(read_toml_document<long long>("a = = 7\n", "d.toml", syntax, read_a));
    CHECK(syntax.size() == 1);
}
