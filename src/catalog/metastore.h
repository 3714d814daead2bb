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
#include <optional>
#include <string>
#include <string_view>
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

// The name rules, the same for every catalog and on both sides of `floe
// serve` (docs/catalogs.md): a namespace level or table name is 1-255 bytes
// with no '.', '/', '\\' and no control character (0x00-0x1F, 0x7F). '.'
// joins the levels of a namespace in the SQL catalog's namespace column and
// in floe's "ns.table" identifiers, so a dot inside a name would alias
// another namespace (["a.b"] and ["a", "b"]) or make a table unaddressable;
// the separators and "." / ".." would let a name climb out of the warehouse
// once it becomes a path segment. `what` names the name in the error
// ("table name"). Names already in a catalog are read whatever they are;
// these rules guard what is created, registered or renamed.
Status ValidateName(std::string_view name, std::string_view what);
// At least one level, each passing ValidateName.
Status ValidateNamespace(const Namespace& ns);
// A valid namespace and table name.
Status ValidateTableIdentifier(const TableIdentifier& id);

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
  // One table's part of CommitTables: its pointer moves from `expected` to
  // `new_location`, or, when `expected` is empty, a new table is registered.
  struct TableCommit {
    TableIdentifier table;
    std::optional<std::string> expected;
    std::string new_location;
  };
  // All or nothing: every pointer moves (and every new table is registered)
  // in one transaction, or nothing changes. CommitFailed names the first table
  // whose pointer moved (or whose name was taken) meanwhile; CommitStateUnknown
  // when the outcome cannot be known.
  virtual Status CommitTables(const std::vector<TableCommit>& commits) = 0;
  // Removes the registration only; files are the caller's business.
  virtual Status DropTable(const TableIdentifier& table) = 0;
  // DropTable, only while the table still points at `expected` (CommitFailed otherwise).
  virtual Status DropTableAt(const TableIdentifier& table, const std::string& expected) = 0;
  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) = 0;
};

}  // namespace floe::catalog
