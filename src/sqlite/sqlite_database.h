// SqliteDatabase and SqliteStatement: the one thin layer over SQLite's C API
// that the pipeline ledger and the SQLite catalog share.
//
// Contract: every failure is a Status whose message names the database (its
// `name`, by default the file path) and what failed (the SQL or the step),
// with SQLite's own message. SQLITE_BUSY / SQLITE_LOCKED are retryable
// IOErrors, SQLITE_CORRUPT / SQLITE_NOTADB are Corruption, anything else is
// an IOError. Statements are finalised when they go out of scope and must
// not outlive their database; a bind error is reported by the next Step.
// Thread safety: a database and its statements are used by one thread at a
// time (the ledger and each catalog connection are single-threaded).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace floe {

class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Parameters are numbered from 1.
  SqliteStatement& Bind(int index, int64_t value);
  SqliteStatement& Bind(int index, const std::string& value);
  SqliteStatement& Bind(int index, const std::optional<int64_t>& value);
  SqliteStatement& Bind(int index, const std::optional<std::string>& value);
  SqliteStatement& BindNull(int index);

  // True when a row is available, false when the statement is done.
  Result<bool> Step();
  // Runs a statement to its end, ignoring any rows.
  Status Run();
  // Rewinds the statement and clears its bindings for another run.
  void Reset();

  int ColumnCount() const;
  bool IsNull(int column) const;
  int64_t Int(int column) const;
  std::optional<int64_t> OptionalInt(int column) const;
  std::string Text(int column) const;
  std::optional<std::string> OptionalText(int column) const;

 private:
  friend class SqliteDatabase;
  SqliteStatement(const class SqliteDatabase* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  SqliteStatement& Check(int rc);

  const SqliteDatabase* db_;
  sqlite3_stmt* stmt_;
  int bind_error_ = 0;
};

struct SqliteOpenOptions {
  bool read_only = false;
  bool create_if_missing = false;
  // SQLITE_OPEN_FULLMUTEX (serialised) instead of SQLITE_OPEN_NOMUTEX.
  bool serialized = false;
  int busy_timeout_ms = 30'000;
  // Names the database in messages; empty = its path.
  std::string name;
};

enum class SqliteTransaction { kImmediate, kDeferred };

class SqliteDatabase {
 public:
  // `path` is a file path or ":memory:". Extended result codes are on.
  static Result<std::unique_ptr<SqliteDatabase>> Open(const std::string& path, SqliteOpenOptions options);
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  const std::string& name() const { return name_; }

  Result<SqliteStatement> Prepare(const std::string& sql);
  // Runs SQL without parameters whose rows (if any) are not needed.
  Status Exec(const std::string& sql);
  // Sets the journal mode ("wal", ...) and checks that SQLite took it.
  Status SetJournalMode(const std::string& mode);

  Status Begin(SqliteTransaction kind = SqliteTransaction::kImmediate);
  Status Commit();
  void Rollback();
  // Runs `body` between Begin(kind) and Commit; any error rolls back.
  Status Transaction(const std::function<Status()>& body,
                     SqliteTransaction kind = SqliteTransaction::kImmediate);

  // Rows changed by the last INSERT, UPDATE or DELETE.
  int64_t Changes() const;

  // The Status for SQLite result code `rc` while doing `what`.
  Status Error(int rc, const std::string& what) const;

 private:
  SqliteDatabase(sqlite3* db, std::string name) : db_(db), name_(std::move(name)) {}

  sqlite3* db_;
  std::string name_;
};

}  // namespace floe
