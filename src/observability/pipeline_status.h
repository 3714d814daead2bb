// PipelineStatus: how far behind each table of a pipeline is, what failed
// and why — `floe status`, GET /api/status and the dashboard.
//
// Contract: ComputePipelineStatus reads the ledger (read-only: it works
// beside a running `floe run` and on a pipeline that is not running), the
// tables' metadata through `catalog` (nullptr: no table details), and, for
// a stream source, the positions the source holds (`stream_marks`, or
// asked of the brokers when `query_streams`). Per source table: the state
// ("stopped" or "failing" with the reason the pipeline recorded; else
// "ingesting" while a batch is open, "pending" with units waiting, "ok"),
// the backlog (files, bytes, the oldest pending unit's age), the last
// committed batch and its snapshot, seconds since then, what the last hour
// and day committed (rows by kind, files, quarantined units), and
// maintenance figures from the table's current snapshot (data and delete
// files, records, the small-file ratio under [maintenance]'s threshold,
// the last compaction). Pipeline-wide: whether a process holds the state
// dir (its pid), stream partitions with committed offset, high watermark
// and lag, the newest batches, the newest quarantined units with reasons,
// maintenance commits, an hourly history of committed rows and commit
// times, and every error met while collecting (a catalog or broker that
// does not answer is an error in the status, not a failure of it). Every
// ledger read is bounded (ledger.h); the table reads load each table's
// metadata once and read its live files' manifests only when
// `small_files` is set (cached by the caller per snapshot).
// Not thread-safe (a ledger and a catalog are not); the result is a value.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/state/ledger.h"
#include "ingest/state/worker_leases.h"
#include "ingest/stream_lag.h"

namespace floe::observability {

struct MaintenanceStatus {
  bool table_exists = false;
  std::optional<int64_t> current_snapshot_id;
  std::optional<int64_t> snapshot_timestamp_ms;
  int64_t data_files = 0;
  int64_t delete_files = 0;
  int64_t records = 0;
  int64_t bytes = 0;
  // Data files smaller than [maintenance] small_file_ratio of the target size.
  std::optional<int64_t> small_files;
  std::optional<double> small_file_ratio;  // small_files / data_files
  std::optional<int64_t> last_compaction_ms;
  std::optional<int64_t> last_compaction_snapshot_id;
  std::string error;  // the table could not be read
};

struct TableStatus {
  std::string source_table;
  std::string target;  // namespace.table
  std::string state;   // "stopped", "failing", "ingesting", "pending", "ok"
  std::string reason;
  std::optional<int64_t> state_since_ms;
  ingest::TableBacklog backlog;
  std::optional<int64_t> oldest_pending_age_s;
  std::optional<int64_t> open_batch_id;  // a batch in progress (or left by a crash)
  std::optional<ingest::BatchRecord> last_batch;
  std::optional<int64_t> seconds_since_commit;
  ingest::BatchStats last_hour;
  ingest::BatchStats last_day;
  int64_t quarantined_last_hour = 0;
  int64_t quarantined_last_day = 0;
  MaintenanceStatus maintenance;
};

struct MaintenanceRun {
  std::string target;
  int64_t snapshot_id = 0;
  int64_t timestamp_ms = 0;
  std::string kind;  // the floe.maintenance summary value: "compaction", "rewrite-manifests", ...
  std::string operation;
};

// Committed batches of one hour.
struct HistoryBucket {
  int64_t start_ms = 0;
  int64_t batches = 0;
  int64_t rows = 0;  // inserted + updated + deleted
  int64_t max_commit_ms = 0;
  int64_t total_commit_ms = 0;
};

struct PipelineStatus {
  std::string pipeline;
  std::string config_path;
  std::string state_dir;
  std::string source_uri;
  int64_t now_ms = 0;
  std::optional<int64_t> running_pid;  // a live process holds the state dir
  std::vector<TableStatus> tables;
  bool has_streams = false;
  std::vector<ingest::StreamPartitionLag> streams;
  std::vector<ingest::BatchRecord> recent_batches;
  std::vector<ingest::LedgerFile> quarantined;
  std::vector<MaintenanceRun> maintenance_runs;
  std::vector<HistoryBucket> history;
  // Scale-out ([state] uri): the pipeline's workers and table leases.
  bool has_workers = false;
  std::vector<ingest::WorkerRecord> workers;
  std::vector<ingest::LeaseRecord> leases;
  std::vector<std::string> errors;
};

struct StatusOptions {
  int64_t now_ms = 0;  // 0: the clock
  // Table details (metadata) through this catalog; nullptr: none.
  catalog::Catalog* catalog = nullptr;
  // Count small files (reads each table's manifests).
  bool small_files = true;
  // Stream positions: given (a running pipeline's, PipelineMetrics), or
  // asked of the brokers when `query_streams`.
  std::optional<std::vector<ingest::StreamPartitionLag>> stream_lag;
  bool query_streams = true;
  int64_t recent_batches = 50;
  int64_t recent_quarantined = 50;
  int64_t history_hours = 6;
  // Small-file counts already known per (target, snapshot id) (the server's cache).
  std::function<std::optional<int64_t>(const std::string& target, int64_t snapshot_id)> cached_small_files;
};

Result<PipelineStatus> ComputePipelineStatus(const ingest::PipelineConfig& config, ingest::Ledger& ledger,
                                             const StatusOptions& options);

// The pid of the process holding <state dir>/ledger.lock (a running `floe
// run`, or a `floe files` that writes), from /proc/locks; nullopt when none.
std::optional<int64_t> RunningPid(const std::string& state_dir);

}  // namespace floe::observability
