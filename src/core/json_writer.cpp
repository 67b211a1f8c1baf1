#include "core/json_writer.hpp"

#include <cmath>
#include <cstdio>

namespace tilegen {

// JSON's escapes; io/xml_text.hpp's xml_escape has the same shape with XML's (deliberate).
std::string json_quote(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x",
                              static_cast<unsigned>(static_cast<unsigned char>(c)));
                out += buf;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

void JsonWriter::separator() {
    if (need_comma_) out_ += ',';
    need_comma_ = false;
}

// Objects and arrays open and close alike but for the bracket: four one-line members (deliberate).
JsonWriter& JsonWriter::begin_object() {
    separator();
    out_ += '{';
    return *this;
}
JsonWriter& JsonWriter::end_object() {
    out_ += '}';
    need_comma_ = true;
    return *this;
}
JsonWriter& JsonWriter::begin_array() {
    separator();
    out_ += '[';
    return *this;
}
JsonWriter& JsonWriter::end_array() {
    out_ += ']';
    need_comma_ = true;
    return *this;
}
JsonWriter& JsonWriter::key(std::string_view k) {
    separator();
    out_ += json_quote(k);
    out_ += ':';
    return *this;
}
JsonWriter& JsonWriter::value(std::string_view s) {
    separator();
    out_ += json_quote(s);
    need_comma_ = true;
    return *this;
}
JsonWriter& JsonWriter::value(double d) {
    separator();
    if (!std::isfinite(d)) {
        out_ += "null";
    } else {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.6g", d);
        out_ += buf;
    }
    need_comma_ = true;
    return *this;
}
JsonWriter& JsonWriter::value(std::uint64_t u) {
    separator();
    out_ += std::to_string(u);
    need_comma_ = true;
    return *this;
}
JsonWriter& JsonWriter::value(std::int64_t i) {
    separator();
    out_ += std::to_string(i);
    need_comma_ = true;
    return *this;
}
JsonWriter& JsonWriter::value(bool b) {
    separator();
    out_ += b ? "true" : "false";
    need_comma_ = true;
    return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
    separator();
    out_ += json;
    need_comma_ = true;
    return *this;
}

} // namespace tilegen
