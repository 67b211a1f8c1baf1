// PieceWorker: makes map pieces (chunk and block pixels, see map_pixels.hpp) on a background
// thread, so the window's thread only uploads finished pixels as textures and never stalls making
// them. Input: want(build, keys) once per frame: the pieces the renderer lacks, most wanted first;
// it replaces the previous list (pieces that left the view are no longer made). Output: take()
// hands over finished pieces. Invariants: pieces of a build other than the latest wanted one are
// dropped; at most kMaxReady finished pieces wait to be taken (the worker pauses meanwhile), so
// memory stays bounded; a piece in the list is made once while it stays wanted (not again while it
// waits or is being made); a replaced build is released on the worker's thread (freeing a large map
// takes milliseconds the window's thread should not spend).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "viewer/map_pixels.hpp"

namespace tilegen::viewer {

struct MadePiece {
    PieceKey key;
    Image pixels;
    bool opaque = false; // every pixel has alpha 255
};

class PieceWorker {
  public:
    static constexpr std::size_t kMaxReady = 8;

    PieceWorker();
    ~PieceWorker(); // finishes the piece being made, then stops
    PieceWorker(const PieceWorker&) = delete;
    PieceWorker& operator=(const PieceWorker&) = delete;

    void want(const std::shared_ptr<const Build>& build, std::vector<PieceKey> keys);
    void set_bgra(bool bgra); // pieces in B G R A byte order from now on (else R G B A)
    // Finished pieces of `build`, in the order they were made.
    std::vector<MadePiece> take(const Build* build);

  private:
    // Lock, wake-up, stop flag, thread: as Generator's (the idiom; the state differs).
    void loop();
    bool waiting(const PieceKey& key) const; // ready or being made

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::shared_ptr<const Build> build_;
    std::vector<std::shared_ptr<const Build>> retired_; // replaced builds, to release
    std::vector<PieceKey> wanted_;
    std::vector<MadePiece> ready_;
    std::optional<PieceKey> making_;
    bool bgra_ = false;
    bool stop_ = false;
    std::thread thread_;
};

} // namespace tilegen::viewer
