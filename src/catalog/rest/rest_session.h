// The HTTP side of the REST catalog client: base URL, authentication and
// retries of reads.
//
// Contract: Send performs one logical request against <base uri><path>
// (`path` already percent-encoded, starting with "/v1/"), adding the
// configured headers, then the bearer token (a fixed token, or one obtained
// with OAuth2 client credentials and fetched again shortly before it expires
// or once after a 401), then a SigV4 signature over the final headers. GET
// and HEAD are retried on retryable transport errors and 503/429 with
// jittered backoff; other methods are sent once. Any HTTP status is a
// successful Send; transport failures are IOError. Token responses are
// parsed strictly and never echoed into errors.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aws/sigv4.h"
#include "catalog/rest/rest_options.h"
#include "common/status.h"
#include "io/http/http_transport.h"

namespace floe::catalog::rest {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

struct RestRequest {
  std::string method;  // GET, HEAD, POST, DELETE
  std::string path;    // encoded, "/v1/namespaces/a%1Fb"
  QueryParams query;   // decoded names and values
  std::string body;    // JSON text (or a form for the token endpoint)
  std::string content_type = "application/json";
};

struct RestReply {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
};

// The SigV4 signing of one catalog request, separate so tests can check it
// against AWS's published vectors. Adds x-amz-date, x-amz-security-token
// (temporary credentials) and Authorization to `headers`; an Authorization
// header already there (a bearer token) is kept as Original-Authorization.
// Signed: host, content-type, x-amz-* headers. Like AWS services other than
// S3, the canonical path is the request path encoded once more (the wire path
// is encoded once). `payload` is the request body.
Result<aws::SigV4Signature> SignCatalogRequest(const std::string& method, const std::string& host,
                                               const std::string& encoded_path, const QueryParams& query,
                                               std::vector<std::pair<std::string, std::string>>* headers,
                                               std::string_view payload,
                                               const aws::SigV4Credentials& credentials,
                                               const std::string& region, const std::string& service,
                                               const std::string& amz_date);

class RestSession {
 public:
  // Resolves SigV4 credentials and region from options.s3 and `env` when signing is on.
  static Result<std::unique_ptr<RestSession>> Open(const RestCatalogOptions& options,
                                                   const aws::EnvLookup& env = aws::ProcessEnvironment());

  Result<RestReply> Send(const RestRequest& request);

  // Switches to another base URI (the server's config may override "uri").
  Status SetBaseUri(const std::string& uri);
  const std::string& base_uri() const { return base_uri_; }
  // The token, credential, issued token and SigV4 keys in use: what must
  // never appear in an error (ErrorFromResponse's `secrets`).
  std::vector<std::string> secrets();

 private:
  RestSession(RestCatalogOptions options, int64_t connect_timeout_ms, int64_t request_timeout_ms)
      : options_(std::move(options)), transport_(connect_timeout_ms, request_timeout_ms) {}

  Result<RestReply> SendOnce(const RestRequest& request, bool fresh_token);
  // The bearer token to send, fetching one when client credentials are configured.
  Result<std::optional<std::string>> BearerToken(bool force_refresh);
  // Called with token_mutex_ held (BearerToken holds it).
  Result<std::string> FetchToken();
  // secrets() for a caller holding token_mutex_.
  std::vector<std::string> SecretsHeld() const;

  RestCatalogOptions options_;
  std::string base_uri_;   // without trailing '/'
  std::string scheme_;     // "http" / "https"
  std::string authority_;  // "host:port"
  std::string base_path_;  // "" or "/iceberg"
  http::HttpTransport transport_;
  aws::SigV4Credentials sigv4_credentials_;
  std::string signing_region_;

  std::mutex token_mutex_;
  std::string oauth_token_;
  std::optional<std::chrono::steady_clock::time_point> oauth_refresh_at_;
};

}  // namespace floe::catalog::rest
