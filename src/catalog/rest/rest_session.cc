#include "catalog/rest/rest_session.h"

#include <algorithm>
#include <cctype>
#include <random>
#include <thread>

#include "catalog/rest/rest_protocol.h"
#include "common/redaction.h"
#include "common/strings.h"
#include "iceberg/spec/json_util.h"

namespace floe::catalog::rest {

namespace {

bool IsRead(const std::string& method) {
  return method == "GET" || method == "HEAD";
}

bool HasHeader(const std::vector<std::pair<std::string, std::string>>& headers,
               const std::string& lower_name) {
  for (const auto& [name, value] : headers) {
    if (AsciiLower(name) == lower_name) return true;
  }
  return false;
}

std::string EncodeQuery(const QueryParams& query) {
  std::string out;
  for (const auto& [name, value] : query) {
    if (!out.empty()) out += '&';
    out += PercentEncode(name) + "=" + PercentEncode(value);
  }
  return out;
}

struct ParsedUri {
  std::string scheme;
  std::string authority;
  std::string path;  // without trailing '/'
};

Result<ParsedUri> ParseHttpUri(const std::string& uri) {
  ParsedUri parsed;
  size_t rest = 0;
  if (uri.rfind("http://", 0) == 0) {
    parsed.scheme = "http";
    rest = 7;
  } else if (uri.rfind("https://", 0) == 0) {
    parsed.scheme = "https";
    rest = 8;
  } else {
    return Status::InvalidArgument("catalog uri '" + RedactUri(uri) +
                                   "' must start with http:// or https://");
  }
  for (char c : uri) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return Status::InvalidArgument("catalog uri contains a space or control character");
    }
  }
  const size_t slash = uri.find('/', rest);
  parsed.authority = uri.substr(rest, slash == std::string::npos ? std::string::npos : slash - rest);
  if (parsed.authority.empty())
    return Status::InvalidArgument("catalog uri '" + RedactUri(uri) + "' has no host");
  if (parsed.authority.find('@') != std::string::npos) {
    return Status::InvalidArgument("catalog uri must not contain user information; use token or credential");
  }
  if (uri.find_first_of("?#", rest) != std::string::npos) {
    return Status::InvalidArgument("catalog uri '" + RedactUri(uri) + "' must not have a query or fragment");
  }
  if (slash != std::string::npos) parsed.path = uri.substr(slash);
  while (!parsed.path.empty() && parsed.path.back() == '/') parsed.path.pop_back();
  return parsed;
}

void SleepBackoff(int attempt) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const int64_t cap = std::min<int64_t>(2000, int64_t{100} << std::min(attempt, 5));
  std::uniform_int_distribution<int64_t> dist(cap / 2, cap);
  std::this_thread::sleep_for(std::chrono::milliseconds(dist(rng)));
}

}  // namespace

Result<std::string> ParseRestCatalogUri(const std::string& uri) {
  std::string http = uri;
  if (uri.rfind("rest+", 0) == 0) http = uri.substr(5);
  if (http.rfind("http://", 0) != 0 && http.rfind("https://", 0) != 0) {
    return Status::InvalidArgument("REST catalog uri '" + RedactUri(uri) +
                                   "' must be http(s)://host[:port][/path] or rest+http(s)://...");
  }
  FLOE_RETURN_IF_ERROR(ParseHttpUri(http).status());
  while (!http.empty() && http.back() == '/') http.pop_back();
  return http;
}

bool IsRestCatalogUri(const std::string& uri) {
  return uri.rfind("rest+http://", 0) == 0 || uri.rfind("rest+https://", 0) == 0;
}

std::string DescribeRestCatalogOptions(const RestCatalogOptions& options) {
  std::string auth = options.token.empty()
                         ? (options.credential.empty() ? "none" : "oauth2 client credentials")
                         : "bearer token";
  if (options.sigv4_enabled)
    auth += (auth == "none" ? "" : " + ") + std::string("sigv4 ") + options.signing_name;
  return "rest catalog " + RedactUri(options.uri) + " (warehouse '" + options.warehouse + "', prefix '" +
         options.prefix + "', auth: " + auth + ")";
}

Result<aws::SigV4Signature> SignCatalogRequest(const std::string& method, const std::string& host,
                                               const std::string& encoded_path, const QueryParams& query,
                                               std::vector<std::pair<std::string, std::string>>* headers,
                                               std::string_view payload,
                                               const aws::SigV4Credentials& credentials,
                                               const std::string& region, const std::string& service,
                                               const std::string& amz_date) {
  // A bearer token stays visible to the server under another name; SigV4 owns Authorization.
  for (auto& [name, value] : *headers) {
    if (AsciiLower(name) == "authorization") name = "Original-Authorization";
  }
  if (!HasHeader(*headers, "host")) headers->emplace_back("Host", host);
  headers->emplace_back("X-Amz-Date", amz_date);
  if (!credentials.session_token.empty())
    headers->emplace_back("X-Amz-Security-Token", credentials.session_token);

  aws::SigV4Request request;
  request.method = method;
  request.path = encoded_path;  // SignV4 encodes it again: the double encoding of non-S3 services
  request.query = query;
  for (const auto& [name, value] : *headers) {
    const std::string lower = AsciiLower(name);
    if (lower == "host" || lower == "content-type" || lower.rfind("x-amz-", 0) == 0) {
      request.headers.emplace_back(name, value);
    }
  }
  request.payload_hash = aws::Sha256Hex(payload);
  aws::SigV4Scope scope{region, service, amz_date, /*normalize_path=*/true};
  FLOE_ASSIGN_OR_RETURN(aws::SigV4Signature signature, aws::SignV4(request, credentials, scope));
  headers->emplace_back("Authorization", signature.authorization);
  return signature;
}

Result<std::unique_ptr<RestSession>> RestSession::Open(const RestCatalogOptions& options,
                                                       const aws::EnvLookup& env) {
  if (!options.token.empty() && !options.credential.empty()) {
    return Status::InvalidArgument("REST catalog: set either token or credential, not both");
  }
  if (options.max_attempts < 1 || options.connect_timeout_ms <= 0 || options.request_timeout_ms <= 0) {
    return Status::InvalidArgument("REST catalog: attempts and timeouts must be positive");
  }
  for (const auto& [name, value] : options.headers) {
    if (name.empty() || name.find_first_of(":\r\n ") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument("REST catalog: invalid header name or value for '" + name + "'");
    }
  }
  std::unique_ptr<RestSession> session(
      new RestSession(options, options.connect_timeout_ms, options.request_timeout_ms));
  FLOE_RETURN_IF_ERROR(session->SetBaseUri(options.uri));
  if (options.sigv4_enabled) {
    if (options.signing_name.empty()) return Status::InvalidArgument("REST catalog: signing_name is empty");
    aws::AwsCredentialOptions credentials = s3::CredentialOptionsOf(options.s3);
    if (!options.signing_region.empty()) credentials.region = options.signing_region;
    FLOE_ASSIGN_OR_RETURN(aws::AwsIdentity resolved, aws::ResolveAwsIdentity(credentials, env));
    if (resolved.anonymous()) {
      return Status::InvalidArgument(
          "REST catalog: sigv4_enabled needs AWS credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a "
          "profile, or the s3 options); none were found");
    }
    session->sigv4_credentials_ = resolved.credentials;
    session->signing_region_ = resolved.region;
  }
  return session;
}

Status RestSession::SetBaseUri(const std::string& uri) {
  FLOE_ASSIGN_OR_RETURN(std::string http, ParseRestCatalogUri(uri));
  FLOE_ASSIGN_OR_RETURN(ParsedUri parsed, ParseHttpUri(http));
  base_uri_ = http;
  scheme_ = parsed.scheme;
  authority_ = parsed.authority;
  base_path_ = parsed.path;
  return Status::OK();
}

std::vector<std::string> RestSession::SecretsHeld() const {
  std::vector<std::string> out = {options_.token, options_.credential, sigv4_credentials_.secret_access_key,
                                  sigv4_credentials_.session_token, oauth_token_};
  if (size_t colon = options_.credential.find(':'); colon != std::string::npos) {
    out.push_back(options_.credential.substr(colon + 1));
    out.push_back(PercentEncode(options_.credential.substr(colon + 1)));
  }
  return out;
}

std::vector<std::string> RestSession::secrets() {
  std::lock_guard<std::mutex> lock(token_mutex_);
  return SecretsHeld();
}

Result<std::string> RestSession::FetchToken() {
  const std::string endpoint =
      options_.oauth2_server_uri.empty() ? base_uri_ + "/v1/oauth/tokens" : options_.oauth2_server_uri;
  const std::string operation = "fetching an OAuth2 token from " + endpoint;
  std::string client_id;
  std::string client_secret = options_.credential;
  if (size_t colon = options_.credential.find(':'); colon != std::string::npos) {
    client_id = options_.credential.substr(0, colon);
    client_secret = options_.credential.substr(colon + 1);
  }
  std::string form = "grant_type=client_credentials";
  if (!client_id.empty()) form += "&client_id=" + PercentEncode(client_id);
  form += "&client_secret=" + PercentEncode(client_secret);
  if (!options_.scope.empty()) form += "&scope=" + PercentEncode(options_.scope);

  http::HttpRequest http;
  http.method = "POST";
  http.url = endpoint;
  http.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
  http.body = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(form.data()), form.size());
  auto response = transport_.Execute(http);
  if (!response.ok()) return response.status().WithContext(operation);
  if (response->status < 200 || response->status >= 300) {
    // The caller (BearerToken) holds token_mutex_.
    return ErrorFromResponse(response->status, response->body, RequestKind::kRead, operation, SecretsHeld());
  }
  auto parsed = iceberg::ParseJson(response->body);
  if (!parsed.ok() || !parsed->is_object()) {
    return Status::Corruption(operation + ": the answer is not a JSON object");
  }
  auto token = iceberg::GetString(*parsed, "access_token");
  if (!token.ok() || token->empty())
    return Status::Corruption(operation + ": the answer has no access_token");
  auto expires_in = iceberg::GetOptionalInt64(*parsed, "expires_in");
  if (!expires_in.ok()) return Status::Corruption(operation + ": expires_in is not an integer");
  oauth_refresh_at_.reset();
  if (expires_in->has_value() && **expires_in > 0) {
    const int64_t seconds = **expires_in;
    const int64_t margin = std::min<int64_t>(60, seconds / 10);
    oauth_refresh_at_ = std::chrono::steady_clock::now() + std::chrono::seconds(seconds - margin);
  }
  return *token;
}

Result<std::optional<std::string>> RestSession::BearerToken(bool force_refresh) {
  if (!options_.token.empty()) return std::optional<std::string>(options_.token);
  if (options_.credential.empty()) return std::optional<std::string>();
  std::lock_guard<std::mutex> lock(token_mutex_);
  const bool expired = oauth_refresh_at_ && std::chrono::steady_clock::now() >= *oauth_refresh_at_;
  if (oauth_token_.empty() || expired || force_refresh) {
    FLOE_ASSIGN_OR_RETURN(oauth_token_, FetchToken());
  }
  return std::optional<std::string>(oauth_token_);
}

Result<RestReply> RestSession::SendOnce(const RestRequest& request, bool fresh_token) {
  http::HttpRequest http;
  http.method = request.method;
  const std::string full_path = base_path_ + request.path;
  http.url = scheme_ + "://" + authority_ + full_path;
  if (!request.query.empty()) http.url += "?" + EncodeQuery(request.query);
  for (const auto& [name, value] : options_.headers) http.headers.emplace_back(name, value);
  http.headers.emplace_back("Accept", "application/json");
  http.headers.emplace_back("User-Agent", "floe");
  if (!request.body.empty() || request.method == "POST") {
    http.headers.emplace_back("Content-Type", request.content_type);
  }
  FLOE_ASSIGN_OR_RETURN(std::optional<std::string> token, BearerToken(fresh_token));
  if (token) http.headers.emplace_back("Authorization", "Bearer " + *token);
  if (options_.sigv4_enabled) {
    FLOE_RETURN_IF_ERROR(SignCatalogRequest(request.method, authority_, full_path, request.query,
                                            &http.headers, request.body, sigv4_credentials_, signing_region_,
                                            options_.signing_name,
                                            aws::FormatAmzDate(std::chrono::system_clock::now()))
                             .status());
  }
  http.body =
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(request.body.data()), request.body.size());
  FLOE_ASSIGN_OR_RETURN(http::HttpResponse response, transport_.Execute(http));
  return RestReply{response.status, std::move(response.body), std::move(response.headers)};
}

Result<RestReply> RestSession::Send(const RestRequest& request) {
  const bool read = IsRead(request.method);
  const int attempts = read ? options_.max_attempts : 1;
  bool refreshed = false;
  for (int attempt = 1;; ++attempt) {
    auto reply = SendOnce(request, false);
    if (reply.ok() && (reply->status == 401 || reply->status == 419) && !options_.credential.empty() &&
        !refreshed) {
      // The token may have been revoked or expired early: one more try with a new one.
      refreshed = true;
      reply = SendOnce(request, true);
    }
    const bool retryable =
        reply.ok() ? (reply->status == 503 || reply->status == 429) : reply.status().retryable();
    if (!retryable || attempt >= attempts) return reply;
    SleepBackoff(attempt);
  }
}

}  // namespace floe::catalog::rest
