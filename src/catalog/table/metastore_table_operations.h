// Iceberg tables over a metadata-pointer Catalog (the SQL/JDBC catalog).
//
// Contract: Load reads the metadata file the catalog points at (errors name
// that file). Commit loads the current pointer, checks the requirements,
// applies the updates, writes <location>/metadata/<5-digit version>-<uuid>
// .metadata.json (never overwriting) and compare-and-swaps the pointer.
// CommitFailed (requirement or lost race) deletes the unreferenced new file
// and propagates; CommitStateUnknown keeps it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "catalog/metastore.h"
#include "catalog/table/catalog.h"
#include "iceberg/transaction/table_operations.h"

namespace floe::catalog {

class MetastoreTableOperations final : public iceberg::TableOperations {
 public:
  MetastoreTableOperations(std::shared_ptr<Metastore> catalog, std::shared_ptr<FileIO> io,
                           TableIdentifier identifier)
      : catalog_(std::move(catalog)), io_(std::move(io)), identifier_(std::move(identifier)) {}

  Result<iceberg::LoadedTable> Load() override;
  Result<iceberg::LoadedTable> Commit(const std::vector<iceberg::TableRequirement>& requirements,
                                      const std::vector<iceberg::TableUpdate>& updates) override;
  FileIO& io() override { return *io_; }
  std::string name() const override { return identifier_.ToString(); }

 private:
  Result<iceberg::LoadedTable> Read(const std::string& location);

  std::shared_ptr<Metastore> catalog_;
  std::shared_ptr<FileIO> io_;
  TableIdentifier identifier_;
  std::optional<iceberg::LoadedTable> cached_;
};

// Reads and parses a metadata JSON file; errors name the file.
Result<iceberg::TableMetadata> ReadTableMetadata(FileIO& io, const std::string& location);
// Writes metadata JSON to `location`, failing with AlreadyExists rather than overwriting.
Status WriteTableMetadata(FileIO& io, const std::string& location, const iceberg::TableMetadata& metadata);
// The version number of a metadata file name ("00012-<uuid>.metadata.json" or
// "v12.metadata.json"), or nullopt.
std::optional<int64_t> MetadataFileVersion(const std::string& location);
// "<table location>/metadata/<5-digit version>-<random uuid>.metadata.json",
// the name Java's metastore catalogs give a new metadata file.
std::string NewMetadataFileLocation(const std::string& table_location, int64_t version);

// The metadata file after `updates` on `base`, written as the next version
// (requirements checked first; errors name `table_name`).
Result<iceberg::LoadedTable> WriteNextMetadata(FileIO& io, const iceberg::LoadedTable& base,
                                               const std::vector<iceberg::TableRequirement>& requirements,
                                               const std::vector<iceberg::TableUpdate>& updates,
                                               const std::string& table_name);
// Catalog::CommitTables over a metastore: every table's next metadata file
// written, then every pointer swapped in one Metastore::CommitTables
// transaction. The new files are deleted unless the outcome is unknown.
Result<std::vector<iceberg::LoadedTable>> CommitMetastoreTables(Metastore& metastore, FileIO& io,
                                                                const std::vector<TableChanges>& changes);

// Creates a table in a metastore catalog: first metadata file, then registration.
Result<std::shared_ptr<iceberg::TableOperations>> CreateMetastoreTable(std::shared_ptr<Metastore> catalog,
                                                                       std::shared_ptr<FileIO> io,
                                                                       const std::string& warehouse,
                                                                       const TableIdentifier& table,
                                                                       const TableCreation& creation);

// A Catalog over a metastore Catalog.
std::unique_ptr<Catalog> MakeMetastoreCatalog(std::shared_ptr<Metastore> catalog, std::shared_ptr<FileIO> io,
                                              std::string warehouse);

}  // namespace floe::catalog
