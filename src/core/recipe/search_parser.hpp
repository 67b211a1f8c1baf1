// [search] (issue 17; reference 003, 4.5: search-based generation): the recipe parameters an
// evolutionary loop may vary, their ranges, and the weights of the evaluation functions.
//   [search]         generations 1..100 (4), population 2..64 (6), weights { accessibility,
//                    obstacle_edges, fairness } each 0..100 (1, 1, 1)
//   [search.ranges]  "PATH" = [LOW, HIGH], 1 to 32 of them: PATH names a number the recipe sets
//   (toml++ path syntax:
//                    "noise.scale", "maps.moisture.scale", "places[1].min_distance"); not under
//                    [map] or [search]; LOW <= HIGH; an integer in the recipe stays an integer.
//                    The recipe with either end written in must be valid (its error is reported at
//                    the range).
// Input: the reader, the document root, the recipe's text. Output: the settings (nullopt without
// [search]); errors at the offending value's line:column. apply_search_values writes values into
// the recipe's text (as TOML, [search] left out): what each individual of the search generates.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/toml_reader.hpp"

namespace tilegen {

struct SearchRange {
    std::string path; // toml++ path of the number, e.g. "noise.scale"
    double low = 0, high = 0;
    bool integer = false; // the recipe writes an integer there: values are rounded
    double initial = 0;   // the recipe's own value, clamped into [low, high]
    int line = 0, column = 0;
};

struct SearchSettings {
    int generations = 4;              // default 4, range 1..100
    int population = 6;               // default 6, range 2..64
    double weight_accessibility = 1;  // 0..100
    double weight_obstacle_edges = 1; // 0..100
    double weight_fairness = 1;       // 0..100
    std::vector<SearchRange> ranges;  // in key order (as TOML tables iterate)
    int line = 0, column = 0;         // of the [search] table
};

std::optional<SearchSettings> parse_search(TomlReader& reader, const toml::table& root,
                                           std::string_view text);

// The recipe text with each range's path set to values[i] (integers rounded) and [search] left
// out; nullopt when the text does not parse or a path names no number.
std::optional<std::string> apply_search_values(std::string_view text,
                                               const std::vector<SearchRange>& ranges,
                                               const std::vector<double>& values);

// A value as the TMX property and the recipe write it back: integers as integers, others with 17
// significant digits (read back to the same double).
std::string search_value_text(const SearchRange& range, double value);

} // namespace tilegen
