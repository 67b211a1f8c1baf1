#include "io/png_stream.hpp"

#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <condition_variable>
#include <csetjmp>
#include <cstring>
#include <mutex>
#include <thread>

#include "core/preview.hpp"
#include "io/files.hpp"
#include "io/strip_deflate.hpp"

namespace tilegen::io {

namespace {

// One strip, ready to write: its part of the zlib stream and the Adler-32 of its filtered rows.
// Strips are swapped between the workers, the slots and the writer, never freed, so their buffers
// are allocated (and their pages faulted in) only while they grow.
struct Strip {
    std::vector<std::uint8_t> deflated; // the first `bytes` of it
    std::size_t bytes = 0;
    std::uint32_t adler = 1;
    std::size_t filtered_bytes = 0;
    bool done = false;
};

int bit_depth_of(const PngStrips& image) {
    if (image.color != PngColor::indexed) return 8;
    const std::size_t n = image.palette.size();
    return n <= 2 ? 1 : n <= 4 ? 2 : n <= 16 ? 4 : 8;
}

// Renders, filters and deflates strips; one per thread, reused from strip to strip.
class StripMaker {
  public:
    StripMaker(const PngStrips& image, int level) : image_(image) {
        depth_ = bit_depth_of(image);
        channels_ = image.color == PngColor::indexed ? 1 : image.color == PngColor::rgb ? 3 : 4;
        row_bytes_ = image.color == PngColor::indexed
                         ? (static_cast<std::size_t>(image.width) * depth_ + 7) / 8
                         : static_cast<std::size_t>(image.width) * channels_;
        // Matches are looked for where a piece starts (packed rows: every byte).
        unit_ = depth_ < 8 ? 1
                           : static_cast<std::size_t>(std::max(1, image.piece_pixels)) *
                                 static_cast<std::size_t>(channels_);
        zlib_ = level >= 0;
        ok_ = !zlib_ || deflateInit2(&z_, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    }
    ~StripMaker() {
        if (zlib_ && ok_) deflateEnd(&z_);
    }
    StripMaker(const StripMaker&) = delete;
    StripMaker& operator=(const StripMaker&) = delete;
    bool ok() const { return ok_; }

    // Strip k: rows [k * strip_rows, ...). False on a zlib error.
    bool make(int k, int strips, Strip& out) {
        const int y0 = k * image_.strip_rows, y1 = std::min(image_.height, y0 + image_.strip_rows);
        const int rows = y1 - y0;
        const std::size_t stride = row_bytes_ + 1;
        filtered_.resize(stride * static_cast<std::size_t>(rows));
        // 8-bit indices and RGBA are drawn straight behind each row's filter byte (None).
        const bool direct = depth_ == 8 && image_.color != PngColor::rgb;
        if (direct) {
            image_.rows(y0, y1, filtered_.data() + 1, stride);
            for (int r = 0; r < rows; ++r)
                filtered_[static_cast<std::size_t>(r) * stride] = 0;
        } else {
            raw_.resize(image_.buffer_bytes(rows));
            image_.rows(y0, y1, raw_.data(), 0);
        }
        const std::size_t pixel_row = static_cast<std::size_t>(image_.width) *
                                      (image_.color == PngColor::indexed ? 1 : channels_);
        for (int r = 0; r < rows && !direct; ++r) {
            const std::uint8_t* src = raw_.data() + static_cast<std::size_t>(r) * pixel_row;
            if (depth_ < 8) {
                // Packed: the leftmost pixel in the high bits (PNG).
                packed_.assign(row_bytes_, 0);
                const int per_byte = 8 / depth_;
                for (int x = 0; x < image_.width; ++x)
                    packed_[static_cast<std::size_t>(x / per_byte)] |=
                        static_cast<std::uint8_t>(src[x] << (8 - depth_ * (x % per_byte + 1)));
                src = packed_.data();
            }
            std::uint8_t* dst = filtered_.data() + static_cast<std::size_t>(r) * stride;
            dst[0] = 0; // filter None: tile art repeats byte for byte, and None keeps that
            std::memcpy(dst + 1, src, row_bytes_);
        }
        out.filtered_bytes = filtered_.size();
        out.adler = adler32_update(1, filtered_.data(), filtered_.size());
        const bool last = k == strips - 1;
        if (!zlib_) {
            out.bytes = deflater_.compress(filtered_.data(), filtered_.size(), stride, unit_, last,
                                           out.deflated);
            out.done = true;
            return true;
        }
        if (deflateReset(&z_) != Z_OK) return false;
        std::vector<std::uint8_t>& deflated = out.deflated;
        const std::size_t bound = deflateBound(&z_, static_cast<uLong>(filtered_.size())) + 64;
        if (deflated.size() < bound) deflated.resize(bound);
        z_.next_in = filtered_.data();
        z_.avail_in = static_cast<uInt>(filtered_.size());
        std::size_t produced = 0;
        for (;;) {
            z_.next_out = deflated.data() + produced;
            z_.avail_out = static_cast<uInt>(deflated.size() - produced);
            const int rc = deflate(&z_, last ? Z_FINISH : Z_SYNC_FLUSH);
            produced = deflated.size() - z_.avail_out;
            if (last ? rc == Z_STREAM_END : rc == Z_OK && z_.avail_out != 0) break; // all out
            if (rc != Z_OK && rc != Z_BUF_ERROR) return false;
            deflated.resize(deflated.size() * 2);
        }
        out.bytes = produced;
        out.done = true;
        return true;
    }

  private:
    const PngStrips& image_;
    z_stream z_{};
    bool zlib_ = false, ok_ = false;
    StripDeflater deflater_;
    int depth_ = 8, channels_ = 4;
    std::size_t row_bytes_ = 0, unit_ = 1;
    std::vector<std::uint8_t> raw_, filtered_, packed_;
};

// libpng: output to the sink, errors as text (libpng longjmps out of png_error; the functions
// calling libpng below hold no C++ objects across setjmp).
struct PngContext {
    ByteSink* sink = nullptr;
    char error[200] = {};
};

void png_write_to_sink(png_structp png, png_bytep data, size_t n) {
    auto* ctx = static_cast<PngContext*>(png_get_io_ptr(png));
    ctx->sink->write(std::string_view(reinterpret_cast<const char*>(data), n));
}
void png_flush_nothing(png_structp) {}
void png_error_to_context(png_structp png, png_const_charp message) {
    auto* ctx = static_cast<PngContext*>(png_get_error_ptr(png));
    std::snprintf(ctx->error, sizeof ctx->error, "%s", message);
    png_longjmp(png, 1);
}
void png_ignore_warning(png_structp, png_const_charp) {}

bool png_write_header(png_structp png, png_infop info, const PngStrips& image, int depth,
                      const png_color* colours, const png_byte* alphas, int colour_count,
                      int transparent_count) {
    if (setjmp(png_jmpbuf(png))) return false;
    const int type = image.color == PngColor::indexed ? PNG_COLOR_TYPE_PALETTE
                     : image.color == PngColor::rgb   ? PNG_COLOR_TYPE_RGB
                                                      : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(png, info, static_cast<png_uint_32>(image.width),
                 static_cast<png_uint_32>(image.height), depth, type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (image.color == PngColor::indexed) {
        png_set_PLTE(png, info, colours, colour_count);
        if (transparent_count > 0) png_set_tRNS(png, info, alphas, transparent_count, nullptr);
    }
    png_write_info(png, info);
    return true;
}

// One IDAT chunk: `head` (the zlib header, or nothing), `body`, `tail` (the Adler-32, or nothing).
bool png_write_idat(png_structp png, const std::uint8_t* head, std::size_t head_n,
                    const std::uint8_t* body, std::size_t body_n, const std::uint8_t* tail,
                    std::size_t tail_n) {
    if (setjmp(png_jmpbuf(png))) return false;
    static const png_byte idat[5] = {'I', 'D', 'A', 'T', 0};
    png_write_chunk_start(png, idat, static_cast<png_uint_32>(head_n + body_n + tail_n));
    if (head_n) png_write_chunk_data(png, head, head_n);
    if (body_n) png_write_chunk_data(png, body, body_n);
    if (tail_n) png_write_chunk_data(png, tail, tail_n);
    png_write_chunk_end(png);
    return true;
}

bool png_write_iend(png_structp png) {
    if (setjmp(png_jmpbuf(png))) return false;
    static const png_byte iend[5] = {'I', 'E', 'N', 'D', 0};
    png_write_chunk(png, iend, nullptr, 0);
    return true;
}

} // namespace

bool write_png_strips(ByteSink& sink, const PngStrips& image, const PngStreamOptions& options,
                      const std::string& name, Diagnostics& diags) {
    auto fail = [&](const std::string& what) {
        diags.push_back(error_at(name, 0, 0, "cannot write PNG: " + what));
        return false;
    };
    if (image.width <= 0 || image.height <= 0) return fail("the image is empty");
    if (image.color == PngColor::indexed && (image.palette.empty() || image.palette.size() > 256))
        return fail("a palette needs 1 to 256 colours");
    if (image.strip_rows <= 0) return fail("strips need at least one row");
    if (!image.rows || !image.buffer_bytes) return fail("no pixels to write");
    // zlib takes a strip in one call: its filtered bytes must fit in 32 bits.
    if ((static_cast<double>(image.width) * 4 + 1) * std::min(image.strip_rows, image.height) >=
        4294967295.0)
        return fail("strips of " + std::to_string(image.strip_rows) + " rows of " +
                    std::to_string(image.width) + " pixels are too large");
    const int level = std::clamp(options.level, -1, 9);
    const int strips = (image.height + image.strip_rows - 1) / image.strip_rows;
    const int threads = std::clamp(options.threads, 1, std::min(256, strips));

    // The header, PLTE and tRNS by libpng.
    PngContext ctx;
    ctx.sink = &sink;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, png_error_to_context,
                                              png_ignore_warning);
    if (!png) return fail("libpng could not start");
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, nullptr);
        return fail("libpng could not start");
    }
    png_set_write_fn(png, &ctx, png_write_to_sink, png_flush_nothing);
    png_color colours[256] = {};
    png_byte alphas[256] = {};
    int transparent_count = 0;
    for (std::size_t i = 0; i < image.palette.size(); ++i) {
        const Rgba c = image.palette[i];
        colours[i] = {c.r, c.g, c.b};
        alphas[i] = c.a;
        if (c.a != 255) transparent_count = static_cast<int>(i) + 1;
    }
    const int depth = bit_depth_of(image);
    if (!png_write_header(png, info, image, depth, colours, alphas,
                          static_cast<int>(image.palette.size()), transparent_count)) {
        png_destroy_write_struct(&png, &info);
        return fail(ctx.error);
    }

    // The zlib header: deflate, 32 KiB window, FLEVEL from the level (the built-in encoder: 0,
    // fastest), FCHECK (RFC 1950).
    const unsigned flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
    unsigned header = (0x78u << 8) | (flevel << 6);
    header += 31 - header % 31;
    const std::uint8_t zlib_head[2] = {static_cast<std::uint8_t>(header >> 8),
                                       static_cast<std::uint8_t>(header & 0xff)};

    // Strips made on `threads` threads, at most `window` ahead of the one written next; this
    // thread writes them in order.
    const int window = 2 * threads;
    std::vector<Strip> slots(static_cast<std::size_t>(window));
    std::mutex m;
    std::condition_variable cv;
    int next_claim = 0, next_write = 0;
    bool failed = false;
    std::string failure;
    auto worker = [&] {
        StripMaker maker(image, level);
        Strip strip;
        for (;;) {
            int k = 0;
            {
                std::unique_lock lock(m);
                cv.wait(lock, [&] {
                    return failed || next_claim >= strips || next_claim < next_write + window;
                });
                if (failed || next_claim >= strips) return;
                k = next_claim++;
            }
            const bool ok = maker.ok() && maker.make(k, strips, strip);
            std::lock_guard lock(m);
            if (!ok) {
                failed = true;
                failure = "zlib could not compress";
            } else {
                std::swap(slots[static_cast<std::size_t>(k % window)], strip);
            }
            cv.notify_all();
        }
    };
    std::vector<std::thread> pool;
    std::optional<StripMaker> inline_maker; // threads == 1: strips made here, between writes
    if (threads == 1) inline_maker.emplace(image, level);
    if (threads > 1)
        for (int t = 0; t < threads; ++t)
            pool.emplace_back(worker);
    std::uint32_t adler = 1; // Adler-32 of nothing
    bool written_ok = true;
    Strip strip;
    for (int k = 0; k < strips && written_ok; ++k) {
        if (threads > 1) {
            std::unique_lock lock(m);
            cv.wait(lock,
                    [&] { return failed || slots[static_cast<std::size_t>(k % window)].done; });
            if (failed) break;
            std::swap(strip, slots[static_cast<std::size_t>(k % window)]);
            slots[static_cast<std::size_t>(k % window)].done = false;
            ++next_write;
            cv.notify_all();
        } else if (!inline_maker->ok() || !inline_maker->make(k, strips, strip)) {
            failed = true;
            failure = "zlib could not compress";
            break;
        }
        adler = static_cast<std::uint32_t>(
            adler32_combine(adler, strip.adler, static_cast<z_off_t>(strip.filtered_bytes)));
        const std::uint8_t tail[4] = {
            static_cast<std::uint8_t>(adler >> 24), static_cast<std::uint8_t>(adler >> 16),
            static_cast<std::uint8_t>(adler >> 8), static_cast<std::uint8_t>(adler)};
        const bool first = k == 0, last = k == strips - 1;
        written_ok = png_write_idat(png, zlib_head, first ? 2 : 0, strip.deflated.data(),
                                    strip.bytes, tail, last ? 4 : 0);
    }
    {
        std::lock_guard lock(m);
        if (!written_ok) failed = true;
        cv.notify_all();
    }
    for (auto& t : pool)
        t.join();
    if (failed || !written_ok || !png_write_iend(png)) {
        png_destroy_write_struct(&png, &info);
        return fail(!failure.empty() ? failure : std::string(ctx.error));
    }
    png_destroy_write_struct(&png, &info);
    return true;
}

std::optional<int> write_preview_png(ByteSink& sink, const Map& map, int max_side,
                                     const PngStreamOptions& options, const std::string& name,
                                     Diagnostics& diags) {
    const PreviewRenderer renderer(map, max_side, options.threads);
    PngStrips image;
    image.width = renderer.width();
    image.height = renderer.height();
    image.color = renderer.color() == PreviewColor::indexed ? PngColor::indexed
                  : renderer.color() == PreviewColor::rgb   ? PngColor::rgb
                                                            : PngColor::rgba;
    image.palette = renderer.palette();
    image.strip_rows = std::min(64, std::max(1, image.height));
    image.piece_pixels = renderer.piece_pixels();
    image.buffer_bytes = [&](int rows) { return renderer.buffer_bytes(rows); };
    image.rows = [&](int y0, int y1, std::uint8_t* out, std::size_t pitch) {
        renderer.render_rows(y0, y1, out, pitch);
    };
    if (!write_png_strips(sink, image, options, name, diags)) return std::nullopt;
    return renderer.factor();
}

std::optional<int> save_preview_png(const std::filesystem::path& path, const Map& map, int max_side,
                                    const PngStreamOptions& options, Diagnostics& diags) {
    struct EncodingFailed {};
    std::optional<int> factor;
    try {
        if (!write_file_atomic(
                path,
                [&](ByteSink& sink) {
                    factor = write_preview_png(sink, map, max_side, options, path.string(), diags);
                    if (!factor) throw EncodingFailed{}; // the temporary file is removed
                },
                diags))
            return std::nullopt;
    } catch (const EncodingFailed&) {
        return std::nullopt;
    }
    return factor;
}

} // namespace tilegen::io
