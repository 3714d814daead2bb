#include "catalog/open/serialized_catalog.h"

#include <mutex>

namespace floe::catalog {
namespace {

class SerializedCatalog final : public Catalog {
 public:
  explicit SerializedCatalog(std::unique_ptr<Catalog> inner) : inner_(std::move(inner)) {}

  // Fixed at construction: no lock.
  const std::string& warehouse() const override { return inner_->warehouse(); }
  FileIO& io() override { return inner_->io(); }
  bool SupportsMultiTableCommit() const override { return inner_->SupportsMultiTableCommit(); }

  Status CreateNamespace(const Namespace& ns, const Properties& properties) override {
    std::lock_guard lock(mu_);
    return inner_->CreateNamespace(ns, properties);
  }
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    std::lock_guard lock(mu_);
    return inner_->ListNamespaces(parent);
  }
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    std::lock_guard lock(mu_);
    return inner_->ListTables(ns);
  }
  Result<std::shared_ptr<iceberg::TableOperations>> LoadTable(const TableIdentifier& table) override {
    std::lock_guard lock(mu_);
    return inner_->LoadTable(table);
  }
  Result<std::shared_ptr<iceberg::TableOperations>> CreateTable(const TableIdentifier& table,
                                                                const TableCreation& creation) override {
    std::lock_guard lock(mu_);
    return inner_->CreateTable(table, creation);
  }
  Result<std::vector<iceberg::LoadedTable>> CommitTables(const std::vector<TableChanges>& changes) override {
    std::lock_guard lock(mu_);
    return inner_->CommitTables(changes);
  }

 private:
  std::mutex mu_;
  std::unique_ptr<Catalog> inner_;
};

}  // namespace

std::unique_ptr<Catalog> SerializeCatalog(std::unique_ptr<Catalog> inner) {
  return std::make_unique<SerializedCatalog>(std::move(inner));
}

}  // namespace floe::catalog
