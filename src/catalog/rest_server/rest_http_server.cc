#include "catalog/rest_server/rest_http_server.h"

#include <httplib.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <thread>

#include "catalog/rest_server/service_responses.h"

namespace floe::catalog::rest {

namespace {

ServiceRequest ToServiceRequest(const httplib::Request& req) {
  ServiceRequest out;
  out.method = req.method;
  out.target = req.target;
  for (const auto& [name, value] : req.headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers.emplace(std::move(lower), value);
  }
  out.body = req.body;
  return out;
}

}  // namespace

Status ParseListenAddress(const std::string& text, std::string* host, int* port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    return Status::InvalidArgument("listen address '" + text + "' must be host:port (e.g. 127.0.0.1:8181)");
  }
  std::string h = text.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  int p = -1;
  const char* begin = text.data() + colon + 1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, p);
  if (ec != std::errc() || ptr != end || p < 0 || p > 65535) {
    return Status::InvalidArgument("listen address '" + text + "': port must be 0-65535");
  }
  *host = h;
  *port = p;
  return Status::OK();
}

RestHttpServer::RestHttpServer(std::shared_ptr<RestCatalogService> service, RestHttpServerOptions options)
    : service_(std::move(service)),
      options_(std::move(options)),
      server_(std::make_unique<httplib::Server>()) {
  server_->set_payload_max_length(options_.max_body_bytes);
  server_->new_task_queue = [] { return new httplib::ThreadPool(8); };
  auto handler = [service = service_](const httplib::Request& req, httplib::Response& res) {
    ServiceResponse answer = service->Handle(ToServiceRequest(req));
    res.status = answer.status;
    if (!answer.body.empty()) res.set_content(answer.body, answer.content_type.c_str());
  };
  server_->Get(".*", handler);  // GET and HEAD
  server_->Post(".*", handler);
  server_->Delete(".*", handler);
  // Answers httplib makes itself (413 too large, 400 unreadable request,
  // 404 for PUT/PATCH) get the spec's error body too.
  server_->set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        const char* type = res.status == 413 ? "RequestTooLargeException" : "BadRequestException";
        std::string message = res.status == 413 ? "request body too large" : "request rejected";
        ServiceResponse answer =
            internal::ErrorResponse(res.status, type, message + " (HTTP " + std::to_string(res.status) + ")");
        res.set_content(answer.body, "application/json");
        return httplib::Server::HandlerResponse::Handled;
      }));
  server_->set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    ServiceResponse answer = internal::ErrorResponse(500, "InternalServerError", "unexpected server error");
    res.status = 500;
    res.set_content(answer.body, "application/json");
  });
}

RestHttpServer::~RestHttpServer() {
  Stop();
}

Result<int> RestHttpServer::Bind() {
  if (!IsLoopbackHost(options_.host) && !service_->requires_auth()) {
    return Status::InvalidArgument("refusing to listen on " + options_.host +
                                   " without authentication: pass --token (or client credentials), or listen "
                                   "on 127.0.0.1");
  }
  int port = options_.port;
  if (port == 0) {
    port = server_->bind_to_any_port(options_.host);
    if (port <= 0) return Status::IOError("cannot bind " + options_.host + " to a free port");
  } else if (!server_->bind_to_port(options_.host, port)) {
    return Status::IOError("cannot bind " + options_.host + ":" + std::to_string(port) +
                           " (address in use or not available)");
  }
  bound_ = true;
  return port;
}

Status RestHttpServer::Serve() {
  if (!bound_) return Status::InvalidArgument("Serve called before Bind");
  serving_ = true;
  if (stop_requested_) {
    serving_ = false;
    return Status::OK();
  }
  // Stop makes listen_after_bind return true; false means accepting connections failed.
  const bool clean = server_->listen_after_bind();
  serving_ = false;
  if (!clean) return Status::IOError("the HTTP server failed while accepting connections");
  return Status::OK();
}

void RestHttpServer::Stop() {
  stop_requested_ = true;
  // A Serve that has begun but is not accepting yet would miss httplib's stop.
  for (int i = 0; i < 10000 && serving_ && !server_->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  server_->stop();
}

}  // namespace floe::catalog::rest
