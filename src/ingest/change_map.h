// ChangeMap: the winning change per key of a file or a batch, in a compact
// open-addressing table (RobinTable, ingest/robin_table.h, with slots of its own).
//
// Contract:
// - Upsert keeps, per key, the change with the greatest ordering value; on
//   equal values the change upserted last wins (callers upsert in file/row
//   order, so the later file/row wins).
// - Memory: a slot holds the key (8 bytes for exact integer keys, 16 once a
//   hashed key arrives), the low 8 bytes of the ordering value and 8 bytes of
//   file number, row and delete flag: 24 or 32 bytes, at a load factor of
//   0.6-0.9 past 1024 keys (the table grows by half when full, RobinTable),
//   so 26.7-40 (integer keys) or 35.6-53.4 (hashed keys) bytes per change;
//   0.81 (29.6 / 39.5 bytes) when reserved once for its final size. The
//   high 8 bytes of ordering values are shared: the map keeps the first one
//   it sees and puts a change whose high half differs, or whose row is
//   >= 2^32 - 1, into a side map (~64 bytes each; CDA's seqvals and numeric
//   orderings have a zero high half, so this does not happen for them).
// - File numbers are below kMaxChangeFiles.
// - Iteration order is unspecified. Not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "ingest/merge/key_index.h"
#include "ingest/merge/order_value.h"
#include "ingest/robin_table.h"

namespace floe::ingest {

struct Change {
  KeyId key;
  OrderValue order;
  int32_t file = 0;  // index of the file in the batch
  int64_t row = 0;   // row in that file
  bool is_delete = false;
};

inline constexpr int32_t kMaxChangeFiles = (1 << 30) - 1;

namespace change_map_internal {

// Bits of a slot's `file` word above the file number.
inline constexpr uint32_t kDeleteBit = 1u << 31;
inline constexpr uint32_t kSideBit = 1u << 30;  // order high half or row in the side map
inline constexpr uint32_t kFileMask = kSideBit - 1;
inline constexpr uint32_t kRowInSideMap = 0xFFFFFFFFu;

struct NarrowChangeSlot {
  uint64_t key = 0;
  uint64_t order_lo = 0;
  uint32_t file = kEmptySlot;
  uint32_t row = 0;

  static uint64_t Mix(const KeyId& k) { return MurmurMix64(k.lo); }
  uint64_t Mix() const { return MurmurMix64(key); }
  bool Matches(const KeyId& k) const { return key == k.lo; }
  KeyId Key() const { return {0, key}; }
  void SetKey(const KeyId& k) { key = k.lo; }
};
static_assert(sizeof(NarrowChangeSlot) == 24);

struct WideChangeSlot {
  uint64_t hi = 0;
  uint64_t lo = 0;
  uint64_t order_lo = 0;
  uint32_t file = kEmptySlot;
  uint32_t row = 0;

  static uint64_t Mix(const KeyId& k) { return KeyIdHash{}(k); }
  uint64_t Mix() const { return Mix(KeyId{hi, lo}); }
  bool Matches(const KeyId& k) const { return lo == k.lo && hi == k.hi; }
  KeyId Key() const { return {hi, lo}; }
  void SetKey(const KeyId& k) {
    hi = k.hi;
    lo = k.lo;
  }
};
static_assert(sizeof(WideChangeSlot) == 32);

}  // namespace change_map_internal

class ChangeMap {
 public:
  // Returns true when the key already had a change (one of the two lost).
  bool Upsert(const Change& change);
  // Prefetches where an Upsert of `key` will look (RobinTable::Prefetch).
  void Prefetch(const KeyId& key) const {
    if (wide_) {
      wide_table_.Prefetch(key);
    } else {
      narrow_.Prefetch(key);
    }
  }
  size_t size() const { return wide_ ? wide_table_.size() : narrow_.size(); }
  bool empty() const { return size() == 0; }
  // Whether a hashed (non-integer) key arrived: slots are 32 bytes then.
  bool hashed() const { return wide_; }
  // Grows once so `changes` entries fit without a rehash cascade.
  void Reserve(size_t changes);
  // Frees everything.
  void Clear();
  // Bytes held now, and (an estimate) after `more` new keys were added.
  size_t MemoryBytes() const;
  size_t MemoryBytesWith(size_t more, bool hashed_keys) const;

  // f(const Change&) for every winner, in unspecified order.
  template <typename F>
  void ForEach(F&& f) const {
    if (wide_) {
      Visit(wide_table_, f);
    } else {
      Visit(narrow_, f);
    }
  }

 private:
  struct Side {
    uint64_t order_hi = 0;
    int64_t row = 0;
  };
  template <typename Table, typename F>
  void Visit(const Table& table, F& f) const {
    for (size_t i = 0; i < table.capacity(); ++i) {
      const auto& slot = table.slot(i);
      if (slot.file == kEmptySlot) continue;
      f(Decode(slot));
    }
  }
  template <typename Slot>
  Change Decode(const Slot& slot) const {
    using namespace change_map_internal;
    Change change;
    change.key = slot.Key();
    change.file = static_cast<int32_t>(slot.file & kFileMask);
    change.is_delete = (slot.file & kDeleteBit) != 0;
    uint64_t order_hi = base_order_hi_;
    change.row = slot.row;
    if (slot.file & kSideBit) {
      const Side& side = side_.at(change.key);
      order_hi = side.order_hi;
      if (slot.row == kRowInSideMap) change.row = side.row;
    }
    change.order = OrderValueFromHalves(order_hi, slot.order_lo);
    return change;
  }
  template <typename Table>
  bool UpsertInto(Table& table, const Change& change);
  void Widen();

  bool wide_ = false;
  bool has_base_ = false;
  uint64_t base_order_hi_ = 0;
  RobinTable<change_map_internal::NarrowChangeSlot> narrow_;
  RobinTable<change_map_internal::WideChangeSlot> wide_table_;
  std::unordered_map<KeyId, Side, KeyIdHash> side_;
};

// Upserts into a ChangeMap in the order they are added, each one kAhead
// changes after its slot was prefetched, so that the cache misses of a map
// of millions of keys (tens of MB, each key's slot at a random place)
// overlap instead of stalling one after the other. The map holds every
// added change only after Finish(). Not thread-safe.
class PrefetchedUpserts {
 public:
  explicit PrefetchedUpserts(ChangeMap& map) : map_(map) {}
  void Add(const Change& change) {
    map_.Prefetch(change.key);
    Change& slot = ahead_[added_ % kAhead];
    if (added_ >= kAhead && map_.Upsert(slot)) ++superseded_;
    slot = change;
    ++added_;
  }
  // Upserts the changes still waiting; returns how many added changes met
  // an earlier change of their key (ChangeMap::Upsert's true), in all.
  int64_t Finish() {
    for (size_t i = added_ > kAhead ? added_ - kAhead : 0; i < added_; ++i) {
      if (map_.Upsert(ahead_[i % kAhead])) ++superseded_;
    }
    added_ = 0;
    const int64_t superseded = superseded_;
    superseded_ = 0;
    return superseded;
  }

 private:
  static constexpr size_t kAhead = 16;
  ChangeMap& map_;
  std::array<Change, kAhead> ahead_;
  size_t added_ = 0;
  int64_t superseded_ = 0;
};

}  // namespace floe::ingest
