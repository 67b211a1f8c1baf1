#include "viewer/generator.hpp"

#include <exception>
#include <new>

#include "io/file_source.hpp"
#include "io/project_loader.hpp"
#include "viewer/worker_stop.hpp"

namespace tilegen::viewer {

namespace fs = std::filesystem;

namespace {

// Reads from disk and records every path read (and its state just before reading), so a change to
// any file a load depended on (recipe, rule files, manifest, tileset image, image targets) triggers
// a reload, including files that were missing.
class RecordingFiles final : public io::FileSource {
  public:
    std::optional<std::string> read(const fs::path& path, Diagnostics& diags) const override {
        record(path);
        return disk_.read(path, diags);
    }
    std::vector<WatchedFile> files() const {
        std::lock_guard lock(mutex_);
        return files_;
    }

  private:
    void record(const fs::path& path) const {
        WatchedFile w = watch_state(path);
        std::lock_guard lock(mutex_);
        for (const WatchedFile& f : files_)
            if (f.path == path) return;
        files_.push_back(std::move(w));
    }
    io::DiskFiles disk_;
    mutable std::mutex mutex_;
    mutable std::vector<WatchedFile> files_;
};

JobResult run_job(Job job) {
    JobResult out;
    out.id = job.id;
    std::optional<Project> project = std::move(job.project);
    if (!project && job.recipe) {
        RecordingFiles files;
        Diagnostics diags;
        project = io::load_project(*job.recipe, files, diags);
        out.watched = files.files();
        if (!project) {
            for (const Diagnostic& d : diags)
                if (d.severity == Severity::error) out.errors.push_back(d);
            if (out.errors.empty())
                out.errors.push_back(error_at(*job.recipe, 0, 0, "cannot load the recipe"));
            return out;
        }
    }
    if (!project) {
        out.errors.push_back(error_at("", 0, 0, "no recipe to load"));
        return out;
    }
    GenerateOptions options;
    options.seed = job.seed;
    if (job.size) {
        options.width = job.size->first;
        options.height = job.size->second;
    }
    const int w = options.width.value_or(project->recipe.map.width);
    const int h = options.height.value_or(project->recipe.map.height);
    try {
        out.build = make_build(std::move(*project), options);
    } catch (const std::bad_alloc&) {
        out.errors.push_back(error_at("", 0, 0,
                                      "out of memory generating a " + std::to_string(w) + "x" +
                                          std::to_string(h) + " map"));
    } catch (const std::exception& e) {
        out.errors.push_back(error_at("", 0, 0, e.what()));
    }
    return out;
}

} // namespace

WatchedFile watch_state(const fs::path& path) {
    WatchedFile w;
    w.path = path;
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::is_regular_file(status)) return w;
    w.mtime = fs::last_write_time(path, ec);
    if (ec) return w;
    w.size = fs::file_size(path, ec);
    if (ec) return w;
    w.exists = true;
    return w;
}

bool files_changed(const std::vector<WatchedFile>& files) {
    for (const WatchedFile& f : files)
        if (!(watch_state(f.path) == f)) return true;
    return false;
}

Generator::Generator() : thread_([this] { loop(); }) {}

Generator::~Generator() {
    stop_worker(mutex_, wake_, stop_, thread_, [this] { pending_.reset(); });
}

void Generator::submit(Job job) {
    {
        std::lock_guard lock(mutex_);
        pending_ = std::move(job);
    }
    wake_.notify_all();
}

std::optional<JobResult> Generator::take() {
    std::lock_guard lock(mutex_);
    std::optional<JobResult> r = std::move(done_);
    done_.reset();
    return r;
}

bool Generator::busy() const {
    std::lock_guard lock(mutex_);
    return running_ || pending_.has_value();
}

void Generator::loop() {
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
            if (stop_) return;
            job = std::move(*pending_);
            pending_.reset();
            running_ = true;
        }
        JobResult result = run_job(std::move(job));
        {
            std::lock_guard lock(mutex_);
            // A newer finished result replaces an older one nobody took yet; results stay in
            // submission order.
            done_ = std::move(result);
            running_ = false;
        }
    }
}

} // namespace tilegen::viewer
