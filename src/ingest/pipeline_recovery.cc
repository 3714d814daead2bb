// Pipeline recovery (pipeline_impl.h): the batches a previous process (or a
// failed batch) left open are resolved against their tables' histories —
// committed when a snapshot carries the batch id, released otherwise.
#include <charconv>

#include "ingest/batch_recovery.h"
#include "ingest/pipeline_impl.h"
#include "ingest/side_tables.h"

namespace floe::ingest {

Result<std::optional<int64_t>> Pipeline::Impl::ResolveBatch(const std::string& source_table,
                                                            int64_t batch_id) {
  FLOE_ASSIGN_OR_RETURN(catalog::TableIdentifier id, TargetOf(source_table));
  auto found = FindCommittedBatch(*tables, id, config.name, batch_id);
  std::optional<int64_t> snapshot;
  if (found.ok()) {
    snapshot = *found;
  } else if (found.status().kind() != ErrorKind::kNotFound) {
    // The table never got created: nothing of the batch can have committed.
    return found.status().WithContext("table " + id.ToString());
  }
  if (snapshot) {
    FLOE_ASSIGN_OR_RETURN(auto ops, tables->LoadTable(id));
    FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable loaded, ops->Load());
    const iceberg::Snapshot* committed = loaded.metadata.SnapshotById(*snapshot);
    if (committed == nullptr) {
      return Status::NotFound("table " + id.ToString() + " has no snapshot " + std::to_string(*snapshot));
    }
    // The batch's side rows (bad rows, quarantine, dead letters) commit with
    // it: finish what a crash between its commits left (side_tables.h).
    FLOE_RETURN_IF_ERROR(CompleteSideCommits(*tables, id, *committed, config.name, batch_id)
                             .WithContext("side tables of batch " + std::to_string(batch_id)));
    // A resolved batch keeps no stats; its expectation counts are in the summary.
    FLOE_RETURN_IF_ERROR(Ledgered(
        ledger->CommitBatch(batch_id, *snapshot, std::nullopt,
                            ExpectationCountsOfSummary(committed->summary, config.ForTable(source_table)))));
  } else {
    FLOE_RETURN_IF_ERROR(Ledgered(ledger->ReleaseBatch(batch_id)));
  }
  return snapshot;
}

std::vector<LedgerExpectationCount> ExpectationCountsOfSummary(
    const std::map<std::string, std::string>& summary, const TableSettings& settings) {
  std::vector<LedgerExpectationCount> counts;
  auto number = [&](const std::string& key) -> std::optional<int64_t> {
    auto it = summary.find(key);
    if (it == summary.end()) return std::nullopt;
    int64_t value = 0;
    const auto parsed = std::from_chars(it->second.data(), it->second.data() + it->second.size(), value);
    if (parsed.ec != std::errc() || parsed.ptr != it->second.data() + it->second.size()) return std::nullopt;
    return value;
  };
  for (const ExpectationConfig& expectation : settings.expectations) {
    const std::string prefix = std::string(kSummaryExpectPrefix) + expectation.name;
    const auto checked = number(prefix + ".checked");
    const auto passed = number(prefix + ".passed");
    const auto failed = number(prefix + ".failed");
    if (!checked || !passed || !failed) continue;
    LedgerExpectationCount count;
    count.name = expectation.name;
    count.action = ExpectationActionName(expectation.action);
    count.checked = *checked;
    count.passed = *passed;
    count.failed = *failed;
    counts.push_back(std::move(count));
  }
  return counts;
}

Status Pipeline::Impl::Recover(RunSummary& summary, std::set<std::string>& blocked) {
  FLOE_ASSIGN_OR_RETURN(std::vector<LedgerBatch> open, Ledgered(ledger->OpenBatches()));
  for (const LedgerBatch& batch : open) {
    // Scale-out: another worker's open batch is its own (or, once it is
    // dead, the business of whoever takes its table over).
    if (!Holds(batch.table)) continue;
    TableRunSummary& table_summary = summary.tables[batch.table];
    if (auto id = TargetOf(batch.table); id.ok()) table_summary.table = id->ToString();
    if (blocked.count(batch.table) > 0) continue;  // keep its batches in order
    auto resolved = ResolveBatch(batch.table, batch.batch_id);
    if (!resolved.ok() && resolved.status().kind() == ErrorKind::kFenced) {
      blocked.insert(batch.table);
      Log("scale-out: recovery: " + batch.table + ": " + resolved.status().message());
      continue;
    }
    if (!resolved.ok()) {
      if (state_failed) return resolved.status();
      blocked.insert(batch.table);
      table_summary.error = "open batch " + std::to_string(batch.batch_id) +
                            " could not be resolved: " + resolved.status().ToString();
      if (options.metrics) options.metrics->CatalogReached(false, resolved.status().ToString());
      FLOE_RETURN_IF_ERROR(SetCondition(batch.table, kTableFailing, table_summary.error));
      Log("recovery: " + batch.table + ": " + table_summary.error + "; the table waits for the next run");
      continue;
    }
    ++table_summary.recovered_batches;
    if (*resolved) {
      Log("recovery: batch " + std::to_string(batch.batch_id) + " of " + batch.table + " (" +
          std::to_string(batch.uris.size()) + " files) had committed as snapshot " +
          std::to_string(**resolved) + "; marked committed");
    } else {
      Log("recovery: batch " + std::to_string(batch.batch_id) + " of " + batch.table + " (" +
          std::to_string(batch.uris.size()) + " files) had not committed; released to be redone");
    }
  }
  return Status::OK();
}

Status Pipeline::Impl::FailBatch(const std::string& source_table, int64_t batch_id, const Status& error,
                                 TableRunSummary& table_summary) {
  table_summary.error = "batch " + std::to_string(batch_id) + ": " + error.ToString();
  if (options.metrics) {
    options.metrics->BatchFailed(MetricsTable(source_table));
    if (error.kind() == ErrorKind::kIOError) options.metrics->CatalogReached(false, error.ToString());
  }
  // A refusal (a rollback by another writer, a settings conflict) waits for
  // an operator; anything else (a service down) may pass at the next poll.
  // Without the batch id (each retry has a new one), so a repeated failure
  // keeps its condition and when it began.
  FLOE_RETURN_IF_ERROR(
      SetCondition(source_table, error.kind() == ErrorKind::kInvalidArgument ? kTableStopped : kTableFailing,
                   error.ToString()));
  auto resolved = ResolveBatch(source_table, batch_id);
  if (!resolved.ok()) {
    if (state_failed) return resolved.status();
    Log("table " + source_table + ": " + table_summary.error + "; the batch stays open (" +
        resolved.status().ToString() + ") and the next run resolves it");
    return Status::OK();
  }
  if (*resolved) {
    Log("table " + source_table + ": " + table_summary.error + "; its commit landed as snapshot " +
        std::to_string(**resolved) + ", marked committed");
  } else {
    Log("table " + source_table + ": " + table_summary.error + "; nothing committed, files released");
  }
  return Status::OK();
}

}  // namespace floe::ingest
