// Checked reading of TOML documents: every problem becomes a Diagnostic at the value's line:column.
// Unknown keys and wrong types are errors; numbers outside their documented range are errors.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <toml++/toml.h>

#include "core/diagnostic.hpp"

namespace tilegen {

class TomlReader {
  public:
    TomlReader(std::string path, Diagnostics& diags) : path_(std::move(path)), diags_(diags) {}

    // Parses text; on a syntax error appends "path:line:col: error: ..." and returns nullopt.
    [[nodiscard]] std::optional<toml::table> parse(std::string_view text);

    const std::string& path() const { return path_; }
    void error(const toml::source_region& where, std::string message);
    void error(const toml::node& where, std::string message) {
        error(where.source(), std::move(message));
    }

    // Reports keys of `table` not in `allowed` (prefix names the table in messages, e.g. "map").
    void reject_unknown_keys(const toml::table& table, std::string_view prefix,
                             std::initializer_list<std::string_view> allowed);

    // A sub-table; nullptr (and an error if present with another type) when missing.
    const toml::table* table(const toml::table& parent, std::string_view key,
                             std::string_view prefix);

    // Typed values with defaults and ranges. Missing -> default; wrong type or out of range ->
    // error, default.
    long long integer(const toml::table& t, std::string_view key, std::string_view prefix,
                      long long fallback, long long min, long long max);
    double number(const toml::table& t, std::string_view key, std::string_view prefix,
                  double fallback, double min, double max);
    std::string string(const toml::table& t, std::string_view key, std::string_view prefix,
                       std::string fallback);
    // Like string(), but must be one of `choices`.
    std::string choice(const toml::table& t, std::string_view key, std::string_view prefix,
                       std::string fallback, std::initializer_list<std::string_view> choices);

    // The location of a key's value, or of the table when the key is missing.
    static toml::source_region where(const toml::table& t, std::string_view key);

  private:
    std::string path_;
    Diagnostics& diags_;
};

std::string toml_type_name(toml::node_type type);

} // namespace tilegen
