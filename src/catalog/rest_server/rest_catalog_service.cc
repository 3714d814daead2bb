// RestCatalogService: creation, routing, configuration and the namespace
// routes (request_admission.cc checks request heads, rest_catalog_service_tables.cc
// serves tables).
#include "catalog/rest_server/rest_catalog_service.h"

#include <algorithm>
#include <charconv>

#include "aws/digest.h"
#include "catalog/rest/rest_protocol.h"
#include "catalog/rest_server/service_responses.h"
#include "iceberg/spec/json_util.h"

namespace floe::catalog::rest {

using iceberg::Json;
using iceberg::OrderedJson;

namespace {

constexpr size_t kMaxPathSegments = 16;

OrderedJson NamespaceJson(const Namespace& ns) {
  return OrderedJson(ns);
}

ServiceResponse NotImplemented(const std::string& what) {
  return internal::ErrorResponse(501, "NotImplementedException", what + " is not supported by floe serve");
}

}  // namespace

struct RestCatalogService::Route {
  std::vector<std::string> segments;  // decoded, after "v1" and the prefix
  std::map<std::string, std::string> query;
};

RestCatalogService::RestCatalogService(std::shared_ptr<Metastore> catalog, std::shared_ptr<FileIO> io,
                                       std::string warehouse, RestServiceOptions options)
    : catalog_(std::move(catalog)),
      io_(std::move(io)),
      warehouse_(std::move(warehouse)),
      options_(std::move(options)),
      admission_(AdmissionOptions(options_)) {
  if (!options_.client_id.empty()) {
    client_id_digest_ = aws::Sha256Hex(options_.client_id);
    client_secret_digest_ = aws::Sha256Hex(options_.client_secret);
  }
}

Result<std::unique_ptr<RestCatalogService>> RestCatalogService::Create(std::shared_ptr<Metastore> catalog,
                                                                       std::shared_ptr<FileIO> io,
                                                                       std::string warehouse,
                                                                       RestServiceOptions options) {
  if (!catalog || !io) return Status::InvalidArgument("the REST service needs a catalog and a FileIO");
  while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  if (warehouse.empty()) return Status::InvalidArgument("the REST service needs a warehouse location");
  FLOE_RETURN_IF_ERROR(CheckUnder(warehouse, warehouse, true, "the warehouse"));
  if (!options.prefix.empty()) {
    FLOE_RETURN_IF_ERROR(ValidateName(options.prefix, "prefix"));
    if (options.prefix == "namespaces" || options.prefix == "tables" || options.prefix == "config" ||
        options.prefix == "oauth" || options.prefix == "transactions" || options.prefix == "views") {
      return Status::InvalidArgument("prefix '" + options.prefix + "' would clash with a route name");
    }
  }
  if (!options.token.empty()) {
    if (std::string problem = http_server::HeadAdmission::CheckTokenText(options.token); !problem.empty()) {
      return Status::InvalidArgument(problem);
    }
  }
  if (options.client_id.empty() != options.client_secret.empty()) {
    return Status::InvalidArgument("client credentials need both an id and a secret");
  }
  if (!options.client_secret.empty() && options.client_secret.size() < kMinSecretLength) {
    return Status::InvalidArgument("the client secret must be at least " + std::to_string(kMinSecretLength) +
                                   " characters");
  }
  if (options.issued_token_lifetime_s <= 0) return Status::InvalidArgument("token lifetime must be positive");
  for (const auto& origin : options.cors_origins) {
    if (origin.rfind("http://", 0) != 0 && origin.rfind("https://", 0) != 0) {
      return Status::InvalidArgument("CORS origin '" + origin + "' must be scheme://host[:port]");
    }
  }
  return std::unique_ptr<RestCatalogService>(
      new RestCatalogService(std::move(catalog), std::move(io), std::move(warehouse), std::move(options)));
}

ServiceResponse RestCatalogService::Handle(const ServiceRequest& request) {
  if (std::optional<ServiceResponse> refused = Admit(request)) return *refused;
  return HandleAdmitted(request);
}

ServiceResponse RestCatalogService::HandleAdmitted(const ServiceRequest& request) {
  ServiceResponse response = Dispatch(request);
  if (request.method == "HEAD") response.body.clear();
  // Admit let the request through, so an Origin it carries is allowed.
  http_server::HeadAdmission::AddCorsHeaders(request, &response);
  return response;
}

ServiceResponse RestCatalogService::ErrorResponse(int status, const std::string& message) const {
  return internal::ErrorResponse(status, internal::ErrorTypeFor(status), message);
}

ServiceResponse RestCatalogService::Dispatch(const ServiceRequest& request) {
  const size_t question = request.target.find('?');
  const std::string path = request.target.substr(0, question);
  Route route;
  if (question != std::string::npos) {
    auto query = internal::ParseForm(request.target.substr(question + 1));
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
  auto not_allowed = [&](const char* allowed) {
    ServiceResponse out =
        internal::ErrorResponse(405, "MethodNotAllowedException", method + " is not allowed on " + path);
    out.headers.emplace_back("Allow", allowed);
    return out;
  };
  if (segments.size() == 3 && segments[1] == "oauth" && segments[2] == "tokens") {
    return method == "POST" ? IssueToken(request) : not_allowed("POST");
  }
  if (segments.size() == 2 && segments[1] == "config") {
    return method == "GET" ? GetConfig() : not_allowed("GET");
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

  if (s.size() == 2 && s[0] == "tables" && s[1] == "rename") {
    return method == "POST" ? RenameTable(request.body) : not_allowed("POST");
  }
  if (s.size() == 2 && s[0] == "transactions" && s[1] == "commit") {
    return method == "POST" ? CommitTransaction(request.body) : not_allowed("POST");
  }
  if (!s.empty() && s[0] == "views") return NotImplemented("views");
  if (s.empty() || s[0] != "namespaces")
    return internal::ErrorResponse(404, "NotFoundException", "unknown route " + path);
  if (s.size() == 1) {
    if (method == "GET") return ListNamespaces(route);
    if (method == "POST") return CreateNamespace(request.body);
    return not_allowed("GET, POST");
  }
  auto ns = NamespaceFromDecoded(s[1]);
  if (!ns.ok()) return internal::BadRequest(ns.status().message());
  if (s.size() == 2) {
    if (method == "GET" || head) return LoadNamespace(*ns, head);
    if (method == "DELETE") return DropNamespace(*ns);
    return not_allowed("GET, HEAD, DELETE");
  }
  if (s[2] == "views" || s[2] == "register-view") return NotImplemented("views");
  if (s[2] == "functions") return NotImplemented("functions");
  if (s.size() == 3 && s[2] == "properties") {
    return method == "POST" ? UpdateNamespaceProperties(*ns, request.body) : not_allowed("POST");
  }
  if (s.size() == 3 && s[2] == "register") {
    return method == "POST" ? RegisterTable(*ns, request.body) : not_allowed("POST");
  }
  if (s.size() == 3 && s[2] == "tables") {
    if (method == "GET") return ListTables(*ns, route);
    if (method == "POST") return CreateTable(*ns, request.body);
    return not_allowed("GET, POST");
  }
  if (s.size() >= 4 && s[2] == "tables") {
    if (Status valid = ValidateName(s[3], "table name"); !valid.ok())
      return internal::BadRequest(valid.message());
    TableIdentifier id{*ns, s[3]};
    if (s.size() == 4) {
      if (method == "GET" || head) return LoadTable(id, head);
      if (method == "POST") return CommitTable(id, request.body);
      if (method == "DELETE") {
        auto purge = route.query.find("purgeRequested");
        return DropTable(id, purge != route.query.end() && purge->second == "true");
      }
      return not_allowed("GET, HEAD, POST, DELETE");
    }
    if (s.size() == 5 && s[4] == "unregister") {
      return method == "POST" ? UnregisterTable(id) : not_allowed("POST");
    }
    if (s[4] == "plan" || s[4] == "tasks") return NotImplemented("server-side scan planning");
    if (s.size() == 5 && s[4] == "credentials") return NotImplemented("vended credentials");
    if (s.size() == 5 && s[4] == "sign") return NotImplemented("remote signing");
    if (s.size() == 5 && s[4] == "metrics") return NotImplemented("metrics reports");
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
        "POST /namespaces/{namespace}/tables/{table}/unregister", "POST /namespaces/{namespace}/register",
        "POST /tables/rename", "POST /transactions/commit"}) {
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
  auto page = internal::ParsePageRequest(route.query);
  if (!page.ok()) return internal::BadRequest(page.status().message());
  auto children = catalog_->ListNamespaces(parent);
  if (!children.ok()) return internal::FromStatus(children.status(), "NoSuchNamespaceException");
  std::vector<std::string> keys;
  for (const auto& child : *children) keys.push_back(NamespaceToDecoded(child));
  const internal::Page selected = internal::SelectPage(keys, *page);
  OrderedJson list = OrderedJson::array();
  for (size_t i : selected.indexes) list.push_back(NamespaceJson((*children)[i]));
  OrderedJson json = OrderedJson::object();
  json["namespaces"] = std::move(list);
  json["next-page-token"] = selected.next_token ? OrderedJson(*selected.next_token) : OrderedJson(nullptr);
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
  std::sort(removals.begin(), removals.end());
  removals.erase(std::unique(removals.begin(), removals.end()), removals.end());
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

ServiceResponse RestCatalogService::ListTables(const Namespace& ns, const Route& route) {
  auto page = internal::ParsePageRequest(route.query);
  if (!page.ok()) return internal::BadRequest(page.status().message());
  auto exists = catalog_->NamespaceExists(ns);
  if (!exists.ok()) return internal::FromStatus(exists.status(), "NoSuchNamespaceException");
  if (!*exists)
    return internal::ErrorResponse(404, "NoSuchNamespaceException",
                                   "namespace '" + NamespaceToString(ns) + "' does not exist");
  auto tables = catalog_->ListTables(ns);
  if (!tables.ok()) return internal::FromStatus(tables.status(), "NoSuchNamespaceException");
  std::vector<std::string> keys;
  for (const auto& id : *tables) keys.push_back(id.name);
  const internal::Page selected = internal::SelectPage(keys, *page);
  OrderedJson list = OrderedJson::array();
  for (size_t i : selected.indexes) list.push_back(TableIdentifierToJson((*tables)[i]));
  OrderedJson out = OrderedJson::object();
  out["identifiers"] = std::move(list);
  out["next-page-token"] = selected.next_token ? OrderedJson(*selected.next_token) : OrderedJson(nullptr);
  return internal::JsonResponse(200, out);
}

Status RestCatalogService::CheckUnder(const std::string& location, const std::string& root, bool may_equal,
                                      const std::string& what) {
  for (char c : location) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return Status::InvalidArgument(what + " '" + location + "' contains a control character");
    }
  }
  // After the scheme ("s3://bucket"), every segment must be a plain name.
  const size_t scheme = location.find("://");
  size_t start = scheme == std::string::npos ? 0 : location.find('/', scheme + 3);
  if (start == std::string::npos) start = location.size();
  if (scheme == std::string::npos && location.rfind('/', 0) != 0) {
    return Status::InvalidArgument(what + " '" + location + "' must be an absolute path or a URI");
  }
  const std::string_view path = std::string_view(location).substr(start);
  size_t at = path.empty() ? 0 : 1;
  while (at < path.size()) {
    size_t end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(at, end - at);
    if (segment.empty() || segment == "." || segment == "..") {
      return Status::InvalidArgument(what + " '" + location + "' has an empty, '.' or '..' path segment");
    }
    at = end + 1;
  }
  if (!path.empty() && path.back() == '/' && path.size() > 1) {
    return Status::InvalidArgument(what + " '" + location + "' ends with '/'");
  }
  const bool equal = location == root;
  const bool below = root == "/" ? location.size() > 1 && location[0] == '/'
                                 : location.size() > root.size() + 1 && location.rfind(root + "/", 0) == 0;
  if ((equal && !may_equal) || (!equal && !below)) {
    return Status::InvalidArgument(what + " '" + location + "' is not under " + root);
  }
  return Status::OK();
}

}  // namespace floe::catalog::rest
