// Golden files of the map writer: tests/data/writer-<tmx|tmj>-<finite|infinite>-<external|
// embedded>[-base64]/ hold what write_tmx_bundle writes for the hand-built map of
// writer_sample.hpp: the map (map.tmx / map.tmj), the tilesets beside it when external (map.tsx /
// map.tsj and map-objects.*), and the images (map-tiles.png, map-objects.png), so each folder opens
// in Tiled as it is (tests/app/tiled_formats_test.cpp has Tiled render and export every one). Text
// files must match byte for byte, images pixel for pixel, and no file may be missing or extra. Set
// TILEGEN_UPDATE_GOLDEN=1 to rewrite the folders from the current output (then review the diff).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "io/png.hpp"
#include "io/writer_sample.hpp"
#include "test_support.hpp"

using namespace tilegen;
namespace fs = std::filesystem;

namespace {

std::set<std::string> files_in(const fs::path& dir) {
    std::set<std::string> out;
    if (fs::is_directory(dir))
        for (const auto& e : fs::directory_iterator(dir))
            out.insert(e.path().filename().string());
    return out;
}

bool same_image(const fs::path& a, const fs::path& b) {
    Diagnostics d;
    const auto x = io::load_image(a, d), y = io::load_image(b, d);
    if (!x || !y || x->width() != y->width() || x->height() != y->height()) return false;
    for (int j = 0; j < x->height(); ++j)
        for (int i = 0; i < x->width(); ++i)
            if (!(x->get(i, j) == y->get(i, j))) return false;
    return true;
}

} // namespace

TEST_CASE("map writer golden files: TMX/TMJ x finite/infinite x external/embedded") {
    const fs::path data = test::source_dir() / "tests" / "data";
    const bool update = std::getenv("TILEGEN_UPDATE_GOLDEN") != nullptr;
    for (const test::WriterCase& c : test::writer_cases()) {
        INFO("golden case " << c.dir);
        test::TempDir out;
        Diagnostics diags;
        REQUIRE(test::write_writer_case(c, out.path(), 3, diags));
        CHECK(diags.empty());
        const fs::path golden = data / c.dir;
        if (update) {
            fs::remove_all(golden);
            fs::create_directories(golden);
            for (const std::string& f : files_in(out.path()))
                fs::copy_file(out / f, golden / f);
            continue;
        }
        REQUIRE(files_in(golden) == files_in(out.path()));
        for (const std::string& f : files_in(golden)) {
            CAPTURE(f);
            if (f.ends_with(".png"))
                CHECK(same_image(golden / f, out / f));
            else
                CHECK(test::read_text(golden / f) == test::read_text(out / f));
        }
    }
}

namespace {

// A tileset file's root element as the map embeds it: without the XML declaration, firstgid for
// the version attributes, every line indented by one space.
std::string embedded_form(std::string tsx, int firstgid) {
    tsx = tsx.substr(tsx.find('\n') + 1);
    const std::string version = " version=\"1.8\" tiledversion=\"1.8.2\"";
    tsx.replace(tsx.find(version), version.size(),
                " firstgid=\"" + std::to_string(firstgid) + "\"");
    std::string out;
    for (std::size_t p = 0; p < tsx.size();) {
        const std::size_t e = tsx.find('\n', p);
        out += " " + tsx.substr(p, e - p + 1);
        p = e + 1;
    }
    return out;
}

} // namespace

TEST_CASE("golden cases: an embedded tileset is the external file's element, inside the map") {
    // The external and embedded maps differ only in <tileset source=..> against the element.
    const fs::path data = test::source_dir() / "tests" / "data";
    for (const std::string kind : {"finite", "infinite"}) {
        CAPTURE(kind);
        const fs::path external = data / ("writer-tmx-" + kind + "-external");
        std::string map = test::read_text(data / ("writer-tmx-" + kind + "-embedded") / "map.tmx");
        const std::pair<const char*, int> tilesets[] = {{"map.tsx", 1}, {"map-objects.tsx", 5}};
        for (const auto& [file, firstgid] : tilesets) {
            if (!fs::exists(external / file)) continue; // infinite maps have no objects
            const std::string element = embedded_form(test::read_text(external / file), firstgid);
            const auto at = map.find(element);
            REQUIRE(at != std::string::npos);
            map.replace(at, element.size(),
                        " <tileset firstgid=\"" + std::to_string(firstgid) + "\" source=\"" + file +
                            "\"/>\n");
        }
        CHECK(map == test::read_text(external / "map.tmx"));
    }
}
