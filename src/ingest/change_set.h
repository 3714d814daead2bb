// Pass 1 of a batch: reading the key, ordering and operation columns of the
// source files and keeping, per key, the change that wins.
//
// Contract: a file is scanned one row group at a time, reading only those
// columns. Within a file and then across the files of a batch the change
// with the greatest ordering value wins; on equal values the later row (and
// the later file, in batch order) wins. Operation codes map through
// MergeConfig's value lists; ignore values are dropped and counted. A
// missing or unusable key/ordering/operation column, a null key or ordering
// value, or an unknown operation code makes ScanFile fail with a one-line
// reason naming the column (and row); the caller quarantines the file and
// its changes never reach the batch (Merge is called only for files that
// scanned cleanly). Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/file_reader.h"
#include "ingest/change_map.h"
#include "ingest/config/config.h"
#include "ingest/merge/key_index.h"
#include "ingest/merge/order_value.h"

namespace floe::ingest {

enum class OperationAction : uint8_t { kInsert, kUpdate, kDelete, kIgnore, kUnknown };

// Maps operation codes to what they do.
class OperationMap {
 public:
  explicit OperationMap(const MergeConfig& merge) : merge_(merge) {}
  OperationAction Classify(int64_t code) const;
  // "insert 0, 2; update 4; delete 1; ignore 3" for messages.
  std::string Describe() const;

 private:
  const MergeConfig& merge_;
};

// The top-level index of column `name` in `schema` (exact match first, then
// case-insensitive), or -1.
int FindColumn(const floe::Schema& schema, const std::string& name);
bool IsIntegerType(const DataType& type);
// The integer at `row` of an integer column (IsIntegerType); the caller checks nulls.
int64_t IntegerAt(const Column& column, int64_t row);

// Where a file's merge columns are; `operation` is -1 when no operation column is used.
struct ChangeColumns {
  std::vector<int> keys;
  int order = -1;
  int operation = -1;
};

// Finds and type-checks the merge columns of `file_schema`. In append mode
// only the operation column matters and its absence means "every row is an
// insert". The error is the quarantine reason.
Result<ChangeColumns> LocateChangeColumns(const floe::Schema& file_schema, const MergeConfig& merge);

struct FileScan {
  ChangeMap winners;  // merge mode: the newest change per key in this file
  std::vector<int64_t> row_group_rows;
  int64_t rows = 0;
  int64_t ignored = 0;     // operation ignore values
  int64_t superseded = 0;  // changes beaten by a newer one for the same key in this file
};

// Scans every row group of `reader`. Merge mode keeps the newest change per
// key; append mode only checks the operation codes (and reads nothing when
// the file has no operation column). `file_index` must be below
// kMaxChangeFiles (InvalidArgument otherwise).
Result<FileScan> ScanFile(parquet::ParquetFileReader& reader, const ChangeColumns& columns,
                          int32_t file_index, const MergeConfig& merge);

// The winning change per key over the files merged so far.
class BatchChanges {
 public:
  // Adds a cleanly scanned file's winners (and frees them); returns how many
  // changes (of this file or earlier ones) lost to a newer change for the
  // same key.
  int64_t Merge(FileScan& scan);
  // Estimated bytes of the map once `scan`'s winners are merged (at most
  // all of them new keys): what the memory budget is checked against.
  size_t MemoryBytesAfterMerging(const FileScan& scan) const;
  const ChangeMap& winners() const { return winners_; }
  void Clear() { winners_.Clear(); }

 private:
  ChangeMap winners_;
};

}  // namespace floe::ingest
