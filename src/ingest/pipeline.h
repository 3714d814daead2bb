// Pipeline: discover -> ledger -> batches -> TableIngestor -> ledger ->
// maintenance, for every table of a source, once or continuously (the story,
// with the source model and the locking contract, is docs/architecture.md).
//
// Contract:
// - Start-up recovery: every open batch in the ledger is resolved against
//   its table: committed when a snapshot in the table's history carries this
//   pipeline's name and the batch id (the ledger is then marked committed),
//   otherwise released and redone. Nothing is committed twice or lost
//   whatever moment the previous process died at. A table whose open batch
//   cannot be resolved (catalog unreachable) is skipped for the run with
//   that error, so its files are never applied out of order.
// - RunOnce discovers, records, and processes every table's pending units in
//   order_key order in batches bounded by max_files_per_batch and
//   max_bytes_per_batch (batch_planner.h), until nothing is pending; tables
//   are independent: one failing table is reported and the others go on.
// - A batch that failed is resolved at once like an open batch at start-up
//   (a commit whose outcome was unknown may have landed); when the table
//   cannot be asked, the batch stays open for the next run's recovery.
// - A batch that committed nothing (every file quarantined, or no change)
//   is still closed in the ledger, with snapshot id 0 ("no snapshot"; Iceberg
//   snapshot ids are never 0): its files are committed and never re-read;
//   `floe files` shows such a snapshot as "-" (jsonl: null).
// - Quarantined files are set aside in the ledger with the ingestor's reason
//   (logged once as "quarantined <uri>: <reason>"). A quarantined file that
//   changes is taken again (it was never ingested). Bad rows ([schema]
//   on_bad_row = "table") go to the side table <table>__bad_rows with
//   their batch (side_tables.h) and are logged with their count.
// - CDA resets (Discovery::table_errors) stop only their table. With
//   source.reload_on_reset the table's ledger records are forgotten and its
//   files re-ingested on top of the existing rows: correct for mode merge
//   (newest change wins), duplicates history in mode append (logged).
// - Run (continuous mode) polls like RunOnce until `stop` becomes true
//   (checked between batches and during the wait; a batch in progress is
//   finished first). A poll that committed anything is followed at once by
//   another; otherwise the next poll starts one trigger interval after the
//   previous one STARTED. Maintenance runs on one background worker thread
//   (pipeline_maintenance.h) under the per-table locking contract of
//   docs/architecture.md: the loop never waits for a rewrite and an ingest
//   batch never races a maintenance commit. On stop the worker abandons its
//   run at its next step or commit and is joined before Run returns. An
//   error of one run (or of one table's maintenance) is logged and the loop
//   goes on after the interval, except a ledger (state) error, which Run
//   returns.
// - Trace: with PipelineOptions::trace_path (or $FLOE_PIPELINE_TRACE) the
//   loop's phases are appended to that file as JSON lines (pipeline_trace.h):
//   "poll" (discovery, recording), "batch", "table_lock_wait" (a batch
//   waited for a maintenance commit), "maintenance_due", "maintenance"
//   (inline, or "background": true from the worker), "maintenance_commit"
//   (a gated commit phase: its wait for the table lock and its length),
//   "iteration" (process CPU, RSS and heap after each poll), "sleep".
// - Progress: a progress line on a terminal (files, rows, bytes, rate),
//   otherwise one log line per batch, to `log` (progress_reporter.h).
// Not thread-safe (its own worker aside); one Pipeline per state dir (the
// ledger's lock).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/pipeline_metrics.h"
#include "ingest/progress_reporter.h"
#include "ingest/state/ledger.h"
#include "ingest/table_ingestor.h"

namespace floe::ingest {

// The ledger's snapshot id of a batch that committed nothing.
inline constexpr int64_t kNoSnapshot = 0;

struct TableRunSummary {
  std::string table;  // target identifier
  int64_t batches = 0;
  BatchCounts counts;
  int64_t quarantined = 0;
  int64_t recovered_batches = 0;  // open batches of a previous process resolved by this run
  int64_t elapsed_ms = 0;
  std::string error;  // non-empty when the table stopped with an error

  void Add(const TableRunSummary& other);  // sums counts; keeps the latest error
};

struct RunSummary {
  // Keyed by source table name.
  std::map<std::string, TableRunSummary> tables;
  int64_t batches_committed = 0;  // batches closed in the ledger by this run (recovered ones excluded)
  // Files the source left out because they may still be written to
  // ([source] settle), and when the first and last of them are taken.
  int64_t settling_files = 0;
  int64_t settling_first_ms = 0;
  int64_t settling_last_ms = 0;
  int64_t settle_ms = 0;
  // Files quarantined by earlier runs that are still set aside.
  int64_t earlier_quarantined = 0;
  std::string config_path;  // for the hints Format prints
  // A stream discovery stopped at its bound with more records ready: the
  // next poll follows at once (RunOnce reads on while batches commit).
  bool more_ready = false;
  // No table error and nothing quarantined in this run (files still
  // quarantined from earlier runs do not count: Format says they are there).
  bool ok() const;
  // The per-table summary table printed at the end of a run, then a line
  // each for settling files and files still quarantined from earlier runs.
  std::string Format() const;
  // Sums another run into this one (Run's total over its iterations).
  void Add(const RunSummary& other);
};

// Entries a maintenance snapshot's summary carries, asked for at its commit.
using MaintenanceCommitSummary = std::function<std::map<std::string, std::string>()>;

// What the pipeline hands a maintenance run (see MaintainFn).
struct MaintenanceHooks {
  // Each commit phase (refresh, conflict checks, commit; never the rewrite
  // of files) must run through this gate: it runs the phase while no ingest
  // batch of the table is in flight and returns its status, or returns
  // kCancelled without running it once the pipeline is stopping. Empty: run
  // the phase directly (RunOnce, where nothing runs beside it).
  std::function<Status(const std::function<Status()>& commit_phase)> commit_gate;
  // True once the pipeline is stopping: give up at the next step. Empty: never.
  std::function<bool()> stop_requested;
  // Entries every maintenance snapshot's summary carries, asked for at its
  // commit (a scale-out worker's floe.lease-epoch). Empty: none.
  MaintenanceCommitSummary commit_summary;
};

// Table maintenance (compaction, expiry, ...) of one table through the given
// catalog (in Run: the worker's own connection, on the worker thread).
// Returns a one-line report for the log. The pipeline runs src/maintenance
// with its [maintenance] settings (ConfiguredMaintenance,
// pipeline_maintenance.h); PipelineOptions::maintain replaces it in tests.
using MaintainFn = std::function<Result<std::string>(catalog::Catalog&, const catalog::TableIdentifier&,
                                                     const MaintenanceHooks&)>;

struct PipelineOptions {
  bool progress_bar = false;     // true on a terminal
  std::ostream* log = nullptr;   // nullptr: std::cerr
  int64_t now_ms_for_tests = 0;  // 0: the clock
  // Tests only: replaces the maintenance the pipeline runs itself. It is
  // called after a committed batch once the table's latest [maintenance]
  // compact_every snapshots are all ingest commits of this pipeline (and
  // again only after as many more), when [maintenance] enabled. A failure is
  // logged; ingestion goes on. In Run it runs on the worker (see above), so
  // it must not touch the pipeline (its ledger, catalog) itself; in RunOnce
  // on the thread of the table it maintains, so it may run for two tables at
  // once (parallel_tables): it must be thread-safe. Empty:
  // ConfiguredMaintenance(config.maintenance).
  MaintainFn maintain;
  // JSON-lines trace of the loop's phases; empty: $FLOE_PIPELINE_TRACE, and
  // when that is unset or empty, no trace.
  std::string trace_path;
  // Log lines start with the time (always in continuous mode).
  bool timestamps = false;
  // Also log what is normally quiet: idle polls, settling files every poll.
  bool verbose = false;
  // Tests only: wraps every FileIO the pipeline uses (source, catalog and
  // tables, state dir), e.g. in a FaultInjectingFileIO. Empty: none.
  FileIOWrapper wrap_file_io;
  // Where the pipeline counts what it does (`floe run --http`); null: nowhere.
  std::shared_ptr<PipelineMetrics> metrics;
  // Log lines as text, or as one JSON object each ([observability] log_format).
  LogFormat log_format = LogFormat::kText;
};

// The catalog identifier a source table is written to: [tables.<name>]
// target_table, else the name lower-cased, in [target] namespace.
Result<catalog::TableIdentifier> TargetTableOf(const PipelineConfig& config, const std::string& source_table);

// Condition states a table can be recorded in (Ledger::SetTableCondition):
// waiting for an operator, or failing and retried every poll.
inline constexpr const char* kTableStopped = "stopped";
inline constexpr const char* kTableFailing = "failing";

class Pipeline {
 public:
  static Result<std::unique_ptr<Pipeline>> Open(PipelineConfig config, PipelineOptions options = {});
  ~Pipeline();
  Result<RunSummary> RunOnce();
  Result<RunSummary> Run(const std::atomic<bool>& stop);

  // For inspection (tests, tools): the pipeline's ledger and catalog.
  Ledger& ledger();
  catalog::Catalog& table_catalog();
  const PipelineConfig& config() const;
  // The catalog identifier a source table is written to.
  Result<catalog::TableIdentifier> TargetOf(const std::string& source_table) const;

 private:
  struct Impl;
  explicit Pipeline(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::ingest
