// Ledger: the per-pipeline record of every source file and batch, kept in a
// SQLite database (<state dir>/ledger.db) or, with [state] uri, in the
// pipeline's schema of a PostgreSQL database, so that each file is ingested
// exactly once across crashes and restarts.
//
// Contract: a file moves discovered -> in_batch(N) -> committed(snapshot), or
// to quarantined(reason) or skipped(reason); a batch is open until it is
// committed or released. Every method is one database transaction (SQLite:
// WAL mode, synchronous=FULL), so a kill -9 leaves the ledger at the state
// before or after a call, never between. Batch ids increase per pipeline and are never
// reused. The ledger never talks to the table: the pipeline decides, from
// the table's snapshot summaries, whether an open batch committed.
// Not thread-safe: one Ledger per process and pipeline. SQLite: Open creates
// the state dir if needed, takes an exclusive flock on <state
// dir>/ledger.lock for the Ledger's lifetime and fails with InvalidArgument
// "another floe process is using state dir X" when another Ledger, in this or
// another process, holds it. PostgreSQL: Open takes a session-level advisory
// lock of the pipeline and fails with InvalidArgument "another floe process
// is using pipeline P's PostgreSQL ledger URI (schema S)"; a lost connection
// fails the call in progress with a retryable IOError and the next call
// reconnects (and takes the lock again).
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

#include "common/status.h"
#include "ingest/units/source_unit.h"

namespace floe::ingest {

enum class FileState { kDiscovered, kInBatch, kCommitted, kQuarantined, kSkipped };
// "discovered", "in_batch", "committed", "quarantined", "skipped".
const char* FileStateName(FileState state);

struct LedgerFile {
  SourceUnit file;
  FileState state = FileState::kDiscovered;
  std::optional<int64_t> batch_id;
  std::optional<int64_t> snapshot_id;
  std::string reason;  // quarantined / skipped
  int64_t discovered_at_ms = 0;
  int64_t updated_at_ms = 0;
};

struct LedgerBatch {
  int64_t batch_id = 0;
  std::string table;
  bool committed = false;
  std::optional<int64_t> snapshot_id;
  std::vector<std::string> uris;  // the files of the batch, in order
};

// One expectation's counts of one committed batch ([[expectations]]): the
// change rows it checked, that passed and that failed, and its action as
// configured when the batch committed.
struct LedgerExpectationCount {
  int64_t batch_id = 0;
  std::string table;  // the source table, as the batch's
  std::string name;
  std::string action;
  int64_t checked = 0;
  int64_t passed = 0;
  int64_t failed = 0;
};

// What a committed batch did, kept with it for `floe status` and the
// dashboard (a batch resolved by recovery has none).
struct BatchStats {
  int64_t files = 0;  // units that contributed
  int64_t bytes = 0;  // source bytes read
  int64_t rows = 0;   // rows read
  int64_t inserted = 0;
  int64_t updated = 0;
  int64_t deleted = 0;
  int64_t stale = 0;
  int64_t quarantined = 0;  // units set aside by the batch
  int64_t duration_ms = 0;  // the batch, from its ledger record to its commit
  int64_t commit_ms = 0;    // the commit phase (key index, deletes, snapshot, side tables)

  void Add(const BatchStats& other);
};

// A batch as `floe status` shows it.
struct BatchRecord {
  int64_t batch_id = 0;
  std::string table;
  bool committed = false;
  std::optional<int64_t> snapshot_id;  // 0: committed nothing
  int64_t created_at_ms = 0;
  std::optional<int64_t> committed_at_ms;
  std::optional<BatchStats> stats;
};

// The units of one source table that are not (yet) committed, by state.
struct TableBacklog {
  int64_t pending_files = 0;  // discovered: waiting for a batch
  int64_t pending_bytes = 0;
  std::optional<int64_t> oldest_pending_ms;  // discovered_at_ms of the oldest pending unit
  int64_t in_batch_files = 0;
  int64_t in_batch_bytes = 0;
  int64_t quarantined_files = 0;
  int64_t skipped_files = 0;
};

// A condition of a source table that the pipeline recorded: "stopped" (it
// waits for an operator: a CDA reset, a rollback by another writer, a name
// clash) or "failing" (its last batch failed; it is retried every poll).
struct TableCondition {
  std::string state;
  std::string reason;
  int64_t since_ms = 0;       // when this state and reason were first recorded
  int64_t updated_at_ms = 0;  // when it was last seen
};

// Where a pipeline's ledger lives: `uri` empty = SQLite in `state_dir`;
// "postgresql://..." = the schema "floe_ledger_<pipeline>" of that database.
struct LedgerOptions {
  std::string state_dir;
  std::string uri;
  std::string pipeline;
  // PostgreSQL: the server ends a session idle inside a transaction this
  // long (a worker paused mid-call must not hold the ledger's lock from the
  // others); 0: the server's setting.
  int64_t idle_in_transaction_timeout_ms = 0;
};

// A worker's lease of a source table where several workers share a
// PostgreSQL ledger (worker_leases.h): the worker and the lease's epoch.
struct TableLease {
  std::string worker_id;
  int64_t epoch = 0;
  std::string leased_table;  // the lease's own name for the table (the pipeline leases target tables)
};
// The lease this worker holds on a source table, or nullopt when it holds none.
using LedgerFence = std::function<std::optional<TableLease>(const std::string& table)>;

struct LedgerFilter {
  std::optional<std::string> table;
  std::optional<FileState> state;
};

class Ledger {
 public:
  static Result<std::unique_ptr<Ledger>> Open(const LedgerOptions& options);
  // Opens an existing ledger for reading only, without the lock, so `floe
  // files` works while `floe run` holds it (WAL readers, and PostgreSQL
  // snapshots, see the last committed state). NotFound when there is no
  // ledger yet; every mutating call fails.
  static Result<std::unique_ptr<Ledger>> OpenReadOnly(const LedgerOptions& options);
  // The SQLite ledger in `state_dir`.
  static Result<std::unique_ptr<Ledger>> Open(const std::string& state_dir);
  static Result<std::unique_ptr<Ledger>> OpenReadOnly(const std::string& state_dir);
  ~Ledger();

  // Fencing (PostgreSQL ledgers shared by workers): from now on every call
  // that changes a source table's records (RecordDiscovered, OpenBatch,
  // CommitBatch, ReleaseBatch, Quarantine, ResetTable, SetWatermark,
  // Set/ClearTableCondition) first checks, in its own transaction and with
  // the lease row locked against change until it commits, that `fence`'s
  // lease of that table is still the table's current one; otherwise it
  // changes nothing and returns kFenced. Calls of operators (Skip, Retry)
  // are not fenced. InvalidArgument on a SQLite ledger (one process only).
  Status SetFence(LedgerFence fence);

  // Records files not seen before as discovered (discovered_at_ms =
  // updated_at_ms = now_ms). A known file still `discovered` whose size or
  // mtime changed gets the new values and updated_at_ms = now_ms (it
  // settles again). A quarantined file that changed was never ingested: it
  // gets the new values and goes back to discovered (reported once in
  // `requeued`, with its old reason). A skipped file that changed is
  // reported in `changed_after_skip`, a committed or in_batch one in
  // `changed_after_ingest` (on every call, until it is reset); both are
  // otherwise left alone.
  struct DiscoverResult {
    int64_t new_files = 0;
    std::vector<std::string> changed_after_ingest;
    std::vector<std::string> changed_after_skip;
    std::vector<std::pair<std::string, std::string>> requeued;  // uri, why it was quarantined
  };
  Result<DiscoverResult> RecordDiscovered(const std::vector<SourceUnit>& files, int64_t now_ms);

  // Scale-out: records files of tables other workers hold, which this worker
  // learned of (an S3 event notification is delivered to one worker of the
  // queue, whichever table it announces), so their holders take them from
  // the ledger. Only files the ledger does not know are inserted, as
  // discovered; known ones are left to their holder (no refresh, requeue or
  // report). Not fenced: a discovered row changes no table, and a file
  // recorded twice is one row. Stream ranges are refused (InvalidArgument:
  // positions are the holder's). Returns how many were new.
  Result<int64_t> RecordForHolders(const std::vector<SourceUnit>& files, int64_t now_ms);

  // Discovered files of `table` in order_key order.
  Result<std::vector<LedgerFile>> Pending(const std::string& table);
  // Tables with pending files or open batches, sorted.
  Result<std::vector<std::string>> TablesWithWork();
  // Source table -> bytes of its files discovered and not yet in a batch.
  Result<std::map<std::string, int64_t>> WaitingBytes();
  // Those of `tables` with at least one committed file (an indexed lookup each).
  Result<std::set<std::string>> TablesWithCommittedFiles(const std::vector<std::string>& tables);

  // Allocates the next batch id and moves `uris` (discovered files of
  // `table`, at least one, no repeats) into it; anything else is
  // InvalidArgument (NotFound for an unknown uri) and changes nothing.
  Result<int64_t> OpenBatch(const std::string& table, const std::vector<std::string>& uris);
  // The batch id and snapshot of `table`'s newest committed batch that
  // changed its target (snapshot id other than 0), or nullopt.
  Result<std::optional<std::pair<int64_t, int64_t>>> LastCommittedSnapshot(const std::string& table);
  // Open batches, oldest first (after a crash: to resolve against the table).
  Result<std::vector<LedgerBatch>> OpenBatches();
  // Marks the batch and its in_batch files committed with `snapshot_id`,
  // keeping what it did (`stats`) and when, and its expectation counts
  // (their batch_id and table are the batch's), in one transaction.
  // Repeating it with the same snapshot is a no-op; another snapshot is
  // InvalidArgument; an unknown batch NotFound.
  Status CommitBatch(int64_t batch_id, int64_t snapshot_id,
                     const std::optional<BatchStats>& stats = std::nullopt,
                     const std::vector<LedgerExpectationCount>& expectations = {});
  // Expectation counts of committed batches (of `table`, or all), by batch
  // and then in the order they were recorded.
  Result<std::vector<LedgerExpectationCount>> ExpectationCounts(const std::optional<std::string>& table);
  // Returns the batch's in_batch files to discovered and forgets the batch
  // (the batch did not commit; its id is not reused). A committed batch
  // cannot be released.
  Status ReleaseBatch(int64_t batch_id);

  // Sets a file aside with the reason: Quarantine from discovered or
  // in_batch, Skip also from quarantined (an operator gives up on a file).
  // The file leaves its batch: batch_id is set only while a file is
  // in_batch or committed. NotFound for an unknown uri, InvalidArgument
  // from any other state.
  Status Quarantine(const std::string& uri, const std::string& reason);
  Status Skip(const std::string& uri, const std::string& reason);
  // Quarantined/skipped files of `table` (or all) back to discovered, e.g. after a fix.
  Result<int64_t> Retry(const std::optional<std::string>& table);
  // These files (quarantined or skipped) back to discovered, all or none:
  // NotFound for an unknown uri, InvalidArgument for a file in another state.
  Status RetryFiles(const std::vector<std::string>& uris);
  // Forgets every file, batch, watermark and condition of `table` (a CDA
  // reload after a reset); batch ids keep increasing.
  Status ResetTable(const std::string& table);

  // Files matching the filter, ordered by table, order_key, uri.
  Result<std::vector<LedgerFile>> Files(const LedgerFilter& filter);
  // The state of each of `uris` the ledger knows (the others are absent).
  Result<std::map<std::string, FileState>> StatesOf(const std::vector<std::string>& uris);

  // Streams: per (stream, partition), the last position of any range the
  // ledger holds (in any state: a quarantined range was consumed too), so a
  // discovery continues right after it. Ranges of a partition never overlap
  // (RecordDiscovered refuses that), so what follows is new.
  Result<std::map<std::pair<std::string, std::string>, std::string>> StreamEnds();

  // --- For status and metrics: each call is one read whose cost is bounded
  // by what it returns (the units not yet committed, the batches of a time
  // window, one row per table), never by the ledger's history.

  // Per source table: its units not yet committed, by state.
  Result<std::map<std::string, TableBacklog>> Backlog();
  // Per source table: the sums of its committed batches' stats with
  // committed_at_ms >= since_ms (batches without stats count as zero).
  Result<std::map<std::string, BatchStats>> CommittedSince(int64_t since_ms);
  // Per source table: units quarantined (updated_at_ms) at or after since_ms.
  Result<std::map<std::string, int64_t>> QuarantinedSince(int64_t since_ms);
  // At most `limit` units in `state`, the most recently changed first.
  Result<std::vector<LedgerFile>> NewestFiles(FileState state, int64_t limit);
  // Per source table: its newest committed batch (any snapshot, 0 included).
  Result<std::map<std::string, BatchRecord>> LastCommittedBatches();
  // Batches, newest first: at most `limit`, and only those created at or
  // after since_ms.
  Result<std::vector<BatchRecord>> RecentBatches(int64_t since_ms, int64_t limit);
  // Records a table's condition (see TableCondition); `since_ms` is kept
  // while the state and reason stay the same.
  Status SetTableCondition(const std::string& table, const std::string& state, const std::string& reason,
                           int64_t now_ms);
  // Forgets a table's condition (it committed again, or was reloaded).
  Status ClearTableCondition(const std::string& table);
  Result<std::map<std::string, TableCondition>> TableConditions();

  // Streams: per (stream, partition), the last position the ledger holds
  // (any state) and the last one its table holds everything up to
  // (committed, or set aside: a quarantined range was consumed too; empty
  // when none is). One pass over the ranges: for status, not per poll.
  struct StreamPosition {
    std::string recorded_last;
    std::string committed_last;
  };
  Result<std::map<std::pair<std::string, std::string>, StreamPosition>> StreamPositions();

  Result<std::optional<TableWatermark>> Watermark(const std::string& table);
  Status SetWatermark(const TableWatermark& watermark);
  // The watermarks of several tables in one transaction (one commit, not one
  // per table: a poll of a CDA root can move hundreds). Fenced as a whole:
  // if this worker no longer holds one of the tables, none is written.
  Status SetWatermarks(const std::vector<TableWatermark>& watermarks);
  // Every stored watermark, by table.
  Result<std::map<std::string, TableWatermark>> Watermarks();

 private:
  struct Impl;  // ledger_impl.h
  // RecordDiscovered (fenced, known files kept up to date) or, with
  // `for_holders`, RecordForHolders (unfenced, new files only).
  Result<DiscoverResult> RecordUnits(const std::vector<SourceUnit>& files, int64_t now_ms, bool for_holders);
  explicit Ledger(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::ingest
