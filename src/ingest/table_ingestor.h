// TableIngestor: applies one batch of source units (files, stream ranges) to
// one Iceberg table in one commit — the shared path every source feeds.
//
// The batch goes through named phases (table_ingestor_phases.h): scan and
// merge (pass 1), settle the schema, resolve against the key index, plan
// the reads, write (pass 2), commit.
//
// Contract for ApplyBatch:
// - Creates the table on first sight (namespace too) from the row-image
//   schema most units of the first batch agree on (schema/schema_vote.h;
//   plus lineage columns), with the configured partition spec, format
//   version and properties; in merge mode the key columns are its
//   identifier fields (required: rows with a null key are never written).
// - Before each batch (table_settings_check.h): a merge key other than the
//   table's identifier fields fails the batch; a partition spec other than
//   [target] partition_by is evolved in a commit of its own (new data
//   only); other pipelines' commits to the table are warned about once.
// - Reads every unit through the source's UnitOpener (any discovery and
//   format, one chunk at a time) and the table's change convention
//   (changes/change_convention.h). A unit that cannot be read, whose
//   convention cannot bind (a missing key/ordering/operation column), that
//   is incompatible under policy quarantine, or that has a bad row (a null
//   key or ordering value, an unknown operation code) under [schema]
//   on_bad_row = "quarantine" (or more than 10,000 of them), is reported in
//   `quarantined` with a reason naming the unit (and row and column) and
//   contributes nothing; the rest of the batch goes on. With on_bad_row =
//   "table" bad rows are left out and go to the side table
//   <table>__bad_rows (file, row, reason, rescued_data) with the batch (side_tables.h),
//   counted in counts.bad_rows. Under policy fail an incompatible unit fails the
//   whole batch (nothing is committed). Pass 1 reads only the convention's
//   change columns; a unit that fails later, when its selected rows are read
//   in full, is quarantined too and the batch is redone without it (its
//   changes may have beaten other units' changes). Progress is reported once
//   per contributing unit and batch.
// - mode merge: within the batch and against the PrimaryKeyIndex, a change
//   applies only when its ordering value is greater than the key's current
//   one (live row or tombstone); the newest change per key wins; operation
//   ignore values are dropped; stale changes are counted (changes beaten by
//   a newer one in the same batch count as stale too). A replaced or
//   deleted live row becomes a position delete (v2: one position delete file
//   per partition of deleted rows; v3: one deletion vector per data file,
//   merged with the file's existing vector, which the commit replaces).
//   Deletes leave tombstones. Equal ordering values: the later file/row in
//   batch order wins within a batch; against the table the change is stale.
// - mode append: every row (except ignore values) is appended.
// - Writes rolling Parquet data files at the target size under the table
//   location, and commits data files, delete files and any schema evolution
//   in ONE snapshot whose summary carries floe.pipeline = <pipeline name>,
//   floe.batch-id = <batch id>, floe.source-files = <count> and per-kind
//   counts (floe.rows-inserted/updated/deleted/stale).
// - Before the commit the key index's run of the batch's changes and the
//   new snapshot's manifest are saved (see key_index.h), so a crash right
//   after the commit finds them; the index merges its runs on a background
//   thread, adopted at the start of a later batch (or by FinishIndexWork).
// - A batch where every file was quarantined, or that changes nothing,
//   commits nothing (snapshot_id empty). Tombstones it adds (deletes of
//   absent keys) are still saved, in the index file of the current snapshot
//   (of snapshot 0 while the table has none).
// - On any error the index is reloaded on the next batch; files already
//   written stay only when the commit outcome is unknown. The index is also
//   reloaded when the table's current snapshot is not the one it reflects
//   (another writer committed). The table's existing format version wins
//   over the settings.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "common/status.h"
#include "iceberg/spec/table_metadata.h"
#include "ingest/batch_recovery.h"
#include "ingest/config/config.h"
#include "ingest/format/unit_opener.h"
#include "ingest/units/source_unit.h"
#include "io/file_io.h"

namespace floe::ingest {

// One expectation's rows over a batch (or a run): change rows checked and
// failed (passed = checked - failed).
struct ExpectationCount {
  std::string name;
  ExpectationAction action = ExpectationAction::kWarn;
  int64_t checked = 0;
  int64_t failed = 0;
  int64_t passed() const { return checked - failed; }
};

struct BatchCounts {
  int64_t files = 0;  // files that contributed (not quarantined)
  int64_t bytes_read = 0;
  int64_t rows_read = 0;
  int64_t inserted = 0;
  int64_t updated = 0;
  int64_t deleted = 0;
  int64_t stale = 0;     // changes older than the row's current version
  int64_t ignored = 0;   // operation ignore values (CDA 3) and deletes of absent keys
  int64_t bad_rows = 0;  // rows set aside ([schema] on_bad_row = "table")
  // Stream records that did not become rows: kept in <table>__dead_letter, or dropped ("skip").
  int64_t dead_letters = 0;
  int64_t dead_letters_skipped = 0;
  int64_t data_files_written = 0;
  int64_t delete_files_written = 0;
  // The row stage ([transform], [[expectations]]; transform/row_transform.h).
  int64_t filtered = 0;          // change rows the filter left out (merge mode: deletes of their keys)
  int64_t dropped = 0;           // change rows failing a drop expectation
  int64_t quarantined_rows = 0;  // change rows failing a quarantine expectation: <table>__quarantine
  std::vector<ExpectationCount> expectations;  // per expectation, in the table's order
  // Sums; expectations add up by name (new names are appended).
  void Add(const BatchCounts& other);
};

// A problem a dry run found (TableIngestorOptions::dry_run): a unit that
// would be quarantined (row -1), a bad row, or a row failing an
// expectation. `fails`: it would stop the batch or set the unit aside.
struct RowProblem {
  std::string uri;
  int64_t row = -1;  // 0-based in the unit; -1: the whole unit
  std::string what;
  bool fails = false;
};

struct QuarantinedFile {
  std::string uri;
  std::string reason;
};

struct BatchResult {
  std::optional<int64_t> snapshot_id;
  BatchCounts counts;
  std::vector<QuarantinedFile> quarantined;
  std::vector<std::string> warnings;  // schema casts, rescued columns
  // Set when the batch's change map (merge mode) would outgrow half of
  // [performance] memory_budget once files[*budget_cut_at] (>= 1) is
  // merged: nothing was written or committed and nothing else in this
  // result is set except `quarantined` (files set aside before the cut,
  // already reported through on_quarantine). The caller releases the batch
  // and applies files [0, cut) and [cut, end) as new batches; a batch of
  // one file is never cut.
  std::optional<size_t> budget_cut_at;
  // No unit made rows, some rows were set aside (a stream range of bad
  // records' dead letters), and the target table does not exist yet: side
  // rows commit only with a commit of their target, so nothing was written.
  // The caller releases the batch; its units wait for the first batch with
  // rows, which creates the table and commits them too.
  bool waits_for_table = false;
  // Dry runs: the first TableIngestorOptions::dry_run_rows output rows (in
  // the table schema the batch would write) and what the batch would set
  // aside or fail on, in unit and row order.
  std::vector<RecordBatch> sample;
  std::vector<RowProblem> problems;
  // Wall time of the commit phase (key index, delete files, the snapshot,
  // side tables, change feed); 0 when nothing was committed.
  double commit_seconds = 0;
  // The key index's memory once the batch committed (its runs' fence
  // indexes and Bloom filters: PrimaryKeyIndex::MemoryBytes); 0 without one.
  // The part of the process's memory memory_budget leaves aside.
  int64_t key_index_memory_bytes = 0;
  // How many runs the key index had then (PrimaryKeyIndex::run_count): each
  // lookup checks each run's filter, and runs above the base hold filters.
  int64_t key_index_runs = 0;
};

struct TableIngestorOptions {
  std::string pipeline_name;
  catalog::TableIdentifier table;
  TableSettings settings;
  std::string state_dir;         // this table's directory for the key index
  int64_t now_ms_for_tests = 0;  // 0: the clock
  // Scale-out: the epoch of this worker's lease of the table, written into
  // every commit's summary as floe.lease-epoch (the lease's fence is the
  // catalog's commit guard, not the ingestor's business). nullopt: no lease.
  std::optional<int64_t> lease_epoch;
  // Called the moment a file is set aside, before anything is committed, so
  // the caller can record it durably first: a crash right after the commit
  // must not leave a quarantined file counted as committed. The file is also
  // listed in BatchResult::quarantined.
  std::function<void(const QuarantinedFile&)> on_quarantine;
  // Validation (`floe validate`): ApplyBatch reads the batch through every
  // phase up to the write (format, change convention, schema drift, the
  // row stage) but creates, writes and commits nothing, loads no key index
  // (winners are resolved as against an empty table), does not stop at a
  // failing `fail` expectation, and reports problems and sample rows in
  // BatchResult instead.
  bool dry_run = false;
  int64_t dry_run_rows = 0;
};

class TableIngestor {
 public:
  // `units` opens the source units; the catalog's FileIO writes the table;
  // `state_io` holds the key index files under options.state_dir.
  static Result<std::unique_ptr<TableIngestor>> Open(catalog::Catalog& catalog,
                                                     std::shared_ptr<UnitOpener> units,
                                                     std::shared_ptr<FileIO> state_io,
                                                     TableIngestorOptions options);
  ~TableIngestor();

  // Called after each unit is read (for progress): unit uri, rows, bytes.
  using ProgressFn = std::function<void(const std::string&, int64_t, int64_t)>;

  // The pipeline's newest batch that changed this table: its batch id and snapshot.
  struct LastCommit {
    int64_t batch_id = 0;
    int64_t snapshot_id = 0;
  };

  // `last` (from the ledger): the table must still hold it. A table another
  // writer dropped, emptied (no current snapshot, as CREATE OR REPLACE
  // leaves it) or rolled back past it (the snapshot is still listed but not
  // an ancestor of the current one) fails the batch (InvalidArgument)
  // naming what happened and how to reload, instead of merging onto a
  // partial table. A snapshot no longer listed (expired) cannot be told from
  // a replaced history and passes.
  Result<BatchResult> ApplyBatch(const std::vector<SourceUnit>& files, int64_t batch_id,
                                 const ProgressFn& progress = nullptr,
                                 std::optional<LastCommit> last = std::nullopt);

  // Catches the table's key index up after a maintenance commit (a
  // compaction's moved rows, key_index.h PrepareCatchUp / PublishCatchUp),
  // so the next batch does not: `gate` runs the phase that writes the
  // manifest under the table's lock (empty: directly). The function owns
  // copies of what it needs and may run on another thread (with its own
  // catalog connection) while this ingestor works; empty when the table is
  // not merged by key.
  using IndexCatchUpFn = std::function<Status(
      catalog::Catalog&, const std::function<Status(const std::function<Status()>&)>& gate)>;
  IndexCatchUpFn IndexCatchUp() const;

  // Finishes the key index's background merges that are due (each waited
  // for and adopted), so a short-lived process (`floe run --once`) leaves
  // its runs merged; returns their warnings. Call where the table's lock is
  // held, as for ApplyBatch.
  std::vector<std::string> FinishIndexWork();

  // The share of the machine the next batches plan with: `memory_budget_bytes`
  // in place of [performance] memory_budget and `threads` in place of
  // [performance] threads (the pipeline applies the tables of a poll in
  // parallel, each with its part of both). Call between batches.
  void SetShare(int64_t memory_budget_bytes, int threads);

  // [[aggregates]] over this table: brings each aggregate table up to date
  // with the table's current snapshot, once per ingestor (ApplyBatch does it
  // before its first batch; a pipeline calls this for tables without new
  // files, so a crash between a commit and its aggregates' commit is made
  // good by the next run). Returns warnings (an aggregate left behind).
  // Call where the table's lock is held, as for ApplyBatch.
  std::vector<std::string> CatchUpAggregates();
  // Per aggregate table ("namespace.name"): the late changes its catch-ups
  // met (AggregateCatchUpResult::late_changes) since the last call, which
  // empties them. Each catch-up with late changes also warns, naming them.
  std::map<std::string, int64_t> TakeAggregateLateChanges();

  // The table as this ingestor last loaded or committed it; nullptr before
  // the table exists. Valid until the next ApplyBatch.
  const iceberg::TableMetadata* metadata() const;

 private:
  struct Impl;
  explicit TableIngestor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::ingest
