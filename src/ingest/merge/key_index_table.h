// Internal to floe_ingest_merge: the open-addressing table behind
// PrimaryKeyIndex, shared by key_index.cc (mutation) and key_index_file.cc
// (persistence).
//
// Contract:
// - Robin Hood linear probing over a flat slot array. A key's home slot is
//   fastrange(mix(key), capacity) (the high 64 bits of mix * capacity), so the
//   capacity need not be a power of two and the table can grow in small steps.
// - Growth: double while the capacity is below 1024 slots, then grow to
//   count / 0.81 whenever the load would pass 0.9. The load factor therefore
//   stays within [0.81, 0.9] past 1024 keys (32-byte slots: 35.6-39.5 bytes per
//   integer key) instead of the 0.45-0.9 that doubling gives. Rehashing walks
//   the old slots in home order, so it writes the new array almost
//   sequentially; amortised it moves each key about ten times.
// - Slot encoding: `file` holds the interned data file number, kTombstoneFile
//   for a tombstone or kEmptyFile for a free slot (so at most 2^32 - 2 distinct
//   data files). For a live entry `position` holds the row position, or
//   kPositionInOverflow when it is >= 2^32 - 1 (the real value then lives in an
//   overflow map; such files do not occur in practice). For a tombstone
//   `position` holds the deletion time in whole seconds since the epoch,
//   rounded up and clamped to [0, 2^32 - 1] (until year 2106).
// - Narrow slots hold an exact int64 key (KeyId.hi == 0); wide slots the
//   whole 128-bit KeyId.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ingest/merge/key_index.h"
#include "ingest/merge/murmur3_128.h"

namespace floe::ingest::key_index_internal {

inline constexpr uint32_t kEmptyFile = 0xFFFFFFFFu;
inline constexpr uint32_t kTombstoneFile = 0xFFFFFFFEu;
inline constexpr uint32_t kMaxFiles = kTombstoneFile;  // file numbers 0 .. 2^32 - 3
inline constexpr uint32_t kPositionInOverflow = 0xFFFFFFFFu;

struct NarrowSlot {
  uint64_t key = 0;
  OrderValue order;
  uint32_t file = kEmptyFile;
  uint32_t position = 0;

  static uint64_t Mix(const KeyId& k) { return MurmurMix64(k.lo); }
  uint64_t Mix() const { return MurmurMix64(key); }
  bool Matches(const KeyId& k) const { return key == k.lo; }
  KeyId Key() const { return {0, key}; }
  void SetKey(const KeyId& k) { key = k.lo; }
};
static_assert(sizeof(NarrowSlot) == 32);

struct WideSlot {
  uint64_t hi = 0;
  uint64_t lo = 0;
  OrderValue order;
  uint32_t file = kEmptyFile;
  uint32_t position = 0;

  static uint64_t Mix(const KeyId& k) { return KeyIdHash{}(k); }
  uint64_t Mix() const { return Mix(KeyId{hi, lo}); }
  bool Matches(const KeyId& k) const { return lo == k.lo && hi == k.hi; }
  KeyId Key() const { return {hi, lo}; }
  void SetKey(const KeyId& k) {
    hi = k.hi;
    lo = k.lo;
  }
};
static_assert(sizeof(WideSlot) == 40);

template <typename Slot>
class RobinTable {
 public:
  size_t size() const { return count_; }
  size_t capacity() const { return slots_.size(); }
  size_t MemoryBytes() const { return slots_.capacity() * sizeof(Slot); }
  Slot& slot(size_t i) { return slots_[i]; }
  const Slot& slot(size_t i) const { return slots_[i]; }

  const Slot* Find(const KeyId& key) const {
    const size_t cap = slots_.size();
    if (cap == 0) return nullptr;
    size_t i = Home(Slot::Mix(key));
    for (size_t distance = 0;; ++distance) {
      const Slot& s = slots_[i];
      if (s.file == kEmptyFile) return nullptr;
      if (s.Matches(key)) return &s;
      if (DistanceOf(s, i) < distance) return nullptr;
      if (++i == cap) i = 0;
    }
  }
  Slot* Find(const KeyId& key) { return const_cast<Slot*>(std::as_const(*this).Find(key)); }

  // The slot holding `key`; a new slot (file == kTombstoneFile, to be filled
  // by the caller before any other call) when absent. *inserted tells which.
  Slot& FindOrInsert(const KeyId& key, bool* inserted) {
    if (Slot* existing = Find(key)) {
      *inserted = false;
      return *existing;
    }
    *inserted = true;
    if (count_ + 1 > MaxCount()) Grow();
    Slot fresh;
    fresh.SetKey(key);
    fresh.file = kTombstoneFile;
    return *Place(fresh);
  }

  // Removes the entry in slot `i` by shifting the rest of its cluster back.
  void EraseAt(size_t i) {
    const size_t cap = slots_.size();
    size_t next = i + 1 == cap ? 0 : i + 1;
    while (slots_[next].file != kEmptyFile && DistanceOf(slots_[next], next) > 0) {
      slots_[i] = slots_[next];
      i = next;
      next = i + 1 == cap ? 0 : i + 1;
    }
    slots_[i] = Slot();
    --count_;
  }

  void Reserve(size_t keys) {
    if (keys > MaxCount()) Rehash(CapacityFor(keys));
  }

 private:
  static constexpr double kMaxLoad = 0.9;
  static constexpr double kLoadAfterGrowth = 0.81;
  static constexpr size_t kDoublingBelow = 1024;

  size_t Home(uint64_t mix) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(mix) * slots_.size()) >> 64);
  }
  size_t DistanceOf(const Slot& s, size_t i) const {
    size_t home = Home(s.Mix());
    return i >= home ? i - home : i + slots_.size() - home;
  }
  size_t MaxCount() const { return static_cast<size_t>(static_cast<double>(slots_.size()) * kMaxLoad); }
  static size_t CapacityFor(size_t keys) {
    return static_cast<size_t>(static_cast<double>(keys) / kLoadAfterGrowth) + 16;
  }

  // Inserts a key known to be absent; returns where it landed.
  Slot* Place(Slot carried) {
    const size_t cap = slots_.size();
    size_t i = Home(carried.Mix());
    size_t distance = 0;
    Slot* placed = nullptr;
    for (;;) {
      Slot& s = slots_[i];
      if (s.file == kEmptyFile) {
        s = carried;
        ++count_;
        return placed ? placed : &s;
      }
      size_t existing = DistanceOf(s, i);
      if (existing < distance) {
        std::swap(s, carried);
        if (!placed) placed = &s;
        distance = existing;
      }
      ++distance;
      if (++i == cap) i = 0;
    }
  }

  void Grow() {
    const size_t cap = slots_.size();
    size_t target = cap < kDoublingBelow ? (cap == 0 ? 16 : cap * 2) : CapacityFor(count_ + 1);
    Rehash(target);
  }

  void Rehash(size_t new_capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(new_capacity, Slot());
    count_ = 0;
    // Start at a cluster boundary so slots are visited in home order.
    size_t start = 0;
    while (start < old.size() && old[start].file != kEmptyFile) ++start;
    for (size_t k = 0; k < old.size(); ++k) {
      const Slot& s = old[(start + k) % old.size()];
      if (s.file != kEmptyFile) Place(s);
    }
  }

  std::vector<Slot> slots_;
  size_t count_ = 0;
};

// Seconds since the epoch for a tombstone's deletion time (see above).
inline uint32_t TombstoneSeconds(int64_t deleted_at_ms) {
  if (deleted_at_ms <= 0) return 0;
  int64_t seconds = deleted_at_ms / 1000 + (deleted_at_ms % 1000 != 0 ? 1 : 0);
  return seconds >= int64_t{0xFFFFFFFF} ? 0xFFFFFFFFu : static_cast<uint32_t>(seconds);
}

}  // namespace floe::ingest::key_index_internal

namespace floe::ingest {

struct PrimaryKeyIndex::Impl {
  // Narrow until the first key with hi != 0 (a hashed key) arrives.
  bool wide = false;
  key_index_internal::RobinTable<key_index_internal::NarrowSlot> narrow;
  key_index_internal::RobinTable<key_index_internal::WideSlot> wide_table;
  std::deque<std::string> files;  // deque: the strings never move, so views into them stay valid
  std::unordered_map<std::string_view, uint32_t> file_numbers;
  uint32_t last_file = key_index_internal::kEmptyFile;  // PutLive usually repeats the same file
  std::unordered_map<KeyId, int64_t, KeyIdHash> overflow_positions;
  int64_t live = 0;
  int64_t tombstones = 0;
  // The key/ordering columns this index was loaded for ("" when unknown); saved with it.
  std::string spec_text;

  uint32_t Intern(std::string_view path);
  void Widen();
  // f(table) with the table in use.
  template <typename F>
  decltype(auto) WithTable(F&& f) {
    return wide ? f(wide_table) : f(narrow);
  }
  template <typename F>
  decltype(auto) WithTable(F&& f) const {
    return wide ? f(wide_table) : f(narrow);
  }
};

}  // namespace floe::ingest
