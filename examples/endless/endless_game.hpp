// The endless-world game of examples/endless, shared with `tilegen view --endless`: walk a
// character through an endless world that tilegen makes chunk by chunk (public API and SFML only),
// with its trees and rocks.
//
// The world is a tilegen::api::World (position-based recipes only: every chunk generates on its
// own, to the same tiles whenever it is made). A worker thread makes the chunks around the camera,
// nearest first; the main thread draws each chunk's tiles once, as textured quads over the
// tileset's atlas (flip bits as texture-coordinate swaps), into the chunk's texture, and shows the
// chunks as sprites; chunks out of reach are dropped (their textures reused), so memory stays
// bounded however far you walk. Arrow keys walk (Shift runs); Escape quits. With `frames` the
// character walks east by itself for that many frames (`walk_cells` in all), then the frame times,
// memory (resident set at 10 % of the walk and at its end, and the peak) and chunk figures are
// printed on stdout.
#pragma once

#include <SFML/Graphics.hpp>
#include <tilegen/tilegen.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <malloc.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tilegen_endless {

struct Options {
    long frames = 0;           // 0: play (60 frames a second); N: walk by itself for N frames
    double walk_cells = 10000; // with frames: cells walked east in all
    std::string screenshot;    // with frames: the first frame after the walk with every chunk in
                               // view drawn, as PNG (empty: none)
    unsigned width = 800, height = 600; // window size in pixels
    std::string title = "tilegen endless";
};

constexpr int kChunk = 32; // cells per chunk side

using ChunkKey = std::pair<int, int>; // chunk column, row

// A chunk made by the worker: its tile layers (kChunk x kChunk gids each) and the objects
// anchored in it (cells from the chunk's top-left).
struct ChunkTiles {
    ChunkKey key;
    std::vector<tilegen::api::Layer> layers;
    std::vector<tilegen::api::Object> objects;
};

// The worker: takes the wanted chunks (nearest first), generates and renders each.
class ChunkWorker {
  public:
    explicit ChunkWorker(tilegen::api::World world)
        : world_(std::move(world)), thread_([this] { run(); }) {}
    ~ChunkWorker() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        thread_.join();
    }
    // Replaces the queue of wanted chunks (nearest first).
    void want(std::vector<ChunkKey> keys) {
        {
            std::lock_guard lock(mutex_);
            wanted_ = std::move(keys);
        }
        wake_.notify_all();
    }
    // Chunks made so far and their mean generation time, ms.
    std::pair<long, double> made() {
        std::lock_guard lock(mutex_);
        return {made_, made_ > 0 ? made_ms_ / static_cast<double>(made_) : 0.0};
    }
    std::vector<ChunkTiles> take_done() {
        std::lock_guard lock(mutex_);
        return std::exchange(done_, {});
    }

  private:
    void run() {
        for (;;) {
            ChunkKey key;
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return stop_ || !wanted_.empty(); });
                if (stop_) return;
                key = wanted_.front();
                wanted_.erase(wanted_.begin());
            }
            const auto t0 = std::chrono::steady_clock::now();
            const tilegen::api::Map map =
                world_.region(key.first * kChunk, key.second * kChunk, kChunk, kChunk);
            ChunkTiles done{key, map.layers(), map.objects()};
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
            std::lock_guard lock(mutex_);
            done_.push_back(std::move(done));
            ++made_;
            made_ms_ += ms;
        }
    }

    tilegen::api::World world_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<ChunkKey> wanted_;
    std::vector<ChunkTiles> done_;
    bool stop_ = false;
    long made_ = 0;
    double made_ms_ = 0;
    std::thread thread_;
};

// Resident and peak resident memory in MiB (Linux /proc/self/status).
inline std::pair<double, double> memory_mib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    double rss = 0, peak = 0;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) rss = std::stod(line.substr(6)) / 1024.0;
        if (line.rfind("VmHWM:", 0) == 0) peak = std::stod(line.substr(6)) / 1024.0;
    }
    return {rss, peak};
}

// The chunk's tiles as textured quads over the atlas (positions in pixels from the chunk's
// top-left), layers in drawing order. Tiled's flips: diagonal (transpose), then horizontal, then
// vertical, each a swap of the quad's texture corners.
inline sf::VertexArray chunk_quads(const ChunkTiles& chunk, const tilegen::api::Tileset& tileset) {
    sf::VertexArray quads(sf::Quads);
    const float tw = static_cast<float>(tileset.tile_width),
                th = static_cast<float>(tileset.tile_height);
    for (const auto& layer : chunk.layers) {
        // A corner layer has one more column and row, drawn half a tile up and left (the chunk's
        // render texture clips what lies outside it).
        const int side = layer.corner ? kChunk + 1 : kChunk;
        const float shift_x = layer.corner ? static_cast<float>(tileset.tile_width / 2) : 0.0f,
                    shift_y = layer.corner ? static_cast<float>(tileset.tile_height / 2) : 0.0f;
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x) {
                const tilegen::api::Tile tile{layer.gids[static_cast<std::size_t>(y * side + x)]};
                if (tile.empty()) continue;
                const float u = static_cast<float>(tile.id() % tileset.columns) * tw;
                const float v = static_cast<float>(tile.id() / tileset.columns) * th;
                // Texture corners for the screen corners top-left, top-right, bottom-right,
                // bottom-left.
                sf::Vector2f tex[4] = {{u, v}, {u + tw, v}, {u + tw, v + th}, {u, v + th}};
                if (tile.flipped_diagonally()) std::swap(tex[1], tex[3]);
                if (tile.flipped_horizontally()) {
                    std::swap(tex[0], tex[1]);
                    std::swap(tex[2], tex[3]);
                }
                if (tile.flipped_vertically()) {
                    std::swap(tex[0], tex[3]);
                    std::swap(tex[1], tex[2]);
                }
                const float px = static_cast<float>(x) * tw - shift_x,
                            py = static_cast<float>(y) * th - shift_y;
                const sf::Vector2f pos[4] = {
                    {px, py}, {px + tw, py}, {px + tw, py + th}, {px, py + th}};
                for (int k = 0; k < 4; ++k)
                    quads.append(sf::Vertex(pos[k], tex[k]));
            }
    }
    return quads;
}

// Trees, rocks: the objects of every chunk made, as textured quads over the sprite sheet
// (positions in window pixels; `left`, `top`: the window's top-left in world pixels), in drawing
// order across chunks: by footprint bottom, then x, so nearer objects cover farther ones.
inline sf::VertexArray
object_quads(const std::map<ChunkKey, std::vector<tilegen::api::Object>>& objects,
             const tilegen::api::Sprites& sheet, int tw, int th, double left, double top) {
    struct Placed {
        long long x, bottom; // world cells
        int sprite;
    };
    std::vector<Placed> all;
    for (const auto& [key, list] : objects)
        for (const auto& o : list)
            all.push_back({static_cast<long long>(key.first) * kChunk + o.x,
                           static_cast<long long>(key.second) * kChunk + o.y + o.height,
                           o.sprite_index});
    std::sort(all.begin(), all.end(), [](const Placed& a, const Placed& b) {
        return a.bottom != b.bottom ? a.bottom < b.bottom : a.x < b.x;
    });
    sf::VertexArray quads(sf::Quads);
    const auto sw = static_cast<float>(sheet.sprite_width),
               sh = static_cast<float>(sheet.sprite_height);
    for (const Placed& p : all) {
        const float u = static_cast<float>(p.sprite % sheet.columns) * sw;
        const float v = static_cast<float>(p.sprite / sheet.columns) * sh;
        const auto px = static_cast<float>(std::floor(static_cast<double>(p.x) * tw - left));
        const auto py =
            static_cast<float>(std::floor(static_cast<double>(p.bottom) * th - top)) - sh;
        quads.append(sf::Vertex({px, py}, {u, v}));
        quads.append(sf::Vertex({px + sw, py}, {u + sw, v}));
        quads.append(sf::Vertex({px + sw, py + sh}, {u + sw, v + sh}));
        quads.append(sf::Vertex({px, py + sh}, {u, v + sh}));
    }
    return quads;
}

inline int floor_div(long long a, int b) {
    return static_cast<int>(a >= 0 ? a / b : -((-a + b - 1) / b));
}

// Runs the game in a window until it is closed (or `options.frames` are drawn). Returns the exit
// code: 0, or 1 when a texture cannot be made.
inline int run(const tilegen::api::World& world, const Options& options) {
    // Chunk buffers come and go all the time: a fixed mmap threshold gives the large ones back to
    // the system at once instead of letting glibc's heap grow with its fragments.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    const tilegen::api::Tileset& tileset = world.tileset();
    const int tw = tileset.tile_width, th = tileset.tile_height;

    sf::RenderWindow window(sf::VideoMode(options.width, options.height), options.title);
    if (options.frames == 0) window.setFramerateLimit(60);
    sf::Texture atlas;
    if (!atlas.create(static_cast<unsigned>(tileset.atlas.width),
                      static_cast<unsigned>(tileset.atlas.height))) {
        std::cerr << "endless: the tile atlas does not fit in a texture\n";
        return 1;
    }
    atlas.update(tileset.atlas.rgba.data());
    // The objects' sheet (none when the recipe has no objects).
    const tilegen::api::Sprites& sheet = world.sprites();
    sf::Texture sprites;
    if (!sheet.names.empty() && !sprites.create(static_cast<unsigned>(sheet.image.width),
                                                static_cast<unsigned>(sheet.image.height))) {
        std::cerr << "endless: the sprite sheet does not fit in a texture\n";
        return 1;
    }
    if (!sheet.names.empty()) sprites.update(sheet.image.rgba.data());
    std::map<ChunkKey, std::vector<tilegen::api::Object>> objects; // per chunk made
    ChunkWorker worker(world);
    // Each chunk is drawn once into its own texture (its quads over the atlas), then shown as one
    // sprite per frame: the layers are blended once per chunk, not once per frame. Render textures
    // of dropped chunks are reused (SFML 2.5's cannot move: held by pointer).
    std::map<ChunkKey, std::unique_ptr<sf::RenderTexture>> chunks;
    std::vector<std::unique_ptr<sf::RenderTexture>> spare;
    // The camera centre (the character) in world pixels; it starts at cell (64, 64), the middle of
    // the samples' maps, and may walk anywhere: the world has no edge.
    double cx = 64.0 * tw, cy = 64.0 * th;
    const double start_x = cx;
    sf::CircleShape hero(6.f);
    hero.setOrigin(6.f, 6.f);
    hero.setFillColor(sf::Color(230, 40, 40));
    hero.setOutlineColor(sf::Color::White);
    hero.setOutlineThickness(2.f);

    std::vector<double> frame_ms;
    long complete_frames = 0;
    double rss_early = 0;
    auto last = std::chrono::steady_clock::now();
    // With a screenshot, frames go on after the walk (standing still, not timed) until every chunk
    // in view is drawn, for at most 1000 more frames.
    bool shot_taken = options.screenshot.empty();
    for (long frame = 0; window.isOpen() && (options.frames == 0 || frame < options.frames ||
                                             (!shot_taken && frame < options.frames + 1000));
         ++frame) {
        const auto t0 = std::chrono::steady_clock::now();
        const double dt = std::chrono::duration<double>(t0 - last).count();
        last = t0;
        sf::Event event;
        while (window.pollEvent(event))
            if (event.type == sf::Event::Closed ||
                (event.type == sf::Event::KeyPressed && event.key.code == sf::Keyboard::Escape))
                window.close();
        if (options.frames > 0) {
            cx = start_x + options.walk_cells * tw *
                               static_cast<double>(std::min(frame + 1, options.frames)) /
                               static_cast<double>(options.frames);
        } else if (window.hasFocus()) {
            const double speed = (sf::Keyboard::isKeyPressed(sf::Keyboard::LShift) ? 40 : 10) * dt *
                                 tw; // cells per second
            if (sf::Keyboard::isKeyPressed(sf::Keyboard::Left)) cx -= speed;
            if (sf::Keyboard::isKeyPressed(sf::Keyboard::Right)) cx += speed;
            if (sf::Keyboard::isKeyPressed(sf::Keyboard::Up)) cy -= speed;
            if (sf::Keyboard::isKeyPressed(sf::Keyboard::Down)) cy += speed;
        }

        // The chunks in view plus one around them are wanted (nearest first); the rest go.
        const auto size = window.getSize();
        const double left = cx - size.x / 2.0, top = cy - size.y / 2.0;
        const int c0 = floor_div(static_cast<long long>(left), kChunk * tw) - 1;
        const int c1 = floor_div(static_cast<long long>(left + size.x), kChunk * tw) + 1;
        const int r0 = floor_div(static_cast<long long>(top), kChunk * th) - 1;
        const int r1 = floor_div(static_cast<long long>(top + size.y), kChunk * th) + 1;
        auto in_reach = [&](ChunkKey k) {
            return k.first >= c0 && k.first <= c1 && k.second >= r0 && k.second <= r1;
        };
        for (auto it = chunks.begin(); it != chunks.end();) {
            if (in_reach(it->first)) {
                ++it;
                continue;
            }
            spare.push_back(std::move(it->second));
            objects.erase(it->first);
            it = chunks.erase(it);
        }
        for (const auto& done : worker.take_done()) {
            if (!in_reach(done.key)) continue;
            std::unique_ptr<sf::RenderTexture> texture;
            if (!spare.empty()) {
                texture = std::move(spare.back());
                spare.pop_back();
            } else {
                texture = std::make_unique<sf::RenderTexture>();
                if (!texture->create(static_cast<unsigned>(kChunk * tw),
                                     static_cast<unsigned>(kChunk * th))) {
                    std::cerr << "endless: cannot make a chunk texture\n";
                    return 1;
                }
            }
            texture->clear(sf::Color::Transparent);
            texture->draw(chunk_quads(done, tileset), sf::RenderStates(&atlas));
            texture->display();
            chunks[done.key] = std::move(texture);
            if (!done.objects.empty()) objects[done.key] = done.objects;
        }
        std::vector<ChunkKey> wanted;
        bool view_complete = true; // every chunk the window shows is drawn
        for (int r = r0; r <= r1; ++r)
            for (int c = c0; c <= c1; ++c)
                if (!chunks.count({c, r})) {
                    wanted.push_back({c, r});
                    if (c > c0 && c < c1 && r > r0 && r < r1) view_complete = false;
                }
        complete_frames += view_complete ? 1 : 0;
        auto distance = [&](ChunkKey k) {
            const double dx = (k.first + 0.5) * kChunk * tw - cx;
            const double dy = (k.second + 0.5) * kChunk * th - cy;
            return dx * dx + dy * dy;
        };
        std::sort(wanted.begin(), wanted.end(),
                  [&](ChunkKey a, ChunkKey b) { return distance(a) < distance(b); });
        worker.want(std::move(wanted));

        window.clear(sf::Color(20, 20, 30));
        for (const auto& [key, texture] : chunks) {
            // The ring around the view is made ahead of time, not drawn.
            if (key.first == c0 || key.first == c1 || key.second == r0 || key.second == r1)
                continue;
            sf::Sprite sprite(texture->getTexture());
            // Whole pixels: no seams between chunks.
            sprite.setPosition(static_cast<float>(std::floor(key.first * kChunk * tw - left)),
                               static_cast<float>(std::floor(key.second * kChunk * th - top)));
            window.draw(sprite, sf::BlendNone); // chunks are opaque where drawn: no blending
        }
        if (!objects.empty())
            window.draw(object_quads(objects, sheet, tw, th, left, top),
                        sf::RenderStates(&sprites));
        hero.setPosition(static_cast<float>(size.x) / 2.f, static_cast<float>(size.y) / 2.f);
        window.draw(hero);
        if (!shot_taken && frame + 1 >= options.frames && view_complete) {
            sf::Texture shot;
            shot.create(size.x, size.y);
            shot.update(window);
            shot.copyToImage().saveToFile(options.screenshot);
            shot_taken = true;
        }
        window.display();
        if (options.frames > 0 && frame >= options.frames) continue; // waiting for the screenshot
        frame_ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        if (options.frames > 0 && frame == options.frames / 10) rss_early = memory_mib().first;
    }
    if (options.frames > 0) {
        double sum = 0, worst = 0;
        for (double ms : frame_ms)
            sum += ms, worst = std::max(worst, ms);
        const auto [rss, peak] = memory_mib();
        std::printf("frames %zu walked %.0f cells: frame ms mean %.2f max %.2f\n", frame_ms.size(),
                    options.walk_cells, sum / static_cast<double>(frame_ms.size()), worst);
        std::printf("memory MiB: rss at 10%% %.1f, at end %.1f, peak %.1f\n", rss_early, rss, peak);
        const auto [made, made_ms] = worker.made();
        std::printf("chunks made %ld (%dx%d cells, %.2f ms each); view complete in %.1f%% of "
                    "frames\n",
                    made, kChunk, kChunk, made_ms,
                    100.0 * static_cast<double>(complete_frames) /
                        static_cast<double>(frame_ms.size()));
    }
    return 0;
}

} // namespace tilegen_endless
