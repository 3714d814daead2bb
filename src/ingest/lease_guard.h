// LeaseGuard: a worker's table leases (worker_leases.h) as the fence of its
// commits — the catalog's CommitGuard and the ledger's LedgerFence.
//
// Contract: a table under lease control (any table in the pipeline's lease
// table) commits only under this worker's current lease of it: in the SQL
// catalog's own commit transaction when the catalog is the ledger's
// PostgreSQL database (the same uri), else by asking the database right
// before the commit. A table under lease control that this worker does not
// hold (never granted, released, or void because the worker was found dead)
// is refused without asking. Tables outside lease control (the side tables
// <table>__bad_rows, __quarantine, __dead_letter, __changes, which commit
// only after or with their table's fenced commit) are not fenced.
// Thread-safe (the loop and the maintenance worker commit through it).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "catalog/commit_guard.h"
#include "ingest/state/worker_leases.h"

namespace floe::ingest {

class LeaseGuard final : public catalog::CommitGuard {
 public:
  // `leases` must outlive the guard; `ledger_uri` is [state] uri.
  LeaseGuard(WorkerLeases& leases, std::string ledger_uri);

  std::optional<SqlCondition> InCommitTransaction(const catalog::TableIdentifier& table,
                                                  const std::string& database_uri) override;
  Status BeforeCommit(const catalog::TableIdentifier& table) override;
  Status Refused(const catalog::TableIdentifier& table) override;
  // Half the lease timeout: a paused worker's commit transaction ends before
  // its tables are handed over.
  int64_t IdleInTransactionTimeoutMs() const override;

 private:
  WorkerLeases& leases_;
  std::string ledger_uri_;
};

}  // namespace floe::ingest
