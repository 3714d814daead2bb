// RestCatalogService: the table routes (create, load, commit, drop, rename,
// register) and purging a dropped table's files.
#include <iostream>
#include <set>

#include "catalog/rest/rest_protocol.h"
#include "catalog/rest_server/rest_catalog_service.h"
#include "catalog/rest_server/service_responses.h"
#include "catalog/table/metastore_table_operations.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/transaction/table_reading.h"
#include "iceberg/transaction/table_update.h"

namespace floe::catalog::rest {

using iceberg::Json;
using iceberg::LoadedTable;
using iceberg::OrderedJson;

namespace {

ServiceResponse NoSuchTable(const TableIdentifier& id) {
  return internal::ErrorResponse(404, "NoSuchTableException", "table " + id.ToString() + " does not exist");
}

ServiceResponse NoSuchNamespace(const Namespace& ns) {
  return internal::ErrorResponse(404, "NoSuchNamespaceException",
                                 "namespace '" + NamespaceToString(ns) + "' does not exist");
}

bool IsUnder(const std::string& path, const std::string& directory) {
  return path.size() > directory.size() + 1 && path.rfind(directory + "/", 0) == 0;
}

}  // namespace

ServiceResponse RestCatalogService::CreateTable(const Namespace& ns, const std::string& body) {
  auto json = internal::ParseRequestBody(body);
  if (!json.ok()) return internal::BadRequest(json.status().message());
  auto name = iceberg::GetString(*json, "name");
  if (!name.ok()) return internal::BadRequest(name.status().message());
  if (Status valid = ValidateName(*name, "table name"); !valid.ok())
    return internal::BadRequest(valid.message());
  const TableIdentifier id{ns, *name};
  auto stage = iceberg::GetOptionalBool(*json, "stage-create");
  if (!stage.ok()) return internal::BadRequest(stage.status().message());
  if (stage->value_or(false)) {
    return internal::ErrorResponse(406, "UnsupportedOperationException",
                                   "staged table creation is not supported by floe serve");
  }
  TableCreation creation;
  auto location = iceberg::GetOptionalString(*json, "location");
  if (!location.ok()) return internal::BadRequest(location.status().message());
  if (location->has_value() && !(*location)->empty()) {
    std::string chosen = **location;
    while (chosen.size() > 1 && chosen.back() == '/') chosen.pop_back();
    if (!UnderWarehouse(chosen)) {
      return internal::BadRequest("location '" + chosen + "' is not under this catalog's warehouse '" +
                                  warehouse_ + "'");
    }
    creation.location = chosen;
  }
  const Json* schema = iceberg::FindMember(*json, "schema");
  if (schema == nullptr) return internal::BadRequest("field 'schema' is missing");
  auto parsed_schema = iceberg::SchemaFromJson(*schema);
  if (!parsed_schema.ok()) return internal::BadRequest("schema: " + parsed_schema.status().message());
  creation.schema = std::move(*parsed_schema);
  if (const Json* spec = iceberg::FindMember(*json, "partition-spec"); spec && !spec->is_null()) {
    // The spec id of a new table's only spec is 0 whatever the request says; clients may omit it.
    Json with_id = *spec;
    if (with_id.is_object()) with_id["spec-id"] = 0;
    auto parsed = iceberg::PartitionSpecFromJson(with_id);
    if (!parsed.ok()) return internal::BadRequest("partition-spec: " + parsed.status().message());
    creation.spec = std::move(*parsed);
  }
  if (const Json* order = iceberg::FindMember(*json, "write-order"); order && !order->is_null()) {
    auto parsed = iceberg::SortOrderFromJson(*order);
    if (!parsed.ok()) return internal::BadRequest("write-order: " + parsed.status().message());
    creation.sort_order = std::move(*parsed);
  }
  if (const Json* props = iceberg::FindMember(*json, "properties"); props && !props->is_null()) {
    auto parsed = iceberg::StringMapFromJson(*props, "properties");
    if (!parsed.ok()) return internal::BadRequest(parsed.status().message());
    creation.properties = std::move(*parsed);
  }
  if (auto it = creation.properties.find("format-version"); it != creation.properties.end()) {
    if (it->second != "1" && it->second != "2" && it->second != "3") {
      return internal::BadRequest("property format-version must be 1, 2 or 3, got '" + it->second + "'");
    }
    creation.format_version = it->second[0] - '0';
    creation.properties.erase(it);
  }
  auto exists = catalog_->NamespaceExists(ns);
  if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
  if (!*exists) return NoSuchNamespace(ns);
  if (catalog_->LoadMetadataLocation(id).ok()) {
    return internal::ErrorResponse(409, "AlreadyExistsException",
                                   "table " + id.ToString() + " already exists");
  }
  auto ops = CreateMetastoreTable(catalog_, io_, warehouse_, id, creation);
  if (!ops.ok()) return internal::FromStatus(ops.status(), "NoSuchNamespaceException");
  auto loaded = (*ops)->Load();
  if (!loaded.ok()) return internal::FromStatus(loaded.status(), "NoSuchTableException");
  return internal::LoadResultResponse(*loaded);
}

ServiceResponse RestCatalogService::LoadTable(const TableIdentifier& id, bool head) {
  auto location = catalog_->LoadMetadataLocation(id);
  if (!location.ok()) {
    return location.status().kind() == ErrorKind::kNotFound
               ? NoSuchTable(id)
               : internal::FromStatus(location.status(), "NoSuchTableException");
  }
  if (head) return {204, "", "application/json"};
  auto metadata = ReadTableMetadata(*io_, *location);
  // The catalog points at it, so an unreadable file is the server's problem, not the client's.
  if (!metadata.ok()) return internal::ErrorResponse(500, "InternalServerError", metadata.status().message());
  return internal::LoadResultResponse(LoadedTable{std::move(*metadata), *location});
}

ServiceResponse RestCatalogService::CommitTable(const TableIdentifier& id, const std::string& body) {
  auto json = internal::ParseRequestBody(body);
  if (!json.ok()) return internal::BadRequest(json.status().message());
  if (const Json* identifier = iceberg::FindMember(*json, "identifier");
      identifier && !identifier->is_null()) {
    auto given = TableIdentifierFromJson(*identifier);
    if (!given.ok()) return internal::BadRequest(given.status().message());
    if (!(*given == id)) {
      return internal::BadRequest("identifier " + given->ToString() + " does not match the path's table " +
                                  id.ToString());
    }
  }
  auto requirements_json = iceberg::GetOptionalArray(*json, "requirements");
  if (!requirements_json.ok()) return internal::BadRequest(requirements_json.status().message());
  auto updates_json = iceberg::GetOptionalArray(*json, "updates");
  if (!updates_json.ok()) return internal::BadRequest(updates_json.status().message());

  MetastoreTableOperations ops(catalog_, io_, id);
  auto current = ops.Load();
  if (!current.ok()) {
    return current.status().kind() == ErrorKind::kNotFound
               ? NoSuchTable(id)
               : internal::ErrorResponse(500, "InternalServerError", current.status().message());
  }
  std::vector<iceberg::TableRequirement> requirements;
  if (*requirements_json != nullptr) {
    for (const Json& item : **requirements_json) {
      auto requirement = iceberg::TableRequirementFromJson(item);
      if (!requirement.ok()) return internal::BadRequest("requirements: " + requirement.status().message());
      requirements.push_back(std::move(*requirement));
    }
  }
  // Snapshots are read for the format version the table will have.
  int format_version = current->metadata.format_version;
  std::vector<iceberg::TableUpdate> updates;
  for (int pass = 0; pass < 2; ++pass) {
    updates.clear();
    int upgraded = format_version;
    if (*updates_json != nullptr) {
      for (const Json& item : **updates_json) {
        auto update = iceberg::TableUpdateFromJson(item, format_version);
        if (!update.ok()) return internal::BadRequest("updates: " + update.status().message());
        if (const auto* up = std::get_if<iceberg::update::UpgradeFormatVersion>(&*update)) {
          upgraded = std::max(upgraded, up->format_version);
        }
        if (const auto* set = std::get_if<iceberg::update::SetLocation>(&*update)) {
          if (!UnderWarehouse(set->location)) {
            return internal::BadRequest("set-location '" + set->location +
                                        "' is not under this catalog's warehouse");
          }
        }
        updates.push_back(std::move(*update));
      }
    }
    if (upgraded == format_version) break;
    format_version = upgraded;
  }
  auto committed = ops.Commit(requirements, updates);
  if (!committed.ok()) {
    const Status& status = committed.status();
    if (status.kind() == ErrorKind::kNotFound) return NoSuchTable(id);
    if (status.kind() == ErrorKind::kCommitFailed || status.kind() == ErrorKind::kInvalidArgument ||
        status.kind() == ErrorKind::kCommitStateUnknown) {
      return internal::FromStatus(status, "NoSuchTableException");
    }
    // Anything else happened before or during the swap: the client must not assume either outcome.
    return internal::ErrorResponse(500, "CommitStateUnknownException", status.message());
  }
  auto metadata = iceberg::TableMetadataToJsonValue(committed->metadata);
  if (!metadata.ok())
    return internal::ErrorResponse(500, "CommitStateUnknownException", metadata.status().message());
  OrderedJson out = OrderedJson::object();
  out["metadata-location"] = committed->metadata_location;
  out["metadata"] = std::move(*metadata);
  return internal::JsonResponse(200, out);
}

ServiceResponse RestCatalogService::DropTable(const TableIdentifier& id, bool purge) {
  auto location = catalog_->LoadMetadataLocation(id);
  if (!location.ok()) {
    return location.status().kind() == ErrorKind::kNotFound
               ? NoSuchTable(id)
               : internal::FromStatus(location.status(), "NoSuchTableException");
  }
  if (Status dropped = catalog_->DropTable(id); !dropped.ok())
    return internal::FromStatus(dropped, "NoSuchTableException");
  if (purge) {
    // The table is gone from the catalog either way; a partial purge leaves only orphans.
    if (Status purged = PurgeTableFiles(*location); !purged.ok()) {
      std::cerr << "floe serve: dropped " << id.ToString()
                << " but purging its files failed: " << purged.ToString() << "\n";
    }
  }
  return {204, "", "application/json"};
}

ServiceResponse RestCatalogService::RenameTable(const std::string& body) {
  auto json = internal::ParseRequestBody(body);
  if (!json.ok()) return internal::BadRequest(json.status().message());
  const Json* source_json = iceberg::FindMember(*json, "source");
  const Json* destination_json = iceberg::FindMember(*json, "destination");
  if (source_json == nullptr || destination_json == nullptr) {
    return internal::BadRequest("fields 'source' and 'destination' are required");
  }
  auto source = TableIdentifierFromJson(*source_json);
  if (!source.ok()) return internal::BadRequest("source: " + source.status().message());
  auto destination = TableIdentifierFromJson(*destination_json);
  if (!destination.ok()) return internal::BadRequest("destination: " + destination.status().message());
  for (const TableIdentifier* id : {&*source, &*destination}) {
    if (Status valid = internal::ValidateIdentifier(*id); !valid.ok())
      return internal::BadRequest(valid.message());
  }
  if (!catalog_->LoadMetadataLocation(*source).ok()) return NoSuchTable(*source);
  auto exists = catalog_->NamespaceExists(destination->ns);
  if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
  if (!*exists) return NoSuchNamespace(destination->ns);
  if (catalog_->LoadMetadataLocation(*destination).ok()) {
    return internal::ErrorResponse(409, "AlreadyExistsException",
                                   "table " + destination->ToString() + " already exists");
  }
  if (Status renamed = catalog_->RenameTable(*source, *destination); !renamed.ok()) {
    return internal::FromStatus(renamed, "NoSuchTableException");
  }
  return {204, "", "application/json"};
}

ServiceResponse RestCatalogService::RegisterTable(const Namespace& ns, const std::string& body) {
  auto json = internal::ParseRequestBody(body);
  if (!json.ok()) return internal::BadRequest(json.status().message());
  auto name = iceberg::GetString(*json, "name");
  if (!name.ok()) return internal::BadRequest(name.status().message());
  if (Status valid = ValidateName(*name, "table name"); !valid.ok())
    return internal::BadRequest(valid.message());
  auto metadata_location = iceberg::GetString(*json, "metadata-location");
  if (!metadata_location.ok()) return internal::BadRequest(metadata_location.status().message());
  auto overwrite = iceberg::GetOptionalBool(*json, "overwrite");
  if (!overwrite.ok()) return internal::BadRequest(overwrite.status().message());
  if (!UnderWarehouse(*metadata_location)) {
    return internal::BadRequest("metadata-location '" + *metadata_location +
                                "' is not under this catalog's warehouse");
  }
  const TableIdentifier id{ns, *name};
  auto exists = catalog_->NamespaceExists(ns);
  if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
  if (!*exists) return NoSuchNamespace(ns);
  auto metadata = ReadTableMetadata(*io_, *metadata_location);
  if (!metadata.ok()) return internal::BadRequest("cannot register: " + metadata.status().message());
  auto current = catalog_->LoadMetadataLocation(id);
  Status registered;
  if (current.ok()) {
    if (!overwrite->value_or(false)) {
      return internal::ErrorResponse(409, "AlreadyExistsException",
                                     "table " + id.ToString() + " already exists");
    }
    registered = catalog_->SwapMetadataLocation(id, *current, *metadata_location);
  } else {
    registered = catalog_->RegisterTable(id, *metadata_location);
  }
  if (!registered.ok()) return internal::FromStatus(registered, "NoSuchNamespaceException");
  return internal::LoadResultResponse(LoadedTable{std::move(*metadata), *metadata_location});
}

Status RestCatalogService::PurgeTableFiles(const std::string& metadata_location) {
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata, ReadTableMetadata(*io_, metadata_location));
  std::string root = metadata.location;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  // Never outside the table's own directory, and never the warehouse itself.
  if (root == warehouse_ || !UnderWarehouse(root)) {
    return Status::InvalidArgument("table location " + root +
                                   " is not a directory of its own under the warehouse");
  }
  std::set<std::string> data_files, manifests, lists, metadata_files;
  Status first_error;
  for (const auto& snapshot : metadata.snapshots) {
    if (snapshot.manifest_list.empty()) continue;
    lists.insert(snapshot.manifest_list);
    auto manifest_files = iceberg::ReadManifestList(*io_, snapshot.manifest_list);
    if (!manifest_files.ok()) {
      if (first_error.ok()) first_error = manifest_files.status();
      continue;
    }
    for (const auto& manifest : *manifest_files) {
      if (!manifests.insert(manifest.manifest_path).second) continue;
      auto partition_type = iceberg::PartitionTypeForSpec(metadata, manifest.partition_spec_id);
      if (!partition_type.ok()) {
        if (first_error.ok()) first_error = partition_type.status();
        continue;
      }
      auto entries = iceberg::ReadManifest(*io_, manifest, *partition_type);
      if (!entries.ok()) {
        if (first_error.ok()) first_error = entries.status();
        continue;
      }
      for (const auto& entry : *entries) data_files.insert(entry.data_file.file_path);
    }
  }
  for (const auto& stats : metadata.statistics) data_files.insert(stats.statistics_path);
  for (const auto& stats : metadata.partition_statistics) data_files.insert(stats.statistics_path);
  for (const auto& entry : metadata.metadata_log) metadata_files.insert(entry.metadata_file);
  metadata_files.insert(metadata_location);
  // Referenced files first, the files that reference them last.
  for (const auto* group : {&data_files, &manifests, &lists, &metadata_files}) {
    for (const auto& path : *group) {
      if (!IsUnder(path, root)) continue;
      Status deleted = io_->Delete(path);
      if (!deleted.ok() && deleted.kind() != ErrorKind::kNotFound && first_error.ok()) first_error = deleted;
    }
  }
  return first_error;
}

}  // namespace floe::catalog::rest
