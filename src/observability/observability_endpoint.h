// ObservabilityEndpoint: `floe run --http ADDR` — the ObservabilityService
// on floe's HTTP server, served by a thread of its own for the lifetime of
// the object.
//
// Contract: Start parses the address ("host:port", port 0: any free port),
// refuses an address beyond loopback without a token (the server's rule),
// binds and starts serving; `bound_port()` is the port bound. Stop (and the
// destructor) stop the server and join its thread; requests in flight
// finish first. The endpoint serves 2 worker threads: scrapes and status
// reads are short, and the pipeline keeps the cores.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "http_server/http_server.h"
#include "observability/observability_service.h"

namespace floe::observability {

class ObservabilityEndpoint {
 public:
  static Result<std::unique_ptr<ObservabilityEndpoint>> Start(const std::string& listen,
                                                              ObservabilityOptions options);
  ~ObservabilityEndpoint();
  ObservabilityEndpoint(const ObservabilityEndpoint&) = delete;
  ObservabilityEndpoint& operator=(const ObservabilityEndpoint&) = delete;

  int bound_port() const { return port_; }
  // "http://127.0.0.1:9464" as a client reaches it.
  std::string url() const;
  void Stop();

 private:
  ObservabilityEndpoint() = default;

  std::string host_;
  int port_ = 0;
  std::unique_ptr<http_server::HttpServer> server_;
  std::thread thread_;
};

}  // namespace floe::observability
