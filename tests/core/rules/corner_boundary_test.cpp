// How straight the drawn border between two terrains is: hand-made class maps of a 45-degree half
// plane and a disc of radius 20 cells, drawn with the two-terrain samples' tiles in corner mode
// (samples/two-terrain-corners.toml) and in blob mode (samples/two-terrain.toml, the article's 17
// tiles), measured in the PNG's pixels against the true line or circle.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>

#include "core/pipeline.hpp"
#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "test_support.hpp"

using namespace tilegen;

namespace {

struct Deviation {
    double max = 0, mean = 0;
    long samples = 0;
};

// Draws `classes` (0 water, 1 grass) with the sample's rules and tiles and measures, in the
// rendered picture, every boundary between a grass pixel and a water pixel (4-neighbours; a pixel
// is grass when its green exceeds its blue: true of the grass palette and its outline, false of
// the water palette and its foam): the distance in pixels from the midpoint between the two pixels
// to the true border, `distance(x, y)` in map pixels (the PNG's corner margin taken off).
Deviation measure(const char* sample, const ClassGrid& classes,
                  const std::function<double(double, double)>& distance) {
    Diagnostics d;
    auto project = io::load_project(test::source_dir() / "samples" / sample, io::DiskFiles{}, d);
    REQUIRE(project);
    GenerateOptions options;
    options.classes = classes;
    const GenerateResult r = generate_map(*project, options);
    REQUIRE(r.unmatched == 0);
    const Image png = render_map(r.map);
    const double mx = corner_margin_x(r.map), my = corner_margin_y(r.map);
    auto grass = [&](int x, int y) {
        const Rgba c = png.get(x, y);
        return c.g > c.b;
    };
    Deviation dev;
    double sum = 0;
    // The map's own pixels, but the outermost half tile: there the border follows the outside
    // policy (clamp: the edge cells repeated), not the line.
    const int tw = r.map.atlas.tile_width, th = r.map.atlas.tile_height;
    const int x0 = static_cast<int>(mx) + tw / 2, y0 = static_cast<int>(my) + th / 2;
    const int x1 = png.width() - tw / 2, y1 = png.height() - th / 2;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
            for (const auto& [dx, dy] : {std::pair{1, 0}, {0, 1}}) {
                if (x + dx >= x1 || y + dy >= y1) continue;
                if (grass(x, y) == grass(x + dx, y + dy)) continue;
                const double px = x + 0.5 + dx * 0.5 - mx, py = y + 0.5 + dy * 0.5 - my;
                const double e = std::abs(distance(px, py));
                dev.max = std::max(dev.max, e);
                sum += e;
                ++dev.samples;
            }
    dev.mean = dev.samples ? sum / static_cast<double>(dev.samples) : 0;
    return dev;
}

// What the class map itself allows: the largest distance from the true border, in pixels, of the
// midpoint between the centres of two 4-neighbour cells of different classes (where any drawing
// from the cells alone must put the border, give or take). A disc's cells are up to half a cell
// off the circle.
double class_map_limit(const ClassGrid& classes, int tile,
                       const std::function<double(double, double)>& distance) {
    double worst = 0;
    for (int y = 0; y < classes.height(); ++y)
        for (int x = 0; x < classes.width(); ++x)
            for (const auto& [dx, dy] : {std::pair{1, 0}, {0, 1}}) {
                if (!classes.contains(x + dx, y + dy) || classes(x, y) == classes(x + dx, y + dy))
                    continue;
                worst = std::max(worst, std::abs(distance((x + 0.5 + dx * 0.5) * tile,
                                                          (y + 0.5 + dy * 0.5) * tile)));
            }
    return worst;
}

} // namespace

TEST_CASE("corner mode draws a 45-degree half plane and a disc within 2 px of the true border, "
          "blob mode for comparison") {
    const int n = 64, tile = 16;
    // Half plane: grass where the cell centre has x + y < 40.5 cells (half-integer: the border
    // lies halfway between the centres on either side, the best any cell map can place it).
    ClassGrid half(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            half(x, y) = (x + 0.5) + (y + 0.5) < 40.5 ? 1 : 0;
    const auto line = [&](double px, double py) {
        return (px + py - 40.5 * tile) / std::numbers::sqrt2;
    };
    // Disc: grass where the cell centre lies within 20 cells of (32, 32).
    ClassGrid disc(n, n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            disc(x, y) = std::hypot(x + 0.5 - 32, y + 0.5 - 32) < 20 ? 1 : 0;
    const auto circle = [&](double px, double py) {
        return std::hypot(px - 32.0 * tile, py - 32.0 * tile) - 20.0 * tile;
    };
    const Deviation corner_line = measure("two-terrain-corners.toml", half, line);
    const Deviation blob_line = measure("two-terrain.toml", half, line);
    const Deviation corner_disc = measure("two-terrain-corners.toml", disc, circle);
    const Deviation blob_disc = measure("two-terrain.toml", disc, circle);
    const double line_limit = class_map_limit(half, tile, line),
                 disc_limit = class_map_limit(disc, tile, circle);
    MESSAGE("45-degree line: corner mode max "
            << corner_line.max << " px (mean " << corner_line.mean << "), blob mode max "
            << blob_line.max << " px (mean " << blob_line.mean << "); the class map's own limit "
            << line_limit);
    MESSAGE("disc r = 20 cells: corner mode max "
            << corner_disc.max << " px (mean " << corner_disc.mean << "), blob mode max "
            << blob_disc.max << " px (mean " << blob_disc.mean << "); the class map's own limit "
            << disc_limit << " px");
    CHECK(corner_line.samples > 1000);
    CHECK(corner_disc.samples > 1000);
    // The line: within 2 px (the class map places it exactly). The disc: the cells themselves are
    // up to half a cell (8 px) off the circle, which no drawing from cells can undo; corner mode
    // adds at most 2 px to that, and stays closer than blob mode on average.
    CHECK(line_limit < 0.01);
    CHECK(corner_line.max <= 2.0);
    CHECK(corner_disc.max <= disc_limit + 2.0);
    CHECK(blob_line.max > corner_line.max);
    CHECK(blob_disc.mean > corner_disc.mean);
}
