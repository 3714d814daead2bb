// HttpService: what floe's HTTP server (http_server.h) puts on a socket —
// `floe serve`'s REST catalog and `floe run --http`'s observability pages
// are two of them.
//
// Contract: the server calls Admit with a request's head (no body read yet)
// and answers a returned response at once, without reading the body; a
// request Admit lets through is read whole and handed to HandleAdmitted on
// one of the server's worker threads, so HandleAdmitted must be thread-safe.
// ErrorResponse builds the answers the server gives by itself (a malformed
// request, a body too large, a deadline missed, too many connections), in
// the service's own error format. requires_auth says whether every request
// that matters needs a bearer token: the server refuses to bind beyond
// loopback without one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace floe::http_server {

struct HttpRequest {
  std::string method;
  std::string target;                          // raw request target: encoded path and query
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string body;  // empty for 204, 304 and HEAD answers
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // extra response headers
};

class HttpService {
 public:
  virtual ~HttpService() = default;
  // The answer for a request refused (or fully answered, e.g. a CORS
  // preflight) by its head alone; nullopt when it may go on. The answer to
  // a HEAD request has no body.
  virtual std::optional<HttpResponse> Admit(const HttpRequest& head) = 0;
  // Answers a request Admit let through. Thread-safe.
  virtual HttpResponse HandleAdmitted(const HttpRequest& request) = 0;
  // The server's own error answers (`status` 400, 408, 413, 431, 501, 503, ...).
  virtual HttpResponse ErrorResponse(int status, const std::string& message) const = 0;
  virtual bool requires_auth() const = 0;
};

}  // namespace floe::http_server
