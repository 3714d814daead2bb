#include "iceberg/spec/table_metadata.h"

#include <set>

#include "iceberg/spec/snapshot_ancestry.h"

namespace floe::iceberg {

const Schema* TableMetadata::SchemaById(int32_t schema_id) const {
  for (const auto& s : schemas) {
    if (s.schema_id == schema_id) return &s;
  }
  return nullptr;
}

const PartitionSpec* TableMetadata::SpecById(int32_t spec_id) const {
  for (const auto& s : partition_specs) {
    if (s.spec_id == spec_id) return &s;
  }
  return nullptr;
}

const SortOrder* TableMetadata::SortOrderById(int32_t order_id) const {
  for (const auto& o : sort_orders) {
    if (o.order_id == order_id) return &o;
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  return current_snapshot_id ? SnapshotById(*current_snapshot_id) : nullptr;
}

const Snapshot* TableMetadata::SnapshotById(int64_t snapshot_id) const {
  for (const auto& s : snapshots) {
    if (s.snapshot_id == snapshot_id) return &s;
  }
  return nullptr;
}

std::string TableMetadata::Property(const std::string& key, const std::string& fallback) const {
  auto it = properties.find(key);
  return it == properties.end() ? fallback : it->second;
}

Status TableMetadata::Validate() const {
  if (format_version < 1 || format_version > 3) {
    return Status::NotSupported("format-version " + std::to_string(format_version) + " is not supported");
  }
  if (format_version >= 2 && table_uuid.empty())
    return Status::Corruption("missing required field 'table-uuid'");
  std::set<int32_t> schema_ids;
  for (const auto& s : schemas) {
    if (!schema_ids.insert(s.schema_id).second) {
      return Status::Corruption("schema id " + std::to_string(s.schema_id) + " appears twice");
    }
    FLOE_RETURN_IF_ERROR(s.Validate());
  }
  const Schema* current = CurrentSchema();
  if (current == nullptr) {
    return Status::Corruption("current-schema-id " + std::to_string(current_schema_id) +
                              " is not in 'schemas'");
  }
  std::set<int32_t> spec_ids;
  for (const auto& spec : partition_specs) {
    if (!spec_ids.insert(spec.spec_id).second) {
      return Status::Corruption("partition spec id " + std::to_string(spec.spec_id) + " appears twice");
    }
    for (const auto& f : spec.fields) {
      if (f.field_id > last_partition_id) {
        return Status::Corruption("partition field id " + std::to_string(f.field_id) +
                                  " exceeds last-partition-id " + std::to_string(last_partition_id));
      }
    }
  }
  if (DefaultSpec() == nullptr) {
    return Status::Corruption("default-spec-id " + std::to_string(default_spec_id) +
                              " is not in 'partition-specs'");
  }
  if (DefaultSortOrder() == nullptr) {
    return Status::Corruption("default-sort-order-id " + std::to_string(default_sort_order_id) +
                              " is not in 'sort-orders'");
  }
  if (current->HighestFieldId() > last_column_id) {
    return Status::Corruption("current schema uses field id " + std::to_string(current->HighestFieldId()) +
                              " above last-column-id " + std::to_string(last_column_id));
  }
  std::set<int64_t> snapshot_ids;
  for (const auto& s : snapshots) {
    if (!snapshot_ids.insert(s.snapshot_id).second) {
      return Status::Corruption("snapshot id " + std::to_string(s.snapshot_id) + " appears twice");
    }
    if (format_version >= 2 && s.sequence_number > last_sequence_number) {
      return Status::Corruption("snapshot " + std::to_string(s.snapshot_id) + " has sequence-number " +
                                std::to_string(s.sequence_number) + " above last-sequence-number " +
                                std::to_string(last_sequence_number));
    }
  }
  // Another engine's metadata is untrusted: a parent cycle would make every history walk meaningless.
  FLOE_RETURN_IF_ERROR(CheckSnapshotLineage(snapshots));
  if (current_snapshot_id && CurrentSnapshot() == nullptr) {
    return Status::Corruption("current-snapshot-id " + std::to_string(*current_snapshot_id) +
                              " is not in 'snapshots'");
  }
  for (const auto& [name, ref] : refs) {
    if (SnapshotById(ref.snapshot_id) == nullptr) {
      return Status::Corruption("ref '" + name + "' points at unknown snapshot " +
                                std::to_string(ref.snapshot_id));
    }
  }
  if (auto main = refs.find(kMainBranch); main != refs.end()) {
    if (main->second.kind != SnapshotRef::Kind::kBranch)
      return Status::Corruption("ref 'main' must be a branch");
    if (!current_snapshot_id || *current_snapshot_id != main->second.snapshot_id) {
      return Status::Corruption("current-snapshot-id does not match refs.main snapshot " +
                                std::to_string(main->second.snapshot_id));
    }
  }
  return Status::OK();
}

namespace {

// The v1/v2/v3 reader. Each step names its member on failure.
Status ReadSchemas(const Json& json, TableMetadata& m) {
  FLOE_ASSIGN_OR_RETURN(const Json* schemas, GetOptionalArray(json, "schemas"));
  if (schemas != nullptr) {
    for (const Json& s : *schemas) {
      auto schema = SchemaFromJson(s);
      if (!schema.ok()) return schema.status().WithContext("field 'schemas'");
      m.schemas.push_back(std::move(schema).value());
    }
    if (m.format_version >= 2) {
      FLOE_ASSIGN_OR_RETURN(m.current_schema_id, GetInt32(json, "current-schema-id"));
    } else {
      FLOE_ASSIGN_OR_RETURN(auto id, GetOptionalInt32(json, "current-schema-id"));
      if (!id && m.schemas.empty()) return Status::Corruption("field 'schemas' is empty");
      m.current_schema_id = id ? *id : m.schemas.front().schema_id;
    }
    return Status::OK();
  }
  if (m.format_version >= 2) return Status::Corruption("missing required field 'schemas'");
  FLOE_ASSIGN_OR_RETURN(const Json* legacy, GetObject(json, "schema"));
  auto schema = SchemaFromJson(*legacy);
  if (!schema.ok()) return schema.status().WithContext("field 'schema'");
  m.current_schema_id = schema->schema_id;
  m.schemas.push_back(std::move(schema).value());
  return Status::OK();
}

Status ReadPartitionSpecs(const Json& json, TableMetadata& m) {
  FLOE_ASSIGN_OR_RETURN(const Json* specs, GetOptionalArray(json, "partition-specs"));
  if (specs != nullptr) {
    for (const Json& s : *specs) {
      auto spec = PartitionSpecFromJson(s);
      if (!spec.ok()) return spec.status().WithContext("field 'partition-specs'");
      m.partition_specs.push_back(std::move(spec).value());
    }
    if (m.format_version >= 2) {
      FLOE_ASSIGN_OR_RETURN(m.default_spec_id, GetInt32(json, "default-spec-id"));
    } else {
      FLOE_ASSIGN_OR_RETURN(auto id, GetOptionalInt32(json, "default-spec-id"));
      if (!id && m.partition_specs.empty()) return Status::Corruption("field 'partition-specs' is empty");
      m.default_spec_id = id ? *id : m.partition_specs.front().spec_id;
    }
  } else {
    if (m.format_version >= 2) return Status::Corruption("missing required field 'partition-specs'");
    FLOE_ASSIGN_OR_RETURN(const Json* legacy, GetArray(json, "partition-spec"));
    auto spec = PartitionSpecFromFieldsJson(*legacy, 0);
    if (!spec.ok()) return spec.status().WithContext("field 'partition-spec'");
    m.default_spec_id = 0;
    m.partition_specs.push_back(std::move(spec).value());
  }
  if (m.format_version >= 2) {
    FLOE_ASSIGN_OR_RETURN(m.last_partition_id, GetInt32(json, "last-partition-id"));
  } else {
    FLOE_ASSIGN_OR_RETURN(auto last, GetOptionalInt32(json, "last-partition-id"));
    int32_t highest = kFirstPartitionFieldId - 1;
    for (const auto& spec : m.partition_specs) highest = std::max(highest, spec.LastAssignedFieldId());
    m.last_partition_id = last.value_or(highest);
  }
  return Status::OK();
}

Status ReadSortOrders(const Json& json, TableMetadata& m) {
  FLOE_ASSIGN_OR_RETURN(const Json* orders, GetOptionalArray(json, "sort-orders"));
  if (orders == nullptr) {
    if (m.format_version >= 2) return Status::Corruption("missing required field 'sort-orders'");
    m.sort_orders.push_back(SortOrder::Unsorted());
    m.default_sort_order_id = 0;
    return Status::OK();
  }
  for (const Json& o : *orders) {
    auto order = SortOrderFromJson(o);
    if (!order.ok()) return order.status().WithContext("field 'sort-orders'");
    m.sort_orders.push_back(std::move(order).value());
  }
  if (m.format_version >= 2) {
    FLOE_ASSIGN_OR_RETURN(m.default_sort_order_id, GetInt32(json, "default-sort-order-id"));
  } else {
    FLOE_ASSIGN_OR_RETURN(auto id, GetOptionalInt32(json, "default-sort-order-id"));
    m.default_sort_order_id = id.value_or(0);
  }
  return Status::OK();
}

Status ReadSnapshots(const Json& json, TableMetadata& m) {
  FLOE_ASSIGN_OR_RETURN(auto current, GetOptionalInt64(json, "current-snapshot-id"));
  if (current && *current != -1) m.current_snapshot_id = *current;
  FLOE_ASSIGN_OR_RETURN(const Json* snapshots, GetOptionalArray(json, "snapshots"));
  if (snapshots != nullptr) {
    for (const Json& s : *snapshots) {
      auto snapshot = SnapshotFromJson(s, m.format_version);
      if (!snapshot.ok()) return snapshot.status().WithContext("field 'snapshots'");
      m.snapshots.push_back(std::move(snapshot).value());
    }
  }
  FLOE_ASSIGN_OR_RETURN(const Json* refs, GetOptionalObject(json, "refs"));
  if (refs != nullptr) {
    for (auto it = refs->begin(); it != refs->end(); ++it) {
      auto ref = SnapshotRefFromJson(it.value());
      if (!ref.ok()) return ref.status().WithContext("field 'refs." + it.key() + "'");
      m.refs[it.key()] = *ref;
    }
  }
  // Metadata without refs (older writers) implies a main branch at the current snapshot.
  if (m.current_snapshot_id && m.refs.find(kMainBranch) == m.refs.end()) {
    m.refs[kMainBranch] = SnapshotRef::Branch(*m.current_snapshot_id);
  }
  FLOE_ASSIGN_OR_RETURN(const Json* snapshot_log, GetOptionalArray(json, "snapshot-log"));
  if (snapshot_log != nullptr) {
    for (const Json& e : *snapshot_log) {
      auto parse = [&]() -> Status {
        FLOE_RETURN_IF_ERROR(RequireObject(e, "snapshot log entry"));
        SnapshotLogEntry entry;
        FLOE_ASSIGN_OR_RETURN(entry.timestamp_ms, GetInt64(e, "timestamp-ms"));
        FLOE_ASSIGN_OR_RETURN(entry.snapshot_id, GetInt64(e, "snapshot-id"));
        m.snapshot_log.push_back(entry);
        return Status::OK();
      };
      FLOE_RETURN_IF_ERROR(parse().WithContext("field 'snapshot-log'"));
    }
  }
  FLOE_ASSIGN_OR_RETURN(const Json* metadata_log, GetOptionalArray(json, "metadata-log"));
  if (metadata_log != nullptr) {
    for (const Json& e : *metadata_log) {
      auto parse = [&]() -> Status {
        FLOE_RETURN_IF_ERROR(RequireObject(e, "metadata log entry"));
        MetadataLogEntry entry;
        FLOE_ASSIGN_OR_RETURN(entry.timestamp_ms, GetInt64(e, "timestamp-ms"));
        FLOE_ASSIGN_OR_RETURN(entry.metadata_file, GetString(e, "metadata-file"));
        m.metadata_log.push_back(std::move(entry));
        return Status::OK();
      };
      FLOE_RETURN_IF_ERROR(parse().WithContext("field 'metadata-log'"));
    }
  }
  return Status::OK();
}

Result<StatisticsFile> StatisticsFileFromJson(const Json& json) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "statistics file"));
  StatisticsFile f;
  FLOE_ASSIGN_OR_RETURN(f.snapshot_id, GetInt64(json, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(f.statistics_path, GetString(json, "statistics-path"));
  FLOE_ASSIGN_OR_RETURN(f.file_size_in_bytes, GetInt64(json, "file-size-in-bytes"));
  FLOE_ASSIGN_OR_RETURN(f.file_footer_size_in_bytes, GetInt64(json, "file-footer-size-in-bytes"));
  FLOE_ASSIGN_OR_RETURN(f.key_metadata, GetOptionalString(json, "key-metadata"));
  FLOE_ASSIGN_OR_RETURN(const Json* blobs, GetArray(json, "blob-metadata"));
  for (const Json& b : *blobs) {
    FLOE_RETURN_IF_ERROR(RequireObject(b, "blob metadata"));
    BlobMetadata blob;
    FLOE_ASSIGN_OR_RETURN(blob.type, GetString(b, "type"));
    FLOE_ASSIGN_OR_RETURN(blob.snapshot_id, GetInt64(b, "snapshot-id"));
    FLOE_ASSIGN_OR_RETURN(blob.sequence_number, GetInt64(b, "sequence-number"));
    FLOE_ASSIGN_OR_RETURN(const Json* fields, GetArray(b, "fields"));
    FLOE_ASSIGN_OR_RETURN(blob.fields, Int32ListFromJson(*fields, "field 'fields'"));
    FLOE_ASSIGN_OR_RETURN(const Json* properties, GetOptionalObject(b, "properties"));
    if (properties != nullptr) {
      FLOE_ASSIGN_OR_RETURN(blob.properties, StringMapFromJson(*properties, "field 'properties'"));
    }
    f.blob_metadata.push_back(std::move(blob));
  }
  return f;
}

Result<PartitionStatisticsFile> PartitionStatisticsFileFromJson(const Json& json) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "partition statistics file"));
  PartitionStatisticsFile f;
  FLOE_ASSIGN_OR_RETURN(f.snapshot_id, GetInt64(json, "snapshot-id"));
  FLOE_ASSIGN_OR_RETURN(f.statistics_path, GetString(json, "statistics-path"));
  FLOE_ASSIGN_OR_RETURN(f.file_size_in_bytes, GetInt64(json, "file-size-in-bytes"));
  return f;
}

Status ReadStatistics(const Json& json, TableMetadata& m) {
  FLOE_ASSIGN_OR_RETURN(const Json* statistics, GetOptionalArray(json, "statistics"));
  if (statistics != nullptr) {
    for (const Json& s : *statistics) {
      auto file = StatisticsFileFromJson(s);
      if (!file.ok()) return file.status().WithContext("field 'statistics'");
      m.statistics.push_back(std::move(file).value());
    }
  }
  FLOE_ASSIGN_OR_RETURN(const Json* partition_statistics, GetOptionalArray(json, "partition-statistics"));
  if (partition_statistics != nullptr) {
    for (const Json& s : *partition_statistics) {
      auto file = PartitionStatisticsFileFromJson(s);
      if (!file.ok()) return file.status().WithContext("field 'partition-statistics'");
      m.partition_statistics.push_back(std::move(file).value());
    }
  }
  return Status::OK();
}

}  // namespace

Result<TableMetadata> TableMetadataFromJsonValue(const Json& json) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "table metadata"));
  TableMetadata m;
  FLOE_ASSIGN_OR_RETURN(m.format_version, GetInt32(json, "format-version"));
  if (m.format_version < 1 || m.format_version > 3) {
    return Status::NotSupported("format-version " + std::to_string(m.format_version) + " is not supported");
  }
  if (m.format_version >= 2) {
    FLOE_ASSIGN_OR_RETURN(m.table_uuid, GetString(json, "table-uuid"));
    FLOE_ASSIGN_OR_RETURN(m.last_sequence_number, GetInt64(json, "last-sequence-number"));
  } else {
    FLOE_ASSIGN_OR_RETURN(auto uuid, GetOptionalString(json, "table-uuid"));
    m.table_uuid = uuid.value_or("");
    FLOE_ASSIGN_OR_RETURN(auto seq, GetOptionalInt64(json, "last-sequence-number"));
    m.last_sequence_number = seq.value_or(0);
  }
  FLOE_ASSIGN_OR_RETURN(m.location, GetString(json, "location"));
  FLOE_ASSIGN_OR_RETURN(m.last_updated_ms, GetInt64(json, "last-updated-ms"));
  FLOE_ASSIGN_OR_RETURN(m.last_column_id, GetInt32(json, "last-column-id"));
  FLOE_RETURN_IF_ERROR(ReadSchemas(json, m));
  FLOE_RETURN_IF_ERROR(ReadPartitionSpecs(json, m));
  FLOE_RETURN_IF_ERROR(ReadSortOrders(json, m));
  FLOE_ASSIGN_OR_RETURN(const Json* properties, GetOptionalObject(json, "properties"));
  if (properties != nullptr) {
    FLOE_ASSIGN_OR_RETURN(m.properties, StringMapFromJson(*properties, "field 'properties'"));
  }
  FLOE_RETURN_IF_ERROR(ReadSnapshots(json, m));
  FLOE_RETURN_IF_ERROR(ReadStatistics(json, m));
  if (m.format_version >= 3) {
    FLOE_ASSIGN_OR_RETURN(m.next_row_id, GetInt64(json, "next-row-id"));
    if (const Json* keys = FindMember(json, "encryption-keys"); keys != nullptr && !keys->is_null()) {
      if (JsonDeeperThan(*keys, kMaxTypeDepth)) {
        return Status::Corruption("field 'encryption-keys' nests deeper than " +
                                  std::to_string(kMaxTypeDepth));
      }
      m.encryption_keys = *keys;
    }
  }
  FLOE_RETURN_IF_ERROR(m.Validate());
  return m;
}

Result<TableMetadata> TableMetadataFromJson(std::string_view text, std::string_view context) {
  auto json = ParseJson(text);
  if (!json.ok()) return json.status().WithContext(std::string(context));
  auto metadata = TableMetadataFromJsonValue(*json);
  if (!metadata.ok()) return metadata.status().WithContext(std::string(context));
  return metadata;
}

Result<OrderedJson> TableMetadataToJsonValue(const TableMetadata& input) {
  if (input.format_version != 2 && input.format_version != 3) {
    return Status::NotSupported("writing format-version " + std::to_string(input.format_version) +
                                " is not supported (write 2 or 3)");
  }
  TableMetadata m = input;
  if (m.current_snapshot_id && m.refs.find(kMainBranch) == m.refs.end()) {
    m.refs[kMainBranch] = SnapshotRef::Branch(*m.current_snapshot_id);
  }
  if (m.format_version >= 3 && !m.next_row_id) m.next_row_id = 0;
  FLOE_RETURN_IF_ERROR(m.Validate());
  for (const auto& s : m.snapshots) {
    if (s.manifest_list.empty()) {
      return Status::InvalidArgument("snapshot " + std::to_string(s.snapshot_id) +
                                     " has no manifest list; v2+ metadata cannot list manifests inline");
    }
    if (s.operation().empty()) {
      return Status::InvalidArgument("snapshot " + std::to_string(s.snapshot_id) +
                                     " has no summary operation");
    }
  }

  OrderedJson out = OrderedJson::object();
  out["format-version"] = m.format_version;
  out["table-uuid"] = m.table_uuid;
  out["location"] = m.location;
  out["last-sequence-number"] = m.last_sequence_number;
  out["last-updated-ms"] = m.last_updated_ms;
  out["last-column-id"] = m.last_column_id;
  out["current-schema-id"] = m.current_schema_id;
  OrderedJson schemas = OrderedJson::array();
  for (const auto& s : m.schemas) schemas.push_back(SchemaToJson(s));
  out["schemas"] = std::move(schemas);
  out["default-spec-id"] = m.default_spec_id;
  OrderedJson specs = OrderedJson::array();
  for (const auto& s : m.partition_specs) specs.push_back(PartitionSpecToJson(s));
  out["partition-specs"] = std::move(specs);
  out["last-partition-id"] = m.last_partition_id;
  out["default-sort-order-id"] = m.default_sort_order_id;
  OrderedJson orders = OrderedJson::array();
  for (const auto& o : m.sort_orders) orders.push_back(SortOrderToJson(o));
  out["sort-orders"] = std::move(orders);
  OrderedJson properties = OrderedJson::object();
  for (const auto& [k, v] : m.properties) properties[k] = v;
  out["properties"] = std::move(properties);
  if (m.current_snapshot_id) {
    out["current-snapshot-id"] = *m.current_snapshot_id;
  } else if (m.format_version >= 3) {
    out["current-snapshot-id"] = nullptr;
  } else {
    out["current-snapshot-id"] = -1;
  }
  if (m.format_version >= 3) out["next-row-id"] = *m.next_row_id;
  OrderedJson refs = OrderedJson::object();
  for (const auto& [name, ref] : m.refs) refs[name] = SnapshotRefToJson(ref);
  out["refs"] = std::move(refs);
  OrderedJson snapshots = OrderedJson::array();
  for (const auto& s : m.snapshots) snapshots.push_back(SnapshotToJson(s, m.format_version));
  out["snapshots"] = std::move(snapshots);
  OrderedJson statistics = OrderedJson::array();
  for (const auto& f : m.statistics) {
    OrderedJson file = OrderedJson::object();
    file["snapshot-id"] = f.snapshot_id;
    file["statistics-path"] = f.statistics_path;
    file["file-size-in-bytes"] = f.file_size_in_bytes;
    file["file-footer-size-in-bytes"] = f.file_footer_size_in_bytes;
    if (f.key_metadata) file["key-metadata"] = *f.key_metadata;
    OrderedJson blobs = OrderedJson::array();
    for (const auto& b : f.blob_metadata) {
      OrderedJson blob = OrderedJson::object();
      blob["type"] = b.type;
      blob["snapshot-id"] = b.snapshot_id;
      blob["sequence-number"] = b.sequence_number;
      blob["fields"] = b.fields;
      if (!b.properties.empty()) {
        OrderedJson props = OrderedJson::object();
        for (const auto& [k, v] : b.properties) props[k] = v;
        blob["properties"] = std::move(props);
      }
      blobs.push_back(std::move(blob));
    }
    file["blob-metadata"] = std::move(blobs);
    statistics.push_back(std::move(file));
  }
  out["statistics"] = std::move(statistics);
  OrderedJson partition_statistics = OrderedJson::array();
  for (const auto& f : m.partition_statistics) {
    OrderedJson file = OrderedJson::object();
    file["snapshot-id"] = f.snapshot_id;
    file["statistics-path"] = f.statistics_path;
    file["file-size-in-bytes"] = f.file_size_in_bytes;
    partition_statistics.push_back(std::move(file));
  }
  out["partition-statistics"] = std::move(partition_statistics);
  OrderedJson snapshot_log = OrderedJson::array();
  for (const auto& e : m.snapshot_log) {
    OrderedJson entry = OrderedJson::object();
    entry["timestamp-ms"] = e.timestamp_ms;
    entry["snapshot-id"] = e.snapshot_id;
    snapshot_log.push_back(std::move(entry));
  }
  out["snapshot-log"] = std::move(snapshot_log);
  OrderedJson metadata_log = OrderedJson::array();
  for (const auto& e : m.metadata_log) {
    OrderedJson entry = OrderedJson::object();
    entry["timestamp-ms"] = e.timestamp_ms;
    entry["metadata-file"] = e.metadata_file;
    metadata_log.push_back(std::move(entry));
  }
  out["metadata-log"] = std::move(metadata_log);
  if (m.format_version >= 3 && m.encryption_keys) out["encryption-keys"] = *m.encryption_keys;
  return out;
}

Result<std::string> TableMetadataToJson(const TableMetadata& metadata) {
  FLOE_ASSIGN_OR_RETURN(OrderedJson json, TableMetadataToJsonValue(metadata));
  try {
    return json.dump(2);
  } catch (const OrderedJson::exception& e) {
    // dump() throws on invalid UTF-8 in strings (names, properties, paths).
    return Status::InvalidArgument(std::string("table metadata holds invalid UTF-8: ") + e.what());
  }
}

}  // namespace floe::iceberg
