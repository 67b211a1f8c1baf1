// Tile layer data encodings of Tiled's formats: csv, base64, and base64 of zlib, gzip or zstd
// compressed little-endian 32-bit gids. Encoding for writing, decoding for reading (a diagnostic on
// bad data).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/map.hpp"
#include "io/byte_sink.hpp"

namespace tilegen::io {

enum class LayerEncoding { csv, base64, base64_zlib, base64_gzip, base64_zstd };

// "csv", "base64", "base64+zlib", "base64+gzip", "base64+zstd"
std::optional<LayerEncoding> parse_layer_encoding(std::string_view name);
const char* layer_encoding_name(LayerEncoding e);
// TMX attributes: encoding="csv|base64", compression="" or "zlib|gzip|zstd".
const char* tmx_encoding_attribute(LayerEncoding e);
const char* tmx_compression_attribute(LayerEncoding e);

// The text inside <data> (csv: rows of comma-separated gids, newline after each row; base64: one
// line). `threads` only changes the speed, never the bytes.
std::string encode_layer(std::span<const Gid> gids, int width, LayerEncoding e, int threads = 1);

// encode_layer streamed into `sink` (the same bytes) without building the whole text: csv and
// uncompressed base64 are formatted in chunks of a fixed number of rows (cells for base64), up to
// `threads` chunks at a time, and written in order; zlib, gzip and zstd run as one stream whose
// output is base64-encoded as it comes.
void write_layer(ByteSink& sink, std::span<const Gid> gids, int width, LayerEncoding e,
                 int threads = 1);

// The layer as a TMJ "data" value: csv as a JSON array of gids, the others as a JSON string of
// base64.
void write_layer_json(ByteSink& sink, std::span<const Gid> gids, int width, LayerEncoding e,
                      int threads = 1);

std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

// Decodes <data> text with TMX attributes `encoding` and `compression` into exactly `expected`
// gids. On bad data: nullopt, and an error at file:line:column (where the data is; 0 = unknown)
// saying what is wrong appended to `diags`.
[[nodiscard]] std::optional<std::vector<Gid>>
decode_layer(std::string_view text, std::string_view encoding, std::string_view compression,
             std::size_t expected, Diagnostics& diags, const std::string& file = {}, int line = 0,
             int column = 0);

} // namespace tilegen::io
