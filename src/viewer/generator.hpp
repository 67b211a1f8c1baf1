// Generator: loads and generates maps on a worker thread so the window never waits for them; plus
// the file watching that drives hot reload. Input: jobs (a recipe path or an already loaded
// Project, and GenerateOptions). submit() replaces any job not yet started, so bursts of requests
// (R held down, an editor saving twice) run only the newest. Output: take() hands over finished
// results under a mutex: either a Build, or the load's error diagnostics (the caller keeps its last
// good map). Every result lists the files the load read with
// their modification times, for watching. Invariants: results arrive in submission order; a job's
// exceptions (e.g. out of memory) become an error result, never escape the thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/diagnostic.hpp"
#include "viewer/build.hpp"

namespace tilegen::viewer {

// A file a load read, and its state then (mtime and size; exists=false when it could not be found).
struct WatchedFile {
    std::filesystem::path path;
    bool exists = false;
    std::filesystem::file_time_type mtime{};
    std::uintmax_t size = 0;
    bool operator==(const WatchedFile&) const = default;
};
WatchedFile watch_state(const std::filesystem::path& path);
// True when any file's state on disk differs from the recorded one.
bool files_changed(const std::vector<WatchedFile>& files);

struct Job {
    std::uint64_t id = 0;
    std::optional<std::string> recipe; // nullopt = the built-in default recipe (nothing to watch)
    std::optional<Project>
        project; // when set, used instead of loading `recipe` (the initial, checked load)
    std::optional<std::uint64_t> seed; // nullopt = the recipe's seed
    std::optional<std::pair<int, int>> size;
};

struct JobResult {
    std::uint64_t id = 0;
    std::shared_ptr<const Build> build; // null when the load failed
    Diagnostics errors;                 // why, when the load (or generation) failed
    std::vector<WatchedFile>
        watched; // files the load read (empty for the built-in recipe or a preloaded job)
};

class Generator {
  public:
    Generator();
    ~Generator(); // waits for the running job to finish
    Generator(const Generator&) = delete;
    Generator& operator=(const Generator&) = delete;

    void submit(Job job);
    std::optional<JobResult> take();
    bool busy() const; // a job is queued or running

  private:
    // Lock, wake-up, stop flag, thread: as PieceWorker's (the idiom; the state differs).
    void loop();
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<Job> pending_;
    std::optional<JobResult> done_;
    bool running_ = false;
    bool stop_ = false;
    std::thread thread_;
};

} // namespace tilegen::viewer
