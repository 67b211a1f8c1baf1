#include "app/options.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>
#include <stdexcept>

#include "app/cli.hpp"
#include "app/commands.hpp"

namespace tilegen::app {

namespace {

constexpr std::size_t kColumns = 100; // every line of help fits in this many columns
constexpr std::size_t kMaxLabel = 32; // longer option labels put their help on the next line
const Option kHelpOption{{"-h", "--help"}, "", "this help"};

std::string label(const Option& o) {
    std::string s = "  ";
    for (std::size_t i = 0; i < o.names.size(); ++i)
        s += (i ? ", " : "") + o.names[i];
    return o.value.empty() ? s : s + " " + o.value;
}

const Option* lookup(const CommandSpec& spec, const std::string& name) {
    for (const Option& o : spec.options)
        if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) return &o;
    return nullptr;
}

std::string join_quoted(const std::vector<std::string>& words) {
    std::string s;
    for (std::size_t i = 0; i < words.size(); ++i)
        s += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
    return s;
}

} // namespace

Check any_text() {
    return {"any text", [](const std::string&) { return true; }};
}

Check non_empty(std::string takes) {
    return {std::move(takes), [](const std::string& v) { return !v.empty(); }};
}

Check whole_number(long long lo, long long hi) {
    std::string takes =
        hi == kNoLimit ? "a whole number >= " + std::to_string(lo)
                       : "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    return {std::move(takes), [lo, hi](const std::string& v) {
                const auto n = parse_integer(v);
                return n && *n >= lo && *n <= hi;
            }};
}

Check cell_size() {
    return {"WxH with both from 1 to 65536",
            [](const std::string& v) { return parse_size(v).has_value(); }};
}

Check one_of(std::vector<std::string> choices) {
    return {join_quoted(choices), [choices](const std::string& v) {
                return std::find(choices.begin(), choices.end(), v) != choices.end();
            }};
}

Check file_ending(std::vector<std::string> exts) {
    std::string takes = "a " + join_quoted(exts) + " file";
    return {std::move(takes), [exts](const std::string& v) {
                const std::string ext = std::filesystem::path(v).extension().string();
                return std::find(exts.begin(), exts.end(), ext) != exts.end();
            }};
}

Check custom(std::string takes, std::function<bool(const std::string&)> valid) {
    return {std::move(takes), std::move(valid)};
}

Option recipe_seed_option() {
    return {{"--seed"}, "N", "seed (default: the recipe's [map] seed)", whole_number(0, kNoLimit)};
}

Option recipe_size_option() {
    return {{"--size"},
            "WxH",
            "map size in cells (default: the recipe's [map] width and height)",
            cell_size()};
}

Option threads_option() {
    return {{"--threads"},
            "N",
            "worker threads (default: all hardware threads); the output is the same for any N",
            whole_number(1, 256)};
}

Option max_memory_option() {
    return {{"--max-memory"},
            "GIB",
            "refuse runs whose memory estimate is larger (default 8)",
            custom("a number of GiB, e.g. 16", [](const std::string& v) {
                const auto x = parse_real(v);
                return x && *x > 0 && *x < 1e6;
            })};
}

const Option& CommandLine::find(const std::string& name) const {
    const Option* o = lookup(*spec_, name);
    if (!o) throw std::logic_error("tilegen " + spec_->name + " has no option '" + name + "'");
    return *o;
}

bool CommandLine::has(const std::string& name) const {
    const Option* o = &find(name);
    return std::any_of(values_.begin(), values_.end(), [o](const auto& v) { return v.first == o; });
}

std::optional<std::string> CommandLine::text(const std::string& name) const {
    const Option* o = &find(name);
    for (auto it = values_.rbegin(); it != values_.rend(); ++it) // the last one given counts
        if (it->first == o) return it->second;
    return std::nullopt;
}

std::optional<long long> CommandLine::integer(const std::string& name) const {
    const auto v = text(name);
    return v ? parse_integer(*v) : std::nullopt;
}

std::optional<double> CommandLine::real(const std::string& name) const {
    const auto v = text(name);
    return v ? parse_real(*v) : std::nullopt;
}

std::optional<std::pair<int, int>> CommandLine::size(const std::string& name) const {
    const auto v = text(name);
    return v ? parse_size(*v) : std::nullopt;
}

Parsed parse_command_line(const CommandSpec& spec, const Args& args) {
    CommandLine line(spec);
    auto fail = [&](const std::string& message) {
        return Parsed{std::nullopt, usage_error(spec.name, message)};
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            std::cout << help_text(spec);
            return Parsed{std::nullopt, kExitOk};
        }
        const bool looks_like_option = a.size() > 1 && a[0] == '-' &&
                                       !(spec.negative_numbers_are_operands && parse_integer(a));
        if (!looks_like_option) {
            line.operands.push_back(a);
            if (spec.max_operands == 1 && line.operands.size() > 1)
                return fail("more than one " + spec.operand_noun + " given ('" + line.operands[0] +
                            "' and '" + a + "')");
            continue;
        }
        const Option* o = lookup(spec, a);
        if (!o) return fail("unknown option '" + a + "'");
        std::string value;
        if (!o->value.empty()) {
            if (i + 1 >= args.size()) return fail(a + " needs a value");
            value = args[++i];
            if (!o->check.valid(value))
                return fail(a + " takes " + o->check.takes + ", not '" + value + "'");
        }
        if (o->once && line.has(a)) return fail(a + " is given twice");
        line.values_.emplace_back(o, value);
    }
    const std::size_t n = line.operands.size();
    if (n < spec.min_operands || n > spec.max_operands)
        return fail(n < spec.min_operands && spec.max_operands == 1
                        ? "missing " + spec.operands
                        : "expected " + spec.operands + ", not " + std::to_string(n) + " argument" +
                              (n == 1 ? "" : "s"));
    for (const Option& o : spec.options)
        if (o.required && !line.has(o.names.front()))
            return fail(o.names.front() + " " + o.value + " is required");
    for (const Constraint& c : spec.constraints) {
        if (!line.has(c.option)) continue;
        const bool excludes = c.kind == Constraint::excludes;
        if (line.has(c.other) != excludes) continue;
        return fail(c.option +
                    (excludes ? " and " + c.other + " exclude each other" : " needs " + c.other) +
                    (c.why.empty() ? "" : " (" + c.why + ")"));
    }
    return Parsed{std::move(line), kExitOk};
}

std::vector<std::string> wrap_words(const std::string& text, std::size_t width) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string paragraph = text.substr(start, end - start);
        std::string line;
        std::size_t p = 0;
        while (p < paragraph.size()) {
            const std::size_t space = std::min(paragraph.find(' ', p), paragraph.size());
            const std::string word = paragraph.substr(p, space - p);
            p = space + 1;
            if (word.empty()) continue;
            if (!line.empty() && line.size() + 1 + word.size() > width) {
                lines.push_back(line);
                line.clear();
            }
            line += (line.empty() ? "" : " ") + word;
        }
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

std::string usage_line(const CommandSpec& spec, std::size_t indent) {
    const std::string head = "tilegen " + spec.name;
    std::vector<std::string> items;
    if (!spec.operands.empty()) items.push_back(spec.operands);
    for (const Option& o : spec.options) {
        if (o.group != 0) continue;
        const std::string item = o.names.front() + (o.value.empty() ? "" : " " + o.value);
        items.push_back(o.required ? item : "[" + item + "]");
    }
    const std::string pad(indent + head.size() + 1, ' ');
    std::string out = head;
    std::size_t column = indent + head.size();
    for (const std::string& item : items) {
        if (column + 1 + item.size() > kColumns) {
            out += "\n" + pad + item;
            column = pad.size() + item.size();
        } else {
            out += " " + item;
            column += 1 + item.size();
        }
    }
    return out;
}

std::string help_text(const CommandSpec& spec) {
    std::string out = "Usage: " + usage_line(spec, 7) + "\n\n" + spec.about;
    std::size_t column = label(kHelpOption).size() + 2;
    for (const Option& o : spec.options)
        if (label(o).size() + 2 <= kMaxLabel) column = std::max(column, label(o).size() + 2);
    for (std::size_t g = 0; g < spec.groups.size(); ++g) {
        out += "\n" + spec.groups[g] + "\n";
        std::vector<const Option*> shown;
        for (const Option& o : spec.options)
            if (o.group == static_cast<int>(g)) shown.push_back(&o);
        if (g == 0) shown.push_back(&kHelpOption);
        for (const Option* o : shown) {
            std::string l = label(*o);
            if (l.size() + 2 > column) {
                out += l + "\n";
                l.clear();
            }
            l.resize(column, ' ');
            for (const std::string& h : wrap_words(o->help, kColumns - column)) {
                out += l + h + "\n";
                l.assign(column, ' ');
            }
        }
    }
    if (!spec.epilogue.empty()) out += "\n" + spec.epilogue;
    return out;
}

} // namespace tilegen::app
