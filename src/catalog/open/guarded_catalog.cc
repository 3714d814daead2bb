#include "catalog/open/guarded_catalog.h"

namespace floe::catalog {
namespace {

class GuardedTableOperations final : public iceberg::TableOperations {
 public:
  GuardedTableOperations(std::shared_ptr<iceberg::TableOperations> inner, TableIdentifier table,
                         std::shared_ptr<CommitGuard> guard)
      : inner_(std::move(inner)), table_(std::move(table)), guard_(std::move(guard)) {}

  Result<iceberg::LoadedTable> Load() override { return inner_->Load(); }
  Result<iceberg::LoadedTable> Commit(const std::vector<iceberg::TableRequirement>& requirements,
                                      const std::vector<iceberg::TableUpdate>& updates) override {
    FLOE_RETURN_IF_ERROR(guard_->BeforeCommit(table_));
    return inner_->Commit(requirements, updates);
  }
  FileIO& io() override { return inner_->io(); }
  std::string name() const override { return inner_->name(); }

 private:
  std::shared_ptr<iceberg::TableOperations> inner_;
  TableIdentifier table_;
  std::shared_ptr<CommitGuard> guard_;
};

class GuardedCatalog final : public Catalog {
 public:
  GuardedCatalog(std::unique_ptr<Catalog> inner, std::shared_ptr<CommitGuard> guard)
      : inner_(std::move(inner)), guard_(std::move(guard)) {}

  const std::string& warehouse() const override { return inner_->warehouse(); }
  FileIO& io() override { return inner_->io(); }
  Status CreateNamespace(const Namespace& ns, const Properties& properties) override {
    return inner_->CreateNamespace(ns, properties);
  }
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    return inner_->ListNamespaces(parent);
  }
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    return inner_->ListTables(ns);
  }
  Result<std::shared_ptr<iceberg::TableOperations>> LoadTable(const TableIdentifier& table) override {
    FLOE_ASSIGN_OR_RETURN(auto ops, inner_->LoadTable(table));
    return Guarded(std::move(ops), table);
  }
  Result<std::shared_ptr<iceberg::TableOperations>> CreateTable(const TableIdentifier& table,
                                                                const TableCreation& creation) override {
    FLOE_ASSIGN_OR_RETURN(auto ops, inner_->CreateTable(table, creation));
    return Guarded(std::move(ops), table);
  }
  bool SupportsMultiTableCommit() const override { return inner_->SupportsMultiTableCommit(); }
  Result<std::vector<iceberg::LoadedTable>> CommitTables(const std::vector<TableChanges>& changes) override {
    for (const TableChanges& change : changes) FLOE_RETURN_IF_ERROR(guard_->BeforeCommit(change.table));
    return inner_->CommitTables(changes);
  }

 private:
  std::shared_ptr<iceberg::TableOperations> Guarded(std::shared_ptr<iceberg::TableOperations> ops,
                                                    const TableIdentifier& table) {
    return std::make_shared<GuardedTableOperations>(std::move(ops), table, guard_);
  }

  std::unique_ptr<Catalog> inner_;
  std::shared_ptr<CommitGuard> guard_;
};

}  // namespace

std::unique_ptr<Catalog> GuardCatalog(std::unique_ptr<Catalog> inner, std::shared_ptr<CommitGuard> guard) {
  return std::make_unique<GuardedCatalog>(std::move(inner), std::move(guard));
}

}  // namespace floe::catalog
