// A `floe serve` in the test process: a SQLite catalog in a temp dir behind
// http_server::HttpServer on a free loopback port, and clients pointed at it.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "catalog/rest/rest_catalog.h"
#include "catalog/rest_server/rest_catalog_service.h"
#include "catalog/sql/sql_metastore.h"
#include "http_server/http_server.h"
#include "io/http/http_transport.h"
#include "test_util.h"

namespace floe::catalog::rest {

class RestServerTest : public ::testing::Test {
 protected:
  void StartServer(RestServiceOptions options = {}) {
    warehouse_ = dir_.File("warehouse");
    auto sql = SqlMetastore::Open("sqlite://" + dir_.File("catalog.db"), "floe");
    ASSERT_OK(sql.status());
    auto service = RestCatalogService::Create(std::shared_ptr<Metastore>(std::move(*sql)), MakeLocalFileIO(),
                                              warehouse_, options);
    ASSERT_OK(service.status());
    server_ =
        std::make_unique<http_server::HttpServer>(std::shared_ptr<RestCatalogService>(std::move(*service)),
                                                  http_server::HttpServerOptions{"127.0.0.1", 0, 1 << 20});
    auto port = server_->Bind();
    ASSERT_OK(port.status());
    port_ = *port;
    serve_thread_ = std::thread([this] { serve_status_ = server_->Serve(); });
  }

  void TearDown() override {
    if (server_) {
      server_->Stop();
      serve_thread_.join();
      EXPECT_OK(serve_status_);
    }
  }

  std::string BaseUri() const { return "http://127.0.0.1:" + std::to_string(port_); }

  RestCatalogOptions ClientOptions() const {
    RestCatalogOptions options;
    options.uri = BaseUri();
    options.max_attempts = 2;
    return options;
  }

  Result<std::unique_ptr<RestCatalog>> Client(RestCatalogOptions options) {
    return RestCatalog::Open(options, nullptr, aws::MapEnvironment({}));
  }
  Result<std::unique_ptr<RestCatalog>> Client() { return Client(ClientOptions()); }

  // One raw exchange, for what the client would never send.
  http::HttpResponse Raw(const std::string& method, const std::string& target, const std::string& body = "",
                         std::vector<std::pair<std::string, std::string>> headers = {}) {
    http::HttpTransport transport(5000, 30000);
    http::HttpRequest request;
    request.method = method;
    request.url = BaseUri() + target;
    request.headers = std::move(headers);
    // Like every REST client; curl would label a body application/x-www-form-urlencoded.
    bool typed = false;
    for (const auto& [name, value] : request.headers) typed = typed || name == "Content-Type";
    if (!body.empty() && !typed) request.headers.emplace_back("Content-Type", "application/json");
    request.body = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(body.data()), body.size());
    auto response = transport.Execute(request);
    EXPECT_TRUE(response.ok()) << response.status().ToString();
    return response.ok() ? *response : http::HttpResponse{};
  }

  floe::testing::TempDir dir_;
  std::string warehouse_;
  std::unique_ptr<http_server::HttpServer> server_;
  std::thread serve_thread_;
  Status serve_status_;
  int port_ = 0;
};

}  // namespace floe::catalog::rest
