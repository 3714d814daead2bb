#include "ingest/lease_guard.h"

namespace floe::ingest {

LeaseGuard::LeaseGuard(WorkerLeases& leases, std::string ledger_uri)
    : leases_(leases), ledger_uri_(std::move(ledger_uri)) {}

std::optional<catalog::CommitGuard::SqlCondition> LeaseGuard::InCommitTransaction(
    const catalog::TableIdentifier& table, const std::string& database_uri) {
  if (database_uri != ledger_uri_) return std::nullopt;
  const std::string name = table.ToString();
  if (!leases_.Controls(name)) return std::nullopt;
  const std::optional<TableLease> lease = leases_.LeaseOf(name);
  // Not held: a lease that cannot exist makes the query find nothing.
  if (!lease) return SqlCondition{leases_.FenceQuery(), {name, leases_.worker_id(), "-1"}};
  return SqlCondition{leases_.FenceQuery(), {name, lease->worker_id, std::to_string(lease->epoch)}};
}

Status LeaseGuard::BeforeCommit(const catalog::TableIdentifier& table) {
  const std::string name = table.ToString();
  if (!leases_.Controls(name)) return Status::OK();
  const std::optional<TableLease> lease = leases_.LeaseOf(name);
  if (!lease) return Refused(table);
  FLOE_ASSIGN_OR_RETURN(bool current, leases_.StillCurrent(name, *lease));
  if (!current) return Refused(table);
  return Status::OK();
}

int64_t LeaseGuard::IdleInTransactionTimeoutMs() const {
  return leases_.lease_timeout_ms() / 2;
}

Status LeaseGuard::Refused(const catalog::TableIdentifier& table) {
  const std::optional<TableLease> lease = leases_.LeaseOf(table.ToString());
  return Status::Fenced("commit to " + table.ToString() + " refused: worker " + leases_.worker_id() +
                        (lease ? " no longer holds the lease of epoch " + std::to_string(lease->epoch)
                               : " holds no lease of the table") +
                        " (another worker took it over); nothing was committed");
}

}  // namespace floe::ingest
