#include "core/quality/screen_graph.hpp"

#include <algorithm>

namespace tilegen {

std::vector<ScreenCell> screen_grid(int map_width, int map_height, int screen_w, int screen_h) {
    std::vector<ScreenCell> out;
    for (int y = 0, sy = 0; y < map_height; y += screen_h, ++sy)
        for (int x = 0, sx = 0; x < map_width; x += screen_w, ++sx) {
            ScreenCell s;
            s.sx = sx;
            s.sy = sy;
            s.x = x;
            s.y = y;
            s.width = std::min(screen_w, map_width - x);
            s.height = std::min(screen_h, map_height - y);
            out.push_back(s);
        }
    return out;
}

ScreenGraph screen_graph(const ClassGrid& classes, const std::vector<bool>& walkable, int screen_w,
                         int screen_h) {
    const int w = classes.width(), h = classes.height();
    ScreenGraph g;
    g.columns = (w + screen_w - 1) / screen_w;
    g.rows = (h + screen_h - 1) / screen_h;
    g.screens = screen_grid(w, h, screen_w, screen_h);
    auto walk = [&](int x, int y) {
        const auto c = static_cast<std::size_t>(classes(x, y));
        return c < walkable.size() && walkable[c];
    };
    // Regions: 4-connected walkable cells, labelled in cell-index order; keep the largest.
    std::vector<int> label(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), -1);
    int best = -1;
    std::size_t best_size = 0;
    std::vector<int> stack;
    int next = 0;
    for (int i = 0; i < w * h; ++i) {
        if (label[static_cast<std::size_t>(i)] >= 0 || !walk(i % w, i / w)) continue;
        std::size_t size = 0;
        label[static_cast<std::size_t>(i)] = next;
        stack.push_back(i);
        while (!stack.empty()) {
            const int c = stack.back();
            stack.pop_back();
            ++size;
            const int cx = c % w, cy = c / w;
            const int nb[4][2] = {{cx + 1, cy}, {cx - 1, cy}, {cx, cy + 1}, {cx, cy - 1}};
            for (const auto& n : nb) {
                if (n[0] < 0 || n[1] < 0 || n[0] >= w || n[1] >= h) continue;
                const int j = n[1] * w + n[0];
                if (label[static_cast<std::size_t>(j)] < 0 && walk(n[0], n[1])) {
                    label[static_cast<std::size_t>(j)] = next;
                    stack.push_back(j);
                }
            }
        }
        if (size > best_size) {
            best_size = size;
            best = next;
        }
        ++next;
    }
    auto in_region = [&](int x, int y) {
        return best >= 0 && label[static_cast<std::size_t>(y) * static_cast<std::size_t>(w) +
                                  static_cast<std::size_t>(x)] == best;
    };
    auto screen_of = [&](int x, int y) { return (y / screen_h) * g.columns + x / screen_w; };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            if (!in_region(x, y)) continue;
            ScreenCell& s = g.screens[static_cast<std::size_t>(screen_of(x, y))];
            s.has_region = true;
            // Borders to the right and below: an exit when both sides are in the region.
            for (const auto& [nx, ny] : {std::pair{x + 1, y}, std::pair{x, y + 1}}) {
                if (nx >= w || ny >= h || !in_region(nx, ny)) continue;
                const int a = screen_of(x, y), b = screen_of(nx, ny);
                if (a == b) continue;
                auto& ea = g.screens[static_cast<std::size_t>(a)].exits;
                auto& eb = g.screens[static_cast<std::size_t>(b)].exits;
                if (std::find(ea.begin(), ea.end(), b) == ea.end()) ea.push_back(b);
                if (std::find(eb.begin(), eb.end(), a) == eb.end()) eb.push_back(a);
            }
        }
    for (auto& s : g.screens)
        std::sort(s.exits.begin(), s.exits.end());
    // Connected: one component over the screens holding the region.
    int first = -1;
    for (std::size_t i = 0; i < g.screens.size(); ++i)
        if (g.screens[i].has_region) {
            ++g.with_region;
            if (first < 0) first = static_cast<int>(i);
        }
    if (first >= 0) {
        std::vector<bool> seen(g.screens.size(), false);
        std::vector<int> todo{first};
        seen[static_cast<std::size_t>(first)] = true;
        int reached = 0;
        while (!todo.empty()) {
            const int s = todo.back();
            todo.pop_back();
            ++reached;
            for (int e : g.screens[static_cast<std::size_t>(s)].exits)
                if (!seen[static_cast<std::size_t>(e)]) {
                    seen[static_cast<std::size_t>(e)] = true;
                    todo.push_back(e);
                }
        }
        g.connected = reached == g.with_region;
    }
    return g;
}

} // namespace tilegen
