// CommitGuard: a condition every commit to a table must still meet when it
// lands — fencing: a floe worker commits a table only while it holds the
// table's lease (docs/scale-out.md). The catalog asks the guard; the guard
// knows nothing of catalogs.
//
// Contract: a SQL catalog on the database the guard names runs the guard's
// query inside the commit's own transaction, before the metadata pointer
// moves, and commits only when it returned a row (the query locks what it
// read until the transaction ends, so the condition cannot change between
// the check and the swap); Refused is the commit's error otherwise. Every
// other catalog (and a SQL catalog on another database) calls BeforeCommit
// right before the commit is sent: an error refuses the commit and nothing
// is sent — the condition may then still change in the moment between the
// check and the catalog's swap (docs/scale-out.md says what each catalog
// guarantees). A table the guard has no condition for commits as usual.
// Implementations are called from any thread that commits.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/metastore.h"
#include "common/status.h"

namespace floe::catalog {

class CommitGuard {
 public:
  struct SqlCondition {
    std::string sql;  // '?N' placeholders
    std::vector<std::string> params;
  };
  virtual ~CommitGuard() = default;
  // The in-transaction query for a commit of `table` through a SQL catalog on
  // `database_uri`; nullopt when there is none there (another database, or
  // no condition for the table).
  virtual std::optional<SqlCondition> InCommitTransaction(const TableIdentifier& table,
                                                          const std::string& database_uri) = 0;
  // The check right before a commit of `table` that InCommitTransaction did not cover.
  virtual Status BeforeCommit(const TableIdentifier& table) = 0;
  // The error of a commit whose in-transaction query returned no row.
  virtual Status Refused(const TableIdentifier& table) = 0;
  // How long a SQL catalog's session may sit idle inside a transaction before
  // the server ends it (PostgreSQL's idle_in_transaction_session_timeout):
  // a committer paused mid-commit must not hold its row locks, and so every
  // other committer, for longer than this. 0: the server's setting.
  virtual int64_t IdleInTransactionTimeoutMs() const { return 0; }
};

}  // namespace floe::catalog
