#include "iceberg/spec/table_metadata_builder.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <set>

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

Status TableMetadataBuilder::AssignUuid(const std::string& uuid) {
  if (uuid.empty()) return Status::InvalidArgument("table uuid must not be empty");
  next_.table_uuid = uuid;
  return Status::OK();
}

Status TableMetadataBuilder::UpgradeFormatVersion(int format_version) {
  if (format_version < next_.format_version) {
    return Status::InvalidArgument("cannot downgrade format version " + std::to_string(next_.format_version) +
                                   " to " + std::to_string(format_version));
  }
  if (format_version > 3) {
    return Status::NotSupported("format version " + std::to_string(format_version) + " is not supported");
  }
  if (format_version >= 2 && next_.table_uuid.empty()) next_.table_uuid = NewUuidV4();
  if (format_version >= 3 && !next_.next_row_id) next_.next_row_id = 0;
  next_.format_version = format_version;
  return Status::OK();
}

TableMetadataBuilder& TableMetadataBuilder::SetLocation(const std::string& location) {
  next_.location = location;
  while (!next_.location.empty() && next_.location.back() == '/') next_.location.pop_back();
  return *this;
}

Result<int32_t> TableMetadataBuilder::AddPartitionSpec(PartitionSpec spec) {
  const Schema* schema = next_.CurrentSchema();
  if (schema == nullptr) return Status::InvalidArgument("table has no current schema");
  FLOE_RETURN_IF_ERROR(spec.Validate(*schema).WithContext("partition spec"));
  for (const auto& existing : next_.partition_specs) {
    if (existing.fields == spec.fields) return existing.spec_id;
  }
  int32_t highest = -1;
  for (const auto& existing : next_.partition_specs) highest = std::max(highest, existing.spec_id);
  if (highest == std::numeric_limits<int32_t>::max()) return Status::OutOfRange("no partition spec id left");
  spec.spec_id = highest + 1;
  next_.last_partition_id = std::max(next_.last_partition_id, spec.LastAssignedFieldId());
  next_.partition_specs.push_back(std::move(spec));
  return highest + 1;
}

Status TableMetadataBuilder::SetDefaultSpec(int32_t spec_id) {
  if (next_.SpecById(spec_id) == nullptr) {
    return Status::InvalidArgument("partition spec id " + std::to_string(spec_id) + " is not in the table");
  }
  next_.default_spec_id = spec_id;
  return Status::OK();
}

Result<int32_t> TableMetadataBuilder::AddSortOrder(SortOrder order) {
  if (order.is_unsorted()) {
    if (next_.SortOrderById(0) == nullptr) next_.sort_orders.push_back(SortOrder::Unsorted());
    return 0;
  }
  const Schema* schema = next_.CurrentSchema();
  if (schema == nullptr) return Status::InvalidArgument("table has no current schema");
  for (const auto& existing : next_.sort_orders) {
    if (existing.fields == order.fields) return existing.order_id;
  }
  int32_t highest = 0;
  for (const auto& existing : next_.sort_orders) highest = std::max(highest, existing.order_id);
  if (highest == std::numeric_limits<int32_t>::max()) return Status::OutOfRange("no sort order id left");
  order.order_id = highest + 1;
  FLOE_RETURN_IF_ERROR(order.Validate(*schema).WithContext("sort order"));
  next_.sort_orders.push_back(std::move(order));
  return highest + 1;
}

Status TableMetadataBuilder::SetDefaultSortOrder(int32_t order_id) {
  if (next_.SortOrderById(order_id) == nullptr) {
    return Status::InvalidArgument("sort order id " + std::to_string(order_id) + " is not in the table");
  }
  next_.default_sort_order_id = order_id;
  return Status::OK();
}

Status TableMetadataBuilder::SetRef(const std::string& name, const SnapshotRef& ref) {
  if (name.empty()) return Status::InvalidArgument("ref name must not be empty");
  const Snapshot* snapshot = next_.SnapshotById(ref.snapshot_id);
  if (snapshot == nullptr) {
    return Status::InvalidArgument("ref '" + name + "': snapshot id " + std::to_string(ref.snapshot_id) +
                                   " is not in the table");
  }
  if (name == kMainBranch && ref.kind != SnapshotRef::Kind::kBranch) {
    return Status::InvalidArgument("ref 'main' must be a branch");
  }
  const bool moved = !next_.refs.count(name) || next_.refs[name].snapshot_id != ref.snapshot_id;
  next_.refs[name] = ref;
  if (name == kMainBranch) {
    next_.current_snapshot_id = ref.snapshot_id;
    if (moved) next_.snapshot_log.push_back(SnapshotLogEntry{snapshot->timestamp_ms, ref.snapshot_id});
  }
  return Status::OK();
}

Status TableMetadataBuilder::RemoveRef(const std::string& name) {
  if (next_.refs.erase(name) == 0) return Status::OK();
  if (name == kMainBranch) next_.current_snapshot_id.reset();
  return Status::OK();
}

Status TableMetadataBuilder::RemoveSnapshots(const std::vector<int64_t>& snapshot_ids) {
  std::set<int64_t> removed(snapshot_ids.begin(), snapshot_ids.end());
  if (next_.current_snapshot_id && removed.count(*next_.current_snapshot_id)) {
    return Status::InvalidArgument("cannot remove the current snapshot " +
                                   std::to_string(*next_.current_snapshot_id));
  }
  std::erase_if(next_.snapshots, [&](const Snapshot& s) { return removed.count(s.snapshot_id) > 0; });
  std::erase_if(next_.refs, [&](const auto& ref) { return removed.count(ref.second.snapshot_id) > 0; });
  std::erase_if(next_.snapshot_log,
                [&](const SnapshotLogEntry& e) { return removed.count(e.snapshot_id) > 0; });
  std::erase_if(next_.statistics, [&](const StatisticsFile& f) { return removed.count(f.snapshot_id) > 0; });
  std::erase_if(next_.partition_statistics,
                [&](const PartitionStatisticsFile& f) { return removed.count(f.snapshot_id) > 0; });
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
