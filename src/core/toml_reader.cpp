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

const toml::table* TomlReader::table(const toml::table& parent, std::string_view key,
                                     std::string_view prefix) {
    const toml::node* n = parent.get(key);
    if (!n) return nullptr;
    if (const toml::table* t = n->as_table()) return t;
    error(*n, "'" + qualified(prefix, key) + "' must be a table, not " + toml_type_name(n->type()));
    return nullptr;
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
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    double value;
    if (const auto* f = n->as_floating_point()) {
        value = f->get();
    } else if (const auto* i = n->as_integer()) {
        value = static_cast<double>(i->get());
    } else {
        error(*n, "'" + qualified(prefix, key) + "' must be a number, not " +
                      toml_type_name(n->type()));
        return fallback;
    }
    if (!std::isfinite(value) || value < min || value > max) {
        error(*n, "'" + qualified(prefix, key) + "' is " + number_text(value) + ", expected " +
                      number_text(min) + " to " + number_text(max));
        return fallback;
    }
    return value;
}

std::string TomlReader::string(const toml::table& t, std::string_view key, std::string_view prefix,
                               std::string fallback) {
    const toml::node* n = t.get(key);
    if (!n) return fallback;
    const auto* v = n->as_string();
    if (!v) {
        error(*n, "'" + qualified(prefix, key) + "' must be a string, not " +
                      toml_type_name(n->type()));
        return fallback;
    }
    return v->get();
}

std::string TomlReader::choice(const toml::table& t, std::string_view key, std::string_view prefix,
                               std::string fallback,
                               std::initializer_list<std::string_view> choices) {
    std::string value = string(t, key, prefix, fallback);
    for (auto c : choices)
        if (value == c) return value;
    std::string list;
    for (auto c : choices)
        list += (list.empty() ? "\"" : ", \"") + std::string(c) + "\"";
    error(where(t, key),
          "'" + qualified(prefix, key) + "' is \"" + value + "\", expected one of " + list);
    return fallback;
}

} // namespace tilegen
