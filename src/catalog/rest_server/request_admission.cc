// RestCatalogService: what is decided from a request's head alone (Admit):
// http_server::HeadAdmission's checks with the tokens this service issues,
// and issuing tokens at /v1/oauth/tokens.
#include <openssl/rand.h>

#include "aws/digest.h"
#include "catalog/rest_server/rest_catalog_service.h"
#include "catalog/rest_server/service_responses.h"

namespace floe::catalog::rest {

using iceberg::OrderedJson;

namespace {

constexpr size_t kMaxIssuedTokens = 10000;

std::string RandomToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  return aws::LowerHex(bytes);
}

bool IsPath(const std::string& target, const std::string& path) {
  return target == path || target.rfind(path + "?", 0) == 0;
}

// The spec's exception type of an admission refusal.
const char* AdmissionErrorType(int status) {
  switch (status) {
    case 401: return "NotAuthorizedException";
    case 403: return "ForbiddenException";
    default: return "BadRequestException";
  }
}

}  // namespace

http_server::HeadAdmissionOptions RestCatalogService::AdmissionOptions(const RestServiceOptions& options) {
  http_server::HeadAdmissionOptions admission;
  admission.token = options.token;
  admission.allowed_hosts = options.allowed_hosts;
  admission.cors_origins = options.cors_origins;
  admission.allowed_methods = "GET, HEAD, POST, DELETE";
  admission.allowed_host_flag = "floe serve --allowed-host";
  admission.cors_origin_flag = "floe serve --cors-origin";
  return admission;
}

std::optional<ServiceResponse> RestCatalogService::Admit(const ServiceRequest& head) {
  std::optional<ServiceResponse> refused = AdmitHead(head);
  // A HEAD answer has no body (HandleAdmitted clears it the same way).
  if (refused && head.method == "HEAD") refused->body.clear();
  return refused;
}

std::optional<ServiceResponse> RestCatalogService::AdmitHead(const ServiceRequest& head) {
  const bool token_endpoint = IsPath(head.target, "/v1/oauth/tokens");
  std::optional<http_server::AdmissionVerdict> verdict = admission_.Check(
      head, token_endpoint, [this](const std::string& digest) { return IssuedTokenLive(digest); },
      requires_auth());
  if (!verdict) return std::nullopt;
  ServiceResponse response =
      verdict->status == 204
          ? internal::NoContent()
          : internal::ErrorResponse(verdict->status, AdmissionErrorType(verdict->status), verdict->message);
  for (auto& header : verdict->headers) response.headers.push_back(std::move(header));
  return response;
}

bool RestCatalogService::IssuedTokenLive(const std::string& digest) {
  std::lock_guard<std::mutex> lock(tokens_mutex_);
  auto issued = issued_tokens_.find(digest);
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
  auto form = internal::ParseForm(request.body);
  if (!form.ok()) return oauth_error(400, "invalid_request", form.status().message());
  if ((*form)["grant_type"] != "client_credentials") {
    return oauth_error(400, "unsupported_grant_type", "only grant_type=client_credentials is supported");
  }
  // Both compared, always: which of the two was wrong must not show in the timing.
  const bool id_ok = http_server::SameDigest(aws::Sha256Hex((*form)["client_id"]), client_id_digest_);
  const bool secret_ok =
      http_server::SameDigest(aws::Sha256Hex((*form)["client_secret"]), client_secret_digest_);
  if (!(id_ok & secret_ok)) return oauth_error(401, "invalid_client", "unknown client id or wrong secret");
  std::string token = RandomToken();
  if (token.empty()) return internal::ErrorResponse(500, "InternalServerError", "no randomness for a token");
  {
    std::lock_guard<std::mutex> lock(tokens_mutex_);
    const auto now = std::chrono::steady_clock::now();
    for (auto it = issued_tokens_.begin(); it != issued_tokens_.end();) {
      it = now >= it->second ? issued_tokens_.erase(it) : std::next(it);
    }
    if (issued_tokens_.size() >= kMaxIssuedTokens) {
      return oauth_error(503, "invalid_request", "too many live tokens; retry later");
    }
    issued_tokens_[aws::Sha256Hex(token)] = now + std::chrono::seconds(options_.issued_token_lifetime_s);
  }
  OrderedJson json = OrderedJson::object();
  json["access_token"] = token;
  json["token_type"] = "bearer";
  json["expires_in"] = options_.issued_token_lifetime_s;
  json["issued_token_type"] = "urn:ietf:params:oauth:token-type:access_token";
  return internal::JsonResponse(200, json);
}

}  // namespace floe::catalog::rest
