// RobinTable: the open-addressing hash table behind a batch's change map
// (ingest/change_map.h), which brings its own slot types.
//
// Contract:
// - Robin Hood linear probing over a flat slot array. A key's home slot is
//   fastrange(mix(key), capacity) (the high 64 bits of mix * capacity), so the
//   capacity need not be a power of two and the table can grow in small steps.
// - Growth: whenever the load would pass max_load (LoadBand of the slot
//   type, 0.9 by default) the capacity doubles while below 1024 slots and
//   grows by half past it (or to what a Reserve asks, if more), so n inserts
//   or reserves cost O(n) slot moves in all: a table that was grown keeps a
//   load factor of 0.6-0.9 past 1024 keys, one reserved once (from empty)
//   for its final count keeps after_growth (0.81). (Growing to just above
//   the count at every step, as before, rehashed the table every ~11% of
//   growth: ~9 moves per key.) Rehashing walks the old slots in home order,
//   so it writes the new array almost sequentially; Reserve before a known
//   number of inserts avoids growth altogether.
// - A slot type has a uint32_t `file` word (kEmptySlot: the slot is free),
//   static Mix(KeyId), Mix(), Matches(KeyId), Key() and SetKey(KeyId).
// Not thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "ingest/merge/key_index.h"

namespace floe::ingest {

inline constexpr uint32_t kEmptySlot = 0xFFFFFFFFu;

// The load factor band a table of `Slot` keeps past 1024 keys.
template <typename Slot>
struct LoadBand {
  static constexpr double kMax = 0.9;
  static constexpr double kAfterGrowth = 0.81;
};

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
      if (s.file == kEmptySlot) return nullptr;
      if (s.Matches(key)) return &s;
      if (DistanceOf(s, i) < distance) return nullptr;
      if (++i == cap) i = 0;
    }
  }
  Slot* Find(const KeyId& key) { return const_cast<Slot*>(std::as_const(*this).Find(key)); }

  // Asks the CPU to fetch the cache line of `key`'s home slot, for a Find or
  // FindOrInsert of it a few keys later: a table of millions of keys is
  // tens of MB, and each probe is otherwise a wait for main memory.
  void Prefetch(const KeyId& key) const {
    if (slots_.empty()) return;
    const Slot* home = slots_.data() + Home(Slot::Mix(key));
#if defined(__x86_64__)
    // GCC 12 drops a __builtin_prefetch here (checked in the -O2 and -O3
    // output), so the instruction is spelled out.
    asm volatile("prefetcht0 %0" : : "m"(*reinterpret_cast<const char*>(home)));
#else
    __builtin_prefetch(home);
#endif
  }

  // The slot holding `key`; a new slot (file == 0, to be filled by the
  // caller before any other call) when absent. *inserted tells which.
  Slot& FindOrInsert(const KeyId& key, bool* inserted) {
    if (Slot* existing = Find(key)) {
      *inserted = false;
      return *existing;
    }
    *inserted = true;
    if (count_ + 1 > MaxCount()) Grow();
    Slot fresh;
    fresh.SetKey(key);
    fresh.file = 0;
    return *Place(fresh);
  }

  // Removes the entry in slot `i` by shifting the rest of its cluster back.
  void EraseAt(size_t i) {
    const size_t cap = slots_.size();
    size_t next = i + 1 == cap ? 0 : i + 1;
    while (slots_[next].file != kEmptySlot && DistanceOf(slots_[next], next) > 0) {
      slots_[i] = slots_[next];
      i = next;
      next = i + 1 == cap ? 0 : i + 1;
    }
    slots_[i] = Slot();
    --count_;
  }

  // Grows once (geometrically, see the contract) so that `keys` entries fit
  // without further growth.
  void Reserve(size_t keys) {
    if (keys > MaxCount()) Rehash(CapacityAfterReserve(slots_.size(), keys));
  }

  // Slots a table of `capacity` slots has after Reserve(keys) or the inserts
  // that bring it to `keys` entries (the same when the keys fit).
  static size_t CapacityAfterReserve(size_t capacity, size_t keys) {
    if (static_cast<double>(keys) <= static_cast<double>(capacity) * kMaxLoad) return capacity;
    return std::max(GrownCapacity(capacity), CapacityFor(keys));
  }

  // Slots a table reserved from empty for `keys` entries has.
  static size_t CapacityFor(size_t keys) {
    return static_cast<size_t>(static_cast<double>(keys) / kLoadAfterGrowth) + 16;
  }

 private:
  static constexpr double kMaxLoad = LoadBand<Slot>::kMax;
  static constexpr double kLoadAfterGrowth = LoadBand<Slot>::kAfterGrowth;
  static constexpr size_t kDoublingBelow = 1024;

  size_t Home(uint64_t mix) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(mix) * slots_.size()) >> 64);
  }
  size_t DistanceOf(const Slot& s, size_t i) const {
    size_t home = Home(s.Mix());
    return i >= home ? i - home : i + slots_.size() - home;
  }
  size_t MaxCount() const {
    return static_cast<size_t>(static_cast<double>(slots_.size()) * kMaxLoad);
  }

  // Inserts a key known to be absent; returns where it landed.
  Slot* Place(Slot carried) {
    const size_t cap = slots_.size();
    size_t i = Home(carried.Mix());
    size_t distance = 0;
    Slot* placed = nullptr;
    for (;;) {
      Slot& s = slots_[i];
      if (s.file == kEmptySlot) {
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

  // The next geometric step from `capacity` slots.
  static size_t GrownCapacity(size_t capacity) {
    if (capacity == 0) return 0;  // a first Reserve takes what it asks for; a first insert 16
    return capacity < kDoublingBelow ? capacity * 2 : capacity + capacity / 2;
  }

  void Grow() {
    Rehash(std::max<size_t>(CapacityAfterReserve(slots_.size(), count_ + 1), 16));
  }

  void Rehash(size_t new_capacity) {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(new_capacity, Slot());
    count_ = 0;
    // Start at a cluster boundary so slots are visited in home order.
    size_t start = 0;
    while (start < old.size() && old[start].file != kEmptySlot) ++start;
    for (size_t k = 0; k < old.size(); ++k) {
      const Slot& s = old[(start + k) % old.size()];
      if (s.file != kEmptySlot) Place(s);
    }
  }

  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace floe::ingest
