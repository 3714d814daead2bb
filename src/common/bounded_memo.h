// BoundedMemo: a process-wide memo of values that are costly to compute and
// asked for again and again with the same key (parsed Avro schemas, reader
// projections, manifest read schemas). Bounded without bookkeeping: when it
// holds `capacity` entries, the next Add empties it first (a process that
// meets that many distinct keys gains little from a memo). Only computed
// values go in, never errors, so a failing input is re-examined and reported
// the same way on every call.
// Thread-safe: one mutex; Find copies the value out, so Value should be cheap
// to copy (a handle to shared immutable state).
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace floe {

template <class Key, class Value, class Hash = std::hash<Key>>
class BoundedMemo {
 public:
  explicit BoundedMemo(size_t capacity) : capacity_(capacity) {}

  std::optional<Value> Find(const Key& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }

  void Add(Key key, Value value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (values_.size() >= capacity_) values_.clear();
    values_.insert_or_assign(std::move(key), std::move(value));
  }

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<Key, Value, Hash> values_;
};

}  // namespace floe
