// RestCatalogService: the Iceberg REST catalog protocol over floe's SQL
// catalog, independent of any socket (rest_http_server.h puts it on one).
//
// Contract: Handle answers one request with the status codes
// apache/iceberg's rest-catalog-open-api.yaml lists for that operation and
// IcebergErrorResponse bodies: 400 for bad JSON, bad names or invalid
// updates; 401 without a valid bearer token; 403 for a browser origin not
// allowed; 404 for unknown namespaces, tables or routes; 409 for existing
// names, non-empty namespaces and failed commits (a requirement that does
// not hold or a lost compare-and-swap race); 501 for operations of the spec
// floe does not implement (views, functions, scan planning, credentials,
// remote signing, metrics); 500 CommitStateUnknownException when a commit's
// outcome is unknown.
//
// Admit is everything that needs only the request head, and the HTTP server
// calls it before reading a body: the Host header must name this server
// (allowed_hosts; without them and without a token only loopback names, so
// DNS rebinding cannot reach an open loopback catalog), a request carrying
// an Origin must come from an allowed origin (cors_origins), an OPTIONS
// preflight is answered, and every route but the token endpoint needs the
// bearer token (compared in constant time). HandleAdmitted does the rest.
//
// Names follow catalog::ValidateName (metastore.h). Every path a client
// supplies (a table location, a registered metadata file and what it
// references, an added snapshot's manifest list, statistics files) must be
// free of "." / ".." / empty segments and lie under the table's location
// (locations: under the warehouse) before it is stored. Purging a dropped
// table deletes only files under the table's location that its metadata
// references. Staged creates (stage-create) return metadata without
// creating anything; a commit whose requirements include assert-create
// creates the table from its updates. A multi-table transaction commits
// every table or none (one SQL transaction). Lists page when a pageToken is
// given. A commit checks every requirement against the current metadata,
// applies the updates with the metadata builder, writes the new metadata
// file and compare-and-swaps the catalog pointer. Thread-safe: requests may
// be handled concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/metastore.h"
#include "common/status.h"
#include "io/file_io.h"

namespace floe::iceberg {
struct TableMetadata;
}

namespace floe::catalog::rest {

// Shortest bearer token or client secret accepted: guessing must not be practical.
inline constexpr size_t kMinSecretLength = 16;

struct RestServiceOptions {
  std::string prefix;  // the {prefix} segment clients must use; empty: none
  std::string token;   // bearer token every request must carry; empty: none
  // OAuth2 client credentials accepted at /v1/oauth/tokens; empty id: endpoint off.
  std::string client_id;
  std::string client_secret;
  int64_t issued_token_lifetime_s = 3600;
  // Names (without port) clients may use in the Host header. Empty: any name
  // when a token is required, only loopback names (localhost, 127.0.0.0/8,
  // ::1) otherwise.
  std::vector<std::string> allowed_hosts;
  // Origins ("https://app.example.com:8443") whose browser pages may call
  // the catalog (CORS). Empty: any request carrying an Origin is refused.
  std::vector<std::string> cors_origins;
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
  std::vector<std::pair<std::string, std::string>> headers;  // extra response headers
};

class RestCatalogService {
 public:
  // `catalog` stores the pointers, `io` reads and writes metadata files,
  // tables are created under `warehouse` (a directory or s3:// prefix).
  static Result<std::unique_ptr<RestCatalogService>> Create(std::shared_ptr<Metastore> catalog,
                                                            std::shared_ptr<FileIO> io, std::string warehouse,
                                                            RestServiceOptions options);

  // Admit, then HandleAdmitted.
  ServiceResponse Handle(const ServiceRequest& request);
  // The answer for a request refused (or, for a preflight, fully answered)
  // by its head alone; nullopt when it may go on. The body is not looked at.
  // The answer to a HEAD request has no body.
  std::optional<ServiceResponse> Admit(const ServiceRequest& head);
  // Answers a request Admit let through.
  ServiceResponse HandleAdmitted(const ServiceRequest& request);

  // Whether requests must carry a bearer token.
  bool requires_auth() const { return !options_.token.empty() || !options_.client_id.empty(); }

 private:
  // Admit's decisions, bodies included.
  std::optional<ServiceResponse> AdmitHead(const ServiceRequest& head);
  RestCatalogService(std::shared_ptr<Metastore> catalog, std::shared_ptr<FileIO> io, std::string warehouse,
                     RestServiceOptions options);

  struct Route;
  struct TableChange;
  struct PreparedCommit;
  ServiceResponse Dispatch(const ServiceRequest& request);
  ServiceResponse IssueToken(const ServiceRequest& request);
  bool Authorized(const ServiceRequest& request);
  bool HostAllowed(const ServiceRequest& request) const;
  bool OriginAllowed(const std::string& origin) const;
  ServiceResponse Preflight(const ServiceRequest& request) const;

  ServiceResponse GetConfig();
  ServiceResponse ListNamespaces(const Route& route);
  ServiceResponse CreateNamespace(const std::string& body);
  ServiceResponse LoadNamespace(const Namespace& ns, bool head);
  ServiceResponse DropNamespace(const Namespace& ns);
  ServiceResponse UpdateNamespaceProperties(const Namespace& ns, const std::string& body);
  ServiceResponse ListTables(const Namespace& ns, const Route& route);
  ServiceResponse CreateTable(const Namespace& ns, const std::string& body);
  ServiceResponse LoadTable(const TableIdentifier& id, bool head);
  ServiceResponse CommitTable(const TableIdentifier& id, const std::string& body);
  ServiceResponse CommitTransaction(const std::string& body);
  ServiceResponse DropTable(const TableIdentifier& id, bool purge);
  ServiceResponse UnregisterTable(const TableIdentifier& id);
  ServiceResponse RenameTable(const std::string& body);
  ServiceResponse RegisterTable(const Namespace& ns, const std::string& body);

  // Parses one table's {requirements, updates} and prepares its new metadata
  // file (written, not yet committed); errors are the answer to give.
  Result<PreparedCommit> PrepareCommit(const TableChange& change, ServiceResponse* error);
  // Commits prepared changes atomically; deletes their files unless the outcome is unknown.
  ServiceResponse CommitPrepared(std::vector<PreparedCommit>& prepared, bool one_table);

  // InvalidArgument unless `location` is free of "."/".."/empty segments and
  // control characters and lies under `root` (at it only when `may_equal`).
  static Status CheckUnder(const std::string& location, const std::string& root, bool may_equal,
                           const std::string& what);
  // A table location a client chose: under the warehouse, not the warehouse itself.
  Status CheckTableLocation(const std::string& location) const;
  // Every path `next` references that `base` (nullptr: none) does not: the
  // location, snapshots' manifest lists, statistics and the metadata log.
  Status CheckNewPaths(const iceberg::TableMetadata* base, const iceberg::TableMetadata& next) const;
  Status PurgeTableFiles(const std::string& metadata_location);

  std::shared_ptr<Metastore> catalog_;
  std::shared_ptr<FileIO> io_;
  std::string warehouse_;
  RestServiceOptions options_;
  std::string token_digest_;  // SHA-256 of the token, compared in constant time
  std::string client_id_digest_;
  std::string client_secret_digest_;

  std::mutex tokens_mutex_;
  // SHA-256 of each issued token -> expiry: a lookup's timing depends on the
  // digest, never on how much of a guessed token is right.
  std::map<std::string, std::chrono::steady_clock::time_point> issued_tokens_;
};

// Whether `host` is a loopback address or name: "localhost", an IPv4 address
// in 127.0.0.0/8, "::1" (brackets allowed), or an IPv4-mapped 127.x address.
// Parsed as an address, so "127.0.0.1.example" is not.
bool IsLoopbackHost(const std::string& host);

}  // namespace floe::catalog::rest
