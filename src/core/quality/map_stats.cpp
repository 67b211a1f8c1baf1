// Map statistics, see map_stats.hpp.
//
// Regions: rows are cut into runs (maximal stretches of one class id; for walkable regions,
// maximal stretches of walkable cells). Each band of rows is labelled top to bottom with a
// union-find over the components alive in the previous row only: a run joins the components of
// the runs above it that it overlaps (same class id); a component no run of the next row
// continues is finished and counted, so memory is O(width) per band. Components that touch the
// band's first row or are still alive at its last row may continue in the neighbouring bands:
// they become nodes of a second union-find (one node per run of the band's first row, plus one
// per component alive at the end that does not touch the first row), joined across each band
// border by overlapping runs. The partition into regions does not depend on the banding, so
// neither do the counts.
#include "core/quality/map_stats.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "core/parallel.hpp"

namespace tilegen {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

struct Run {
    std::uint32_t start = 0; // first cell
    std::uint32_t end = 0;   // one past the last cell
    std::uint8_t key = 0;    // runs join only when their keys are equal
};

// One step of a walk over two rows' runs in order (a = the i-th of one row, b = the j-th of the
// other): past the run that ends first, or past both when they end together.
void step_past_first_end(const Run& a, const Run& b, std::size_t& i, std::size_t& j) {
    if (a.end < b.end)
        ++i;
    else if (b.end < a.end)
        ++j;
    else
        ++i, ++j;
}

// Region counts of one partition; complete regions add up here.
struct RegionTally {
    std::uint64_t regions = 0;
    std::uint64_t specks = 0;
    std::uint64_t largest = 0;
    void add(std::uint64_t size) {
        ++regions;
        specks += size <= kSpeckMaxCells ? 1 : 0;
        largest = std::max(largest, size);
    }
};

// What one band leaves for the join across band borders.
struct BandRegions {
    RegionTally complete;         // regions entirely inside the band, not touching its first row
    std::vector<Run> top_runs;    // the band's first row; border node i is top_runs[i]
    std::vector<Run> bottom_runs; // the band's last row
    std::vector<std::uint32_t> bottom_node; // border node of each bottom run
    std::vector<std::uint64_t> node_size;   // cells per border node (top nodes, then the others)
    std::vector<std::pair<std::uint32_t, std::uint32_t>> links; // border nodes of one region
};

class BandLabeller {
  public:
    explicit BandLabeller(BandRegions& out) : out_(out) {}

    // The band's rows, first to last. Takes the runs (leaves `runs` with unspecified contents).
    void row(std::vector<Run>& runs, bool first) {
        label_.assign(runs.size(), kNone);
        const std::size_t alive_before = first ? 0 : nodes_.size();
        if (first) {
            nodes_.clear();
            out_.top_runs = runs;
            out_.node_size.assign(runs.size(), 0);
            for (std::size_t j = 0; j < runs.size(); ++j) {
                const auto id = static_cast<std::uint32_t>(j);
                nodes_.push_back({id, id, 0});
                label_[j] = id;
            }
        } else {
            std::size_t i = 0, j = 0;
            while (i < prev_.size() && j < runs.size()) {
                const Run& a = prev_[i];
                const Run& b = runs[j];
                if (a.start < b.end && b.start < a.end && a.key == b.key) {
                    if (label_[j] == kNone)
                        label_[j] = prev_label_[i];
                    else
                        unite(label_[j], prev_label_[i]);
                }
                step_past_first_end(a, b, i, j);
            }
            for (std::size_t k = 0; k < runs.size(); ++k)
                if (label_[k] == kNone) {
                    label_[k] = static_cast<std::uint32_t>(nodes_.size());
                    nodes_.push_back({label_[k], kNone, 0});
                }
        }
        // Renumber this row's components 0.. in order of first appearance; add the runs' cells.
        remap_.assign(nodes_.size(), kNone);
        next_nodes_.clear();
        prev_label_.resize(runs.size());
        for (std::size_t j = 0; j < runs.size(); ++j) {
            const std::uint32_t r = find(label_[j]);
            if (remap_[r] == kNone) {
                remap_[r] = static_cast<std::uint32_t>(next_nodes_.size());
                Node n = nodes_[r];
                n.parent = remap_[r];
                next_nodes_.push_back(n);
            }
            prev_label_[j] = remap_[r];
            next_nodes_[remap_[r]].size += runs[j].end - runs[j].start;
        }
        // Components of the previous row that no run of this one continues are finished.
        for (std::size_t n = 0; n < alive_before; ++n)
            if (nodes_[n].parent == n && remap_[n] == kNone) finish(nodes_[n]);
        nodes_.swap(next_nodes_);
        prev_.swap(runs);
    }

    // After the band's last row: its live components become border nodes.
    void end() {
        std::vector<std::uint32_t> border(nodes_.size());
        for (std::size_t n = 0; n < nodes_.size(); ++n) {
            if (nodes_[n].top == kNone) {
                border[n] = static_cast<std::uint32_t>(out_.node_size.size());
                out_.node_size.push_back(nodes_[n].size);
            } else {
                border[n] = nodes_[n].top;
                out_.node_size[nodes_[n].top] += nodes_[n].size;
            }
        }
        out_.bottom_runs = prev_;
        out_.bottom_node.resize(prev_.size());
        for (std::size_t j = 0; j < prev_.size(); ++j)
            out_.bottom_node[j] = border[prev_label_[j]];
    }

  private:
    struct Node {
        std::uint32_t parent;
        std::uint32_t top; // a border node (a run of the band's first row) in the component
        std::uint64_t size;
    };

    std::uint32_t find(std::uint32_t a) {
        while (nodes_[a].parent != a) {
            nodes_[a].parent = nodes_[nodes_[a].parent].parent;
            a = nodes_[a].parent;
        }
        return a;
    }
    void unite(std::uint32_t a, std::uint32_t b) {
        a = find(a);
        b = find(b);
        if (a == b) return;
        if (b < a) std::swap(a, b);
        Node& ra = nodes_[a];
        const Node& rb = nodes_[b];
        nodes_[b].parent = a;
        ra.size += rb.size;
        if (ra.top != kNone && rb.top != kNone) {
            out_.links.emplace_back(ra.top, rb.top);
            ra.top = std::min(ra.top, rb.top);
        } else if (ra.top == kNone) {
            ra.top = rb.top;
        }
    }
    void finish(const Node& n) {
        if (n.top == kNone)
            out_.complete.add(n.size);
        else
            out_.node_size[n.top] += n.size;
    }

    BandRegions& out_;
    std::vector<Node> nodes_; // the components alive in the previous row, then new ones
    std::vector<Node> next_nodes_;
    std::vector<Run> prev_;
    std::vector<std::uint32_t> prev_label_;
    std::vector<std::uint32_t> label_;
    std::vector<std::uint32_t> remap_;
};

// Joins the bands' border nodes across band borders and adds the regions they form to `tally`.
void join_bands(const std::vector<BandRegions>& bands, RegionTally& tally) {
    std::vector<std::uint32_t> base(bands.size() + 1, 0);
    for (std::size_t b = 0; b < bands.size(); ++b) {
        tally.regions += bands[b].complete.regions;
        tally.specks += bands[b].complete.specks;
        tally.largest = std::max(tally.largest, bands[b].complete.largest);
        base[b + 1] = base[b] + static_cast<std::uint32_t>(bands[b].node_size.size());
    }
    std::vector<std::uint32_t> parent(base.back());
    for (std::uint32_t n = 0; n < parent.size(); ++n)
        parent[n] = n;
    auto find = [&](std::uint32_t a) {
        while (parent[a] != a) {
            parent[a] = parent[parent[a]];
            a = parent[a];
        }
        return a;
    };
    auto unite = [&](std::uint32_t a, std::uint32_t b) {
        a = find(a);
        b = find(b);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    };
    for (std::size_t b = 0; b < bands.size(); ++b) {
        for (const auto& [x, y] : bands[b].links)
            unite(base[b] + x, base[b] + y);
        if (b + 1 == bands.size()) break;
        const BandRegions& up = bands[b];
        const BandRegions& down = bands[b + 1];
        std::size_t i = 0, j = 0;
        while (i < up.bottom_runs.size() && j < down.top_runs.size()) {
            const Run& a = up.bottom_runs[i];
            const Run& c = down.top_runs[j];
            if (a.start < c.end && c.start < a.end && a.key == c.key)
                unite(base[b] + up.bottom_node[i], base[b + 1] + static_cast<std::uint32_t>(j));
            step_past_first_end(a, c, i, j);
        }
    }
    std::vector<std::uint64_t> size(parent.size(), 0);
    for (std::size_t b = 0; b < bands.size(); ++b)
        for (std::size_t n = 0; n < bands[b].node_size.size(); ++n)
            size[find(base[b] + static_cast<std::uint32_t>(n))] += bands[b].node_size[n];
    for (std::uint32_t n = 0; n < parent.size(); ++n)
        if (parent[n] == n) tally.add(size[n]);
}

// Everything one band of rows counts.
struct BandResult {
    BandRegions classes;
    BandRegions walkable;
    std::uint64_t thin_cells = 0;
    std::uint64_t corner_windows = 0;
    std::uint64_t boundary_edges = 0;
    std::array<std::uint64_t, 256> counts{};
};

// Thin cells of row r (u, d: the rows above and below, nullptr outside the map). Branch-free
// comparisons, so the loops vectorise.
std::uint64_t thin_in_row(const ClassId* u, const ClassId* r, const ClassId* d, int w) {
    std::uint32_t n = 0; // at most 65536 per row
    if (u && d) {
        if (w >= 1) n += static_cast<unsigned>(u[0] != r[0]) & static_cast<unsigned>(d[0] != r[0]);
        if (w >= 2)
            n += static_cast<unsigned>(u[w - 1] != r[w - 1]) &
                 static_cast<unsigned>(d[w - 1] != r[w - 1]);
        for (int x = 1; x < w - 1; ++x) {
            const ClassId c = r[x];
            n += (static_cast<unsigned>(r[x - 1] != c) & static_cast<unsigned>(r[x + 1] != c)) |
                 (static_cast<unsigned>(u[x] != c) & static_cast<unsigned>(d[x] != c));
        }
    } else {
        for (int x = 1; x < w - 1; ++x) {
            const ClassId c = r[x];
            n += static_cast<unsigned>(r[x - 1] != c) & static_cast<unsigned>(r[x + 1] != c);
        }
    }
    return n;
}

// One past the last cell of the run of r[x]'s class starting at x (w: the row's width). Compares
// 8 cells at a time.
std::uint32_t run_end(const ClassId* r, std::uint32_t x, std::uint32_t w) {
    const ClassId c = r[x];
    std::uint32_t e = x + 1;
    if constexpr (std::endian::native == std::endian::little) {
        const std::uint64_t pattern = 0x0101010101010101ULL * c;
        for (; e + 8 <= w; e += 8) {
            std::uint64_t word;
            std::memcpy(&word, r + e, 8);
            if (const std::uint64_t diff = word ^ pattern)
                return e + static_cast<std::uint32_t>(std::countr_zero(diff)) / 8;
        }
    }
    while (e < w && r[e] == c)
        ++e;
    return e;
}

// Boundary edges between rows r and d, and the corner windows on them.
void pair_of_rows(const ClassId* r, const ClassId* d, int w, std::uint64_t& edges,
                  std::uint64_t& corners) {
    std::uint64_t e = 0, k = 0;
    for (int x = 0; x < w; ++x)
        e += r[x] != d[x] ? 1 : 0;
    for (int x = 0; x + 1 < w; ++x) {
        const ClassId a = r[x], b = r[x + 1], c = d[x], f = d[x + 1];
        const unsigned eq = static_cast<unsigned>(a == b) + static_cast<unsigned>(a == c) +
                            static_cast<unsigned>(a == f) + static_cast<unsigned>(b == c) +
                            static_cast<unsigned>(b == f) + static_cast<unsigned>(c == f);
        // 4 equal: 6 pairs; 3 + 1: 3; 2 + 2: 2; 2 + 1 + 1: 1; all different: 0.
        k += eq == 3 ? 1 : 0;
    }
    edges += e;
    corners += k;
}

void label_band(const ClassGrid& grid, const std::array<bool, 256>& walkable, int y0, int y1,
                BandResult& out) {
    const int w = grid.width(), h = grid.height();
    BandLabeller class_labeller(out.classes);
    BandLabeller walk_labeller(out.walkable);
    std::vector<Run> class_runs, walk_runs;
    class_runs.reserve(static_cast<std::size_t>(w));
    walk_runs.reserve(static_cast<std::size_t>(w));
    for (int y = y0; y < y1; ++y) {
        const ClassId* r = grid.row(y);
        const ClassId* u = y > 0 ? grid.row(y - 1) : nullptr;
        const ClassId* d = y + 1 < h ? grid.row(y + 1) : nullptr;

        class_runs.clear();
        walk_runs.clear();
        for (std::uint32_t x = 0; x < static_cast<std::uint32_t>(w);) {
            const std::uint32_t e = run_end(r, x, static_cast<std::uint32_t>(w));
            class_runs.push_back({x, e, r[x]});
            x = e;
        }
        for (const Run& run : class_runs) {
            out.counts[run.key] += run.end - run.start;
            if (!walkable[run.key]) continue;
            if (!walk_runs.empty() && walk_runs.back().end == run.start)
                walk_runs.back().end = run.end;
            else
                walk_runs.push_back({run.start, run.end, 0});
        }
        out.boundary_edges += class_runs.size() - 1; // E-W pairs
        class_labeller.row(class_runs, y == y0);
        walk_labeller.row(walk_runs, y == y0);
        out.thin_cells += thin_in_row(u, r, d, w);
        if (d) pair_of_rows(r, d, w, out.boundary_edges, out.corner_windows);
    }
    class_labeller.end();
    walk_labeller.end();
}

} // namespace

MapStats compute_map_stats(const ClassGrid& classes, const std::vector<bool>& walkable,
                           const std::vector<double>& target_shares, std::uint64_t unmatched,
                           int threads) {
    MapStats s;
    s.unmatched = unmatched;
    const std::size_t class_count = walkable.size();
    s.cells = classes.size();
    std::array<bool, 256> walk{};
    for (std::size_t c = 0; c < class_count && c < walk.size(); ++c)
        walk[c] = walkable[c];

    std::array<std::uint64_t, 256> counts{};
    if (!classes.empty()) {
        const int h = classes.height();
        const int bands = std::clamp(threads, 1, h);
        std::vector<BandResult> results(static_cast<std::size_t>(bands));
        parallel_for(bands, bands, [&](int begin, int end) {
            for (int b = begin; b < end; ++b) {
                const int y0 = static_cast<int>(static_cast<long long>(h) * b / bands);
                const int y1 = static_cast<int>(static_cast<long long>(h) * (b + 1) / bands);
                label_band(classes, walk, y0, y1, results[static_cast<std::size_t>(b)]);
            }
        });
        std::vector<BandRegions> class_bands, walk_bands;
        for (BandResult& r : results) {
            s.thin_cells += r.thin_cells;
            s.corner_windows += r.corner_windows;
            s.boundary_edges += r.boundary_edges;
            for (std::size_t c = 0; c < counts.size(); ++c)
                counts[c] += r.counts[c];
            class_bands.push_back(std::move(r.classes));
            walk_bands.push_back(std::move(r.walkable));
        }
        RegionTally class_tally, walk_tally;
        join_bands(class_bands, class_tally);
        join_bands(walk_bands, walk_tally);
        s.class_regions = class_tally.regions;
        s.specks = class_tally.specks;
        s.walkable_regions = walk_tally.regions;
        s.largest_walkable_cells = walk_tally.largest;
    }
    for (std::size_t c = 0; c < counts.size(); ++c)
        if (walk[c]) s.walkable_cells += counts[c];

    const auto cells = static_cast<double>(s.cells);
    s.thin = s.cells ? static_cast<double>(s.thin_cells) / cells : 0.0;
    s.largest_walkable = s.walkable_cells ? static_cast<double>(s.largest_walkable_cells) /
                                                static_cast<double>(s.walkable_cells)
                                          : 0.0;
    s.corner_density = s.boundary_edges ? static_cast<double>(s.corner_windows) /
                                              static_cast<double>(s.boundary_edges)
                                        : 0.0;
    s.class_fractions.assign(class_count, 0.0);
    s.share_error.assign(class_count, std::numeric_limits<double>::quiet_NaN());
    for (std::size_t c = 0; c < class_count; ++c) {
        const std::uint64_t n = c < counts.size() ? counts[c] : 0;
        s.class_fractions[c] = s.cells ? static_cast<double>(n) / cells : 0.0;
        if (c < target_shares.size() && !std::isnan(target_shares[c]))
            s.share_error[c] = (s.class_fractions[c] - target_shares[c]) * 100.0;
    }
    return s;
}

void write_map_stats_json(JsonWriter& json, const MapStats& stats,
                          const std::vector<TerrainClass>& terrain) {
    json.begin_object();
    json.key(kMapStatsKeys[0]).value(stats.specks);
    json.key(kMapStatsKeys[1]).value(stats.thin);
    json.key(kMapStatsKeys[2]).value(stats.walkable_regions);
    json.key(kMapStatsKeys[3]).value(stats.largest_walkable);
    json.key(kMapStatsKeys[4]).value(stats.corner_density);
    json.key(kMapStatsKeys[5]).begin_object();
    for (std::size_t c = 0; c < stats.share_error.size() && c < terrain.size(); ++c)
        if (!std::isnan(stats.share_error[c]))
            json.key(terrain[c].name).value(stats.share_error[c]);
    json.end_object();
    json.key(kMapStatsKeys[6]).value(stats.unmatched);
    json.end_object();
}

std::vector<bool> walkable_flags(const std::vector<TerrainClass>& terrain) {
    std::vector<bool> flags;
    flags.reserve(terrain.size());
    for (const TerrainClass& t : terrain)
        flags.push_back(t.walkable);
    return flags;
}

std::vector<double> target_shares(const std::vector<TerrainClass>& terrain, bool has_shares) {
    std::vector<double> shares;
    shares.reserve(terrain.size());
    for (const TerrainClass& t : terrain)
        shares.push_back(has_shares ? t.share : std::numeric_limits<double>::quiet_NaN());
    return shares;
}

} // namespace tilegen
