// Pipeline maintenance scheduling (pipeline_impl.h): which tables' upkeep
// fell due after their commits, run inline (--once) or queued for the
// background worker (continuous mode, pipeline_maintenance.h).
#include <algorithm>
#include <chrono>

#include "iceberg/spec/snapshot_ancestry.h"
#include "ingest/aggregate/aggregate_table.h"
#include "ingest/batch_recovery.h"
#include "ingest/change_feed_table.h"
#include "ingest/pipeline_impl.h"
#include "ingest/side_tables.h"

namespace floe::ingest {

void Pipeline::Impl::LogWorkerMessages() {
  if (worker == nullptr) return;
  for (const std::string& line : worker->TakeMessages()) Log(line);
}

int64_t Pipeline::Impl::IngestCommitsInARow(const iceberg::TableMetadata& metadata) const {
  int64_t commits = 0;
  for (const iceberg::Snapshot* snapshot : iceberg::CurrentAncestors(metadata)) {
    auto owner = snapshot->summary.find(kSummaryPipeline);
    if (owner == snapshot->summary.end() || owner->second != config.name) break;
    ++commits;
  }
  return commits;
}

void Pipeline::Impl::MaybeMaintain(const std::string& source_table, const TableIngestor& ingestor,
                                   std::unique_lock<std::mutex>& state) {
  if (!options.maintain || !config.maintenance.enabled) return;
  auto id = TargetOf(source_table);
  if (!id.ok() || ingestor.metadata() == nullptr) return;
  const std::string key = id->ToString();
  const int64_t commits = IngestCommitsInARow(*ingestor.metadata());
  const int64_t every = std::max<int64_t>(1, config.maintenance.compact_every);
  // An attempt that committed nothing leaves the run growing: wait for `every` more.
  int64_t& attempted_at = maintenance_attempted_at[key];
  if (commits < attempted_at) attempted_at = 0;  // a maintenance snapshot reset the run
  if (commits - attempted_at < every) return;
  attempted_at = commits;
  // The table's change feed and [[aggregates]] tables take a commit per
  // commit of the table (new files each), so their upkeep falls due with it.
  std::vector<DueMaintenance> due_now{{*id, ingestor.IndexCatchUp(), MaintenanceSummaryOf(source_table)}};
  if (config.ForTable(source_table).target.change_feed)
    due_now.push_back({ChangesTableOf(*id), {}, MaintenanceSummaryOf(source_table)});
  for (const AggregateConfig& aggregate : config.aggregates) {
    if (aggregate.table == source_table)
      due_now.push_back({AggregateTableOf(*id, aggregate), {}, MaintenanceSummaryOf(source_table)});
  }
  // Side tables (bad rows, quarantined rows, dead letters) that took commits
  // since the table's last maintenance; one that took none has nothing new.
  auto sides = side_tables_committed.find(key);
  if (sides != side_tables_committed.end()) {
    for (const std::string& suffix : sides->second)
      due_now.push_back({SideTableId(*id, suffix), {}, MaintenanceSummaryOf(source_table)});
    side_tables_committed.erase(sides);
  }
  for (DueMaintenance& due : due_now) {
    if (worker == nullptr) {
      RunMaintenance(due.table, "after_commit", due.index_catch_up, due.commit_summary, state);
      continue;
    }
    const std::string due_key = due.table.ToString();
    auto queued = std::find_if(maintenance_due.begin(), maintenance_due.end(),
                               [&due_key](const DueMaintenance& d) { return d.table.ToString() == due_key; });
    if (queued == maintenance_due.end()) {
      trace->Write("maintenance_due", {{"table", due_key}, {"commits", commits}});
      maintenance_due.push_back(std::move(due));
      continue;
    }
    DueMaintenance overdue = std::move(*queued);
    maintenance_due.erase(queued);
    worker->Submit(overdue.table, "overdue", std::move(overdue.index_catch_up),
                   std::move(overdue.commit_summary));
  }
}

void Pipeline::Impl::SubmitDueMaintenance() {
  if (worker == nullptr) return;
  for (DueMaintenance& due : maintenance_due)
    worker->Submit(due.table, "idle", std::move(due.index_catch_up), std::move(due.commit_summary));
  maintenance_due.clear();
}

void Pipeline::Impl::RunMaintenance(const catalog::TableIdentifier& id, const char* why,
                                    const TableIngestor::IndexCatchUpFn& index_catch_up,
                                    const MaintenanceCommitSummary& commit_summary,
                                    std::unique_lock<std::mutex>& state) {
  const std::string key = id.ToString();
  const double start_ms = PipelineTrace::NowMs();
  const auto started = std::chrono::steady_clock::now();
  MaintenanceHooks hooks;
  hooks.commit_summary = commit_summary;
  // Only this table's thread touches the table meanwhile (the catalog is shared and serialized).
  state.unlock();
  auto report = options.maintain(*tables, id, hooks);
  if (report.ok() && index_catch_up) {
    Status caught_up = index_catch_up(*tables, nullptr);
    if (!caught_up.ok())
      *report += "; key index not caught up (the next batch does it): " + caught_up.ToString();
  }
  state.lock();
  const int64_t elapsed_ms = MillisSince(started);
  const std::string took = " (" + std::to_string(elapsed_ms) + " ms)";
  if (options.metrics) {
    options.metrics->MaintenanceDone(key, report.ok(), static_cast<double>(elapsed_ms) / 1000.0, NowMs());
  }
  if (!report.ok()) {
    Log("maintenance " + key + ": failed, ingestion goes on: " + report.status().ToString() + took);
  } else {
    Log("maintenance " + key + ": " + *report + took);
  }
  trace->Write("maintenance", {{"table", key},
                               {"why", why},
                               {"background", false},
                               {"start", start_ms},
                               {"ms", PipelineTrace::NowMs() - start_ms},
                               {"ok", report.ok()}});
}

}  // namespace floe::ingest
