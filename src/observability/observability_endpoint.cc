#include "observability/observability_endpoint.h"

namespace floe::observability {

Result<std::unique_ptr<ObservabilityEndpoint>> ObservabilityEndpoint::Start(const std::string& listen,
                                                                            ObservabilityOptions options) {
  http_server::HttpServerOptions http;
  FLOE_RETURN_IF_ERROR(http_server::ParseListenAddress(listen, &http.host, &http.port)
                           .WithContext("[observability] http / --http"));
  http.threads = 2;
  http.max_connections = 64;
  http.max_connections_per_client = 16;
  http.max_body_bytes = 64 << 10;  // GET only: nothing to upload
  http.how_to_authenticate = "set [observability] token (or FLOE_HTTP_TOKEN)";
  FLOE_ASSIGN_OR_RETURN(auto service, ObservabilityService::Create(std::move(options)));
  std::unique_ptr<ObservabilityEndpoint> endpoint(new ObservabilityEndpoint());
  endpoint->host_ = http.host;
  endpoint->server_ = std::make_unique<http_server::HttpServer>(
      std::shared_ptr<ObservabilityService>(std::move(service)), http);
  FLOE_ASSIGN_OR_RETURN(endpoint->port_, endpoint->server_->Bind());
  http_server::HttpServer* server = endpoint->server_.get();
  endpoint->thread_ = std::thread([server] { (void)server->Serve(); });
  return endpoint;
}

ObservabilityEndpoint::~ObservabilityEndpoint() {
  Stop();
}

void ObservabilityEndpoint::Stop() {
  if (server_) server_->Stop();
  if (thread_.joinable()) thread_.join();
}

std::string ObservabilityEndpoint::url() const {
  const bool v6 = host_.find(':') != std::string::npos;
  const std::string host = host_ == "0.0.0.0" ? "127.0.0.1"
                           : host_ == "::"    ? "[::1]"
                           : v6               ? "[" + host_ + "]"
                                              : host_;
  return "http://" + host + ":" + std::to_string(port_);
}

}  // namespace floe::observability
