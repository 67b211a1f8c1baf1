// Helpers for the painter's tests: the shipped descriptions, and an exact coverage check of 3x3
// rule sets.
//
// Exact coverage without enumerating k^9 neighbourhoods: for a given centre class, a neighbour's
// class only matters through which of the candidate rules' cells (at that position) accept it.
// Classes accepted by exactly the same cells are interchangeable, so one representative per group
// and position gives every distinct outcome: the product of the group counts is small (4^8 for the
// seven-terrain overworld) where 7^9 is 40M.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/rules/rule_check.hpp"
#include "core/rules/rule_matcher.hpp"
#include "core/rules/rule_parser.hpp"
#include "paint/description.hpp"
#include "test_support.hpp"

namespace tilegen::test::paint {

inline const tilegen::paint::Description& description(const std::string& set) {
    static std::map<std::string, tilegen::paint::Description> cache;
    auto it = cache.find(set);
    if (it != cache.end()) return it->second;
    const std::string path = "tilesets/" + set + "/paint.toml";
    Diagnostics diags;
    auto d = tilegen::paint::parse_description(read_text(source_dir() / path), path, diags);
    for (const auto& e : diags)
        MESSAGE(format_diagnostic(e));
    REQUIRE(d);
    return cache.emplace(set, *d).first->second;
}

// Symbols of a description's terrains (all, or a rules output's), lowest first: class id =
// position.
inline std::string symbols_by_height(const tilegen::paint::Description& d,
                                     const std::vector<int>& only = {}) {
    std::vector<const tilegen::paint::Terrain*> ts;
    for (std::size_t i = 0; i < d.terrains.size(); ++i)
        if (only.empty() || std::find(only.begin(), only.end(), static_cast<int>(i)) != only.end())
            ts.push_back(&d.terrains[i]);
    std::sort(ts.begin(), ts.end(), [](auto* a, auto* b) { return a->height < b->height; });
    std::string out;
    for (auto* t : ts)
        out += t->symbol;
    return out;
}

// Rules of one layer ("ground"), parsed with the library and ordered as the matcher tries them.
inline std::vector<Rule> ordered_rules(const std::string& text, const std::string& symbols) {
    SymbolTable table;
    for (std::size_t i = 0; i < symbols.size(); ++i)
        table[symbols[i]] = static_cast<int>(i);
    Diagnostics diags;
    auto rules = parse_rules(text, "rules", table, diags);
    for (const auto& e : diags)
        FAIL_CHECK(format_diagnostic(e));
    for (const Rule& r : rules)
        REQUIRE(r.pattern.radius() <= 1);
    return order_by_specificity(std::move(rules));
}

struct ExactCoverage {
    std::uint64_t representatives = 0; // neighbourhoods examined (one per equivalence class)
    std::uint64_t neighbourhoods = 0;  // all neighbourhoods they stand for (k^9)
    std::uint64_t uncovered = 0; // neighbourhoods decided by no rule or a catch-all (specificity 0)
    std::vector<std::uint64_t> decided; // per ordered rule: neighbourhoods it decides
};

// Calls visit(neighbourhood, deciding rule or -1) once per equivalence class of 3x3 neighbourhoods
// over k classes.
inline ExactCoverage
exact_coverage(const std::vector<Rule>& ordered, int k,
               const std::function<void(const Neighbourhood&, int)>& visit = {}) {
    ExactCoverage out;
    out.decided.assign(ordered.size(), 0);
    static constexpr int kPos[8][2] = {{-1, -1}, {0, -1}, {1, -1}, {-1, 0},
                                       {1, 0},   {-1, 1}, {0, 1},  {1, 1}};
    for (int centre = 0; centre < k; ++centre) {
        std::vector<int> candidates;
        for (std::size_t r = 0; r < ordered.size(); ++r)
            if (ordered[r].pattern.at(0, 0) & (ClassMask{1} << centre))
                candidates.push_back(static_cast<int>(r));
        // Per position: groups of classes with the same acceptance by every candidate; a
        // representative and a size.
        std::vector<std::vector<std::pair<int, int>>> groups(8);
        for (int p = 0; p < 8; ++p) {
            std::map<std::vector<bool>, std::pair<int, int>> by_signature;
            for (int c = 0; c < k; ++c) {
                std::vector<bool> sig;
                for (int r : candidates) {
                    const Descriptor& pat = ordered[static_cast<std::size_t>(r)].pattern;
                    const ClassMask m =
                        pat.radius() == 0 ? kAnyClass : pat.at(kPos[p][0], kPos[p][1]);
                    sig.push_back((m & (ClassMask{1} << c)) != 0);
                }
                auto [it, fresh] = by_signature.emplace(sig, std::pair<int, int>{c, 0});
                ++it->second.second;
            }
            for (const auto& [sig, g] : by_signature)
                groups[static_cast<std::size_t>(p)].push_back(g);
        }
        std::vector<std::size_t> pick(8, 0);
        Neighbourhood n{3, std::vector<ClassId>(9, 0)};
        n.cells[4] = static_cast<ClassId>(centre);
        while (true) {
            std::uint64_t weight = 1;
            for (int p = 0; p < 8; ++p) {
                const auto& g =
                    groups[static_cast<std::size_t>(p)][pick[static_cast<std::size_t>(p)]];
                const int idx = (kPos[p][1] + 1) * 3 + (kPos[p][0] + 1);
                n.cells[static_cast<std::size_t>(idx)] = static_cast<ClassId>(g.first);
                weight *= static_cast<std::uint64_t>(g.second);
            }
            int decided = -1;
            for (int r : candidates)
                if (matches(ordered[static_cast<std::size_t>(r)].pattern, n)) {
                    decided = r;
                    break;
                }
            ++out.representatives;
            out.neighbourhoods += weight;
            if (decided < 0 ||
                ordered[static_cast<std::size_t>(decided)].pattern.specificity() == 0)
                out.uncovered += weight;
            if (decided >= 0) out.decided[static_cast<std::size_t>(decided)] += weight;
            if (visit) visit(n, decided);
            int p = 0;
            while (p < 8 && ++pick[static_cast<std::size_t>(p)] ==
                                groups[static_cast<std::size_t>(p)].size())
                pick[static_cast<std::size_t>(p++)] = 0;
            if (p == 8) break;
        }
    }
    return out;
}

} // namespace tilegen::test::paint
