#include "core/rules/rule_parser.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

#include "core/hash.hpp"
#include "core/rules/rule_matcher.hpp"
#include "core/rules/tile_transform.hpp"

namespace tilegen {

namespace {

struct Token {
    std::string_view text;
    int column; // 1-based
};

std::vector<Token> tokenize(std::string_view line) {
    std::vector<Token> tokens;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        if (i >= line.size() || line[i] == '#') break;
        std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        tokens.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
    }
    return tokens;
}

bool is_section(std::string_view t) {
    if (t.size() < 3 || t.front() != '[' || t.back() != ']') return false;
    char first = t[1];
    if (!(std::isalpha(static_cast<unsigned char>(first)) || first == '_')) return false;
    for (std::size_t i = 1; i + 1 < t.size(); ++i) {
        char c = t[i];
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
    }
    // `[sw]` could be a one-cell group too, but a pattern alone without targets is never a rule.
    return true;
}

std::string printable(char c) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
        static const char* hex = "0123456789abcdef";
        return std::string("\\x") + hex[(static_cast<unsigned char>(c) >> 4) & 15] + hex[c & 15];
    }
    return std::string(1, c);
}

class LineParser {
  public:
    LineParser(const std::string& path, int line, const SymbolTable& symbols, Diagnostics& diags)
        : path_(path), line_(line), symbols_(symbols), diags_(diags) {}

    void error(int column, std::string message) {
        diags_.push_back(error_at(path_, line_, column, std::move(message)));
    }

    // Parses one row group into cells; returns false (with a diagnostic) on a malformed cell.
    bool parse_group(const Token& t, std::vector<ClassMask>& cells) {
        std::size_t i = 0;
        const std::string_view s = t.text;
        while (i < s.size()) {
            int col = t.column + static_cast<int>(i);
            char c = s[i];
            if (c == '?') {
                cells.push_back(kAnyClass);
                ++i;
            } else if (c == '!') {
                if (i + 1 >= s.size()) {
                    error(col, "'!' must be followed by a terrain symbol");
                    return false;
                }
                auto m = symbol_mask(s[i + 1], col + 1);
                if (!m) return false;
                cells.push_back(~*m);
                i += 2;
            } else if (c == '[') {
                std::size_t close = s.find(']', i);
                if (close == std::string_view::npos) {
                    error(col, "'[' without a closing ']'");
                    return false;
                }
                std::size_t j = i + 1;
                bool negate = j < close && s[j] == '!';
                if (negate) ++j;
                if (j == close) {
                    error(col, "empty class set '" + std::string(s.substr(i, close - i + 1)) + "'");
                    return false;
                }
                ClassMask m = 0;
                for (; j < close; ++j) {
                    auto b = symbol_mask(s[j], t.column + static_cast<int>(j));
                    if (!b) return false;
                    m |= *b;
                }
                cells.push_back(negate ? ~m : m);
                i = close + 1;
            } else if (c == ']') {
                error(col, "']' without an opening '['");
                return false;
            } else {
                auto m = symbol_mask(c, col);
                if (!m) return false;
                cells.push_back(*m);
                ++i;
            }
        }
        return true;
    }

    // Splits a `*W` weight suffix off `s` (the token's text) into `weight`; false (with a
    // diagnostic) on a bad weight.
    bool split_weight(const Token& t, std::string_view& s, double& weight) {
        auto star = s.rfind('*');
        if (star == std::string_view::npos) return true;
        std::string_view w = s.substr(star + 1);
        double value = 0;
        auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), value);
        int col = t.column + static_cast<int>(star) + 1;
        if (ec == std::errc::result_out_of_range && p == w.data() + w.size()) {
            error(col, "weight " + std::string(w) + " is out of range (0 to 1e9)");
            return false;
        }
        if (w.empty() || ec != std::errc() || p != w.data() + w.size()) {
            error(col, "weight '" + std::string(w) + "' is not a number");
            return false;
        }
        if (!std::isfinite(value) || value < 0 || value > 1e9) {
            error(col, "weight " + std::string(w) + " is out of range (0 to 1e9)");
            return false;
        }
        weight = value;
        s = s.substr(0, star);
        return true;
    }

    // A class rule's target: a terrain symbol or @keep, with an optional weight; the class index
    // (kKeepClass for @keep) goes to `cls`.
    std::optional<Target> parse_class_target(const Token& t, int& cls) {
        Target target;
        target.column = t.column;
        std::string_view s = t.text;
        if (!split_weight(t, s, target.weight)) return std::nullopt;
        const std::string hint = " (a class rule's targets are terrain symbols or @keep)";
        if (s.empty()) {
            error(t.column, "target has a weight but no terrain symbol");
            return std::nullopt;
        }
        target.name = std::string(s);
        if (s == "@keep") {
            cls = kKeepClass;
            return target;
        }
        if (s.front() == '@') {
            if (s == "@error" || s == "@none")
                error(t.column, "'" + std::string(s) + "' is a tile target" + hint);
            else
                error(t.column, "unknown built-in target '" + std::string(s) + "'" + hint);
            return std::nullopt;
        }
        if (s.find('/') != std::string_view::npos || s.ends_with(".png") || s.ends_with(".bmp") ||
            s.ends_with(".PNG") || s.ends_with(".BMP")) {
            error(t.column, "image '" + std::string(s) + "' is a tile target" + hint);
            return std::nullopt;
        }
        if (auto at = s.find('@'); at != std::string_view::npos) {
            error(t.column + static_cast<int>(at),
                  "tile transform '" + std::string(s.substr(at)) + "' on a class target" + hint);
            return std::nullopt;
        }
        if (s.size() != 1) {
            error(t.column, "class target '" + std::string(s) + "' is not a terrain symbol" + hint);
            return std::nullopt;
        }
        auto it = symbols_.find(s.front());
        if (it == symbols_.end()) {
            (void)symbol_mask(s.front(), t.column); // the unknown-symbol diagnostic
            return std::nullopt;
        }
        cls = it->second;
        return target;
    }

    std::optional<Target> parse_target(const Token& t) {
        Target target;
        target.column = t.column;
        std::string_view s = t.text;
        if (!split_weight(t, s, target.weight)) return std::nullopt;
        if (s.empty()) {
            error(t.column, "target has a weight but no tile name");
            return std::nullopt;
        }
        // Transform suffixes: name@r90, name@fx@fy, ... (not on the built-ins, which start with
        // '@').
        TileTransform transform;
        for (std::size_t at = s.rfind('@'); at != std::string_view::npos && at > 0;
             at = s.rfind('@')) {
            std::string_view suffix = s.substr(at + 1);
            TileTransform step;
            if (suffix == "r90")
                step = TileTransform::rotation(1);
            else if (suffix == "r180")
                step = TileTransform::rotation(2);
            else if (suffix == "r270")
                step = TileTransform::rotation(3);
            else if (suffix == "fx")
                step = TileTransform::mirror();
            else if (suffix == "fy")
                step = TileTransform::mirror().then(TileTransform::rotation(2));
            else {
                error(t.column + static_cast<int>(at),
                      "unknown tile transform '@" + std::string(suffix) +
                          "' (expected @r90, @r180, @r270, @fx or @fy)");
                return std::nullopt;
            }
            transforms_.insert(transforms_.begin(), step);
            s = s.substr(0, at);
        }
        for (const TileTransform& step : transforms_)
            transform = transform.then(step);
        transforms_.clear();
        target.flips = transform.flip_bits();
        if (s.front() == '@') {
            if (s == "@error") {
                target.kind = Target::Kind::error;
            } else if (s == "@none") {
                target.kind = Target::Kind::none;
            } else {
                error(t.column, "unknown built-in target '" + std::string(s) +
                                    "' (expected @error or @none)");
                return std::nullopt;
            }
        } else {
            bool image = s.find('/') != std::string_view::npos || s.ends_with(".png") ||
                         s.ends_with(".bmp") || s.ends_with(".PNG") || s.ends_with(".BMP");
            target.kind = image ? Target::Kind::image : Target::Kind::tile;
        }
        target.name = std::string(s);
        return target;
    }

  private:
    std::optional<ClassMask> symbol_mask(char c, int column) {
        auto it = symbols_.find(c);
        if (it == symbols_.end()) {
            std::string known;
            for (const auto& [sym, cls] : symbols_)
                known += sym;
            error(column, "unknown terrain symbol '" + printable(c) +
                              "' (the recipe's symbols are: " + known + ")");
            return std::nullopt;
        }
        return ClassMask{1} << it->second;
    }

    std::vector<TileTransform> transforms_;
    const std::string& path_;
    int line_;
    const SymbolTable& symbols_;
    Diagnostics& diags_;
};

} // namespace

namespace {

// A `[classes ...]` header: true when the line is one (diagnostics for a malformed count go to
// `p`; the pass then keeps runs = 1).
bool parse_class_header(const std::vector<Token>& tokens, LineParser& p, ClassPass& pass) {
    const std::string_view first = tokens[0].text;
    if (first == "[classes]") {
        if (tokens.size() > 1)
            p.error(tokens[1].column, "unexpected '" + std::string(tokens[1].text) +
                                          "' after the section header '[classes]'");
        return true;
    }
    if (first != "[classes") return false;
    // `[classes N]`, `[classes *]`, also written `[classes N ]`.
    const std::string expected = "expected '[classes N]' with a run count N from 1 to " +
                                 std::to_string(kMaxClassRuns) + ", or '[classes *]'";
    if (tokens.size() == 1) {
        p.error(tokens[0].column + static_cast<int>(first.size()), expected);
        return true;
    }
    std::string_view count = tokens[1].text;
    const int column = tokens[1].column;
    std::size_t extra = 2;
    if (count.ends_with(']')) {
        count.remove_suffix(1);
    } else if (tokens.size() >= 3 && tokens[2].text == "]") {
        extra = 3;
    } else {
        const Token& last = tokens.back();
        p.error(last.column + static_cast<int>(last.text.size()),
                "expected ']' to close the section header");
        return true;
    }
    if (tokens.size() > extra) {
        p.error(tokens[extra].column,
                "unexpected '" + std::string(tokens[extra].text) + "' after the section header");
        return true;
    }
    if (count == "*") {
        pass.until_stable = true;
        pass.runs = kMaxClassRuns;
        return true;
    }
    int value = 0;
    auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), value);
    const bool digits = !count.empty() && ptr == count.data() + count.size() &&
                        std::isdigit(static_cast<unsigned char>(count.front()));
    if (!digits) {
        p.error(column, "run count '" + std::string(count) + "' is not a number: " + expected);
        return true;
    }
    if (ec != std::errc() || value < 1 || value > kMaxClassRuns) {
        p.error(column, "run count " + std::string(count) + " is out of range (1 to " +
                            std::to_string(kMaxClassRuns) + ")");
        return true;
    }
    pass.runs = value;
    return true;
}

// The pass's rules in the order tile layers use (specificity_order), targets kept parallel.
void order_pass(ClassPass& pass) {
    ClassPass sorted;
    for (std::size_t i : specificity_order(pass.ordered)) {
        sorted.ordered.push_back(std::move(pass.ordered[i]));
        sorted.targets.push_back(std::move(pass.targets[i]));
    }
    pass.ordered = std::move(sorted.ordered);
    pass.targets = std::move(sorted.targets);
}

} // namespace

std::vector<Rule> parse_rules(std::string_view text, const std::string& path,
                              const SymbolTable& symbols, Diagnostics& diags) {
    return parse_rule_file(text, path, symbols, diags).rules;
}

RuleFile parse_rule_file(std::string_view text, const std::string& path, const SymbolTable& symbols,
                         Diagnostics& diags) {
    RuleFile file;
    std::vector<Rule>& rules = file.rules;
    ClassPass* pass = nullptr; // the class pass being read, if any
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3); // UTF-8 byte order mark
    std::string layer = "ground";
    int line_no = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (end == text.size() && line.empty()) break;

        auto tokens = tokenize(line);
        if (tokens.empty()) continue;
        LineParser p(path, line_no, symbols, diags);
        {
            ClassPass header;
            header.file = path;
            header.line = line_no;
            if (parse_class_header(tokens, p, header)) {
                file.passes.push_back(std::move(header));
                pass = &file.passes.back();
                continue;
            }
        }
        if (tokens.size() == 1 && is_section(tokens[0].text)) {
            layer = std::string(tokens[0].text.substr(1, tokens[0].text.size() - 2));
            pass = nullptr;
            continue;
        }
        // Modifiers: `rotate` and/or `mirror` before the pattern.
        bool rotate = false, mirror = false, bad_modifier = false;
        std::size_t skip = 0;
        while (skip < tokens.size() &&
               (tokens[skip].text == "rotate" || tokens[skip].text == "mirror")) {
            bool& flag = tokens[skip].text == "rotate" ? rotate : mirror;
            if (flag) {
                p.error(tokens[skip].column,
                        "'" + std::string(tokens[skip].text) + "' is given twice");
                bad_modifier = true;
            }
            flag = true;
            ++skip;
        }
        if (bad_modifier) continue;
        if (skip == tokens.size()) {
            const Token& last = tokens.back();
            p.error(last.column + static_cast<int>(last.text.size()),
                    "expected a pattern after '" + std::string(last.text) + "'");
            continue;
        }
        tokens.erase(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(skip));
        // The first group gives the pattern size.
        std::vector<ClassMask> first;
        if (!p.parse_group(tokens[0], first)) continue;
        const int size = static_cast<int>(first.size());
        if (size != 1 && size != 2 && size != 3 && size != 5) {
            p.error(tokens[0].column,
                    "a row group has " + std::to_string(size) +
                        " cells; patterns are 1x1, 3x3 or 5x5 (e.g. '?s? ggg ?s?'), or 2x2 corner "
                        "patterns (e.g. 'gw gw')");
            continue;
        }
        if (size == 2 && pass) {
            p.error(tokens[0].column, "a 2x2 corner pattern in a class pass: class rules decide "
                                      "cells (1x1, 3x3 or 5x5 patterns), not corners");
            continue;
        }
        Rule rule;
        rule.pattern = Descriptor(size);
        rule.layer = pass ? "classes" : layer;
        rule.file = path;
        rule.line = line_no;
        rule.column = tokens[0].column;
        bool ok = true;
        for (int c = 0; c < size; ++c)
            rule.pattern.set_cell(c, 0, first[static_cast<std::size_t>(c)]);
        for (int r = 1; r < size && ok; ++r) {
            if (static_cast<std::size_t>(r) >= tokens.size()) {
                const Token& last = tokens.back();
                p.error(last.column + static_cast<int>(last.text.size()),
                        "expected " + std::to_string(size) + " row groups of " +
                            std::to_string(size) + " cells, found " + std::to_string(r));
                ok = false;
                break;
            }
            std::vector<ClassMask> cells;
            if (!p.parse_group(tokens[static_cast<std::size_t>(r)], cells)) {
                ok = false;
                break;
            }
            if (static_cast<int>(cells.size()) != size) {
                p.error(tokens[static_cast<std::size_t>(r)].column,
                        "row group " + std::to_string(r + 1) + " has " +
                            std::to_string(cells.size()) + " cells, expected " +
                            std::to_string(size));
                ok = false;
                break;
            }
            for (int c = 0; c < size; ++c)
                rule.pattern.set_cell(c, r, cells[static_cast<std::size_t>(c)]);
        }
        if (!ok) continue;
        if (tokens.size() <= static_cast<std::size_t>(size)) {
            const Token& last = tokens.back();
            p.error(last.column + static_cast<int>(last.text.size()),
                    pass ? "class rule has no target (a terrain symbol or @keep)"
                         : "rule has no target (a tile name, an image or @error)");
            continue;
        }
        // Class rules' identities start with "[classes]", which no tile layer name can be.
        std::string canonical = (pass ? std::string("[classes]") : layer) +
                                (rotate ? " rotate" : "") + (mirror ? " mirror" : "");
        ClassTargets class_targets;
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            canonical += ' ';
            canonical += tokens[i].text;
            if (i < static_cast<std::size_t>(size)) continue;
            int cls = kKeepClass;
            auto target = pass ? p.parse_class_target(tokens[i], cls) : p.parse_target(tokens[i]);
            if (!target) {
                ok = false;
                continue;
            }
            if (pass) {
                class_targets.classes.push_back(cls);
                class_targets.weights.push_back(target->weight);
            }
            rule.targets.push_back(std::move(*target));
        }
        if (!ok) continue;
        rule.identity = hash_string(canonical);
        // Variants: the pattern turned 90, 180, 270 degrees clockwise and/or mirrored left-right,
        // each with its targets turned the same way; they follow their source, and ones equal to an
        // earlier variant are dropped.
        std::vector<Rule> variants{rule};
        if (rotate || mirror) {
            std::vector<TileTransform> transforms;
            for (int m = 0; m < (mirror ? 2 : 1); ++m)
                for (int r = 0; r < (rotate ? 4 : 1); ++r)
                    if (m || r) transforms.push_back(TileTransform{r, m == 1});
            for (const TileTransform& tr : transforms) {
                Rule v = rule;
                if (tr.mirrored) v.pattern = v.pattern.mirrored();
                for (int r = 0; r < tr.quarter_turns; ++r)
                    v.pattern = v.pattern.rotated();
                bool seen = false;
                for (const Rule& earlier : variants)
                    seen = seen || earlier.pattern == v.pattern;
                if (seen) continue;
                for (Target& t : v.targets)
                    if (!pass)
                        t.flips = TileTransform::from_flip_bits(t.flips).then(tr).flip_bits();
                v.variant = std::string(tr.mirrored ? "m" : "") +
                            (tr.mirrored && tr.quarter_turns ? " " : "") +
                            (tr.quarter_turns ? "r" + std::to_string(90 * tr.quarter_turns) : "");
                v.identity = hash_string(canonical + " @" + v.variant);
                variants.push_back(std::move(v));
            }
        }
        for (Rule& v : variants) {
            if (pass) {
                pass->ordered.push_back(std::move(v));
                pass->targets.push_back(class_targets);
            } else {
                rules.push_back(std::move(v));
            }
        }
    }
    for (ClassPass& p : file.passes)
        order_pass(p);
    return file;
}

void check_corner_layers(std::span<const Rule> rules, Diagnostics& diags) {
    // Per layer (by name, in order of first appearance): the first rule's kind.
    std::vector<std::pair<std::string, const Rule*>> first;
    for (const Rule& rule : rules) {
        if (!rule.variant.empty()) continue; // variants share their source's size
        auto it = std::find_if(first.begin(), first.end(),
                               [&](const auto& f) { return f.first == rule.layer; });
        if (it == first.end()) {
            first.emplace_back(rule.layer, &rule);
            continue;
        }
        const Rule& head = *it->second;
        if (head.pattern.corner() == rule.pattern.corner()) continue;
        const std::string size = std::to_string(rule.pattern.size());
        const std::string where = head.file + ":" + std::to_string(head.line);
        diags.push_back(error_at(
            rule.file, rule.line, rule.column,
            head.pattern.corner()
                ? "a " + size + "x" + size + " pattern in corner layer '" + rule.layer +
                      "' (its first rule, " + where +
                      ", is 2x2): a layer's rules are all 2x2 corner patterns or none are; a "
                      "corner layer's catch-all is '?? ??'"
                : "a 2x2 corner pattern in layer '" + rule.layer + "' of " +
                      std::to_string(head.pattern.size()) + "x" +
                      std::to_string(head.pattern.size()) + " rules (its first rule is " + where +
                      "): a layer's rules are all 2x2 corner patterns or none are; put corner "
                      "rules in a layer of their own ([name])"));
    }
}

} // namespace tilegen
