// SQLite behind SqlConnection. WAL mode and a busy timeout let several floe
// processes share one database file; writers serialise on SQLite's lock.
#include <filesystem>

#include "sql/sql_connection.h"
#include "sqlite/sqlite_database.h"

namespace floe::sql {
namespace {

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(std::unique_ptr<SqliteDatabase> db, std::string description)
      : db_(std::move(db)), description_(std::move(description)) {}

  const std::string& description() const override { return description_; }
  bool connected() const override { return true; }

  Result<SqlResult> Execute(const std::string& sql, const std::vector<SqlValue>& params) override {
    FLOE_ASSIGN_OR_RETURN(SqliteStatement stmt, db_->Prepare(sql));
    for (size_t i = 0; i < params.size(); ++i) stmt.Bind(static_cast<int>(i + 1), params[i]);
    SqlResult result;
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool has_row, stmt.Step());
      if (!has_row) break;
      SqlRow row;
      const int n = stmt.ColumnCount();
      for (int c = 0; c < n; ++c) row.push_back(stmt.OptionalText(c));
      result.rows.push_back(std::move(row));
    }
    result.rows_affected = db_->Changes();
    return result;
  }

  Status Begin() override { return db_->Begin(SqliteTransaction::kImmediate); }
  Status Commit() override { return db_->Commit(); }
  void Rollback() override { db_->Rollback(); }

  Result<bool> HasColumn(const std::string& table, const std::string& column) override {
    FLOE_ASSIGN_OR_RETURN(SqlResult r, Execute("SELECT name FROM pragma_table_info(?)", {table}));
    for (const SqlRow& row : r.rows) {
      if (row[0] && *row[0] == column) return true;
    }
    return false;
  }

 private:
  std::unique_ptr<SqliteDatabase> db_;
  std::string description_;
};

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenSqliteConnection(const std::string& uri, bool create_if_missing,
                                                            const std::string& role) {
  std::string path;
  if (uri == "sqlite::memory:") {
    path = ":memory:";
  } else if (uri.rfind("sqlite:///", 0) == 0) {
    path = uri.substr(9);  // keeps the leading '/'
  } else if (uri.rfind("sqlite://", 0) == 0) {
    path = uri.substr(9);
  } else {
    return Status::InvalidArgument("not a SQLite URI: " + RedactUri(uri) + " (expected sqlite:///path/" +
                                   role + ".db)");
  }
  if (path != ":memory:") {
    std::error_code ec;
    if (!create_if_missing && !std::filesystem::exists(path, ec)) {
      return Status::NotFound("SQLite " + role + " " + path + " does not exist");
    }
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  SqliteOpenOptions options;
  options.create_if_missing = create_if_missing;
  options.serialized = true;
  options.busy_timeout_ms = 30000;
  options.name = "sqlite " + role + " " + path;
  FLOE_ASSIGN_OR_RETURN(auto db, SqliteDatabase::Open(path, options));
  auto conn = std::make_unique<SqliteConnection>(std::move(db), options.name);
  if (path != ":memory:") {
    FLOE_RETURN_IF_ERROR(conn->Execute("PRAGMA journal_mode=WAL", {}).status());
  }
  return std::unique_ptr<SqlConnection>(std::move(conn));
}

}  // namespace floe::sql
