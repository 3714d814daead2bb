// Table maintenance: compaction, snapshot expiry, orphan-file removal and
// manifest rewrite for Iceberg tables floe writes (or any v2/v3 table).
//
// Contract: each operation works on one Table, reads only metadata and files
// the table references (orphan removal also lists the table location), and
// changes the table through one commit of the transaction layer, so it can
// run between ingest commits without fighting them. Files are deleted only
// after the commit that made them unreachable succeeded (never after
// CommitStateUnknown). A conflict with a concurrent commit (a replaced file
// went away, new deletes landed for it) is not an error: the operation gives
// up for this round, deletes what it wrote and says so in its report. With
// dry_run nothing is written or deleted; the report says what would be done.
// Beside a writer in the same process (the continuous pipeline), a
// CommitGate wraps each COMMIT PHASE (refresh, conflict checks, commit) so
// it can hold that writer's table lock; files are rewritten outside it. A
// StopRequested hook is polled between operations and between input files
// of a compaction: true ends the run with kCancelled, its new files deleted.
// Not thread-safe: one maintenance run per table at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/metastore.h"
#include "catalog/table/catalog.h"
#include "common/status.h"
#include "iceberg/transaction/table.h"

namespace floe::maintenance {

// Snapshot summary key and value marking maintenance commits.
inline constexpr const char* kMaintenanceSummaryKey = "floe.maintenance";
// Summary entries every maintenance commit copies from its parent snapshot:
// the stream positions `floe run` keeps in the table ("floe.stream-ends.<pipeline>",
// ingest/stream_positions.h), so they stay in the newest snapshot however
// many maintenance commits follow and whatever expiry removes.
inline constexpr const char* kCarriedSummaryPrefix = "floe.stream-ends.";
// Likewise the source position of a table kept from another table's commits
// (an [[aggregates]] table, a change feed: "floe.source-snapshot-id",
// "floe.source-sequence-number"), so that compacting it and expiring its
// older snapshots never makes it rebuild from its source.
inline constexpr const char* kCarriedSourceSummaryPrefix = "floe.source-";
// And an [[aggregates]] table's watermark state recorded with that position
// ("floe.aggregate-max-event-time", "floe.aggregate-late-changes"), read
// from the same snapshot: a maintenance commit that dropped it would close
// no window until new times came, and restart the late count.
inline constexpr const char* kCarriedAggregateSummaryPrefix = "floe.aggregate-";
inline constexpr const char* kTargetFileSizeProperty = "write.target-file-size-bytes";
inline constexpr int64_t kDefaultTargetFileSize = int64_t{128} << 20;

// Runs one commit phase and returns its status, or returns an error without
// running it (kCancelled: the caller is stopping). Empty: the phase runs as is.
using CommitGate = std::function<Status(const std::function<Status()>& commit_phase)>;
// True once the caller wants the run to stop; empty: never.
using StopRequested = std::function<bool()>;
// Entries a maintenance snapshot's summary carries besides floe's own, asked
// for inside the commit phase, so they describe the moment of the commit (a
// scale-out worker's floe.lease-epoch). Empty: none.
using CommitSummary = std::function<std::map<std::string, std::string>()>;

// `phase` through `gate` (directly when the gate is empty).
inline Status RunCommitPhase(const CommitGate& gate, const std::function<Status()>& phase) {
  return gate ? gate(phase) : phase();
}

struct CompactionOptions {
  // nullopt: the table property write.target-file-size-bytes, else 128 MiB.
  std::optional<int64_t> target_file_size;
  // A data file is small when its size < small_file_ratio * target size.
  double small_file_ratio = 0.75;
  // A partition's small files are bin-packed once there are at least this many.
  int min_input_files = 5;
  // Data files with deleted rows / rows >= this are rewritten with their
  // deletes applied. Data files with >= max_delete_files position delete
  // files applying to them (format v2: one per commit that deleted some of
  // their rows) but fewer deleted rows keep their data: the position delete
  // files of their partition are merged into one, which costs what the
  // deletes hold, not what the table holds.
  double delete_ratio_threshold = 0.2;
  int max_delete_files = 4;
  // Top-level columns the rewritten rows are sorted by (ascending, nulls first),
  // within runs of about one target file of input; empty: input order.
  std::vector<std::string> sort_columns;
  bool dry_run = false;
  CommitGate commit_gate;        // around refresh + new-deletes check + commit
  StopRequested stop_requested;  // polled before each input file is rewritten
  CommitSummary commit_summary;
};

// One partition's rewrite, planned or done.
struct CompactionGroup {
  int32_t spec_id = 0;
  std::string partition;  // "a=1/b=x", "" when unpartitioned
  int64_t input_files = 0;
  int64_t input_bytes = 0;
  int64_t input_delete_files = 0;  // delete files applying to the inputs
};

struct CompactionReport {
  std::vector<CompactionGroup> groups;
  int64_t data_files_rewritten = 0;
  int64_t data_files_added = 0;
  int64_t delete_files_removed = 0;
  int64_t rows_written = 0;
  // Position delete files merged into one per partition (data files with
  // max_delete_files or more of them but few deleted rows; see CompactTable).
  int64_t delete_files_merged = 0;
  int64_t delete_files_written = 0;
  std::optional<int64_t> snapshot_id;  // the committed "replace" snapshot
  std::string conflict;                // non-empty: gave up this round, why
};

struct ExpireOptions {
  // Ancestors of each branch kept however old (nullopt: the table's
  // history.expire.min-snapshots-to-keep, default 1).
  std::optional<int> retain_last = 10;
  // Snapshots at least this old are expired unless retained (nullopt: the
  // table's history.expire.max-snapshot-age-ms, default 5 days).
  std::optional<int64_t> max_snapshot_age_ms;
  bool dry_run = false;
  CommitGate commit_gate;  // around refresh + commit (files are deleted outside it)
};

struct ExpireReport {
  std::vector<int64_t> expired_snapshot_ids;
  std::vector<std::string> files;  // unreachable files, deleted unless dry_run
  int64_t files_deleted = 0;
};

inline constexpr int64_t kMinOrphanAgeMs = int64_t{3600} * 1000;

struct OrphanOptions {
  // Only files last modified before now - older_than_ms are removed; less
  // than one hour is refused unless `force` (a commit in flight writes files
  // no metadata names yet).
  int64_t older_than_ms = int64_t{3} * 24 * 3600 * 1000;
  bool force = false;
  bool dry_run = false;
  std::optional<int64_t> now_ms;  // nullopt: the clock
};

struct OrphanReport {
  int64_t files_listed = 0;
  int64_t files_referenced = 0;
  int64_t too_recent = 0;            // unreferenced but younger than the cutoff
  std::vector<std::string> orphans;  // deleted unless dry_run
  int64_t files_deleted = 0;
};

struct ManifestRewriteOptions {
  // Data manifests smaller than this are merged, per partition spec, into
  // manifests of about this size.
  int64_t target_manifest_size = int64_t{8} << 20;
  bool dry_run = false;
  CommitGate commit_gate;  // around refresh + commit
  CommitSummary commit_summary;
};

struct ManifestRewriteReport {
  int64_t manifests_replaced = 0;
  int64_t manifests_written = 0;
  std::optional<int64_t> snapshot_id;
  std::string conflict;
};

struct MaintenanceOptions {
  bool compact = true;
  bool rewrite_manifests = true;
  bool expire_snapshots = true;
  bool remove_orphans = true;
  CompactionOptions compaction;
  ManifestRewriteOptions manifests;
  ExpireOptions expire;
  OrphanOptions orphans;
  bool dry_run = false;  // overrides every operation's dry_run
  // Given to every operation (overriding theirs when set); stop is also
  // polled between operations (kCancelled: later operations do not run).
  CommitGate commit_gate;
  StopRequested stop_requested;
  CommitSummary commit_summary;  // given to the operations that commit a snapshot
};

struct MaintenanceReport {
  CompactionReport compaction;
  ManifestRewriteReport manifests;
  ExpireReport expire;
  OrphanReport orphans;

  // One line per operation, for logs ("compaction: 12 files -> 1 in 1 partition, ...").
  std::string ToString() const;
};

// Bin-packs small files and rewrites files with many deletes (see CompactionOptions).
Result<CompactionReport> CompactTable(iceberg::Table& table, const CompactionOptions& options);

// Expires snapshots and deletes the files only they referenced.
Result<ExpireReport> ExpireTableSnapshots(iceberg::Table& table, const ExpireOptions& options);

// Deletes files under the table location that no metadata references.
Result<OrphanReport> RemoveOrphanFiles(iceberg::Table& table, const OrphanOptions& options);

// Merges small data manifests of the current snapshot.
Result<ManifestRewriteReport> RewriteTableManifests(iceberg::Table& table,
                                                    const ManifestRewriteOptions& options);

// Compaction, manifest rewrite, expiry and orphan removal, in that order, on one table.
Result<MaintenanceReport> MaintainTable(iceberg::Table& table, const MaintenanceOptions& options);
Result<MaintenanceReport> MaintainTable(catalog::Catalog& catalog, const catalog::TableIdentifier& table,
                                        const MaintenanceOptions& options);

}  // namespace floe::maintenance
