// Fuzz target: recipes (parse_recipe). Properties: no crash/UB/leak; a failure comes with an error;
// a recipe that parses keeps the documented invariants (recipe.hpp): sizes, class count, distinct
// symbols, rule files.
#include <cmath>
#include <cstdint>
#include <set>

#include "core/recipe/recipe.hpp"
#include "fuzz_support.hpp"

using namespace tilegen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 64 * 1024) return -1;
    Diagnostics diags;
    const std::optional<Recipe> recipe =
        parse_recipe(fuzz::text_of(data, size), "fuzz/recipe.toml", diags);
    fuzz::check_diagnostics(recipe.has_value(), diags);
    if (!recipe) return 0;
    const Recipe& r = *recipe;
    FUZZ_CHECK(r.map.width >= 1 && r.map.width <= 65536, "width range");
    FUZZ_CHECK(r.map.height >= 1 && r.map.height <= 65536, "height range");
    FUZZ_CHECK(r.map.seed <= (std::uint64_t{1} << 63) - 1, "seed range");
    FUZZ_CHECK(r.terrain.size() >= 2 && r.terrain.size() <= static_cast<std::size_t>(kMaxClasses),
               "class count");
    FUZZ_CHECK(!r.rules.files.empty(), "at least one rule file");
    FUZZ_CHECK(!r.maps.empty(), "at least one map");
    std::set<char> symbols;
    std::set<std::string> names;
    double shares = 0;
    for (const TerrainClass& t : r.terrain) {
        FUZZ_CHECK(is_valid_symbol(t.symbol), "valid symbol");
        FUZZ_CHECK(symbols.insert(t.symbol).second, "distinct symbols");
        FUZZ_CHECK(names.insert(t.name).second, "distinct names");
        FUZZ_CHECK(t.share >= 0 && t.share <= 1, "share range");
        shares += t.share;
    }
    if (!r.classes.biomes) FUZZ_CHECK(std::fabs(shares - 1) <= 1e-6 + 1e-12, "shares add up to 1");
    return 0;
}
