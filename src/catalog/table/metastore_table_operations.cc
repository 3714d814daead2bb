#include "catalog/table/metastore_table_operations.h"

#include <charconv>
#include <cstdio>

#include "iceberg/spec/random_ids.h"
#include "iceberg/spec/table_metadata_builder.h"

namespace floe::catalog {

using iceberg::LoadedTable;
using iceberg::TableMetadata;

namespace {

class MetastoreCatalog final : public Catalog {
 public:
  MetastoreCatalog(std::shared_ptr<Metastore> catalog, std::shared_ptr<FileIO> io, std::string warehouse)
      : catalog_(std::move(catalog)), io_(std::move(io)), warehouse_(std::move(warehouse)) {
    while (!warehouse_.empty() && warehouse_.back() == '/') warehouse_.pop_back();
  }
  const std::string& warehouse() const override { return warehouse_; }
  FileIO& io() override { return *io_; }
  Status CreateNamespace(const Namespace& ns, const Properties& properties) override {
    return catalog_->CreateNamespace(ns, properties);
  }
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    return catalog_->ListNamespaces(parent);
  }
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    return catalog_->ListTables(ns);
  }
  Result<std::shared_ptr<iceberg::TableOperations>> LoadTable(const TableIdentifier& table) override {
    auto ops = std::make_shared<MetastoreTableOperations>(catalog_, io_, table);
    FLOE_RETURN_IF_ERROR(ops->Load().status());
    return std::shared_ptr<iceberg::TableOperations>(std::move(ops));
  }
  Result<std::shared_ptr<iceberg::TableOperations>> CreateTable(const TableIdentifier& table,
                                                                const TableCreation& creation) override {
    return CreateMetastoreTable(catalog_, io_, warehouse_, table, creation);
  }
  bool SupportsMultiTableCommit() const override { return true; }
  Result<std::vector<LoadedTable>> CommitTables(const std::vector<TableChanges>& changes) override {
    return CommitMetastoreTables(*catalog_, *io_, changes);
  }

 private:
  std::shared_ptr<Metastore> catalog_;
  std::shared_ptr<FileIO> io_;
  std::string warehouse_;
};

}  // namespace

std::string NewMetadataFileLocation(const std::string& table_location, int64_t version) {
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%05lld-", static_cast<long long>(version));
  return table_location + "/metadata/" + prefix + iceberg::NewUuidV4() + ".metadata.json";
}

std::optional<int64_t> MetadataFileVersion(const std::string& location) {
  const size_t slash = location.find_last_of('/');
  std::string name = slash == std::string::npos ? location : location.substr(slash + 1);
  size_t start = 0;
  size_t end = name.find('-');
  if (!name.empty() && name[0] == 'v') {
    start = 1;
    end = name.find('.');
  }
  if (end == std::string::npos || end <= start) return std::nullopt;
  int64_t version = 0;
  auto [ptr, ec] = std::from_chars(name.data() + start, name.data() + end, version);
  if (ec != std::errc() || ptr != name.data() + end || version < 0) return std::nullopt;
  return version;
}

Result<TableMetadata> ReadTableMetadata(FileIO& io, const std::string& location) {
  auto bytes = io.ReadAll(location);
  if (!bytes.ok()) return bytes.status().WithContext("reading table metadata " + location);
  std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  return iceberg::TableMetadataFromJson(text, location);
}

Status WriteTableMetadata(FileIO& io, const std::string& location, const TableMetadata& metadata) {
  FLOE_ASSIGN_OR_RETURN(std::string json, iceberg::TableMetadataToJson(metadata));
  return io.WriteAll(location, json, CreateOptions{.if_not_exists = true}).WithContext("writing " + location);
}

std::string DefaultTableLocation(const std::string& warehouse, const TableIdentifier& table) {
  std::string location = warehouse;
  while (!location.empty() && location.back() == '/') location.pop_back();
  for (const auto& level : table.ns) location += "/" + level;
  return location + "/" + table.name;
}

Result<LoadedTable> MetastoreTableOperations::Read(const std::string& location) {
  if (cached_ && cached_->metadata_location == location) return *cached_;
  FLOE_ASSIGN_OR_RETURN(TableMetadata metadata, ReadTableMetadata(*io_, location));
  cached_ = LoadedTable{std::move(metadata), location};
  return *cached_;
}

Result<LoadedTable> MetastoreTableOperations::Load() {
  auto location = catalog_->LoadMetadataLocation(identifier_);
  if (!location.ok()) return location.status().WithContext("table " + identifier_.ToString());
  return Read(*location);
}

Result<LoadedTable> WriteNextMetadata(FileIO& io, const LoadedTable& base,
                                      const std::vector<iceberg::TableRequirement>& requirements,
                                      const std::vector<iceberg::TableUpdate>& updates,
                                      const std::string& table_name) {
  FLOE_RETURN_IF_ERROR(iceberg::CheckRequirements(&base.metadata, requirements).WithContext(table_name));
  FLOE_ASSIGN_OR_RETURN(TableMetadata next,
                        iceberg::ApplyUpdates(base.metadata, base.metadata_location, updates));
  const int64_t version = MetadataFileVersion(base.metadata_location).value_or(0) + 1;
  const std::string location = NewMetadataFileLocation(next.location, version);
  FLOE_RETURN_IF_ERROR(WriteTableMetadata(io, location, next));
  return LoadedTable{std::move(next), location};
}

Result<LoadedTable> MetastoreTableOperations::Commit(
    const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates) {
  FLOE_ASSIGN_OR_RETURN(LoadedTable base, Load());
  FLOE_ASSIGN_OR_RETURN(LoadedTable next, WriteNextMetadata(*io_, base, requirements, updates, name()));
  Status swapped =
      catalog_->SwapMetadataLocation(identifier_, base.metadata_location, next.metadata_location);
  if (!swapped.ok()) {
    // Unknown outcome: the catalog may point at the new file, so it must stay.
    if (swapped.kind() != ErrorKind::kCommitStateUnknown) (void)io_->Delete(next.metadata_location);
    return swapped.WithContext("committing " + name());
  }
  cached_ = std::move(next);
  return *cached_;
}

Result<std::vector<LoadedTable>> CommitMetastoreTables(Metastore& metastore, FileIO& io,
                                                       const std::vector<TableChanges>& changes) {
  std::vector<LoadedTable> next;
  std::vector<Metastore::TableCommit> commits;
  auto delete_written = [&]() {
    for (const LoadedTable& written : next) (void)io.Delete(written.metadata_location);
  };
  for (const TableChanges& change : changes) {
    const std::string name = change.table.ToString();
    std::string base_location;
    auto written = [&]() -> Result<LoadedTable> {
      auto location = metastore.LoadMetadataLocation(change.table);
      if (!location.ok()) return location.status().WithContext("table " + name);
      base_location = *location;
      FLOE_ASSIGN_OR_RETURN(TableMetadata metadata, ReadTableMetadata(io, base_location));
      return WriteNextMetadata(io, LoadedTable{std::move(metadata), base_location}, change.requirements,
                               change.updates, name);
    }();
    if (!written.ok()) {
      delete_written();
      return written.status();
    }
    commits.push_back({change.table, base_location, written->metadata_location});
    next.push_back(std::move(written).value());
  }
  Status committed = metastore.CommitTables(commits);
  if (!committed.ok()) {
    // Unknown outcome: the catalog may point at the new files, so they stay.
    if (committed.kind() != ErrorKind::kCommitStateUnknown) delete_written();
    return committed;
  }
  return next;
}

Result<std::shared_ptr<iceberg::TableOperations>> CreateMetastoreTable(std::shared_ptr<Metastore> catalog,
                                                                       std::shared_ptr<FileIO> io,
                                                                       const std::string& warehouse,
                                                                       const TableIdentifier& table,
                                                                       const TableCreation& creation) {
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, catalog->NamespaceExists(table.ns));
  if (!ns_exists) return Status::NotFound("namespace '" + NamespaceToString(table.ns) + "' does not exist");
  if (creation.location.empty() && warehouse.empty()) {
    return Status::InvalidArgument("creating table " + table.ToString() +
                                   ": the catalog was opened without a warehouse for new tables' files");
  }
  std::string location =
      creation.location.empty() ? DefaultTableLocation(warehouse, table) : creation.location;
  FLOE_ASSIGN_OR_RETURN(
      TableMetadata metadata,
      iceberg::NewTableMetadata(location, creation.schema, creation.spec, creation.sort_order,
                                creation.properties, creation.format_version));
  const std::string metadata_location = NewMetadataFileLocation(metadata.location, 0);
  FLOE_RETURN_IF_ERROR(WriteTableMetadata(*io, metadata_location, metadata));
  Status registered = catalog->RegisterTable(table, metadata_location);
  if (!registered.ok()) {
    if (registered.kind() != ErrorKind::kCommitStateUnknown) (void)io->Delete(metadata_location);
    return registered.WithContext("creating table " + table.ToString());
  }
  return std::shared_ptr<iceberg::TableOperations>(
      std::make_shared<MetastoreTableOperations>(std::move(catalog), std::move(io), table));
}

std::unique_ptr<Catalog> MakeMetastoreCatalog(std::shared_ptr<Metastore> catalog, std::shared_ptr<FileIO> io,
                                              std::string warehouse) {
  return std::make_unique<MetastoreCatalog>(std::move(catalog), std::move(io), std::move(warehouse));
}

}  // namespace floe::catalog
