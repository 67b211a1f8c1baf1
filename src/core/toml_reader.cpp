#include "core/toml_reader.hpp"

#include <cmath>
#include <sstream>

namespace tilegen {

namespace {
std::string qualified(std::string_view prefix, std::string_view key) {
    return prefix.empty() ? std::string(key) : std::string(prefix) + "." + std::string(key);
}
std::string number_text(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}
} // namespace

// A lookup, one case per type: the cases share their shape, not logic (deliberate).
std::string toml_type_name(toml::node_type type) {
    switch (type) {
    case toml::node_type::table:
        return "a table";
    case toml::node_type::array:
        return "an array";
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a number";
    case toml::node_type::boolean:
        return "a boolean";
    case toml::node_type::date:
        return "a date";
    case toml::node_type::time:
        return "a time";
    case toml::node_type::date_time:
        return "a date-time";
    default:
        return "nothing";
    }
}

std::optional<toml::table> TomlReader::parse(std::string_view text) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    try {
        return toml::parse(text, path_);
    } catch (const toml::parse_error& e) {
        error(e.source(), std::string(e.description()));
        return std::nullopt;
    }
}

void TomlReader::error(const toml::source_region& where, std::string message) {
    ++errors_;
    diags_.push_back(error_at(path_, static_cast<int>(where.begin.line),
                              static_cast<int>(where.begin.column), std::move(message)));
}

toml::source_region TomlReader::where(const toml::table& t, std::string_view key) {
    if (const toml::node* n = t.get(key)) return n->source();
    return t.source();
}

void TomlReader::reject_unknown_keys(const toml::table& table, std::string_view prefix,
                                     std::initializer_list<std::string_view> allowed) {
    for (const auto& [key, node] : table) {
        bool known = false;
        for (auto a : allowed)
            known = known || key.str() == a;
        if (known) continue;
        std::string list;
        for (auto a : allowed)
            list += (list.empty() ? "" : ", ") + std::string(a);
        error(key.source(),
              "unknown key '" + qualified(prefix, key.str()) + "'" +
                  (list.empty() ? std::string() : " (expected one of: " + list + ")"));
    }
}

bool TomlReader::require(const toml::table& t, std::string_view key, std::string_view what,
                         std::string_view detail) {
    if (t.contains(key)) return true;
    error(t.source(),
          std::string(what) + " needs '" + std::string(key) + "'" + std::string(detail));
    return false;
}

const toml::node* TomlReader::node_of_kind(const toml::table& parent, std::string_view key,
                                           std::string_view prefix, bool (*fits)(const toml::node&),
                                           const std::string& kind) {
    const toml::node* n = parent.get(key);
    if (!n || fits(*n)) return n;
    error(*n, "'" + qualified(prefix, key) + "' must be " + kind + ", not " +
                  toml_type_name(n->type()));
    return nullptr;
}

const toml::array* TomlReader::array(const toml::table& parent, std::string_view key,
                                     std::string_view prefix) {
    const toml::node* n = node_of_kind(
        parent, key, prefix, [](const toml::node& v) { return v.is_array(); }, "an array");
    return n ? n->as_array() : nullptr;
}

const toml::array* TomlReader::table_array(const toml::table& parent, std::string_view key,
                                           std::string_view prefix) {
    const toml::node* n = node_of_kind(
        parent, key, prefix, [](const toml::node& v) { return v.is_array_of_tables(); },
        "an array of tables ([[" + qualified(prefix, key) + "]])");
    return n ? n->as_array() : nullptr;
}

const toml::table* TomlReader::table(const toml::table& parent, std::string_view key,
                                     std::string_view prefix) {
    const toml::node* n = node_of_kind(
        parent, key, prefix, [](const toml::node& v) { return v.is_table(); }, "a table");
    return n ? n->as_table() : nullptr;
}

long long TomlReader::integer(const toml::table& t, std::string_view key, std::string_view prefix,
                              long long fallback, long long min, long long max) {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    const auto* v = n->as_integer();
    if (!v) {
        error(*n, "'" + qualified(prefix, key) + "' must be an integer, not " +
                      toml_type_name(n->type()));
        return fallback;
    }
    long long value = v->get();
    if (value < min || value > max) {
        error(*n, "'" + qualified(prefix, key) + "' is " + std::to_string(value) + ", expected " +
                      std::to_string(min) + " to " + std::to_string(max));
        return fallback;
    }
    return value;
}

double TomlReader::number(const toml::table& t, std::string_view key, std::string_view prefix,
                          double fallback, double min, double max) {
    return number_in(t, key, prefix, fallback, min, max, false);
}

double TomlReader::number_above(const toml::table& t, std::string_view key, std::string_view prefix,
                                double fallback, double min, double max) {
    return number_in(t, key, prefix, fallback, min, max, true);
}

double TomlReader::number_in(const toml::table& t, std::string_view key, std::string_view prefix,
                             double fallback, double min, double max, bool min_excluded) {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    const std::optional<double> value = number_value(*n, key, prefix);
    if (!value) return fallback;
    if (!std::isfinite(*value) || *value < min || (min_excluded && *value == min) || *value > max) {
        error(*n, "'" + qualified(prefix, key) + "' is " + number_text(*value) + ", expected " +
                      (min_excluded ? "more than " + number_text(min) + " and at most "
                                    : number_text(min) + " to ") +
                      number_text(max));
        return fallback;
    }
    return *value;
}

std::optional<double> TomlReader::number_value(const toml::node& n, std::string_view key,
                                               std::string_view prefix) {
    if (const auto* f = n.as_floating_point()) return f->get();
    if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
    error(n, "'" + qualified(prefix, key) + "' must be a number, not " + toml_type_name(n.type()));
    return std::nullopt;
}

bool TomlReader::boolean(const toml::table& t, std::string_view key, std::string_view prefix,
                         bool fallback) {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    if (const auto* v = n->as_boolean()) return v->get();
    error(*n, "'" + qualified(prefix, key) + "' must be true or false, not " +
                  toml_type_name(n->type()));
    return fallback;
}

std::optional<std::string> TomlReader::string(const toml::table& t, std::string_view key,
                                              std::string_view prefix) {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    const auto* v = n->as_string();
    if (!v) {
        error(*n, "'" + qualified(prefix, key) + "' must be a string, not " +
                      toml_type_name(n->type()));
        return std::nullopt;
    }
    return v->get();
}

std::string TomlReader::string(const toml::table& t, std::string_view key, std::string_view prefix,
                               std::string fallback) {
    return string(t, key, prefix).value_or(std::move(fallback));
}

LocatedString TomlReader::required_string(const toml::table& t, std::string_view key,
                                          std::string_view prefix, const std::string& missing) {
    if (!t.get(key)) error(t.source(), missing);
    const toml::source_region at = where(t, key);
    return {string(t, key, prefix, ""), static_cast<int>(at.begin.line),
            static_cast<int>(at.begin.column)};
}

std::string TomlReader::choice(const toml::table& t, std::string_view key, std::string_view prefix,
                               std::string fallback,
                               std::initializer_list<std::string_view> choices) {
    std::string value = string(t, key, prefix, fallback);
    for (auto c : choices)
        if (value == c) return value;
    unknown_choice(t, key, prefix, value, std::vector<std::string_view>(choices));
    return fallback;
}

void TomlReader::unknown_choice(const toml::table& t, std::string_view key, std::string_view prefix,
                                const std::string& value,
                                const std::vector<std::string_view>& choices) {
    std::string list;
    for (auto c : choices)
        list += (list.empty() ? "\"" : ", \"") + std::string(c) + "\"";
    error(where(t, key),
          "'" + qualified(prefix, key) + "' is \"" + value + "\", expected one of " + list);
}

} // namespace tilegen
