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
//   columns and the ordering columns (ordering(): which, and how they
//   compare). A row that cannot be a change (a null or unknown operation
//   code) gets action kUnknown and a BadRow naming the column and the unit
//   row; the caller decides, by [schema] on_bad_row, whether that sets the
//   unit aside or only the row.
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
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/merge/order_value.h"

namespace floe::ingest {

// kUnknown: the row cannot be a change (see BadRow).
enum class OperationAction : uint8_t { kInsert, kUpdate, kDelete, kIgnore, kUnknown };

// A row of a unit that cannot be a change: its row in the unit (0-based)
// and why ("column op: unknown operation code \"X\" (...)"). rescued_data
// is the row's `_rescued_data` when its unit has that column and the row
// holds one (a broken record's raw text is there), so a bad row keeps every
// byte its reader could not place; ScanUnitChanges fills it.
struct BadRow {
  BadRow() = default;
  BadRow(int64_t unit_row, std::string why) : row(unit_row), reason(std::move(why)) {}

  int64_t row = 0;
  std::string reason;
  std::optional<std::string> rescued_data;
};

struct ChunkChanges {
  int64_t rows = 0;
  // One per row: kInsert or kUpdate (both an upsert to the merge, which
  // decides from the key index), kDelete, kIgnore (dropped and counted) or
  // kUnknown (a bad row, listed in bad_rows).
  std::vector<OperationAction> actions;
  std::vector<BadRow> bad_rows;  // unit rows, ascending
  // Merging conventions: the key columns and the ordering columns, `rows`
  // long, with the names messages give them. An ordering column the unit
  // lacks (allowed only when ordering().missing_is_oldest) is an empty
  // Column with length 0.
  std::vector<Column> keys;
  std::vector<std::string> key_names;
  std::vector<Column> orders;
  std::vector<bool> order_present;  // per ordering column: whether the unit has it
};

class BoundChanges {
 public:
  virtual ~BoundChanges() = default;
  virtual const std::vector<int>& scan_columns() const = 0;
  // Merging conventions: how the ordering columns of ChunkChanges compare.
  virtual const OrderingSpec& ordering() const = 0;
  // `scanned` holds scan_columns() in order; `first_row` is the unit row of its first row.
  virtual Result<ChunkChanges> Extract(RecordBatch scanned, int64_t first_row) const = 0;
  virtual const Schema& image_schema() const = 0;
  virtual Result<RecordBatch> Image(RecordBatch chunk) const = 0;
};

class ChangeConvention {
 public:
  virtual ~ChangeConvention() = default;
  // The [source] changes value ("cda", "columns", "append", "dms", ...).
  virtual const char* name() const = 0;
  // Whether changes merge by key (newest wins) or every row is appended.
  virtual bool merges() const = 0;
  virtual Result<std::unique_ptr<BoundChanges>> Bind(const Schema& unit_schema) const = 0;
  // Merging conventions: the ordering as columns of the row image (so of
  // the table), which the key index reads back when it rebuilds from the
  // table; the bound ordering() names the same values in the unit.
  virtual OrderingSpec table_ordering() const = 0;
  // Whether a unit's rows are the table's rows (so the table's column types
  // apply to the unit's columns of those names): all but Debezium's envelope.
  virtual bool rows_are_image() const { return true; }
  // Whether the key columns come from the units rather than [merge] keys
  // (Debezium from Kafka without them: the record key's fields). Such a
  // convention adopts the key of the first unit it binds, or the one
  // SetKeyColumns gives (the table's recorded key), and refuses to bind a
  // unit whose key differs. Adoption is thread-safe.
  virtual bool keys_from_units() const { return false; }
  // The key columns adopted so far (empty before any); [merge] keys otherwise.
  virtual std::vector<std::string> AdoptedKeyColumns() const { return {}; }
  virtual void SetKeyColumns(std::vector<std::string> keys) { (void)keys; }
};

// The convention of one target table: [source] changes with the table's
// [merge] settings (a table whose merge mode is "append" appends).
Result<std::unique_ptr<ChangeConvention>> MakeChangeConvention(const TableSettings& settings);

}  // namespace floe::ingest
