#include "catalog/rest/rest_protocol.h"

#include "common/redaction.h"
#include "io/http/url_encoding.h"

namespace floe::catalog::rest {

using iceberg::Json;
using iceberg::OrderedJson;

namespace {

// Error bodies are short; a huge one is cut so a message stays readable.
constexpr size_t kMaxMessageBytes = 2000;

std::string Truncated(std::string_view text) {
  if (text.size() <= kMaxMessageBytes) return std::string(text);
  return std::string(text.substr(0, kMaxMessageBytes)) + "...";
}

}  // namespace

std::string PercentEncode(std::string_view text) {
  return http::PercentEncode(text);
}

Result<std::string> PercentDecode(std::string_view text) {
  return http::PercentDecode(text);
}

std::string NamespaceToPathSegment(const Namespace& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) out += "%1F";
    out += PercentEncode(ns[i]);
  }
  return out;
}

std::string NamespaceToDecoded(const Namespace& ns) {
  std::string out;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) out += kNamespaceSeparator;
    out += ns[i];
  }
  return out;
}

Result<Namespace> NamespaceFromDecoded(std::string_view decoded) {
  Namespace ns;
  size_t start = 0;
  while (true) {
    const size_t end = decoded.find(kNamespaceSeparator, start);
    std::string_view level = decoded.substr(start, end == std::string_view::npos ? end : end - start);
    FLOE_RETURN_IF_ERROR(ValidateName(level, "namespace level"));
    ns.emplace_back(level);
    if (ns.size() > 64) return Status::InvalidArgument("namespace has more than 64 levels");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return ns;
}

OrderedJson TableIdentifierToJson(const TableIdentifier& id) {
  OrderedJson json = OrderedJson::object();
  json["namespace"] = id.ns;
  json["name"] = id.name;
  return json;
}

Result<Namespace> NamespaceFromJson(const Json& json, std::string_view what) {
  if (!json.is_array()) return Status::InvalidArgument(std::string(what) + " must be an array of strings");
  if (json.size() > 64) return Status::InvalidArgument(std::string(what) + " has more than 64 levels");
  Namespace ns;
  for (const Json& level : json) {
    if (!level.is_string())
      return Status::InvalidArgument(std::string(what) + " must be an array of strings");
    // A level floe cannot name (a '.', a path separator, a control
    // character) would print and resolve as another namespace, so it is
    // refused here, where every client answer and server request is read.
    FLOE_RETURN_IF_ERROR(ValidateName(level.get_ref<const std::string&>(), std::string(what) + " level"));
    ns.push_back(level.get<std::string>());
  }
  return ns;
}

Result<TableIdentifier> TableIdentifierFromJson(const Json& json) {
  FLOE_RETURN_IF_ERROR(iceberg::RequireObject(json, "table identifier"));
  const Json* ns = iceberg::FindMember(json, "namespace");
  if (ns == nullptr) return Status::InvalidArgument("table identifier: field 'namespace' is missing");
  TableIdentifier id;
  FLOE_ASSIGN_OR_RETURN(id.ns, NamespaceFromJson(*ns, "table identifier field 'namespace'"));
  auto name = iceberg::GetString(json, "name");
  if (!name.ok()) return Status::InvalidArgument("table identifier: " + name.status().message());
  FLOE_RETURN_IF_ERROR(ValidateName(*name, "table identifier field 'name'"));
  id.name = std::move(*name);
  return id;
}

OrderedJson ErrorJson(int code, std::string_view type, std::string_view message) {
  OrderedJson error = OrderedJson::object();
  error["message"] = std::string(message);
  error["type"] = std::string(type);
  error["code"] = code;
  OrderedJson body = OrderedJson::object();
  body["error"] = std::move(error);
  return body;
}

Status ErrorFromResponse(long http_status, std::string_view body, RequestKind kind,
                         const std::string& operation, const std::vector<std::string>& secrets) {
  // The server's own words, when it sent the spec's error body.
  std::string type;
  std::string message;
  if (!body.empty()) {
    Json parsed = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) {
      const Json* error = iceberg::FindMember(parsed, "error");
      if (error != nullptr && error->is_object()) {
        if (const Json* t = iceberg::FindMember(*error, "type"); t && t->is_string())
          type = t->get<std::string>();
        if (const Json* m = iceberg::FindMember(*error, "message"); m && m->is_string()) {
          message = m->get<std::string>();
        }
      } else if (error != nullptr && error->is_string()) {
        // OAuth2 error body: {"error": "invalid_client", "error_description": "..."}
        type = error->get<std::string>();
        if (const Json* d = iceberg::FindMember(parsed, "error_description"); d && d->is_string()) {
          message = d->get<std::string>();
        }
      }
    }
    if (message.empty() && type.empty()) message = Truncated(body);
  }
  std::string detail = "HTTP " + std::to_string(http_status);
  if (!type.empty()) detail += " " + RedactSecrets(Truncated(type), secrets);
  if (!message.empty()) detail += ": " + RedactSecrets(Truncated(message), secrets);
  const std::string text = operation + ": " + detail;

  switch (http_status) {
    case 400: return Status::InvalidArgument(text);
    case 401:
      return Status::InvalidArgument(
          operation + ": authentication failed (check the catalog token or credential): " + detail);
    case 403:
      return Status::InvalidArgument(operation +
                                     ": not authorized (the credentials lack permission): " + detail);
    case 404: return Status::NotFound(text);
    case 406: return Status::NotSupported(text);
    case 409:
      if (kind == RequestKind::kCommit) return Status::CommitFailed(text);
      if (kind == RequestKind::kCreate) return Status::AlreadyExists(text);
      return Status::InvalidArgument(text);
    case 419: return Status::IOError(operation + ": the catalog token expired: " + detail, true);
    default: break;
  }
  if (kind == RequestKind::kCommit &&
      (http_status == 500 || http_status == 502 || http_status == 503 || http_status == 504)) {
    return Status::CommitStateUnknown(text + " (the commit may or may not have been applied)");
  }
  if (http_status >= 500) return Status::IOError(text, http_status == 503);
  return Status::IOError("unexpected answer: " + text);
}

}  // namespace floe::catalog::rest
