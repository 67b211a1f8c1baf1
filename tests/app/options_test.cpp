// The command-line option tables (src/app/options.hpp, one table per command in
// src/app/*_command.cpp): every command refuses bad options with exit 2 and a clear message, before
// it reads any file; --help lists every option of the table; all help fits in 100 columns.
#include <doctest/doctest.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace tilegen;
using namespace tilegen::test;

namespace {

struct BadOption {
    std::string args;    // after "tilegen", shell-quoted
    std::string message; // what follows "tilegen COMMAND: error: "
};

// Every line of `text` is at most 100 columns.
bool fits_100_columns(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    bool ok = true;
    while (std::getline(in, line))
        if (line.size() > 100) {
            MESSAGE("line over 100 columns: " << line);
            ok = false;
        }
    return ok;
}

// `name` appears in `text` as a word of its own (not as a prefix of a longer option).
bool has_word(const std::string& text, const std::string& name) {
    for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
        const bool starts = at == 0 || text[at - 1] == ' ' || text[at - 1] == '[';
        const std::size_t end = at + name.size();
        const bool ends = end == text.size() || text[end] == ' ' || text[end] == ',' ||
                          text[end] == ']' || text[end] == '\n';
        if (starts && ends) return true;
    }
    return false;
}

// Runs the parser in-process; returns its exit code (or -1 when it accepted) and what it printed on
// stderr.
std::pair<int, std::string> parse_in_process(const app::CommandSpec& spec, const app::Args& args) {
    std::ostringstream err;
    auto* old = std::cerr.rdbuf(err.rdbuf());
    const app::Parsed parsed = app::parse_command_line(spec, args);
    std::cerr.rdbuf(old);
    return {parsed.line ? -1 : parsed.exit, err.str()};
}

} // namespace

TEST_CASE("options: bad options of every command exit 2 with a clear message, writing nothing") {
    const std::vector<BadOption> cases = {
        // generate
        {"generate --fast", "unknown option '--fast'"},
        {"generate map.toml -o", "-o needs a value"},
        {"generate --seed -1", "--seed takes a whole number >= 0, not '-1'"},
        {"generate --seed 99999999999999999999", "--seed takes a whole number >= 0"},
        {"generate --threads 0", "--threads takes a whole number from 1 to 256, not '0'"},
        {"generate --threads 257", "--threads takes a whole number from 1 to 256, not '257'"},
        {"generate --infinite --chunk 1025", "--chunk takes a whole number from 1 to 1024"},
        {"generate --size 65537x4", "--size takes WxH with both from 1 to 65536, not '65537x4'"},
        {"generate --size 4", "--size takes WxH with both from 1 to 65536, not '4'"},
        {"generate --encoding lzma",
         "--encoding takes csv, base64, base64+zlib, base64+gzip or base64+zstd, not 'lzma'"},
        {"generate --max-memory 0", "--max-memory takes a number of GiB, e.g. 16, not '0'"},
        {"generate --max-memory lots", "--max-memory takes a number of GiB"},
        {"generate -o m.png", "-o takes a .tmx, .tmj, .ldtk or .tscn file, not 'm.png'"},
        {"generate --output m.txt",
         "--output takes a .tmx, .tmj, .ldtk or .tscn file, not 'm.txt'"},
        {"generate --png m.jpg", "--png takes a .png file or none, not 'm.jpg'"},
        {"generate --classes ''", "--classes takes a file name, not ''"},
        {"generate --infinite --classes c.txt", "--infinite and --classes exclude each other"},
        {"generate --classes c.txt --size 4x4",
         "--size and --classes exclude each other (the class map sets the size)"},
        {"generate --tilesets inline", "--tilesets takes external or embedded, not 'inline'"},
        {"generate a.toml b.toml", "more than one recipe given ('a.toml' and 'b.toml')"},
        // check
        {"check --bogus", "unknown option '--bogus'"},
        {"check --strict=1", "unknown option '--strict=1'"},
        {"check a.toml b.toml", "more than one recipe given ('a.toml' and 'b.toml')"},
        // explain
        {"explain 1", "expected [RECIPE] X Y, not 1 argument"},
        {"explain r.toml 1 2 3", "expected [RECIPE] X Y, not 4 arguments"},
        {"explain 1 2 --seed", "--seed needs a value"},
        {"explain 1 2 --seed x", "--seed takes a whole number >= 0, not 'x'"},
        {"explain 1 2 --size 0x1", "--size takes WxH with both from 1 to 65536, not '0x1'"},
        {"explain 1 2 --classes c.txt --size 4x4", "--size and --classes exclude each other"},
        {"explain 1 2 --frobnicate", "unknown option '--frobnicate'"},
        // stats
        {"stats --seeds 5-3",
         "--seeds takes N or A-B (whole numbers >= 0, A <= B, at most 100000 seeds), not '5-3'"},
        {"stats --seeds 0-100000", "--seeds takes N or A-B"},
        {"stats --seeds -2", "--seeds takes N or A-B"},
        {"stats --seeds 1-x", "--seeds takes N or A-B"},
        {"stats --seeds", "--seeds needs a value"},
        {"stats --max-memory lots", "--max-memory takes a number of GiB, e.g. 16, not 'lots'"},
        {"stats --size 0x5", "--size takes WxH with both from 1 to 65536, not '0x5'"},
        {"stats --threads 0", "--threads takes a whole number from 1 to 256, not '0'"},
        {"stats --classes ''", "--classes takes a file name, not ''"},
        {"stats --classes c.txt --size 4x4",
         "--size and --classes exclude each other (the class map sets the size)"},
        {"stats --classes c.txt --seeds 1-2",
         "--seeds and --classes exclude each other (the class map is one map)"},
        {"stats --json=1", "unknown option '--json=1'"},
        {"stats a.toml b.toml", "more than one recipe given ('a.toml' and 'b.toml')"},
        // view (all refused before a window opens)
        {"view --bogus", "unknown option '--bogus'"},
        {"view --frames 0", "--frames takes a whole number from 1 to 1000000, not '0'"},
        {"view --frames 1000001", "--frames takes a whole number from 1 to 1000000"},
        {"view --screenshot s.txt", "--screenshot takes a .png file, not 's.txt'"},
        {"view --overlay nope",
         "--overlay takes tiles, classes, height, unmatched, rules or flow, not 'nope'"},
        {"view --inspect 3", "--inspect takes X,Y window pixels, not '3'"},
        {"view --zoom 0.001", "--zoom takes a number from 0.004 to 32, not '0.001'"},
        {"view --zoom 33", "--zoom takes a number from 0.004 to 32, not '33'"},
        {"view --zoom nan", "--zoom takes a number from 0.004 to 32, not 'nan'"},
        {"view --window 63x100", "--window takes WxH pixels from 64 to 16384, not '63x100'"},
        {"view --quit-after-reloads 1001",
         "--quit-after-reloads takes a whole number from 1 to 1000"},
        {"view --frame-log f.csv", "--frame-log needs --frames"},
        {"view a.toml b.toml", "more than one recipe given ('a.toml' and 'b.toml')"},
        // noise
        {"noise", "-o OUT.png|OUT.pfm is required"},
        {"noise -o x.jpg", "-o takes a .png or .pfm file, not 'x.jpg'"},
        {"noise -o x.png --region 1,2,3",
         "--region takes X,Y,W,H with W and H from 1 to 65536, not '1,2,3'"},
        {"noise -o x.png --region 1,2,0,3", "--region takes X,Y,W,H"},
        {"noise -o x.png --map", "--map needs a value"},
        {"noise -o x.png --map ''", "--map takes a map name, not ''"},
        {"noise -o x.png a.toml b.toml", "more than one recipe given"},
        // bench
        {"bench --repeat 0", "--repeat takes a whole number from 1 to 256, not '0'"},
        {"bench --repeat 257", "--repeat takes a whole number from 1 to 256, not '257'"},
        {"bench --threads 0", "--threads takes a whole number from 1 to 256"},
        {"bench --size 0x0", "--size takes WxH"},
        {"bench --frobnicate", "unknown option '--frobnicate'"},
        {"bench a.toml b.toml", "more than one recipe given ('a.toml' and 'b.toml')"},
        // paint
        {"paint", "missing DESCRIPTION.toml"},
        {"paint a.toml b.toml", "more than one description given ('a.toml' and 'b.toml')"},
        {"paint a.toml -o", "-o needs a value"},
        {"paint a.toml -o ''", "-o takes a directory, not ''"},
        {"paint a.toml -o x --output y", "--output is given twice"},
        {"paint --frobnicate", "unknown option '--frobnicate'"},
        // export-rules, import-rules
        {"export-rules", "--tiled DIR is required"},
        {"export-rules --tiled ''", "--tiled takes a folder, not ''"},
        {"export-rules --tiled d a.toml b.toml", "more than one recipe given"},
        {"import-rules", "missing TILESET.tsx"},
        {"import-rules a.tsx -o a.txt", "-o takes a .rules file, not 'a.txt'"},
        {"import-rules a.tsx --manifest m.json", "--manifest takes a .toml file, not 'm.json'"},
    };
    std::set<std::string> commands_seen;
    for (const BadOption& c : cases) {
        CAPTURE(c.args);
        TempDir dir;
        const std::string command = c.args.substr(0, c.args.find(' '));
        commands_seen.insert(command);
        const RunResult r = run_tilegen(c.args, dir.path());
        CHECK(r.exit_code == 2);
        const std::string expected = "tilegen " + command + ": error: " + c.message;
        CHECK_MESSAGE(r.err.find(expected) != std::string::npos, r.err);
        CHECK(r.err.find("Try 'tilegen " + command + " --help'.") != std::string::npos);
        CHECK(r.out.empty());
        CHECK(fs::directory_iterator(dir.path()) == fs::directory_iterator{});
    }
    for (const app::Command& c : app::all_commands())
        CHECK_MESSAGE(commands_seen.count(c.spec().name) == 1, c.spec().name);
}

TEST_CASE("options: every value option of every table says when its value is missing") {
    for (const app::Command& c : app::all_commands()) {
        const app::CommandSpec spec = c.spec();
        for (const app::Option& o : spec.options)
            for (const std::string& name : o.names) {
                CAPTURE(spec.name);
                CAPTURE(name);
                const auto [exit, err] = parse_in_process(spec, {name});
                if (o.value.empty()) {
                    // A flag alone is accepted unless the command needs more (operands, -o).
                    CHECK(err.find("unknown option") == std::string::npos);
                    continue;
                }
                CHECK(exit == app::kExitUsage);
                CHECK(err.find(name + " needs a value") != std::string::npos);
            }
    }
}

TEST_CASE("options: --help of every command lists every option of its table, in 100 columns") {
    for (const app::Command& c : app::all_commands()) {
        const app::CommandSpec spec = c.spec();
        CAPTURE(spec.name);
        const RunResult r = run_tilegen(spec.name + " --help");
        CHECK(r.exit_code == 0);
        CHECK(r.out.rfind("Usage: tilegen " + spec.name, 0) == 0);
        CHECK(fits_100_columns(r.out));
        CHECK(has_word(r.out, "--help"));
        for (const app::Option& o : spec.options) {
            for (const std::string& name : o.names)
                CHECK_MESSAGE(has_word(r.out, name), name);
            if (!o.value.empty()) CHECK(r.out.find(o.value) != std::string::npos);
        }
        // -h is the short spelling.
        CHECK(run_tilegen(spec.name + " -h").out == r.out);
    }
    // `tilegen --help`: one usage line per command with its operands and its main options.
    const RunResult top = run_tilegen("--help");
    CHECK(top.exit_code == 0);
    CHECK(fits_100_columns(top.out));
    for (const app::Command& c : app::all_commands()) {
        const app::CommandSpec spec = c.spec();
        CAPTURE(spec.name);
        CHECK(top.out.find("  tilegen " + spec.name + " " + spec.operands) != std::string::npos);
        // The command list: the whole name, then at least two spaces and the summary.
        const std::string entry = "\n  " + spec.name + "  ";
        const std::size_t at = top.out.find(entry);
        REQUIRE(at != std::string::npos);
        const std::size_t summary = top.out.find_first_not_of(' ', at + entry.size());
        CHECK(top.out.compare(summary, spec.summary.size(), spec.summary) == 0);
        for (const app::Option& o : spec.options)
            if (o.group == 0) CHECK_MESSAGE(has_word(top.out, o.names.front()), o.names.front());
    }
}

TEST_CASE("options: the parser on a small table") {
    app::CommandSpec spec;
    spec.name = "demo";
    spec.operands = "[A] B";
    spec.min_operands = 1;
    spec.max_operands = 2;
    spec.negative_numbers_are_operands = true;
    spec.options = {
        {{"-n", "--number"}, "N", "a number", app::whole_number(-5, 5)},
        {{"--flag"}, "", "a flag"},
        {{"--once"}, "X", "given at most once", app::any_text(), false, true},
        {{"--needs-flag"}, "X", "needs --flag"},
    };
    spec.constraints = {{"--needs-flag", "--flag", app::Constraint::needs, "why not"}};

    // whole_number against the plain comparison, at and around both ends.
    for (long long v = -7; v <= 7; ++v) {
        CAPTURE(v);
        const auto [exit, err] = parse_in_process(spec, {"b", "-n", std::to_string(v)});
        CHECK((exit == -1) == (v >= -5 && v <= 5));
    }
    const app::Parsed p =
        app::parse_command_line(spec, {"-3", "--number", "2", "x", "-n", "4", "--flag"});
    REQUIRE(p.line);
    CHECK(p.line->operands == std::vector<std::string>{"-3", "x"}); // "-3" is an operand here
    CHECK(p.line->integer("--number") == 4);                        // the last one counts
    CHECK(p.line->integer("-n") == 4);                              // any spelling
    CHECK(p.line->flag("--flag"));
    CHECK_FALSE(p.line->has("--once"));
    CHECK_THROWS_AS(p.line->text("--nope"), std::logic_error);

    CHECK(parse_in_process(spec, {}).second.find("expected [A] B, not 0 arguments") !=
          std::string::npos);
    CHECK(parse_in_process(spec, {"a", "b", "c"}).second.find("expected [A] B, not 3 arguments") !=
          std::string::npos);
    CHECK(parse_in_process(spec, {"a", "--once", "1", "--once", "2"})
              .second.find("--once is given twice") != std::string::npos);
    CHECK(parse_in_process(spec, {"a", "--needs-flag", "1"})
              .second.find("demo: error: --needs-flag needs --flag (why not)") !=
          std::string::npos);
    CHECK(parse_in_process(spec, {"a", "--needs-flag", "1", "--flag"}).first == -1);
    CHECK(parse_in_process(spec, {"a", "-x"}).second.find("unknown option '-x'") !=
          std::string::npos);
    // A value is the next argument, whatever it looks like.
    const app::Parsed v = app::parse_command_line(spec, {"a", "--once", "--flag"});
    REQUIRE(v.line);
    CHECK(v.line->text("--once") == "--flag");
    CHECK_FALSE(v.line->flag("--flag"));
}

TEST_CASE("options: wrapping help text") {
    CHECK(app::wrap_words("aa bb cc", 5) == std::vector<std::string>{"aa bb", "cc"});
    CHECK(app::wrap_words("aaaaaaa b", 3) == std::vector<std::string>{"aaaaaaa", "b"});
    CHECK(app::wrap_words("a\nb c", 10) == std::vector<std::string>{"a", "b c"});
    CHECK(app::wrap_words("", 10) == std::vector<std::string>{""});
}
