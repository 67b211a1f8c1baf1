#include "core/classes/class_map_text.hpp"

#include <vector>

namespace tilegen {

std::optional<ClassGrid> parse_class_map(std::string_view text, const std::string& path,
                                         const SymbolTable& symbols, Diagnostics& diags) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    std::vector<std::string_view> rows;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        rows.push_back(line);
        pos = end + 1;
    }
    while (!rows.empty() && rows.back().empty())
        rows.pop_back();
    if (rows.empty()) {
        diags.push_back(error_at(
            path, 1, 1, "class map is empty: expected one line of terrain symbols per row"));
        return std::nullopt;
    }
    const std::size_t width = rows.front().size();
    if (width > 65536 || rows.size() > 65536) {
        diags.push_back(error_at(path, 1, 1, "class map is larger than 65536 cells on a side"));
        return std::nullopt;
    }
    ClassGrid grid(static_cast<int>(width), static_cast<int>(rows.size()), 0);
    bool ok = true;
    for (std::size_t y = 0; y < rows.size() && ok; ++y) {
        const int line = static_cast<int>(y) + 1;
        if (rows[y].size() != width) {
            int col = static_cast<int>(std::min(rows[y].size(), width)) + 1;
            diags.push_back(error_at(path, line, col,
                                     "row has " + std::to_string(rows[y].size()) +
                                         " cells, expected " + std::to_string(width) +
                                         " like the first row"));
            ok = false;
            break;
        }
        for (std::size_t x = 0; x < width; ++x) {
            auto it = symbols.find(rows[y][x]);
            if (it == symbols.end()) {
                std::string known;
                for (const auto& [s, c] : symbols)
                    known += s;
                unsigned char ch = static_cast<unsigned char>(rows[y][x]);
                std::string shown = (ch >= 0x20 && ch < 0x7f) ? std::string(1, rows[y][x])
                                                              : "byte " + std::to_string(ch);
                diags.push_back(error_at(path, line, static_cast<int>(x) + 1,
                                         "unknown terrain symbol '" + shown +
                                             "' (the recipe's symbols are: " + known + ")"));
                ok = false;
                break;
            }
            grid(static_cast<int>(x), static_cast<int>(y)) = static_cast<ClassId>(it->second);
        }
    }
    if (!ok) return std::nullopt;
    return grid;
}

std::string class_map_text(const ClassGrid& classes, const std::string& symbols_by_class) {
    std::string out;
    out.reserve(classes.size() + static_cast<std::size_t>(classes.height()));
    for (int y = 0; y < classes.height(); ++y) {
        for (int x = 0; x < classes.width(); ++x)
            out += symbols_by_class[classes(x, y)];
        out += '\n';
    }
    return out;
}

} // namespace tilegen
