// Fuzz target: rule files (parse_rule_file) with a fixed symbol table, then the matcher on the
// rules it accepted, and the class passes. Properties: no crash/UB/leak; a size 1, 3 or 5 pattern
// per rule; every rule names a layer and a line inside the text; the lookup-table matcher
// (match_rules) agrees with the plain first_match on a fixed class grid.
#include <cstdint>
#include <map>
#include <string>

#include "core/rules/class_passes.hpp"
#include "core/rules/rule_matcher.hpp"
#include "core/rules/rule_parser.hpp"
#include "fuzz_support.hpp"

using namespace tilegen;

namespace {

// The symbols of the shipped recipes and golden cases: water sand grass dirt pit floor Wall Deep m
// r.
const SymbolTable& symbols() {
    static const SymbolTable table = [] {
        SymbolTable t;
        const std::string s = "wsgdpfWDmr";
        for (std::size_t i = 0; i < s.size(); ++i)
            t[s[i]] = static_cast<int>(i);
        return t;
    }();
    return table;
}

// A 9 x 7 grid with every class and varied neighbourhoods (deterministic).
const ClassGrid& grid() {
    static const ClassGrid g = [] {
        ClassGrid c(9, 7, 0);
        for (int y = 0; y < c.height(); ++y)
            for (int x = 0; x < c.width(); ++x)
                c(x, y) = static_cast<ClassId>((x * 7 + y * 3 + (x * y) % 5) % 10);
        return c;
    }();
    return g;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 64 * 1024) return -1; // rule files are small; keep the runs fast
    const std::string_view text = fuzz::text_of(data, size);
    Diagnostics diags;
    RuleFile file = parse_rule_file(text, "fuzz.rules", symbols(), diags);
    std::vector<Rule>& rules = file.rules;
    fuzz::check_diagnostics(!has_errors(diags), diags);
    std::size_t lines = 1;
    for (char c : text)
        lines += c == '\n';
    std::map<std::string, std::vector<Rule>> layers;
    for (const Rule& r : rules) {
        // 1, 3 and 5: centred neighbourhoods; 2: a corner layer's 2x2 pattern (docs/rules.md).
        FUZZ_CHECK(r.pattern.size() == 1 || r.pattern.size() == 2 || r.pattern.size() == 3 ||
                       r.pattern.size() == 5,
                   "pattern size");
        FUZZ_CHECK(r.line >= 1 && static_cast<std::size_t>(r.line) <= lines,
                   "rule line inside the text");
        FUZZ_CHECK(!r.layer.empty(), "rule layer");
        for (const Target& t : r.targets)
            FUZZ_CHECK(t.weight >= 0 && t.weight <= 1e9, "target weight range");
        layers[r.layer].push_back(r);
    }
    if (has_errors(diags)) return 0;
    // Class passes: targets are classes of the table; the passes give the same grid on 1 and 3
    // threads, and only classes of the table.
    for (const ClassPass& pass : file.passes) {
        FUZZ_CHECK(pass.runs >= 1 && pass.runs <= kMaxClassRuns, "pass runs range");
        FUZZ_CHECK(pass.ordered.size() == pass.targets.size(), "one target list per class rule");
        for (const ClassTargets& t : pass.targets)
            for (int c : t.classes)
                FUZZ_CHECK(c == kKeepClass || (c >= 0 && c < 10), "class target range");
    }
    if (!file.passes.empty()) {
        const ClassGrid one = run_class_passes(grid(), file.passes, 10, {}, 7, 1);
        FUZZ_CHECK(one == run_class_passes(grid(), file.passes, 10, {}, 7, 3),
                   "class passes depend on the thread count");
        for (ClassId c : one.cells())
            FUZZ_CHECK(c < 10, "class passes made an unknown class");
    }
    // The matcher: its per-neighbourhood table must decide as the rule-by-rule search does.
    for (auto& [name, layer_rules] : layers) {
        const std::vector<Rule> ordered = order_by_specificity(std::move(layer_rules));
        for (const OutsidePolicy outside : {OutsidePolicy{}, OutsidePolicy{ClassId{2}}}) {
            const Grid<int> decided = match_rules(grid(), ordered, 10, outside);
            for (int y = 0; y < grid().height(); ++y)
                for (int x = 0; x < grid().width(); ++x)
                    FUZZ_CHECK(decided(x, y) == first_match(grid(), x, y, ordered, outside),
                               "match_rules and first_match disagree");
        }
    }
    return 0;
}
