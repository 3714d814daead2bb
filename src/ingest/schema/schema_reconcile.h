// Schema reconciliation: how the columns of a source Parquet file map onto a
// target table's Iceberg schema, how the table schema must evolve to take
// them, and the conversion of source batches into batches of the table schema.
//
// Contract:
// - Columns match by name (case-sensitive first, then case-insensitive).
// - A source column the table lacks is added as an optional column with a
//   fresh field id (its Iceberg type from FromFloeType; unsigned 8/16-bit
//   become int, uint32 long, uint64 decimal(20,0); INT96 timestamps become
//   timestamp; nested types keep their shape).
// - A table column the file lacks reads as null (a required table column
//   missing from a file is incompatible).
// - Widening promotes the table column: int->long, float->double,
//   decimal(p,s)->decimal(p',s) with p' > p. Narrower incoming types are cast
//   up to the table's type (int into a long column, float into double,
//   decimal(p,s) into decimal(p',s) with p <= p', date into timestamp is NOT
//   a cast). Anything else is incompatible.
// - Incompatible columns follow the policy: kRescue leaves the table column
//   null for that file and writes {"<column>": <value as JSON>, ...} per row
//   (only non-null offending values; null when none) into the string column
//   `_rescued_data`, added to the table when first needed (a file with its
//   own string `_rescued_data`, a text reader's, gets both in one object per
//   row: the reader's members first); kQuarantine and
//   kFail make Reconcile return an error whose message names the file, the
//   column, the table type and the file type
//   ("s3://b/x/part-0.parquet: column amount: table type decimal(10,2), file type string").
// - The key, ordering and operation columns are never rescued: a mismatch
//   there is always an error (the caller quarantines the file).
// - Rescue works on whole top-level columns: a mismatch inside a struct, list
//   or map rescues the top-level column that holds it (the message names the
//   nested member, e.g. "column address.zip: ..."). A column the table
//   requires cannot be rescued (error). New members of existing structs are
//   added like new columns; new timestamp columns with nanoseconds become
//   timestamp_ns in format v3 and timestamp (microseconds) before.
// - Reconcile checks the types of the protected columns, not their presence:
//   a file lacking one is for the caller to reject.
// - Reconciling a file against the schema EvolveSchema built from its own
//   evolution yields an empty evolution (the same rescued columns).
// - Timestamps of one zone kind (UTC or local) fit each other whatever the
//   unit: ConformBatch converts ms/us/ns to the table's unit (ns -> us rounds
//   toward negative infinity; an overflow is an error naming the row).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/spec/schema.h"
#include "ingest/config/config.h"

namespace floe::ingest {

inline constexpr const char* kRescuedDataColumn = "_rescued_data";

// Column names in an evolution are dotted full names for messages ("address.zip",
// "points.element.x"); `path` holds the same name split into its parts (a part
// may itself contain a dot) and is what EvolveSchema resolves. An empty `path`
// means the top-level column `name`. Nested types in `added` carry placeholder
// field ids (0); EvolveSchema assigns the real ones.
struct SchemaEvolution {
  struct AddedColumn {
    std::string name;
    iceberg::Type type;
    std::vector<std::string> path = {};
  };
  struct PromotedColumn {
    std::string name;
    iceberg::Type from;
    iceberg::Type to;
    std::vector<std::string> path = {};
  };
  std::vector<AddedColumn> added;
  std::vector<PromotedColumn> promoted;
  bool empty() const { return added.empty() && promoted.empty(); }
};

// The per-file mapping found by Reconcile.
struct FileMapping {
  std::string file_uri;
  SchemaEvolution evolution;          // what this file needs from the table
  std::vector<std::string> rescued;   // source columns whose values go to _rescued_data
  std::vector<std::string> warnings;  // human-readable notes (e.g. a column cast up)
};

struct ReconcileOptions {
  IncompatiblePolicy policy = IncompatiblePolicy::kRescue;
  std::vector<std::string> protected_columns;  // keys, ordering, operation: never rescued
  std::string table_name;                      // for messages
  int format_version = 2;
};

// Compares a source file's schema with the table schema. Errors (policy
// quarantine/fail, protected column mismatch) are InvalidArgument with the
// message described above.
Result<FileMapping> Reconcile(const iceberg::Schema& table_schema, const floe::Schema& file_schema,
                              const std::string& file_uri, const ReconcileOptions& options);

// The table schema after applying `evolutions` in order (new columns get ids
// above table_schema.HighestFieldId() and the table's last-column-id
// `last_column_id`; the same column added by two files is added once, with
// the wider type, struct members merged; an added column the table already
// has is widened or left as is; types neither of which holds the other are
// InvalidArgument). The returned schema keeps table_schema's schema_id; the
// caller's commit assigns the new id.
Result<iceberg::Schema> EvolveSchema(const iceberg::Schema& table_schema, int32_t last_column_id,
                                     const std::vector<SchemaEvolution>& evolutions, int format_version);

// Converts `source` (a batch read from the file `mapping` describes) into a
// batch with exactly the columns of ToFloeSchema(target) in order: matched
// columns cast up as needed, missing columns null, rescued values as JSON in
// _rescued_data. A source column that is neither rescued nor in `target`
// (the schema was not evolved), a null in a required column, or a timestamp
// overflow is an error naming the file and column.
Result<RecordBatch> ConformBatch(const RecordBatch& source, const FileMapping& mapping,
                                 const iceberg::Schema& target);
// The same, moving the columns already of their table type (not nested)
// instead of copying them: `source` is left with those columns empty.
Result<RecordBatch> ConformBatch(RecordBatch&& source, const FileMapping& mapping,
                                 const iceberg::Schema& target);

}  // namespace floe::ingest
