// Catalog: what Iceberg calls a catalog — the tables of one catalog as
// TableOperations, whatever stores the current-metadata pointer (a SQL
// Metastore, the filesystem, a REST service).
//
// Contract: LoadTable is NotFound for an unknown table; CreateTable writes the
// table's first metadata file and registers it (AlreadyExists when the name
// is taken, NotFound when the namespace is missing) and leaves no metadata
// file behind when creation definitely failed. The default table location is
// <warehouse>/<namespace levels joined by '/'>/<table>.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/commit_guard.h"
#include "catalog/metastore.h"
#include "common/status.h"
#include "iceberg/spec/table_metadata.h"
#include "iceberg/transaction/table_operations.h"
#include "io/file_io.h"

namespace floe::catalog {

struct TableCreation {
  iceberg::Schema schema;
  iceberg::PartitionSpec spec = iceberg::PartitionSpec::Unpartitioned();
  iceberg::SortOrder sort_order = iceberg::SortOrder::Unsorted();
  std::map<std::string, std::string> properties;
  std::string location;  // empty: the default location
  int format_version = 2;
};

// One table's part of Catalog::CommitTables.
struct TableChanges {
  TableIdentifier table;
  std::vector<iceberg::TableRequirement> requirements;
  std::vector<iceberg::TableUpdate> updates;
};

class Catalog {
 public:
  virtual ~Catalog() = default;
  virtual const std::string& warehouse() const = 0;
  virtual FileIO& io() = 0;

  virtual Status CreateNamespace(const Namespace& ns, const Properties& properties) = 0;
  virtual Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) = 0;
  virtual Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) = 0;
  virtual Result<std::shared_ptr<iceberg::TableOperations>> LoadTable(const TableIdentifier& table) = 0;
  virtual Result<std::shared_ptr<iceberg::TableOperations>> CreateTable(const TableIdentifier& table,
                                                                        const TableCreation& creation) = 0;

  // Whether CommitTables changes several tables in one atomic operation: a
  // SQL catalog's database transaction, a REST service's `POST
  // /v1/{prefix}/transactions/commit` when its config lists that endpoint.
  virtual bool SupportsMultiTableCommit() const { return false; }
  // Every table's requirements are checked and its updates applied, and all
  // the tables' pointers move together or none does; returns each table's
  // new state, in order. CommitFailed (retryable) when a requirement failed
  // or a table changed meanwhile — nothing was committed; CommitStateUnknown
  // when the outcome cannot be known (no file may be deleted). NotSupported
  // where SupportsMultiTableCommit is false.
  virtual Result<std::vector<iceberg::LoadedTable>> CommitTables(const std::vector<TableChanges>& changes) {
    (void)changes;
    return Status::NotSupported("this catalog cannot commit several tables atomically");
  }
};

// <warehouse>/<ns levels>/<table>, without a trailing slash.
std::string DefaultTableLocation(const std::string& warehouse, const TableIdentifier& table);

// The SQL catalog named `catalog_name` in the database at `uri`
// ("sqlite:///path.db", "postgresql://..."), its new tables located under
// `warehouse` (may be empty when no table is created: CreateTable then fails
// naming it) through `io` (nullptr: the local filesystem). Every other kind
// of catalog, and the choice between them, is catalog/open/open_catalog.h.
// Its commits are fenced by `guard` when given (commit_guard.h).
Result<std::unique_ptr<Catalog>> OpenSqlCatalog(const std::string& uri, const std::string& warehouse,
                                                std::shared_ptr<FileIO> io = nullptr,
                                                const std::string& catalog_name = "floe",
                                                bool create_if_missing = true,
                                                std::shared_ptr<CommitGuard> guard = nullptr);

}  // namespace floe::catalog
