// PrimaryKeyIndex in memory: see key_index.h and key_index_table.h.
#include "ingest/merge/key_index.h"

#include "ingest/merge/key_index_table.h"

namespace floe::ingest {

using key_index_internal::CanonicalKey;
using key_index_internal::FileNumber;
using key_index_internal::HasSideOrder;
using key_index_internal::IsLive;
using key_index_internal::IsTombstone;
using key_index_internal::kEmptyFile;
using key_index_internal::kPositionInOverflow;
using key_index_internal::kTombstoneFile;

uint32_t PrimaryKeyIndex::Impl::Intern(std::string_view path) {
  if (last_file != kEmptyFile && files[last_file] == path) return last_file;
  auto it = file_numbers.find(path);
  if (it != file_numbers.end()) {
    last_file = it->second;
    return last_file;
  }
  // More than 2^31 - 3 distinct paths would need hundreds of GB of names
  // first; the numbering cannot run out in practice.
  const auto number = static_cast<uint32_t>(files.size());
  files.emplace_back(path);
  file_numbers.emplace(std::string_view(files.back()), number);
  last_file = number;
  return number;
}

void PrimaryKeyIndex::Impl::Widen() {
  if (wide) return;
  wide_table.Reserve(narrow.size());
  for (size_t i = 0; i < narrow.capacity(); ++i) {
    const auto& from = narrow.slot(i);
    if (from.file == kEmptyFile) continue;
    bool inserted = false;
    auto& to = wide_table.FindOrInsert(from.Key(), &inserted);
    to.SetOrderLo(from.OrderLo());
    to.file = from.file;
    to.position = from.position;
  }
  narrow = {};
  wide = true;
}

PrimaryKeyIndex::PrimaryKeyIndex() : impl_(std::make_unique<Impl>()) {}
PrimaryKeyIndex::~PrimaryKeyIndex() = default;
PrimaryKeyIndex::PrimaryKeyIndex(PrimaryKeyIndex&&) noexcept = default;
PrimaryKeyIndex& PrimaryKeyIndex::operator=(PrimaryKeyIndex&&) noexcept = default;

std::optional<PrimaryKeyIndex::Entry> PrimaryKeyIndex::Find(const KeyId& raw_key) const {
  const Impl& impl = *impl_;
  if (!impl.wide && raw_key.hi != 0) return std::nullopt;
  const KeyId key = CanonicalKey(raw_key);
  return impl.WithTable([&](const auto& table) -> std::optional<Entry> {
    const auto* slot = table.Find(key);
    if (!slot) return std::nullopt;
    Entry entry;
    entry.order = impl.OrderOf(*slot, key);
    if (IsTombstone(slot->file)) {
      entry.tombstone = true;
      entry.deleted_at_ms = int64_t{slot->position} * 1000;
      return entry;
    }
    entry.data_file = impl.files[FileNumber(slot->file)];
    entry.position = slot->position;
    if (slot->position == kPositionInOverflow) entry.position = impl.overflow_positions.at(key);
    return entry;
  });
}

void PrimaryKeyIndex::PutLive(const KeyId& raw_key, std::string_view data_file, int64_t position,
                              const OrderValue& order) {
  Impl& impl = *impl_;
  if (!impl.wide && raw_key.hi != 0) impl.Widen();
  const KeyId key = CanonicalKey(raw_key);
  const uint32_t file = impl.Intern(data_file);
  impl.WithTable([&](auto& table) {
    bool inserted = false;
    auto& slot = table.FindOrInsert(key, &inserted);
    if (inserted || IsTombstone(slot.file)) {
      ++impl.live;
      if (!inserted) --impl.tombstones;
    } else if (slot.position == kPositionInOverflow) {
      impl.overflow_positions.erase(key);
    }
    slot.file = impl.SetOrder(slot, key, order, file);
    if (position >= 0 && position < int64_t{kPositionInOverflow}) {
      slot.position = static_cast<uint32_t>(position);
    } else {
      slot.position = kPositionInOverflow;
      impl.overflow_positions[key] = position;
    }
  });
}

void PrimaryKeyIndex::PutTombstone(const KeyId& raw_key, const OrderValue& order, int64_t deleted_at_ms) {
  Impl& impl = *impl_;
  if (!impl.wide && raw_key.hi != 0) impl.Widen();
  const KeyId key = CanonicalKey(raw_key);
  impl.WithTable([&](auto& table) {
    bool inserted = false;
    auto& slot = table.FindOrInsert(key, &inserted);
    if (inserted || IsLive(slot.file)) {
      ++impl.tombstones;
      if (!inserted) {
        --impl.live;
        if (slot.position == kPositionInOverflow) impl.overflow_positions.erase(key);
      }
    }
    slot.file = impl.SetOrder(slot, key, order, kTombstoneFile);
    slot.position = key_index_internal::TombstoneSeconds(deleted_at_ms);
  });
}

int64_t PrimaryKeyIndex::DropTombstonesBefore(int64_t cutoff_ms) {
  Impl& impl = *impl_;
  int64_t dropped = impl.WithTable([&](auto& table) {
    int64_t count = 0;
    size_t i = 0;
    while (i < table.capacity()) {
      const auto& slot = table.slot(i);
      if (IsTombstone(slot.file) && int64_t{slot.position} * 1000 < cutoff_ms) {
        if (HasSideOrder(slot.file)) impl.side_orders.erase(slot.Key());
        table.EraseAt(i);  // shifts the next entry into slot i: look at it again
        ++count;
        continue;
      }
      ++i;
    }
    return count;
  });
  impl.tombstones -= dropped;
  return dropped;
}

void PrimaryKeyIndex::Reserve(int64_t more_keys) {
  if (more_keys <= 0) return;
  Impl& impl = *impl_;
  const auto keys = static_cast<size_t>(impl.live + impl.tombstones + more_keys);
  impl.WithTable([&](auto& table) { table.Reserve(keys); });
}

int64_t PrimaryKeyIndex::live_count() const {
  return impl_->live;
}
int64_t PrimaryKeyIndex::tombstone_count() const {
  return impl_->tombstones;
}

int64_t PrimaryKeyIndex::MemoryBytes() const {
  const Impl& impl = *impl_;
  size_t bytes = sizeof(Impl) + impl.narrow.MemoryBytes() + impl.wide_table.MemoryBytes();
  for (const std::string& file : impl.files) {
    bytes += sizeof(std::string) + (file.capacity() > 15 ? file.capacity() + 1 : 0);
  }
  // unordered_map: a bucket array plus one node (next pointer, value, cached hash) per element.
  constexpr size_t kNodeOverhead = 2 * sizeof(void*);
  bytes += impl.file_numbers.bucket_count() * sizeof(void*) +
           impl.file_numbers.size() * (sizeof(std::pair<const std::string_view, uint32_t>) + kNodeOverhead);
  bytes += impl.overflow_positions.bucket_count() * sizeof(void*) +
           impl.overflow_positions.size() * (sizeof(std::pair<const KeyId, int64_t>) + kNodeOverhead);
  bytes += impl.side_orders.bucket_count() * sizeof(void*) +
           impl.side_orders.size() * (sizeof(std::pair<const KeyId, uint64_t>) + kNodeOverhead);
  return static_cast<int64_t>(bytes);
}

}  // namespace floe::ingest
