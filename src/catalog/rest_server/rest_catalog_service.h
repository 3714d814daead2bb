// RestCatalogService: the Iceberg REST catalog protocol over floe's SQL
// catalog, independent of any socket (rest_http_server.h puts it on one).
//
// Contract: Handle answers one request with the spec's status codes and
// IcebergErrorResponse bodies: 400 for bad JSON, bad identifiers or invalid
// updates; 401 without the configured bearer token; 404 for unknown
// namespaces, tables or routes; 409 for existing names, non-empty
// namespaces and failed commits (a requirement that does not hold or a lost
// compare-and-swap race); 406 for what floe does not support (staged
// creates); 500 CommitStateUnknownException when a commit's outcome is
// unknown. Names are validated (rest_protocol.h ValidateName) so no name can
// climb out of the warehouse; a client-chosen table location or registered
// metadata file must lie under the warehouse. A commit checks every
// requirement against the current metadata, applies the updates with the
// metadata builder, writes the new metadata file and compare-and-swaps the
// catalog pointer (MetastoreTableOperations). Purging a dropped table deletes
// only files under the table's location that its metadata references.
// Thread-safe: requests may be handled concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "catalog/metastore.h"
#include "common/status.h"
#include "io/file_io.h"

namespace floe::catalog::rest {

struct RestServiceOptions {
  std::string prefix;  // the {prefix} segment clients must use; empty: none
  std::string token;   // bearer token every request must carry; empty: none
  // OAuth2 client credentials accepted at /v1/oauth/tokens; empty id: endpoint off.
  std::string client_id;
  std::string client_secret;
  int64_t issued_token_lifetime_s = 3600;
};

struct ServiceRequest {
  std::string method;
  std::string target;                          // raw request target: encoded path and query
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

struct ServiceResponse {
  int status = 200;
  std::string body;  // JSON (empty for 204 and HEAD)
  std::string content_type = "application/json";
};

class RestCatalogService {
 public:
  // `catalog` stores the pointers, `io` reads and writes metadata files,
  // tables are created under `warehouse` (a directory or s3:// prefix).
  static Result<std::unique_ptr<RestCatalogService>> Create(std::shared_ptr<Metastore> catalog,
                                                            std::shared_ptr<FileIO> io, std::string warehouse,
                                                            RestServiceOptions options);

  ServiceResponse Handle(const ServiceRequest& request);

  // Whether requests must carry a bearer token.
  bool requires_auth() const { return !options_.token.empty() || !options_.client_id.empty(); }

 private:
  RestCatalogService(std::shared_ptr<Metastore> catalog, std::shared_ptr<FileIO> io, std::string warehouse,
                     RestServiceOptions options)
      : catalog_(std::move(catalog)),
        io_(std::move(io)),
        warehouse_(std::move(warehouse)),
        options_(std::move(options)) {}

  struct Route;
  ServiceResponse Dispatch(const ServiceRequest& request);
  ServiceResponse IssueToken(const ServiceRequest& request);
  bool Authorized(const ServiceRequest& request);

  ServiceResponse GetConfig();
  ServiceResponse ListNamespaces(const Route& route);
  ServiceResponse CreateNamespace(const std::string& body);
  ServiceResponse LoadNamespace(const Namespace& ns, bool head);
  ServiceResponse DropNamespace(const Namespace& ns);
  ServiceResponse UpdateNamespaceProperties(const Namespace& ns, const std::string& body);
  ServiceResponse ListTables(const Namespace& ns);
  ServiceResponse CreateTable(const Namespace& ns, const std::string& body);
  ServiceResponse LoadTable(const TableIdentifier& id, bool head);
  ServiceResponse CommitTable(const TableIdentifier& id, const std::string& body);
  ServiceResponse DropTable(const TableIdentifier& id, bool purge);
  ServiceResponse RenameTable(const std::string& body);
  ServiceResponse RegisterTable(const Namespace& ns, const std::string& body);

  // Whether `location` is the warehouse or lies below it (no "." / ".." segments).
  bool UnderWarehouse(const std::string& location) const;
  Status PurgeTableFiles(const std::string& metadata_location);

  std::shared_ptr<Metastore> catalog_;
  std::shared_ptr<FileIO> io_;
  std::string warehouse_;
  RestServiceOptions options_;

  std::mutex tokens_mutex_;
  std::map<std::string, std::chrono::steady_clock::time_point> issued_tokens_;  // token -> expiry
};

// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost).
bool IsLoopbackHost(const std::string& host);

}  // namespace floe::catalog::rest
