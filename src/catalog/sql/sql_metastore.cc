#include "catalog/sql/sql_metastore.h"

#include <chrono>
#include <set>
#include <thread>

namespace floe::catalog {

static constexpr char kExistsProperty[] = "exists";

// A LIKE pattern matching every namespace below `ns` (with '%', '_' and backslash
// in names escaped; used with ESCAPE backslash).
static std::string ChildrenPattern(const std::string& ns) {
  std::string out;
  for (char c : ns) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + ".%";
}

Result<std::unique_ptr<SqlMetastore>> SqlMetastore::Open(const std::string& uri,
                                                         const std::string& catalog_name,
                                                         bool create_if_missing) {
  FLOE_ASSIGN_OR_RETURN(auto conn, sql::OpenSqlConnection(uri, create_if_missing));
  std::unique_ptr<SqlMetastore> catalog(new SqlMetastore(std::move(conn), catalog_name, uri));
  FLOE_RETURN_IF_ERROR(catalog->Initialize());
  return catalog;
}

Status SqlMetastore::Initialize() {
  std::lock_guard lock(mu_);
  // Column sizes follow Iceberg's JdbcCatalog so Java can open the database.
  Status st = conn_
                  ->Execute(
                      "CREATE TABLE IF NOT EXISTS iceberg_tables ("
                      "catalog_name VARCHAR(255) NOT NULL, "
                      "table_namespace VARCHAR(255) NOT NULL, "
                      "table_name VARCHAR(255) NOT NULL, "
                      "metadata_location VARCHAR(1000), "
                      "previous_metadata_location VARCHAR(1000), "
                      "iceberg_type VARCHAR(5), "
                      "PRIMARY KEY (catalog_name, table_namespace, table_name))")
                  .status();
  if (st.ok()) {
    st = conn_
             ->Execute(
                 "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
                 "catalog_name VARCHAR(255) NOT NULL, "
                 "namespace VARCHAR(255) NOT NULL, "
                 "property_key VARCHAR(255) NOT NULL, "
                 "property_value VARCHAR(1000), "
                 "PRIMARY KEY (catalog_name, namespace, property_key))")
             .status();
  }
  // Two processes creating the tables at once: the loser sees "already exists".
  if (!st.ok() && st.kind() != ErrorKind::kAlreadyExists) return st;
  // Databases created by PyIceberg (or JdbcCatalog schema V0) lack iceberg_type.
  FLOE_ASSIGN_OR_RETURN(has_iceberg_type_, conn_->HasColumn("iceberg_tables", "iceberg_type"));
  return Status::OK();
}

void SqlMetastore::SetCommitGuard(std::shared_ptr<CommitGuard> guard) {
  std::lock_guard lock(mu_);
  guard_ = std::move(guard);
  (void)ApplySessionSettings();  // failing here fails the next call, which reconnects
}

Status SqlMetastore::ApplySessionSettings() {
  if (!guard_ || guard_->IdleInTransactionTimeoutMs() <= 0 || uri_.rfind("postgres", 0) != 0)
    return Status::OK();
  return conn_
      ->Execute("SELECT set_config('idle_in_transaction_session_timeout', ?1, false)",
                {std::to_string(guard_->IdleInTransactionTimeoutMs())})
      .status();
}

Status SqlMetastore::ReconnectIfLost() {
  if (conn_->connected()) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(conn_, sql::OpenSqlConnection(uri_, false));
  return ApplySessionSettings();
}

Status SqlMetastore::GuardBeforeTransaction(const std::vector<TableIdentifier>& tables) {
  if (!guard_) return Status::OK();
  for (const TableIdentifier& table : tables) {
    if (!guard_->InCommitTransaction(table, uri_)) FLOE_RETURN_IF_ERROR(guard_->BeforeCommit(table));
  }
  return Status::OK();
}

Status SqlMetastore::GuardInTransaction(const std::vector<TableIdentifier>& tables,
                                        std::optional<TableIdentifier>* refused) {
  if (!guard_) return Status::OK();
  // Every condition is asked for before the first query locks a row: the
  // guard may wait on whoever waits for that row.
  std::vector<std::pair<TableIdentifier, CommitGuard::SqlCondition>> conditions;
  for (const TableIdentifier& table : tables) {
    if (auto condition = guard_->InCommitTransaction(table, uri_)) conditions.emplace_back(table, *condition);
  }
  for (const auto& [table, condition] : conditions) {
    std::vector<sql::SqlValue> params(condition.params.begin(), condition.params.end());
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult held, conn_->Execute(condition.sql, params));
    if (held.rows.empty()) {
      // The refusal is worded after the rollback, with no row lock held.
      *refused = table;
      return Status::Fenced("");
    }
  }
  return Status::OK();
}

std::string SqlMetastore::TableFilter() const {
  return has_iceberg_type_ ? " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)" : "";
}

template <typename Fn>
Status SqlMetastore::InTransaction(Fn&& body) {
  std::lock_guard lock(mu_);
  FLOE_RETURN_IF_ERROR(ReconnectIfLost());
  Status st;
  for (int attempt = 0; attempt < 20; ++attempt) {
    st = conn_->Begin();
    if (st.ok()) {
      st = body();
      if (st.ok()) {
        st = conn_->Commit();
        if (st.ok()) return st;
      }
    }
    conn_->Rollback();
    if (!st.retryable() || st.kind() == ErrorKind::kCommitFailed) return st;
    std::this_thread::sleep_for(std::chrono::milliseconds(10 << std::min(attempt, 6)));
  }
  return st;
}

Status SqlMetastore::CreateNamespace(const Namespace& ns, const Properties& properties) {
  if (ns.empty()) return Status::InvalidArgument("cannot create the empty namespace");
  FLOE_RETURN_IF_ERROR(ValidateNamespace(ns));
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
  if (exists) return Status::AlreadyExists("namespace " + NamespaceToString(ns) + " already exists");
  Properties rows = properties;
  if (rows.empty()) rows[kExistsProperty] = "true";
  return InTransaction([&]() -> Status {
    for (const auto& [key, value] : rows) {
      auto r = conn_->Execute(
          "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) "
          "VALUES (?, ?, ?, ?)",
          {name_, NamespaceToString(ns), key, value});
      if (!r.ok()) {
        if (r.status().kind() == ErrorKind::kAlreadyExists ||
            r.status().message().find("UNIQUE") != std::string::npos) {
          return Status::AlreadyExists("namespace " + NamespaceToString(ns) + " already exists");
        }
        return r.status();
      }
    }
    return Status::OK();
  });
}

Result<bool> SqlMetastore::NamespaceExists(const Namespace& ns) {
  std::lock_guard lock(mu_);
  FLOE_RETURN_IF_ERROR(ReconnectIfLost());
  std::string text = NamespaceToString(ns);
  // A namespace also exists when a deeper namespace or a table lives under it.
  std::string prefix = ChildrenPattern(text);
  FLOE_ASSIGN_OR_RETURN(
      sql::SqlResult r,
      conn_->Execute("SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ? AND "
                     "(namespace = ? OR namespace LIKE ? ESCAPE '\\') "
                     "UNION ALL SELECT 1 FROM iceberg_tables WHERE catalog_name = ? AND "
                     "(table_namespace = ? OR table_namespace LIKE ? ESCAPE '\\') LIMIT 1",
                     {name_, text, prefix, name_, text, prefix}));
  return !r.rows.empty();
}

Result<std::vector<Namespace>> SqlMetastore::ListNamespaces(const Namespace& parent) {
  std::set<Namespace> found;
  {
    std::lock_guard lock(mu_);
    FLOE_RETURN_IF_ERROR(ReconnectIfLost());
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult r,
                          conn_->Execute("SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE "
                                         "catalog_name = ? UNION SELECT DISTINCT table_namespace FROM "
                                         "iceberg_tables WHERE catalog_name = ?",
                                         {name_, name_}));
    for (const sql::SqlRow& row : r.rows) {
      if (!row[0]) continue;
      auto ns = ParseNamespace(*row[0]);
      if (!ns.ok() || ns->size() <= parent.size()) continue;
      if (!std::equal(parent.begin(), parent.end(), ns->begin())) continue;
      found.insert(Namespace(ns->begin(), ns->begin() + static_cast<long>(parent.size()) + 1));
    }
  }
  if (!parent.empty() && found.empty()) {
    FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(parent));
    if (!exists) return Status::NotFound("namespace " + NamespaceToString(parent) + " does not exist");
  }
  return std::vector<Namespace>(found.begin(), found.end());
}

Result<Properties> SqlMetastore::LoadNamespaceProperties(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
  if (!exists) return Status::NotFound("namespace " + NamespaceToString(ns) + " does not exist");
  std::lock_guard lock(mu_);
  FLOE_RETURN_IF_ERROR(ReconnectIfLost());
  FLOE_ASSIGN_OR_RETURN(sql::SqlResult r,
                        conn_->Execute("SELECT property_key, property_value FROM "
                                       "iceberg_namespace_properties WHERE catalog_name = ? AND "
                                       "namespace = ?",
                                       {name_, NamespaceToString(ns)}));
  Properties props;
  for (const sql::SqlRow& row : r.rows) {
    if (row[0] && *row[0] != kExistsProperty) props[*row[0]] = row[1].value_or("");
  }
  return props;
}

Status SqlMetastore::UpdateNamespaceProperties(const Namespace& ns, const Properties& updates,
                                               const std::vector<std::string>& removals) {
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
  if (!exists) return Status::NotFound("namespace " + NamespaceToString(ns) + " does not exist");
  std::string text = NamespaceToString(ns);
  return InTransaction([&]() -> Status {
    for (const std::string& key : removals) {
      FLOE_RETURN_IF_ERROR(
          conn_
              ->Execute("DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND "
                        "namespace = ? AND property_key = ?",
                        {name_, text, key})
              .status());
    }
    for (const auto& [key, value] : updates) {
      FLOE_RETURN_IF_ERROR(
          conn_
              ->Execute("DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND "
                        "namespace = ? AND property_key = ?",
                        {name_, text, key})
              .status());
      FLOE_RETURN_IF_ERROR(conn_
                               ->Execute("INSERT INTO iceberg_namespace_properties (catalog_name, namespace, "
                                         "property_key, property_value) VALUES (?, ?, ?, ?)",
                                         {name_, text, key, value})
                               .status());
    }
    // Keep the namespace alive when its last property goes.
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult left,
                          conn_->Execute("SELECT 1 FROM iceberg_namespace_properties WHERE "
                                         "catalog_name = ? AND namespace = ? LIMIT 1",
                                         {name_, text}));
    if (left.rows.empty()) {
      FLOE_RETURN_IF_ERROR(conn_
                               ->Execute("INSERT INTO iceberg_namespace_properties (catalog_name, namespace, "
                                         "property_key, property_value) VALUES (?, ?, ?, ?)",
                                         {name_, text, kExistsProperty, "true"})
                               .status());
    }
    return Status::OK();
  });
}

Status SqlMetastore::DropNamespace(const Namespace& ns) {
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
  if (!exists) return Status::NotFound("namespace " + NamespaceToString(ns) + " does not exist");
  FLOE_ASSIGN_OR_RETURN(auto tables, ListTables(ns));
  if (!tables.empty()) {
    return Status::InvalidArgument("namespace " + NamespaceToString(ns) + " is not empty: it holds " +
                                   std::to_string(tables.size()) + " table(s), e.g. " + tables[0].ToString());
  }
  FLOE_ASSIGN_OR_RETURN(auto children, ListNamespaces(ns));
  if (!children.empty()) {
    return Status::InvalidArgument("namespace " + NamespaceToString(ns) +
                                   " is not empty: it holds namespace " + NamespaceToString(children[0]));
  }
  return InTransaction([&]() -> Status {
    return conn_
        ->Execute("DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?",
                  {name_, NamespaceToString(ns)})
        .status();
  });
}

Result<std::vector<TableIdentifier>> SqlMetastore::ListTables(const Namespace& ns) {
  {
    std::lock_guard lock(mu_);
    FLOE_RETURN_IF_ERROR(ReconnectIfLost());
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult r,
                          conn_->Execute("SELECT table_name FROM iceberg_tables WHERE catalog_name = ? "
                                         "AND table_namespace = ?" +
                                             TableFilter() + " ORDER BY table_name",
                                         {name_, NamespaceToString(ns)}));
    if (!r.rows.empty()) {
      std::vector<TableIdentifier> out;
      for (const sql::SqlRow& row : r.rows) out.push_back(TableIdentifier{ns, row[0].value_or("")});
      return out;
    }
  }
  FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
  if (!exists) return Status::NotFound("namespace " + NamespaceToString(ns) + " does not exist");
  return std::vector<TableIdentifier>{};
}

Result<std::string> SqlMetastore::LoadMetadataLocation(const TableIdentifier& table) {
  std::lock_guard lock(mu_);
  FLOE_RETURN_IF_ERROR(ReconnectIfLost());
  FLOE_ASSIGN_OR_RETURN(
      sql::SqlResult r,
      conn_->Execute("SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND "
                     "table_namespace = ? AND table_name = ?" +
                         TableFilter(),
                     {name_, NamespaceToString(table.ns), table.name}));
  if (r.rows.empty() || !r.rows[0][0]) {
    return Status::NotFound("table " + table.ToString() + " does not exist in catalog " + name_);
  }
  return *r.rows[0][0];
}

Status SqlMetastore::InsertTableRow(const TableIdentifier& table, const std::string& metadata_location) {
  std::string sql =
      has_iceberg_type_
          ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
            "metadata_location, previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, "
            "'TABLE')"
          : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
            "metadata_location, previous_metadata_location) VALUES (?, ?, ?, ?, NULL)";
  auto r = conn_->Execute(sql, {name_, NamespaceToString(table.ns), table.name, metadata_location});
  if (!r.ok() && (r.status().kind() == ErrorKind::kAlreadyExists ||
                  r.status().message().find("UNIQUE") != std::string::npos)) {
    return Status::AlreadyExists("table " + table.ToString() + " already exists");
  }
  return r.status();
}

Status SqlMetastore::RegisterTable(const TableIdentifier& table, const std::string& metadata_location) {
  FLOE_RETURN_IF_ERROR(ValidateTableIdentifier(table));
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(table.ns));
  if (!ns_exists) return Status::NotFound("namespace " + NamespaceToString(table.ns) + " does not exist");
  return InTransaction([&]() -> Status { return InsertTableRow(table, metadata_location); });
}

Status SqlMetastore::CommitTables(const std::vector<TableCommit>& commits) {
  if (commits.empty()) return Status::OK();
  std::set<TableIdentifier> seen;
  for (const auto& c : commits) {
    if (!seen.insert(c.table).second) {
      return Status::InvalidArgument("table " + c.table.ToString() + " appears twice in one commit");
    }
    if (!c.expected) {
      FLOE_RETURN_IF_ERROR(ValidateTableIdentifier(c.table));
      FLOE_ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(c.table.ns));
      if (!ns_exists)
        return Status::NotFound("namespace " + NamespaceToString(c.table.ns) + " does not exist");
    }
  }
  std::vector<TableIdentifier> guarded;
  for (const auto& c : commits) guarded.push_back(c.table);
  FLOE_RETURN_IF_ERROR(GuardBeforeTransaction(guarded));
  std::string lost;  // the table whose pointer moved meanwhile
  std::optional<TableIdentifier> refused;
  Status st = InTransaction([&]() -> Status {
    FLOE_RETURN_IF_ERROR(GuardInTransaction(guarded, &refused));
    for (const auto& c : commits) {
      if (!c.expected) {
        Status inserted = InsertTableRow(c.table, c.new_location);
        if (inserted.kind() == ErrorKind::kAlreadyExists) {
          lost = "table " + c.table.ToString() + " was created concurrently";
          return Status::CommitFailed("");
        }
        FLOE_RETURN_IF_ERROR(inserted);
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(
          sql::SqlResult r,
          conn_->Execute("UPDATE iceberg_tables SET metadata_location = ?, "
                         "previous_metadata_location = ? WHERE catalog_name = ? AND "
                         "table_namespace = ? AND table_name = ? AND metadata_location = ?" +
                             TableFilter(),
                         {c.new_location, *c.expected, name_, NamespaceToString(c.table.ns), c.table.name,
                          *c.expected}));
      if (r.rows_affected != 1) {
        lost = "table " + c.table.ToString() + " was changed concurrently (expected metadata " + *c.expected +
               ")";
        return Status::CommitFailed("");
      }
    }
    return Status::OK();
  });
  if (refused) return guard_->Refused(*refused);
  if (st.kind() == ErrorKind::kCommitFailed) return Status::CommitFailed(lost + "; nothing was committed");
  if (!st.ok() && st.message().find("connection lost") != std::string::npos) {
    return Status::CommitStateUnknown("commit of " + std::to_string(commits.size()) +
                                      " table(s): outcome unknown: " + st.message());
  }
  return st;
}

Status SqlMetastore::SwapMetadataLocation(const TableIdentifier& table, const std::string& expected,
                                          const std::string& new_location) {
  int64_t affected = 0;
  FLOE_RETURN_IF_ERROR(GuardBeforeTransaction({table}));
  std::optional<TableIdentifier> refused;
  Status st = InTransaction([&]() -> Status {
    FLOE_RETURN_IF_ERROR(GuardInTransaction({table}, &refused));
    FLOE_ASSIGN_OR_RETURN(
        sql::SqlResult r,
        conn_->Execute("UPDATE iceberg_tables SET metadata_location = ?, "
                       "previous_metadata_location = ? WHERE catalog_name = ? AND "
                       "table_namespace = ? AND table_name = ? AND metadata_location = ?" +
                           TableFilter(),
                       {new_location, expected, name_, NamespaceToString(table.ns), table.name, expected}));
    affected = r.rows_affected;
    if (affected != 1) return Status::CommitFailed("");  // resolved below, outside the transaction
    return Status::OK();
  });
  if (refused) return guard_->Refused(*refused);
  if (st.kind() == ErrorKind::kCommitFailed) {
    auto current = LoadMetadataLocation(table);
    if (!current.ok()) return current.status();
    return Status::CommitFailed("table " + table.ToString() +
                                " was changed concurrently: expected metadata " + expected + ", found " +
                                *current);
  }
  if (!st.ok() && st.message().find("connection lost") != std::string::npos) {
    return Status::CommitStateUnknown("commit of table " + table.ToString() + " to " + new_location +
                                      ": outcome unknown: " + st.message());
  }
  return st;
}

Status SqlMetastore::DropTable(const TableIdentifier& table) {
  int64_t affected = 0;
  FLOE_RETURN_IF_ERROR(InTransaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult r,
                          conn_->Execute("DELETE FROM iceberg_tables WHERE catalog_name = ? AND "
                                         "table_namespace = ? AND table_name = ?" +
                                             TableFilter(),
                                         {name_, NamespaceToString(table.ns), table.name}));
    affected = r.rows_affected;
    return Status::OK();
  }));
  if (affected == 0) return Status::NotFound("table " + table.ToString() + " does not exist");
  return Status::OK();
}

Status SqlMetastore::DropTableAt(const TableIdentifier& table, const std::string& expected) {
  int64_t affected = 0;
  FLOE_RETURN_IF_ERROR(InTransaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult r,
                          conn_->Execute("DELETE FROM iceberg_tables WHERE catalog_name = ? AND "
                                         "table_namespace = ? AND table_name = ? AND "
                                         "metadata_location = ?" +
                                             TableFilter(),
                                         {name_, NamespaceToString(table.ns), table.name, expected}));
    affected = r.rows_affected;
    return Status::OK();
  }));
  if (affected == 1) return Status::OK();
  auto current = LoadMetadataLocation(table);
  if (!current.ok()) return current.status();
  return Status::CommitFailed("table " + table.ToString() + " was changed concurrently: expected metadata " +
                              expected + ", found " + *current);
}

Status SqlMetastore::RenameTable(const TableIdentifier& from, const TableIdentifier& to) {
  FLOE_RETURN_IF_ERROR(ValidateTableIdentifier(to));
  FLOE_ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(to.ns));
  if (!ns_exists) return Status::NotFound("namespace " + NamespaceToString(to.ns) + " does not exist");
  int64_t affected = 0;
  Status st = InTransaction([&]() -> Status {
    auto r = conn_->Execute(
        "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE catalog_name = ? "
        "AND table_namespace = ? AND table_name = ?" +
            TableFilter(),
        {NamespaceToString(to.ns), to.name, name_, NamespaceToString(from.ns), from.name});
    if (!r.ok()) return r.status();
    affected = r->rows_affected;
    return Status::OK();
  });
  if (!st.ok()) {
    if (st.kind() == ErrorKind::kAlreadyExists || st.message().find("UNIQUE") != std::string::npos) {
      return Status::AlreadyExists("cannot rename " + from.ToString() + ": table " + to.ToString() +
                                   " already exists");
    }
    return st;
  }
  if (affected == 0) return Status::NotFound("table " + from.ToString() + " does not exist");
  return Status::OK();
}

}  // namespace floe::catalog
