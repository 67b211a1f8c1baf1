// Building blocks of the streaming writers (layer data, TMX objects): formatting fixed chunks of
// the output on several threads while writing them to a sink in order, and integer formatting
// without snprintf or streams. Chunk boundaries are fixed by the data, never by the thread count,
// so the bytes are the same for any count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "io/byte_sink.hpp"

namespace tilegen::io::detail {

// Chunk buffers have this many bytes of scratch past `bound`, for formatters that store 8 bytes at
// a time.
inline constexpr std::size_t kChunkSlack = 8;

// Writes chunks 0..count-1 to the sink in order. `format(i, out)` writes chunk i (at most `bound`
// bytes, plus kChunkSlack scratch) into `out` and returns its end. With threads > 1, up to
// `threads` chunks are formatted at once (the calling thread formats too, and writes each chunk as
// soon as it and all before it are done), with at most 4 x threads chunk buffers in flight.
void write_chunks_in_order(ByteSink& sink, std::size_t count, std::size_t bound, int threads,
                           const std::function<char*(std::size_t, char*)>& format);

// Decimal text of v (at most 20 characters; put_int: 21 with the sign). Returns the end.
char* put_uint(char* p, std::uint64_t v);
char* put_int(char* p, std::int64_t v);

} // namespace tilegen::io::detail
