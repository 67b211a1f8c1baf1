// Fuzz target: hand-drawn text class maps (parse_class_map). Properties: no crash/UB/leak; failures
// come with errors; a map that parses has cells of known classes only and survives class_map_text
// -> parse unchanged.
#include <cstdint>

#include "core/classes/class_map_text.hpp"
#include "fuzz_support.hpp"

using namespace tilegen;

namespace {
const std::string kSymbols = "wsgdpfWDmr";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 256 * 1024) return -1;
    static const SymbolTable symbols = [] {
        SymbolTable t;
        for (std::size_t i = 0; i < kSymbols.size(); ++i)
            t[kSymbols[i]] = static_cast<int>(i);
        return t;
    }();
    Diagnostics diags;
    std::optional<ClassGrid> grid =
        parse_class_map(fuzz::text_of(data, size), "fuzz/classes.txt", symbols, diags);
    fuzz::check_diagnostics(grid.has_value(), diags);
    if (!grid) return 0;
    FUZZ_CHECK(grid->width() >= 1 && grid->height() >= 1, "a class map has cells");
    for (ClassId c : grid->cells())
        FUZZ_CHECK(c < kSymbols.size(), "known classes only");
    const std::string again = class_map_text(*grid, kSymbols);
    Diagnostics d2;
    std::optional<ClassGrid> reparsed = parse_class_map(again, "fuzz/again.txt", symbols, d2);
    FUZZ_CHECK(reparsed && *reparsed == *grid, "class_map_text round trip");
    return 0;
}
