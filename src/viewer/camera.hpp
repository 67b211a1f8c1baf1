// Camera: which part of the map the viewer shows, as plain numbers (no window, no SFML).
// Input: a viewport in screen pixels and the map's size in map pixels (cells x tile size).
// Output: conversions between screen and map pixels, zoom steps, fit, and the range of cells in
// view. Invariants: zoom is in [kMinZoom, kMaxZoom]; screen = round(-origin * zoom) + map * zoom,
// i.e. the map is drawn translated by whole screen pixels, so at zoom 1 every map pixel lands on
// exactly one screen pixel. The default camera (zoom 1, origin 0,0) shows the map's top-left at the
// viewport's top-left.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

namespace tilegen::viewer {

struct CellRange {
    int x0 = 0, y0 = 0, x1 = 0,
        y1 = 0; // cells x0..x1-1, y0..y1-1 (empty when x1 <= x0 or y1 <= y0)
    bool empty() const { return x1 <= x0 || y1 <= y0; }
};

struct Camera {
    static constexpr double kMinZoom = 1.0 / 256;
    static constexpr double kMaxZoom = 32;
    // Wheel steps; zooms between steps (after "fit") move to the next step in the wheel's
    // direction.
    static constexpr std::array<double, 22> kSteps = {
        1.0 / 256, 1.0 / 128, 1.0 / 64, 1.0 / 32, 1.0 / 24, 1.0 / 16, 1.0 / 12, 1.0 / 8,
        1.0 / 6,   1.0 / 4,   1.0 / 3,  1.0 / 2,  2.0 / 3,  1,        1.5,      2,
        3,         4,         6,        8,        16,       32};

    double zoom = 1;                   // screen pixels per map pixel
    double origin_x = 0, origin_y = 0; // the map pixel at the viewport's top-left

    // The whole-pixel translation the map is drawn with.
    double translate_x() const { return std::round(-origin_x * zoom); }
    double translate_y() const { return std::round(-origin_y * zoom); }

    double to_map_x(double sx) const { return (sx - translate_x()) / zoom; }
    double to_map_y(double sy) const { return (sy - translate_y()) / zoom; }
    double to_screen_x(double mx) const { return translate_x() + mx * zoom; }
    double to_screen_y(double my) const { return translate_y() + my * zoom; }

    // Keeps the map point under screen point (sx, sy) where it is while changing the zoom.
    void zoom_at(double new_zoom, double sx, double sy) {
        new_zoom = std::clamp(new_zoom, kMinZoom, kMaxZoom);
        const double mx = origin_x + sx / zoom, my = origin_y + sy / zoom;
        zoom = new_zoom;
        origin_x = mx - sx / zoom;
        origin_y = my - sy / zoom;
    }

    // The next step above (direction > 0) or below (direction < 0) the current zoom.
    double step(int direction) const {
        if (direction > 0) {
            for (double s : kSteps)
                if (s > zoom * 1.0001) return s;
            return kSteps.back();
        }
        for (auto it = kSteps.rbegin(); it != kSteps.rend(); ++it)
            if (*it < zoom / 1.0001) return *it;
        return kSteps.front();
    }

    void pan_screen(double dx, double dy) {
        origin_x -= dx / zoom;
        origin_y -= dy / zoom;
    }

    // Whole map in view, centred, as large as fits.
    void fit(double map_w, double map_h, double view_w, double view_h) {
        if (map_w <= 0 || map_h <= 0 || view_w <= 0 || view_h <= 0) return;
        zoom = std::clamp(std::min(view_w / map_w, view_h / map_h), kMinZoom, kMaxZoom);
        origin_x = (map_w - view_w / zoom) / 2;
        origin_y = (map_h - view_h / zoom) / 2;
    }

    // Keeps at least `margin` screen pixels of the map in view (so the map cannot be lost
    // off-screen).
    void clamp(double map_w, double map_h, double view_w, double view_h, double margin = 48) {
        const double m = margin / zoom;
        const double vw = view_w / zoom, vh = view_h / zoom;
        const double lo_x = std::min(-vw + m, map_w - m), hi_x = std::max(map_w - m, -vw + m);
        const double lo_y = std::min(-vh + m, map_h - m), hi_y = std::max(map_h - m, -vh + m);
        origin_x = std::clamp(origin_x, lo_x, hi_x);
        origin_y = std::clamp(origin_y, lo_y, hi_y);
    }

    // Cells (of tile_w x tile_h map pixels) at least partly inside the viewport, clipped to the
    // map.
    CellRange visible_cells(int map_cells_w, int map_cells_h, int tile_w, int tile_h, double view_w,
                            double view_h) const {
        const double mx0 = to_map_x(0), my0 = to_map_y(0);
        const double mx1 = to_map_x(view_w), my1 = to_map_y(view_h);
        auto cell = [](double v, int limit) {
            return static_cast<int>(std::clamp(v, 0.0, double(limit)));
        };
        CellRange r;
        r.x0 = cell(std::floor(mx0 / tile_w), map_cells_w);
        r.y0 = cell(std::floor(my0 / tile_h), map_cells_h);
        r.x1 = cell(std::ceil(mx1 / tile_w), map_cells_w);
        r.y1 = cell(std::ceil(my1 / tile_h), map_cells_h);
        return r;
    }
};

} // namespace tilegen::viewer
