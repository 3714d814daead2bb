#include "sqlite/sqlite_database.h"

#include <sqlite3.h>

namespace floe {

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), bind_error_(other.bind_error_) {
  other.stmt_ = nullptr;
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::Check(int rc) {
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) bind_error_ = rc;
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, int64_t value) {
  return Check(sqlite3_bind_int64(stmt_, index, value));
}

SqliteStatement& SqliteStatement::Bind(int index, const std::string& value) {
  return Check(
      sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT));
}

SqliteStatement& SqliteStatement::Bind(int index, const std::optional<int64_t>& value) {
  return value ? Bind(index, *value) : BindNull(index);
}

SqliteStatement& SqliteStatement::Bind(int index, const std::optional<std::string>& value) {
  return value ? Bind(index, *value) : BindNull(index);
}

SqliteStatement& SqliteStatement::BindNull(int index) {
  return Check(sqlite3_bind_null(stmt_, index));
}

Result<bool> SqliteStatement::Step() {
  if (bind_error_ != SQLITE_OK)
    return db_->Error(bind_error_, std::string("binding a value of ") + sqlite3_sql(stmt_));
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, sqlite3_sql(stmt_));
}

Status SqliteStatement::Run() {
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::OK();
  }
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = SQLITE_OK;
}

int SqliteStatement::ColumnCount() const {
  return sqlite3_column_count(stmt_);
}

bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t SqliteStatement::Int(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

std::optional<int64_t> SqliteStatement::OptionalInt(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Int(column);
}

std::string SqliteStatement::Text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(size)) : std::string();
}

std::optional<std::string> SqliteStatement::OptionalText(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Text(column);
}

Result<std::unique_ptr<SqliteDatabase>> SqliteDatabase::Open(const std::string& path,
                                                             SqliteOpenOptions options) {
  int flags = options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (options.create_if_missing && !options.read_only) flags |= SQLITE_OPEN_CREATE;
  flags |= options.serialized ? SQLITE_OPEN_FULLMUTEX : SQLITE_OPEN_NOMUTEX;
  const std::string name = options.name.empty() ? path : options.name;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Status::IOError(name + ": cannot open: " + message);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  return std::unique_ptr<SqliteDatabase>(new SqliteDatabase(db, name));
}

SqliteDatabase::~SqliteDatabase() {
  sqlite3_close_v2(db_);
}

Result<SqliteStatement> SqliteDatabase::Prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, "preparing " + sql);
  }
  return SqliteStatement(this, stmt);
}

Status SqliteDatabase::Exec(const std::string& sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  sqlite3_free(error);
  if (rc != SQLITE_OK) return Error(rc, sql);
  return Status::OK();
}

Status SqliteDatabase::SetJournalMode(const std::string& mode) {
  FLOE_ASSIGN_OR_RETURN(SqliteStatement pragma, Prepare("PRAGMA journal_mode=" + mode));
  FLOE_ASSIGN_OR_RETURN(bool row, pragma.Step());
  const std::string got = row ? pragma.Text(0) : std::string();
  if (got != mode) {
    return Status::IOError(name_ + ": cannot switch to " + mode + " journaling (got \"" + got + "\")");
  }
  return Status::OK();
}

Status SqliteDatabase::Begin(SqliteTransaction kind) {
  // A reader takes a snapshot (DEFERRED); a writer takes the write lock up front.
  return Exec(kind == SqliteTransaction::kImmediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
}

Status SqliteDatabase::Commit() {
  return Exec("COMMIT");
}

void SqliteDatabase::Rollback() {
  (void)Exec("ROLLBACK");
}

Status SqliteDatabase::Transaction(const std::function<Status()>& body, SqliteTransaction kind) {
  FLOE_RETURN_IF_ERROR(Begin(kind));
  Status status = body();
  if (status.ok()) status = Commit();
  if (!status.ok()) Rollback();
  return status;
}

int64_t SqliteDatabase::Changes() const {
  return sqlite3_changes(db_);
}

Status SqliteDatabase::Error(int rc, const std::string& what) const {
  const std::string message = name_ + ": " + sqlite3_errmsg(db_) + " (" + what + ")";
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return Status::IOError(message, /*retryable=*/true);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return Status::Corruption(message);
    default: return Status::IOError(message);
  }
}

}  // namespace floe
