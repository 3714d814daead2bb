#include "iceberg/spec/table_metadata_builder.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>

#include "iceberg/spec/random_ids.h"

namespace floe::iceberg {

namespace {

void AssignFreshIdsToFields(std::vector<NestedField>& fields, int32_t* last_column_id,
                            std::map<int32_t, int32_t>* old_to_new) {
  for (auto& f : fields) {
    int32_t fresh = ++*last_column_id;
    if (old_to_new != nullptr) (*old_to_new)[f.id] = fresh;
    f.id = fresh;
  }
  for (auto& f : fields) {
    // A list's element and a map's key/value are one level: ids first, then their types.
    AssignFreshIdsToFields(f.type.fields, last_column_id, old_to_new);
  }
}

}  // namespace

int64_t CurrentTimeMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Schema AssignFreshIds(const Schema& schema, int32_t* last_column_id, std::map<int32_t, int32_t>* old_to_new) {
  std::map<int32_t, int32_t> mapping;
  Schema fresh = schema;
  fresh.schema_id = 0;
  AssignFreshIdsToFields(fresh.fields, last_column_id, &mapping);
  for (auto& id : fresh.identifier_field_ids) {
    if (auto it = mapping.find(id); it != mapping.end()) id = it->second;
  }
  if (old_to_new != nullptr) *old_to_new = std::move(mapping);
  return fresh;
}

Result<TableMetadata> NewTableMetadata(const std::string& location, const Schema& schema,
                                       const PartitionSpec& spec, const SortOrder& sort_order,
                                       std::map<std::string, std::string> properties, int format_version,
                                       int64_t now_ms) {
  if (format_version < 1 || format_version > 3) {
    return Status::InvalidArgument("format version must be 1, 2 or 3, got " + std::to_string(format_version));
  }
  FLOE_RETURN_IF_ERROR(schema.Validate().WithContext("new table schema"));
  for (const auto& f : schema.fields) {
    if (MinFormatVersion(f.type) > format_version) {
      return Status::InvalidArgument("column '" + f.name + "' needs format version " +
                                     std::to_string(MinFormatVersion(f.type)));
    }
  }
  TableMetadata m;
  m.format_version = format_version;
  m.table_uuid = NewUuidV4();
  m.location = location;
  while (!m.location.empty() && m.location.back() == '/') m.location.pop_back();
  m.last_updated_ms = now_ms < 0 ? CurrentTimeMillis() : now_ms;
  std::map<int32_t, int32_t> old_to_new;
  int32_t last_column_id = 0;
  Schema fresh = AssignFreshIds(schema, &last_column_id, &old_to_new);
  m.last_column_id = last_column_id;
  m.current_schema_id = fresh.schema_id;
  m.schemas.push_back(fresh);

  PartitionSpec fresh_spec;
  fresh_spec.spec_id = 0;
  int32_t next_partition_id = kFirstPartitionFieldId;
  for (const auto& f : spec.fields) {
    auto it = old_to_new.find(f.source_id);
    if (it == old_to_new.end()) {
      return Status::InvalidArgument("partition field '" + f.name + "': source column id " +
                                     std::to_string(f.source_id) + " is not in the schema");
    }
    fresh_spec.fields.push_back(PartitionField{it->second, next_partition_id++, f.name, f.transform});
  }
  FLOE_RETURN_IF_ERROR(fresh_spec.Validate(fresh));
  m.last_partition_id = fresh_spec.LastAssignedFieldId();
  m.partition_specs.push_back(std::move(fresh_spec));
  m.default_spec_id = 0;

  SortOrder fresh_order;
  fresh_order.order_id = sort_order.is_unsorted() ? 0 : 1;
  for (const auto& f : sort_order.fields) {
    auto it = old_to_new.find(f.source_id);
    if (it == old_to_new.end()) {
      return Status::InvalidArgument("sort field: source column id " + std::to_string(f.source_id) +
                                     " is not in the schema");
    }
    SortField field = f;
    field.source_id = it->second;
    fresh_order.fields.push_back(field);
  }
  FLOE_RETURN_IF_ERROR(fresh_order.Validate(fresh));
  m.default_sort_order_id = fresh_order.order_id;
  m.sort_orders.push_back(std::move(fresh_order));

  properties.erase("format-version");  // a reserved property that selects the version, not stored
  m.properties = std::move(properties);
  if (format_version >= 3) m.next_row_id = 0;
  FLOE_RETURN_IF_ERROR(m.Validate());
  return m;
}

TableMetadataBuilder::TableMetadataBuilder(TableMetadata base, std::string base_metadata_file)
    : base_(std::move(base)), base_metadata_file_(std::move(base_metadata_file)) {
  next_ = base_;
}

TableMetadataBuilder& TableMetadataBuilder::SetProperties(const std::map<std::string, std::string>& updates) {
  for (const auto& [k, v] : updates) next_.properties[k] = v;
  return *this;
}

TableMetadataBuilder& TableMetadataBuilder::RemoveProperties(const std::vector<std::string>& keys) {
  for (const auto& k : keys) next_.properties.erase(k);
  return *this;
}

Result<int32_t> TableMetadataBuilder::AddSchema(Schema schema) {
  FLOE_RETURN_IF_ERROR(schema.Validate());
  for (const auto& existing : next_.schemas) {
    if (existing.fields == schema.fields && existing.identifier_field_ids == schema.identifier_field_ids) {
      return existing.schema_id;
    }
  }
  int32_t highest = -1;
  for (const auto& existing : next_.schemas) highest = std::max(highest, existing.schema_id);
  if (highest == std::numeric_limits<int32_t>::max()) return Status::OutOfRange("no schema id left");
  schema.schema_id = highest + 1;
  next_.last_column_id = std::max(next_.last_column_id, schema.HighestFieldId());
  next_.schemas.push_back(std::move(schema));
  return highest + 1;
}

Status TableMetadataBuilder::SetCurrentSchema(int32_t schema_id) {
  if (next_.SchemaById(schema_id) == nullptr) {
    return Status::InvalidArgument("schema id " + std::to_string(schema_id) + " is not in the table");
  }
  next_.current_schema_id = schema_id;
  return Status::OK();
}

Status TableMetadataBuilder::AddSnapshot(Snapshot snapshot) {
  if (next_.SnapshotById(snapshot.snapshot_id) != nullptr) {
    return Status::InvalidArgument("snapshot id " + std::to_string(snapshot.snapshot_id) + " already exists");
  }
  // Check everything before changing anything, so a rejected snapshot leaves the builder as it was.
  if (next_.format_version >= 2 && snapshot.sequence_number != next_.last_sequence_number + 1) {
    return Status::InvalidArgument(
        "snapshot sequence-number " + std::to_string(snapshot.sequence_number) +
        " must be last-sequence-number + 1 = " + std::to_string(next_.last_sequence_number + 1));
  }
  const int64_t next_row_id = next_.next_row_id.value_or(0);
  if (next_.format_version >= 3 && (!snapshot.first_row_id || *snapshot.first_row_id != next_row_id ||
                                    !snapshot.added_rows || *snapshot.added_rows < 0)) {
    return Status::InvalidArgument("v3 snapshot needs first-row-id = next-row-id (" +
                                   std::to_string(next_row_id) + ") and a non-negative added-rows");
  }
  if (next_.format_version >= 3 && *snapshot.added_rows > std::numeric_limits<int64_t>::max() - next_row_id) {
    return Status::OutOfRange("next-row-id would overflow a long");
  }
  if (next_.format_version >= 2) next_.last_sequence_number = snapshot.sequence_number;
  if (next_.format_version >= 3) next_.next_row_id = next_row_id + *snapshot.added_rows;
  next_.snapshots.push_back(std::move(snapshot));
  return Status::OK();
}

Status TableMetadataBuilder::SetBranchSnapshot(int64_t snapshot_id, const std::string& branch) {
  const Snapshot* snapshot = next_.SnapshotById(snapshot_id);
  if (snapshot == nullptr) {
    return Status::InvalidArgument("snapshot id " + std::to_string(snapshot_id) + " is not in the table");
  }
  auto it = next_.refs.find(branch);
  if (it != next_.refs.end() && it->second.kind != SnapshotRef::Kind::kBranch) {
    return Status::InvalidArgument("ref '" + branch + "' is a tag, not a branch");
  }
  if (it == next_.refs.end()) {
    next_.refs[branch] = SnapshotRef::Branch(snapshot_id);
  } else {
    it->second.snapshot_id = snapshot_id;
  }
  if (branch == kMainBranch) {
    next_.current_snapshot_id = snapshot_id;
    next_.snapshot_log.push_back(SnapshotLogEntry{snapshot->timestamp_ms, snapshot_id});
  }
  return Status::OK();
}

Result<TableMetadata> TableMetadataBuilder::Build(int64_t now_ms) {
  TableMetadata out = next_;
  out.last_updated_ms = now_ms < 0 ? CurrentTimeMillis() : now_ms;
  if (!base_metadata_file_.empty()) {
    out.metadata_log.push_back(MetadataLogEntry{base_.last_updated_ms, base_metadata_file_});
    int keep = kPreviousVersionsMaxDefault;
    std::string configured = out.Property(kPreviousVersionsMaxProperty, "");
    int parsed = 0;
    auto [ptr, ec] = std::from_chars(configured.data(), configured.data() + configured.size(), parsed);
    if (!configured.empty() && ec == std::errc() && ptr == configured.data() + configured.size()) {
      keep = std::max(1, parsed);
    }
    if (out.metadata_log.size() > static_cast<size_t>(keep)) {
      out.metadata_log.erase(out.metadata_log.begin(),
                             out.metadata_log.end() - static_cast<std::ptrdiff_t>(keep));
    }
  }
  FLOE_RETURN_IF_ERROR(out.Validate());
  return out;
}

}  // namespace floe::iceberg
