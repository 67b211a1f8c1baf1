#include "core/recipe/search_parser.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/recipe/recipe.hpp"

namespace tilegen {

std::string search_value_text(const SearchRange& range, double value) {
    char buf[40];
    if (range.integer)
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(std::llround(value)));
    else
        std::snprintf(buf, sizeof buf, "%.17g", value);
    return buf;
}

std::optional<std::string> apply_search_values(std::string_view text,
                                               const std::vector<SearchRange>& ranges,
                                               const std::vector<double>& values) {
    toml::table root;
    try {
        root = toml::parse(text);
    } catch (const toml::parse_error&) {
        return std::nullopt;
    }
    root.erase("search");
    for (std::size_t i = 0; i < ranges.size() && i < values.size(); ++i) {
        toml::node* node = root.at_path(ranges[i].path).node();
        if (!node) return std::nullopt;
        if (auto* v = node->as_integer())
            *v = static_cast<std::int64_t>(std::llround(values[i]));
        else if (auto* f = node->as_floating_point())
            *f = values[i];
        else
            return std::nullopt;
    }
    std::ostringstream out;
    out << root;
    return out.str();
}

std::optional<SearchSettings> parse_search(TomlReader& reader, const toml::table& root,
                                           std::string_view text) {
    const toml::table* t = reader.table(root, "search", "");
    if (!t) return std::nullopt;
    reader.reject_unknown_keys(*t, "search", {"generations", "population", "weights", "ranges"});
    SearchSettings s;
    s.line = static_cast<int>(t->source().begin.line);
    s.column = static_cast<int>(t->source().begin.column);
    s.generations = static_cast<int>(reader.integer(*t, "generations", "search", 4, 1, 100));
    s.population = static_cast<int>(reader.integer(*t, "population", "search", 6, 2, 64));
    if (const toml::table* w = reader.table(*t, "weights", "search")) {
        reader.reject_unknown_keys(*w, "search.weights",
                                   {"accessibility", "obstacle_edges", "fairness"});
        s.weight_accessibility = reader.number(*w, "accessibility", "search.weights", 1, 0, 100);
        s.weight_obstacle_edges = reader.number(*w, "obstacle_edges", "search.weights", 1, 0, 100);
        s.weight_fairness = reader.number(*w, "fairness", "search.weights", 1, 0, 100);
    }
    const toml::table* ranges = reader.table(*t, "ranges", "search");
    if (!ranges || ranges->empty()) {
        reader.error(ranges ? ranges->source() : t->source(),
                     "[search] needs [search.ranges]: \"PATH\" = [LOW, HIGH] per parameter");
        return s;
    }
    if (ranges->size() > 32)
        reader.error(ranges->source(), "[search.ranges] has " + std::to_string(ranges->size()) +
                                           " parameters, at most 32");
    for (const auto& [key, node] : *ranges) {
        if (!reader.ok()) break;
        SearchRange r;
        r.path = std::string(key.str());
        r.line = static_cast<int>(node.source().begin.line);
        r.column = static_cast<int>(node.source().begin.column);
        const std::string name = "'search.ranges.\"" + r.path + "\"'";
        const toml::array* pair = node.as_array();
        if (!pair || pair->size() != 2 || !pair->get(0)->is_number() ||
            !pair->get(1)->is_number()) {
            reader.error(node, name + " must be [LOW, HIGH] (two numbers)");
            continue;
        }
        r.low = pair->get(0)->value<double>().value_or(0);
        r.high = pair->get(1)->value<double>().value_or(0);
        if (!(r.low <= r.high)) {
            reader.error(node, name + " is [" + std::to_string(r.low) + ", " +
                                   std::to_string(r.high) + "]: LOW must not exceed HIGH");
            continue;
        }
        const std::string head = r.path.substr(0, r.path.find_first_of(".["));
        if (head == "map" || head == "search") {
            reader.error(node, name + ": [" + head + "] values are not searched (the seed is " +
                                   "kept as given; derived seeds come from [constraints] tries)");
            continue;
        }
        const toml::node* target = root.at_path(r.path).node();
        if (!target || !target->is_number()) {
            reader.error(node, name + ": the recipe sets no number at '" + r.path + "'");
            continue;
        }
        r.integer = target->is_integer();
        r.initial = std::clamp(target->value<double>().value_or(r.low), r.low, r.high);
        s.ranges.push_back(r);
    }
    if (!reader.ok()) return s;
    // Each end written into the recipe must give a valid recipe.
    for (std::size_t i = 0; i < s.ranges.size(); ++i)
        for (double end : {s.ranges[i].low, s.ranges[i].high}) {
            std::vector<double> values;
            for (const SearchRange& r : s.ranges)
                values.push_back(r.initial);
            values[i] = end;
            const auto changed = apply_search_values(text, s.ranges, values);
            Diagnostics inner;
            if (changed && parse_recipe(*changed, reader.path(), inner)) continue;
            const std::string why = inner.empty() ? "the recipe cannot hold it" : inner[0].message;
            reader.error(ranges->get(s.ranges[i].path)->source(),
                         "'search.ranges.\"" + s.ranges[i].path + "\"' at " +
                             search_value_text(s.ranges[i], end) + ": " + why);
            break;
        }
    return s;
}

} // namespace tilegen
