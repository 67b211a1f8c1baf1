// tilegen check: lint a recipe's rules without generating a map.
#include <functional>
#include <iostream>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "core/pipeline.hpp"
#include "core/rules/explain.hpp"
#include "core/rules/rule_check.hpp"

namespace tilegen::app {

namespace {

std::string where(const Rule& r) {
    return r.file + ":" + std::to_string(r.line) +
           (r.variant.empty() ? "" : " (" + r.variant + ")");
}

} // namespace

// Every command's table and opening share this shape (app/options.hpp): one design, not a copy.
CommandSpec check_spec() {
    CommandSpec s;
    s.name = "check";
    s.summary = "Lint rules: errors, uncovered neighbourhoods, shadowed and duplicate rules.";
    s.operands = "[RECIPE]";
    s.about =
        R"(Lints the recipe's rule files without generating a map (no RECIPE: the built-in default):
  - errors: unknown symbols or tiles, missing images, malformed patterns (path:line:col: error: ...)
  - uncovered neighbourhoods: class neighbourhoods no rule of a layer matches (exact enumeration
    when there are at most 2,097,152 of them, else a sample of 200,000; the output says which),
    with examples
  - shadowed rules: rules that never decide a cell because earlier rules always match first
  - duplicate rules, and targets with weight 0 that are never chosen
Class passes ([classes] sections) get the same checks, plus class rules that never change a cell;
their coverage is printed as information (a cell no class rule matches keeps its class).
)";
    s.options = {{{"--strict"}, "", "exit 1 when there are warnings, not only on errors"}};
    s.epilogue = "Exit codes: 0 clean (warnings allowed), 1 errors (or warnings with --strict), 2 "
                 "bad usage.\n";
    return s;
}

int run_check(const Args& args) {
    const CommandSpec spec = check_spec();
    const Parsed parsed = parse_command_line(spec, args);
    if (!parsed.line) return parsed.exit;
    std::optional<std::string> recipe_arg;
    if (!parsed.line->operands.empty()) recipe_arg = parsed.line->operands.front();
    const bool strict = parsed.line->flag("--strict");
    auto project = load_recipe_or_print(recipe_arg);
    if (!project) return kExitInput;
    const std::string symbols = terrain_symbols(project->recipe);
    const auto layers = build_layers(*project, std::vector<int>(project->images.size(), 0), 0);
    const RuleCheckReport report = check_rules(layers, static_cast<int>(symbols.size()));
    const RuleCheckReport passes =
        check_class_passes(project->class_passes, static_cast<int>(symbols.size()));

    std::size_t warnings = 0;
    // Class passes run first, so they are reported first; their coverage is information (a cell no
    // class rule matches keeps its class).
    for (std::size_t pi = 0; pi < passes.coverage.size(); ++pi) {
        const LayerCoverage& cov = passes.coverage[pi];
        const ClassPass& pass = project->class_passes[pi];
        const std::string header =
            pass.until_stable
                ? "[classes *]"
                : (pass.runs == 1 ? "[classes]" : "[classes " + std::to_string(pass.runs) + "]");
        const std::string how = cov.exact ? " neighbourhoods (exact)"
                                          : " sampled neighbourhoods (too many to enumerate)";
        std::cout << "pass " << pass.file << ":" << pass.line << " " << header << ": "
                  << pass.ordered.size() << " rules decide "
                  << (cov.uncovered == 0
                          ? "all " + std::to_string(cov.examined) + how
                          : std::to_string(cov.examined - cov.uncovered) + " of " +
                                std::to_string(cov.examined) + how + "; the rest keep their class")
                  << "\n";
    }
    for (std::size_t li = 0; li < report.coverage.size(); ++li) {
        const LayerCoverage& cov = report.coverage[li];
        const std::size_t rules = layers[li].ordered.size();
        const std::string how =
            cov.exact
                ? "all " + std::to_string(cov.examined) + " neighbourhoods (exact)"
                : std::to_string(cov.examined) + " sampled neighbourhoods (too many to enumerate)";
        if (cov.uncovered == 0) {
            std::cout << "layer '" << cov.layer << "': " << rules << " rules cover " << how << "\n";
            continue;
        }
        ++warnings;
        std::cout << format_diagnostic(warning_at(project->recipe.path, 0, 0,
                                                  "layer '" + cov.layer + "': " +
                                                      std::to_string(cov.uncovered) + " of " + how +
                                                      " match no rule (they get the error "
                                                      "tile), for example:"))
                  << '\n';
        for (const auto& n : cov.examples) {
            if (layers[li].corner()) {
                // A corner layer's neighbourhood: the four cells around the corner (offsets -1..0
                // of the side-3 grid), as its rules write them.
                for (int y = 0; y < 2; ++y) {
                    std::cout << "    ";
                    for (int x = 0; x < 2; ++x)
                        std::cout << ' '
                                  << symbols[n.cells[static_cast<std::size_t>(y * n.side + x)]]
                                  << ' ';
                    std::cout << '\n';
                }
                std::cout << '\n';
                continue;
            }
            for (int y = 0; y < n.side; ++y) {
                std::cout << "    ";
                for (int x = 0; x < n.side; ++x) {
                    const bool centre = x == n.side / 2 && y == n.side / 2;
                    const char c = symbols[n.cells[static_cast<std::size_t>(y * n.side + x)]];
                    std::cout << (centre ? '[' : ' ') << c << (centre ? ']' : ' ');
                }
                std::cout << '\n';
            }
            std::cout << '\n';
        }
    }
    // Shadowed, duplicate and zero-weight rules read alike in tile layers and class passes.
    auto print_findings = [&](const RuleCheckReport& found,
                              const std::function<const Rule&(const RuleRef&)>& rule_of) {
        for (const auto& d : found.duplicates) {
            ++warnings;
            const Rule& r = rule_of(d.rule);
            std::cout << format_diagnostic(warning_at(
                             r.file, r.line, 1,
                             "rule" + (r.variant.empty() ? "" : " (" + r.variant + ")") + " '" +
                                 pattern_text(r.pattern, symbols) + "' duplicates the pattern of " +
                                 where(rule_of(d.original)) + ", which always matches first"))
                      << '\n';
        }
        for (const auto& s : found.shadowed) {
            ++warnings;
            const Rule& r = rule_of(s.rule);
            std::string message = "rule" + (r.variant.empty() ? "" : " (" + r.variant + ")") +
                                  " '" + pattern_text(r.pattern, symbols) +
                                  "' never decides a cell";
            if (s.matches_nothing)
                message += std::string(": no neighbourhood") + (s.exact ? "" : " in the sample") +
                           " matches it";
            else
                message += ": it is shadowed by " + where(rule_of(s.by)) + " '" +
                           pattern_text(rule_of(s.by).pattern, symbols) + "'" +
                           (s.exact ? "" : " (in the sample)") + ", tried first";
            std::cout << format_diagnostic(warning_at(r.file, r.line, 1, message)) << '\n';
        }
        for (const auto& z : found.zero_weights) {
            ++warnings;
            const Rule& r = rule_of(z.rule);
            const Target& t = r.targets[z.target];
            std::cout << format_diagnostic(
                             warning_at(r.file, r.line, t.column,
                                        "target '" + t.name + "' has weight 0 and is never chosen"))
                      << '\n';
        }
        for (const auto& n : found.no_ops) {
            ++warnings;
            const Rule& rule = rule_of(n.rule);
            const std::string cls(1, symbols[n.cls]);
            std::cout << format_diagnostic(
                             warning_at(rule.file, rule.line, 1,
                                        "class rule '" + pattern_text(rule.pattern, symbols) +
                                            "' never changes a cell: its centre can only be '" +
                                            cls + "' and every target keeps '" + cls +
                                            "' (write @keep if it is there to stop later rules)"))
                      << '\n';
        }
    };
    print_findings(passes, [&](const RuleRef& ref) -> const Rule& {
        return pass_rule_at(project->class_passes, ref);
    });
    print_findings(report, [&](const RuleRef& ref) -> const Rule& { return rule_at(layers, ref); });
    std::cout << (warnings == 0 ? "ok: no problems found"
                                : std::to_string(warnings) + " warning(s)")
              << "\n";
    return warnings > 0 && strict ? kExitInput : kExitOk;
}

} // namespace tilegen::app
