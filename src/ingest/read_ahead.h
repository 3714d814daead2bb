// ReadAhead<T>: produces items 0..count-1 on a ThreadPool ahead of the
// consumer and hands them out strictly in index order, so a loop that
// consumes them behaves exactly as if it produced each item itself, just
// before using it.
//
// Contract: produce(i) runs once per index (again on the consumer's thread
// only if the first run threw), on a pool worker (or inline on the
// consumer's thread when the pool is nullptr, just before item i is
// returned); it must not touch state the consumer changes.
// At most `window` items are produced or waiting at a time, and a new item
// starts only while the estimated bytes (cost(i)) of those items stay within
// `max_bytes` — except that one item is always allowed, so an item larger
// than the bound still makes progress. Next() returns the next item in
// order; destroying the ReadAhead waits for items in flight (their results
// are dropped). Used by one consumer thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "common/thread_pool.h"

namespace floe::ingest {

template <typename T>
class ReadAhead {
 public:
  ReadAhead(ThreadPool* pool, size_t count, size_t window, int64_t max_bytes,
            std::function<T(size_t)> produce, std::function<int64_t(size_t)> cost = nullptr)
      : pool_(pool),
        count_(count),
        window_(window == 0 ? 1 : window),
        max_bytes_(max_bytes),
        produce_(std::move(produce)),
        cost_(std::move(cost)) {}
  ~ReadAhead() { slots_.clear(); }  // each slot's TaskGroup waits for its task
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  bool done() const { return next_ == count_; }

  // The next item in index order; call only while !done().
  T Next() {
    if (pool_ == nullptr) return produce_(next_++);  // serial: produced right before use
    Fill();
    std::unique_ptr<Slot> slot = std::move(slots_.front());
    slots_.pop_front();
    // The task returns OK unless produce() threw; then the item is produced
    // again here, so the exception reaches the consumer as in a serial loop.
    (void)slot->group.Wait();
    in_flight_bytes_ -= slot->cost;
    const size_t index = next_++;
    T item = slot->value ? std::move(*slot->value) : produce_(index);
    Fill();  // start the following items before the caller works on this one
    return item;
  }

 private:
  struct Slot {
    explicit Slot(ThreadPool* pool) : group(pool) {}
    std::optional<T> value;  // declared before `group`: destroyed after the task finished
    int64_t cost = 0;
    TaskGroup group;
  };

  void Fill() {
    while (started_ < count_ && slots_.size() < window_) {
      const int64_t cost = cost_ ? cost_(started_) : 0;
      if (!slots_.empty() && in_flight_bytes_ + cost > max_bytes_) break;
      auto slot = std::make_unique<Slot>(pool_);
      slot->cost = cost;
      Slot* raw = slot.get();
      const size_t index = started_;
      raw->group.Run([this, raw, index] {
        raw->value.emplace(produce_(index));
        return Status::OK();
      });
      in_flight_bytes_ += cost;
      slots_.push_back(std::move(slot));
      ++started_;
    }
  }

  ThreadPool* pool_;
  size_t count_;
  size_t window_;
  int64_t max_bytes_;
  std::function<T(size_t)> produce_;
  std::function<int64_t(size_t)> cost_;
  size_t next_ = 0;     // next index handed out
  size_t started_ = 0;  // next index to start producing
  int64_t in_flight_bytes_ = 0;
  std::deque<std::unique_ptr<Slot>> slots_;  // started, not yet handed out, in index order
};

}  // namespace floe::ingest
