// Golden autotiling cases: tests/data/<case>/ holds
//   symbols       the class symbols, lowest first, e.g. "wsg"
//   classes.txt   the class map (one line per row)
//   rules.rules   the rule file
//   expected.txt  the expected tile names of layer "ground", one row per line, separated by spaces
//                 (`@error` for the error tile, `.` for an empty cell); expected-<layer>.txt for
//                 other layers
//   options       optional: "outside=<symbol>" and/or "seed=<n>", one per line
// Set TILEGEN_UPDATE_GOLDEN=1 to rewrite expected files from the current output (then review the
// diff).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/classes/class_map_text.hpp"
#include "core/rules/autotile.hpp"
#include "core/rules/rule_parser.hpp"
#include "test_support.hpp"

using namespace tilegen;
namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
        s.pop_back();
    return s;
}

// Normalises whitespace so that aligned expected files compare equal to single-spaced output.
std::string normalise(const std::string& text) {
    std::istringstream in(text);
    std::string line, out;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::string w, joined;
        while (words >> w)
            joined += (joined.empty() ? "" : " ") + w;
        if (!joined.empty()) out += joined + "\n";
    }
    return out;
}

std::string aligned(const std::vector<std::vector<std::string>>& rows) {
    std::size_t width = 1;
    for (const auto& r : rows)
        for (const auto& n : r)
            width = std::max(width, n.size());
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (std::size_t i = 0; i < r.size(); ++i) {
            line += r[i];
            if (i + 1 < r.size()) line += std::string(width + 1 - r[i].size(), ' ');
        }
        out += line + "\n";
    }
    return out;
}

} // namespace

TEST_CASE("golden autotiling cases in tests/data") {
    const fs::path data = test::source_dir() / "tests" / "data";
    const bool update = std::getenv("TILEGEN_UPDATE_GOLDEN") != nullptr;
    int cases = 0;
    for (const auto& entry : fs::directory_iterator(data)) {
        const fs::path dir = entry.path();
        if (!fs::exists(dir / "rules.rules")) continue;
        ++cases;
        INFO("golden case " << dir.filename().string());
        const std::string symbols = trim(test::read_text(dir / "symbols"));
        SymbolTable table;
        for (std::size_t i = 0; i < symbols.size(); ++i)
            table[symbols[i]] = static_cast<int>(i);
        OutsidePolicy outside;
        std::uint64_t seed = 1;
        if (fs::exists(dir / "options")) {
            std::istringstream opts(test::read_text(dir / "options"));
            std::string line;
            while (std::getline(opts, line)) {
                if (line.rfind("outside=", 0) == 0)
                    outside.fixed_class = static_cast<ClassId>(table.at(line[8]));
                if (line.rfind("seed=", 0) == 0) seed = std::stoull(line.substr(5));
            }
        }
        Diagnostics diags;
        auto classes =
            parse_class_map(test::read_text(dir / "classes.txt"), "classes.txt", table, diags);
        auto rules = parse_rules(test::read_text(dir / "rules.rules"), "rules.rules", table, diags);
        for (const auto& d : diags)
            FAIL_CHECK(format_diagnostic(d));
        REQUIRE(classes);

        // A synthetic tileset: every tile name gets the next index; index -> name for reading back.
        std::vector<std::string> names;
        std::vector<LayerRules> layers;
        for (const Rule& rule : rules) {
            std::size_t li = 0;
            while (li < layers.size() && layers[li].name != rule.layer)
                ++li;
            if (li == layers.size()) layers.push_back({rule.layer, {}, {}});
            layers[li].ordered.push_back(rule);
        }
        for (auto& layer : layers) {
            layer.ordered = order_by_specificity(std::move(layer.ordered));
            for (const Rule& rule : layer.ordered) {
                ResolvedTargets rt;
                for (const Target& t : rule.targets) {
                    Gid gid = 0;
                    if (t.kind == Target::Kind::error) {
                        gid = gid_of(0);
                    } else if (t.kind != Target::Kind::none) {
                        auto it = std::find(names.begin(), names.end(), t.name);
                        if (it == names.end()) it = names.insert(names.end(), t.name);
                        gid = gid_of(static_cast<int>(it - names.begin()) + 1);
                    }
                    rt.gids.push_back(gid | t.flips);
                    rt.weights.push_back(t.weight);
                }
                layer.resolved.push_back(rt);
            }
        }
        auto result =
            autotile(*classes, layers, static_cast<int>(symbols.size()), outside, seed, gid_of(0));
        for (const TileLayer& layer : result.layers) {
            std::vector<std::vector<std::string>> rows;
            for (int y = 0; y < layer.tiles.height(); ++y) {
                rows.emplace_back();
                for (int x = 0; x < layer.tiles.width(); ++x) {
                    Gid g = layer.tiles(x, y);
                    int i = atlas_index_of(g);
                    std::string n = g == 0   ? "."
                                    : i == 0 ? "@error"
                                             : names[static_cast<std::size_t>(i - 1)];
                    if (g & kFlipDiagonal) n += "@d";
                    if (g & kFlipHorizontal) n += "@h";
                    if (g & kFlipVertical) n += "@v";
                    rows.back().push_back(n);
                }
            }
            const fs::path expected =
                dir / (layer.name == "ground" ? std::string("expected.txt")
                                              : "expected-" + layer.name + ".txt");
            const std::string actual = aligned(rows);
            if (update) test::write_text(expected, actual);
            REQUIRE_MESSAGE(fs::exists(expected), "missing " << expected.string());
            CHECK(normalise(actual) == normalise(test::read_text(expected)));
        }
        if (fs::exists(dir / "unmatched"))
            CHECK(result.unmatched == std::stoull(test::read_text(dir / "unmatched")));
    }
    CHECK(cases >= 5);
}
