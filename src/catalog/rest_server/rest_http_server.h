// RestHttpServer: puts a RestCatalogService on a TCP socket (cpp-httplib).
//
// Contract: Bind refuses a non-loopback address unless the service requires
// a bearer token (an open catalog must not be reachable from the network),
// then binds (port 0 picks a free port) and returns the port. Serve blocks,
// answering requests on a small thread pool, until Stop is called from any
// thread (Stop is safe before Serve, and idempotent). Request bodies larger
// than max_body_bytes are answered 413 without being read; every error
// answer carries an IcebergErrorResponse body.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "catalog/rest_server/rest_catalog_service.h"
#include "common/status.h"

namespace httplib {
class Server;
}

namespace floe::catalog::rest {

struct RestHttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 8181;  // 0: any free port
  size_t max_body_bytes = size_t{16} << 20;
};

class RestHttpServer {
 public:
  RestHttpServer(std::shared_ptr<RestCatalogService> service, RestHttpServerOptions options);
  ~RestHttpServer();
  RestHttpServer(const RestHttpServer&) = delete;
  RestHttpServer& operator=(const RestHttpServer&) = delete;

  Result<int> Bind();
  Status Serve();
  void Stop();

 private:
  std::shared_ptr<RestCatalogService> service_;
  RestHttpServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
  bool bound_ = false;
  // Stop may race with the start of Serve; these close that window.
  std::atomic<bool> stop_requested_{false};
  std::atomic<bool> serving_{false};
};

// Splits "host:port" ("[::1]:8181" for IPv6); the port must be 0-65535.
Status ParseListenAddress(const std::string& text, std::string* host, int* port);

}  // namespace floe::catalog::rest
