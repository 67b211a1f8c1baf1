#include "core/quality/reachability.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>

#include "core/label_forest.hpp"
#include "core/parallel.hpp"

namespace tilegen {

Regions walkable_regions(const ClassGrid& classes, const std::vector<bool>& walkable, int threads) {
    // Per band of rows, one raster pass of union-find over provisional labels (a walkable cell
    // joins its left and upper walkable neighbours in the band; a label's parent is never above
    // it, so a root is the least label of its set), then the bands' labels are joined across the
    // seams. Labels are made in row-major order (band after band), so a region's root is the
    // label made at its first cell: numbering the roots in label order numbers the regions in
    // order of their first cell, the same labels as a flood fill from each region's first cell
    // in row-major order. A last pass on the bands writes them and counts the sizes.
    const int w = classes.width(), h = classes.height();
    const std::size_t n = classes.size();
    Regions r;
    r.label = GridCells<std::int32_t>(n); // every cell written below
    std::array<bool, 256> walk{};
    for (std::size_t c = 0; c < walkable.size() && c < 256; ++c)
        walk[c] = walkable[c];
    const ClassId* cells = classes.cells().data();
    std::int32_t* label = r.label.data();
    struct Band {
        int y0 = 0, y1 = 0;
        LabelForest<std::vector<std::int32_t>> labels; // the band's provisional labels
        std::int32_t offset = 0;                       // of its labels among all bands'
        std::vector<std::uint64_t> size;               // per region: cells in the band
    };
    std::vector<Band> bands = parallel_bands(h, threads, [&](int y0, int y1) {
        Band band{y0, y1, {}, 0, {}};
        std::vector<std::int32_t>& parent = band.labels.parent;
        for (int y = y0; y < y1; ++y) {
            const std::size_t row = static_cast<std::size_t>(y) * w;
            for (int x = 0; x < w; ++x) {
                const std::size_t i = row + x;
                if (!walk[cells[i]]) {
                    label[i] = -1;
                    continue;
                }
                const std::int32_t left = x > 0 ? label[i - 1] : -1;
                const std::int32_t up = y > y0 ? label[i - w] : -1;
                if (left < 0 && up < 0) {
                    label[i] = static_cast<std::int32_t>(parent.size());
                    parent.push_back(label[i]);
                } else if (up < 0 || left == up) {
                    label[i] = left;
                } else if (left < 0) {
                    label[i] = up;
                } else {
                    (void)band.labels.join(left, up);
                    label[i] = left;
                }
            }
        }
        return band;
    });
    // All bands' labels in one forest (band after band), joined across the seams.
    LabelForest<std::vector<std::int32_t>> labels;
    std::vector<std::int32_t>& parent = labels.parent;
    for (Band& band : bands) {
        band.offset = static_cast<std::int32_t>(parent.size());
        for (std::int32_t p : band.labels.parent)
            parent.push_back(p + band.offset);
        band.labels = {};
    }
    for (std::size_t b = 1; b < bands.size(); ++b) {
        const std::size_t row = static_cast<std::size_t>(bands[b].y0) * w;
        for (int x = 0; x < w; ++x) {
            const std::int32_t below = label[row + x], above = label[row + x - w];
            if (below < 0 || above < 0) continue;
            (void)labels.join(above + bands[b - 1].offset, below + bands[b].offset);
        }
    }
    // Region ids: roots in label order; every other label takes its parent's (a smaller label,
    // numbered already).
    std::vector<std::int32_t> id(parent.size());
    std::int32_t regions = 0;
    for (std::size_t l = 0; l < parent.size(); ++l)
        id[l] = parent[l] == static_cast<std::int32_t>(l) ? regions++
                                                          : id[static_cast<std::size_t>(parent[l])];
    parallel_for(static_cast<int>(bands.size()), threads, [&](int b0, int b1) {
        for (int b = b0; b < b1; ++b) {
            Band& band = bands[static_cast<std::size_t>(b)];
            band.size.assign(static_cast<std::size_t>(regions), 0);
            const std::int32_t* band_id = id.data() + band.offset;
            const std::size_t end = static_cast<std::size_t>(band.y1) * w;
            for (std::size_t i = static_cast<std::size_t>(band.y0) * w; i < end; ++i) {
                if (label[i] < 0) continue;
                label[i] = band_id[label[i]];
                ++band.size[static_cast<std::size_t>(label[i])];
            }
        }
    });
    r.size.assign(static_cast<std::size_t>(regions), 0);
    for (const Band& band : bands)
        for (std::size_t k = 0; k < band.size.size(); ++k)
            r.size[k] += band.size[k];
    return r;
}

namespace {
std::uint16_t units(double cost) {
    return cost_units(cost);
}
} // namespace

namespace {
// What the connect search's grid is made of (make_reachable): per class its cell, the labels
// (a blocker's -1), the protected cells (null: none), per class whether it is walkable, per label
// + 1 whether its region is big, and the cell a big region's walkable cell gets.
struct SearchCellSource {
    const ClassId* cells;
    const std::int32_t* label;
    const std::uint8_t* protect;
    const std::array<SearchCell, 256>* class_cell;
    const std::array<bool, 256>* walk;
    const std::uint8_t* big_of_label;
    SearchCell big_cell;
};

// Cells [begin, end) of that grid: a protected cell blocked, a walkable cell of a big region
// big_cell, any other its class's cell. The inputs are copied into locals, held in registers:
// read through a closure or a reference they would be read again after every cell's store (a
// store of byte fields may alias any object).
void write_search_cells(const SearchCellSource& source, SearchCell* out, std::size_t begin,
                        std::size_t end) {
    const ClassId* cells = source.cells;
    const std::int32_t* label = source.label;
    const std::uint8_t* protect = source.protect;
    const SearchCell* class_cell = source.class_cell->data();
    const bool* walk = source.walk->data();
    const std::uint8_t* big_of_label = source.big_of_label;
    // The cells as 64-bit words, chosen by masks (regions and protected cells come and go along a
    // row: branches on them are mispredicted) and stored whole (a SearchCell copy was stored field
    // by field).
    const auto bits = [](SearchCell cell) { return std::bit_cast<std::uint64_t>(cell); };
    const auto mask = [](bool b) { return std::uint64_t{0} - static_cast<std::uint64_t>(b); };
    const auto choose = [](std::uint64_t m, std::uint64_t yes, std::uint64_t no) {
        return (yes & m) | (no & ~m);
    };
    const std::uint64_t big_bits = bits(source.big_cell), blocked_bits = bits(kFreshCell);
    for (std::size_t i = begin; i < end; ++i) {
        const ClassId c = cells[i];
        const bool big = walk[c] & (big_of_label[label[i] + 1] != 0);
        std::uint64_t cell = choose(mask(big), big_bits, bits(class_cell[c]));
        if (protect) cell = choose(mask(protect[i] != 0), blocked_bits, cell);
        std::memcpy(out + i, &cell, sizeof cell);
    }
}

std::array<bool, 256> walk_table_of(const std::vector<bool>& walkable) {
    // walkable[] as a plain table: read per cell and neighbour (vector<bool> is slow).
    std::array<bool, 256> table{};
    for (std::size_t c = 0; c < walkable.size() && c < 256; ++c)
        table[c] = walkable[c];
    return table;
}
} // namespace

ReachPrep prepare_reachable(const ClassGrid& classes, const std::vector<bool>& walkable,
                            int threads) {
    const int w = classes.width(), h = classes.height();
    const std::array<bool, 256> walk_table = walk_table_of(walkable);
    const auto walk = [&](ClassId c) { return walk_table[c]; };
    ReachPrep prep;
    prep.regions = walkable_regions(classes, walkable, threads);
    const std::size_t count = prep.regions.size.size();
    // Border cells, per region in cell order. Each band of rows lists its border cells and counts
    // them per region; then it writes each region's cells after those of the bands above it.
    const ClassId* cells = classes.cells().data();
    const std::int32_t* label = prep.regions.label.data();
    struct BorderBand {
        std::vector<std::uint32_t> cells;
        std::vector<std::size_t> at; // per region: its cells in the band, then where they go
    };
    std::vector<BorderBand> border_bands = parallel_bands(h, threads, [&](int y0, int y1) {
        BorderBand band;
        band.at.assign(count, 0);
        for (int y = y0; y < y1; ++y)
            for (int x = 0; x < w; ++x) {
                const std::size_t i = static_cast<std::size_t>(y) * w + x;
                const std::int32_t l = label[i];
                if (l < 0) continue;
                const bool edge =
                    (x > 0 && !walk(cells[i - 1])) || (x + 1 < w && !walk(cells[i + 1])) ||
                    (y > 0 && !walk(cells[i - w])) || (y + 1 < h && !walk(cells[i + w]));
                if (!edge) continue;
                band.cells.push_back(static_cast<std::uint32_t>(i));
                ++band.at[static_cast<std::size_t>(l)];
            }
        return band;
    });
    std::vector<std::size_t>& border_start = prep.border_start;
    border_start.assign(count + 1, 0);
    {
        std::size_t at = 0;
        for (std::size_t r = 0; r < count; ++r) {
            border_start[r] = at;
            for (BorderBand& band : border_bands) {
                const std::size_t cells_here = band.at[r];
                band.at[r] = at;
                at += cells_here;
            }
        }
        border_start[count] = at;
    }
    prep.border_cells = GridCells<std::uint32_t>(border_start[count]); // every cell written below
    std::uint32_t* border_cells = prep.border_cells.data();
    parallel_for(static_cast<int>(border_bands.size()), threads, [&](int b0, int b1) {
        for (int b = b0; b < b1; ++b) {
            BorderBand& band = border_bands[static_cast<std::size_t>(b)];
            for (std::uint32_t c : band.cells)
                border_cells[band.at[static_cast<std::size_t>(label[c])]++] = c;
            band = BorderBand{};
        }
    });
    return prep;
}

bool patch_reachable(ReachPrep& prep, const ClassGrid& after, const std::vector<bool>& walkable,
                     std::span<const std::uint32_t> changed, int threads) {
    const int w = after.width(), h = after.height();
    const std::size_t n = after.size();
    const std::array<bool, 256> walk_table = walk_table_of(walkable);
    const ClassId* cells = after.cells().data();
    const auto walk_after = [&](std::size_t c) { return walk_table[cells[c]]; };
    std::int32_t* label = prep.regions.label.data();
    if (prep.regions.label.size() != n) return false;
    // The cells that became walkable; none may have become blocked (a region could split).
    std::vector<std::uint32_t> fresh;
    for (std::uint32_t c : changed) {
        if (c >= n) return false;
        const bool was = label[c] >= 0, is = walk_after(c);
        if (was && !is) return false;
        if (!was && is) fresh.push_back(c);
    }
    if (fresh.empty()) return true; // no cell changed walkability: regions and borders stand
    std::sort(fresh.begin(), fresh.end());
    fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
    const std::size_t count = prep.regions.size.size();
    const auto neighbours = [&](std::uint32_t c, auto&& f) {
        const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
        if (x > 0) f(c - 1);
        if (x + 1 < w) f(c + 1);
        if (y > 0) f(c - w);
        if (y + 1 < h) f(c + w);
    };
    // The cells whose border status may change: the fresh cells and their walkable neighbours
    // (every other cell's neighbours kept their walkability). Of the old ones, those that were on
    // a border (they leave their region's list; those still on one come back below).
    std::vector<std::uint32_t> affected = fresh;
    for (std::uint32_t c : fresh)
        neighbours(c, [&](std::uint32_t nb) {
            if (walk_after(nb)) affected.push_back(nb);
        });
    std::sort(affected.begin(), affected.end());
    affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
    std::size_t left_border = 0; // old border cells among the affected
    for (std::uint32_t c : affected) {
        if (label[c] < 0) continue; // fresh: not walkable before, on no list
        bool edge = false;
        neighbours(c, [&](std::uint32_t nb) { edge = edge || label[nb] < 0; });
        left_border += edge ? 1 : 0;
    }
    // First cells of the old regions: a region's first cell (row-major) is on its border (the
    // cell above it, or else the one left of it, is a blocker) unless it is cell 0.
    const std::size_t total = count + fresh.size();
    std::vector<std::uint32_t> first(total);
    for (std::size_t r = 0; r < count; ++r) {
        if (label[0] == static_cast<std::int32_t>(r))
            first[r] = 0;
        else if (prep.border_start[r] < prep.border_start[r + 1])
            first[r] = prep.border_cells[prep.border_start[r]];
        else
            return false; // cannot happen (see above)
    }
    // Union-find over the old regions (0..count-1) and the fresh cells (count + j), each fresh
    // cell joined with its walkable neighbours.
    for (std::size_t j = 0; j < fresh.size(); ++j) {
        label[fresh[j]] = static_cast<std::int32_t>(count + j);
        first[count + j] = fresh[j];
    }
    LabelForest<std::vector<std::int32_t>> forest;
    forest.parent.resize(total);
    for (std::size_t e = 0; e < total; ++e)
        forest.parent[e] = static_cast<std::int32_t>(e);
    for (std::uint32_t c : fresh)
        neighbours(c, [&](std::uint32_t nb) {
            if (label[nb] >= 0) (void)forest.join(label[c], label[nb]);
        });
    // New region ids: the sets in order of their first cell.
    std::vector<std::uint32_t> root_first(total, kUnreached);
    for (std::size_t e = 0; e < total; ++e) {
        const auto root = static_cast<std::size_t>(forest.find(static_cast<std::int32_t>(e)));
        root_first[root] = std::min(root_first[root], first[e]);
    }
    std::vector<std::pair<std::uint32_t, std::int32_t>> roots;
    for (std::size_t e = 0; e < total; ++e)
        if (forest.parent[e] == static_cast<std::int32_t>(e))
            roots.emplace_back(root_first[e], static_cast<std::int32_t>(e));
    std::sort(roots.begin(), roots.end());
    std::vector<std::int32_t> new_id(total, -1);
    for (std::size_t k = 0; k < roots.size(); ++k)
        new_id[static_cast<std::size_t>(roots[k].second)] = static_cast<std::int32_t>(k);
    for (std::size_t e = 0; e < total; ++e)
        new_id[e] = new_id[static_cast<std::size_t>(forest.find(static_cast<std::int32_t>(e)))];
    const std::size_t regions = roots.size();
    // Labels and sizes.
    parallel_for(h, threads, [&](int y0, int y1) {
        const std::size_t end = static_cast<std::size_t>(y1) * w;
        for (std::size_t i = static_cast<std::size_t>(y0) * w; i < end; ++i)
            if (label[i] >= 0) label[i] = new_id[static_cast<std::size_t>(label[i])];
    });
    std::vector<std::uint64_t> size(regions, 0);
    for (std::size_t e = 0; e < total; ++e)
        size[static_cast<std::size_t>(new_id[e])] += e < count ? prep.regions.size[e] : 1;
    // Borders: the affected cells on a border now, by region (cell order within each).
    std::vector<std::uint8_t> touched(regions, 0);
    std::vector<std::pair<std::int32_t, std::uint32_t>> now_border;
    for (std::uint32_t c : affected) {
        touched[static_cast<std::size_t>(label[c])] = 1;
        bool edge = false;
        neighbours(c, [&](std::uint32_t nb) { edge = edge || !walk_after(nb); });
        if (edge) now_border.emplace_back(label[c], c);
    }
    std::sort(now_border.begin(), now_border.end());
    // The old regions of each new one, in order (a counting sort).
    std::vector<std::size_t> member_start(regions + 1, 0);
    for (std::size_t r = 0; r < count; ++r)
        ++member_start[static_cast<std::size_t>(new_id[r]) + 1];
    for (std::size_t k = 0; k < regions; ++k)
        member_start[k + 1] += member_start[k];
    std::vector<std::int32_t> members(count);
    {
        std::vector<std::size_t> at(member_start.begin(), member_start.end() - 1);
        for (std::size_t r = 0; r < count; ++r) {
            const auto k = static_cast<std::size_t>(new_id[r]);
            if (member_start[k + 1] - member_start[k] > 1) touched[k] = 1;
            members[at[k]++] = static_cast<std::int32_t>(r);
        }
    }
    const std::size_t border_total = prep.border_start[count] - left_border + now_border.size();
    GridCells<std::uint32_t> border_cells(border_total); // every cell written below
    std::vector<std::size_t> border_start(regions + 1, 0);
    const auto old_border = [&](std::size_t r) {
        return std::span<const std::uint32_t>(prep.border_cells.data() + prep.border_start[r],
                                              prep.border_start[r + 1] - prep.border_start[r]);
    };
    std::size_t at = 0, next_now = 0;
    std::vector<std::uint32_t> small, largest, merged_small;
    for (std::size_t k = 0; k < regions; ++k) {
        border_start[k] = at;
        if (!touched[k]) { // one old region, none of its cells affected: its list as it was
            const std::span<const std::uint32_t> list =
                old_border(static_cast<std::size_t>(members[member_start[k]]));
            if (at + list.size() > border_total) return false;
            std::copy(list.begin(), list.end(), border_cells.begin() + at);
            at += list.size();
            continue;
        }
        // The members' lists without the affected cells, and the affected cells on a border
        // now, merged in cell order: the largest list merged with the others sorted together.
        small.clear();
        largest.clear();
        for (std::size_t m = member_start[k]; m < member_start[k + 1]; ++m) {
            const std::span<const std::uint32_t> list =
                old_border(static_cast<std::size_t>(members[m]));
            std::vector<std::uint32_t> kept;
            kept.reserve(list.size());
            std::set_difference(list.begin(), list.end(), affected.begin(), affected.end(),
                                std::back_inserter(kept));
            if (kept.size() > largest.size()) std::swap(kept, largest);
            small.insert(small.end(), kept.begin(), kept.end());
        }
        for (; next_now < now_border.size() &&
               now_border[next_now].first == static_cast<std::int32_t>(k);
             ++next_now)
            small.push_back(now_border[next_now].second);
        std::sort(small.begin(), small.end());
        if (at + small.size() + largest.size() > border_total) return false;
        std::merge(largest.begin(), largest.end(), small.begin(), small.end(),
                   border_cells.begin() + at);
        at += small.size() + largest.size();
    }
    border_start[regions] = at;
    if (at != border_total) return false; // cannot happen
    prep.regions.size = std::move(size);
    prep.border_start = std::move(border_start);
    prep.border_cells = std::move(border_cells);
    return true;
}

ReachReport make_reachable(ClassGrid& classes, const std::vector<bool>& walkable,
                           const std::vector<std::uint32_t>& start_cells,
                           const ConstraintSettings& settings, const RoadSettings& roads,
                           std::span<const std::uint8_t> protect, Router& router, int threads) {
    return make_reachable(classes, walkable, start_cells, settings, roads, protect, router, threads,
                          prepare_reachable(classes, walkable, threads));
}

ReachReport make_reachable(ClassGrid& classes, const std::vector<bool>& walkable,
                           const std::vector<std::uint32_t>& start_cells,
                           const ConstraintSettings& settings, const RoadSettings& roads,
                           std::span<const std::uint8_t> protect, Router& router, int threads,
                           ReachPrep prep, const std::function<void()>& before_search) {
    ReachReport report;
    const int w = classes.width(), h = classes.height();
    const std::size_t n = classes.size();
    const std::array<bool, 256> walk_table = walk_table_of(walkable);
    const auto walk = [&](ClassId c) { return walk_table[c]; };
    const Regions& regions = prep.regions;
    const std::size_t count = regions.size.size();
    report.regions_before = count;
    const auto big = [&](std::size_t r) {
        return regions.size[r] >= static_cast<std::uint64_t>(settings.min_region);
    };
    for (std::size_t r = 0; r < count; ++r)
        report.big_before += big(r) ? 1 : 0;
    std::int32_t main = -1;
    for (std::uint32_t c : start_cells)
        if (c < n && regions.label[c] >= 0) {
            main = regions.label[c];
            break;
        }
    if (main < 0 && (!settings.from_start || start_cells.empty()))
        for (std::size_t r = 0; r < count; ++r)
            if (main < 0 || regions.size[r] > regions.size[main]) main = static_cast<int>(r);
    if (main < 0) {
        report.start_found = count == 0 && start_cells.empty();
        report.met = count == 0;
        return report;
    }
    const ClassId* cells = classes.cells().data();
    const std::int32_t* label = regions.label.data();
    const std::vector<std::size_t>& border_start = prep.border_start;
    const GridCells<std::uint32_t>& border_cells = prep.border_cells;
    const auto border = [&](std::size_t r) {
        return std::span<const std::uint32_t>(border_cells.data() + border_start[r],
                                              border_start[r + 1] - border_start[r]);
    };
    std::vector<std::uint8_t> merged(count, 0), filled(count, 0);
    merged[main] = 1;

    if (settings.policy == ReachPolicy::connect) {
        CostGrid g; // its cells also hold the search's costs so far and parents (SearchCell)
        g.reset_unset(w, h); // every cell written below
        g.max_bridge = roads.max_bridge;
        g.bridge_cost = units(roads.bridge_cost);
        const std::uint16_t pass = units(settings.pass_cost), one = units(1);
        // The cells of big regions are blocked but for the borders of those not joined yet: the
        // search enters a region only through its border (a step from outside, or a bridge, lands
        // next to a blocker), reaching a big region's border joins it, and joining blocks it.
        // Per class, its cell (walkable: by region, below); per region, whether it is big. The
        // masks are 32-bit (kMaxClasses): an id past them is in neither.
        const auto in_mask = [](std::uint32_t mask, int c) {
            return c < kMaxClasses && (mask >> c & 1u) != 0;
        };
        std::array<SearchCell, 256> class_cell;
        for (int c = 0; c < 256; ++c) {
            SearchCell cell = kFreshCell; // blocked: an avoid class
            const bool avoided = in_mask(roads.avoid, c);
            if (walk(static_cast<ClassId>(c)))
                cell.cost = one;
            else if (!avoided && in_mask(roads.bridge_over, c))
                cell.span = roads.max_bridge > 0 ? kSpanWater : 0;
            else if (!avoided)
                cell.cost = pass;
            class_cell[static_cast<std::size_t>(c)] = cell;
        }
        SearchCell big_cell = kFreshCell;
        big_cell.span = kSpanMark; // popped only on the border of a region not joined yet
        std::vector<std::uint8_t> big_of_label(count + 1, 0); // label + 1 (-1: a blocker)
        for (std::size_t r = 0; r < count; ++r)
            big_of_label[r + 1] = big(r) ? 1 : 0;
        const SearchCellSource source{
            cells,       label,       protect.empty() ? nullptr : protect.data(),
            &class_cell, &walk_table, big_of_label.data(),
            big_cell};
        SearchCell* out = g.cells.data();
        parallel_for(h, threads, [&](int y0, int y1) {
            write_search_cells(source, out, static_cast<std::size_t>(y0) * w,
                               static_cast<std::size_t>(y1) * w);
        });
        for (std::size_t r = 0; r < count; ++r)
            if (big(r) && static_cast<std::int32_t>(r) != main)
                for (std::uint32_t c : border(static_cast<std::size_t>(r)))
                    if (protect.empty() || !protect[c]) g.cost(c) = one;
        if (before_search) before_search();
        // One Dijkstra from the main region's border (a bucket queue keyed by distance; entries
        // of one distance last in, first out). Reaching a cell of another big region carves the
        // route back to the regions already joined and joins that region: its border cells enter at
        // the distance it was reached at, so the routes form one tree, and the interior of joined
        // regions is never explored.
        constexpr std::uint8_t kRoot = 0xFF;
        // How many pops ahead the search fetches an entry's cells: 8 was the fastest of 0, 2, 4,
        // 8 and 16 at 4096² (the search 167 -> 124 ms with the pushes' fetches).
        constexpr std::size_t kReachPrefetchAhead = 8;
        SearchCell* cell_of = g.cells.data();
        BucketQueue& queue = router.queue(); // the router's buckets: grown once per run
        queue.reset(0, static_cast<std::uint64_t>(std::max(pass, one)) +
                           static_cast<std::uint64_t>(g.max_bridge) * g.bridge_cost + 1);
        const auto push = [&](std::uint32_t d, std::uint32_t c) { queue.push(d, c); };
        // Joining a region blocks its border (so no cell of it is entered again) and starts its
        // border cells at the distance it was reached at.
        const auto join = [&](std::int32_t r, std::uint32_t d) {
            merged[r] = 1;
            // One pass: blocking a cell and pushing it touch the same line (the pushes read no
            // cost, so the order of the two does not matter).
            for (std::uint32_t c : border(static_cast<std::size_t>(r))) {
                SearchCell& cell = cell_of[c];
                cell.cost = kBlocked;
                if (d < cell.dist) {
                    cell.dist = d;
                    cell.parent = kRoot;
                    push(d, c);
                }
            }
        };
        join(main, 0);
        // Big regions not joined yet: when none is left, the search has nothing more to carve.
        std::size_t big_left = 0;
        for (std::size_t r = 0; r < count; ++r)
            big_left += !merged[r] && big(r) ? 1 : 0;
        while (big_left > 0 && !queue.empty()) {
            const auto [key, c] = queue.pop();
            // Cells fetched ahead (hints): those of the entry kReachPrefetchAhead pops away, so
            // they arrive in time (the flood's frontier is too large for the caches), and those
            // of each cell pushed (below), for the entries popped right after it.
            if (const std::uint32_t next = queue.ahead(kReachPrefetchAhead); next != kUnreached)
                prefetch_cell_and_rows(next, w, cell_of);
            const auto d = static_cast<std::uint32_t>(key);
            if (key != cell_of[c].dist) continue; // stale entry
            // A cell of a big region (marked: no label read for the others) not joined yet.
            const std::int32_t l = (cell_of[c].span & kSpanMark) ? label[c] : -1;
            if (l >= 0 && !merged[l]) {
                // Carve the route back to a joined cell.
                std::uint32_t k = c;
                while (cell_of[k].parent != kRoot) {
                    const int dir = cell_of[k].parent & 3, len = cell_of[k].parent >> 2;
                    int x = static_cast<int>(k % w), y = static_cast<int>(k / w);
                    for (int i = 0; i < len; ++i) {
                        x -= kRouteDx[dir];
                        y -= kRouteDy[dir];
                        const auto b = static_cast<std::uint32_t>(y * w + x);
                        if (classes.cells()[b] != roads.bridge_class) {
                            classes.cells()[b] = roads.bridge_class;
                            g.span(b) = 0;
                            g.cost(b) = kBlocked;
                            ++report.carved;
                        }
                    }
                    x -= kRouteDx[dir];
                    y -= kRouteDy[dir];
                    k = static_cast<std::uint32_t>(y * w + x);
                    ClassId& cell = classes.cells()[k];
                    if (!walk(cell)) {
                        cell = roads.road_class;
                        ++report.carved;
                    }
                }
                join(l, d);
                --big_left;
                continue;
            }
            const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
            const bool from_water = (cell_of[c].span & kSpanWater) != 0;
            // The move in direction `dir` (kRouteDx/kRouteDy) to the neighbour cell nc, which
            // is inside the map (inlined at its four calls).
            const auto relax = [&](int dir, std::uint32_t nc) __attribute__((always_inline)) {
                int k = 0;
                if (cell_of[nc].span & kSpanWater) { // a bridge: the general move
                    const std::optional<RouteMove> move = route_move(g, x, y, dir, from_water);
                    if (!move) return;
                    nc = move->cell;
                    k = move->bridged;
                }
                const std::uint32_t extra = static_cast<std::uint32_t>(k) * g.bridge_cost;
                SearchCell& next = cell_of[nc];
                if (next.cost == kBlocked) return; // blocked, or a joined region's cell
                const std::uint32_t nd = d + extra + next.cost;
                if (nd < next.dist) {
                    next.dist = nd;
                    next.parent = static_cast<std::uint8_t>(dir | (k << 2));
                    push(nd, nc);
                    prefetch_cell_and_rows(nc, w, cell_of);
                }
            };
            // The four directions in kRouteDx/kRouteDy's order: +x, -x, +y, -y.
            const auto row = static_cast<std::uint32_t>(w);
            if (x + 1 < w) relax(0, c + 1);
            if (x > 0) relax(1, c - 1);
            if (y + 1 < h) relax(2, c + row);
            if (y > 0) relax(3, c - row);
        }
    }
    // Fill: under connect the big regions left; under fill every other region.
    if (settings.policy != ReachPolicy::reseed) {
        for (std::size_t r = 0; r < count; ++r)
            if (!merged[r] && (settings.policy == ReachPolicy::fill || big(r))) filled[r] = 1;
        std::vector<std::int32_t> fill_class(count, -1);
        for (std::size_t r = 0; r < count; ++r) {
            if (!filled[r]) continue;
            std::array<std::uint64_t, 256> votes{};
            for (std::uint32_t c : border(static_cast<std::size_t>(r))) {
                const int x = static_cast<int>(c % w), y = static_cast<int>(c / w);
                if (x > 0 && !walk(cells[c - 1])) ++votes[cells[c - 1]];
                if (x + 1 < w && !walk(cells[c + 1])) ++votes[cells[c + 1]];
                if (y > 0 && !walk(cells[c - w])) ++votes[cells[c - w]];
                if (y + 1 < h && !walk(cells[c + w])) ++votes[cells[c + w]];
            }
            int best = -1;
            for (int c = 0; c < 256; ++c)
                if (votes[c] > 0 && (best < 0 || votes[c] > votes[best])) best = c;
            fill_class[r] = best;
            if (best < 0) filled[r] = 0; // no blocker around it (cannot happen beside main)
        }
        // Each filled region's cells, by a flood from its first border cell (it has one: its fill
        // class came from a border cell's blocker neighbour) over its label, so only those cells
        // are visited, not the map. Visited cells get the label -2 (the labels are not read after
        // the fill); protected cells are passed through but keep their class.
        ClassId* out = classes.cells().data();
        std::int32_t* seen = prep.regions.label.data();
        std::vector<std::uint32_t> stack;
        const auto row = static_cast<std::uint32_t>(w);
        for (std::size_t r = 0; r < count; ++r) {
            if (!filled[r]) continue;
            const auto l = static_cast<std::int32_t>(r);
            const auto visit = [&](std::uint32_t c) {
                if (seen[c] != l) return;
                seen[c] = -2;
                stack.push_back(c);
            };
            visit(border(r).front());
            while (!stack.empty()) {
                const std::uint32_t c = stack.back();
                stack.pop_back();
                if (protect.empty() || !protect[c]) {
                    out[c] = static_cast<ClassId>(fill_class[r]);
                    ++report.filled;
                }
                const std::uint32_t x = c % row, y = c / row;
                if (x + 1 < row) visit(c + 1);
                if (x > 0) visit(c - 1);
                if (y + 1 < static_cast<std::uint32_t>(h)) visit(c + row);
                if (y > 0) visit(c - row);
            }
        }
    }
    for (std::size_t r = 0; r < count; ++r)
        if (!merged[r] && !filled[r] && big(r)) ++report.big_after;
    report.big_after += big(main) || report.carved > 0 ? 1 : 0;
    std::uint64_t main_size = 0;
    for (std::size_t r = 0; r < count; ++r)
        if (merged[r]) main_size += regions.size[r];
    report.main_size = main_size + report.carved;
    report.met = settings.walkable_regions == 0 || report.big_after <= 1;
    return report;
}

} // namespace tilegen
