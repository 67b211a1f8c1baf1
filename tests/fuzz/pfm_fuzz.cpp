// Fuzz target: PFM heightfields (io::parse_pfm). Properties: no crash/UB/leak; failures come with
// errors; a heightfield that parses has the header's size and survives pfm_bytes -> parse_pfm bit
// for bit.
#include <cstdint>
#include <cstring>

#include "fuzz_support.hpp"
#include "io/heightfield_files.hpp"

using namespace tilegen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 1024 * 1024) return -1;
    Diagnostics diags;
    const std::optional<Grid<float>> g =
        io::parse_pfm(fuzz::text_of(data, size), "fuzz.pfm", diags);
    fuzz::check_diagnostics(g.has_value(), diags);
    if (!g) return 0;
    FUZZ_CHECK(g->width() >= 1 && g->height() >= 1, "a heightfield has cells");
    Diagnostics d2;
    const std::optional<Grid<float>> again = io::parse_pfm(io::pfm_bytes(*g), "again.pfm", d2);
    FUZZ_CHECK(again && again->width() == g->width() && again->height() == g->height(),
               "pfm round trip size");
    FUZZ_CHECK(std::memcmp(again->cells().data(), g->cells().data(), g->size() * sizeof(float)) ==
                   0,
               "pfm round trip bits");
    return 0;
}
