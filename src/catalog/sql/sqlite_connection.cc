// SQLite behind SqlConnection. WAL mode and a busy timeout let several floe
// processes share one catalog file; writers serialise on SQLite's lock.
#include <sqlite3.h>

#include <filesystem>

#include "catalog/sql/sql_connection.h"

namespace floe::catalog {
namespace {

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string description) : db_(db), description_(std::move(description)) {}
  ~SqliteConnection() override { sqlite3_close_v2(db_); }

  const std::string& description() const override { return description_; }

  Result<SqlResult> Execute(const std::string& sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
      return Error("cannot prepare statement");
    }
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
    for (size_t i = 0; i < params.size(); ++i) {
      int rc = params[i] ? sqlite3_bind_text(stmt, static_cast<int>(i + 1), params[i]->data(),
                                             static_cast<int>(params[i]->size()), SQLITE_TRANSIENT)
                         : sqlite3_bind_null(stmt, static_cast<int>(i + 1));
      if (rc != SQLITE_OK) return Error("cannot bind parameter");
    }
    SqlResult result;
    while (true) {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return Error("statement failed");
      SqlRow row;
      int n = sqlite3_column_count(stmt);
      for (int c = 0; c < n; ++c) {
        if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
          row.emplace_back(std::nullopt);
        } else {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
          row.emplace_back(std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
        }
      }
      result.rows.push_back(std::move(row));
    }
    result.rows_affected = sqlite3_changes(db_);
    return result;
  }

  Status Begin() override { return Execute("BEGIN IMMEDIATE", {}).status(); }
  Status Commit() override { return Execute("COMMIT", {}).status(); }
  void Rollback() override { (void)Execute("ROLLBACK", {}); }

  Result<bool> HasColumn(const std::string& table, const std::string& column) override {
    FLOE_ASSIGN_OR_RETURN(SqlResult r, Execute("SELECT name FROM pragma_table_info(?)", {table}));
    for (const SqlRow& row : r.rows) {
      if (row[0] && *row[0] == column) return true;
    }
    return false;
  }

 private:
  Status Error(const std::string& what) {
    int code = sqlite3_errcode(db_);
    std::string message = description_ + ": " + what + ": " + sqlite3_errmsg(db_);
    bool busy = code == SQLITE_BUSY || code == SQLITE_LOCKED;
    return Status::IOError(message, busy);
  }

  sqlite3* db_;
  std::string description_;
};

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenSqliteConnection(const std::string& uri, bool create_if_missing) {
  std::string path;
  if (uri == "sqlite::memory:") {
    path = ":memory:";
  } else if (uri.rfind("sqlite:///", 0) == 0) {
    path = uri.substr(9);  // keeps the leading '/'
  } else if (uri.rfind("sqlite://", 0) == 0) {
    path = uri.substr(9);
  } else {
    return Status::InvalidArgument("not a SQLite URI: " + RedactUri(uri) +
                                   " (expected sqlite:///path/catalog.db)");
  }
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX;
  if (path != ":memory:") {
    std::error_code ec;
    if (!create_if_missing && !std::filesystem::exists(path, ec)) {
      return Status::NotFound("SQLite catalog " + path + " does not exist");
    }
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  if (create_if_missing) flags |= SQLITE_OPEN_CREATE;
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return Status::IOError("cannot open SQLite catalog " + path + ": " + message);
  }
  sqlite3_busy_timeout(db, 30000);
  auto conn = std::make_unique<SqliteConnection>(db, "sqlite catalog " + path);
  if (path != ":memory:") {
    FLOE_RETURN_IF_ERROR(conn->Execute("PRAGMA journal_mode=WAL", {}).status());
  }
  return std::unique_ptr<SqlConnection>(std::move(conn));
}

}  // namespace floe::catalog
