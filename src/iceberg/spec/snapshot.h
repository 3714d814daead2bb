// Iceberg snapshots and snapshot references (branches and tags).
//
// Contract: a Snapshot mirrors the metadata JSON object for format versions
// 1-3: v1 snapshots may list manifests inline instead of a manifest list and
// may lack a summary; v2+ require sequence-number, manifest-list and a
// summary with "operation"; v3 adds first-row-id and added-rows. Summary
// values are strings. Ids are exact int64.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/json_util.h"

namespace floe::iceberg {

inline constexpr const char* kOperationAppend = "append";
inline constexpr const char* kOperationReplace = "replace";
inline constexpr const char* kOperationOverwrite = "overwrite";
inline constexpr const char* kOperationDelete = "delete";

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;  // 0 for v1 snapshots
  int64_t timestamp_ms = 0;
  std::string manifest_list;                   // empty only for v1 snapshots using `manifests`
  std::vector<std::string> manifests;          // v1 only
  std::map<std::string, std::string> summary;  // includes "operation"
  std::optional<int32_t> schema_id;
  std::optional<int64_t> first_row_id;  // v3
  std::optional<int64_t> added_rows;    // v3
  std::optional<std::string> key_id;    // v3 encryption

  // summary["operation"], or "" when absent.
  std::string operation() const;
  bool operator==(const Snapshot& other) const = default;
};

struct SnapshotRef {
  enum class Kind : uint8_t { kBranch, kTag };
  int64_t snapshot_id = 0;
  Kind kind = Kind::kBranch;
  std::optional<int32_t> min_snapshots_to_keep;  // branches only
  std::optional<int64_t> max_snapshot_age_ms;    // branches only
  std::optional<int64_t> max_ref_age_ms;

  static SnapshotRef Branch(int64_t snapshot_id) {
    return SnapshotRef{snapshot_id, Kind::kBranch, {}, {}, {}};
  }
  static SnapshotRef Tag(int64_t snapshot_id) { return SnapshotRef{snapshot_id, Kind::kTag, {}, {}, {}}; }
  bool operator==(const SnapshotRef& other) const = default;
};

inline constexpr const char* kMainBranch = "main";

OrderedJson SnapshotToJson(const Snapshot& snapshot, int format_version);
Result<Snapshot> SnapshotFromJson(const Json& json, int format_version);
OrderedJson SnapshotRefToJson(const SnapshotRef& ref);
Result<SnapshotRef> SnapshotRefFromJson(const Json& json);

}  // namespace floe::iceberg
