// ChangeConvention: the change-convention axis of the source model — how the
// rows a format decoded become changes (key, ordering value, operation, row
// image) for the shared merge.
//
// Contract:
// - Bind(unit schema) finds and type-checks the columns the convention needs
//   in one unit's schema; its error is the unit's quarantine reason ("missing
//   key column id", "operation column op has type string; expected ...").
// - A bound convention names the top-level unit columns pass 1 reads
//   (scan_columns) and turns a chunk of exactly those columns, in that order,
//   into ChunkChanges: per row an action, and for merging conventions the key
//   columns and the ordering column. A null or unknown operation code is an
//   error naming the column and the unit row.
// - image_schema() is the schema of the rows the table receives; Image maps
//   a chunk of every unit column (or the rows taken from one) to it, row for
//   row. For conventions whose rows are the image (CDA, columns, append) both
//   are the identity.
// - Conventions never see where units come from nor the table; deletes carry
//   only their key and ordering value. Bound conventions are immutable after
//   Bind: Extract and Image are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "ingest/config/config.h"

namespace floe::ingest {

enum class OperationAction : uint8_t { kInsert, kUpdate, kDelete, kIgnore, kUnknown };

struct ChunkChanges {
  int64_t rows = 0;
  // One per row: kInsert or kUpdate (both an upsert to the merge, which
  // decides from the key index), kDelete, or kIgnore (dropped and counted).
  std::vector<OperationAction> actions;
  // Merging conventions: the key columns and the ordering column, `rows`
  // long, with the names messages give them.
  std::vector<Column> keys;
  std::vector<std::string> key_names;
  Column order;
  std::string order_name;
};

class BoundChanges {
 public:
  virtual ~BoundChanges() = default;
  virtual const std::vector<int>& scan_columns() const = 0;
  // `scanned` holds scan_columns() in order; `first_row` is the unit row of its first row.
  virtual Result<ChunkChanges> Extract(RecordBatch scanned, int64_t first_row) const = 0;
  virtual const Schema& image_schema() const = 0;
  virtual Result<RecordBatch> Image(RecordBatch chunk) const = 0;
};

class ChangeConvention {
 public:
  virtual ~ChangeConvention() = default;
  // The [source] changes value ("cda", "columns", "append", ...).
  virtual const char* name() const = 0;
  // Whether changes merge by key (newest wins) or every row is appended.
  virtual bool merges() const = 0;
  virtual Result<std::unique_ptr<BoundChanges>> Bind(const Schema& unit_schema) const = 0;
};

// The convention of one target table: [source] changes with the table's
// [merge] settings (a table whose merge mode is "append" appends).
Result<std::unique_ptr<ChangeConvention>> MakeChangeConvention(const TableSettings& settings);

}  // namespace floe::ingest
