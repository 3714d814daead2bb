// PipelineMetrics: what a running pipeline counts for GET /metrics and
// GET /readyz (`floe run --http`), kept in memory.
//
// Contract: the loop reports each committed or failed batch, each poll, the
// source's stream marks and the tables' conditions; the maintenance worker
// reports its runs. Each report updates a few counters, gauges and
// histograms of `registry()` (one mutex each) — per batch and per poll,
// never per row — so counting costs nothing measurable. Counters start at
// zero with the process (Prometheus' rate() handles restarts); what must
// survive a restart (pending files, the last commit) is read from the
// ledger when scraped, not kept here. Labels are bounded: the pipeline
// (constant), the source table, the kind of row, the stream partition
// ("<topic>/<n>") — never a file name. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ingest/stream_lag.h"
#include "ingest/table_ingestor.h"
#include "metrics/metrics_registry.h"

namespace floe::ingest {

class PipelineMetrics {
 public:
  explicit PipelineMetrics(const std::string& pipeline_name);

  metrics::MetricsRegistry& registry() { return registry_; }
  const metrics::MetricsRegistry& registry() const { return registry_; }

  // A batch of `table` (source table name) committed; `seconds` is its wall time.
  void BatchCommitted(const std::string& table, const BatchResult& result, double seconds);
  void BatchFailed(const std::string& table);
  // A poll ended: the source was listed (ok) or not (`error`).
  void PollDone(bool source_ok, const std::string& error, int64_t now_ms);
  // The catalog answered (or not) the loop's last call.
  void CatalogReached(bool ok, const std::string& error);
  // A table's recorded condition ("stopped", "failing"; "" clears it).
  void TableCondition(const std::string& table, const std::string& state, const std::string& reason);
  // The streams' positions after a poll or a commit (tables by source
  // name), with the table label of each partition's gauges.
  void SetStreamLag(const std::vector<StreamPartitionLag>& partitions,
                    const std::vector<std::string>& table_labels);
  // A maintenance run of `table` ended.
  void MaintenanceDone(const std::string& table, bool ok, double seconds, int64_t now_ms);
  // `count` changes of `table` met a window of `aggregate` (its table,
  // "namespace.name") that its watermark had closed.
  void AggregateLateChanges(const std::string& table, const std::string& aggregate, int64_t count);

  struct Health {
    bool polled = false;  // a poll has ended since the start
    int64_t last_poll_ms = 0;
    bool source_ok = false;
    std::string source_error;
    bool catalog_ok = true;  // until the loop sees it fail
    std::string catalog_error;
    std::map<std::string, std::pair<std::string, std::string>> conditions;  // table -> (state, reason)
  };
  Health health() const;
  std::vector<StreamPartitionLag> stream_lag() const;

 private:
  metrics::MetricsRegistry registry_;
  metrics::Metric& batches_;
  metrics::Metric& batch_failures_;
  metrics::Metric& rows_;
  metrics::Metric& files_;
  metrics::Metric& bytes_;
  metrics::Metric& quarantined_;
  metrics::Metric& bad_rows_;
  metrics::Metric& dead_letters_;
  metrics::Metric& batch_seconds_;
  metrics::Metric& commit_seconds_;
  metrics::Metric& polls_;
  metrics::Metric& poll_failures_;
  metrics::Metric& last_poll_;
  metrics::Metric& table_stopped_;
  metrics::Metric& maintenance_runs_;
  metrics::Metric& maintenance_failures_;
  metrics::Metric& last_maintenance_;
  metrics::Metric& stream_committed_;
  metrics::Metric& stream_high_;
  metrics::Metric& stream_lag_;
  metrics::Metric& aggregate_late_;

  mutable std::mutex mutex_;  // guards health_ and lag_
  Health health_;
  std::vector<StreamPartitionLag> lag_;
};

}  // namespace floe::ingest
