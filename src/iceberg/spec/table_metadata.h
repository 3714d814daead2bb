// Iceberg table metadata (the metadata.json file), format versions 1-3.
//
// Contract: reading accepts v1 (including the legacy top-level "schema" and
// "partition-spec" when the list forms are absent), v2 and v3; unknown
// members are ignored; a missing required member or a wrong JSON type is
// Corruption naming the member, with the caller's context (the file name)
// prefixed. Writing produces v2 or v3 exactly as the writer checklist asks:
// no deprecated top-level fields, current-snapshot-id -1 (v2) or null (v3)
// when there is no snapshot, refs.main present whenever a snapshot is
// current, int64 ids written exactly.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/spec/partition_spec.h"
#include "iceberg/spec/schema.h"
#include "iceberg/spec/snapshot.h"
#include "iceberg/spec/sort_order.h"

namespace floe::iceberg {

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
  bool operator==(const SnapshotLogEntry& other) const = default;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
  bool operator==(const MetadataLogEntry& other) const = default;
};

struct BlobMetadata {
  std::string type;
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  std::vector<int32_t> fields;
  std::map<std::string, std::string> properties;
  bool operator==(const BlobMetadata& other) const = default;
};

// A Puffin statistics file of one snapshot ("statistics").
struct StatisticsFile {
  int64_t snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  int64_t file_footer_size_in_bytes = 0;
  std::optional<std::string> key_metadata;
  std::vector<BlobMetadata> blob_metadata;
  bool operator==(const StatisticsFile& other) const = default;
};

// A partition statistics file of one snapshot ("partition-statistics").
struct PartitionStatisticsFile {
  int64_t snapshot_id = 0;
  std::string statistics_path;
  int64_t file_size_in_bytes = 0;
  bool operator==(const PartitionStatisticsFile& other) const = default;
};

struct TableMetadata {
  int format_version = 2;
  std::string table_uuid;  // may be empty only in v1 files
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int32_t last_column_id = 0;
  std::vector<Schema> schemas;
  int32_t current_schema_id = 0;
  std::vector<PartitionSpec> partition_specs;
  int32_t default_spec_id = 0;
  int32_t last_partition_id = kFirstPartitionFieldId - 1;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;  // nullopt: no current snapshot
  std::vector<Snapshot> snapshots;
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;
  std::vector<SortOrder> sort_orders;
  int32_t default_sort_order_id = 0;
  std::map<std::string, SnapshotRef> refs;
  std::vector<StatisticsFile> statistics;
  std::vector<PartitionStatisticsFile> partition_statistics;
  std::optional<int64_t> next_row_id;   // v3
  std::optional<Json> encryption_keys;  // v3, kept verbatim

  const Schema* CurrentSchema() const { return SchemaById(current_schema_id); }
  const Schema* SchemaById(int32_t schema_id) const;
  const PartitionSpec* DefaultSpec() const { return SpecById(default_spec_id); }
  const PartitionSpec* SpecById(int32_t spec_id) const;
  const SortOrder* DefaultSortOrder() const { return SortOrderById(default_sort_order_id); }
  const SortOrder* SortOrderById(int32_t order_id) const;
  const Snapshot* CurrentSnapshot() const;
  const Snapshot* SnapshotById(int64_t snapshot_id) const;
  std::string Property(const std::string& key, const std::string& fallback) const;

  // Cross-references hold: current/default ids exist, the current snapshot
  // exists and matches refs.main, refs point at known snapshots, snapshots
  // do not exceed last-sequence-number, no snapshot's parent chain loops
  // (snapshot_ancestry.h), schemas and specs are valid.
  Status Validate() const;

  bool operator==(const TableMetadata& other) const = default;
};

// Parses metadata JSON text; errors are prefixed with `context` (the file).
Result<TableMetadata> TableMetadataFromJson(std::string_view text, std::string_view context);
Result<TableMetadata> TableMetadataFromJsonValue(const Json& json);

// Serializes for metadata.format_version (2 or 3), validating first.
// A missing refs.main is added for the current snapshot.
Result<OrderedJson> TableMetadataToJsonValue(const TableMetadata& metadata);
// Pretty-printed with two-space indentation.
Result<std::string> TableMetadataToJson(const TableMetadata& metadata);

}  // namespace floe::iceberg
