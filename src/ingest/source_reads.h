// The reading side of TableIngestor's two passes over a batch's units,
// written so it can run on worker threads ahead of the merge and the writer
// (see read_ahead.h), while the results are consumed in unit order. Units
// are read through the source's UnitOpener (any discovery and format) and
// the table's ChangeConvention.
//
// Contract:
// - ScanSource (pass 1) opens a unit, binds the change convention to its
//   schema and scans its change columns. It touches only its arguments (the
//   opener is thread-safe), so units may be scanned concurrently. The caller
//   checks, in this order: `failure` (open, bind), its own schema
//   reconciliation with changes->image_schema(), then `scan`, which is what
//   a serial loop doing the same steps would have found.
// - SourceChunkReader (pass 2) reads one chunk of one unit, keeps the chosen
//   rows, maps them to the row image and conforms them to the table schema.
//   Units are opened on their first read, bound and reconciled with the
//   table schema, and read one chunk at a time (a ChunkedReader is not
//   thread-safe: reads of one unit are serialised, reads of different units
//   run concurrently). An open, bind, reconcile or read failure is reported
//   by every later read of that unit, so the consumer meets it exactly where
//   a serial loop would.
// - Both passes put the rows through the table's row stage (RowStage: the
//   transform and expectations, bound per unit): pass 1 checks the change
//   rows (ScanUnitChanges), pass 2 maps row images to the stage's output
//   rows before conforming them, and units reconcile their output schema
//   with the table. A stage that cannot bind to a unit is a failure of the
//   table's configuration, not of the unit (`stage_failure`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/chunked_reader.h"
#include "iceberg/spec/schema.h"
#include "ingest/change_set.h"
#include "ingest/changes/change_convention.h"
#include "ingest/config/config.h"
#include "ingest/format/unit_opener.h"
#include "ingest/schema/schema_reconcile.h"
#include "ingest/transform/row_transform.h"
#include "ingest/units/source_unit.h"

namespace floe::ingest {

// What both passes need to run a table's row stage.
struct RowStage {
  const RowTransform* transform = nullptr;  // nullptr: no stage
  // The table's columns as the source names them (RowTransform::SourceColumns):
  // what a unit lacking one reads as null.
  Schema table_columns;
  int64_t now_us = 0;               // ingestion_time() and current_timestamp of the batch
  bool list_every_failure = false;  // validation (RowCheckScan)

  // The unit's stage, or nullptr without one; errors name the unit.
  Result<std::shared_ptr<const BoundTransform>> Bind(const Schema& image_schema,
                                                     const std::string& unit) const;
  expr::EvalContext Context(const std::string& unit) const;
};

struct ScannedSource {
  size_t index = 0;      // the unit's position in the batch
  Status failure;        // opening or binding the change convention: the quarantine reason
  Status stage_failure;  // binding the row stage: the table's batch fails
  std::unique_ptr<BoundChanges> changes;
  std::shared_ptr<const BoundTransform> stage;  // nullptr without a row stage
  // The rows the unit gives the table: the stage's output, else the image.
  const Schema& output_schema() const { return stage ? stage->output_schema() : changes->image_schema(); }
  std::optional<Result<FileScan>> scan;  // set when `failure` is OK
  std::vector<int64_t> chunk_bytes;      // estimated decoded size of each chunk (>= 0)
  // A stream range whose records made no row (tombstones, dead letters):
  // nothing to bind or scan; `failure` is OK and `scan` unset.
  bool no_rows = false;
  UnitOpener::DeadLetters dead_letters;  // stream units: what did not become rows
};

// `max_bad_rows`: see ScanUnitChanges.
// `table_columns`: see UnitOpener::Open.
ScannedSource ScanSource(UnitOpener& opener, const SourceUnit& unit, const Schema& table_columns,
                         size_t index, const ChangeConvention& convention, size_t max_bad_rows,
                         const RowStage& stage);

// One chunk to read in pass 2.
struct ChunkRead {
  size_t unit = 0;          // index into SourceChunkReader's units
  int chunk = -1;           // -1: only open the unit (it has no chunks to read)
  int64_t rows = 0;         // rows pass 1 saw in this chunk (a different count is Corruption)
  int64_t chunk_start = 0;  // the unit row of its first row
  // Merging: the rows (within the chunk, ascending) to keep. Append (nullopt):
  // every row whose operation is neither an ignore value nor a bad row.
  std::optional<std::vector<int64_t>> take;
  // Merging: every row of the chunk is kept, and `take` is left empty (a
  // batch's plan holds its reads until it is written: 8 bytes a row saved).
  bool take_every_row = false;
  // Append: chunk rows (ascending) pass 1's row stage left out.
  std::vector<int64_t> exclude;
  int64_t cost = 0;  // estimated bytes while decoded
};

struct DecodedChunk {
  Status status;
  bool unit_fault = true;  // a failure of the unit (quarantine) rather than of floe
  int64_t rows = 0;        // rows in the chunk
  std::vector<int64_t> take;
  std::optional<RecordBatch> conformed;  // the kept rows in the table schema; unset when none
};

struct UnitToRead {
  SourceUnit unit;
  size_t chunks = 0;  // as pass 1 saw them
};

class SourceChunkReader {
 public:
  // `table_columns` as pass 1 opened the units with (UnitOpener::Open).
  SourceChunkReader(UnitOpener& opener, const Schema& table_columns, const iceberg::Schema& table_schema,
                    ReconcileOptions reconcile, const ChangeConvention& convention, const RowStage& stage,
                    std::vector<UnitToRead> units);

  // Thread-safe; see the contract above.
  DecodedChunk Read(const ChunkRead& read);
  // Frees unit `unit`'s reader once every read of it has been consumed.
  void Release(size_t unit);

 private:
  struct OpenUnit {
    std::mutex mutex;  // guards everything below and serialises the reader
    bool attempted = false;
    Status status;
    bool unit_fault = true;
    std::unique_ptr<formats::ChunkedReader> reader;
    std::unique_ptr<BoundChanges> changes;
    std::shared_ptr<const BoundTransform> stage;
    std::optional<FileMapping> mapping;
  };
  void Open(const UnitToRead& unit, OpenUnit* open);

  UnitOpener& opener_;
  const Schema& table_columns_;
  const iceberg::Schema& table_schema_;
  const ReconcileOptions reconcile_;
  const ChangeConvention& convention_;
  const RowStage& stage_;
  const std::vector<UnitToRead> units_;
  std::vector<std::unique_ptr<OpenUnit>> open_;
};

}  // namespace floe::ingest
