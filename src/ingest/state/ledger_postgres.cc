// The ledger's PostgreSQL database ([state] uri): each pipeline's ledger is a
// schema of its own, "floe_ledger_<pipeline>", holding the same tables as a
// SQLite ledger.db. A schema per pipeline (rather than a pipeline column in
// every row) keeps the ledger's SQL identical on both backends, lets the SQL
// catalog share the database (its tables live in the connection's default
// schema) and lets an operator back up, move or drop one pipeline's ledger
// with one schema (pg_dump -n, DROP SCHEMA ... CASCADE).
//
// Shared use: several workers (floe processes on any machines) write one
// pipeline's ledger at once (docs/scale-out.md). Every write transaction
// first takes a transaction-level advisory lock of the pipeline's schema
// (pg_advisory_xact_lock on a stable 64-bit hash of its name), so the
// ledger's read-then-write calls (a batch id allocated, a file's state
// checked and moved) are serialised across workers exactly as SQLite's
// IMMEDIATE transactions serialise them on one machine; which worker may
// touch which table is the leases' business (worker_leases.h, the ledger's
// fence). A lost connection fails the call in progress with a retryable
// IOError (its transaction rolled back on the server, its lock with it);
// the next call reconnects. Readers take no lock and read each call in one
// REPEATABLE READ READ ONLY snapshot.
#include <unistd.h>

#include <cctype>
#include <cstdio>

#include "ingest/state/ledger_database.h"
#include "sql/sql_connection.h"

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

}  // namespace

std::string PostgresLedgerSchema(const std::string& pipeline) {
  if (pipeline.size() <= kMaxPlainSchemaPipeline) return "floe_ledger_" + pipeline;
  return "floe_ledger_" + pipeline.substr(0, kMaxPlainSchemaPipeline - 17) + "_" + Hex64(Fnv1a64(pipeline));
}

std::string PostgresAdvisoryKey(const std::string& purpose, const std::string& schema) {
  return std::to_string(static_cast<int64_t>(Fnv1a64(purpose + " " + schema)));
}

namespace {

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
  PostgresLedgerDatabase(std::string uri, std::string pipeline, bool write,
                         int64_t idle_in_transaction_timeout_ms)
      : idle_in_transaction_timeout_ms_(idle_in_transaction_timeout_ms),
        uri_(std::move(uri)),
        pipeline_(std::move(pipeline)),
        schema_(PostgresLedgerSchema(pipeline_)),
        write_(write),
        name_("PostgreSQL ledger " + RedactUri(uri_) + " (schema " + schema_ + ")") {}

  // Connects (again) when there is no live connection: the session's
  // search_path is the pipeline's schema, which a writer creates when missing.
  Status Connect() {
    if (connection_ && connection_->connected()) return Status::OK();
    // Never inside a transaction: its statements would run outside it.
    if (in_transaction_) return Status::IOError(name_ + ": the connection was lost in a transaction", true);
    connection_.reset();
    FLOE_ASSIGN_OR_RETURN(auto connection, sql::OpenSqlConnection(uri_, false, "ledger"));
    const std::string application = "floe " + pipeline_ + " pid " + std::to_string(::getpid());
    FLOE_RETURN_IF_ERROR(
        connection->Execute("SELECT set_config('application_name', ?1, false)", {application}).status());
    if (idle_in_transaction_timeout_ms_ > 0) {
      FLOE_RETURN_IF_ERROR(
          connection
              ->Execute("SELECT set_config('idle_in_transaction_session_timeout', ?1, false)",
                        {std::to_string(idle_in_transaction_timeout_ms_)})
              .status());
    }
    if (write_) {
      // Under the pipeline's lock: workers starting together race to create the schema.
      FLOE_RETURN_IF_ERROR(connection->Execute("BEGIN").status());
      Status created = connection->Execute("SELECT pg_advisory_xact_lock(?1::bigint)", {LockKey()}).status();
      if (created.ok())
        created =
            connection->Execute("CREATE SCHEMA IF NOT EXISTS " + sql::QuoteSqlIdentifier(schema_)).status();
      if (created.ok()) created = connection->Commit();
      if (!created.ok()) {
        if (connection->connected()) connection->Rollback();
        return created;
      }
    } else {
      FLOE_ASSIGN_OR_RETURN(sql::SqlResult exists,
                            connection->Execute("SELECT 1 FROM pg_namespace WHERE nspname = ?1", {schema_}));
      if (exists.rows.empty()) {
        return Status::NotFound(name_ + " does not exist (has `floe run` run with this config?)");
      }
    }
    FLOE_RETURN_IF_ERROR(
        connection->Execute("SELECT set_config('search_path', ?1, false)", {sql::QuoteSqlIdentifier(schema_)})
            .status());
    connection_ = std::move(connection);
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
    Status status = Status::OK();
    if (write)
      status = connection_->Execute("SELECT pg_advisory_xact_lock(?1::bigint)", {LockKey()}).status();
    if (status.ok()) status = body();
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
  std::string LockKey() const { return PostgresAdvisoryKey("floe ledger", schema_); }

  int64_t idle_in_transaction_timeout_ms_;
  std::string uri_;
  std::string pipeline_;
  std::string schema_;
  bool write_;
  std::string name_;
  std::unique_ptr<sql::SqlConnection> connection_;
  bool in_transaction_ = false;
};

}  // namespace

Result<std::unique_ptr<LedgerDatabase>> OpenPostgresLedgerDatabase(const std::string& uri,
                                                                   const std::string& pipeline, bool write,
                                                                   int64_t idle_in_transaction_timeout_ms) {
  if (pipeline.empty())
    return Status::InvalidArgument("ledger: a PostgreSQL ledger needs the pipeline's name");
  auto database =
      std::make_unique<PostgresLedgerDatabase>(uri, pipeline, write, idle_in_transaction_timeout_ms);
  FLOE_RETURN_IF_ERROR(database->Connect());
  return std::unique_ptr<LedgerDatabase>(std::move(database));
}

}  // namespace floe::ingest
