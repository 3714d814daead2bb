// ChangeMap: see change_map.h.
#include "ingest/change_map.h"

namespace floe::ingest {

using change_map_internal::kDeleteBit;
using change_map_internal::kFileMask;
using change_map_internal::kRowInSideMap;
using change_map_internal::kSideBit;

namespace {

// Bytes of an unordered_map node holding a side entry, plus its bucket.
constexpr size_t kSideEntryBytes = 64;

}  // namespace

template <typename Table>
bool ChangeMap::UpsertInto(Table& table, const Change& change) {
  bool inserted = false;
  auto& slot = table.FindOrInsert(change.key, &inserted);
  if (!inserted) {
    if (change.order < Decode(slot).order) return true;
    if (slot.file & kSideBit) side_.erase(change.key);
  }
  const uint64_t order_hi = OrderValueHalf(change.order, 0);
  const bool row_fits = change.row >= 0 && change.row < int64_t{kRowInSideMap};
  uint32_t file = static_cast<uint32_t>(change.file) & kFileMask;
  if (change.is_delete) file |= kDeleteBit;
  if (order_hi != base_order_hi_ || !row_fits) {
    file |= kSideBit;
    side_[change.key] = Side{order_hi, change.row};
  }
  slot.order_lo = OrderValueHalf(change.order, 8);
  slot.file = file;
  slot.row = row_fits ? static_cast<uint32_t>(change.row) : kRowInSideMap;
  return !inserted;
}

bool ChangeMap::Upsert(const Change& change) {
  if (!has_base_) {
    base_order_hi_ = OrderValueHalf(change.order, 0);
    has_base_ = true;
  }
  if (!wide_ && change.key.hi != 0) Widen();
  return wide_ ? UpsertInto(wide_table_, change) : UpsertInto(narrow_, change);
}

void ChangeMap::Widen() {
  wide_table_.Reserve(narrow_.size());
  for (size_t i = 0; i < narrow_.capacity(); ++i) {
    const auto& from = narrow_.slot(i);
    if (from.file == kEmptySlot) continue;
    bool inserted = false;
    auto& to = wide_table_.FindOrInsert(from.Key(), &inserted);
    to.order_lo = from.order_lo;
    to.file = from.file;
    to.row = from.row;
  }
  narrow_ = {};
  wide_ = true;
}

void ChangeMap::Reserve(size_t changes) {
  if (wide_) {
    wide_table_.Reserve(changes);
  } else {
    narrow_.Reserve(changes);
  }
}

void ChangeMap::Clear() {
  narrow_ = {};
  wide_table_ = {};
  std::unordered_map<KeyId, Side, KeyIdHash>().swap(side_);
  wide_ = false;
  has_base_ = false;
  base_order_hi_ = 0;
}

size_t ChangeMap::MemoryBytes() const {
  return narrow_.MemoryBytes() + wide_table_.MemoryBytes() + side_.size() * kSideEntryBytes;
}

size_t ChangeMap::MemoryBytesWith(size_t more, bool hashed_keys) const {
  const bool wide = wide_ || hashed_keys;
  const size_t slot_bytes =
      wide ? sizeof(change_map_internal::WideChangeSlot) : sizeof(change_map_internal::NarrowChangeSlot);
  const size_t keys = size() + more;
  const size_t slots = wide ? RobinTable<change_map_internal::WideChangeSlot>::CapacityAfterReserve(
                                  wide_ ? wide_table_.capacity() : 0, keys)
                            : RobinTable<change_map_internal::NarrowChangeSlot>::CapacityAfterReserve(
                                  narrow_.capacity(), keys);
  return slots * slot_bytes + side_.size() * kSideEntryBytes;
}

}  // namespace floe::ingest
