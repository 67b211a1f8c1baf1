// Where streamed output goes: writers (TMX, TMJ, layer data) call write() with consecutive pieces,
// so large outputs never have to be held in memory whole. A file sink lives in io/files.hpp (atomic
// writes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tilegen::io {

class ByteSink {
  public:
    virtual ~ByteSink() = default;
    virtual void write(std::string_view bytes) = 0;
};

// Collects everything in a string (tmx_text and friends).
class StringSink : public ByteSink {
  public:
    std::string text;
    void write(std::string_view bytes) override { text.append(bytes); }
};

// Discards the bytes and counts them (benchmarks).
class CountingSink : public ByteSink {
  public:
    std::uint64_t bytes = 0;
    void write(std::string_view piece) override { bytes += piece.size(); }
};

} // namespace tilegen::io
