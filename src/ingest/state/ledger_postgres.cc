// The ledger's PostgreSQL database ([state] uri): each pipeline's ledger is a
// schema of its own, "floe_ledger_<pipeline>", holding the same tables as a
// SQLite ledger.db. A schema per pipeline (rather than a pipeline column in
// every row) keeps the ledger's SQL identical on both backends, lets the SQL
// catalog share the database (its tables live in the connection's default
// schema) and lets an operator back up, move or drop one pipeline's ledger
// with one schema (pg_dump -n, DROP SCHEMA ... CASCADE).
//
// Exclusive use: a writer holds a session-level advisory lock of the
// pipeline's schema (pg_try_advisory_lock on a stable 64-bit hash of its
// name) for its connection's lifetime. A lost connection fails the call in
// progress with a retryable IOError (its transaction rolled back on the
// server); the next call reconnects and takes the lock again. Readers take
// no lock and read each call in one REPEATABLE READ READ ONLY snapshot.
#include <unistd.h>

#include <cctype>
#include <cstdio>

#include "ingest/state/ledger_database.h"

namespace floe::ingest {
namespace {

// PostgreSQL identifiers are at most 63 bytes.
constexpr size_t kMaxPlainSchemaPipeline = 63 - 12;  // 12 = "floe_ledger_"

uint64_t Fnv1a64(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string Hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string SchemaFor(const std::string& pipeline) {
  if (pipeline.size() <= kMaxPlainSchemaPipeline) return "floe_ledger_" + pipeline;
  return "floe_ledger_" + pipeline.substr(0, kMaxPlainSchemaPipeline - 17) + "_" + Hex64(Fnv1a64(pipeline));
}

std::string QuoteIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Replaces whole words `from` by `to` in `text`.
std::string ReplaceWord(const std::string& text, const std::string& from, const std::string& to) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  size_t start = 0;
  while (true) {
    size_t at = text.find(from, start);
    if (at == std::string::npos) break;
    const bool whole = (at == 0 || !is_word(text[at - 1])) &&
                       (at + from.size() == text.size() || !is_word(text[at + from.size()]));
    out += text.substr(start, at - start) + (whole ? to : from);
    start = at + from.size();
  }
  return out + text.substr(start);
}

class PostgresLedgerDatabase final : public LedgerDatabase {
 public:
  PostgresLedgerDatabase(std::string uri, std::string pipeline, bool write)
      : uri_(std::move(uri)),
        pipeline_(std::move(pipeline)),
        schema_(SchemaFor(pipeline_)),
        write_(write),
        name_("PostgreSQL ledger " + RedactUri(uri_) + " (schema " + schema_ + ")") {}

  // Connects (again) when there is no live connection: the session's
  // search_path is the pipeline's schema, and a writer takes the lock.
  Status Connect() {
    if (connection_ && connection_->connected()) return Status::OK();
    // Never inside a transaction: its statements would run outside it.
    if (in_transaction_) return Status::IOError(name_ + ": the connection was lost in a transaction", true);
    connection_.reset();
    FLOE_ASSIGN_OR_RETURN(auto connection, sql::OpenSqlConnection(uri_, false, "ledger"));
    const std::string application = "floe " + pipeline_ + " pid " + std::to_string(::getpid());
    FLOE_RETURN_IF_ERROR(
        connection->Execute("SELECT set_config('application_name', ?1, false)", {application}).status());
    if (write_) {
      FLOE_ASSIGN_OR_RETURN(sql::SqlResult locked,
                            connection->Execute("SELECT pg_try_advisory_lock(?1::bigint)", {LockKey()}));
      if (locked.rows.empty() || !locked.rows[0][0] || *locked.rows[0][0] != "t") {
        const std::string message =
            "another floe process is using pipeline " + pipeline_ + "'s " + name_ + Holder(*connection);
        // After a lost connection the server may not have ended the old session yet: try again later.
        if (connected_once_) return Status::IOError(message, true);
        return Status::InvalidArgument(message);
      }
      FLOE_RETURN_IF_ERROR(
          connection->Execute("CREATE SCHEMA IF NOT EXISTS " + QuoteIdentifier(schema_)).status());
    } else {
      FLOE_ASSIGN_OR_RETURN(sql::SqlResult exists,
                            connection->Execute("SELECT 1 FROM pg_namespace WHERE nspname = ?1", {schema_}));
      if (exists.rows.empty()) {
        return Status::NotFound(name_ + " does not exist (has `floe run` run with this config?)");
      }
    }
    FLOE_RETURN_IF_ERROR(
        connection->Execute("SELECT set_config('search_path', ?1, false)", {QuoteIdentifier(schema_)})
            .status());
    connection_ = std::move(connection);
    connected_once_ = true;
    return Status::OK();
  }

  Result<LedgerStatement> Prepare(const std::string& sql) override {
    FLOE_RETURN_IF_ERROR(Connect());
    return LedgerStatement(connection_.get(), sql);
  }

  Status Exec(const std::string& sql) override {
    FLOE_RETURN_IF_ERROR(Connect());
    size_t start = 0;
    while (start < sql.size()) {
      size_t end = sql.find(';', start);
      if (end == std::string::npos) end = sql.size();
      const std::string statement = sql.substr(start, end - start);
      if (statement.find_first_not_of(" \n\t") != std::string::npos) {
        FLOE_RETURN_IF_ERROR(connection_->Execute(statement).status());
      }
      start = end + 1;
    }
    return Status::OK();
  }

  Status Transaction(const std::function<Status()>& body, bool write) override {
    FLOE_RETURN_IF_ERROR(Connect());
    FLOE_RETURN_IF_ERROR(
        connection_->Execute(write ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").status());
    in_transaction_ = true;
    Status status = body();
    in_transaction_ = false;
    if (status.ok()) status = connection_->Commit();
    if (!status.ok() && connection_->connected()) connection_->Rollback();
    return status;
  }

  Result<bool> HasTable(const std::string& name) override {
    FLOE_RETURN_IF_ERROR(Connect());
    FLOE_ASSIGN_OR_RETURN(
        sql::SqlResult result,
        connection_->Execute("SELECT 1 FROM pg_tables WHERE schemaname = ?1 AND tablename = ?2",
                             {schema_, name}));
    return !result.rows.empty();
  }

  // 64-bit integers, and text compared byte by byte as in SQLite (order
  // keys, uris and zero-padded stream positions sort as the ledger needs).
  std::string Ddl(const std::string& sqlite_ddl) const override {
    return ReplaceWord(ReplaceWord(sqlite_ddl, "INTEGER", "BIGINT"), "TEXT", "TEXT COLLATE \"C\"");
  }

  const std::string& name() const override { return name_; }

 private:
  std::string LockKey() const {
    return std::to_string(static_cast<int64_t>(Fnv1a64("floe ledger " + schema_)));
  }

  // Who holds the pipeline's lock, as far as pg_stat_activity tells.
  std::string Holder(sql::SqlConnection& connection) const {
    const uint64_t key = Fnv1a64("floe ledger " + schema_);
    auto holder = connection.Execute(
        "SELECT a.application_name, coalesce(host(a.client_addr), 'local') FROM pg_locks l "
        "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND "
        "l.classid = ?1::bigint::oid AND l.objid = ?2::bigint::oid AND l.objsubid = 1 LIMIT 1",
        {std::to_string(key >> 32), std::to_string(key & 0xffffffffULL)});
    if (!holder.ok() || holder->rows.empty() || !holder->rows[0][0]) return "";
    return " (held by \"" + *holder->rows[0][0] + "\" from " + holder->rows[0][1].value_or("?") + ")";
  }

  std::string uri_;
  std::string pipeline_;
  std::string schema_;
  bool write_;
  std::string name_;
  std::unique_ptr<sql::SqlConnection> connection_;
  bool connected_once_ = false;  // a failed reconnect's "lock held" is retryable
  bool in_transaction_ = false;
};

}  // namespace

Result<std::unique_ptr<LedgerDatabase>> OpenPostgresLedgerDatabase(const std::string& uri,
                                                                   const std::string& pipeline, bool write) {
  if (pipeline.empty())
    return Status::InvalidArgument("ledger: a PostgreSQL ledger needs the pipeline's name");
  auto database = std::make_unique<PostgresLedgerDatabase>(uri, pipeline, write);
  FLOE_RETURN_IF_ERROR(database->Connect());
  return std::unique_ptr<LedgerDatabase>(std::move(database));
}

}  // namespace floe::ingest
