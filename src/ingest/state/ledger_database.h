// Internal to the ledger: the database a ledger lives in, SQLite
// (<state dir>/ledger.db, ledger_sqlite.cc) or PostgreSQL ([state] uri,
// ledger_postgres.cc), behind one interface so that ledger.cc and
// ledger_activity.cc write every query once. The SQL text is shared: numbered
// '?N' placeholders, `INSERT ... ON CONFLICT` upserts and the DDL's SQLite
// types (INTEGER, TEXT), which the PostgreSQL backend maps (Ddl).
// Not for use outside src/ingest/state. Not thread-safe (as the Ledger).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "sql/sql_connection.h"
#include "sqlite/sqlite_database.h"

namespace floe::ingest {

// One statement of the ledger's SQL on either backend, with the API of
// SqliteStatement (what the ledger was written against): bind by number,
// step through the rows, read columns as integers or text. On SQLite it is a
// prepared statement; on PostgreSQL the statement runs at the first Step or
// Run with the bound parameters as text, and its rows are buffered.
class LedgerStatement {
 public:
  LedgerStatement(const SqliteDatabase* database, SqliteStatement statement);
  LedgerStatement(sql::SqlConnection* connection, std::string sql);

  LedgerStatement& Bind(int index, int64_t value);
  LedgerStatement& Bind(int index, const std::string& value);
  // Next row: false at the end.
  Result<bool> Step();
  // Runs the statement to its end, ignoring any rows.
  Status Run();
  // Ready to run again; bindings are kept until rebound.
  void Reset();
  // NULL reads as 0 / "" (as SQLite's).
  int64_t Int(int column) const;
  std::optional<int64_t> OptionalInt(int column) const;
  std::string Text(int column) const;
  std::optional<std::string> OptionalText(int column) const;
  // Rows changed by the last Run.
  int64_t Changes() const { return changes_; }

 private:
  const sql::SqlValue& Cell(int column) const;

  const SqliteDatabase* sqlite_database_ = nullptr;
  std::optional<SqliteStatement> sqlite_;
  sql::SqlConnection* connection_ = nullptr;
  std::string sql_;
  std::vector<sql::SqlValue> params_;
  std::optional<sql::SqlResult> result_;  // PostgreSQL: the rows of the current run
  size_t next_row_ = 0;
  int64_t changes_ = 0;
};

class LedgerDatabase {
 public:
  virtual ~LedgerDatabase() = default;

  virtual Result<LedgerStatement> Prepare(const std::string& sql) = 0;
  // Runs ';'-separated statements without parameters (no ';' inside literals).
  virtual Status Exec(const std::string& sql) = 0;
  // Runs `body` in one transaction: a writer's calls are serialised (it holds
  // the ledger's lock), a reader sees one consistent snapshot; any error rolls
  // back.
  virtual Status Transaction(const std::function<Status()>& body, bool write) = 0;
  // True if the ledger's table `name` exists.
  virtual Result<bool> HasTable(const std::string& name) = 0;
  // The DDL for this backend from the shared text written with SQLite's types.
  virtual std::string Ddl(const std::string& sqlite_ddl) const = 0;
  // Names the ledger in messages (no password).
  virtual const std::string& name() const = 0;
};

// SQLite: <state dir>/ledger.db in WAL mode with synchronous=FULL. A writer
// creates the state dir and holds the exclusive flock on <state
// dir>/ledger.lock for its lifetime.
Result<std::unique_ptr<LedgerDatabase>> OpenSqliteLedgerDatabase(const std::string& state_dir, bool write);

// PostgreSQL: the pipeline's own schema in the database at `uri`, shared by
// every worker of the pipeline; each write transaction holds the pipeline's
// transaction-level advisory lock (PostgresAdvisoryKey("floe ledger", schema)).
// `idle_in_transaction_timeout_ms` > 0 sets the sessions' idle_in_transaction_session_timeout.
Result<std::unique_ptr<LedgerDatabase>> OpenPostgresLedgerDatabase(
    const std::string& uri, const std::string& pipeline, bool write,
    int64_t idle_in_transaction_timeout_ms = 0);

// The schema of `pipeline`'s ledger: "floe_ledger_<pipeline>", a name too
// long for PostgreSQL's 63 bytes cut and given a hash of the whole name.
std::string PostgresLedgerSchema(const std::string& pipeline);
// The 64-bit advisory lock key (as decimal text) of one use of a schema.
std::string PostgresAdvisoryKey(const std::string& purpose, const std::string& schema);

}  // namespace floe::ingest
