// evaluate_fitness against a plain recount: every cell and neighbour pair counted one by one, and
// a breadth-first search over the whole map with a distance per cell (no early stop).
#include <doctest/doctest.h>

#include <limits>
#include <random>
#include <vector>

#include "core/quality/fitness.hpp"

using namespace tilegen;

namespace {

Fitness reference_fitness(const ClassGrid& classes, const std::vector<bool>& walkable,
                          const std::vector<std::uint32_t>& start_cells,
                          const std::vector<Place>& places, int start_rule) {
    Fitness f;
    const int w = classes.width(), h = classes.height();
    const std::size_t n = classes.size();
    auto walk = [&](int x, int y) {
        const ClassId c = classes(x, y);
        return c < walkable.size() && walkable[c];
    };
    double walkable_cells = 0, edges = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            walkable_cells += walk(x, y);
            if (x + 1 < w && walk(x, y) != walk(x + 1, y)) ++edges;
            if (y + 1 < h && walk(x, y) != walk(x, y + 1)) ++edges;
        }
    f.accessibility = walkable_cells / static_cast<double>(n);
    f.obstacle_edges = edges / static_cast<double>(n);
    constexpr std::uint32_t kFar = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> dist(n, kFar), queue;
    for (std::uint32_t c : start_cells)
        if (walk(static_cast<int>(c % w), static_cast<int>(c / w)) && dist[c] == kFar) {
            dist[c] = 0;
            queue.push_back(c);
        }
    if (queue.empty()) return f;
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const std::uint32_t c = queue[head];
        const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
        const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
        for (int k = 0; k < 4; ++k) {
            if (nx[k] < 0 || ny[k] < 0 || nx[k] >= w || ny[k] >= h || !walk(nx[k], ny[k])) continue;
            const std::uint32_t nb = static_cast<std::uint32_t>(ny[k] * w + nx[k]);
            if (dist[nb] != kFar) continue;
            dist[nb] = dist[c] + 1;
            queue.push_back(nb);
        }
    }
    double lo = 1e300, hi = 0;
    int counted = 0;
    for (const Place& p : places) {
        if (p.rule == start_rule) continue;
        std::uint32_t best = kFar;
        for (std::uint32_t c : start_cells_of(p, w, h))
            best = std::min(best, dist[c]);
        if (best == kFar) {
            f.fairness = 0;
            return f;
        }
        lo = std::min(lo, best + 1.0);
        hi = std::max(hi, best + 1.0);
        ++counted;
    }
    f.fairness = counted >= 2 ? lo / hi : 1;
    return f;
}

} // namespace

TEST_CASE("fitness: the early-stopping search equals a whole-map recount") {
    std::mt19937 rng(20261124);
    int fair = 0, unfair = 0;
    for (int t = 0; t < 300; ++t) {
        const int w = 1 + static_cast<int>(rng() % 40), h = 1 + static_cast<int>(rng() % 40);
        ClassGrid g(w, h);
        const int open = static_cast<int>(rng() % 100); // percent of walkable cells
        for (auto& c : g.cells())
            c = static_cast<ClassId>(static_cast<int>(rng() % 100) < open ? rng() % 2
                                                                          : 2 + rng() % 2);
        const std::vector<bool> walkable{true, true, false}; // class 3: past the table
        std::vector<Place> places;
        const int count = static_cast<int>(rng() % 6);
        for (int i = 0; i < count; ++i) {
            Place p;
            p.rule = static_cast<int>(rng() % 3); // rule 0 is the start
            p.w = 1 + static_cast<int>(rng() % 3);
            p.h = 1 + static_cast<int>(rng() % 3);
            if (p.w > w || p.h > h) continue;
            p.x = static_cast<int>(rng() % static_cast<unsigned>(w - p.w + 1));
            p.y = static_cast<int>(rng() % static_cast<unsigned>(h - p.h + 1));
            places.push_back(p);
        }
        std::vector<std::uint32_t> start;
        for (const Place& p : places)
            if (p.rule == 0 && start.empty()) start = start_cells_of(p, w, h);
        const Fitness got = evaluate_fitness(g, walkable, start, places, 0);
        const Fitness want = reference_fitness(g, walkable, start, places, 0);
        INFO("case " << t << " " << w << "x" << h);
        CHECK(got.accessibility == want.accessibility);
        CHECK(got.obstacle_edges == want.obstacle_edges);
        CHECK(got.fairness == want.fairness);
        const Fitness threaded = evaluate_fitness(g, walkable, start, places, 0, 3);
        CHECK(threaded.accessibility == want.accessibility);
        CHECK(threaded.obstacle_edges == want.obstacle_edges);
        CHECK(threaded.fairness == want.fairness);
        (want.fairness > 0 && want.fairness < 1 ? fair : unfair) += 1;
    }
    CHECK(fair > 30); // the cases reach places at different distances, not only 0 or 1
    CHECK(unfair > 30);
}

TEST_CASE("fitness: rows of several 64-bit words (the walkable bits' frame and carries)") {
    // Widths around the multiples of 64 bits a row takes with its frame (w + 2), every class
    // pattern: the counts and the search cross words.
    std::mt19937 rng(4242);
    const std::vector<bool> walkable{true, false};
    for (const int w : {61, 62, 63, 64, 65, 126, 127, 128, 190}) {
        const int h = 1 + static_cast<int>(rng() % 12);
        ClassGrid g(w, h);
        const int open = 40 + static_cast<int>(rng() % 60);
        for (auto& c : g.cells())
            c = static_cast<ClassId>(static_cast<int>(rng() % 100) < open ? 0 : 1);
        std::vector<Place> places;
        for (int i = 0; i < 4; ++i) {
            Place p;
            p.rule = i == 0 ? 0 : 1;
            p.w = 1;
            p.h = 1;
            p.x = i == 0 ? 0 : w - i; // the start at the left edge, the others at the right
            p.y = static_cast<int>(rng() % static_cast<unsigned>(h));
            places.push_back(p);
        }
        const std::vector<std::uint32_t> start = start_cells_of(places[0], w, h);
        const Fitness want = reference_fitness(g, walkable, start, places, 0);
        for (const int threads : {1, 2}) {
            const Fitness got = evaluate_fitness(g, walkable, start, places, 0, threads);
            INFO(w << "x" << h << ", " << threads << " threads");
            CHECK(got.accessibility == want.accessibility);
            CHECK(got.obstacle_edges == want.obstacle_edges);
            CHECK(got.fairness == want.fairness);
        }
    }
}
