// Pass 1 of a batch: reading the change columns of the batch's units and
// keeping, per key, the change that wins.
//
// Contract: a unit is scanned one chunk at a time, reading only the columns
// its bound change convention names (scan_columns; none at all for an
// append convention without an operation column: rows are counted from the
// chunk sizes). Within a unit and then across the units of a batch the
// change with the greatest ordering value wins; on equal values the later
// row (and the later unit, in batch order) wins. Ignored operations are
// dropped and counted. A row that cannot be a change (a null key or
// ordering value, an unusable ordering value, an unknown or null operation
// code) is a bad row: it is left out and listed in FileScan::bad_rows, up to
// `max_bad_rows`; one more makes ScanUnitChanges fail with a one-line reason
// naming the row and column ("row 7: column op: unknown operation code ...",
// or "more than N bad rows; the first: ..."), and the caller quarantines the
// unit: its changes never reach the batch (Merge is called only for units
// that scanned cleanly).
//
// With a row stage (RowCheckScan: the table's transform bound to the unit,
// ingest/transform/row_transform.h), each chunk's change rows (inserts and
// updates) are also checked: the columns the filter and the expectations
// read are read with the change columns (conventions whose rows are not
// their image, Debezium's, read whole chunks and image them), and each
// row's outcome applies before the merge: a filtered row becomes a delete of
// its key when merging and is left out when appending; a row failing a
// drop, quarantine or fail expectation is not a change at all (quarantined
// ones are read again in full, imaged, and kept in FileScan::quarantine;
// failed ones listed in failed_rows for the caller to stop the batch).
// Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/status.h"
#include "formats/chunked_reader.h"
#include "ingest/change_map.h"
#include "ingest/changes/change_convention.h"
#include "ingest/config/config.h"
#include "ingest/transform/row_transform.h"

namespace floe::ingest {

// Pass 1's row stage for one unit.
struct RowCheckScan {
  const BoundTransform* transform = nullptr;  // nullptr: nothing to check
  bool rows_are_image = true;                 // ChangeConvention::rows_are_image()
  expr::EvalContext context;                  // the unit's source_file and the batch's clock
  // Validation: failed_rows lists every row failing an expectation, not
  // only those quarantined or failing a `fail` one.
  bool list_every_failure = false;
};

// Rows the row stage quarantined: their row images and, row for row, what
// they failed (unit rows).
struct QuarantinedRows {
  RecordBatch images;
  std::vector<FailedRow> rows;
};

struct FileScan {
  ChangeMap winners;             // merging: the newest change per key in this unit
  std::vector<BadRow> bad_rows;  // unit rows, ascending
  std::vector<int64_t> chunk_rows;
  int64_t rows = 0;
  int64_t ignored = 0;     // operation ignore values
  int64_t superseded = 0;  // changes beaten by a newer one for the same key in this unit
  // The row stage (with a RowCheckScan that checks rows).
  std::vector<ExpectationTally> expectations;  // one per expectation of the table
  int64_t filtered = 0;
  int64_t dropped = 0;
  std::vector<FailedRow> failed_rows;  // unit rows, ascending (see RowCheckScan)
  std::optional<QuarantinedRows> quarantine;
  // Appending: unit rows the stage left out (filtered or failing an
  // expectation), ascending; pass 2 skips them.
  std::vector<int64_t> excluded_rows;
};

// Scans every chunk of `reader` through `changes`. Merging conventions keep
// the newest change per key, ordered by changes.ordering(); append
// conventions only classify operations. `unit_index` must be below
// kMaxChangeFiles (InvalidArgument otherwise).
Result<FileScan> ScanUnitChanges(formats::ChunkedReader& reader, const BoundChanges& changes, bool merging,
                                 int32_t unit_index, size_t max_bad_rows, const RowCheckScan& checks = {});

// The winning change per key over the units merged so far.
class BatchChanges {
 public:
  // Adds a cleanly scanned unit's winners (and frees them); returns how many
  // changes (of this unit or earlier ones) lost to a newer change for the
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
