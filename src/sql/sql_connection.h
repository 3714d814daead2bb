// A minimal SQL connection: SQLite and PostgreSQL behind one interface, for
// the SQL catalog and the PostgreSQL ledger.
//
// Contract: statements use '?' or numbered '?N' placeholders (PostgreSQL
// gets $1.. / $N); parameters are bound as text
// (or NULL), never spliced into SQL. Results come back as text. Errors name
// the database and carry the engine's message; a lost connection during a
// write is reported with `connection_lost` so a commit can report
// CommitStateUnknown. A connection is used by one thread at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/redaction.h"  // RedactUri, for the URIs errors name
#include "common/status.h"

namespace floe::sql {

using SqlValue = std::optional<std::string>;  // nullopt = NULL
using SqlRow = std::vector<SqlValue>;

struct SqlResult {
  std::vector<SqlRow> rows;
  int64_t rows_affected = 0;
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual Result<SqlResult> Execute(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
  virtual Status Begin() = 0;
  virtual Status Commit() = 0;
  virtual void Rollback() = 0;
  // True if the named column exists in the named table.
  virtual Result<bool> HasColumn(const std::string& table, const std::string& column) = 0;
  // "<engine> <role> <uri>" without password, e.g. "postgresql ledger postgresql://floe@host/db".
  virtual const std::string& description() const = 0;
  // False once the connection to the server is lost (every call fails; open a new one).
  virtual bool connected() const = 0;
};

// Opens a connection from a URI: "sqlite:///abs/path.db", "sqlite://relative.db",
// "sqlite::memory:", "postgresql://user:pw@host:port/db?opts" (also "postgres://").
// With create_if_missing = false a SQLite database file that does not exist
// is NotFound instead of being created (reading commands never create one).
// `role` names what the database is for in descriptions and errors.
Result<std::unique_ptr<SqlConnection>> OpenSqlConnection(const std::string& uri,
                                                         bool create_if_missing = true,
                                                         const std::string& role = "catalog");

// `name` as a quoted SQL identifier ("a""b" for a"b), taken literally by
// PostgreSQL and SQLite alike: case kept, nothing spliced.
std::string QuoteSqlIdentifier(const std::string& name);

}  // namespace floe::sql
