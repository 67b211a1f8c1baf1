#include "viewer/piece_worker.hpp"

#include <algorithm>
#include <exception>

#include "viewer/worker_stop.hpp"

namespace tilegen::viewer {

PieceWorker::PieceWorker() : thread_([this] { loop(); }) {}

PieceWorker::~PieceWorker() {
    stop_worker(mutex_, wake_, stop_, thread_, [this] { wanted_.clear(); });
}

void PieceWorker::want(const std::shared_ptr<const Build>& build, std::vector<PieceKey> keys) {
    {
        std::lock_guard lock(mutex_);
        if (build_ != build) {
            if (build_) retired_.push_back(std::move(build_));
            build_ = build;
            ready_.clear();
        }
        wanted_ = std::move(keys);
    }
    wake_.notify_all();
}

void PieceWorker::set_bgra(bool bgra) {
    std::lock_guard lock(mutex_);
    bgra_ = bgra;
    ready_.clear();
}

std::vector<MadePiece> PieceWorker::take(const Build* build) {
    std::vector<MadePiece> out;
    {
        std::lock_guard lock(mutex_);
        if (build_.get() == build) out = std::move(ready_);
        ready_.clear();
    }
    wake_.notify_all(); // room for more
    return out;
}

bool PieceWorker::waiting(const PieceKey& key) const {
    if (making_ && *making_ == key) return true;
    return std::any_of(ready_.begin(), ready_.end(),
                       [&](const MadePiece& p) { return p.key == key; });
}

void PieceWorker::loop() {
    for (;;) {
        std::shared_ptr<const Build> build;
        PieceKey key;
        bool bgra = false;
        std::vector<std::shared_ptr<const Build>> retired;
        {
            std::unique_lock lock(mutex_);
            auto next = wanted_.end();
            wake_.wait(lock, [&] {
                if (stop_ || !retired_.empty()) return true;
                if (!build_ || ready_.size() >= kMaxReady) return false;
                next = std::find_if(wanted_.begin(), wanted_.end(),
                                    [&](const PieceKey& k) { return !waiting(k); });
                return next != wanted_.end();
            });
            if (stop_) return;
            if (!retired_.empty()) {
                retired.swap(retired_);
                lock.unlock();
                retired.clear(); // the last references, most likely: freed here
                continue;
            }
            key = *next;
            wanted_.erase(next);
            build = build_;
            bgra = bgra_;
            making_ = key;
        }
        Image pixels;
        bool opaque = false;
        try {
            pixels = make_piece(*build, key);
            opaque = is_opaque(pixels);
            if (bgra) swap_red_blue(pixels);
        } catch (const std::exception&) {
            // Out of memory: leave the piece out; the renderer keeps drawing its stand-in and asks
            // again.
        }
        std::lock_guard lock(mutex_);
        making_.reset();
        if (build_ == build && bgra_ == bgra && !pixels.empty())
            ready_.push_back({key, std::move(pixels), opaque});
    }
}

} // namespace tilegen::viewer
