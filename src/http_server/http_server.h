// HttpServer: puts an HttpService (http_service.h) on a TCP socket (HTTP/1.1):
// `floe serve`'s catalog, `floe run --http`'s observability pages.
//
// Contract: Bind refuses a non-loopback address unless the service requires
// a bearer token (an open service must not be reachable from the network),
// then binds (port 0 picks a free port) and returns the port. Serve blocks
// until Stop is called from any thread (Stop is safe before Serve, and
// idempotent).
//
// What a client can hold, and for how long: one thread reads every
// connection without blocking and hands only complete requests to a pool
// of `threads` workers, which run the service's handler and hand the answer
// back for writing; so a slow or stalled client holds a connection slot,
// never a worker. A request head must arrive within `header_timeout` of
// its first byte (or of the connection's start), its body within
// `body_timeout` after the head, an answer must be taken within
// `write_timeout`, and a kept-alive connection may idle `idle_timeout`
// between requests; past a deadline the connection is closed (408 when a
// request was under way). At most `max_connections` connections are open,
// at most `max_connections_per_client` from one remote address; more are
// answered 503 and closed. The head is admitted by the service
// (HttpService::Admit: Host, Origin, CORS preflight, bearer token; see
// head_admission.h)
// before a body byte is read, so an unauthenticated or oversized request
// costs its head only; a body is limited to `max_body_bytes` while it is
// read, for Content-Length and chunked framing alike (413), and the bodies
// being read at once to `max_buffered_body_bytes` (503 beyond). Every error
// answer is the service's ErrorResponse.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "common/status.h"
#include "http_server/http_service.h"

namespace floe::http_server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 8181;  // 0: any free port
  size_t max_body_bytes = size_t{16} << 20;
  int threads = 8;
  size_t max_connections = 256;
  size_t max_connections_per_client = 32;
  size_t max_buffered_body_bytes = size_t{64} << 20;
  std::chrono::milliseconds header_timeout{10'000};
  std::chrono::milliseconds body_timeout{60'000};
  std::chrono::milliseconds idle_timeout{60'000};
  std::chrono::milliseconds write_timeout{60'000};
  // Said when Bind refuses an address beyond loopback without authentication.
  std::string how_to_authenticate = "set a bearer token";
};

class HttpServer {
 public:
  HttpServer(std::shared_ptr<HttpService> service, HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  Result<int> Bind();
  Status Serve();
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Splits "host:port" ("[::1]:8181" for IPv6); the port must be 0-65535.
Status ParseListenAddress(const std::string& text, std::string* host, int* port);

}  // namespace floe::http_server
