// HeadAdmission: the checks every floe HTTP service makes on a request's
// head before reading its body — shared by `floe serve` and `floe run
// --http`.
//
// Contract (Check, in this order):
// - Host: the Host header must name this server: a name in allowed_hosts;
//   without them a loopback name (localhost, 127.0.0.0/8, ::1), or any name
//   when a token is required. So a page rebound by DNS to a loopback server
//   cannot reach it (400). A request without Host is not a browser's.
// - Origin: a request carrying an Origin header must come from an origin in
//   cors_origins (403); an OPTIONS request is answered as a CORS preflight
//   (204 with the allowed methods).
// - A POST without an Authorization header and with a content type a page
//   may send cross-site without a preflight (text/plain, form encodings) is
//   refused (400): no route takes such a body.
// - Token: unless the caller exempts the request, a bearer token equal to
//   `token` (compared as SHA-256 digests in constant time) or one the caller
//   accepts (`also_accepted`, given the digest) is required (401 with
//   WWW-Authenticate: Bearer).
// Refusals carry Access-Control-Allow-Origin for an allowed origin, so a
// page sees why. Thread-safe (immutable after construction).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http_server/http_service.h"

namespace floe::http_server {

// Shortest bearer token or client secret accepted: guessing must not be practical.
inline constexpr size_t kMinSecretLength = 16;

struct HeadAdmissionOptions {
  std::string token;  // bearer token requests must carry; empty: none
  // Names (without port) clients may use in the Host header; see the contract.
  std::vector<std::string> allowed_hosts;
  // Origins ("https://app.example.com:8443") whose pages may call the service.
  std::vector<std::string> cors_origins;
  // Answered to preflights ("GET, HEAD").
  std::string allowed_methods = "GET, HEAD";
  // How the operator allows more, quoted in refusals ("floe serve --allowed-host").
  std::string allowed_host_flag = "--allowed-host";
  std::string cors_origin_flag = "--cors-origin";
};

// Why a head does not simply go on: a refusal (400, 401, 403) or a
// preflight's answer (204). The service renders it in its error format.
struct AdmissionVerdict {
  int status = 400;
  std::string message;
  std::vector<std::pair<std::string, std::string>> headers;
};

class HeadAdmission {
 public:
  // Digest of a token as HeadAdmission compares it (lower-case SHA-256 hex).
  static std::string TokenDigest(std::string_view token);
  // InvalidArgument-style message when `token` is too short or not printable; empty when fine.
  static std::string CheckTokenText(const std::string& token);

  explicit HeadAdmission(HeadAdmissionOptions options);

  bool requires_token() const { return !options_.token.empty(); }
  // `token_exempt`: the route needs no token (a token endpoint, a probe).
  // `also_accepted`: tokens the caller issued, by digest (nullptr: none).
  // `requires_auth`: whether the service as a whole needs a token (its Host
  // rule); defaults to requires_token().
  std::optional<AdmissionVerdict> Check(
      const HttpRequest& head, bool token_exempt = false,
      const std::function<bool(const std::string& digest)>& also_accepted = nullptr,
      std::optional<bool> requires_auth = std::nullopt) const;
  // Whether the request carries a valid bearer token (see Check).
  bool Authorized(const HttpRequest& request,
                  const std::function<bool(const std::string& digest)>& also_accepted = nullptr) const;
  // The CORS headers of an answer to an admitted request carrying an Origin.
  static void AddCorsHeaders(const HttpRequest& request, HttpResponse* response);

 private:
  bool HostAllowed(const HttpRequest& request, bool requires_auth) const;
  bool OriginAllowed(const std::string& origin) const;
  AdmissionVerdict Preflight(const HttpRequest& request) const;

  HeadAdmissionOptions options_;
  std::string token_digest_;
};

// Whether two non-empty digests are equal, in a time that does not depend
// on where they differ.
bool SameDigest(const std::string& a, const std::string& b);

// The value of header `name` (lower-case) or "".
std::string HeaderValue(const HttpRequest& request, const std::string& name);

// Whether `host` is a loopback address or name: "localhost", an IPv4 address
// in 127.0.0.0/8, "::1" (brackets allowed), or an IPv4-mapped 127.x address.
// Parsed as an address, so "127.0.0.1.example" is not.
bool IsLoopbackHost(const std::string& host);

}  // namespace floe::http_server
