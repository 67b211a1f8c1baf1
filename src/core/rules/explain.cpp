#include "core/rules/explain.hpp"

#include <algorithm>
#include <bit>

namespace tilegen {

CellExplanation explain_cell(const ClassGrid& classes, int x, int y, const LayerRules& layer,
                             OutsidePolicy outside, std::uint64_t seed, Gid error_gid) {
    CellExplanation e;
    auto class_at = [&](int cx, int cy) -> ClassId {
        if (!classes.contains(cx, cy)) {
            if (outside.fixed_class) return *outside.fixed_class;
            cx = std::clamp(cx, 0, classes.width() - 1);
            cy = std::clamp(cy, 0, classes.height() - 1);
        }
        return classes(cx, cy);
    };
    for (std::size_t i = 0; i < layer.ordered.size(); ++i) {
        const Descriptor& p = layer.ordered[i].pattern;
        RuleAttempt a{i, true, 0, 0, 0};
        const int r = p.radius();
        for (int dy = -r; dy <= r && a.matched; ++dy)
            for (int dx = -r; dx <= r && a.matched; ++dx) {
                const ClassMask m = p.at(dx, dy);
                const ClassId c = class_at(x + dx, y + dy);
                if (m != kAnyClass && !(m & (ClassMask{1} << c))) a = {i, false, dx, dy, c};
            }
        e.attempts.push_back(a);
        if (a.matched) {
            e.decision = static_cast<int>(i);
            break;
        }
    }
    if (e.decision == kNoRule) {
        e.gid = error_gid;
        return e;
    }
    const auto d = static_cast<std::size_t>(e.decision);
    e.chosen_target = choose_target(layer.resolved[d], layer.ordered[d].identity, seed, x, y);
    e.gid = e.chosen_target < 0 ? error_gid
                                : layer.resolved[d].gids[static_cast<std::size_t>(e.chosen_target)];
    return e;
}

std::string mask_text(ClassMask mask, const std::string& symbols) {
    const ClassMask all = symbols.size() >= 32 ? kAnyClass : ((ClassMask{1} << symbols.size()) - 1);
    if (mask == kAnyClass || (mask & all) == all) return "?";
    std::string in, out;
    for (std::size_t i = 0; i < symbols.size(); ++i)
        (mask & (ClassMask{1} << i) ? in : out) += symbols[i];
    if (in.size() == 1) return in;
    if (out.size() == 1) return "!" + out;
    if (in.size() <= out.size() || out.empty()) return "[" + in + "]";
    return "[!" + out + "]";
}

std::string pattern_text(const Descriptor& pattern, const std::string& symbols) {
    std::string out;
    for (int r = 0; r < pattern.size(); ++r) {
        if (r) out += ' ';
        for (int c = 0; c < pattern.size(); ++c)
            out += mask_text(pattern.cell(c, r), symbols);
    }
    return out;
}

std::vector<std::string> class_history_lines(std::span<const ClassPass> passes,
                                             std::span<const int> runs,
                                             const std::vector<ClassStep>& steps,
                                             const std::string& symbols) {
    std::vector<std::string> lines;
    for (std::size_t p = 0; p < passes.size(); ++p) {
        const ClassPass& pass = passes[p];
        const int made = p < runs.size() ? runs[p] : 0;
        const std::string header =
            pass.until_stable
                ? "[classes *]"
                : (pass.runs == 1 ? "[classes]" : "[classes " + std::to_string(pass.runs) + "]");
        std::string line = pass.file + ":" + std::to_string(pass.line) + " " + header + ", " +
                           std::to_string(made) + " run" + (made == 1 ? "" : "s") + ":";
        int changes = 0;
        for (const ClassStep& step : steps) {
            if (step.pass != static_cast<int>(p) || step.before == step.after) continue;
            ++changes;
            line += std::string(changes > 1 ? ";" : "") + " run " + std::to_string(step.run + 1) +
                    " " + symbols[step.before] + " -> " + symbols[step.after];
            if (step.rule != kNoRule) {
                const Rule& r = pass.ordered[static_cast<std::size_t>(step.rule)];
                line += " by " + r.file + ":" + std::to_string(r.line) +
                        (r.variant.empty() ? "" : " (" + r.variant + ")") + " '" +
                        pattern_text(r.pattern, symbols) + "'";
            }
        }
        if (changes == 0) line += " the cell keeps its class";
        lines.push_back(std::move(line));
    }
    return lines;
}

} // namespace tilegen
