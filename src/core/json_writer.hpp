// A minimal JSON writer for machine-readable output (--json). Keys are written in the order given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tilegen {

class JsonWriter {
  public:
    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(std::string_view k);
    JsonWriter& value(std::string_view s);
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(double d);
    JsonWriter& value(std::uint64_t u);
    JsonWriter& value(std::int64_t i);
    JsonWriter& value(int i) { return value(static_cast<std::int64_t>(i)); }
    JsonWriter& value(bool b);
    // Appends already-formatted JSON as one value (e.g. a long number array built elsewhere).
    JsonWriter& raw(std::string_view json);
    const std::string& str() const { return out_; }

  private:
    void separator();
    std::string out_;
    bool need_comma_ = false;
};

std::string json_quote(std::string_view s);

} // namespace tilegen
