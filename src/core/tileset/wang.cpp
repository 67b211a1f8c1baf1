#include "core/tileset/wang.hpp"

#include <sstream>

namespace tilegen {

namespace {
std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    std::string p;
    while (std::getline(in, p, '-'))
        parts.push_back(p);
    return parts;
}
} // namespace

std::vector<WangId> corner_wang_ids_from_names(const std::vector<std::string>& tile_names,
                                               const std::vector<std::string>& terrain_names) {
    auto color = [&](const std::string& name) -> int {
        for (std::size_t i = 0; i < terrain_names.size(); ++i)
            if (terrain_names[i] == name) return static_cast<int>(i) + 1;
        return 0;
    };
    std::vector<WangId> out(tile_names.size(), WangId{});
    for (std::size_t t = 0; t < tile_names.size(); ++t) {
        const auto parts = split(tile_names[t]);
        if (parts.empty()) continue;
        const int upper = color(parts[0]);
        if (!upper) continue;
        const int lower = parts.size() >= 2 ? color(parts[1]) : 0;
        if (!lower) {
            if (parts.size() <= 2)
                for (int k = 1; k < 8; k += 2)
                    out[t][static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(upper);
            continue;
        }
        if (parts.size() != 4 || parts[2] != "corner" || parts[3].size() != 4 ||
            parts[3].find_first_not_of("ul") != std::string::npos)
            continue;
        auto c = [&](int i) {
            return static_cast<std::uint8_t>(parts[3][static_cast<std::size_t>(i)] == 'u' ? upper
                                                                                          : lower);
        };
        // top-left, top-right, bottom-left, bottom-right -> wangid 7, 1, 5, 3
        out[t][7] = c(0);
        out[t][1] = c(1);
        out[t][5] = c(2);
        out[t][3] = c(3);
    }
    return out;
}

std::vector<WangId> wang_ids_from_names(const std::vector<std::string>& tile_names,
                                        const std::vector<std::string>& terrain_names) {
    auto color = [&](const std::string& name) -> int {
        for (std::size_t i = 0; i < terrain_names.size(); ++i)
            if (terrain_names[i] == name) return static_cast<int>(i) + 1;
        return 0;
    };
    std::vector<WangId> out(tile_names.size(), WangId{});
    for (std::size_t t = 0; t < tile_names.size(); ++t) {
        const auto parts = split(tile_names[t]);
        if (parts.empty()) continue;
        const int upper = color(parts[0]);
        if (!upper) continue;
        const int lower = parts.size() >= 2 ? color(parts[1]) : 0;
        if (!lower) { // a plain tile or a variant of one
            if (parts.size() <= 2) out[t].fill(static_cast<std::uint8_t>(upper));
            continue;
        }
        bool n = false, e = false, s = false, w = false, ne = false, se = false, sw = false,
             nw = false, valid = true;
        for (std::size_t i = 2; i < parts.size(); ++i) {
            const std::string& d = parts[i];
            // One branch per direction word: shared shape, not logic (deliberate).
            if (d == "n")
                n = true;
            else if (d == "e")
                e = true;
            else if (d == "s")
                s = true;
            else if (d == "w")
                w = true;
            else if (d == "ne")
                ne = true;
            else if (d == "se")
                se = true;
            else if (d == "sw")
                sw = true;
            else if (d == "nw")
                nw = true;
            else
                valid = false;
        }
        if (!valid) continue;
        auto c = [&](bool is_lower) { return static_cast<std::uint8_t>(is_lower ? lower : upper); };
        out[t] = {c(n), c(n || e || ne), c(e), c(e || s || se),
                  c(s), c(s || w || sw), c(w), c(w || n || nw)};
    }
    return out;
}

} // namespace tilegen
