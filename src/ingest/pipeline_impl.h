// Internal to Pipeline: its state and the methods of one run, defined in
// pipeline.cc (discovery, batches, the loop), pipeline_recovery.cc (open
// batches resolved against the tables) and pipeline_scheduling.cc
// (maintenance falling due and handed to the worker or run inline).
// Not for use outside src/ingest. The loop's thread owns it, except while
// the tables of a poll are applied in parallel (ApplyTables): then each
// table's thread holds state_mutex whenever it touches the state, and lets
// go of it only while its own ingestor works. The maintenance worker has its
// own state (pipeline_maintenance.h).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ingest/lease_guard.h"
#include "ingest/pipeline.h"
#include "ingest/pipeline_ledger.h"
#include "ingest/pipeline_maintenance.h"
#include "ingest/pipeline_trace.h"
#include "ingest/progress_reporter.h"
#include "ingest/source.h"
#include "ingest/state/worker_leases.h"

namespace floe::ingest {

// Milliseconds from `start` to now (steady clock).
inline int64_t MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
      .count();
}

// A batch's expectation counts as the ledger records them.
std::vector<LedgerExpectationCount> LedgerExpectationCounts(const BatchCounts& counts);

// The expectation counts a batch's snapshot summary carries
// (floe.expect.<name>.*), with the actions `settings` configure now.
std::vector<LedgerExpectationCount> ExpectationCountsOfSummary(
    const std::map<std::string, std::string>& summary, const TableSettings& settings);

struct Pipeline::Impl {
  PipelineConfig config;
  PipelineOptions options;
  std::unique_ptr<ProgressReporter> reporter;
  std::unique_ptr<Ledger> ledger;
  // Held by a table's thread while it touches anything here (ApplyTables).
  std::mutex state_mutex;
  // Per source table: the first failure to record a quarantine during its current batch.
  std::map<std::string, Status> quarantine_errors;
  // Set when a table of the poll failed: the other tables stop after their current batch.
  std::atomic<bool> tables_halted{false};
  // How many tables ApplyTables applies at once, and how many it is applying
  // now: each batch plans with its slot's part of [performance]
  // memory_budget and its part of the threads among the tables in flight.
  int table_slots = 1;
  int tables_in_flight = 0;
  // Per target table: the ingest-commit run length at the last maintenance attempt.
  std::map<std::string, int64_t> maintenance_attempted_at;
  // Per target table: its side tables (side_tables.h suffixes) that took a
  // commit in this process since their last maintenance was due.
  std::map<std::string, std::set<std::string>> side_tables_committed;
  Source source;
  std::unique_ptr<catalog::Catalog> tables;
  std::shared_ptr<FileIO> state_io;
  // One ingestor per source table, kept across batches and runs (it holds the key index).
  std::map<std::string, std::unique_ptr<TableIngestor>> ingestors;
  // Source tables whose [[aggregates]] were caught up by this process.
  std::set<std::string> aggregates_checked;
  // Watermarks as stored in the ledger, for the tables looked up so far.
  std::map<std::string, TableWatermark> watermarks;
  bool all_watermarks_loaded = false;
  std::set<std::string> watermark_checked;
  // Streams: per (stream, partition) the last position the ledger holds,
  // loaded once (Ledger::StreamEnds) and advanced as ranges are recorded.
  std::map<std::pair<std::string, std::string>, std::string> stream_ends;
  bool stream_ends_loaded = false;
  // Whether the last DiscoverWithWatermarks loaded stream_ends (not an earlier poll).
  bool stream_ends_loaded_this_poll = false;
  // Source tables whose target's stream positions (stream_positions.h) were
  // raised into stream_ends, once per process before the table's first range is recorded.
  std::set<std::string> stream_tables_seeded;
  // Whether the last UnitOpener::Committed worked (its failures are logged once).
  bool source_progress_ok = true;
  // Tables whose dead letters wait for the table to exist (logged once).
  std::set<std::string> waiting_for_table;
  // Set when a ledger call failed: Run stops instead of retrying.
  bool state_failed = false;
  // Run (continuous mode): maintenance waits for a poll that finds nothing to
  // apply; the target tables whose maintenance fell due, oldest first, with
  // what catches their key index up afterwards.
  struct DueMaintenance {
    catalog::TableIdentifier table;
    TableIngestor::IndexCatchUpFn index_catch_up;
    MaintenanceCommitSummary commit_summary;
  };
  std::vector<DueMaintenance> maintenance_due;
  // Never null; disabled unless a trace path was given.
  std::unique_ptr<PipelineTrace> trace = std::make_unique<PipelineTrace>();
  // Per target table: held by a batch, and by a maintenance commit phase.
  TableLocks table_locks;
  // Set by Run: ingestors (and their key indexes) are kept between polls.
  bool continuous = false;
  // Settling files the last poll saw (continuous mode logs a change).
  int64_t last_settling_files = 0;
  // The tables' recorded conditions (source table -> state, reason), as in
  // the ledger: loaded at open, written only when they change.
  std::map<std::string, std::pair<std::string, std::string>> conditions;
  // Tables the last poll's discovery stopped (cleared when it no longer does).
  std::set<std::string> stopped_by_discovery;
  // Streams, when counting (options.metrics): the ledger's positions
  // (loaded once, kept current) and the source's marks of the last poll.
  std::map<std::pair<std::string, std::string>, Ledger::StreamPosition> stream_positions;
  bool stream_positions_loaded = false;
  std::vector<DiscoveryResult::StreamMarks> stream_marks;
  // Scale-out ([state] uri): this worker's table leases, and the guard that
  // fences the catalog's commits and the ledger's writes with them (declared
  // before the worker, whose catalog commits through the guard). Null with a
  // SQLite ledger: one process holds every table.
  std::unique_ptr<WorkerLeases> leases;
  // LeaseNameOf's memo (the loop's thread only; the config never changes).
  mutable std::map<std::string, std::string> lease_names;
  // Scale-out: whether the last poll found work in a table this worker holds
  // (the loop's thread only); a continuous worker that found none, with no
  // maintenance running, says it wants work.
  bool held_work_last_poll = false;
  // Source table -> bytes this poll's discovery found waiting (the loop's
  // thread only): which of its tables a worker hands over first.
  std::map<std::string, int64_t> poll_pending_bytes;
  std::shared_ptr<LeaseGuard> lease_guard;
  // Run only, when maintenance is on; declared last so it is joined before
  // the trace and locks it uses go away.
  std::unique_ptr<MaintenanceWorker> worker;

  int64_t NowMs() const;
  void Log(const std::string& line) { reporter->Message(line); }

  // Marks a failed ledger call, so Run knows the state itself is in trouble
  // (a fenced call is not trouble: the table moved to another worker).
  Status Ledgered(Status status) {
    if (!status.ok()) {
      if (status.kind() == ErrorKind::kFenced) return status;
      state_failed = true;
      return status.WithContext("ledger " + PipelineLedgerName(config));
    }
    return status;
  }
  template <typename T>
  Result<T> Ledgered(Result<T> result) {
    if (!result.ok()) return Ledgered(result.status());
    return result;
  }

  Result<catalog::TableIdentifier> TargetOf(const std::string& source_table) const;
  // The target identifier as metrics label it (the source name when it has none).
  std::string MetricsTable(const std::string& source_table) const;
  // Hands the late changes `ingestor`'s aggregates met to the metrics.
  void CountAggregateLateChanges(const std::string& source_table, TableIngestor& ingestor);

  // Records a table's condition in the ledger and the metrics when it
  // changed (kTableStopped, kTableFailing); ClearCondition forgets it.
  Status SetCondition(const std::string& source_table, const std::string& state, const std::string& reason);
  Status ClearCondition(const std::string& source_table);
  // Streams: what the metrics say about the partitions' lag, after a poll or commit.
  void PublishStreamLag();
  // Streams: the batch's ranges are in the table now (committed or set aside).
  void AdvanceCommittedPositions(const std::vector<SourceUnit>& batch);

  std::string TableStateDir(const catalog::TableIdentifier& id) const;

  Result<TableIngestor*> IngestorFor(const std::string& source_table);

  // Scale-out: whether this worker holds `source_table`'s lease (always true
  // without leases), and its epoch.
  bool Holds(const std::string& source_table) const;
  std::optional<int64_t> LeaseEpochOf(const std::string& source_table) const;
  std::optional<TableLease> LeaseOf(const std::string& source_table) const;
  // What a maintenance snapshot of `source_table`'s target carries: the lease
  // epoch this worker holds at the moment of the commit (read from memory,
  // so safe on the maintenance thread). Empty without leases.
  MaintenanceCommitSummary MaintenanceSummaryOf(const std::string& source_table) const;
  // The lease's name of a source table: its target identifier, computed once
  // per table (every unit of a listing and every fenced ledger write asks);
  // empty when the table has no valid target.
  const std::string& LeaseNameOf(const std::string& source_table) const;
  // Scale-out: registers the targets of `sources`, balances the leases
  // (rejoining when this worker was found dead), forgets what it knew of
  // tables it gained or lost (ingestors, watermarks, due maintenance) and
  // resolves the open batches of the tables it gained. Returns the gained
  // source tables. No-op without leases.
  // `take` false (between the tables of a poll): only releases tables above
  // the share; taking waits for the next poll, which recovers what it takes.
  // `pending_bytes`: source table -> bytes discovered waiting (the free
  // tables are dealt out by it, WorkerLeases::Balance).
  // `not_started_sources`: between tables, the held source tables with work
  // this poll has not started, the first to hand over first, offered to
  // workers that want work (WorkerLeases::Balance).
  Result<std::set<std::string>> BalanceLeases(const std::set<std::string>& sources, bool take = true,
                                              const std::map<std::string, int64_t>& pending_bytes = {},
                                              const std::vector<std::string>& not_started_sources = {});
  // Scale-out: balances the leases over the tables `discovery` names and the
  // ledger's tables with work, then keeps only what concerns the tables this
  // worker holds (KeepHeldTables). True when tables were gained (their
  // ingestors, watermarks and stream ends are forgotten, to be reloaded).
  Result<bool> TakeLeasedTables(DiscoveryResult& discovery);
  // Drops from `discovery` the units, watermarks, errors and resets of tables
  // this worker does not hold: their holders record them.
  void KeepHeldTables(DiscoveryResult& discovery) const;

  // Whether batch `batch_id` of `source_table` committed: marks the ledger
  // accordingly (committed with its snapshot, or released). An error means
  // the table could not be asked and the batch is still open.
  Result<std::optional<int64_t>> ResolveBatch(const std::string& source_table, int64_t batch_id);

  // Resolves the open batches a previous process (or failed batch) left.
  // Tables whose batch cannot be resolved go into `blocked`.
  Status Recover(RunSummary& summary, std::set<std::string>& blocked);

  // Discover with the ledger's watermarks of every table (loaded once per
  // process, then kept current as they are stored), so reset detection never
  // misses one and CDA listings start after the watermark. A table the
  // source names whose stored watermark was still not passed (another
  // process stored it meanwhile) makes discovery run again with it.
  Result<DiscoveryResult> DiscoverWithWatermarks();
  // Raises stream_ends to the positions the target tables of `discovery`'s
  // stream ranges hold (a lost or older ledger resumes after them); true
  // when any moved, so the discovery must be redone from the new ends.
  Result<bool> SeedStreamEndsFromTables(const DiscoveryResult& discovery);

  Status ResetTable(const std::string& source_table);

  // Tells a notification discovery what the ledger says of the units its
  // held notifications announced (done ones are acknowledged), after the
  // discovered units were recorded. No-op for listings.
  Status SettleNotifications();
  // The same after a batch closed: its units are done.
  void SettleNotificationsOf(const std::vector<SourceUnit>& batch);

  // Applies every pending file of `source_table`, batch by batch. Returns
  // an error only for ledger failures; table failures go into the summary.
  // `state` holds state_mutex; let go while the batches run.
  Status ProcessTable(const std::string& source_table, const std::atomic<bool>& stop, RunSummary& summary,
                      std::unique_lock<std::mutex>& state);
  // Applies the tables `with_work` (less the `blocked` ones and those this
  // worker does not hold), up to [performance] parallel_tables at once on
  // threads of their own, each batch with its share of the machine. A table's
  // failure stops the others after their current batch; returns the first.
  Status ApplyTables(const std::vector<std::string>& with_work, const std::set<std::string>& blocked,
                     const std::atomic<bool>& stop, RunSummary& summary);
  // One table of ApplyTables: its batches, then (--once) its key index's
  // merges, and its ingestor goes.
  Status ApplyTable(const std::string& name, const std::atomic<bool>& stop, RunSummary& summary,
                    std::unique_lock<std::mutex>& state);

  // The target table's lock for one batch; a wait (for a maintenance commit) is traced.
  std::unique_lock<std::mutex> LockTable(const std::string& target);

  // Prints what the maintenance worker reported since the last call (its
  // messages wait for the loop, whose log lines they then join in order).
  void LogWorkerMessages();

  Status ApplyBatches(const std::string& source_table, const std::string& target,
                      const std::vector<std::vector<SourceUnit>>& batches, TableIngestor& ingestor,
                      const std::atomic<bool>& stop, RunSummary& summary, TableRunSummary& table_summary,
                      std::unique_lock<std::mutex>& state);

  // Ingest commits of this pipeline at the top of the table's history, up to
  // the first other snapshot (a maintenance or foreign commit). Reads the
  // metadata the ingestor just committed: no catalog round trip per batch.
  int64_t IngestCommitsInARow(const iceberg::TableMetadata& metadata) const;

  // Maintenance that fell due for a table: run at once (RunOnce), or in Run
  // queued for the next idle poll and then handed to the worker, or handed
  // to it at once when the table reaches its next due point while still
  // queued (a continuous backlog never leaves it unmaintained).
  // `state` holds state_mutex, let go while inline maintenance runs.
  void MaybeMaintain(const std::string& source_table, const TableIngestor& ingestor,
                     std::unique_lock<std::mutex>& state);

  // Hands every table whose maintenance is due to the worker, oldest first.
  void SubmitDueMaintenance();

  // Inline maintenance (RunOnce): nothing runs beside it, so no gate; then
  // the table's key index catches up (`index_catch_up`, when set).
  void RunMaintenance(const catalog::TableIdentifier& id, const char* why,
                      const TableIngestor::IndexCatchUpFn& index_catch_up,
                      const MaintenanceCommitSummary& commit_summary, std::unique_lock<std::mutex>& state);

  // A failed batch may still have committed (unknown commit outcome), so it
  // is resolved like an open batch at start-up; the table stops for this run.
  Status FailBatch(const std::string& source_table, int64_t batch_id, const Status& error,
                   TableRunSummary& table_summary);

  Result<RunSummary> RunOnce(const std::atomic<bool>& stop);
};

}  // namespace floe::ingest
