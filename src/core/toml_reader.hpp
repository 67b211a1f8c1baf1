// Checked reading of TOML documents: every problem becomes a Diagnostic at the value's line:column.
// Unknown keys and wrong types are errors; numbers outside their documented range are errors.
// The one TOML reader of the project: recipes, tileset manifests, sprite sheets and paint
// descriptions all read through it. Getters never throw; on an error they return the fallback.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "core/diagnostic.hpp"

namespace tilegen {

// A string value and where it stands (1-based; the table's position when the key is missing), for
// later messages about what it names.
struct LocatedString {
    std::string value;
    int line = 0;
    int column = 0;
};

class TomlReader {
  public:
    TomlReader(std::string path, Diagnostics& diags) : path_(std::move(path)), diags_(diags) {}

    // Parses text (a leading UTF-8 byte order mark is skipped); on a syntax error appends
    // "path:line:col: error: ..." and returns nullopt.
    [[nodiscard]] std::optional<toml::table> parse(std::string_view text);

    const std::string& path() const { return path_; }
    // True while no error has been reported through this reader.
    bool ok() const { return errors_ == 0; }
    void error(const toml::source_region& where, std::string message);
    void error(const toml::node& where, std::string message) {
        error(where.source(), std::move(message));
    }

    // Reports keys of `table` not in `allowed` (prefix names the table in messages, e.g. "map").
    void reject_unknown_keys(const toml::table& table, std::string_view prefix,
                             std::initializer_list<std::string_view> allowed);

    // Reports a missing key at the table ("<what> needs '<key>'<detail>", what e.g. "[[terrain]]");
    // true when present.
    bool require(const toml::table& t, std::string_view key, std::string_view what,
                 std::string_view detail = {});

    // A sub-table; nullptr (and an error if present with another type) when missing.
    const toml::table* table(const toml::table& parent, std::string_view key,
                             std::string_view prefix);
    // An array; nullptr (and an error if present with another type) when missing.
    const toml::array* array(const toml::table& parent, std::string_view key,
                             std::string_view prefix);
    // An array of tables ([[key]]); nullptr (and an error if present with another type) when
    // missing.
    const toml::array* table_array(const toml::table& parent, std::string_view key,
                                   std::string_view prefix);

    // Typed values with defaults and ranges. Missing -> default; wrong type or out of range ->
    // error, default.
    long long integer(const toml::table& t, std::string_view key, std::string_view prefix,
                      long long fallback, long long min, long long max);
    double number(const toml::table& t, std::string_view key, std::string_view prefix,
                  double fallback, double min, double max);
    // Like number(), but min itself is out of range: min < value <= max.
    double number_above(const toml::table& t, std::string_view key, std::string_view prefix,
                        double fallback, double min, double max);
    bool boolean(const toml::table& t, std::string_view key, std::string_view prefix,
                 bool fallback);
    std::string string(const toml::table& t, std::string_view key, std::string_view prefix,
                       std::string fallback);
    // The string when present; nullopt when missing (no error) or of another type (an error).
    std::optional<std::string> string(const toml::table& t, std::string_view key,
                                      std::string_view prefix);
    // A string the table must have: when missing, the error `missing` at the table and "".
    LocatedString required_string(const toml::table& t, std::string_view key,
                                  std::string_view prefix, const std::string& missing);
    // Like string(), but must be one of `choices`.
    std::string choice(const toml::table& t, std::string_view key, std::string_view prefix,
                       std::string fallback, std::initializer_list<std::string_view> choices);
    // A string naming one of `choices` (name -> value, e.g. an enum); missing -> fallback; another
    // type or another name -> error, fallback.
    template <class E>
    E choice(const toml::table& t, std::string_view key, std::string_view prefix, E fallback,
             std::initializer_list<std::pair<std::string_view, E>> choices) {
        const std::optional<std::string> value = string(t, key, prefix);
        if (!value) return fallback;
        std::vector<std::string_view> names;
        for (const auto& [name, e] : choices) {
            if (*value == name) return e;
            names.push_back(name);
        }
        unknown_choice(t, key, prefix, *value, names);
        return fallback;
    }

    // The location of a key's value, or of the table when the key is missing.
    static toml::source_region where(const toml::table& t, std::string_view key);

  private:
    // The node at `key` when `fits` it; else an error "'key' must be <kind>, not <its type>" and
    // nullptr; nullptr without an error when missing.
    const toml::node* node_of_kind(const toml::table& parent, std::string_view key,
                                   std::string_view prefix, bool (*fits)(const toml::node&),
                                   const std::string& kind);
    double number_in(const toml::table& t, std::string_view key, std::string_view prefix,
                     double fallback, double min, double max, bool min_excluded);
    // An integer or floating-point value as a double; an error and nullopt for other types.
    std::optional<double> number_value(const toml::node& n, std::string_view key,
                                       std::string_view prefix);
    // "'prefix.key' is "value", expected one of "a", "b"" at the key's value.
    void unknown_choice(const toml::table& t, std::string_view key, std::string_view prefix,
                        const std::string& value, const std::vector<std::string_view>& choices);

    std::string path_;
    Diagnostics& diags_;
    int errors_ = 0;
};

std::string toml_type_name(toml::node_type type);

// Parses `text` (the file at `path`) and lets read(reader, root) make a T of its top-level table:
// nullopt when the text is not TOML or any error was reported meanwhile (the diagnostics say why).
// The frame of every TOML document the project reads.
template <class T, class Read>
std::optional<T> read_toml_document(std::string_view text, const std::string& path,
                                    Diagnostics& diags, const Read& read) {
    const std::size_t before = diags.size();
    TomlReader reader(path, diags);
    const std::optional<toml::table> root = reader.parse(text);
    if (!root) return std::nullopt;
    T value = read(reader, *root);
    if (has_errors(diags, before)) return std::nullopt;
    return value;
}

} // namespace tilegen
