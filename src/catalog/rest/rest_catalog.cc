#include "catalog/rest/rest_catalog.h"

#include <algorithm>
#include <set>

#include "catalog/rest/rest_protocol.h"
#include "iceberg/spec/json_util.h"
#include "io/s3/file_io_factory.h"

namespace floe::catalog::rest {

using iceberg::Json;
using iceberg::LoadedTable;
using iceberg::OrderedJson;

namespace {

constexpr int kMaxListPages = 100000;

bool IsSuccess(long status) {
  return status >= 200 && status < 300;
}

// Sends one request; a non-2xx answer becomes the mapped error.
Result<RestReply> Call(RestSession& session, RestRequest request, RequestKind kind,
                       const std::string& operation) {
  auto reply = session.Send(request);
  if (!reply.ok()) return reply.status().WithContext(operation);
  if (!IsSuccess(reply->status)) {
    return ErrorFromResponse(reply->status, reply->body, kind, operation, session.secrets());
  }
  return reply;
}

Result<Json> ParseObject(const std::string& body, const std::string& operation) {
  auto json = iceberg::ParseJson(body);
  if (!json.ok()) return json.status().WithContext(operation + ": the server's answer");
  if (!json->is_object()) return Status::Corruption(operation + ": the server's answer is not a JSON object");
  return json;
}

Result<std::map<std::string, std::string>> OptionalStringMap(const Json& object, std::string_view key,
                                                             const std::string& operation) {
  const Json* member = iceberg::FindMember(object, key);
  if (member == nullptr || member->is_null()) return std::map<std::string, std::string>();
  auto map = iceberg::StringMapFromJson(*member, key);
  if (!map.ok()) return map.status().WithContext(operation);
  return map;
}

std::string BodyText(const OrderedJson& json) {
  return json.dump();
}

// S3 settings a server may vend in a table's config (Iceberg's S3FileIO property names).
s3::S3Options S3OptionsWithTableConfig(s3::S3Options options,
                                       const std::map<std::string, std::string>& config) {
  auto get = [&](const char* key) -> const std::string* {
    auto it = config.find(key);
    return it == config.end() || it->second.empty() ? nullptr : &it->second;
  };
  if (auto* v = get("s3.endpoint")) options.endpoint = *v;
  if (auto* v = get("client.region")) options.region = *v;
  if (auto* v = get("s3.region")) options.region = *v;
  if (auto* v = get("s3.path-style-access")) options.path_style = (*v == "true");
  const std::string* key_id = get("s3.access-key-id");
  const std::string* secret = get("s3.secret-access-key");
  if (key_id && secret) {
    options.access_key_id = *key_id;
    options.secret_access_key = *secret;
    const std::string* session_token = get("s3.session-token");
    options.session_token = session_token ? *session_token : "";
  }
  return options;
}

// The format version snapshots in `updates` are written for: the table's
// (`cached`), else 3 when a snapshot carries row lineage (first_row_id
// exists only in format 3), else 2; raised by an upgrade among the updates.
int FormatVersionFor(const std::optional<LoadedTable>& cached,
                     const std::vector<iceberg::TableUpdate>& updates) {
  int version = cached ? cached->metadata.format_version : 2;
  for (const auto& update : updates) {
    if (const auto* upgrade = std::get_if<iceberg::update::UpgradeFormatVersion>(&update)) {
      version = std::max(version, upgrade->format_version);
    }
    if (const auto* added = std::get_if<iceberg::update::AddSnapshot>(&update);
        added && !cached && added->snapshot.first_row_id) {
      version = std::max(version, 3);
    }
  }
  return version;
}

// A CommitTableRequest: the table's identifier, requirements and updates.
OrderedJson CommitRequestJson(const TableIdentifier& table,
                              const std::vector<iceberg::TableRequirement>& requirements,
                              const std::vector<iceberg::TableUpdate>& updates, int format_version) {
  OrderedJson body = OrderedJson::object();
  body["identifier"] = TableIdentifierToJson(table);
  body["requirements"] = OrderedJson::array();
  for (const auto& requirement : requirements) {
    body["requirements"].push_back(iceberg::TableRequirementToJson(requirement));
  }
  body["updates"] = OrderedJson::array();
  for (const auto& update : updates) {
    body["updates"].push_back(iceberg::TableUpdateToJson(update, format_version));
  }
  return body;
}

// Sends a commit request. A transport failure is CommitStateUnknown (the
// request may have reached the server and been applied); a non-2xx answer
// is the mapped error (409: retryable CommitFailed; 5xx: unknown).
Result<RestReply> SendCommit(RestSession& session, const RestRequest& request, const std::string& operation) {
  auto reply = session.Send(request);
  if (!reply.ok()) return Status::CommitStateUnknown(operation + ": " + reply.status().message());
  if (!IsSuccess(reply->status)) {
    return ErrorFromResponse(reply->status, reply->body, RequestKind::kCommit, operation, session.secrets());
  }
  return reply;
}

}  // namespace

Result<LoadedTable> LoadedTableFromJson(const std::string& body, const std::string& context,
                                        std::map<std::string, std::string>* config) {
  FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(body, context));
  auto location = iceberg::GetOptionalString(json, "metadata-location");
  if (!location.ok()) return location.status().WithContext(context);
  const Json* metadata = iceberg::FindMember(json, "metadata");
  if (metadata == nullptr || !metadata->is_object()) {
    return Status::Corruption(context + ": the answer has no 'metadata' object");
  }
  auto parsed = iceberg::TableMetadataFromJsonValue(*metadata);
  if (!parsed.ok()) return parsed.status().WithContext(context + ": table metadata");
  if (config != nullptr) {
    FLOE_ASSIGN_OR_RETURN(*config, OptionalStringMap(json, "config", context));
  }
  return LoadedTable{std::move(*parsed), location->value_or("")};
}

Result<CatalogConfigAnswer> CatalogConfigFromJson(const std::string& body, const std::string& context) {
  FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(body, context));
  CatalogConfigAnswer answer;
  FLOE_ASSIGN_OR_RETURN(answer.defaults, OptionalStringMap(json, "defaults", context));
  FLOE_ASSIGN_OR_RETURN(answer.overrides, OptionalStringMap(json, "overrides", context));
  auto endpoints = iceberg::GetOptionalArray(json, "endpoints");
  if (!endpoints.ok()) return endpoints.status().WithContext(context);
  if (*endpoints != nullptr) {
    answer.endpoints.emplace();
    for (const Json& entry : **endpoints) {
      if (!entry.is_string())
        return Status::Corruption(context + ": an entry of 'endpoints' is not a string");
      answer.endpoints->push_back(entry.get<std::string>());
    }
  }
  return answer;
}

Result<std::string> ListPageFromJson(const std::string& body, std::string_view array_key,
                                     const std::string& context,
                                     const std::function<Status(const Json&)>& on_entry) {
  FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(body, context));
  auto list = iceberg::GetOptionalArray(json, array_key);
  if (!list.ok()) return list.status().WithContext(context);
  if (*list != nullptr) {
    for (const Json& entry : **list) FLOE_RETURN_IF_ERROR(on_entry(entry));
  }
  auto next = iceberg::GetOptionalString(json, "next-page-token");
  if (!next.ok()) return next.status().WithContext(context);
  return next->value_or("");
}

Result<std::unique_ptr<RestCatalog>> RestCatalog::Open(const RestCatalogOptions& options,
                                                       std::shared_ptr<FileIO> io,
                                                       const aws::EnvLookup& env) {
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<RestSession> session, RestSession::Open(options, env));
  const bool io_given = io != nullptr;
  if (!io) io = MakeLocalFileIO();
  std::unique_ptr<RestCatalog> catalog(
      new RestCatalog(options, std::shared_ptr<RestSession>(std::move(session)), std::move(io), io_given));
  FLOE_RETURN_IF_ERROR(catalog->LoadConfig());
  return catalog;
}

Status RestCatalog::LoadConfig() {
  const std::string operation = "reading the catalog config of " + session_->base_uri();
  RestRequest request{"GET", "/v1/config", {}, "", ""};
  if (!options_.warehouse.empty()) request.query.emplace_back("warehouse", options_.warehouse);
  FLOE_ASSIGN_OR_RETURN(RestReply reply, Call(*session_, request, RequestKind::kRead, operation));
  FLOE_ASSIGN_OR_RETURN(CatalogConfigAnswer answer, CatalogConfigFromJson(reply.body, operation));
  std::map<std::string, std::string> merged = std::move(answer.defaults);
  const std::map<std::string, std::string>& overrides = answer.overrides;
  if (!options_.prefix.empty()) merged["prefix"] = options_.prefix;
  if (!options_.warehouse.empty()) merged["warehouse"] = options_.warehouse;
  for (const auto& [key, value] : overrides) merged[key] = value;

  prefix_ = merged.count("prefix") ? merged["prefix"] : "";
  while (!prefix_.empty() && prefix_.front() == '/') prefix_.erase(prefix_.begin());
  while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
  for (char c : prefix_) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f || c == '?' || c == '#') {
      return Status::InvalidArgument(operation + ": prefix '" + prefix_ +
                                     "' contains a character not allowed in a path");
    }
  }
  warehouse_ = merged.count("warehouse") ? merged["warehouse"] : "";
  transactions_endpoint_ =
      answer.endpoints && std::find(answer.endpoints->begin(), answer.endpoints->end(),
                                    kTransactionsCommitEndpoint) != answer.endpoints->end();
  if (auto it = overrides.find("uri"); it != overrides.end() && !it->second.empty()) {
    FLOE_RETURN_IF_ERROR(session_->SetBaseUri(it->second).WithContext(operation + ": override 'uri'"));
  }
  return Status::OK();
}

std::string RestCatalog::Root() const {
  return prefix_.empty() ? "/v1" : "/v1/" + prefix_;
}

std::string RestCatalog::NamespacePath(const Namespace& ns) const {
  return Root() + "/namespaces/" + NamespaceToPathSegment(ns);
}

std::string RestCatalog::TablePath(const TableIdentifier& table) const {
  return NamespacePath(table.ns) + "/tables/" + PercentEncode(table.name);
}

Status RestCatalog::CreateNamespace(const Namespace& ns, const Properties& properties) {
  FLOE_RETURN_IF_ERROR(ValidateNamespace(ns));
  OrderedJson body = OrderedJson::object();
  body["namespace"] = ns;
  body["properties"] = properties;
  RestRequest request{"POST", Root() + "/namespaces", {}, BodyText(body)};
  return Call(*session_, request, RequestKind::kCreate, "creating namespace '" + NamespaceToString(ns) + "'")
      .status();
}

Result<std::vector<Namespace>> RestCatalog::ListNamespaces(const Namespace& parent) {
  const std::string operation = "listing namespaces under '" + NamespaceToString(parent) + "'";
  RestRequest request{"GET", Root() + "/namespaces", {}, "", ""};
  if (!parent.empty()) request.query.emplace_back("parent", NamespaceToDecoded(parent));
  std::vector<Namespace> out;
  FLOE_RETURN_IF_ERROR(ListAllPages(request, "namespaces", operation, [&](const Json& entry) -> Status {
    auto ns = NamespaceFromJson(entry, "namespaces entry");
    if (!ns.ok()) return Status::Corruption(operation + ": " + ns.status().message());
    out.push_back(std::move(*ns));
    return Status::OK();
  }));
  return out;
}

Result<bool> RestCatalog::NamespaceExists(const Namespace& ns) {
  RestRequest request{"HEAD", NamespacePath(ns), {}, "", ""};
  auto reply = session_->Send(request);
  const std::string operation = "checking namespace '" + NamespaceToString(ns) + "'";
  if (!reply.ok()) return reply.status().WithContext(operation);
  if (reply->status == 404) return false;
  if (!IsSuccess(reply->status))
    return ErrorFromResponse(reply->status, reply->body, RequestKind::kRead, operation, session_->secrets());
  return true;
}

Result<Properties> RestCatalog::LoadNamespaceProperties(const Namespace& ns) {
  const std::string operation = "loading namespace '" + NamespaceToString(ns) + "'";
  RestRequest request{"GET", NamespacePath(ns), {}, "", ""};
  FLOE_ASSIGN_OR_RETURN(RestReply reply, Call(*session_, request, RequestKind::kRead, operation));
  FLOE_ASSIGN_OR_RETURN(Json json, ParseObject(reply.body, operation));
  return OptionalStringMap(json, "properties", operation);
}

Status RestCatalog::UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                              const std::vector<std::string>& removals) {
  OrderedJson body = OrderedJson::object();
  body["removals"] = removals;
  body["updates"] = updates;
  RestRequest request{"POST", NamespacePath(ns) + "/properties", {}, BodyText(body)};
  return Call(*session_, request, RequestKind::kOther,
              "updating the properties of namespace '" + NamespaceToString(ns) + "'")
      .status();
}

Status RestCatalog::DropNamespace(const Namespace& ns) {
  RestRequest request{"DELETE", NamespacePath(ns), {}, "", ""};
  return Call(*session_, request, RequestKind::kOther, "dropping namespace '" + NamespaceToString(ns) + "'")
      .status();
}

Result<std::vector<TableIdentifier>> RestCatalog::ListTables(const Namespace& ns) {
  const std::string operation = "listing tables of namespace '" + NamespaceToString(ns) + "'";
  RestRequest request{"GET", NamespacePath(ns) + "/tables", {}, "", ""};
  std::vector<TableIdentifier> out;
  FLOE_RETURN_IF_ERROR(ListAllPages(request, "identifiers", operation, [&](const Json& entry) -> Status {
    auto id = TableIdentifierFromJson(entry);
    if (!id.ok()) return Status::Corruption(operation + ": " + id.status().message());
    out.push_back(std::move(*id));
    return Status::OK();
  }));
  return out;
}

Status RestCatalog::ListAllPages(RestRequest request, std::string_view array_key,
                                 const std::string& operation,
                                 const std::function<Status(const Json&)>& on_entry) {
  std::set<std::string> seen_tokens;
  std::string page_token;
  const size_t base_query = request.query.size();
  for (int page = 0; page < kMaxListPages; ++page) {
    request.query.resize(base_query);
    if (!page_token.empty()) request.query.emplace_back("pageToken", page_token);
    FLOE_ASSIGN_OR_RETURN(RestReply reply, Call(*session_, request, RequestKind::kRead, operation));
    FLOE_ASSIGN_OR_RETURN(std::string next, ListPageFromJson(reply.body, array_key, operation, on_entry));
    if (next.empty()) return Status::OK();
    if (!seen_tokens.insert(next).second) {
      return Status::Corruption(operation + ": the server repeated page token '" + next + "'");
    }
    page_token = std::move(next);
  }
  return Status::Corruption(operation + ": more than " + std::to_string(kMaxListPages) + " pages");
}

Result<std::shared_ptr<iceberg::TableOperations>> RestCatalog::OpsFromLoadResult(
    const TableIdentifier& table, const std::string& body, const std::string& operation) {
  std::map<std::string, std::string> config;
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadedTableFromJson(body, operation, &config));
  std::shared_ptr<FileIO> table_io = io_;
  if (!io_given_) {
    auto io = FileIOForUri(loaded.metadata.location, S3OptionsWithTableConfig(options_.s3, config));
    if (!io.ok()) return io.status().WithContext(operation + ": table location " + loaded.metadata.location);
    table_io = std::move(*io);
  }
  return std::shared_ptr<iceberg::TableOperations>(std::make_shared<RestTableOperations>(
      session_, TablePath(table), table, std::move(table_io), std::move(loaded)));
}

Result<std::shared_ptr<iceberg::TableOperations>> RestCatalog::LoadTable(const TableIdentifier& table) {
  const std::string operation = "loading table " + table.ToString();
  RestRequest request{"GET", TablePath(table), {}, "", ""};
  FLOE_ASSIGN_OR_RETURN(RestReply reply, Call(*session_, request, RequestKind::kRead, operation));
  return OpsFromLoadResult(table, reply.body, operation);
}

Result<std::shared_ptr<iceberg::TableOperations>> RestCatalog::CreateTable(const TableIdentifier& table,
                                                                           const TableCreation& creation) {
  const std::string operation = "creating table " + table.ToString();
  FLOE_RETURN_IF_ERROR(ValidateTableIdentifier(table).WithContext(operation));
  OrderedJson body = OrderedJson::object();
  body["name"] = table.name;
  if (!creation.location.empty()) body["location"] = creation.location;
  body["schema"] = iceberg::SchemaToJson(creation.schema);
  body["partition-spec"] = iceberg::PartitionSpecToJson(creation.spec);
  body["write-order"] = iceberg::SortOrderToJson(creation.sort_order);
  body["stage-create"] = false;
  Properties properties = creation.properties;
  properties["format-version"] = std::to_string(creation.format_version);
  body["properties"] = properties;
  RestRequest request{"POST", NamespacePath(table.ns) + "/tables", {}, BodyText(body)};
  FLOE_ASSIGN_OR_RETURN(RestReply reply, Call(*session_, request, RequestKind::kCreate, operation));
  return OpsFromLoadResult(table, reply.body, operation);
}

Result<std::vector<LoadedTable>> RestCatalog::CommitTables(const std::vector<TableChanges>& changes) {
  std::string names;
  for (const TableChanges& change : changes) names += (names.empty() ? "" : ", ") + change.table.ToString();
  const std::string operation = "committing tables " + names + " in one transaction";
  if (!transactions_endpoint_) {
    return Status::NotSupported(operation + ": the server's config does not list " +
                                std::string(kTransactionsCommitEndpoint));
  }
  OrderedJson body = OrderedJson::object();
  body["table-changes"] = OrderedJson::array();
  for (const TableChanges& change : changes) {
    body["table-changes"].push_back(CommitRequestJson(change.table, change.requirements, change.updates,
                                                      FormatVersionFor(std::nullopt, change.updates)));
  }
  RestRequest request{"POST", Root() + "/transactions/commit", {}, BodyText(body)};
  FLOE_RETURN_IF_ERROR(SendCommit(*session_, request, operation).status());
  std::vector<LoadedTable> out;
  for (const TableChanges& change : changes) {
    auto ops = LoadTable(change.table);
    auto loaded = ops.ok() ? (*ops)->Load() : Result<LoadedTable>(ops.status());
    if (!loaded.ok()) {
      return Status::CommitStateUnknown(operation + ": the server accepted the commit, but loading " +
                                        change.table.ToString() +
                                        " again failed: " + loaded.status().message());
    }
    out.push_back(std::move(loaded).value());
  }
  return out;
}

Result<bool> RestCatalog::TableExists(const TableIdentifier& table) {
  RestRequest request{"HEAD", TablePath(table), {}, "", ""};
  auto reply = session_->Send(request);
  const std::string operation = "checking table " + table.ToString();
  if (!reply.ok()) return reply.status().WithContext(operation);
  if (reply->status == 404) return false;
  if (!IsSuccess(reply->status))
    return ErrorFromResponse(reply->status, reply->body, RequestKind::kRead, operation, session_->secrets());
  return true;
}

Status RestCatalog::DropTable(const TableIdentifier& table, bool purge) {
  RestRequest request{"DELETE", TablePath(table), {{"purgeRequested", purge ? "true" : "false"}}, "", ""};
  return Call(*session_, request, RequestKind::kOther, "dropping table " + table.ToString()).status();
}

Status RestCatalog::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  FLOE_RETURN_IF_ERROR(ValidateTableIdentifier(to).WithContext("renaming table " + from.ToString()));
  OrderedJson body = OrderedJson::object();
  body["source"] = TableIdentifierToJson(from);
  body["destination"] = TableIdentifierToJson(to);
  RestRequest request{"POST", Root() + "/tables/rename", {}, BodyText(body)};
  return Call(*session_, request, RequestKind::kCreate,
              "renaming table " + from.ToString() + " to " + to.ToString())
      .status();
}

Result<std::shared_ptr<iceberg::TableOperations>> RestCatalog::RegisterTable(
    const TableIdentifier& table, const std::string& metadata_location) {
  const std::string operation = "registering table " + table.ToString();
  FLOE_RETURN_IF_ERROR(ValidateTableIdentifier(table).WithContext(operation));
  OrderedJson body = OrderedJson::object();
  body["name"] = table.name;
  body["metadata-location"] = metadata_location;
  RestRequest request{"POST", NamespacePath(table.ns) + "/register", {}, BodyText(body)};
  FLOE_ASSIGN_OR_RETURN(RestReply reply, Call(*session_, request, RequestKind::kCreate, operation));
  return OpsFromLoadResult(table, reply.body, operation);
}

Result<LoadedTable> RestTableOperations::Load() {
  const std::string operation = "loading table " + name();
  RestRequest request{"GET", table_path_, {}, "", ""};
  FLOE_ASSIGN_OR_RETURN(RestReply reply, Call(*session_, request, RequestKind::kRead, operation));
  FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, LoadedTableFromJson(reply.body, operation));
  cached_ = loaded;
  return loaded;
}

Result<LoadedTable> RestTableOperations::Commit(const std::vector<iceberg::TableRequirement>& requirements,
                                                const std::vector<iceberg::TableUpdate>& updates) {
  const std::string operation = "committing to table " + name();
  const OrderedJson body =
      CommitRequestJson(identifier_, requirements, updates, FormatVersionFor(cached_, updates));
  RestRequest request{"POST", table_path_, {}, BodyText(body)};
  FLOE_ASSIGN_OR_RETURN(RestReply reply, SendCommit(*session_, request, operation));
  auto loaded = LoadedTableFromJson(reply.body, operation);
  if (!loaded.ok()) {
    return Status::CommitStateUnknown(
        operation +
        ": the server accepted the commit but its answer is unreadable: " + loaded.status().message());
  }
  cached_ = *loaded;
  return loaded;
}

}  // namespace floe::catalog::rest
