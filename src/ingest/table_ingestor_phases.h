// Internal to TableIngestor: the state it keeps between batches and the
// phases one batch goes through, each in a file of its own:
//
//   1. scan and merge (batch_scan.cc)      pass 1 over every unit: schemas
//                                          reconciled, newest change per key
//   2. settle the schema (table_ingestor.cc)  the evolved table schema plus
//                                          lineage columns; table created
//   3. resolve (batch_resolution.cc)       winners against the key index:
//                                          stale, deletes, tombstones, rows
//   4. plan the reads (batch_resolution.cc) chunks to read again, with rows
//   5. write (batch_write.cc)              pass 2: rows read, imaged,
//                                          conformed, written
//   6. commit (batch_commit.cc)            deletes, index, one snapshot
//
// Not for use outside src/ingest. Not thread-safe (one batch at a time; the
// phases hand work to the ingestor's pool only through ReadAhead).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/thread_pool.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/data_file_writer.h"
#include "ingest/change_feed_table.h"
#include "ingest/change_set.h"
#include "ingest/changes/change_convention.h"
#include "ingest/merge/key_index.h"
#include "ingest/schema/schema_reconcile.h"
#include "ingest/side_tables.h"
#include "ingest/source_reads.h"
#include "ingest/table_ingestor.h"
#include "ingest/transform/row_transform.h"
#include "io/file_io.h"

namespace floe::ingest {

struct CodecChoice {
  Codec codec;
  const char* iceberg_name;  // write.parquet.compression-codec value
};

// A row of a unit chosen to be written, with the change it carries.
struct SelectedRow {
  int64_t row = 0;
  KeyId key;
  OrderValue order;
};

// A unit that passed pass 1.
struct PassedUnit {
  size_t index = 0;  // in the batch
  std::vector<int64_t> chunk_rows;
  std::vector<int64_t> chunk_bytes;   // estimated decoded sizes: the read-ahead's cost
  std::vector<SelectedRow> selected;  // merging, sorted by row
  std::vector<int64_t> excluded;      // appending: unit rows the row stage left out, ascending
};

// Phase 1's result.
struct ScannedBatch {
  BatchResult result;  // counts, quarantines and warnings so far
  std::vector<SchemaEvolution> evolutions;
  iceberg::Schema working;  // the table schema evolved by the passed units
  BatchChanges changes;
  std::vector<PassedUnit> passed;
  // Rows set aside for side tables (bad rows, quarantine, dead letters).
  SideTables side;
};

// Phase 2's result: the schema this batch writes.
struct SettledSchema {
  iceberg::Schema table_schema;
  bool evolved = false;  // the commit must set it
};

// Phase 3's result (rows to write are in PassedUnit::selected).
struct Resolution {
  std::map<std::string, std::vector<int64_t>> deletes;  // data file -> replaced or deleted positions
  std::vector<std::pair<KeyId, OrderValue>> tombstones;
};

// Phase 4's result: chunks to read, in unit and row order.
struct ReadPlan {
  std::vector<UnitToRead> units;
  std::vector<PassedUnit*> read_units;  // by UnitToRead index
  std::vector<ChunkRead> reads;
  std::vector<size_t> first_selected;  // merging: index in the unit's selection of each read's first row
};

// Raised by pass 2 when a unit fails to read; the batch is redone without it.
struct UnitFailure {
  size_t index = 0;
  std::string reason;
};

// Where pass 2 puts the rows it read: the data file writer, or a dry run's
// sample. Fills one location per row (dry runs: placeholders).
using RowSink = std::function<Status(const RecordBatch& rows, std::vector<iceberg::RowLocation>* locations)>;
// The path of the data file a RowSink wrote a row to (RowLocation::file).
using DataFilePathFn = std::function<const std::string&(int32_t file)>;

// floe.stream-ranges of a batch's snapshot: its stream units' ranges ("" for files).
std::string StreamRangesSummary(const std::vector<SourceUnit>& batch);

// A stream batch's snapshot markers: floe.stream-ranges (the batch's ranges)
// and floe.stream-ends.<pipeline> (every position the table holds after it,
// stream_positions.h); both empty for files.
struct StreamMarkers {
  std::string ranges;
  std::string ends;
};

// "b<batch id>-<uuid>": the name prefix of every file one try of a batch writes.
std::string DataFilePrefix(int64_t batch_id);

// Resolves the batch's winning changes against the index (phase 3): a
// change applies only when newer than the key's current version; counts go
// into `counts`; rows to write land in the passed units' selections, sorted
// by row. Clears `changes`. The index is asked in slices of sorted keys, so
// it reads each block it needs once per slice; its errors (a damaged run)
// fail the batch.
Result<Resolution> ResolveChanges(BatchChanges& changes, const PrimaryKeyIndex& index,
                                  std::vector<PassedUnit>& passed, BatchCounts& counts);

// The chunks pass 2 reads (phase 4): merging, only chunks with selected
// rows, with the rows to keep; append, every chunk. A unit without chunks is
// still opened (and checked).
ReadPlan PlanReads(const std::vector<SourceUnit>& units, std::vector<PassedUnit>& passed, bool merging);

struct TableIngestor::Impl {
  catalog::Catalog& catalog;
  std::shared_ptr<UnitOpener> units;
  std::shared_ptr<FileIO> state_io;
  TableIngestorOptions options;
  CodecChoice codec;
  std::unique_ptr<ChangeConvention> convention;
  // [transform] and [[expectations]]; `stage` is how the current batch runs them.
  std::unique_ptr<RowTransform> transform;
  RowStage stage;
  std::optional<iceberg::Table> table;
  // The table's columns every unit of the current batch is opened with
  // (UnitOpener::Open), set at the start of pass 1 so pass 2 reads the
  // same rows even after the batch evolved the schema.
  floe::Schema unit_table_columns;
  // Merging: the key index and the snapshot it reflects.
  std::optional<PrimaryKeyIndex> index;
  std::optional<int64_t> index_snapshot;
  bool index_valid = false;
  // Workers for reading units ahead and encoding output column chunks;
  // created on first use, only when [performance] threads > 1.
  std::unique_ptr<ThreadPool> pool;
  // Other pipelines found writing to the table, warned about once.
  std::set<std::string> other_pipelines_seen;
  // Notes of the table's creation for the batch's warnings.
  std::vector<std::string> creation_warnings;

  Impl(catalog::Catalog& c, std::shared_ptr<UnitOpener> u, std::shared_ptr<FileIO> state,
       TableIngestorOptions o, CodecChoice chosen, std::unique_ptr<ChangeConvention> changes)
      : catalog(c),
        units(std::move(u)),
        state_io(std::move(state)),
        options(std::move(o)),
        codec(chosen),
        convention(std::move(changes)) {}

  const MergeConfig& merge() const { return options.settings.merge; }
  // The merge key: [merge] keys, or (Debezium from Kafka without them) the
  // record key's fields the convention adopted — the table's recorded key
  // once the table exists (LoadTable), empty before the first unit binds.
  std::vector<std::string> keys() const {
    return merge().keys.empty() ? convention->AdoptedKeyColumns() : merge().keys;
  }
  bool merging() const { return convention->merges(); }
  ThreadPool* Pool();
  // Read-ahead bounds: at most `threads` units (pass 1) or chunks (pass 2)
  // in flight, and a quarter of the memory budget (by their estimated
  // decoded sizes, one item always allowed).
  size_t ReadAheadUnits() const;
  int64_t ReadAheadBytes() const;
  // The share of [performance] memory_budget a batch's keys may use: its
  // change map, and what each winning change costs after it (its selected
  // row, its entry in the key index delta), which outlive the map.
  size_t ChangeMapBudget() const;
  // What a batch holding the change map `changes` and the winners of `scan`
  // uses by ChangeMapBudget's measure.
  static size_t KeysMemoryAfterMerging(const BatchChanges& changes, const FileScan& scan);
  // Bad rows a unit may have before it is quarantined: none unless
  // [schema] on_bad_row = "table".
  size_t MaxBadRowsPerUnit() const;
  int64_t NowMs() const;
  int format_version() const;

  Status LoadTable();
  // A convention whose keys come from the units takes the table's recorded key.
  Status AdoptRecordedKey();
  // table_settings_check.h: the recorded key, the partition spec, other pipelines.
  Status CheckTableAgainstSettings(std::vector<std::string>* warnings);
  Status CreateTable(const iceberg::Schema& schema);
  // `warnings` receives the index loader's notes (files ignored, rebuilds).
  Status EnsureIndex(std::vector<std::string>* warnings);
  // EnsureIndex's load: (re)loads the index when it is missing, invalid or
  // of another snapshot than the table's current one.
  Status LoadIndexIfStale(std::vector<std::string>* warnings);
  // Deletes a damaged index's damaged files (PrimaryKeyIndex::DiscardDamaged)
  // and marks it for reloading, with a warning.
  void DiscardDamagedIndex(std::vector<std::string>* warnings);
  ReconcileOptions MakeReconcileOptions() const;
  // The primitive top-level columns of `schema` a format may read with their
  // types: none when the convention's rows are not the table's rows
  // (Debezium's envelope), and never lineage columns or _rescued_data.
  floe::Schema UnitTableColumns(const iceberg::Schema& schema) const;
  void Quarantine(const SourceUnit& unit, const std::string& reason, BatchResult& result);

  // One try at the batch; `skipped` units (failed in an earlier try's pass
  // 2) are left out.
  Result<BatchResult> Attempt(const std::vector<SourceUnit>& batch, int64_t batch_id,
                              const ProgressFn& progress, const std::set<size_t>& skipped,
                              std::set<size_t>* progress_reported, std::optional<UnitFailure>* failure);
  // Phase 1, for a table that does not exist yet: its schema voted from a
  // sample of the batch's units (schema/schema_vote.h) as the first evolution.
  void VoteNewTableSchemaInto(const std::vector<SourceUnit>& batch, const std::vector<size_t>& to_scan,
                              const ReconcileOptions& reconcile, ScannedBatch& scanned);
  // Phase 1. Sets scanned.result.budget_cut_at (and returns) when the change
  // map would outgrow its budget.
  Result<ScannedBatch> ScanAndMerge(const std::vector<SourceUnit>& batch, int64_t now_ms,
                                    const ProgressFn& progress, const std::set<size_t>& skipped,
                                    std::set<size_t>* progress_reported);
  // Phase 1, one unit that scanned cleanly: its row stage's counts, its
  // quarantined rows (side table) and failed ones (the batch stops, or a
  // dry run lists them), its bad rows.
  Status TakeRowStageResults(const SourceUnit& unit, FileScan& scan, ScannedBatch& scanned);
  // Phase 2.
  Result<SettledSchema> SettleSchema(ScannedBatch& scanned);
  // Phase 5: writes the planned rows through `write`; returns their key
  // index entries, located by `data_file_path` (a sink that writes no files,
  // a dry run's, passes none: its rows get no entries).
  Result<KeyIndexDelta> WriteRows(const std::vector<SourceUnit>& batch, ReadPlan& plan,
                                  const iceberg::Schema& table_schema, int64_t now_ms, const RowSink& write,
                                  const DataFilePathFn& data_file_path, BatchCounts& counts,
                                  std::optional<UnitFailure>* failure);
  // Phase 6.
  // `stream`: the snapshot's stream markers (StreamMarkers).
  Result<BatchResult> Commit(BatchResult result, int64_t batch_id, int64_t now_ms,
                             const SettledSchema& schema, iceberg::PartitionedWriter& writer,
                             KeyIndexDelta lives, Resolution resolution, SideTables& side,
                             const StreamMarkers& stream);
  // [target] change_feed: appends the table's unrecorded commits to
  // <table>__changes (`just`: the commit just made, when there is one);
  // failures become warnings (the feed catches up at the next batch).
  void FeedChanges(const JustCommitted* just, BatchResult& result);
  ChangeFeedOptions FeedOptions();
  // [[aggregates]] over this table: each aggregate table brought up to date
  // with the table's current snapshot (`just`: the commit just made, when
  // there is one); failures become warnings (the next call catches up).
  void MaintainAggregates(const JustCommitted* just, std::vector<std::string>& warnings);
  bool aggregates_caught_up = false;                      // once per ingestor, before its first batch
  std::map<std::string, int64_t> aggregate_late_changes;  // TakeAggregateLateChanges
  // The feed's append for `pending` (StagedChanges), or nothing (a warning
  // says why when the feed could not be staged).
  std::optional<StagedChanges> StageFeed(const JustCommitted& pending, int64_t batch_id, BatchResult& result);
  // `data`'s snapshot and the feed's in one catalog transaction.
  Result<iceberg::Snapshot> CommitWithFeed(iceberg::SnapshotProducer& data, StagedChanges& staged);
};

}  // namespace floe::ingest
