// RestCatalogService: the table routes (create and staged create, load,
// commit and multi-table transactions, drop, unregister, rename, register),
// the checks of client-supplied paths, and purging a dropped table's files.
#include <iostream>
#include <set>

#include "catalog/rest/rest_protocol.h"
#include "catalog/rest_server/rest_catalog_service.h"
#include "catalog/rest_server/service_responses.h"
#include "catalog/table/catalog.h"
#include "catalog/table/metastore_table_operations.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/spec/table_metadata_builder.h"
#include "iceberg/transaction/table_reading.h"
#include "iceberg/transaction/table_update.h"

namespace floe::catalog::rest {

using iceberg::Json;
using iceberg::LoadedTable;
using iceberg::OrderedJson;
using iceberg::TableMetadata;

namespace {

constexpr size_t kMaxTableChanges = 100;

ServiceResponse NoSuchTable(const TableIdentifier& id) {
  return internal::ErrorResponse(404, "NoSuchTableException", "table " + id.ToString() + " does not exist");
}

ServiceResponse NoSuchNamespace(const Namespace& ns) {
  return internal::ErrorResponse(404, "NoSuchNamespaceException",
                                 "namespace '" + NamespaceToString(ns) + "' does not exist");
}

ServiceResponse CommitFailed(const std::string& message) {
  return internal::ErrorResponse(409, "CommitFailedException", message);
}

// The metadata a staged or assert-create commit starts from: what the
// updates do not set themselves (uuid, location, an unpartitioned spec and
// the unsorted order when none is added, the format version asked for).
TableMetadata EmptyTableMetadata(const std::string& default_location,
                                 const std::vector<iceberg::TableUpdate>& updates) {
  TableMetadata m;
  m.format_version = 2;
  bool adds_spec = false;
  bool adds_order = false;
  bool sets_location = false;
  for (const auto& u : updates) {
    if (const auto* up = std::get_if<iceberg::update::UpgradeFormatVersion>(&u)) {
      // The builder upgrades from here to the version asked for (3 starts next-row-id).
      m.format_version = std::max(1, std::min(2, up->format_version));
    }
    adds_spec = adds_spec || std::holds_alternative<iceberg::update::AddSpec>(u);
    adds_order = adds_order || std::holds_alternative<iceberg::update::AddSortOrder>(u);
    sets_location = sets_location || std::holds_alternative<iceberg::update::SetLocation>(u);
  }
  m.table_uuid = iceberg::NewUuidV4();
  if (!sets_location) m.location = default_location;
  if (!adds_spec) m.partition_specs.push_back(iceberg::PartitionSpec{});
  if (!adds_order) m.sort_orders.push_back(iceberg::SortOrder::Unsorted());
  m.last_updated_ms = iceberg::CurrentTimeMillis();
  return m;
}

}  // namespace

struct RestCatalogService::TableChange {
  TableIdentifier id;
  const Json* requirements = nullptr;  // array or null
  const Json* updates = nullptr;       // array or null
};

struct RestCatalogService::PreparedCommit {
  TableIdentifier id;
  std::optional<std::string> base_location;  // nullopt: the commit creates the table
  TableMetadata metadata;
  std::string location;  // the new metadata file, written
};

Status RestCatalogService::CheckTableLocation(const std::string& location) const {
  return CheckUnder(location, warehouse_, false, "table location");
}

Status RestCatalogService::CheckNewPaths(const TableMetadata* base, const TableMetadata& next) const {
  if (base == nullptr || base->location != next.location)
    FLOE_RETURN_IF_ERROR(CheckTableLocation(next.location));
  std::set<int64_t> known;
  if (base != nullptr) {
    for (const auto& s : base->snapshots) known.insert(s.snapshot_id);
  }
  for (const auto& s : next.snapshots) {
    if (known.count(s.snapshot_id)) continue;
    const std::string what = "manifest list of snapshot " + std::to_string(s.snapshot_id);
    if (!s.manifest_list.empty())
      FLOE_RETURN_IF_ERROR(CheckUnder(s.manifest_list, next.location, false, what));
    for (const auto& m : s.manifests) FLOE_RETURN_IF_ERROR(CheckUnder(m, next.location, false, what));
  }
  auto known_path = [&](const std::string& path) {
    if (base == nullptr) return false;
    for (const auto& f : base->statistics) {
      if (f.statistics_path == path) return true;
    }
    for (const auto& f : base->partition_statistics) {
      if (f.statistics_path == path) return true;
    }
    return false;
  };
  for (const auto& f : next.statistics) {
    if (!known_path(f.statistics_path)) {
      FLOE_RETURN_IF_ERROR(CheckUnder(f.statistics_path, next.location, false, "statistics file"));
    }
  }
  for (const auto& f : next.partition_statistics) {
    if (!known_path(f.statistics_path)) {
      FLOE_RETURN_IF_ERROR(CheckUnder(f.statistics_path, next.location, false, "partition statistics file"));
    }
  }
  if (base == nullptr) {
    for (const auto& entry : next.metadata_log) {
      FLOE_RETURN_IF_ERROR(CheckUnder(entry.metadata_file, next.location, false, "metadata-log entry"));
    }
  }
  return Status::OK();
}

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
  TableCreation creation;
  auto location = iceberg::GetOptionalString(*json, "location");
  if (!location.ok()) return internal::BadRequest(location.status().message());
  if (location->has_value() && !(*location)->empty()) {
    std::string chosen = **location;
    while (chosen.size() > 1 && chosen.back() == '/') chosen.pop_back();
    if (Status valid = CheckTableLocation(chosen); !valid.ok()) return internal::BadRequest(valid.message());
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
    if (it->second != "2" && it->second != "3") {
      return internal::BadRequest("property format-version must be 2 or 3, got '" + it->second + "'");
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
  if (stage->value_or(false)) {
    // Nothing is written or registered: the client commits the table with assert-create.
    const std::string table_location =
        creation.location.empty() ? DefaultTableLocation(warehouse_, id) : creation.location;
    if (Status valid = CheckTableLocation(table_location); !valid.ok())
      return internal::BadRequest(valid.message());
    auto metadata =
        iceberg::NewTableMetadata(table_location, creation.schema, creation.spec, creation.sort_order,
                                  creation.properties, creation.format_version);
    if (!metadata.ok()) return internal::FromStatus(metadata.status(), "NoSuchNamespaceException");
    return internal::LoadResultResponse(LoadedTable{std::move(*metadata), ""});
  }
  auto ops = CreateMetastoreTable(catalog_, io_, warehouse_, id, creation);
  if (!ops.ok()) {
    if (ops.status().kind() == ErrorKind::kAlreadyExists) {
      return internal::ErrorResponse(409, "AlreadyExistsException", ops.status().message());
    }
    return internal::FromStatus(ops.status(), "NoSuchNamespaceException");
  }
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
  if (head) return internal::NoContent();
  auto metadata = ReadTableMetadata(*io_, *location);
  // The catalog points at it, so an unreadable file is the server's problem, not the client's.
  if (!metadata.ok()) return internal::ErrorResponse(500, "InternalServerError", metadata.status().message());
  return internal::LoadResultResponse(LoadedTable{std::move(*metadata), *location});
}

Result<RestCatalogService::PreparedCommit> RestCatalogService::PrepareCommit(const TableChange& change,
                                                                             ServiceResponse* error) {
  const TableIdentifier& id = change.id;
  auto fail = [&](ServiceResponse response) {
    *error = std::move(response);
    return Status::InvalidArgument(error->body);
  };
  std::vector<iceberg::TableRequirement> requirements;
  bool create = false;
  if (change.requirements != nullptr) {
    for (const Json& item : *change.requirements) {
      auto requirement = iceberg::TableRequirementFromJson(item);
      if (!requirement.ok())
        return fail(internal::BadRequest("table " + id.ToString() +
                                         ": requirements: " + requirement.status().message()));
      create = create || std::holds_alternative<iceberg::requirement::AssertCreate>(*requirement);
      requirements.push_back(std::move(*requirement));
    }
  }
  std::optional<LoadedTable> base;
  auto current = catalog_->LoadMetadataLocation(id);
  if (current.ok()) {
    auto metadata = ReadTableMetadata(*io_, *current);
    if (!metadata.ok())
      return fail(internal::ErrorResponse(500, "InternalServerError", metadata.status().message()));
    base = LoadedTable{std::move(*metadata), *current};
  } else if (current.status().kind() != ErrorKind::kNotFound) {
    return fail(internal::FromStatus(current.status(), "NoSuchTableException"));
  } else if (!create) {
    return fail(NoSuchTable(id));
  } else {
    auto ns_exists = catalog_->NamespaceExists(id.ns);
    if (!ns_exists.ok()) return fail(internal::FromStatus(ns_exists.status(), "NoSuchNamespaceException"));
    if (!*ns_exists) return fail(NoSuchNamespace(id.ns));
  }
  if (Status held = iceberg::CheckRequirements(base ? &base->metadata : nullptr, requirements); !held.ok()) {
    return fail(held.kind() == ErrorKind::kCommitFailed ? CommitFailed(id.ToString() + ": " + held.message())
                                                        : internal::BadRequest(held.message()));
  }
  // Snapshots are read for the format version the table will have.
  int format_version = base ? base->metadata.format_version : 2;
  std::vector<iceberg::TableUpdate> updates;
  for (int pass = 0; pass < 2; ++pass) {
    updates.clear();
    int upgraded = format_version;
    if (change.updates != nullptr) {
      for (const Json& item : *change.updates) {
        auto update = iceberg::TableUpdateFromJson(item, format_version);
        if (!update.ok()) {
          return fail(
              internal::BadRequest("table " + id.ToString() + ": updates: " + update.status().message()));
        }
        if (const auto* up = std::get_if<iceberg::update::UpgradeFormatVersion>(&*update)) {
          upgraded = std::max(upgraded, up->format_version);
        }
        updates.push_back(std::move(*update));
      }
    }
    if (upgraded == format_version) break;
    format_version = upgraded;
  }
  const TableMetadata start =
      base ? base->metadata : EmptyTableMetadata(DefaultTableLocation(warehouse_, id), updates);
  auto next = iceberg::ApplyUpdates(start, base ? base->metadata_location : "", updates);
  if (!next.ok()) return fail(internal::FromStatus(next.status(), "NoSuchTableException"));
  if (Status paths = CheckNewPaths(base ? &base->metadata : nullptr, *next); !paths.ok()) {
    return fail(internal::BadRequest(id.ToString() + ": " + paths.message()));
  }
  PreparedCommit prepared{id, base ? std::optional<std::string>(base->metadata_location) : std::nullopt,
                          std::move(*next), ""};
  prepared.location = NewMetadataFileLocation(
      prepared.metadata.location, base ? MetadataFileVersion(base->metadata_location).value_or(0) + 1 : 0);
  if (Status written = WriteTableMetadata(*io_, prepared.location, prepared.metadata); !written.ok()) {
    return fail(internal::FromStatus(written, "NoSuchTableException"));
  }
  return prepared;
}

ServiceResponse RestCatalogService::CommitPrepared(std::vector<PreparedCommit>& prepared, bool one_table) {
  std::vector<Metastore::TableCommit> commits;
  for (const auto& p : prepared) commits.push_back({p.id, p.base_location, p.location});
  Status committed = catalog_->CommitTables(commits);
  if (!committed.ok()) {
    // Unknown outcome: the catalog may point at the new files, so they stay.
    if (committed.kind() != ErrorKind::kCommitStateUnknown) {
      for (const auto& p : prepared) (void)io_->Delete(p.location);
    }
    switch (committed.kind()) {
      case ErrorKind::kCommitFailed: return CommitFailed(committed.message());
      case ErrorKind::kNotFound:
        return internal::ErrorResponse(404, "NoSuchNamespaceException", committed.message());
      case ErrorKind::kInvalidArgument: return internal::BadRequest(committed.message());
      // Anything else happened before or during the swap: the client must not assume either outcome.
      default: return internal::ErrorResponse(500, "CommitStateUnknownException", committed.message());
    }
  }
  if (!one_table) return internal::NoContent();
  auto metadata = iceberg::TableMetadataToJsonValue(prepared[0].metadata);
  if (!metadata.ok())
    return internal::ErrorResponse(500, "CommitStateUnknownException", metadata.status().message());
  OrderedJson out = OrderedJson::object();
  out["metadata-location"] = prepared[0].location;
  out["metadata"] = std::move(*metadata);
  return internal::JsonResponse(200, out);
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
  auto requirements = iceberg::GetOptionalArray(*json, "requirements");
  if (!requirements.ok()) return internal::BadRequest(requirements.status().message());
  auto updates = iceberg::GetOptionalArray(*json, "updates");
  if (!updates.ok()) return internal::BadRequest(updates.status().message());
  ServiceResponse error;
  auto prepared = PrepareCommit({id, *requirements, *updates}, &error);
  if (!prepared.ok()) return error;
  std::vector<PreparedCommit> all;
  all.push_back(std::move(*prepared));
  return CommitPrepared(all, true);
}

ServiceResponse RestCatalogService::CommitTransaction(const std::string& body) {
  auto json = internal::ParseRequestBody(body);
  if (!json.ok()) return internal::BadRequest(json.status().message());
  auto changes = iceberg::GetOptionalArray(*json, "table-changes");
  if (!changes.ok()) return internal::BadRequest(changes.status().message());
  if (*changes == nullptr) return internal::BadRequest("field 'table-changes' is missing");
  if ((*changes)->size() > kMaxTableChanges) {
    return internal::BadRequest("a transaction may change at most " + std::to_string(kMaxTableChanges) +
                                " tables");
  }
  std::vector<TableChange> parsed;
  std::set<TableIdentifier> seen;
  for (size_t i = 0; i < (*changes)->size(); ++i) {
    const Json& change = (**changes)[i];
    const std::string where = "table-changes[" + std::to_string(i) + "]";
    if (!change.is_object()) return internal::BadRequest(where + " is not an object");
    const Json* identifier = iceberg::FindMember(change, "identifier");
    if (identifier == nullptr || identifier->is_null()) {
      return internal::BadRequest(where + " has no 'identifier' (a transaction names every table)");
    }
    auto id = TableIdentifierFromJson(*identifier);
    if (!id.ok()) return internal::BadRequest(where + ": " + id.status().message());
    if (Status valid = ValidateTableIdentifier(*id); !valid.ok())
      return internal::BadRequest(where + ": " + valid.message());
    if (!seen.insert(*id).second) {
      return internal::BadRequest(where + ": table " + id->ToString() + " appears twice");
    }
    // Both are required by the specification's CommitTableRequest: a change
    // without them is a truncated or mistaken request, never "no change".
    const std::string table = where + " (table " + id->ToString() + ")";
    auto requirements = iceberg::GetOptionalArray(change, "requirements");
    if (!requirements.ok()) return internal::BadRequest(table + ": " + requirements.status().message());
    if (*requirements == nullptr) return internal::BadRequest(table + " has no 'requirements' array");
    auto updates = iceberg::GetOptionalArray(change, "updates");
    if (!updates.ok()) return internal::BadRequest(table + ": " + updates.status().message());
    if (*updates == nullptr) return internal::BadRequest(table + " has no 'updates' array");
    parsed.push_back({std::move(*id), *requirements, *updates});
  }
  if (parsed.empty()) return internal::NoContent();
  std::vector<PreparedCommit> prepared;
  for (const auto& change : parsed) {
    ServiceResponse error;
    auto one = PrepareCommit(change, &error);
    if (!one.ok()) {
      for (const auto& p : prepared) (void)io_->Delete(p.location);
      return error;
    }
    prepared.push_back(std::move(*one));
  }
  return CommitPrepared(prepared, false);
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
  return internal::NoContent();
}

ServiceResponse RestCatalogService::UnregisterTable(const TableIdentifier& id) {
  // The answer must hold every commit before the unregistration: drop only the version that was read.
  for (int attempt = 0;; ++attempt) {
    auto location = catalog_->LoadMetadataLocation(id);
    if (!location.ok()) {
      return location.status().kind() == ErrorKind::kNotFound
                 ? NoSuchTable(id)
                 : internal::FromStatus(location.status(), "NoSuchTableException");
    }
    auto metadata = ReadTableMetadata(*io_, *location);
    if (!metadata.ok())
      return internal::ErrorResponse(500, "InternalServerError", metadata.status().message());
    auto json = iceberg::TableMetadataToJsonValue(*metadata);
    if (!json.ok()) return internal::ErrorResponse(500, "InternalServerError", json.status().message());
    Status gone = catalog_->DropTableAt(id, *location);
    if (gone.kind() == ErrorKind::kCommitFailed && attempt < 5) continue;
    if (!gone.ok()) {
      return gone.kind() == ErrorKind::kNotFound ? NoSuchTable(id)
                                                 : internal::FromStatus(gone, "NoSuchTableException");
    }
    OrderedJson out = OrderedJson::object();
    out["metadata-location"] = *location;
    out["metadata"] = std::move(*json);
    return internal::JsonResponse(200, out);
  }
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
    if (Status valid = ValidateTableIdentifier(*id); !valid.ok())
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
  return internal::NoContent();
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
  if (Status valid = CheckUnder(*metadata_location, warehouse_, false, "metadata-location"); !valid.ok()) {
    return internal::BadRequest(valid.message());
  }
  const TableIdentifier id{ns, *name};
  auto exists = catalog_->NamespaceExists(ns);
  if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
  if (!*exists) return NoSuchNamespace(ns);
  auto metadata = ReadTableMetadata(*io_, *metadata_location);
  if (!metadata.ok()) return internal::BadRequest("cannot register: " + metadata.status().message());
  // Everything the registered metadata references must lie in its own location, under the warehouse.
  if (Status paths = CheckNewPaths(nullptr, *metadata); !paths.ok()) {
    return internal::BadRequest("cannot register " + *metadata_location + ": " + paths.message());
  }
  if (Status own = CheckUnder(*metadata_location, metadata->location, false, "metadata-location");
      !own.ok()) {
    return internal::BadRequest("cannot register: " + own.message());
  }
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
  FLOE_ASSIGN_OR_RETURN(TableMetadata metadata, ReadTableMetadata(*io_, metadata_location));
  std::string root = metadata.location;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  // Never outside the table's own directory, and never the warehouse itself.
  FLOE_RETURN_IF_ERROR(CheckTableLocation(root).WithContext("not purging " + metadata_location));
  // Only plain paths below the table's location: a "../" in any path the metadata names is never followed.
  auto deletable = [&](const std::string& path) { return CheckUnder(path, root, false, "file").ok(); };
  std::set<std::string> data_files, manifests, lists, metadata_files;
  Status first_error;
  for (const auto& snapshot : metadata.snapshots) {
    if (snapshot.manifest_list.empty()) continue;
    lists.insert(snapshot.manifest_list);
    // A manifest list outside the table is not even read: what it names is not this table's.
    if (!deletable(snapshot.manifest_list)) continue;
    auto manifest_files = iceberg::ReadManifestList(*io_, snapshot.manifest_list);
    if (!manifest_files.ok()) {
      if (first_error.ok()) first_error = manifest_files.status();
      continue;
    }
    for (const auto& manifest : *manifest_files) {
      if (!manifests.insert(manifest.manifest_path).second || !deletable(manifest.manifest_path)) continue;
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
      if (!deletable(path)) continue;
      Status deleted = io_->Delete(path);
      if (!deleted.ok() && deleted.kind() != ErrorKind::kNotFound && first_error.ok()) first_error = deleted;
    }
  }
  return first_error;
}

}  // namespace floe::catalog::rest
