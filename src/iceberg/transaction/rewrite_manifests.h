// RewriteManifests: merges the current snapshot's small data manifests into
// fewer, larger ones, as one "replace" snapshot with exactly the same live
// files.
//
// Contract: per partition spec, data manifests shorter than the target size
// are packed in manifest-list order into groups of about the target size;
// every group of two or more becomes one manifest whose entries are the live
// (ADDED/EXISTING) entries of its inputs written as EXISTING with their
// snapshot id and both sequence numbers kept (DELETED entries are dropped:
// they describe changes of older snapshots). Delete manifests and large
// manifests are carried over unchanged. With nothing to merge no snapshot is
// committed. Each attempt re-plans against the table it commits on and
// requires main to still point at that snapshot; a retryable CommitFailed
// deletes the attempt's files and retries, a final failure deletes them,
// CommitStateUnknown keeps them. Format version 3 tables are NotSupported
// (merged entries would need their inherited first_row_id made explicit).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/snapshot.h"

namespace floe::iceberg {

class Table;

inline constexpr const char* kManifestTargetSizeProperty = "commit.manifest.target-size-bytes";
inline constexpr int64_t kManifestTargetSizeDefault = int64_t{8} << 20;

struct RewrittenManifests {
  int64_t manifests_replaced = 0;
  int64_t manifests_written = 0;
  int64_t entries_rewritten = 0;
  std::optional<Snapshot> snapshot;  // nullopt: nothing to merge, nothing committed
};

class RewriteManifests {
 public:
  explicit RewriteManifests(Table& table) : table_(table) {}

  // Default: the table property commit.manifest.target-size-bytes, else 8 MiB.
  RewriteManifests& TargetManifestSize(int64_t bytes) {
    target_size_ = bytes;
    return *this;
  }
  RewriteManifests& Set(const std::string& key, const std::string& value) {
    extra_summary_[key] = value;
    return *this;
  }
  // The parent's summary entries under `prefix` carry over (CarrySummaryEntries).
  RewriteManifests& CarryFromParent(const std::string& prefix) {
    carried_prefixes_.push_back(prefix);
    return *this;
  }

  // What Commit would merge on the table's current state; writes nothing.
  Result<RewrittenManifests> Plan() const;
  Result<RewrittenManifests> Commit();

 private:
  Table& table_;
  std::optional<int64_t> target_size_;
  std::map<std::string, std::string> extra_summary_;
  std::vector<std::string> carried_prefixes_;
};

}  // namespace floe::iceberg
