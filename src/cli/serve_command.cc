// `floe serve`: floe's SQL catalog as an Iceberg REST catalog service, so any
// engine (Spark, Trino, DuckDB, PyIceberg, iceberg-js) can use it.
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "catalog/rest_server/rest_catalog_service.h"
#include "catalog/sql/sql_metastore.h"
#include "cli/commands.h"
#include "common/redaction.h"
#include "http_server/http_server.h"
#include "io/s3/file_io_factory.h"

namespace floe::cli {

namespace {

struct ServeOptions {
  std::string catalog_uri;
  std::string warehouse;
  std::string catalog_name = "floe";
  std::string listen = "127.0.0.1:8181";
  std::string token;
  std::string client_credentials;  // id:secret for /v1/oauth/tokens
  std::string prefix;
  std::vector<std::string> allowed_hosts;
  std::vector<std::string> cors_origins;
  http_server::HttpServerOptions http;
};

bool HasScheme(const std::string& location) {
  return location.find("://") != std::string::npos;
}

Status RunServe(ServeOptions options) {
  if (options.catalog_uri.rfind("sqlite:", 0) != 0 && options.catalog_uri.rfind("postgresql:", 0) != 0 &&
      options.catalog_uri.rfind("postgres:", 0) != 0) {
    return Status::InvalidArgument(
        "floe serve needs a SQL catalog (sqlite:///path/catalog.db or "
        "postgresql://...), got '" +
        RedactUri(options.catalog_uri) + "'");
  }
  if (options.token.empty()) {
    if (const char* token = std::getenv("FLOE_SERVE_TOKEN"); token && *token) options.token = token;
  }
  std::string warehouse = options.warehouse;
  if (warehouse.rfind("file://", 0) == 0) warehouse = warehouse.substr(7);
  if (!HasScheme(warehouse)) warehouse = std::filesystem::absolute(warehouse).lexically_normal().string();

  catalog::rest::RestServiceOptions service_options;
  service_options.prefix = options.prefix;
  service_options.token = options.token;
  service_options.allowed_hosts = options.allowed_hosts;
  service_options.cors_origins = options.cors_origins;
  if (!options.client_credentials.empty()) {
    const size_t colon = options.client_credentials.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == options.client_credentials.size()) {
      return Status::InvalidArgument("--client-credentials must be CLIENT_ID:SECRET");
    }
    service_options.client_id = options.client_credentials.substr(0, colon);
    service_options.client_secret = options.client_credentials.substr(colon + 1);
  }
  http_server::HttpServerOptions http_options = options.http;
  http_options.how_to_authenticate = "pass --token (or client credentials)";
  FLOE_RETURN_IF_ERROR(
      http_server::ParseListenAddress(options.listen, &http_options.host, &http_options.port));

  FLOE_ASSIGN_OR_RETURN(auto sql, catalog::SqlMetastore::Open(options.catalog_uri, options.catalog_name));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<FileIO> io, FileIOForUri(warehouse));
  FLOE_ASSIGN_OR_RETURN(auto service, catalog::rest::RestCatalogService::Create(
                                          std::shared_ptr<catalog::Metastore>(std::move(sql)), std::move(io),
                                          warehouse, service_options));

  // SIGINT/SIGTERM are blocked in every thread (the server's pool inherits
  // the mask) and taken by one waiting thread, which stops the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigset_t previous_mask;
  pthread_sigmask(SIG_BLOCK, &stop_signals, &previous_mask);

  Status result;
  {
    http_server::HttpServer server(std::shared_ptr<catalog::rest::RestCatalogService>(std::move(service)),
                                   http_options);
    auto port = server.Bind();
    if (!port.ok()) {
      pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
      return port.status();
    }
    std::thread waiter([&server, stop_signals] {
      int signal_number = 0;
      sigwait(&stop_signals, &signal_number);
      server.Stop();
    });
    const std::string shown_host =
        http_options.host.find(':') != std::string::npos ? "[" + http_options.host + "]" : http_options.host;
    std::cout << "listening on " << shown_host << ":" << *port << std::endl;
    std::cerr << "floe serve: catalog " << RedactUri(options.catalog_uri) << ", warehouse " << warehouse
              << (options.prefix.empty() ? "" : ", prefix " + options.prefix)
              << (service_options.token.empty() && service_options.client_id.empty()
                      ? ", no authentication"
                      : ", bearer token required")
              << std::endl;
    result = server.Serve();
    // Wakes the waiter when the server ended without a signal.
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
  }
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  return result;
}

}  // namespace

void RegisterServeCommand(CLI::App& app, ExitCode& exit_code) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* serve = app.add_subcommand("serve", "Serve a SQL catalog over the Iceberg REST catalog protocol");
  serve->add_option("--catalog", options->catalog_uri, "sqlite:///path/catalog.db or postgresql://...")
      ->required();
  serve->add_option("--warehouse", options->warehouse, "where new tables are created (directory or s3://...)")
      ->required();
  serve->add_option("--catalog-name", options->catalog_name, "catalog name inside the SQL database");
  serve->add_option("--listen", options->listen, "host:port to listen on (port 0: any free port)");
  serve->add_option("--token", options->token,
                    "bearer token clients must send (or FLOE_SERVE_TOKEN), at least 16 characters; required "
                    "beyond loopback");
  serve->add_option(
      "--client-credentials", options->client_credentials,
      "CLIENT_ID:SECRET accepted at /v1/oauth/tokens (OAuth2 client credentials; secret at least "
      "16 characters)");
  serve->add_option("--prefix", options->prefix, "path prefix clients must use (/v1/<prefix>/...)");
  serve->add_option("--allowed-host", options->allowed_hosts,
                    "a host name clients may send in the Host header (repeatable); without it only loopback "
                    "names are accepted when no token is required");
  serve->add_option(
      "--cors-origin", options->cors_origins,
      "an origin (https://app.example.com) whose browser pages may call the catalog (repeatable); "
      "without it requests carrying an Origin are refused");
  serve
      ->add_option("--max-body-bytes", options->http.max_body_bytes,
                   "largest request body accepted, however it is framed (413 beyond)")
      ->capture_default_str();
  serve->add_option("--threads", options->http.threads, "worker threads running catalog requests")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  serve
      ->add_option("--max-connections", options->http.max_connections,
                   "open connections at most (503 beyond)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  serve
      ->add_option("--max-connections-per-client", options->http.max_connections_per_client,
                   "open connections from one remote address at most (503 beyond)")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  auto seconds = [serve](const char* name, std::chrono::milliseconds* target, const char* what) {
    serve
        ->add_option_function<int>(
            name, [target](int s) { *target = std::chrono::seconds(s); }, what)
        ->default_str(std::to_string(target->count() / 1000))
        ->check(CLI::Range(1, 3600));
  };
  seconds("--header-timeout", &options->http.header_timeout,
          "seconds a request line and headers may take to arrive (408 beyond)");
  seconds("--body-timeout", &options->http.body_timeout,
          "seconds a request body may take to arrive (408 beyond)");
  seconds("--idle-timeout", &options->http.idle_timeout,
          "seconds a kept-alive connection may wait for a request");
  seconds("--write-timeout", &options->http.write_timeout, "seconds a client may take to read an answer");
  serve->callback([options, &exit_code] {
    Status status = RunServe(*options);
    if (!status.ok()) {
      std::cerr << "floe serve: " << status.ToString() << "\n";
      exit_code.value = 1;
    }
  });
}

}  // namespace floe::cli
