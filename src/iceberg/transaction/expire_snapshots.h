// ExpireSnapshots: removes old snapshots from the table metadata and reports
// which files only they needed.
//
// Contract: a snapshot is kept when a ref (branch or tag) points at it, when
// it is among the last N ancestors of a branch (RetainLast, else the branch's
// min-snapshots-to-keep, else history.expire.min-snapshots-to-keep, default
// 1), or when it is not older than the cutoff (ExpireOlderThan, else now -
// history.expire.max-snapshot-age-ms, default 5 days; when only explicit ids
// are given there is no age cutoff). ExpireSnapshotId of a ref's head is
// InvalidArgument. The current snapshot is never expired. The result lists
// the files no retained snapshot references — manifest lists, manifests, data
// and delete files of the expired snapshots — so the caller can delete them
// after the commit; the action deletes nothing itself. The commit requires
// the refs it saw to be unchanged and is recomputed on retry.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/table_metadata.h"
#include "io/file_io.h"

namespace floe::iceberg {

class Table;

inline constexpr const char* kMaxSnapshotAgeMsProperty = "history.expire.max-snapshot-age-ms";
inline constexpr const char* kMinSnapshotsToKeepProperty = "history.expire.min-snapshots-to-keep";
inline constexpr int64_t kMaxSnapshotAgeMsDefault = 5LL * 24 * 60 * 60 * 1000;

struct ExpiredFiles {
  std::vector<int64_t> expired_snapshot_ids;
  std::vector<std::string> manifest_lists;
  std::vector<std::string> manifests;
  std::vector<std::string> data_files;
  std::vector<std::string> delete_files;

  // Every path above, in one list.
  std::vector<std::string> AllPaths() const;
};

class ExpireSnapshots {
 public:
  explicit ExpireSnapshots(Table& table) : table_(table) {}

  ExpireSnapshots& ExpireOlderThan(int64_t timestamp_ms) {
    older_than_ms_ = timestamp_ms;
    return *this;
  }
  ExpireSnapshots& RetainLast(int count) {
    retain_last_ = count;
    return *this;
  }
  ExpireSnapshots& ExpireSnapshotId(int64_t snapshot_id) {
    explicit_ids_.insert(snapshot_id);
    return *this;
  }

  // The snapshot ids these settings would expire from `base`.
  Result<std::set<int64_t>> SelectExpired(const TableMetadata& base) const;
  // The files only the `expired` snapshots of `base` reference.
  static Result<ExpiredFiles> UnreachableFiles(FileIO& io, const TableMetadata& base,
                                               const std::set<int64_t>& expired);
  // Commits the removal; returns what is now unreferenced.
  Result<ExpiredFiles> Commit();

 private:
  Table& table_;
  std::optional<int64_t> older_than_ms_;
  std::optional<int> retain_last_;
  std::set<int64_t> explicit_ids_;
};

// Deletes the files of `expired`; returns the first failure after trying all.
Status DeleteExpiredFiles(FileIO& io, const ExpiredFiles& expired);

}  // namespace floe::iceberg
