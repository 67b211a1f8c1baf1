// Fuzz target: image class maps: io::read_class_map on the input written to a .png file (SFML's
// decoder, then the palette lookup against the recipe's terrain colours). Properties: no
// crash/UB/leak; failures come with errors; a map that reads has the image's size and known classes
// only.
#include <cstdint>

#include "fuzz_recipe.hpp"
#include "io/class_map_reader.hpp"
#include "io/png.hpp"

using namespace tilegen;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 256 * 1024) return -1;
    static const fuzz::ScratchDir dir;
    const std::string_view bytes = fuzz::text_of(data, size);
    const auto path = dir.write("classes.png", bytes);
    Diagnostics diags;
    std::optional<ClassGrid> grid =
        io::read_class_map(path.string(), fuzz::class_map_recipe(), diags);
    fuzz::check_diagnostics(grid.has_value(), diags);
    if (!grid) return 0;
    for (ClassId c : grid->cells())
        FUZZ_CHECK(c < 3, "known classes only");
    Diagnostics d2;
    const std::optional<Image> image = io::decode_image(bytes, "classes.png", d2);
    FUZZ_CHECK(image && image->width() == grid->width() && image->height() == grid->height(),
               "the class map has the image's size");
    return 0;
}
