#include "viewer/viewer.hpp"

#include <SFML/Graphics.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <sstream>

#include "core/hash.hpp"
#include "io/png.hpp"
#include "io/png_stream.hpp"
#include "io/tmx_writer.hpp"
#include "viewer/bitmap_font.hpp"
#include "viewer/generator.hpp"

namespace tilegen::viewer {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kMaxSeed = (std::uint64_t{1} << 63) - 1;
const sf::Color kBackground(34, 36, 44);
const sf::Color kPanel(16, 18, 24, 228);
const sf::Color kText(230, 232, 238);
const sf::Color kDim(150, 155, 170);
const sf::Color kAccent(255, 214, 90);
const sf::Color kErrorPanel(110, 18, 24, 235);
constexpr double kUploadBudgetMs = 2; // uploading map pieces per frame (a worker thread makes them)
constexpr double kPollSeconds = 0.5;  // file watching
constexpr long long kMaxPngPixels = 1LL << 28; // exports larger than this write the TMX only

const char* kKeyHelp = R"(drag, arrows, WASD   pan (Shift: faster)
wheel                zoom towards the cursor
Home, 0              fit the map in the window
1 2 3 4 5 6          tiles / classes / height / unmatched / rules / flow
G                    cell grid
L                    focus the next layer (the rules overlay shows it)
V                    show or hide the focused layer
Shift+1..9, click    show or hide layer n (click its name, bottom right)
R                    new random seed (a hash of the current one)
+ / -                next / previous seed
E                    export TMX + PNG to out/<recipe>.tmx/.png
F12                  screenshot to out/screenshot-<n>.png
H, F1                this help
Esc, Q               close the help / quit
Hover a cell to see how it was decided. Edited files reload.)";

sf::Color to_sf(Rgba c) {
    return sf::Color(c.r, c.g, c.b, c.a);
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string zoom_text(double zoom) {
    const double pct = zoom * 100;
    return (pct >= 10 ? fixed(pct, 0) : pct >= 1 ? fixed(pct, 1) : fixed(pct, 2)) + "%";
}

// Wraps text to at most `columns` characters per line, at spaces when it can (paths may be long).
std::vector<std::string> wrap(const std::string& text, std::size_t columns) {
    std::vector<std::string> out;
    if (columns == 0) columns = 1;
    std::size_t i = 0;
    while (text.size() - i > columns) {
        std::size_t cut = text.rfind(' ', i + columns);
        if (cut == std::string::npos || cut <= i) cut = i + columns; // no space: a hard break
        out.push_back(text.substr(i, cut - i));
        i = cut;
        while (i < text.size() && text[i] == ' ')
            ++i;
    }
    out.push_back(text.substr(i));
    return out;
}

std::string clip(const std::string& s, std::size_t columns) {
    if (s.size() <= columns) return s;
    if (columns < 2) return s.substr(0, columns);
    return s.substr(0, columns - 1) + "~";
}

Image to_image(const sf::Image& img) {
    const auto size = img.getSize();
    Image out(static_cast<int>(size.x), static_cast<int>(size.y));
    if (size.x > 0 && size.y > 0)
        std::copy(img.getPixelsPtr(), img.getPixelsPtr() + out.pixels().size(),
                  out.pixels().begin());
    return out;
}

// What an export did: the line for the status bar, and whether it failed (shown as an error).
struct ExportResult {
    bool ok = false;
    std::string message;
};

// Writes the map as `tilegen generate` does: out/<name>.tmx (+ .tsx, -tiles.png) and
// out/<name>.png. The TMX written counts as success (a PNG skipped for its size is said so).
[[nodiscard]] ExportResult export_map(std::shared_ptr<const Build> build) {
    const std::string name = build->project.recipe.name;
    const fs::path tmx = fs::path("out") / (name + ".tmx");
    const fs::path png = fs::path("out") / (name + ".png");
    std::error_code ec;
    fs::create_directories("out", ec);
    Diagnostics diags;
    const Map& map = build->result.map;
    if (!io::write_tmx_bundle(map, tmx, diags))
        return {false, diags.empty() ? "export failed" : format_diagnostic(diags.front())};
    const long long px = static_cast<long long>(map.width) * map.atlas.tile_width * map.height *
                         map.atlas.tile_height;
    if (px > kMaxPngPixels)
        return {true, "exported " + tmx.generic_string() + " (seed " +
                          std::to_string(build->result.seed) + "); PNG skipped: " +
                          std::to_string(map.width * map.atlas.tile_width) + "x" +
                          std::to_string(map.height * map.atlas.tile_height) + " px is too large"};
    try {
        // generate's preview, streamed (io/png_stream.hpp): the same bytes generate writes.
        if (!io::save_preview_png(png, map, io::kPreviewMaxSide, {}, diags))
            return {false, diags.empty() ? "export failed" : format_diagnostic(diags.front())};
    } catch (const std::bad_alloc&) {
        return {true, "exported " + tmx.generic_string() + "; PNG: out of memory"};
    }
    return {true, "exported " + tmx.generic_string() + " and " + png.generic_string() + " (seed " +
                      std::to_string(build->result.seed) + ")"};
}

// A failure of the window as a whole, not of a file: "tilegen view: error: message".
Diagnostic view_error(std::string message) {
    return error_at("tilegen view", 0, 0, std::move(message));
}

class Viewer {
  public:
    Viewer(const ViewerOptions& options, Project project)
        : options_(options), project_(std::move(project)) {}
    // The exit code; why it is not 0 is appended to `diags`.
    int run(Diagnostics& diags);

  private:
    bool scripted() const {
        return options_.screenshot.has_value() || options_.frames.has_value() ||
               options_.quit_after_reloads;
    }
    bool watching() const {
        return options_.recipe && (!scripted() || options_.quit_after_reloads);
    }
    int ui_scale() const { return view_width() >= 900 ? 2 : 1; }
    float line_px() const { return static_cast<float>(BitmapFont::kLineHeight * ui_scale()); }
    float status_height() const { return 2 * line_px() + 8; }
    double view_width() const { return static_cast<double>(size_.x); }
    double map_view_height() const {
        return std::max(1.0, static_cast<double>(size_.y) - status_height());
    }
    std::size_t columns(float width) const {
        return static_cast<std::size_t>(
            std::max(1.0f, width / static_cast<float>(BitmapFont::kAdvance * ui_scale())));
    }

    void request(bool reload);
    void adopt(JobResult result);
    void handle_event(const sf::Event& event);
    void handle_key(const sf::Event::KeyEvent& key);
    void update(double dt);
    void script_frame(int index, int total);
    bool draw_frame(sf::RenderTarget& target, double budget_ms);
    void draw_grid(sf::RenderTarget& target);
    void draw_hover(sf::RenderTarget& target);
    void draw_ui(sf::RenderTarget& target);
    void fit();
    void set_message(std::string text, bool error = false);
    void new_seed(std::uint64_t seed);
    void toggle_layer(std::size_t layer);
    void save_window_screenshot();
    std::optional<sf::Vector2i> hover_cell() const;
    const std::vector<std::string>& hover_lines();
    std::string status_line() const;  // seed, size, zoom, overlay
    std::string timings_line() const; // the stage timings

    ViewerOptions options_;
    Project project_; // the checked initial project (used for the first job only)
    sf::RenderWindow window_;
    sf::Vector2u size_{1280, 800};
    BitmapFont font_;
    MapRenderer renderer_;
    Generator generator_;
    std::shared_ptr<const Build> build_;
    std::uint64_t next_job_ = 1;
    int reloads_ = 0;                   // results adopted after the first (reloads and new seeds)
    std::optional<std::uint64_t> seed_; // set by --seed or keys; nullopt = the recipe's
    std::uint64_t pending_seed_ = 0;    // the seed being generated (for the status bar)
    std::vector<WatchedFile> watched_;
    Diagnostics errors_; // the last reload's diagnostics, while it stays broken
    Clock::time_point last_poll_ = Clock::now();
    Clock::time_point busy_since_ = Clock::now();

    Camera camera_;
    bool camera_set_ = false;
    RenderSettings settings_;
    bool grid_ = false;
    bool help_ = false;
    std::optional<sf::Vector2i> mouse_; // in the window, or nullopt
    bool dragging_ = false;
    sf::Vector2i drag_from_;
    std::vector<std::pair<sf::FloatRect, std::size_t>>
        layer_hits_; // clickable layer names in the status bar

    std::string message_;
    bool message_error_ = false;
    Clock::time_point message_time_;
    std::future<ExportResult> export_;
    bool screenshot_requested_ = false;

    const Build* hover_build_ = nullptr;
    sf::Vector2i hover_cell_{-1, -1};
    std::vector<std::string> hover_lines_;
};

void Viewer::set_message(std::string text, bool error) {
    message_ = std::move(text);
    message_error_ = error;
    message_time_ = Clock::now();
}

void Viewer::request(bool reload) {
    Job job;
    job.id = next_job_++;
    job.seed = seed_;
    job.size = options_.size;
    if (options_.recipe && (reload || !build_)) {
        // Loaded on the worker, recording the files read: they are the ones hot reload watches.
        // (The first map loads the recipe again, although the command checked it already, to learn
        // those files.)
        job.recipe = options_.recipe;
    } else if (build_) {
        job.project = build_->project;
        job.recipe = options_.recipe;
    } else {
        job.project = project_;
        job.recipe = options_.recipe;
    }
    pending_seed_ = seed_.value_or(job.project ? job.project->recipe.map.seed
                                   : build_    ? build_->project.recipe.map.seed
                                               : project_.recipe.map.seed);
    if (!generator_.busy()) busy_since_ = Clock::now();
    generator_.submit(std::move(job));
}

void Viewer::adopt(JobResult result) {
    if (!result.watched.empty()) watched_ = std::move(result.watched);
    if (result.id > 1) ++reloads_;
    if (!result.build) {
        errors_ = std::move(result.errors);
        // Also on the terminal, where the text can be copied; the window shows it too.
        std::cerr << "tilegen view: "
                  << (build_ ? "reload failed, keeping the last good map:" : "load failed:")
                  << '\n';
        for (const Diagnostic& e : errors_)
            std::cerr << format_diagnostic(e) << '\n';
        set_message(build_
                        ? "reload failed: the errors are at the top; the map is the last good one"
                        : "load failed",
                    true);
        return;
    }
    errors_.clear();
    const bool first = !build_;
    build_ = std::move(result.build);
    renderer_.set_build(build_);
    hover_build_ = nullptr;
    const std::size_t layers = build_->result.map.layers.size();
    if (settings_.focus_layer >= static_cast<int>(layers)) settings_.focus_layer = 0;
    if (first && !camera_set_) {
        camera_ = Camera{};
        if (options_.zoom)
            camera_.zoom = std::clamp(*options_.zoom, Camera::kMinZoom, Camera::kMaxZoom);
        camera_set_ = true;
    }
    if (!first)
        set_message("generated seed " + std::to_string(build_->result.seed) + " in " +
                    fixed(build_->generate_ms, 0) + " ms");
    std::cerr << "tilegen view: generated " << build_->project.recipe.name << " " << build_->width()
              << "x" << build_->height() << " seed " << build_->result.seed << " in "
              << fixed(build_->generate_ms, 0) << " ms\n";
}

void Viewer::new_seed(std::uint64_t seed) {
    seed_ = seed & kMaxSeed;
    request(false);
}

void Viewer::toggle_layer(std::size_t layer) {
    if (!build_ || layer >= build_->result.map.layers.size() || layer >= 64) return;
    settings_.visible_layers ^= std::uint64_t{1} << layer;
    const bool shown = (settings_.visible_layers >> layer) & 1u;
    set_message(std::string("layer '") + build_->result.map.layers[layer].name + "' " +
                (shown ? "shown" : "hidden"));
}

void Viewer::fit() {
    if (!build_) return;
    camera_.fit(build_->width() * static_cast<double>(build_->tile_width()),
                build_->height() * static_cast<double>(build_->tile_height()), view_width(),
                map_view_height());
}

std::optional<sf::Vector2i> Viewer::hover_cell() const {
    if (!build_ || !mouse_ || dragging_) return std::nullopt;
    if (mouse_->y < 0 || mouse_->y >= map_view_height() || mouse_->x < 0 ||
        mouse_->x >= view_width())
        return std::nullopt;
    const double mx = camera_.to_map_x(mouse_->x + 0.5), my = camera_.to_map_y(mouse_->y + 0.5);
    const int cx = static_cast<int>(std::floor(mx / build_->tile_width()));
    const int cy = static_cast<int>(std::floor(my / build_->tile_height()));
    if (cx < 0 || cy < 0 || cx >= build_->width() || cy >= build_->height()) return std::nullopt;
    return sf::Vector2i(cx, cy);
}

const std::vector<std::string>& Viewer::hover_lines() {
    const auto cell = hover_cell();
    if (!cell) {
        hover_lines_.clear();
        hover_build_ = nullptr;
        return hover_lines_;
    }
    if (hover_build_ != build_.get() || hover_cell_ != *cell) {
        hover_lines_ = inspect_cell(*build_, cell->x, cell->y);
        hover_build_ = build_.get();
        hover_cell_ = *cell;
    }
    return hover_lines_;
}

void Viewer::save_window_screenshot() {
    sf::Texture texture;
    if (!texture.create(size_.x, size_.y)) {
        set_message("screenshot failed: cannot copy the window", true);
        return;
    }
    texture.update(window_);
    const Image image = to_image(texture.copyToImage());
    std::error_code ec;
    fs::create_directories("out", ec);
    int n = 1;
    while (fs::exists(fs::path("out") / ("screenshot-" + std::to_string(n) + ".png"), ec))
        ++n;
    const fs::path path = fs::path("out") / ("screenshot-" + std::to_string(n) + ".png");
    Diagnostics diags;
    if (io::save_png(path, image, diags))
        set_message("saved " + path.generic_string());
    else
        set_message(diags.empty() ? "screenshot failed" : format_diagnostic(diags.front()), true);
}

void Viewer::handle_key(const sf::Event::KeyEvent& key) {
    using K = sf::Keyboard;
    const int number = key.code >= K::Num0 && key.code <= K::Num9         ? key.code - K::Num0
                       : key.code >= K::Numpad0 && key.code <= K::Numpad9 ? key.code - K::Numpad0
                                                                          : -1;
    if (key.shift && number >= 1) {
        toggle_layer(static_cast<std::size_t>(number - 1));
        return;
    }
    if (number >= 1 && number <= 6) {
        static constexpr Overlay kByNumber[] = {Overlay::tiles,  Overlay::classes,
                                                Overlay::height, Overlay::unmatched,
                                                Overlay::rules,  Overlay::flow};
        settings_.overlay = kByNumber[number - 1];
        return;
    }
    switch (key.code) {
    case K::Num0:
    case K::Numpad0:
    case K::Home:
        fit();
        break;
    case K::Escape:
        if (help_)
            help_ = false;
        else
            window_.close();
        break;
    case K::Q:
        window_.close();
        break;
    case K::H:
    case K::F1:
        help_ = !help_;
        break;
    case K::G:
        grid_ = !grid_;
        break;
    case K::L:
        if (build_ && !build_->result.map.layers.empty()) {
            settings_.focus_layer =
                (settings_.focus_layer + 1) % static_cast<int>(build_->result.map.layers.size());
            set_message(
                "focus: layer '" +
                build_->result.map.layers[static_cast<std::size_t>(settings_.focus_layer)].name +
                "'");
        }
        break;
    case K::V:
        toggle_layer(static_cast<std::size_t>(settings_.focus_layer));
        break;
    case K::R: {
        const std::uint64_t current = build_ ? build_->result.seed : pending_seed_;
        new_seed(mix64(current ^
                       0x7469'6c65'6765'6e00ull)); // "tilegen": a new seed derived from the old one
        break;
    }
    case K::Add:
    case K::Equal: {
        const std::uint64_t current = seed_.value_or(build_ ? build_->result.seed : pending_seed_);
        new_seed(current >= kMaxSeed ? 0 : current + 1);
        break;
    }
    case K::Subtract:
    case K::Hyphen: {
        const std::uint64_t current = seed_.value_or(build_ ? build_->result.seed : pending_seed_);
        new_seed(current == 0 ? kMaxSeed : current - 1);
        break;
    }
    case K::E:
        if (!build_) break;
        if (export_.valid()) {
            set_message("an export is already running");
            break;
        }
        set_message("exporting seed " + std::to_string(build_->result.seed) + "...");
        export_ = std::async(std::launch::async, export_map, build_);
        break;
    case K::F12:
        screenshot_requested_ = true;
        break;
    default:
        break;
    }
}

void Viewer::handle_event(const sf::Event& event) {
    switch (event.type) {
    case sf::Event::Closed:
        window_.close();
        return;
    case sf::Event::Resized:
        size_ = {std::max(1u, event.size.width), std::max(1u, event.size.height)};
        window_.setView(sf::View(
            sf::FloatRect(0, 0, static_cast<float>(size_.x), static_cast<float>(size_.y))));
        return;
    default:
        break;
    }
    if (scripted()) return; // scripted runs ignore the user (and Xvfb's pointer)
    switch (event.type) {
    case sf::Event::KeyPressed:
        handle_key(event.key);
        break;
    case sf::Event::LostFocus:
        dragging_ = false;
        break;
    case sf::Event::MouseLeft:
        mouse_.reset();
        dragging_ = false;
        break;
    case sf::Event::MouseMoved: {
        const sf::Vector2i p(event.mouseMove.x, event.mouseMove.y);
        if (dragging_ && mouse_) camera_.pan_screen(p.x - mouse_->x, p.y - mouse_->y);
        mouse_ = p;
        break;
    }
    case sf::Event::MouseWheelScrolled:
        if (event.mouseWheelScroll.y < map_view_height()) {
            const int dir = event.mouseWheelScroll.delta > 0   ? 1
                            : event.mouseWheelScroll.delta < 0 ? -1
                                                               : 0;
            if (dir != 0)
                camera_.zoom_at(camera_.step(dir), event.mouseWheelScroll.x,
                                event.mouseWheelScroll.y);
        }
        break;
    case sf::Event::MouseButtonPressed: {
        const sf::Vector2f p(static_cast<float>(event.mouseButton.x),
                             static_cast<float>(event.mouseButton.y));
        mouse_ = sf::Vector2i(event.mouseButton.x, event.mouseButton.y);
        if (event.mouseButton.button != sf::Mouse::Left) break;
        if (p.y >= map_view_height()) {
            for (const auto& [rect, layer] : layer_hits_)
                if (rect.contains(p)) toggle_layer(layer);
        } else {
            dragging_ = true;
            drag_from_ = *mouse_;
        }
        break;
    }
    case sf::Event::MouseButtonReleased:
        if (event.mouseButton.button == sf::Mouse::Left) dragging_ = false;
        break;
    default:
        break;
    }
}

void Viewer::update(double dt) {
    // Finished work from the threads.
    if (auto result = generator_.take()) adopt(std::move(*result));
    if (export_.valid() && export_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        const ExportResult done = export_.get();
        set_message(done.message, !done.ok);
    }
    // Hot reload: poll the files the last load read.
    if (watching() &&
        std::chrono::duration<double>(Clock::now() - last_poll_).count() >= kPollSeconds) {
        last_poll_ = Clock::now();
        if (!watched_.empty() && files_changed(watched_)) {
            // Re-record now so one edit triggers one reload; the job records the states it actually
            // read.
            for (WatchedFile& w : watched_)
                w = watch_state(w.path);
            set_message("files changed: reloading...");
            request(true);
        }
    }
    if (scripted() || !window_.hasFocus()) return;
    // Keyboard panning.
    using K = sf::Keyboard;
    const double speed =
        (K::isKeyPressed(K::LShift) || K::isKeyPressed(K::RShift) ? 2400 : 800) * dt;
    double dx = 0, dy = 0;
    if (K::isKeyPressed(K::Left) || K::isKeyPressed(K::A)) dx += speed;
    if (K::isKeyPressed(K::Right) || K::isKeyPressed(K::D)) dx -= speed;
    if (K::isKeyPressed(K::Up) || K::isKeyPressed(K::W)) dy += speed;
    if (K::isKeyPressed(K::Down) || K::isKeyPressed(K::S)) dy -= speed;
    if (dx != 0 || dy != 0) camera_.pan_screen(dx, dy);
}

// --frames: a scripted camera tour, so the statistics measure real work: the first half pans
// diagonally at the starting zoom (making chunks as new cells come into view), the second half
// zooms out towards "fit" about the centre of the view (switching to color blocks and coarser
// levels).
void Viewer::script_frame(int index, int total) {
    if (!build_) return;
    const int half = std::max(1, total / 2);
    if (index < half) {
        camera_.pan_screen(-12, -7);
    } else {
        Camera target;
        target.fit(build_->width() * static_cast<double>(build_->tile_width()),
                   build_->height() * static_cast<double>(build_->tile_height()), view_width(),
                   map_view_height());
        const int steps = std::max(1, total - half);
        const double factor =
            std::pow(target.zoom / camera_.zoom, 1.0 / std::max(1, steps - (index - half)));
        camera_.zoom_at(camera_.zoom * factor, view_width() / 2, map_view_height() / 2);
    }
}

void Viewer::draw_grid(sf::RenderTarget& target) {
    if (!grid_ || !build_) return;
    const int tw = build_->tile_width(), th = build_->tile_height();
    const double cw = camera_.zoom * tw, ch = camera_.zoom * th;
    if (cw < 8 || ch < 8) return; // denser than every 8 pixels the grid would hide the map
    const CellRange r = camera_.visible_cells(build_->width(), build_->height(), tw, th,
                                              view_width(), map_view_height());
    if (r.empty()) return;
    sf::VertexArray lines(sf::Lines);
    const sf::Color c(0, 0, 0, 90);
    const float top =
        static_cast<float>(std::max(0.0, camera_.to_screen_y(r.y0 * static_cast<double>(th))));
    const float bottom = static_cast<float>(
        std::min(map_view_height(), camera_.to_screen_y(r.y1 * static_cast<double>(th))));
    const float left =
        static_cast<float>(std::max(0.0, camera_.to_screen_x(r.x0 * static_cast<double>(tw))));
    const float right = static_cast<float>(
        std::min(view_width(), camera_.to_screen_x(r.x1 * static_cast<double>(tw))));
    for (int x = r.x0; x <= r.x1; ++x) {
        const float sx =
            static_cast<float>(std::floor(camera_.to_screen_x(x * static_cast<double>(tw)))) + 0.5f;
        lines.append(sf::Vertex({sx, top}, c));
        lines.append(sf::Vertex({sx, bottom}, c));
    }
    for (int y = r.y0; y <= r.y1; ++y) {
        const float sy =
            static_cast<float>(std::floor(camera_.to_screen_y(y * static_cast<double>(th)))) + 0.5f;
        lines.append(sf::Vertex({left, sy}, c));
        lines.append(sf::Vertex({right, sy}, c));
    }
    target.draw(lines);
}

void Viewer::draw_hover(sf::RenderTarget& target) {
    const auto cell = hover_cell();
    if (!cell) return;
    const int tw = build_->tile_width(), th = build_->tile_height();
    const double x0 = camera_.to_screen_x(cell->x * static_cast<double>(tw));
    const double y0 = camera_.to_screen_y(cell->y * static_cast<double>(th));
    sf::RectangleShape outline(sf::Vector2f(static_cast<float>(std::max(2.0, camera_.zoom * tw)),
                                            static_cast<float>(std::max(2.0, camera_.zoom * th))));
    outline.setPosition(static_cast<float>(std::round(x0)), static_cast<float>(std::round(y0)));
    outline.setFillColor(sf::Color::Transparent);
    outline.setOutlineColor(kAccent);
    outline.setOutlineThickness(2);
    target.draw(outline);
}

std::string Viewer::status_line() const {
    if (!build_) return "no map yet";
    std::ostringstream s;
    s << "seed " << build_->result.seed << "  " << build_->width() << "x" << build_->height()
      << "  zoom " << zoom_text(camera_.zoom) << "  " << overlay_name(settings_.overlay)
      << (grid_ ? "+grid" : "");
    // The quality numbers of tilegen stats (core/quality/map_stats.hpp).
    const MapStats& q = build_->stats;
    s << "  specks " << q.specks << "  thin " << fixed(q.thin * 100, 1) << "%  regions "
      << q.walkable_regions << "  corners " << fixed(q.corner_density, 2);
    return s.str();
}

std::string Viewer::timings_line() const {
    if (!build_) return "";
    std::string s;
    for (const StageTiming& t : build_->result.timings)
        s += (s.empty() ? "" : " ") + t.stage + " " + fixed(t.ms, t.ms < 10 ? 1 : 0);
    return s + " ms";
}

void Viewer::draw_ui(sf::RenderTarget& target) {
    const int scale = ui_scale();
    const float lh = line_px();
    const float adv = static_cast<float>(BitmapFont::kAdvance * scale);
    const float w = static_cast<float>(view_width());
    const float h = static_cast<float>(size_.y);
    sf::VertexArray quads(sf::Quads);

    // Error panel (top): the last reload failed.
    if (!errors_.empty()) {
        std::vector<std::string> lines{build_ ? "reload failed - showing the last good map:"
                                              : "load failed:"};
        const std::size_t cols = columns(w - 16);
        for (const Diagnostic& e : errors_) {
            for (auto& l : wrap(format_diagnostic(e), cols))
                lines.push_back(std::move(l));
            if (lines.size() > 12) break;
        }
        add_rect(quads, {0, 0}, {w, static_cast<float>(lines.size()) * lh + 8}, kErrorPanel);
        for (std::size_t i = 0; i < lines.size(); ++i)
            font_.add_text(quads, lines[i], {8, 4 + static_cast<float>(i) * lh},
                           i == 0 ? kAccent : kText, scale);
    }

    // Hover inspector, beside the cursor.
    if (!help_ && mouse_) {
        const auto& lines = hover_lines();
        if (!lines.empty()) {
            std::size_t longest = 0;
            for (const auto& l : lines)
                longest = std::max(longest, l.size());
            const std::size_t cols = std::min(longest, columns(w - 24));
            const float pw = static_cast<float>(cols) * adv + 12;
            const float ph = static_cast<float>(lines.size()) * lh + 8;
            // Below the hovered cell (above it near the bottom), starting at the cursor, pushed
            // left to fit.
            const auto cell = hover_cell();
            const double cell_top =
                camera_.to_screen_y(cell->y * static_cast<double>(build_->tile_height()));
            const double cell_bottom =
                camera_.to_screen_y((cell->y + 1) * static_cast<double>(build_->tile_height()));
            float px = std::clamp(static_cast<float>(mouse_->x) + 16, 0.0f, std::max(0.0f, w - pw));
            float py =
                static_cast<float>(std::max(cell_bottom, static_cast<double>(mouse_->y) + 16)) + 8;
            if (py + ph > static_cast<float>(map_view_height()))
                py = std::max(0.0f, static_cast<float>(
                                        std::min(cell_top, static_cast<double>(mouse_->y) - 16)) -
                                        8 - ph);
            add_rect(quads, {px, py}, {pw, ph}, kPanel);
            for (std::size_t i = 0; i < lines.size(); ++i)
                font_.add_text(quads, clip(lines[i], cols),
                               {px + 6, py + 4 + static_cast<float>(i) * lh},
                               i == 0 ? kAccent : kText, scale);
        }
    }

    // Help overlay, centred.
    if (help_) {
        const std::string title = "tilegen view - keys";
        const float pw = BitmapFont::text_width(kKeyHelp, scale) + 32;
        const float ph = BitmapFont::text_height(kKeyHelp, scale) + lh * 2 + 24;
        const float px = std::max(0.0f, (w - pw) / 2),
                    py = std::max(0.0f, (static_cast<float>(map_view_height()) - ph) / 2);
        add_rect(quads, {px, py}, {pw, ph}, kPanel);
        add_rect(quads, {px, py}, {pw, 2.0f * static_cast<float>(scale)}, kAccent);
        font_.add_text(quads, title, {px + 16, py + 12}, kAccent, scale);
        font_.add_text(quads, kKeyHelp, {px + 16, py + 12 + lh * 2}, kText, scale);
    }

    // Status bar (bottom strip).
    const float top = static_cast<float>(map_view_height());
    add_rect(quads, {0, top}, {w, h - top}, kPanel);
    // Line 1: the state on the left, the stage timings on the right (clipped first when space is
    // short).
    const std::size_t cols = columns(w - 16);
    const std::string state = clip(status_line(), cols);
    font_.add_text(quads, state, {8, top + 4}, kText, scale);
    if (state.size() + 3 < cols) {
        const std::string timings = clip(timings_line(), cols - state.size() - 3);
        font_.add_text(quads, timings, {w - 8 - BitmapFont::text_width(timings, scale), top + 4},
                       kDim, scale);
    }

    // Line 2, right: the layers (focused one highlighted, hidden ones dim), clickable.
    layer_hits_.clear();
    float right_edge = w - 8;
    if (build_) {
        const auto& layers = build_->result.map.layers;
        std::vector<std::string> layer_names;
        for (const auto& layer : layers)
            layer_names.push_back(layer.name);
        const std::string label = "layers ";
        // The right half of the line, less the label.
        const std::size_t half = columns(std::max(0.0f, w / 2 - 8));
        const std::size_t room = half > label.size() ? half - label.size() : 0;
        const std::vector<std::string> names =
            layer_labels(layer_names, settings_.visible_layers, settings_.focus_layer, room);
        float total = BitmapFont::text_width(label, scale);
        for (const std::string& name : names)
            total += BitmapFont::text_width(name, scale) + adv;
        float x = std::max(w / 2, w - 8 - total);
        right_edge = x - adv;
        const float y = top + 4 + lh;
        font_.add_text(quads, label, {x, y}, kDim, scale);
        x += BitmapFont::text_width(label, scale);
        for (std::size_t i = 0; i < names.size(); ++i) {
            const bool shown = i >= 64 || ((settings_.visible_layers >> i) & 1u);
            const bool focus = static_cast<int>(i) == settings_.focus_layer;
            const float tw = BitmapFont::text_width(names[i], scale);
            if (x + tw > w) break;
            if (focus) add_rect(quads, {x - 2, y}, {tw + 4, lh}, sf::Color(255, 214, 90, 60));
            font_.add_text(quads, names[i], {x, y}, focus ? kAccent : shown ? kText : kDim, scale);
            layer_hits_.push_back({sf::FloatRect(x - adv / 2, y - 2, tw + adv, lh + 4), i});
            x += tw + adv;
        }
    }

    // Line 2, left: progress, the latest message, or the overlay's legend.
    const float y2 = top + 4 + lh;
    const std::size_t left_cols = columns(right_edge - 8);
    const double message_age = std::chrono::duration<double>(Clock::now() - message_time_).count();
    if (generator_.busy()) {
        static const char kSpinner[] = "|/-\\";
        const double busy = std::chrono::duration<double>(Clock::now() - busy_since_).count();
        const std::string text = std::string(1, kSpinner[static_cast<int>(busy * 8) % 4]) +
                                 " generating seed " + std::to_string(pending_seed_) + "... " +
                                 fixed(busy, 1) + " s";
        font_.add_text(quads, clip(text, left_cols), {8, y2}, kAccent, scale);
    } else if (!message_.empty() && message_age < 6) {
        font_.add_text(quads, clip(message_, left_cols), {8, y2},
                       message_error_ ? sf::Color(255, 120, 110) : kAccent, scale);
    } else if (build_) {
        float x = 8;
        auto text = [&](const std::string& s, sf::Color c) {
            const std::string t = clip(s, columns(std::max(0.0f, right_edge - x)));
            font_.add_text(quads, t, {x, y2}, c, scale);
            x += BitmapFont::text_width(t, scale);
        };
        switch (settings_.overlay) {
        case Overlay::classes:
            for (std::size_t i = 0; i < build_->project.recipe.terrain.size(); ++i) {
                if (x + lh > right_edge) break;
                add_rect(quads, {x, y2 + 2}, {lh - 4, lh - 4}, to_sf(build_->class_color[i]));
                x += lh;
                text(build_->project.recipe.terrain[i].name + " ", kText);
            }
            break;
        case Overlay::height:
            text("height: black " + fixed(build_->height_min, 3) + " (lowest) .. white " +
                     fixed(build_->height_max, 3) + " (highest)",
                 kText);
            break;
        case Overlay::unmatched:
            text(std::to_string(build_->unmatched_cells) + " unmatched cells (magenta)", kText);
            break;
        case Overlay::flow:
            text(build_->result.flow.empty()
                     ? "flow: none (the recipe has no [rivers] with method \"flow\")"
                     : "flow: blue = water gathered (log scale, up to " +
                           fixed(build_->flow_max, 0) + " cells) over the height",
                 kText);
            break;
        case Overlay::rules:
            if (!build_->result.layers.empty())
                text("color = deciding rule (file:line) of layer '" +
                         build_->result.layers[static_cast<std::size_t>(settings_.focus_layer)]
                             .name +
                         "'; black = none",
                     kText);
            break;
        case Overlay::tiles:
            text(options_.recipe
                     ? "H: keys   watching " + std::to_string(watched_.size()) + " files"
                     : "H: keys   built-in recipe",
                 kDim);
            break;
        }
    }

    sf::RenderStates states;
    states.texture = &font_.texture();
    target.draw(quads, states);
}

// Draws one frame; budget_ms < 0 makes every map piece in view now (see MapRenderer::draw).
bool Viewer::draw_frame(sf::RenderTarget& target, double budget_ms) {
    if (!build_)
        renderer_.prepare(target); // while waiting for the first map (drawn over by the clear)
    target.clear(kBackground);
    bool complete = false;
    if (build_) {
        complete =
            renderer_.draw(target, camera_, view_width(), map_view_height(), settings_, budget_ms);
        draw_grid(target);
        draw_hover(target);
    } else {
        sf::VertexArray quads(sf::Quads);
        static const char kSpinner[] = "|/-\\";
        const double busy = std::chrono::duration<double>(Clock::now() - busy_since_).count();
        const std::string text =
            std::string(1, kSpinner[static_cast<int>(busy * 8) % 4]) + " generating...";
        font_.add_text(quads, text, {16, 16}, kText, ui_scale());
        sf::RenderStates states;
        states.texture = &font_.texture();
        target.draw(quads, states);
    }
    draw_ui(target);
    return complete;
}

int Viewer::run(Diagnostics& diags) {
    const sf::VideoMode desktop = sf::VideoMode::getDesktopMode();
    if (options_.window) {
        size_ = {static_cast<unsigned>(options_.window->first),
                 static_cast<unsigned>(options_.window->second)};
    } else {
        size_ = {std::min(1280u, std::max(320u, desktop.width)),
                 std::min(800u, std::max(240u, desktop.height))};
    }
    {
        // SFML reports "Setting vertical sync not supported" on some drivers (Xvfb) when it creates
        // a window: harmless, so keep it off stderr; failure to open is checked below.
        std::streambuf* previous = sf::err().rdbuf(nullptr);
        window_.create(sf::VideoMode(size_.x, size_.y), "tilegen view - " + project_.recipe.name,
                       sf::Style::Default);
        sf::err().rdbuf(previous);
    }
    if (!window_.isOpen()) {
        diags.push_back(view_error("cannot open a window"));
        return 1;
    }
    // Only --frames and --screenshot want frames as fast as they come; watching files (interactive
    // or
    // --quit-after-reloads) is paced at 60 frames a second so it leaves the CPU to others.
    if (scripted() && !options_.quit_after_reloads)
        window_.setFramerateLimit(0);
    else
        window_.setFramerateLimit(60);
    window_.setKeyRepeatEnabled(true);
    if (!font_.load()) {
        diags.push_back(view_error("cannot create the font texture"));
        return 1;
    }
    settings_.overlay = options_.overlay;
    grid_ = options_.grid;
    help_ = options_.show_help;
    if (options_.inspect) mouse_ = sf::Vector2i(options_.inspect->first, options_.inspect->second);
    seed_ = options_.seed;
    request(false);

    sf::RenderTexture capture;
    if (options_.screenshot && !capture.create(size_.x, size_.y)) {
        diags.push_back(view_error("cannot create an off-screen image for --screenshot"));
        return 1;
    }

    std::vector<double> frame_ms;
    const int frames_wanted = options_.frames.value_or(0);
    int frames_done = 0;
    int stand_in_frames = 0; // counted frames that drew some map piece from a stand-in
    std::ofstream frame_log;
    if (options_.frame_log) {
        frame_log.open(*options_.frame_log);
        if (!frame_log) {
            diags.push_back(error_at(*options_.frame_log, 0, 0, "cannot write the frame log"));
            return 1;
        }
        frame_log
            << "frame,ms,update_ms,draw_ms,display_ms,uploaded,upload_ms,stand_ins,level,zoom\n";
    }
    // Counted frames end with glFinish: OpenGL may still be drawing after display() returns, and
    // that time belongs to the frame.
    const sf::GlFunctionPointer gl_finish =
        options_.frames ? sf::Context::getFunction("glFinish") : nullptr;
    auto ms_between = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    auto last = Clock::now();
    while (window_.isOpen()) {
        const auto frame_start = Clock::now();
        const double dt = std::min(0.1, std::chrono::duration<double>(frame_start - last).count());
        last = frame_start;
        sf::Event event;
        while (window_.pollEvent(event))
            handle_event(event);
        if (!window_.isOpen()) break;
        update(dt);
        if (!build_ && !generator_.busy() && !errors_.empty())
            return 1; // the first generation failed
        const bool counting = options_.frames && build_;
        if (counting) script_frame(frames_done, frames_wanted);
        if (build_)
            camera_.clamp(build_->width() * static_cast<double>(build_->tile_width()),
                          build_->height() * static_cast<double>(build_->tile_height()),
                          view_width(), map_view_height());
        const auto updated = Clock::now();
        const bool complete =
            draw_frame(window_, options_.screenshot && !options_.frames ? -1.0 : kUploadBudgetMs);
        if (screenshot_requested_) {
            screenshot_requested_ = false;
            save_window_screenshot();
        }
        const auto drawn = Clock::now();
        window_.display();
        if (counting && gl_finish) gl_finish();
        // In the background (the user is in their editor) keep drawing, for reloads, but at a
        // gentle rate.
        if (!scripted() && !window_.hasFocus()) sf::sleep(sf::milliseconds(50));
        // Scripted runs waiting for their first map leave the CPU to the generator.
        if (scripted() && !build_) sf::sleep(sf::milliseconds(5));
        if (counting) {
            const auto end = Clock::now();
            frame_ms.push_back(ms_between(frame_start, end));
            if (!complete) ++stand_in_frames;
            if (frame_log) {
                const auto st = renderer_.stats();
                frame_log << frames_done << ',' << fixed(frame_ms.back(), 3) << ','
                          << fixed(ms_between(frame_start, updated), 3) << ','
                          << fixed(ms_between(updated, drawn), 3) << ','
                          << fixed(ms_between(drawn, end), 3) << ',' << st.uploaded << ','
                          << fixed(st.upload_ms, 3) << ',' << st.stand_ins << ',' << st.level << ','
                          << fixed(camera_.zoom, 5) << '\n';
            }
            ++frames_done;
        }
        if (options_.quit_after_reloads && reloads_ >= *options_.quit_after_reloads &&
            !generator_.busy()) {
            window_.close();
            break;
        }
        const bool frames_finished = !options_.frames || frames_done >= frames_wanted;
        if ((options_.screenshot || options_.frames) && build_ && frames_finished &&
            (complete || options_.frames)) {
            if (options_.frames) {
                std::vector<double> sorted = frame_ms;
                std::sort(sorted.begin(), sorted.end());
                double sum = 0;
                for (double v : sorted)
                    sum += v;
                const double mean = sorted.empty() ? 0 : sum / static_cast<double>(sorted.size());
                const double p95 =
                    sorted.empty()
                        ? 0
                        : sorted[std::min(sorted.size() - 1,
                                          static_cast<std::size_t>(std::ceil(
                                              0.95 * static_cast<double>(sorted.size()))) -
                                              1)];
                const double max = sorted.empty() ? 0 : sorted.back();
                const auto st = renderer_.stats();
                std::cout << "frames " << sorted.size() << " mean_ms " << fixed(mean, 2)
                          << " p95_ms " << fixed(p95, 2) << " max_ms " << fixed(max, 2) << "\n"
                          << "map " << build_->width() << "x" << build_->height() << " generate_ms "
                          << fixed(build_->generate_ms, 0) << " stand_in_frames " << stand_in_frames
                          << " pieces_cached " << st.pieces << " cache_mb "
                          << fixed(double(st.bytes) / (1 << 20), 1) << "\n";
            }
            if (options_.screenshot) {
                // The off-screen copy of the first complete frame (independent of the window's
                // visibility).
                bool done = false;
                for (int attempt = 0; attempt < 1000 && !done; ++attempt)
                    done = draw_frame(capture, -1.0);
                capture.display();
                const Image image = to_image(capture.getTexture().copyToImage());
                if (!io::save_png(*options_.screenshot, image, diags)) return 1;
                if (options_.inspect)
                    for (const auto& line : hover_lines())
                        std::cout << line << '\n';
            }
            std::cout.flush();
            window_.close();
            break;
        }
    }
    window_.close();
    if (export_.valid()) export_.wait();
    return 0;
}

} // namespace

std::vector<std::string> layer_labels(const std::vector<std::string>& names, std::uint64_t visible,
                                      int focus, std::size_t columns) {
    auto shown = [visible](std::size_t i) { return i >= 64 || ((visible >> i) & 1u) != 0; };
    auto label = [&](std::size_t i, bool compact) {
        const auto dim = [&](const std::string& s) { return shown(i) ? s : "(" + s + ")"; };
        const std::string key = i < 9 ? std::to_string(i + 1) : "";
        if (compact) return dim(key.empty() ? names[i].substr(0, 3) : key);
        return key.empty() ? dim(names[i]) : key + ":" + dim(names[i]);
    };
    std::vector<std::string> labels;
    std::size_t width = 0;
    for (std::size_t i = 0; i < names.size(); ++i) {
        labels.push_back(label(i, false));
        width += labels.back().size() + 1;
    }
    if (width <= columns) return labels;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (static_cast<int>(i) != focus) labels[i] = label(i, true);
    return labels;
}

const char* key_help() {
    return kKeyHelp;
}

int run_viewer(const ViewerOptions& options, Project project, Diagnostics& diags) {
    // Before the Viewer exists: SFML aborts when its members are made without a display.
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) {
        diags.push_back(
            view_error("no display (DISPLAY is not set); run it on a desktop or under xvfb-run"));
        return 1;
    }
    Viewer viewer(options, std::move(project));
    return viewer.run(diags);
}

} // namespace tilegen::viewer
