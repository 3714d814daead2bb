#include "catalog/glue/glue_catalog.h"

#include <set>

#include "catalog/glue/glue_columns.h"
#include "catalog/table/metastore_table_operations.h"
#include "common/strings.h"
#include "iceberg/spec/table_metadata_builder.h"
#include "io/s3/file_io_factory.h"

namespace floe::catalog::glue {

using iceberg::LoadedTable;
using iceberg::TableMetadata;
using json::Json;

namespace {

constexpr int kMaxPages = 100000;
constexpr char kExternalTable[] = "EXTERNAL_TABLE";

// Java's TableProperties that name extra locations of a table's files; Glue
// lists them as the StorageDescriptor's AdditionalLocations.
constexpr const char* kAdditionalLocationProperties[] = {
    "write.data.path", "write.metadata.path", "write.object-storage.path", "write.folder-storage.path"};

bool IsGlueNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

Status ValidateGlueName(const std::string& name, size_t max_length, const char* what) {
  if (name.empty() || name.size() > max_length) {
    return Status::InvalidArgument(std::string("Glue ") + what + " name '" + name + "' must be 1-" +
                                   std::to_string(max_length) + " characters long");
  }
  for (char c : name) {
    if (!IsGlueNameCharacter(c)) {
      return Status::InvalidArgument(std::string("Glue ") + what + " name '" + name +
                                     "' may hold only lower-case letters, digits and '_' (as Iceberg's "
                                     "GlueCatalog and Athena require)");
    }
  }
  return Status::OK();
}

Result<std::string> DatabaseOf(const Namespace& ns) {
  if (ns.size() != 1) {
    return Status::InvalidArgument("Glue databases are one level: namespace '" + NamespaceToString(ns) +
                                   "' has " + std::to_string(ns.size()) + " levels");
  }
  FLOE_RETURN_IF_ERROR(ValidateGlueDatabaseName(ns[0]));
  return ns[0];
}

void AddCatalogId(const GlueCatalogOptions& options, Json* request) {
  if (!options.catalog_id.empty()) (*request)["CatalogId"] = options.catalog_id;
}

Json TableRequest(const GlueCatalogOptions& options, const std::string& database, const std::string& table) {
  Json request = {{"DatabaseName", database}, {"Name", table}};
  AddCatalogId(options, &request);
  return request;
}

Result<std::map<std::string, std::string>> OptionalStrings(const Json& object, const char* key,
                                                           const std::string& context) {
  const Json* member = json::FindMember(object, key);
  if (member == nullptr || member->is_null()) return std::map<std::string, std::string>();
  auto map = json::StringMapFromJson(*member, key);
  if (!map.ok()) return map.status().WithContext(context);
  return map;
}

// Calls `operation` until the answer has no NextToken, handing each page's
// `list_key` array to `each`.
Status ForEachPage(aws::AwsJsonClient& client, const char* operation, Json request, const char* list_key,
                   const std::string& context, const std::function<Status(const Json&)>& each) {
  std::set<std::string> seen_tokens;
  for (int page = 0; page < kMaxPages; ++page) {
    auto answer = client.Call(operation, request);
    if (!answer.ok()) return answer.status().WithContext(context);
    auto list = json::GetOptionalArray(*answer, list_key);
    if (!list.ok()) return list.status().WithContext(context);
    if (*list != nullptr) {
      for (const Json& entry : **list) {
        if (!entry.is_object())
          return Status::Corruption(context + ": a " + list_key + " entry is not an object");
        FLOE_RETURN_IF_ERROR(each(entry));
      }
    }
    auto next = json::GetOptionalString(*answer, "NextToken");
    if (!next.ok()) return next.status().WithContext(context);
    if (!next->has_value() || (*next)->empty()) return Status::OK();
    if (!seen_tokens.insert(**next).second) {
      return Status::Corruption(context + ": Glue repeated the page token '" + **next + "'");
    }
    request["NextToken"] = **next;
  }
  return Status::Corruption(context + ": more than " + std::to_string(kMaxPages) + " pages");
}

std::string StripTrailingSlashes(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  return text;
}

bool IsIcebergTableType(const std::string& table_type) {
  return EqualsIgnoreAsciiCase(table_type, kIcebergTableType);
}

// A Glue Table object as GlueTable; `context` names it.
Result<GlueTable> ParseGlueTable(const Json& table, const std::string& context) {
  GlueTable out;
  FLOE_ASSIGN_OR_RETURN(out.parameters, OptionalStrings(table, "Parameters", context));
  auto version = json::GetOptionalString(table, "VersionId");
  if (!version.ok()) return version.status().WithContext(context);
  out.version_id = version->value_or("");
  auto description = json::GetOptionalString(table, "Description");
  if (!description.ok()) return description.status().WithContext(context);
  out.description = description->value_or("");
  if (auto it = out.parameters.find(kTableTypeParameter); it != out.parameters.end())
    out.table_type = it->second;
  if (auto it = out.parameters.find(kMetadataLocationParameter); it != out.parameters.end()) {
    out.metadata_location = it->second;
  }
  auto storage = json::GetOptionalObject(table, "StorageDescriptor");
  if (!storage.ok()) return storage.status().WithContext(context);
  if (*storage != nullptr) {
    auto columns = json::GetOptionalArray(**storage, "Columns");
    if (!columns.ok()) return columns.status().WithContext(context + ", StorageDescriptor");
    if (*columns != nullptr) {
      for (const Json& column : **columns) {
        auto name = json::GetOptionalString(column, "Name");
        auto comment = json::GetOptionalString(column, "Comment");
        if (!name.ok() || !comment.ok())
          return Status::Corruption(context + ": a column has a non-string name or comment");
        if (name->has_value() && comment->has_value()) out.column_comments[**name] = **comment;
      }
    }
  }
  return out;
}

Status DeleteUncommitted(FileIO& io, const std::string& location) {
  // Best effort: a file that stays behind is an orphan, never a wrong table.
  (void)io.Delete(location);
  return Status::OK();
}

}  // namespace

Status ValidateGlueDatabaseName(const std::string& name) {
  return ValidateGlueName(name, 252, "database");
}

Status ValidateGlueTableName(const std::string& name) {
  return ValidateGlueName(name, 255, "table");
}

Result<GlueTable> GetGlueTable(aws::AwsJsonClient& client, const GlueCatalogOptions& options,
                               const TableIdentifier& table) {
  const std::string context = "Glue table " + table.ToString();
  FLOE_ASSIGN_OR_RETURN(std::string database, DatabaseOf(table.ns));
  FLOE_RETURN_IF_ERROR(ValidateGlueTableName(table.name));
  auto answer = client.Call("GetTable", TableRequest(options, database, table.name));
  if (!answer.ok()) {
    if (answer.status().kind() == ErrorKind::kNotFound) {
      return Status::NotFound("table " + table.ToString() + " does not exist in the Glue Data Catalog");
    }
    return answer.status().WithContext(context);
  }
  auto object = json::GetObject(*answer, "Table");
  if (!object.ok()) return object.status().WithContext(context + ": GetTable answer");
  FLOE_ASSIGN_OR_RETURN(GlueTable parsed, ParseGlueTable(**object, context));
  if (!IsIcebergTableType(parsed.table_type)) {
    return Status::InvalidArgument(context + " is not an Iceberg table (table_type = '" + parsed.table_type +
                                   "')");
  }
  if (parsed.metadata_location.empty()) {
    return Status::InvalidArgument(context + " has no metadata_location parameter");
  }
  return parsed;
}

Json GlueTableInput(const TableIdentifier& table, const TableMetadata& metadata,
                    const std::string& metadata_location, const std::string& previous_metadata_location,
                    const GlueTable* existing) {
  std::map<std::string, std::string> parameters;
  if (existing != nullptr) parameters = existing->parameters;
  parameters[kTableTypeParameter] = kIcebergTableType;
  parameters[kMetadataLocationParameter] = metadata_location;
  if (!previous_metadata_location.empty()) {
    parameters[kPreviousMetadataLocationParameter] = previous_metadata_location;
  }
  Json storage = {{"Location", metadata.location},
                  {"Columns", GlueColumns(metadata, existing ? existing->column_comments
                                                             : std::map<std::string, std::string>())}};
  Json additional = Json::array();
  std::set<std::string> seen;
  for (const char* key : kAdditionalLocationProperties) {
    auto it = metadata.properties.find(key);
    if (it != metadata.properties.end() && seen.insert(it->second).second) additional.push_back(it->second);
  }
  if (!additional.empty()) storage["AdditionalLocations"] = additional;
  Json input = {{"Name", table.name},
                {"TableType", kExternalTable},
                {"Parameters", parameters},
                {"StorageDescriptor", std::move(storage)}};
  if (auto comment = metadata.properties.find("comment"); comment != metadata.properties.end()) {
    input["Description"] = comment->second;
  } else if (existing != nullptr && !existing->description.empty()) {
    input["Description"] = existing->description;
  }
  return input;
}

GlueCatalog::GlueCatalog(GlueCatalogOptions options, std::string warehouse, s3::S3Options s3,
                         std::shared_ptr<FileIO> io, bool io_given,
                         std::shared_ptr<aws::AwsJsonClient> client)
    : options_(std::move(options)),
      warehouse_(StripTrailingSlashes(std::move(warehouse))),
      s3_(std::move(s3)),
      io_(std::move(io)),
      io_given_(io_given),
      client_(std::move(client)) {}

Result<std::unique_ptr<GlueCatalog>> GlueCatalog::Open(const GlueCatalogOptions& options,
                                                       std::string warehouse, const s3::S3Options& s3,
                                                       std::shared_ptr<FileIO> io,
                                                       const aws::EnvLookup& env) {
  aws::AwsClientOptions client_options;
  client_options.credentials = s3::CredentialOptionsOf(s3);
  if (!options.region.empty()) client_options.credentials.region = options.region;
  client_options.endpoint = options.endpoint;
  client_options.retry = options.retry;
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<aws::AwsJsonClient> client,
                        aws::AwsJsonClient::Open(aws::GlueService(), client_options, env));
  const bool io_given = io != nullptr;
  if (!io) {
    if (!warehouse.empty()) {
      auto warehouse_io = FileIOForUri(warehouse, s3);
      if (!warehouse_io.ok()) return warehouse_io.status().WithContext("warehouse " + warehouse);
      io = std::move(*warehouse_io);
    } else {
      io = MakeLocalFileIO();
    }
  }
  return std::unique_ptr<GlueCatalog>(
      new GlueCatalog(options, std::move(warehouse), s3, std::move(io), io_given,
                      std::shared_ptr<aws::AwsJsonClient>(std::move(client))));
}

Result<std::shared_ptr<FileIO>> GlueCatalog::IoFor(const std::string& location) {
  if (io_given_) return io_;
  auto io = FileIOForUri(location, s3_);
  if (!io.ok()) return io.status().WithContext("table location " + location);
  return io;
}

Status GlueCatalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  FLOE_ASSIGN_OR_RETURN(std::string database, DatabaseOf(ns));
  Json input = {{"Name", database}};
  std::map<std::string, std::string> parameters;
  for (const auto& [key, value] : properties) {
    if (key == "comment") {
      input["Description"] = value;
    } else if (key == "location") {
      input["LocationUri"] = value;
    } else {
      parameters[key] = value;
    }
  }
  input["Parameters"] = parameters;
  Json request = {{"DatabaseInput", std::move(input)}};
  AddCatalogId(options_, &request);
  auto answer = client_->Call("CreateDatabase", request, aws::CallKind::kMutation);
  if (!answer.ok()) {
    if (answer.status().kind() == ErrorKind::kAlreadyExists) {
      return Status::AlreadyExists("namespace '" + database + "' already exists in the Glue Data Catalog");
    }
    return answer.status().WithContext("creating Glue database " + database);
  }
  return Status::OK();
}

Result<std::vector<Namespace>> GlueCatalog::ListNamespaces(const Namespace& parent) {
  if (!parent.empty()) {
    FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(parent));
    if (!exists) return Status::NotFound("namespace '" + NamespaceToString(parent) + "' does not exist");
    return std::vector<Namespace>();  // Glue databases do not nest
  }
  std::vector<Namespace> out;
  Json request = Json::object();
  AddCatalogId(options_, &request);
  FLOE_RETURN_IF_ERROR(ForEachPage(*client_, "GetDatabases", request, "DatabaseList",
                                   "listing Glue databases", [&](const Json& database) -> Status {
                                     auto name = json::GetString(database, "Name");
                                     if (!name.ok()) return name.status().WithContext("GetDatabases");
                                     out.push_back({*name});
                                     return Status::OK();
                                   }));
  return out;
}

Result<bool> GlueCatalog::NamespaceExists(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string database, DatabaseOf(ns));
  Json request = {{"Name", database}};
  AddCatalogId(options_, &request);
  auto answer = client_->Call("GetDatabase", request);
  if (answer.ok()) return true;
  if (answer.status().kind() == ErrorKind::kNotFound) return false;
  return answer.status().WithContext("reading Glue database " + database);
}

Result<std::vector<TableIdentifier>> GlueCatalog::ListTables(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(std::string database, DatabaseOf(ns));
  std::vector<TableIdentifier> out;
  Json request = {{"DatabaseName", database}};
  AddCatalogId(options_, &request);
  const std::string context = "listing the tables of Glue database " + database;
  Status listed =
      ForEachPage(*client_, "GetTables", request, "TableList", context, [&](const Json& table) -> Status {
        FLOE_ASSIGN_OR_RETURN(std::string name, json::GetString(table, "Name"));
        FLOE_ASSIGN_OR_RETURN(auto parameters, OptionalStrings(table, "Parameters", context));
        auto type = parameters.find(kTableTypeParameter);
        if (type != parameters.end() && IsIcebergTableType(type->second)) out.push_back({{database}, name});
        return Status::OK();
      });
  if (listed.kind() == ErrorKind::kNotFound) {
    return Status::NotFound("namespace '" + database + "' does not exist in the Glue Data Catalog");
  }
  FLOE_RETURN_IF_ERROR(listed);
  return out;
}

Result<std::shared_ptr<iceberg::TableOperations>> GlueCatalog::LoadTable(const TableIdentifier& table) {
  FLOE_ASSIGN_OR_RETURN(GlueTable glue_table, GetGlueTable(*client_, options_, table));
  // The table's FileIO follows its metadata file's location (s3:// or local).
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<FileIO> io, IoFor(glue_table.metadata_location));
  auto ops = std::make_shared<GlueTableOperations>(client_, options_, table, std::move(io), std::nullopt);
  FLOE_RETURN_IF_ERROR(ops->Load().status());
  return std::shared_ptr<iceberg::TableOperations>(std::move(ops));
}

Result<std::string> GlueCatalog::DefaultLocation(const TableIdentifier& table) {
  FLOE_ASSIGN_OR_RETURN(std::string database, DatabaseOf(table.ns));
  Json request = {{"Name", database}};
  AddCatalogId(options_, &request);
  auto answer = client_->Call("GetDatabase", request);
  if (!answer.ok()) {
    if (answer.status().kind() == ErrorKind::kNotFound) {
      return Status::NotFound("namespace '" + database + "' does not exist in the Glue Data Catalog");
    }
    return answer.status().WithContext("reading Glue database " + database);
  }
  auto object = json::GetObject(*answer, "Database");
  if (!object.ok()) return object.status().WithContext("GetDatabase " + database);
  auto location = json::GetOptionalString(**object, "LocationUri");
  if (!location.ok()) return location.status().WithContext("GetDatabase " + database);
  if (location->has_value() && !StripTrailingSlashes(**location).empty()) {
    return StripTrailingSlashes(**location) + "/" + table.name;
  }
  if (warehouse_.empty()) {
    return Status::InvalidArgument("creating table " + table.ToString() + ": Glue database " + database +
                                   " has no LocationUri and the catalog has no warehouse for new tables");
  }
  return warehouse_ + "/" + database + ".db/" + table.name;
}

Result<std::shared_ptr<iceberg::TableOperations>> GlueCatalog::CreateTable(const TableIdentifier& table,
                                                                           const TableCreation& creation) {
  const std::string context = "creating table " + table.ToString() + " in the Glue Data Catalog";
  FLOE_ASSIGN_OR_RETURN(std::string database, DatabaseOf(table.ns));
  FLOE_RETURN_IF_ERROR(ValidateGlueTableName(table.name));
  std::string location = StripTrailingSlashes(creation.location);
  if (location.empty()) {
    FLOE_ASSIGN_OR_RETURN(location, DefaultLocation(table));
  } else {
    // The database must exist even when the location is given.
    FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(table.ns));
    if (!exists)
      return Status::NotFound("namespace '" + database + "' does not exist in the Glue Data Catalog");
  }
  FLOE_ASSIGN_OR_RETURN(
      TableMetadata metadata,
      iceberg::NewTableMetadata(location, creation.schema, creation.spec, creation.sort_order,
                                creation.properties, creation.format_version));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<FileIO> io, IoFor(location));
  const std::string metadata_location = NewMetadataFileLocation(metadata.location, 0);
  FLOE_RETURN_IF_ERROR(WriteTableMetadata(*io, metadata_location, metadata));

  Json request = {{"DatabaseName", database},
                  {"TableInput", GlueTableInput(table, metadata, metadata_location, "", nullptr)}};
  AddCatalogId(options_, &request);
  auto answer = client_->Call("CreateTable", request, aws::CallKind::kMutation);
  if (!answer.ok()) {
    const Status& failure = answer.status();
    if (failure.kind() == ErrorKind::kCommitStateUnknown) {
      // Settle it: the table exists with our file, or the outcome stays unknown (the file is kept).
      auto created = GetGlueTable(*client_, options_, table);
      if (!created.ok() || created->metadata_location != metadata_location)
        return failure.WithContext(context);
    } else {
      (void)DeleteUncommitted(*io, metadata_location);
      if (failure.kind() == ErrorKind::kAlreadyExists) {
        return Status::AlreadyExists("table " + table.ToString() +
                                     " already exists in the Glue Data Catalog");
      }
      if (failure.kind() == ErrorKind::kNotFound) {
        return Status::NotFound("namespace '" + database + "' does not exist in the Glue Data Catalog");
      }
      return failure.WithContext(context);
    }
  }
  return std::shared_ptr<iceberg::TableOperations>(std::make_shared<GlueTableOperations>(
      client_, options_, table, std::move(io), LoadedTable{std::move(metadata), metadata_location}));
}

Status GlueCatalog::DropTable(const TableIdentifier& table) {
  FLOE_ASSIGN_OR_RETURN(std::string database, DatabaseOf(table.ns));
  auto answer =
      client_->Call("DeleteTable", TableRequest(options_, database, table.name), aws::CallKind::kMutation);
  if (!answer.ok()) return answer.status().WithContext("dropping Glue table " + table.ToString());
  return Status::OK();
}

Result<LoadedTable> GlueTableOperations::Read(const std::string& metadata_location) {
  if (cached_ && cached_->metadata_location == metadata_location) return *cached_;
  FLOE_ASSIGN_OR_RETURN(TableMetadata metadata, ReadTableMetadata(*io_, metadata_location));
  cached_ = LoadedTable{std::move(metadata), metadata_location};
  return *cached_;
}

Result<LoadedTable> GlueTableOperations::Load() {
  FLOE_ASSIGN_OR_RETURN(GlueTable table, GetGlueTable(*client_, options_, identifier_));
  return Read(table.metadata_location);
}

Result<LoadedTable> GlueTableOperations::Commit(const std::vector<iceberg::TableRequirement>& requirements,
                                                const std::vector<iceberg::TableUpdate>& updates) {
  const std::string context = "committing to Glue table " + name();
  FLOE_ASSIGN_OR_RETURN(GlueTable current, GetGlueTable(*client_, options_, identifier_));
  FLOE_ASSIGN_OR_RETURN(LoadedTable base, Read(current.metadata_location));
  FLOE_RETURN_IF_ERROR(iceberg::CheckRequirements(&base.metadata, requirements).WithContext(name()));
  FLOE_ASSIGN_OR_RETURN(TableMetadata next,
                        iceberg::ApplyUpdates(base.metadata, base.metadata_location, updates));
  const int64_t version = MetadataFileVersion(base.metadata_location).value_or(0) + 1;
  const std::string location = NewMetadataFileLocation(next.location, version);
  FLOE_RETURN_IF_ERROR(WriteTableMetadata(*io_, location, next));

  Json request = {
      {"DatabaseName", identifier_.ns.front()},
      {"TableInput", GlueTableInput(identifier_, next, location, base.metadata_location, &current)},
      {"SkipArchive", options_.skip_archive}};
  if (!current.version_id.empty()) request["VersionId"] = current.version_id;
  AddCatalogId(options_, &request);
  auto answer = client_->Call("UpdateTable", request, aws::CallKind::kMutation);
  if (!answer.ok()) {
    const Status& failure = answer.status();
    if (failure.kind() != ErrorKind::kCommitStateUnknown) {
      // Glue refused the update (a concurrent commit changed the VersionId,
      // the table is gone, throttled past the retry budget): nothing points
      // at the new file.
      (void)DeleteUncommitted(*io_, location);
      if (failure.kind() == ErrorKind::kCommitFailed) {
        return Status::CommitFailed(context + ": another commit changed the table first (" +
                                    failure.message() + ")");
      }
      return failure.WithContext(context);
    }
    auto settled = GetGlueTable(*client_, options_, identifier_);
    if (!settled.ok() || settled->metadata_location != location) return failure.WithContext(context);
  }
  cached_ = LoadedTable{std::move(next), location};
  return *cached_;
}

}  // namespace floe::catalog::glue
