// PrimaryKeyIndex: where the live row of every key is in an Iceberg table,
// and which keys were deleted — the cache that turns upserts and deletes into
// position deletes (v2) or deletion-vector bits (v3) without equality deletes.
//
// Contract:
// - Keys: a single integer key column (int8..int64, date) is stored exactly
//   as an int64; any other key (strings, decimals, several columns) is
//   stored as the 128-bit hash of its canonical encoding (KeyEncoder), of
//   which the index keeps 95 bits (lo, and hi folded to 31 bits): the chance
//   of any collision among n keys is below n^2 / 2^96, 2^-49 for 10^7 keys
//   and 2^-32 for 2^32 keys. A null key column is an error naming the
//   column.
// - An entry is either live (data file, row position, ordering value) or a
//   tombstone (ordering value of the delete, deletion time).
// - Data file paths are interned: each entry stores a 32-bit file number.
// - Persistence: Save writes <dir>/index-<snapshot id>.bin atomically
//   (temp + rename) and is called BEFORE committing that snapshot; Load
//   picks the file of the table's current snapshot when present; otherwise
//   it takes the tombstones of the newest index file whose snapshot is in
//   the table's history (or of any index file), rebuilds the live entries
//   by reading the key and ordering columns of every live data file with
//   their position deletes/deletion vectors applied, and drops a tombstone
//   whose key is live (the table's row is the truth; normally its ordering
//   value is the greater one). Files of snapshots that are neither current
//   nor the newest ancestor are deleted. A corrupt index file, or one written
//   for other key/ordering columns, is ignored (rebuilt) with a warning, never
//   trusted. A table with equality delete files cannot be rebuilt
//   (NotSupported); floe never writes them.
// - File format (little-endian): "FLOEKIX1", uint32 version 1, int64 snapshot
//   id, uint8 key mode (0 exact int64, 1 hashed 128-bit), uint32 length +
//   spec text ("keys=a,b;order=c;kind=hex", "...;order=ts,lsn;kind=timestamp,number"), uint64 file count +
//   (uint32 length + path) each, uint64 entry count + entries (key 8 or 16 bytes, 16-byte ordering value,
//   uint32 file number or 0xFFFFFFFE for a tombstone, uint32 position or tombstone deletion second), uint64
//   overflow count + (KeyId hi, lo, int64 position) each, then the zlib CRC-32 of all of it.
// - Memory (past 1024 keys, see key_index_table.h): integer keys take
//   24-byte slots at a load factor within [0.81, 0.9], 26.7-29.6 bytes per
//   key; hashed keys 28-byte slots within [0.875, 0.94], 29.8-32.0 bytes per
//   key; plus the interned paths. The high 8 bytes of ordering values are
//   shared (the first value's); an entry whose high half differs costs ~50
//   bytes more in a side map (CDA seqvals up to 16 hex digits, numbers and
//   timestamps all have a zero high half). Tombstone deletion times are kept
//   in whole seconds (rounded up), positions >= 2^32 - 1 in a side map. The
//   file format is unchanged by this layout (full 16-byte ordering values;
//   hashed keys are written in their canonical 95-bit form).
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/spec/table_metadata.h"
#include "ingest/merge/murmur3_128.h"
#include "ingest/merge/order_value.h"
#include "io/file_io.h"

namespace floe::ingest {

// 128 bits identifying a key: {0, value} for exact integer keys, a hash otherwise.
struct KeyId {
  uint64_t hi = 0;
  uint64_t lo = 0;
  bool operator==(const KeyId&) const = default;
};

// Hash for hash maps keyed by KeyId: exact integer keys are {0, value} and
// often sequential, so both halves go through MurmurHash3's 64-bit finaliser.
struct KeyIdHash {
  size_t operator()(const KeyId& k) const { return MurmurMix64(k.lo ^ (k.hi * 0x9E3779B97F4A7C15ULL)); }
};

// Encodes the key of row `row` from the key columns (in key order).
class KeyEncoder {
 public:
  // `columns` are the key columns' types in key order; `names` their names for errors.
  static Result<KeyEncoder> Make(const std::vector<DataType>& types, std::vector<std::string> names);
  bool exact_integer() const { return exact_integer_; }
  Result<KeyId> KeyAt(const std::vector<const Column*>& columns, int64_t row) const;

 private:
  KeyEncoder() = default;
  std::vector<DataType> types_;
  std::vector<std::string> names_;
  bool exact_integer_ = false;
};

struct KeyIndexSpec {
  KeyIndexSpec() = default;
  KeyIndexSpec(std::vector<std::string> keys, OrderingSpec order)
      : key_columns(std::move(keys)), ordering(std::move(order)) {}
  // One ordering column.
  KeyIndexSpec(std::vector<std::string> keys, std::string order_column, OrderingKind order_kind)
      : key_columns(std::move(keys)), ordering{{{std::move(order_column), order_kind}}, false} {}
  std::vector<std::string> key_columns;
  OrderingSpec ordering;
};

class PrimaryKeyIndex {
 public:
  struct Entry {
    bool tombstone = false;
    std::string_view data_file;  // live only; valid until the next mutation
    int64_t position = 0;        // live only
    OrderValue order;
    int64_t deleted_at_ms = 0;  // tombstone only
  };

  PrimaryKeyIndex();
  ~PrimaryKeyIndex();
  PrimaryKeyIndex(PrimaryKeyIndex&&) noexcept;
  PrimaryKeyIndex& operator=(PrimaryKeyIndex&&) noexcept;

  std::optional<Entry> Find(const KeyId& key) const;
  void PutLive(const KeyId& key, std::string_view data_file, int64_t position, const OrderValue& order);
  void PutTombstone(const KeyId& key, const OrderValue& order, int64_t deleted_at_ms);
  // Removes tombstones deleted before `cutoff_ms`; returns how many.
  int64_t DropTombstonesBefore(int64_t cutoff_ms);
  // Grows the table once so `more_keys` new keys fit without growing again
  // (call before a batch's Put calls; an upper bound is fine).
  void Reserve(int64_t more_keys);

  int64_t live_count() const;
  int64_t tombstone_count() const;
  // Bytes held by the table, file names and bookkeeping.
  int64_t MemoryBytes() const;

  // See the contract above. `dir` is the table's state directory.
  Status Save(FileIO& io, const std::string& dir, int64_t snapshot_id) const;
  // `warnings` (optional) receives one line per index file ignored or not deleted.
  static Result<PrimaryKeyIndex> Load(FileIO& state_io, const std::string& dir,
                                      const iceberg::TableMetadata& table, FileIO& table_io,
                                      const KeyIndexSpec& spec, std::vector<std::string>* warnings = nullptr);
  // "<dir>/index-<snapshot id>.bin".
  static std::string FilePath(const std::string& dir, int64_t snapshot_id);
  // Deletes every index file in `dir` whose snapshot is not in `keep` (other
  // files are left alone). Called after a commit with the new snapshot and the
  // one the index was loaded for, so a pipeline that never restarts keeps two
  // files per table instead of one per commit. A file that cannot be deleted
  // adds a line to `warnings` (optional); only a failed listing is an error.
  static Status RemoveIndexFilesExcept(FileIO& state_io, const std::string& dir,
                                       const std::vector<int64_t>& keep,
                                       std::vector<std::string>* warnings = nullptr);

  // The table itself; defined in key_index_table.h for this module's sources only.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::ingest
