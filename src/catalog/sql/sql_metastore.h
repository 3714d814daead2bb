// The SQL catalog in Iceberg's JDBC layout, so Spark's JdbcCatalog and
// PyIceberg's SqlCatalog can open the same database:
//   iceberg_tables(catalog_name, table_namespace, table_name, metadata_location,
//                  previous_metadata_location[, iceberg_type])
//   iceberg_namespace_properties(catalog_name, namespace, property_key, property_value)
// A namespace exists when it has a property row (an "exists"="true" marker is
// written when created without properties) or holds a table. Commits are an
// UPDATE ... WHERE metadata_location = <expected> that must affect one row.
#pragma once

#include <memory>
#include <mutex>

#include "catalog/commit_guard.h"
#include "catalog/metastore.h"
#include "sql/sql_connection.h"

namespace floe::catalog {

class SqlMetastore final : public Metastore {
 public:
  // Opens (and creates the tables of) the catalog named `catalog_name` in the
  // database at `uri` (see OpenSqlConnection, also for create_if_missing).
  static Result<std::unique_ptr<SqlMetastore>> Open(const std::string& uri, const std::string& catalog_name,
                                                    bool create_if_missing = true);

  const std::string& name() const override { return name_; }
  // Every later commit (SwapMetadataLocation, CommitTables) is fenced by
  // `guard` (commit_guard.h): its query runs inside the commit's transaction
  // when the guard has one for this database, else BeforeCommit first.
  void SetCommitGuard(std::shared_ptr<CommitGuard> guard);
  Status CreateNamespace(const Namespace& ns, const Properties& properties) override;
  Result<bool> NamespaceExists(const Namespace& ns) override;
  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  Result<Properties> LoadNamespaceProperties(const Namespace& ns) override;
  Status UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                   const std::vector<std::string>& removals) override;
  Status DropNamespace(const Namespace& ns) override;
  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  Result<std::string> LoadMetadataLocation(const TableIdentifier& table) override;
  Status RegisterTable(const TableIdentifier& table, const std::string& metadata_location) override;
  Status SwapMetadataLocation(const TableIdentifier& table, const std::string& expected,
                              const std::string& new_location) override;
  Status DropTable(const TableIdentifier& table) override;
  Status DropTableAt(const TableIdentifier& table, const std::string& expected) override;
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override;
  Status CommitTables(const std::vector<TableCommit>& commits) override;

 private:
  SqlMetastore(std::unique_ptr<sql::SqlConnection> conn, std::string name, std::string uri)
      : conn_(std::move(conn)), name_(std::move(name)), uri_(std::move(uri)) {}
  Status Initialize();
  // With mu_ held: a connection the server ended (a restart, a session
  // timeout) is opened again, with the session settings; at the start of a
  // call only, never inside a commit whose outcome must be reported.
  Status ReconnectIfLost();
  Status ApplySessionSettings();
  // Runs `body` in a transaction, retrying on retryable errors (lock contention).
  template <typename Fn>
  Status InTransaction(Fn&& body);
  std::string TableFilter() const;
  // Before a commit's transaction: BeforeCommit for each table the guard has
  // no in-transaction query for. In it: the queries; kFenced (and the table
  // in `refused`, for guard_->Refused after the rollback) when one found no row.
  Status GuardBeforeTransaction(const std::vector<TableIdentifier>& tables);
  Status GuardInTransaction(const std::vector<TableIdentifier>& tables,
                            std::optional<TableIdentifier>* refused);
  // The INSERT of a new table row (with iceberg_type when the table has it).
  Status InsertTableRow(const TableIdentifier& table, const std::string& metadata_location);

  std::mutex mu_;  // one statement at a time on the connection
  std::unique_ptr<sql::SqlConnection> conn_;
  std::string name_;
  bool has_iceberg_type_ = false;
  std::string uri_;  // the database (as the guard is asked about it, and to reconnect)
  std::shared_ptr<CommitGuard> guard_;
};

}  // namespace floe::catalog
