// Creating and evolving table metadata the way Java's TableMetadata does.
//
// Contract: NewTableMetadata reassigns the schema's field ids as Java's
// TypeUtil.assignFreshIds does (a struct's direct members first, in order,
// then each member's nested types; list element, map key then value),
// remaps the partition spec (field ids from 1000) and sort order (order id
// 1, or 0 when unsorted) onto the new ids by column name. The builder
// applies changes to a base metadata and, when the base came from a file,
// records that file in metadata-log (trimmed to the table property
// write.metadata.previous-versions-max, default 100). Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/table_metadata.h"

namespace floe::iceberg {

inline constexpr const char* kPreviousVersionsMaxProperty = "write.metadata.previous-versions-max";
inline constexpr int kPreviousVersionsMaxDefault = 100;

// A copy of `schema` (schema-id 0) whose field ids are 1, 2, ... in Java's
// order. `old_to_new` (optional) receives the id mapping.
Schema AssignFreshIds(const Schema& schema, int32_t* last_column_id,
                      std::map<int32_t, int32_t>* old_to_new = nullptr);

// A new table's first metadata: fresh ids, spec-id 0, random table uuid,
// no snapshots. `now_ms` < 0 means the current time.
Result<TableMetadata> NewTableMetadata(const std::string& location, const Schema& schema,
                                       const PartitionSpec& spec, const SortOrder& sort_order,
                                       std::map<std::string, std::string> properties, int format_version = 2,
                                       int64_t now_ms = -1);

int64_t CurrentTimeMillis();

class TableMetadataBuilder {
 public:
  // `base_metadata_file` is where `base` was read from; empty if it was never written.
  explicit TableMetadataBuilder(TableMetadata base, std::string base_metadata_file = "");

  TableMetadataBuilder& SetProperties(const std::map<std::string, std::string>& updates);
  TableMetadataBuilder& RemoveProperties(const std::vector<std::string>& keys);
  // Adds a schema (reusing the id of an identical one) and returns its id;
  // last-column-id grows to cover it.
  Result<int32_t> AddSchema(Schema schema);
  Status SetCurrentSchema(int32_t schema_id);
  // Adds a snapshot: its sequence number must be last-sequence-number + 1
  // (v2+); in v3 its first-row-id must equal next-row-id, which then grows
  // by added-rows.
  Status AddSnapshot(Snapshot snapshot);
  // Points a branch at a known snapshot; moving main also sets the current
  // snapshot and appends to snapshot-log.
  Status SetBranchSnapshot(int64_t snapshot_id, const std::string& branch = kMainBranch);

  // Table-level changes a catalog commit may carry (REST TableUpdate actions).
  Status AssignUuid(const std::string& uuid);
  // Only upgrades (or keeps) the version; v3 starts next-row-id at 0.
  Status UpgradeFormatVersion(int format_version);
  TableMetadataBuilder& SetLocation(const std::string& location);
  // Adds a spec (reusing the id of one with identical fields), validated
  // against the current schema; last-partition-id grows to cover it.
  Result<int32_t> AddPartitionSpec(PartitionSpec spec);
  Status SetDefaultSpec(int32_t spec_id);
  // Adds a sort order (reusing an identical one; unsorted is always id 0).
  Result<int32_t> AddSortOrder(SortOrder order);
  Status SetDefaultSortOrder(int32_t order_id);
  // Creates or replaces a branch/tag; setting main also sets the current snapshot.
  Status SetRef(const std::string& name, const SnapshotRef& ref);
  // Removing main leaves the table without a current snapshot.
  Status RemoveRef(const std::string& name);
  // Drops snapshots, the refs pointing at them, their snapshot-log entries
  // and statistics. The current snapshot cannot be removed.
  Status RemoveSnapshots(const std::vector<int64_t>& snapshot_ids);
  // The metadata as changed so far (not validated, last-updated-ms not set).
  const TableMetadata& current() const { return next_; }

  // The new metadata, validated, with last-updated-ms = now_ms (< 0: now).
  Result<TableMetadata> Build(int64_t now_ms = -1);

 private:
  TableMetadata base_;
  TableMetadata next_;
  std::string base_metadata_file_;
};

}  // namespace floe::iceberg
