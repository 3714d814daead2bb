// RestCatalogService: the Iceberg REST catalog protocol over floe's SQL
// catalog, independent of any socket (http_server/http_server.h puts it on one).
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
// calls it before reading a body: http_server::HeadAdmission's Host, Origin,
// preflight and form-POST checks, and the bearer token (the configured one
// or one issued at /v1/oauth/tokens) on every route but the token endpoint.
// HandleAdmitted does the rest.
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
#include "http_server/head_admission.h"
#include "http_server/http_service.h"
#include "io/file_io.h"

namespace floe::iceberg {
struct TableMetadata;
}

namespace floe::catalog::rest {

using http_server::kMinSecretLength;

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

using ServiceRequest = http_server::HttpRequest;
using ServiceResponse = http_server::HttpResponse;  // a JSON body (empty for 204 and HEAD)

class RestCatalogService : public http_server::HttpService {
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
  std::optional<ServiceResponse> Admit(const ServiceRequest& head) override;
  // Answers a request Admit let through.
  ServiceResponse HandleAdmitted(const ServiceRequest& request) override;
  // An IcebergErrorResponse.
  ServiceResponse ErrorResponse(int status, const std::string& message) const override;

  // Whether requests must carry a bearer token.
  bool requires_auth() const override { return !options_.token.empty() || !options_.client_id.empty(); }

 private:
  // Admit's decisions, bodies included.
  std::optional<ServiceResponse> AdmitHead(const ServiceRequest& head);
  static http_server::HeadAdmissionOptions AdmissionOptions(const RestServiceOptions& options);
  RestCatalogService(std::shared_ptr<Metastore> catalog, std::shared_ptr<FileIO> io, std::string warehouse,
                     RestServiceOptions options);

  struct Route;
  struct TableChange;
  struct PreparedCommit;
  ServiceResponse Dispatch(const ServiceRequest& request);
  ServiceResponse IssueToken(const ServiceRequest& request);
  // Whether `digest` is the SHA-256 of a live token issued at /v1/oauth/tokens.
  bool IssuedTokenLive(const std::string& digest);

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
  http_server::HeadAdmission admission_;
  std::string client_id_digest_;
  std::string client_secret_digest_;

  std::mutex tokens_mutex_;
  // SHA-256 of each issued token -> expiry: a lookup's timing depends on the
  // digest, never on how much of a guessed token is right.
  std::map<std::string, std::chrono::steady_clock::time_point> issued_tokens_;
};

using http_server::IsLoopbackHost;

}  // namespace floe::catalog::rest
