#include "catalog/rest_server/rest_catalog_service.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <set>

#include "catalog/rest/rest_protocol.h"
#include "catalog/rest_server/service_responses.h"
#include "catalog/table/metastore_table_operations.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/spec/table_metadata_builder.h"

namespace floe::catalog::rest {

using iceberg::Json;
using iceberg::LoadedTable;
using iceberg::OrderedJson;

namespace {

constexpr size_t kMaxPathSegments = 16;
constexpr size_t kMaxIssuedTokens = 10000;

// Query strings use form encoding: '+' is a space.
Result<std::string> DecodeQueryPart(std::string text) {
  for (char& c : text) {
    if (c == '+') c = ' ';
  }
  return PercentDecode(text);
}

Status ValidateNamespace(const Namespace& ns) {
  if (ns.empty()) return Status::InvalidArgument("namespace must have at least one level");
  for (const auto& level : ns) FLOE_RETURN_IF_ERROR(ValidateName(level, "namespace level"));
  return Status::OK();
}

OrderedJson NamespaceJson(const Namespace& ns) {
  return OrderedJson(ns);
}

std::string RandomToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

bool ConstantTimeEquals(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// Parses application/x-www-form-urlencoded text.
Result<std::map<std::string, std::string>> ParseForm(const std::string& body) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('&', start);
    if (end == std::string::npos) end = body.size();
    std::string pair = body.substr(start, end - start);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      FLOE_ASSIGN_OR_RETURN(std::string key, DecodeQueryPart(pair.substr(0, eq)));
      FLOE_ASSIGN_OR_RETURN(std::string value,
                            DecodeQueryPart(eq == std::string::npos ? "" : pair.substr(eq + 1)));
      out[key] = value;
    }
    start = end + 1;
  }
  return out;
}

}  // namespace

struct RestCatalogService::Route {
  std::vector<std::string> segments;  // decoded, after "v1" and the prefix
  std::map<std::string, std::string> query;
};

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

Result<std::unique_ptr<RestCatalogService>> RestCatalogService::Create(std::shared_ptr<Metastore> catalog,
                                                                       std::shared_ptr<FileIO> io,
                                                                       std::string warehouse,
                                                                       RestServiceOptions options) {
  if (!catalog || !io) return Status::InvalidArgument("the REST service needs a catalog and a FileIO");
  while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  if (warehouse.empty()) return Status::InvalidArgument("the REST service needs a warehouse location");
  if (!options.prefix.empty()) {
    FLOE_RETURN_IF_ERROR(ValidateName(options.prefix, "prefix"));
    if (options.prefix == "namespaces" || options.prefix == "tables" || options.prefix == "config" ||
        options.prefix == "oauth") {
      return Status::InvalidArgument("prefix '" + options.prefix + "' would clash with a route name");
    }
  }
  if (options.client_id.empty() != options.client_secret.empty()) {
    return Status::InvalidArgument("client credentials need both an id and a secret");
  }
  if (options.issued_token_lifetime_s <= 0) return Status::InvalidArgument("token lifetime must be positive");
  return std::unique_ptr<RestCatalogService>(
      new RestCatalogService(std::move(catalog), std::move(io), std::move(warehouse), std::move(options)));
}

bool RestCatalogService::Authorized(const ServiceRequest& request) {
  if (!requires_auth()) return true;
  auto it = request.headers.find("authorization");
  if (it == request.headers.end() || it->second.rfind("Bearer ", 0) != 0) return false;
  const std::string presented = it->second.substr(7);
  if (!options_.token.empty() && ConstantTimeEquals(presented, options_.token)) return true;
  std::lock_guard<std::mutex> lock(tokens_mutex_);
  auto issued = issued_tokens_.find(presented);
  if (issued == issued_tokens_.end()) return false;
  if (std::chrono::steady_clock::now() >= issued->second) {
    issued_tokens_.erase(issued);
    return false;
  }
  return true;
}

ServiceResponse RestCatalogService::IssueToken(const ServiceRequest& request) {
  auto oauth_error = [](int status, const char* error, const std::string& description) {
    OrderedJson json = OrderedJson::object();
    json["error"] = error;
    json["error_description"] = description;
    return internal::JsonResponse(status, json);
  };
  if (options_.client_id.empty()) {
    return oauth_error(400, "unsupported_grant_type",
                       "this server issues no tokens (start it with client credentials)");
  }
  auto form = ParseForm(request.body);
  if (!form.ok()) return oauth_error(400, "invalid_request", form.status().message());
  if ((*form)["grant_type"] != "client_credentials") {
    return oauth_error(400, "unsupported_grant_type", "only grant_type=client_credentials is supported");
  }
  if (!ConstantTimeEquals((*form)["client_id"], options_.client_id) ||
      !ConstantTimeEquals((*form)["client_secret"], options_.client_secret)) {
    return oauth_error(401, "invalid_client", "unknown client id or wrong secret");
  }
  std::string token = RandomToken();
  if (token.empty()) return internal::ErrorResponse(500, "InternalServerError", "no randomness for a token");
  {
    std::lock_guard<std::mutex> lock(tokens_mutex_);
    const auto now = std::chrono::steady_clock::now();
    for (auto it = issued_tokens_.begin(); it != issued_tokens_.end();) {
      it = now >= it->second ? issued_tokens_.erase(it) : std::next(it);
    }
    if (issued_tokens_.size() >= kMaxIssuedTokens) {
      return internal::ErrorResponse(503, "ServiceUnavailableException", "too many live tokens; retry later");
    }
    issued_tokens_[token] = now + std::chrono::seconds(options_.issued_token_lifetime_s);
  }
  OrderedJson json = OrderedJson::object();
  json["access_token"] = token;
  json["token_type"] = "bearer";
  json["expires_in"] = options_.issued_token_lifetime_s;
  json["issued_token_type"] = "urn:ietf:params:oauth:token-type:access_token";
  return internal::JsonResponse(200, json);
}

ServiceResponse RestCatalogService::Handle(const ServiceRequest& request) {
  ServiceResponse response = Dispatch(request);
  if (request.method == "HEAD") response.body.clear();
  return response;
}

ServiceResponse RestCatalogService::Dispatch(const ServiceRequest& request) {
  const size_t question = request.target.find('?');
  const std::string path = request.target.substr(0, question);
  Route route;
  if (question != std::string::npos) {
    auto query = ParseForm(request.target.substr(question + 1));
    if (!query.ok()) return internal::BadRequest("query string: " + query.status().message());
    route.query = std::move(*query);
  }
  if (path.empty() || path[0] != '/') return internal::BadRequest("request path must start with '/'");
  std::vector<std::string> segments;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    auto decoded = PercentDecode(std::string_view(path).substr(start, end - start));
    if (!decoded.ok()) return internal::BadRequest("request path: " + decoded.status().message());
    segments.push_back(std::move(*decoded));
    if (segments.size() > kMaxPathSegments) return internal::BadRequest("request path has too many segments");
    start = end + 1;
  }
  if (!segments.empty() && segments.back().empty() && segments.size() > 1) segments.pop_back();
  if (segments.empty() || segments[0] != "v1")
    return internal::ErrorResponse(404, "NotFoundException", "unknown route " + path);

  const std::string& method = request.method;
  if (segments.size() == 3 && segments[1] == "oauth" && segments[2] == "tokens") {
    if (method != "POST")
      return internal::ErrorResponse(405, "MethodNotAllowedException", "use POST for " + path);
    return IssueToken(request);
  }
  if (!Authorized(request)) {
    return internal::ErrorResponse(401, "NotAuthorizedException",
                                   "a valid bearer token is required (Authorization: Bearer ...)");
  }
  if (segments.size() == 2 && segments[1] == "config") {
    if (method != "GET")
      return internal::ErrorResponse(405, "MethodNotAllowedException", "use GET for " + path);
    return GetConfig();
  }
  size_t first = 1;
  if (!options_.prefix.empty()) {
    if (segments.size() < 2 || segments[1] != options_.prefix) {
      return internal::ErrorResponse(
          404, "NotFoundException",
          "unknown route " + path + " (this catalog's prefix is '" + options_.prefix + "')");
    }
    first = 2;
  }
  route.segments.assign(segments.begin() + static_cast<std::ptrdiff_t>(first), segments.end());
  const auto& s = route.segments;
  const bool head = method == "HEAD";
  auto not_allowed = [&] {
    return internal::ErrorResponse(405, "MethodNotAllowedException", method + " is not allowed on " + path);
  };

  if (s.size() == 2 && s[0] == "tables" && s[1] == "rename") {
    return method == "POST" ? RenameTable(request.body) : not_allowed();
  }
  if (s.empty() || s[0] != "namespaces")
    return internal::ErrorResponse(404, "NotFoundException", "unknown route " + path);
  if (s.size() == 1) {
    if (method == "GET") return ListNamespaces(route);
    if (method == "POST") return CreateNamespace(request.body);
    return not_allowed();
  }
  auto ns = NamespaceFromDecoded(s[1]);
  if (!ns.ok()) return internal::BadRequest(ns.status().message());
  if (s.size() == 2) {
    if (method == "GET" || head) return LoadNamespace(*ns, head);
    if (method == "DELETE") return DropNamespace(*ns);
    return not_allowed();
  }
  if (s.size() == 3 && s[2] == "properties") {
    return method == "POST" ? UpdateNamespaceProperties(*ns, request.body) : not_allowed();
  }
  if (s.size() == 3 && s[2] == "register") {
    return method == "POST" ? RegisterTable(*ns, request.body) : not_allowed();
  }
  if (s.size() == 3 && s[2] == "tables") {
    if (method == "GET") return ListTables(*ns);
    if (method == "POST") return CreateTable(*ns, request.body);
    return not_allowed();
  }
  if (s.size() == 4 && s[2] == "tables") {
    if (Status valid = ValidateName(s[3], "table name"); !valid.ok())
      return internal::BadRequest(valid.message());
    TableIdentifier id{*ns, s[3]};
    if (method == "GET" || head) return LoadTable(id, head);
    if (method == "POST") return CommitTable(id, request.body);
    if (method == "DELETE") {
      auto purge = route.query.find("purgeRequested");
      return DropTable(id, purge != route.query.end() && purge->second == "true");
    }
    return not_allowed();
  }
  return internal::ErrorResponse(404, "NotFoundException", "unknown route " + path);
}

ServiceResponse RestCatalogService::GetConfig() {
  OrderedJson defaults = OrderedJson::object();
  OrderedJson overrides = OrderedJson::object();
  if (!options_.prefix.empty()) overrides["prefix"] = options_.prefix;
  OrderedJson endpoints = OrderedJson::array();
  const std::string p = "/v1/{prefix}";
  for (const char* e :
       {"GET /namespaces", "POST /namespaces", "GET /namespaces/{namespace}", "HEAD /namespaces/{namespace}",
        "DELETE /namespaces/{namespace}", "POST /namespaces/{namespace}/properties",
        "GET /namespaces/{namespace}/tables", "POST /namespaces/{namespace}/tables",
        "GET /namespaces/{namespace}/tables/{table}", "HEAD /namespaces/{namespace}/tables/{table}",
        "POST /namespaces/{namespace}/tables/{table}", "DELETE /namespaces/{namespace}/tables/{table}",
        "POST /namespaces/{namespace}/register", "POST /tables/rename"}) {
    std::string text = e;
    const size_t space = text.find(' ');
    endpoints.push_back(text.substr(0, space + 1) + p + text.substr(space + 1));
  }
  OrderedJson json = OrderedJson::object();
  json["defaults"] = std::move(defaults);
  json["overrides"] = std::move(overrides);
  json["endpoints"] = std::move(endpoints);
  return internal::JsonResponse(200, json);
}

ServiceResponse RestCatalogService::ListNamespaces(const Route& route) {
  Namespace parent;
  if (auto it = route.query.find("parent"); it != route.query.end() && !it->second.empty()) {
    auto parsed = NamespaceFromDecoded(it->second);
    if (!parsed.ok()) return internal::BadRequest("parent: " + parsed.status().message());
    parent = std::move(*parsed);
    auto exists = catalog_->NamespaceExists(parent);
    if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
    if (!*exists) {
      return internal::ErrorResponse(404, "NoSuchNamespaceException",
                                     "namespace '" + NamespaceToString(parent) + "' does not exist");
    }
  }
  auto children = catalog_->ListNamespaces(parent);
  if (!children.ok()) return internal::FromStatus(children.status(), "NoSuchNamespaceException");
  OrderedJson list = OrderedJson::array();
  for (const auto& child : *children) list.push_back(NamespaceJson(child));
  OrderedJson json = OrderedJson::object();
  json["namespaces"] = std::move(list);
  return internal::JsonResponse(200, json);
}

ServiceResponse RestCatalogService::CreateNamespace(const std::string& body) {
  auto json = internal::ParseRequestBody(body);
  if (!json.ok()) return internal::BadRequest(json.status().message());
  const Json* ns_json = iceberg::FindMember(*json, "namespace");
  if (ns_json == nullptr) return internal::BadRequest("field 'namespace' is missing");
  auto ns = NamespaceFromJson(*ns_json, "field 'namespace'");
  if (!ns.ok()) return internal::BadRequest(ns.status().message());
  if (Status valid = ValidateNamespace(*ns); !valid.ok()) return internal::BadRequest(valid.message());
  Properties properties;
  if (const Json* props = iceberg::FindMember(*json, "properties"); props && !props->is_null()) {
    auto parsed = iceberg::StringMapFromJson(*props, "properties");
    if (!parsed.ok()) return internal::BadRequest(parsed.status().message());
    properties = std::move(*parsed);
  }
  auto exists = catalog_->NamespaceExists(*ns);
  if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
  if (*exists) {
    return internal::ErrorResponse(409, "AlreadyExistsException",
                                   "namespace '" + NamespaceToString(*ns) + "' already exists");
  }
  if (Status created = catalog_->CreateNamespace(*ns, properties); !created.ok()) {
    return internal::FromStatus(created, "NoSuchNamespaceException");
  }
  OrderedJson out = OrderedJson::object();
  out["namespace"] = NamespaceJson(*ns);
  out["properties"] = properties;
  return internal::JsonResponse(200, out);
}

ServiceResponse RestCatalogService::LoadNamespace(const Namespace& ns, bool head) {
  auto exists = catalog_->NamespaceExists(ns);
  if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
  if (!*exists)
    return internal::ErrorResponse(404, "NoSuchNamespaceException",
                                   "namespace '" + NamespaceToString(ns) + "' does not exist");
  if (head) return internal::NoContent();
  auto properties = catalog_->LoadNamespaceProperties(ns);
  if (!properties.ok()) return internal::FromStatus(properties.status(), "NoSuchNamespaceException");
  OrderedJson out = OrderedJson::object();
  out["namespace"] = NamespaceJson(ns);
  out["properties"] = *properties;
  return internal::JsonResponse(200, out);
}

ServiceResponse RestCatalogService::DropNamespace(const Namespace& ns) {
  auto exists = catalog_->NamespaceExists(ns);
  if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
  if (!*exists)
    return internal::ErrorResponse(404, "NoSuchNamespaceException",
                                   "namespace '" + NamespaceToString(ns) + "' does not exist");
  auto tables = catalog_->ListTables(ns);
  if (!tables.ok()) return internal::FromStatus(tables.status(), "NoSuchNamespaceException");
  auto children = catalog_->ListNamespaces(ns);
  if (!children.ok()) return internal::FromStatus(children.status(), "NoSuchNamespaceException");
  if (!tables->empty() || !children->empty()) {
    return internal::ErrorResponse(409, "NamespaceNotEmptyException",
                                   "namespace '" + NamespaceToString(ns) + "' still holds " +
                                       std::to_string(tables->size()) + " table(s) and " +
                                       std::to_string(children->size()) + " namespace(s)");
  }
  if (Status dropped = catalog_->DropNamespace(ns); !dropped.ok())
    return internal::FromStatus(dropped, "NoSuchNamespaceException");
  return internal::NoContent();
}

ServiceResponse RestCatalogService::UpdateNamespaceProperties(const Namespace& ns, const std::string& body) {
  auto json = internal::ParseRequestBody(body);
  if (!json.ok()) return internal::BadRequest(json.status().message());
  std::vector<std::string> removals;
  if (const Json* r = iceberg::FindMember(*json, "removals"); r && !r->is_null()) {
    if (!r->is_array()) return internal::BadRequest("field 'removals' must be an array of strings");
    for (const Json& key : *r) {
      if (!key.is_string()) return internal::BadRequest("field 'removals' must be an array of strings");
      removals.push_back(key.get<std::string>());
    }
  }
  Properties updates;
  if (const Json* u = iceberg::FindMember(*json, "updates"); u && !u->is_null()) {
    auto parsed = iceberg::StringMapFromJson(*u, "updates");
    if (!parsed.ok()) return internal::BadRequest(parsed.status().message());
    updates = std::move(*parsed);
  }
  for (const auto& key : removals) {
    if (updates.count(key)) {
      return internal::ErrorResponse(422, "UnprocessableEntityException",
                                     "property '" + key + "' is both updated and removed");
    }
  }
  auto current = catalog_->LoadNamespaceProperties(ns);
  if (!current.ok()) return internal::FromStatus(current.status(), "NoSuchNamespaceException");
  OrderedJson removed = OrderedJson::array();
  OrderedJson missing = OrderedJson::array();
  for (const auto& key : removals) (current->count(key) ? removed : missing).push_back(key);
  if (Status status = catalog_->UpdateNamespaceProperties(ns, updates, removals); !status.ok()) {
    return internal::FromStatus(status, "NoSuchNamespaceException");
  }
  OrderedJson updated = OrderedJson::array();
  for (const auto& [key, value] : updates) updated.push_back(key);
  OrderedJson out = OrderedJson::object();
  out["updated"] = std::move(updated);
  out["removed"] = std::move(removed);
  out["missing"] = std::move(missing);
  return internal::JsonResponse(200, out);
}

ServiceResponse RestCatalogService::ListTables(const Namespace& ns) {
  auto exists = catalog_->NamespaceExists(ns);
  if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
  if (!*exists)
    return internal::ErrorResponse(404, "NoSuchNamespaceException",
                                   "namespace '" + NamespaceToString(ns) + "' does not exist");
  auto tables = catalog_->ListTables(ns);
  if (!tables.ok()) return internal::FromStatus(tables.status(), "NoSuchNamespaceException");
  OrderedJson list = OrderedJson::array();
  for (const auto& id : *tables) list.push_back(TableIdentifierToJson(id));
  OrderedJson out = OrderedJson::object();
  out["identifiers"] = std::move(list);
  return internal::JsonResponse(200, out);
}

bool RestCatalogService::UnderWarehouse(const std::string& location) const {
  std::string root = warehouse_;
  if (root != "/" && location != root && location.rfind(root + "/", 0) != 0) return false;
  // No "." or ".." segment may lead back out.
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find('/', start);
    if (end == std::string::npos) end = location.size();
    std::string_view segment = std::string_view(location).substr(start, end - start);
    if (segment == "." || segment == "..") return false;
    start = end + 1;
  }
  for (char c : location) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace floe::catalog::rest
