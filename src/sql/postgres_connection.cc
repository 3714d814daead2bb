// PostgreSQL behind SqlConnection (libpq). '?' placeholders become $1..$n,
// numbered ones ('?N') $N.
#include <libpq-fe.h>

#include "sql/sql_connection.h"

namespace floe::sql {
namespace {

// Rewrites placeholders outside quoted literals: '?' into $1, $2, ... in
// order, '?N' into $N.
std::string ToPostgresPlaceholders(const std::string& sql) {
  std::string out;
  int n = 0;
  bool in_quote = false;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'') in_quote = !in_quote;
    if (c != '?' || in_quote) {
      out += c;
    } else if (i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
      out += '$';
    } else {
      out += "$" + std::to_string(++n);
    }
  }
  return out;
}

class PostgresConnection final : public SqlConnection {
 public:
  PostgresConnection(PGconn* conn, std::string description)
      : conn_(conn), description_(std::move(description)) {}
  ~PostgresConnection() override { PQfinish(conn_); }

  const std::string& description() const override { return description_; }
  bool connected() const override { return PQstatus(conn_) == CONNECTION_OK; }

  Result<SqlResult> Execute(const std::string& sql, const std::vector<SqlValue>& params) override {
    std::string pg_sql = ToPostgresPlaceholders(sql);
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const SqlValue& p : params) values.push_back(p ? p->c_str() : nullptr);
    PGresult* res = PQexecParams(conn_, pg_sql.c_str(), static_cast<int>(values.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0);
    std::unique_ptr<PGresult, void (*)(PGresult*)> guard(res, PQclear);
    ExecStatusType status = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      bool lost = PQstatus(conn_) != CONNECTION_OK;
      std::string message = description_ + ": " + (res ? PQresultErrorMessage(res) : PQerrorMessage(conn_));
      while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
      const char* sqlstate = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
      std::string state = sqlstate ? sqlstate : "";
      if (state == "23505") return Status::AlreadyExists(message);
      // 40001 serialization failure / 40P01 deadlock: safe to retry.
      bool retryable = lost || state == "40001" || state == "40P01";
      Status st = Status::IOError(message, retryable);
      if (lost) st = Status(ErrorKind::kIOError, message + " (connection lost)", true);
      return st;
    }
    SqlResult result;
    if (status == PGRES_TUPLES_OK) {
      int rows = PQntuples(res), cols = PQnfields(res);
      for (int r = 0; r < rows; ++r) {
        SqlRow row;
        for (int c = 0; c < cols; ++c) {
          if (PQgetisnull(res, r, c)) {
            row.emplace_back(std::nullopt);
          } else {
            row.emplace_back(std::string(PQgetvalue(res, r, c), static_cast<size_t>(PQgetlength(res, r, c))));
          }
        }
        result.rows.push_back(std::move(row));
      }
    }
    const char* affected = PQcmdTuples(res);
    result.rows_affected = (affected && *affected) ? std::stoll(affected) : 0;
    return result;
  }

  Status Begin() override { return Execute("BEGIN", {}).status(); }
  Status Commit() override { return Execute("COMMIT", {}).status(); }
  void Rollback() override { (void)Execute("ROLLBACK", {}); }

  // Asks pg_catalog, not information_schema: the view's first use in a
  // session took PostgreSQL 15-17 ms to parse and plan (its privilege checks
  // and joins), once per process start of every SQL catalog. A dropped
  // column, a system column and a table outside the current schema are not
  // found, as before.
  Result<bool> HasColumn(const std::string& table, const std::string& column) override {
    FLOE_ASSIGN_OR_RETURN(SqlResult r,
                          Execute("SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = "
                                  "to_regclass(quote_ident(current_schema()) || '.' || quote_ident(?)) "
                                  "AND attname = ? AND attnum > 0 AND NOT attisdropped",
                                  {table, column}));
    return !r.rows.empty();
  }

 private:
  PGconn* conn_;
  std::string description_;
};

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenPostgresConnection(const std::string& uri,
                                                              const std::string& role) {
  PGconn* conn = PQconnectdb(uri.c_str());
  if (!conn) return Status::IOError("cannot connect to " + RedactUri(uri) + ": out of memory", true);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string message = PQerrorMessage(conn);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    PQfinish(conn);
    return Status::IOError("cannot connect to PostgreSQL " + role + " " + RedactUri(uri) + ": " + message,
                           true);
  }
  PQsetClientEncoding(conn, "UTF8");
  // The server's NOTICEs ("relation ... already exists, skipping" from every
  // CREATE ... IF NOT EXISTS at start) are not floe's messages: libpq would
  // print each to stderr, into the pipeline's log.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<SqlConnection>(
      new PostgresConnection(conn, "postgresql " + role + " " + RedactUri(uri)));
}

}  // namespace floe::sql
