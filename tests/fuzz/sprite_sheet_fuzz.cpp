// Fuzz target: sprite sheet manifests (parse_sprite_sheet), then attach_sprite_image with a fixed
// image. Properties: no crash/UB/leak; failures come with errors; sizes and footprints in their
// documented ranges.
#include <cstdint>

#include "core/objects/sprite_sheet.hpp"
#include "fuzz_support.hpp"

using namespace tilegen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 64 * 1024) return -1;
    Diagnostics diags;
    std::optional<SpriteSheet> sheet =
        parse_sprite_sheet(fuzz::text_of(data, size), "fuzz/objects.toml", diags);
    fuzz::check_diagnostics(sheet.has_value(), diags);
    if (!sheet) return 0;
    FUZZ_CHECK(sheet->sprite_width >= 1 && sheet->sprite_width <= 1024, "sprite_width range");
    FUZZ_CHECK(sheet->sprite_height >= 1 && sheet->sprite_height <= 1024, "sprite_height range");
    for (const SpriteInfo& s : sheet->sprites) {
        FUZZ_CHECK(s.footprint_w >= 1 && s.footprint_w <= 16 && s.footprint_h >= 1 &&
                       s.footprint_h <= 16,
                   "footprint range");
        FUZZ_CHECK(sheet->find(s.name) != nullptr, "find() finds every sprite");
    }
    Diagnostics adiags;
    const bool attached = attach_sprite_image(*sheet, Image(128, 96, {0, 0, 0, 0}), 8, 8, adiags);
    fuzz::check_diagnostics(attached, adiags);
    return 0;
}
