// RestCatalog: a Catalog over an Iceberg REST catalog service (AWS Glue,
// S3 Tables, Unity Catalog, Polaris, Lakekeeper, Nessie, `floe serve`).
//
// Contract: Open first asks GET /v1/config (?warehouse=) and merges the
// server's defaults, the client's settings and the server's overrides
// (prefix, uri, warehouse). Namespace and table calls follow the OpenAPI
// spec; errors become Status as rest_protocol.h's ErrorFromResponse says
// (404 NotFound, 409 AlreadyExists on create, 401/403 authentication errors,
// 400 InvalidArgument with the server's message). RestTableOperations::Commit
// posts {identifier, requirements, updates}: 409 is a retryable
// CommitFailed (the transaction layer reloads and retries), 500/502/503/504
// and a transport failure after the request may have been sent are
// CommitStateUnknown, so no written file is ever deleted for them. Table
// files go through the FileIO given to Open, else the FileIO for the table's
// location (s3:// with options.s3 plus any s3.* settings the server vends in
// the table's config). Listings follow next-page-token.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/rest/rest_options.h"
#include "catalog/rest/rest_session.h"
#include "catalog/table/catalog.h"
#include "iceberg/transaction/table_operations.h"

namespace floe::catalog::rest {

class RestCatalog final : public Catalog {
 public:
  // `io` (may be null) serves every table's files; `env` resolves SigV4 credentials.
  static Result<std::unique_ptr<RestCatalog>> Open(const RestCatalogOptions& options,
                                                   std::shared_ptr<FileIO> io = nullptr,
                                                   const aws::EnvLookup& env = aws::ProcessEnvironment());

  const std::string& warehouse() const override { return warehouse_; }
  // The FileIO given to Open, else the local filesystem.
  FileIO& io() override { return *io_; }
  // The prefix in effect after the config exchange ("" when none).
  const std::string& prefix() const { return prefix_; }

  Status CreateNamespace(const Namespace& ns, const Properties& properties) override;
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  Result<bool> NamespaceExists(const Namespace& ns);
  Result<Properties> LoadNamespaceProperties(const Namespace& ns);
  Status UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                   const std::vector<std::string>& removals);
  Status DropNamespace(const Namespace& ns);

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  Result<std::shared_ptr<iceberg::TableOperations>> LoadTable(const TableIdentifier& table) override;
  Result<std::shared_ptr<iceberg::TableOperations>> CreateTable(const TableIdentifier& table,
                                                                const TableCreation& creation) override;
  // Only when the server's config lists kTransactionsCommitEndpoint: the
  // specification assumes it for a server that lists no endpoints at all,
  // but servers older than the list (and some current ones) do not offer it,
  // so floe does not guess and commits such tables one at a time.
  bool SupportsMultiTableCommit() const override { return transactions_endpoint_; }
  // POST /v1/{prefix}/transactions/commit, then each table loaded again
  // (the answer has no content). A 409 is a retryable CommitFailed; a 5xx,
  // a transport failure or a table that cannot be loaded after the commit
  // is CommitStateUnknown.
  Result<std::vector<iceberg::LoadedTable>> CommitTables(const std::vector<TableChanges>& changes) override;
  Result<bool> TableExists(const TableIdentifier& table);
  Status DropTable(const TableIdentifier& table, bool purge);
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to);
  // Registers an existing metadata file under `table`.
  Result<std::shared_ptr<iceberg::TableOperations>> RegisterTable(const TableIdentifier& table,
                                                                  const std::string& metadata_location);

 private:
  RestCatalog(RestCatalogOptions options, std::shared_ptr<RestSession> session, std::shared_ptr<FileIO> io,
              bool io_given)
      : options_(std::move(options)), session_(std::move(session)), io_(std::move(io)), io_given_(io_given) {}

  Status LoadConfig();
  // GETs every page of a list operation (pageToken / next-page-token),
  // handing each element of the answer's `array_key` array to `on_entry`.
  // A repeated token or more than kMaxListPages pages is Corruption.
  Status ListAllPages(RestRequest request, std::string_view array_key, const std::string& operation,
                      const std::function<Status(const iceberg::Json&)>& on_entry);
  // "/v1/<prefix>" or "/v1".
  std::string Root() const;
  std::string NamespacePath(const Namespace& ns) const;
  std::string TablePath(const TableIdentifier& table) const;
  // Builds table operations from a LoadTableResult body.
  Result<std::shared_ptr<iceberg::TableOperations>> OpsFromLoadResult(const TableIdentifier& table,
                                                                      const std::string& body,
                                                                      const std::string& operation);

  RestCatalogOptions options_;
  std::shared_ptr<RestSession> session_;
  std::shared_ptr<FileIO> io_;
  bool io_given_;
  std::string warehouse_;
  std::string prefix_;
  bool transactions_endpoint_ = false;
};

// Iceberg table operations through a REST catalog's load and commit endpoints.
class RestTableOperations final : public iceberg::TableOperations {
 public:
  RestTableOperations(std::shared_ptr<RestSession> session, std::string table_path,
                      TableIdentifier identifier, std::shared_ptr<FileIO> io,
                      std::optional<iceberg::LoadedTable> loaded)
      : session_(std::move(session)),
        table_path_(std::move(table_path)),
        identifier_(std::move(identifier)),
        io_(std::move(io)),
        cached_(std::move(loaded)) {}

  Result<iceberg::LoadedTable> Load() override;
  Result<iceberg::LoadedTable> Commit(const std::vector<iceberg::TableRequirement>& requirements,
                                      const std::vector<iceberg::TableUpdate>& updates) override;
  FileIO& io() override { return *io_; }
  std::string name() const override { return identifier_.ToString(); }

 private:
  std::shared_ptr<RestSession> session_;
  std::string table_path_;
  TableIdentifier identifier_;
  std::shared_ptr<FileIO> io_;
  std::optional<iceberg::LoadedTable> cached_;
};

// Parsers of the server's answers (untrusted input: malformed JSON, wrong
// member types or invalid names are Corruption or InvalidArgument naming
// `context`, never a crash).
//
// A LoadTableResult / CommitTableResponse body: metadata-location and
// metadata (and `config` into *config when given).
Result<iceberg::LoadedTable> LoadedTableFromJson(const std::string& body, const std::string& context,
                                                 std::map<std::string, std::string>* config = nullptr);

// A CatalogConfig body (GET /v1/config).
struct CatalogConfigAnswer {
  std::map<std::string, std::string> defaults;
  std::map<std::string, std::string> overrides;
  // "<verb> <path>" entries of `endpoints`; nullopt when the server sent none.
  std::optional<std::vector<std::string>> endpoints;
};
// The endpoint a multi-table commit needs in a config's `endpoints`.
inline constexpr const char* kTransactionsCommitEndpoint = "POST /v1/{prefix}/transactions/commit";
Result<CatalogConfigAnswer> CatalogConfigFromJson(const std::string& body, const std::string& context);

// One page of a list answer: each element of the array `array_key` (absent or
// null: none) goes to `on_entry`; returns the next page token, "" on the last
// page.
Result<std::string> ListPageFromJson(const std::string& body, std::string_view array_key,
                                     const std::string& context,
                                     const std::function<Status(const iceberg::Json&)>& on_entry);

}  // namespace floe::catalog::rest
