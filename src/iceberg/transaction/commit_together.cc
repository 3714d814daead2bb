// CommitTogether (snapshot_producer.h): several producers' snapshots in one
// catalog transaction, with the retry loop of a single commit.
#include <chrono>
#include <thread>

#include "iceberg/transaction/snapshot_producer.h"
#include "iceberg/transaction/table.h"

namespace floe::iceberg {

Result<std::vector<Snapshot>> CommitTogether(const std::vector<SnapshotProducer*>& producers,
                                             const CommitTablesFunction& commit_tables,
                                             const OnStaged& on_staged) {
  std::vector<Snapshot> snapshots;
  if (producers.empty()) return snapshots;
  for (const SnapshotProducer* producer : producers) {
    if (producer->committed_) return Status::InvalidArgument("a change of this commit was already committed");
  }
  const RetryPolicy policy = producers.front()->table_.retry_policy();
  std::vector<LoadedTable> bases;
  for (SnapshotProducer* producer : producers) bases.push_back(producer->table_.current());
  auto give_up = [&](const Status& status) {
    for (SnapshotProducer* producer : producers) producer->AbandonCommit(status);
    return status;
  };
  for (int retry = 0;; ++retry) {
    std::vector<SnapshotProducer::PreparedAttempt> attempts;
    Status status;
    for (size_t i = 0; i < producers.size() && status.ok(); ++i) {
      auto prepared = producers[i]->PrepareAttempt(bases[i]);
      if (!prepared.ok()) {
        status = prepared.status();
        break;
      }
      attempts.push_back(std::move(prepared).value());
      if (on_staged) status = on_staged(i, attempts.back().snapshot);
    }
    if (status.ok()) {
      std::vector<TableCommitRequest> requests;
      for (size_t i = 0; i < producers.size(); ++i) {
        requests.push_back({&producers[i]->table_.ops(), attempts[i].requirements, attempts[i].updates});
      }
      auto committed = commit_tables(requests);
      if (committed.ok() && committed->size() != producers.size()) {
        // The transaction ran; which state each table is in is not known here.
        committed = Status::CommitStateUnknown("the catalog answered a commit of " +
                                               std::to_string(producers.size()) + " tables with " +
                                               std::to_string(committed->size()) + " states");
      }
      if (committed.ok()) {
        for (size_t i = 0; i < producers.size(); ++i) {
          snapshots.push_back(attempts[i].snapshot);
          producers[i]->FinishCommit(std::move(attempts[i]), std::move((*committed)[i]));
        }
        return snapshots;
      }
      status = committed.status();
    }
    for (size_t i = 0; i < attempts.size(); ++i) producers[i]->AbandonAttempt(attempts[i], status);
    if (status.kind() != ErrorKind::kCommitFailed || !status.retryable()) return give_up(status);
    if (retry >= policy.num_retries) {
      return give_up(status.WithContext("commit of " + std::to_string(producers.size()) +
                                        " tables failed after " + std::to_string(retry + 1) + " attempts"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(policy.WaitMs(retry + 1)));
    for (size_t i = 0; i < producers.size(); ++i) {
      auto reloaded = producers[i]->table_.ops().Load();
      if (!reloaded.ok()) return give_up(reloaded.status());
      bases[i] = std::move(reloaded).value();
    }
  }
}

}  // namespace floe::iceberg
