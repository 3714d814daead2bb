// Table changes and commit preconditions, as the Iceberg REST catalog
// exchanges them (open-api/rest-catalog-open-api.yaml: TableUpdate,
// TableRequirement).
//
// Contract: JSON serde uses exactly the OpenAPI member names ("action" /
// "type" discriminators), so a REST client and server can share these types;
// parsing rejects unknown actions/types and wrong member types with
// Corruption naming the member. CheckRequirements returns CommitFailed naming
// the first requirement that does not hold (the caller reloads and retries);
// ApplyUpdates applies updates in order through TableMetadataBuilder, where
// id -1 in set-current-schema / set-default-spec / set-default-sort-order
// means "the one added last in this list of updates".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/spec/table_metadata.h"

namespace floe::iceberg {

namespace update {
struct AssignUuid {
  std::string uuid;
  bool operator==(const AssignUuid&) const = default;
};
struct UpgradeFormatVersion {
  int format_version = 2;
  bool operator==(const UpgradeFormatVersion&) const = default;
};
struct AddSchema {
  Schema schema;
  std::optional<int32_t> last_column_id;  // deprecated in the API; written when set
  bool operator==(const AddSchema&) const = default;
};
struct SetCurrentSchema {
  int32_t schema_id = -1;  // -1: the last schema added by this commit
  bool operator==(const SetCurrentSchema&) const = default;
};
struct AddSpec {
  PartitionSpec spec;
  bool operator==(const AddSpec&) const = default;
};
struct SetDefaultSpec {
  int32_t spec_id = -1;  // -1: the last spec added by this commit
  bool operator==(const SetDefaultSpec&) const = default;
};
struct AddSortOrder {
  SortOrder sort_order;
  bool operator==(const AddSortOrder&) const = default;
};
struct SetDefaultSortOrder {
  int32_t sort_order_id = -1;  // -1: the last order added by this commit
  bool operator==(const SetDefaultSortOrder&) const = default;
};
struct AddSnapshot {
  Snapshot snapshot;
  bool operator==(const AddSnapshot&) const = default;
};
struct SetSnapshotRef {
  std::string ref_name;
  SnapshotRef ref;
  bool operator==(const SetSnapshotRef&) const = default;
};
struct RemoveSnapshots {
  std::vector<int64_t> snapshot_ids;
  bool operator==(const RemoveSnapshots&) const = default;
};
struct RemoveSnapshotRef {
  std::string ref_name;
  bool operator==(const RemoveSnapshotRef&) const = default;
};
struct SetLocation {
  std::string location;
  bool operator==(const SetLocation&) const = default;
};
struct SetProperties {
  std::map<std::string, std::string> updates;
  bool operator==(const SetProperties&) const = default;
};
struct RemoveProperties {
  std::vector<std::string> removals;
  bool operator==(const RemoveProperties&) const = default;
};
}  // namespace update

using TableUpdate = std::variant<update::AssignUuid, update::UpgradeFormatVersion, update::AddSchema,
                                 update::SetCurrentSchema, update::AddSpec, update::SetDefaultSpec,
                                 update::AddSortOrder, update::SetDefaultSortOrder, update::AddSnapshot,
                                 update::SetSnapshotRef, update::RemoveSnapshots, update::RemoveSnapshotRef,
                                 update::SetLocation, update::SetProperties, update::RemoveProperties>;

namespace requirement {
struct AssertCreate {
  bool operator==(const AssertCreate&) const = default;
};
struct AssertTableUuid {
  std::string uuid;
  bool operator==(const AssertTableUuid&) const = default;
};
struct AssertRefSnapshotId {
  std::string ref;
  std::optional<int64_t> snapshot_id;  // nullopt: the ref must not exist
  bool operator==(const AssertRefSnapshotId&) const = default;
};
struct AssertLastAssignedFieldId {
  int32_t last_assigned_field_id = 0;
  bool operator==(const AssertLastAssignedFieldId&) const = default;
};
struct AssertCurrentSchemaId {
  int32_t current_schema_id = 0;
  bool operator==(const AssertCurrentSchemaId&) const = default;
};
struct AssertLastAssignedPartitionId {
  int32_t last_assigned_partition_id = 0;
  bool operator==(const AssertLastAssignedPartitionId&) const = default;
};
struct AssertDefaultSpecId {
  int32_t default_spec_id = 0;
  bool operator==(const AssertDefaultSpecId&) const = default;
};
struct AssertDefaultSortOrderId {
  int32_t default_sort_order_id = 0;
  bool operator==(const AssertDefaultSortOrderId&) const = default;
};
}  // namespace requirement

using TableRequirement =
    std::variant<requirement::AssertCreate, requirement::AssertTableUuid, requirement::AssertRefSnapshotId,
                 requirement::AssertLastAssignedFieldId, requirement::AssertCurrentSchemaId,
                 requirement::AssertLastAssignedPartitionId, requirement::AssertDefaultSpecId,
                 requirement::AssertDefaultSortOrderId>;

// The "action" / "type" discriminator of a value ("add-snapshot", "assert-create").
std::string TableUpdateAction(const TableUpdate& update);
std::string TableRequirementType(const TableRequirement& requirement);

// `format_version` selects how an add-snapshot's snapshot is written.
OrderedJson TableUpdateToJson(const TableUpdate& update, int format_version = 2);
Result<TableUpdate> TableUpdateFromJson(const Json& json, int format_version = 2);
OrderedJson TableRequirementToJson(const TableRequirement& requirement);
Result<TableRequirement> TableRequirementFromJson(const Json& json);

// Whether every requirement holds for `current` (nullptr: the table does not
// exist yet). CommitFailed names the first one that does not.
Status CheckRequirements(const TableMetadata* current, const std::vector<TableRequirement>& requirements);

// Applies `updates` in order to `base` (read from `base_file`, which goes
// into metadata-log; empty for a new table). Invalid updates are
// InvalidArgument naming the update.
Result<TableMetadata> ApplyUpdates(const TableMetadata& base, const std::string& base_file,
                                   const std::vector<TableUpdate>& updates, int64_t now_ms = -1);

}  // namespace floe::iceberg
