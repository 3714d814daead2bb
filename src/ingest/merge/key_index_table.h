// Internal to floe's ingestion: the open-addressing table behind
// PrimaryKeyIndex, shared by key_index.cc (mutation) and key_index_file.cc
// (persistence), and behind a batch's change map (ingest/change_map.h),
// which brings its own slot types.
//
// Contract:
// - Robin Hood linear probing over a flat slot array. A key's home slot is
//   fastrange(mix(key), capacity) (the high 64 bits of mix * capacity), so the
//   capacity need not be a power of two and the table can grow in small steps.
// - Growth: double while the capacity is below 1024 slots, then grow to
//   count / after_growth whenever the load would pass max_load (LoadBand of
//   the slot type: 0.81 / 0.9 by default, 0.875 / 0.94 for the key index's
//   28-byte wide slots). Past 1024 keys the load factor stays within that
//   band instead of the 0.45-0.9 that doubling gives. Rehashing walks the old
//   slots in home order, so it writes the new array almost sequentially;
//   Reserve before a known number of inserts avoids the growth cascade.
// - Key index slot encoding: `file` holds the interned data file number
//   (bit 31 set when the ordering value's high half is in the side map),
//   kTombstoneFile / kTombstoneSideFile for a tombstone (the latter with its
//   high half in the side map) or kEmptyFile for a free slot; so at most
//   2^31 - 3 distinct data files. The low 8 bytes of the ordering value are
//   in the slot; the high 8 bytes are the index's shared high half (the
//   first one it saw) unless the side map has the key. For a live entry
//   `position` holds the row position, or kPositionInOverflow when it is
//   >= 2^32 - 1 (the real value then lives in an overflow map; such files do
//   not occur in practice). For a tombstone `position` holds the deletion
//   time in whole seconds since the epoch, rounded up and clamped to
//   [0, 2^32 - 1] (until year 2106).
// - Narrow slots (24 bytes) hold an exact int64 key (KeyId.hi == 0); wide
//   slots (28 bytes) a canonical KeyId (CanonicalKey: lo and 32 bits of hi).
//   Keys are canonicalised before they reach a table or side map.
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
inline constexpr uint32_t kTombstoneSideFile = 0xFFFFFFFDu;
inline constexpr uint32_t kSideOrderBit = 0x80000000u;
inline constexpr uint32_t kMaxFiles = 0x7FFFFFFDu;  // file numbers 0 .. 2^31 - 4
inline constexpr uint32_t kPositionInOverflow = 0xFFFFFFFFu;

inline bool IsTombstone(uint32_t file) {
  return file == kTombstoneFile || file == kTombstoneSideFile;
}
inline bool IsLive(uint32_t file) {
  return file < kTombstoneSideFile;
}
inline bool HasSideOrder(uint32_t file) {
  return file == kTombstoneSideFile || (IsLive(file) && (file & kSideOrderBit) != 0);
}
inline uint32_t FileNumber(uint32_t file) {
  return file & ~kSideOrderBit;
}

// The form of a key the tables and side maps hold: exact integer keys
// ({0, value}) as they are; for a hashed key, hi folded to 32 bits with the
// lowest bit set (so it stays non-zero and never aliases an integer key) and
// moved to the top half: 95 bits of hash kept. Idempotent.
inline KeyId CanonicalKey(const KeyId& k) {
  if (k.hi == 0) return k;
  const uint32_t folded = (static_cast<uint32_t>(k.hi >> 32) ^ static_cast<uint32_t>(k.hi)) | 1u;
  return {uint64_t{folded} << 32, k.lo};
}

struct NarrowSlot {
  uint64_t key = 0;
  uint64_t order_lo = 0;
  uint32_t file = kEmptyFile;
  uint32_t position = 0;

  static uint64_t Mix(const KeyId& k) { return MurmurMix64(k.lo); }
  uint64_t Mix() const { return MurmurMix64(key); }
  bool Matches(const KeyId& k) const { return key == k.lo; }
  KeyId Key() const { return {0, key}; }
  void SetKey(const KeyId& k) { key = k.lo; }
  uint64_t OrderLo() const { return order_lo; }
  void SetOrderLo(uint64_t v) { order_lo = v; }
};
static_assert(sizeof(NarrowSlot) == 24);

// 32-bit words only, so the slot is 28 bytes with 4-byte alignment.
struct WideSlot {
  uint32_t lo_low = 0;
  uint32_t lo_high = 0;
  uint32_t hi_top = 0;
  uint32_t order_low = 0;
  uint32_t order_high = 0;
  uint32_t file = kEmptyFile;
  uint32_t position = 0;

  static uint64_t Mix(const KeyId& k) { return KeyIdHash{}(CanonicalKey(k)); }
  uint64_t Mix() const { return KeyIdHash{}(Key()); }
  bool Matches(const KeyId& k) const {
    return lo_low == static_cast<uint32_t>(k.lo) && lo_high == static_cast<uint32_t>(k.lo >> 32) &&
           hi_top == static_cast<uint32_t>(k.hi >> 32);
  }
  KeyId Key() const { return {uint64_t{hi_top} << 32, uint64_t{lo_high} << 32 | lo_low}; }
  void SetKey(const KeyId& k) {
    lo_low = static_cast<uint32_t>(k.lo);
    lo_high = static_cast<uint32_t>(k.lo >> 32);
    hi_top = static_cast<uint32_t>(k.hi >> 32);
  }
  uint64_t OrderLo() const { return uint64_t{order_high} << 32 | order_low; }
  void SetOrderLo(uint64_t v) {
    order_low = static_cast<uint32_t>(v);
    order_high = static_cast<uint32_t>(v >> 32);
  }
};
static_assert(sizeof(WideSlot) == 28);

// The load factor band a table of `Slot` keeps past 1024 keys.
template <typename Slot>
struct LoadBand {
  static constexpr double kMax = 0.9;
  static constexpr double kAfterGrowth = 0.81;
};
// 28 / 0.875 = 32 bytes per key at most.
template <>
struct LoadBand<WideSlot> {
  static constexpr double kMax = 0.94;
  static constexpr double kAfterGrowth = 0.875;
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

  // Grows once so that `keys` entries fit without further growth.
  void Reserve(size_t keys) {
    if (keys > MaxCount()) Rehash(CapacityFor(keys));
  }

  // Slots a table grown (or reserved) for `keys` entries has.
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
  size_t MaxCount() const { return static_cast<size_t>(static_cast<double>(slots_.size()) * kMaxLoad); }

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
  // Ordering values' high halves: the shared one, and the keys that differ.
  bool has_order_hi = false;
  uint64_t order_hi = 0;
  std::unordered_map<KeyId, uint64_t, KeyIdHash> side_orders;
  int64_t live = 0;
  int64_t tombstones = 0;
  // The key/ordering columns this index was loaded for ("" when unknown); saved with it.
  std::string spec_text;

  uint32_t Intern(std::string_view path);
  void Widen();
  // The ordering value of the entry in `slot` (key canonical).
  template <typename Slot>
  OrderValue OrderOf(const Slot& slot, const KeyId& key) const {
    const uint64_t hi = key_index_internal::HasSideOrder(slot.file) ? side_orders.at(key) : order_hi;
    return OrderValueFromHalves(hi, slot.OrderLo());
  }
  // Stores `order` for a slot about to get `file` (a file number or
  // kTombstoneFile); returns the file word with the side-order marking.
  template <typename Slot>
  uint32_t SetOrder(Slot& slot, const KeyId& key, const OrderValue& order, uint32_t file) {
    using namespace key_index_internal;
    const uint64_t hi = OrderValueHalf(order, 0);
    if (!has_order_hi) {
      order_hi = hi;
      has_order_hi = true;
    }
    slot.SetOrderLo(OrderValueHalf(order, 8));
    if (hi == order_hi) {
      if (HasSideOrder(slot.file)) side_orders.erase(key);
      return file;
    }
    side_orders[key] = hi;
    return file == kTombstoneFile ? kTombstoneSideFile : (file | kSideOrderBit);
  }
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
