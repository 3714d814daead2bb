// RestCatalogService: what is decided from a request's head alone (Admit):
// the Host and Origin checks, CORS preflights, bearer tokens, and issuing
// tokens at /v1/oauth/tokens.
#include <arpa/inet.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cctype>

#include "aws/digest.h"
#include "catalog/rest_server/rest_catalog_service.h"
#include "catalog/rest_server/service_responses.h"

namespace floe::catalog::rest {

using iceberg::OrderedJson;

namespace {

constexpr size_t kMaxIssuedTokens = 10000;
constexpr const char* kAllowedMethods = "GET, HEAD, POST, DELETE";

std::string Lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string Header(const ServiceRequest& request, const std::string& name) {
  auto it = request.headers.find(name);
  return it == request.headers.end() ? "" : it->second;
}

// The host name of a Host header value ("h", "h:8181", "[::1]:8181"), lower-case, without a trailing dot.
std::string HostName(const std::string& value) {
  std::string name;
  if (!value.empty() && value[0] == '[') {
    const size_t close = value.find(']');
    name = close == std::string::npos ? value : value.substr(0, close + 1);
  } else {
    const size_t colon = value.find(':');
    name = colon == std::string::npos ? value : value.substr(0, colon);
  }
  name = Lower(name);
  if (!name.empty() && name.back() == '.') name.pop_back();
  return name;
}

// Both digests are 64 hex digits; the comparison takes the same time wherever they differ.
bool SameDigest(const std::string& a, const std::string& b) {
  return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string RandomToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  return aws::LowerHex(bytes);
}

bool IsPath(const std::string& target, const std::string& path) {
  return target == path || target.rfind(path + "?", 0) == 0;
}

// Content types a browser may send cross-site without a preflight; a JSON route never takes them.
bool IsFormLikeContentType(const std::string& value) {
  std::string media = Lower(value.substr(0, value.find(';')));
  media.erase(std::remove(media.begin(), media.end(), ' '), media.end());
  return media == "text/plain" || media == "application/x-www-form-urlencoded" ||
         media == "multipart/form-data";
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  std::string name = Lower(host);
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  if (name == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, name.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, name.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

bool RestCatalogService::HostAllowed(const ServiceRequest& request) const {
  auto host = request.headers.find("host");
  // Browsers always send Host; a client that does not is not a page being rebound.
  if (host == request.headers.end()) return true;
  const std::string name = HostName(host->second);
  // A page's request carries the page's host name, never a loopback one.
  if (IsLoopbackHost(name)) return true;
  for (const auto& allowed : options_.allowed_hosts) {
    if (Lower(allowed) == name) return true;
  }
  return options_.allowed_hosts.empty() && requires_auth();
}

bool RestCatalogService::OriginAllowed(const std::string& origin) const {
  const std::string wanted = Lower(origin);
  for (const auto& allowed : options_.cors_origins) {
    std::string candidate = Lower(allowed);
    while (!candidate.empty() && candidate.back() == '/') candidate.pop_back();
    if (candidate == wanted) return true;
  }
  return false;
}

ServiceResponse RestCatalogService::Preflight(const ServiceRequest& request) const {
  const std::string origin = Header(request, "origin");
  ServiceResponse out = internal::NoContent();
  if (origin.empty()) {
    out.headers.emplace_back("Allow", std::string(kAllowedMethods) + ", OPTIONS");
    return out;
  }
  out.headers.emplace_back("Access-Control-Allow-Origin", origin);
  out.headers.emplace_back("Vary", "Origin");
  out.headers.emplace_back("Access-Control-Allow-Methods", kAllowedMethods);
  const std::string asked = Header(request, "access-control-request-headers");
  // Echoed only when it is a plain list of header names.
  const bool plain = std::all_of(asked.begin(), asked.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ',' || c == ' ';
  });
  if (!asked.empty() && plain) out.headers.emplace_back("Access-Control-Allow-Headers", asked);
  out.headers.emplace_back("Access-Control-Max-Age", "600");
  return out;
}

std::optional<ServiceResponse> RestCatalogService::Admit(const ServiceRequest& head) {
  std::optional<ServiceResponse> refused = AdmitHead(head);
  // A HEAD answer has no body (HandleAdmitted clears it the same way).
  if (refused && head.method == "HEAD") refused->body.clear();
  return refused;
}

std::optional<ServiceResponse> RestCatalogService::AdmitHead(const ServiceRequest& head) {
  if (!HostAllowed(head)) {
    return internal::BadRequest("Host '" + Header(head, "host") +
                                "' does not name this server (floe serve --allowed-host adds names)");
  }
  const std::string origin = Header(head, "origin");
  if (!origin.empty() && !OriginAllowed(origin)) {
    return internal::ErrorResponse(
        403, "ForbiddenException",
        "requests from origin " + origin + " are not allowed (floe serve --cors-origin allows an origin)");
  }
  auto with_cors = [&](ServiceResponse response) {
    if (!origin.empty()) {
      response.headers.emplace_back("Access-Control-Allow-Origin", origin);
      response.headers.emplace_back("Vary", "Origin");
    }
    return response;
  };
  if (head.method == "OPTIONS") return Preflight(head);
  const bool token_endpoint = IsPath(head.target, "/v1/oauth/tokens");
  // A page can send such a POST cross-site without asking first, but never with an Authorization header.
  if (head.method == "POST" && !token_endpoint && !head.headers.count("authorization") &&
      IsFormLikeContentType(Header(head, "content-type"))) {
    return with_cors(
        internal::BadRequest("request bodies must be JSON (Content-Type: application/json), got '" +
                             Header(head, "content-type") + "'"));
  }
  if (token_endpoint || Authorized(head)) return std::nullopt;
  ServiceResponse refused = internal::ErrorResponse(
      401, "NotAuthorizedException", "a valid bearer token is required (Authorization: Bearer ...)");
  refused.headers.emplace_back("WWW-Authenticate", "Bearer");
  return with_cors(std::move(refused));
}

bool RestCatalogService::Authorized(const ServiceRequest& request) {
  if (!requires_auth()) return true;
  const std::string header = Header(request, "authorization");
  if (header.size() < 7 || Lower(header.substr(0, 7)) != "bearer ") return false;
  const std::string digest = aws::Sha256Hex(std::string_view(header).substr(7));
  if (SameDigest(digest, token_digest_)) return true;
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
  const bool id_ok = SameDigest(aws::Sha256Hex((*form)["client_id"]), client_id_digest_);
  const bool secret_ok = SameDigest(aws::Sha256Hex((*form)["client_secret"]), client_secret_digest_);
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
