// Metastore: the low-level store of table registrations (the current-metadata
// pointer of each table) and the atomic commit point; catalog::Catalog
// (catalog/table/catalog.h) builds Iceberg tables on top of it.
//
// Contract: a metastore maps a table identifier to the location of the table's
// current metadata JSON file. A commit is a compare-and-swap of that location:
// SwapMetadataLocation succeeds only if the current location still equals
// `expected`; otherwise it returns CommitFailed (retry after reload) and
// changes nothing. When the outcome cannot be known (connection lost
// mid-commit) it returns CommitStateUnknown: the caller must not delete the
// files it wrote. Implementations are safe to use from several processes at once.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace floe::catalog {

using Namespace = std::vector<std::string>;
using Properties = std::map<std::string, std::string>;

struct TableIdentifier {
  Namespace ns;
  std::string name;

  // "a.b.table"
  std::string ToString() const;
  bool operator==(const TableIdentifier& other) const = default;
  bool operator<(const TableIdentifier& other) const;
};

// Parses "a.b.table" (the last part is the table name).
Result<TableIdentifier> ParseTableIdentifier(const std::string& text);
// Parses "a.b" into its levels; rejects empty levels.
Result<Namespace> ParseNamespace(const std::string& text);
std::string NamespaceToString(const Namespace& ns);

class Metastore {
 public:
  virtual ~Metastore() = default;
  virtual const std::string& name() const = 0;

  virtual Status CreateNamespace(const Namespace& ns, const Properties& properties) = 0;
  virtual Result<bool> NamespaceExists(const Namespace& ns) = 0;
  // Namespaces directly under `parent` (all top-level ones when parent is empty).
  virtual Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) = 0;
  virtual Result<Properties> LoadNamespaceProperties(const Namespace& ns) = 0;
  virtual Status UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                           const std::vector<std::string>& removals) = 0;
  // Fails (InvalidArgument) when the namespace still holds tables.
  virtual Status DropNamespace(const Namespace& ns) = 0;

  virtual Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) = 0;
  // NotFound when the table does not exist.
  virtual Result<std::string> LoadMetadataLocation(const TableIdentifier& table) = 0;
  // Registers a new table whose first metadata file is already written.
  // AlreadyExists when the identifier is taken; NotFound when the namespace is missing.
  virtual Status RegisterTable(const TableIdentifier& table, const std::string& metadata_location) = 0;
  virtual Status SwapMetadataLocation(const TableIdentifier& table, const std::string& expected,
                                      const std::string& new_location) = 0;
  // Removes the registration only; files are the caller's business.
  virtual Status DropTable(const TableIdentifier& table) = 0;
  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) = 0;
};

}  // namespace floe::catalog
