// Escaping text for XML attribute values and content (TMX/TSX writers).
#pragma once

#include <string>

namespace tilegen::io {

// XML's escapes; core/json_writer's json_quote has the same shape with JSON's (deliberate).
inline std::string xml_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

} // namespace tilegen::io
