// Fuzz target: Tiled maps read back as class maps: io::read_class_map on the input written to a
// .tmx file. Input: the TMX text, optionally followed by a NUL byte and the text of the external
// tileset "fuzz.tsx" it may refer to (without one, a fixed small TSX with terrain properties and a
// Wang set is used). The layer name after ':' is fixed ("ground") on inputs whose length is odd, so
// both the default and named-layer paths run. Properties: no crash/UB/leak; failures come with
// errors; a map that reads has known classes only.
#include <cstdint>
#include <cstring>

#include "fuzz_recipe.hpp"
#include "io/class_map_reader.hpp"

using namespace tilegen;

namespace {

const char* kDefaultTsx = R"(<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" name="fuzz" tilewidth="8" tileheight="8" tilecount="4" columns="4">
 <image source="fuzz-tiles.png" width="32" height="8"/>
 <tile id="0"><properties><property name="terrain" value="water"/></properties></tile>
 <tile id="1"><properties><property name="terrain" value="s"/></properties></tile>
 <wangsets>
  <wangset name="terrain" type="mixed" tile="-1">
   <wangcolor name="water" color="#3060c0" tile="-1" probability="1"/>
   <wangcolor name="grass" color="#40a040" tile="-1" probability="1"/>
   <wangtile tileid="2" wangid="2,2,2,2,2,2,2,2"/>
   <wangtile tileid="3" wangid="1,2,1,2,1,1,1,1"/>
  </wangset>
 </wangsets>
</tileset>
)";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 256 * 1024) return -1;
    static const fuzz::ScratchDir dir;
    const std::string_view input = fuzz::text_of(data, size);
    const std::size_t nul = input.find('\0');
    const std::string_view tmx = input.substr(0, nul);
    const std::string_view tsx =
        nul == std::string_view::npos ? std::string_view(kDefaultTsx) : input.substr(nul + 1);
    dir.write("fuzz.tsx", tsx);
    const auto path = dir.write("fuzz.tmx", tmx);
    Diagnostics diags;
    const std::string spec = path.string() + (size % 2 ? ":ground" : "");
    std::optional<ClassGrid> grid = io::read_class_map(spec, fuzz::class_map_recipe(), diags);
    fuzz::check_diagnostics(grid.has_value(), diags);
    if (!grid) return 0;
    FUZZ_CHECK(grid->width() >= 1 && grid->height() >= 1, "a class map has cells");
    for (ClassId c : grid->cells())
        FUZZ_CHECK(c < 3, "known classes only");
    return 0;
}
