// Snapshot expiry: ExpireSnapshots commits the removal from the metadata and
// names the files only expired snapshots referenced; they are deleted after
// the commit succeeded (a dry run computes the same sets without committing).
#include <set>

#include "iceberg/spec/table_metadata_builder.h"
#include "maintenance/maintenance.h"

namespace floe::maintenance {

Result<ExpireReport> ExpireTableSnapshots(iceberg::Table& table, const ExpireOptions& options) {
  if (options.retain_last && *options.retain_last < 1) {
    return Status::InvalidArgument(
        "expire: retain last must be at least 1 (the current snapshot is always kept)");
  }
  if (options.max_snapshot_age_ms && *options.max_snapshot_age_ms < 0) {
    return Status::InvalidArgument("expire: max snapshot age must not be negative");
  }
  iceberg::ExpireSnapshots action = table.NewExpireSnapshots();
  if (options.retain_last) action.RetainLast(*options.retain_last);
  if (options.max_snapshot_age_ms) {
    action.ExpireOlderThan(iceberg::CurrentTimeMillis() - *options.max_snapshot_age_ms);
  }
  ExpireReport report;
  iceberg::ExpiredFiles expired;
  if (options.dry_run) {
    FLOE_ASSIGN_OR_RETURN(std::set<int64_t> ids, action.SelectExpired(table.metadata()));
    FLOE_ASSIGN_OR_RETURN(expired,
                          iceberg::ExpireSnapshots::UnreachableFiles(table.io(), table.metadata(), ids));
  } else {
    // Refreshed inside the gate so the commit's first attempt is on the latest metadata.
    FLOE_RETURN_IF_ERROR(RunCommitPhase(options.commit_gate, [&]() -> Status {
      FLOE_RETURN_IF_ERROR(table.Refresh());
      FLOE_ASSIGN_OR_RETURN(expired, action.Commit());
      return Status::OK();
    }));
  }
  report.expired_snapshot_ids = expired.expired_snapshot_ids;
  report.files = expired.AllPaths();
  if (options.dry_run || report.expired_snapshot_ids.empty()) return report;
  // The snapshots are gone from the metadata; a file that fails to delete is only an orphan now.
  for (const std::string& path : report.files) {
    Status status = table.io().Delete(path);
    if (status.ok() || status.kind() == ErrorKind::kNotFound) {
      ++report.files_deleted;
    } else {
      return status.WithContext("deleting expired file " + path + " (snapshots already expired)");
    }
  }
  return report;
}

}  // namespace floe::maintenance
