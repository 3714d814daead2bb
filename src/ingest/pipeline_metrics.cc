#include "ingest/pipeline_metrics.h"

namespace floe::ingest {

namespace {

const std::vector<double> kBatchBuckets = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};
const std::vector<double> kCommitBuckets = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

std::string PartitionLabel(const StreamPartitionLag& p) {
  return p.stream + "/" + p.partition;
}

}  // namespace

PipelineMetrics::PipelineMetrics(const std::string& pipeline_name)
    : registry_(metrics::Labels{{"pipeline", pipeline_name}}),
      batches_(
          registry_.AddCounter("floe_batches_committed_total", "Batches committed to the table.", {"table"})),
      batch_failures_(registry_.AddCounter(
          "floe_batch_failures_total", "Batches that failed (redone later; nothing was lost).", {"table"})),
      rows_(registry_.AddCounter("floe_rows_committed_total",
                                 "Changes applied by committed batches, by kind: inserted, updated, deleted, "
                                 "stale (older than the row's current version, not applied).",
                                 {"table", "kind"})),
      files_(registry_.AddCounter(
          "floe_files_committed_total",
          "Source units (files, stream ranges) that contributed to committed batches.", {"table"})),
      bytes_(registry_.AddCounter("floe_source_bytes_committed_total",
                                  "Source bytes read by committed batches.", {"table"})),
      quarantined_(
          registry_.AddCounter("floe_files_quarantined_total",
                               "Source units set aside by batches (their reasons: floe files --state "
                               "quarantined).",
                               {"table"})),
      bad_rows_(
          registry_.AddCounter("floe_bad_rows_total", "Rows set aside in <table>__bad_rows.", {"table"})),
      dead_letters_(registry_.AddCounter(
          "floe_dead_letters_total", "Stream records that could not become rows (dead letters).", {"table"})),
      batch_seconds_(registry_.AddHistogram(
          "floe_batch_duration_seconds",
          "Wall time of a committed batch, from its ledger record to its commit.", {"table"}, kBatchBuckets)),
      commit_seconds_(registry_.AddHistogram(
          "floe_commit_duration_seconds",
          "Wall time of a batch's commit phase (key index, delete files, snapshot, side tables).", {"table"},
          kCommitBuckets)),
      polls_(registry_.AddCounter("floe_polls_total", "Polls of the source (discovery rounds).", {})),
      poll_failures_(registry_.AddCounter("floe_poll_failures_total",
                                          "Polls that could not list the source or write the ledger.", {})),
      last_poll_(registry_.AddGauge("floe_last_poll_timestamp_seconds",
                                    "When the last poll ended (Unix time).", {})),
      table_stopped_(
          registry_.AddGauge("floe_table_stopped",
                             "1 while a table waits for an operator (a CDA reset, a rollback by another "
                             "writer, a name clash), else 0.",
                             {"table"})),
      maintenance_runs_(
          registry_.AddCounter("floe_maintenance_runs_total", "Maintenance runs of a table.", {"table"})),
      maintenance_failures_(registry_.AddCounter(
          "floe_maintenance_failures_total", "Maintenance runs that failed (ingestion went on).", {"table"})),
      last_maintenance_(registry_.AddGauge("floe_last_maintenance_timestamp_seconds",
                                           "When the table's last maintenance run ended (Unix time).",
                                           {"table"})),
      stream_committed_(registry_.AddGauge("floe_stream_committed_offset",
                                           "Next offset of the partition the table holds everything before.",
                                           {"table", "partition"})),
      stream_high_(registry_.AddGauge("floe_stream_high_watermark",
                                      "The partition's high watermark when the source was last polled.",
                                      {"table", "partition"})),
      stream_lag_(
          registry_.AddGauge("floe_stream_lag_records",
                             "Records of the partition not yet in the table (high watermark - committed).",
                             {"table", "partition"})),
      aggregate_late_(registry_.AddCounter(
          "floe_aggregate_late_changes_total",
          "Changes of the table that met an [[aggregates]] window its watermark had closed (dropped under "
          "late_changes = \"drop\", else applied).",
          {"table", "aggregate"})) {}

void PipelineMetrics::BatchCommitted(const std::string& table, const BatchResult& result, double seconds) {
  const BatchCounts& c = result.counts;
  batches_.Add({table}, 1);
  rows_.Add({table, "inserted"}, static_cast<double>(c.inserted));
  rows_.Add({table, "updated"}, static_cast<double>(c.updated));
  rows_.Add({table, "deleted"}, static_cast<double>(c.deleted));
  rows_.Add({table, "stale"}, static_cast<double>(c.stale));
  files_.Add({table}, static_cast<double>(c.files));
  bytes_.Add({table}, static_cast<double>(c.bytes_read));
  quarantined_.Add({table}, static_cast<double>(result.quarantined.size()));
  bad_rows_.Add({table}, static_cast<double>(c.bad_rows));
  dead_letters_.Add({table}, static_cast<double>(c.dead_letters + c.dead_letters_skipped));
  batch_seconds_.Observe({table}, seconds);
  if (result.snapshot_id) commit_seconds_.Observe({table}, result.commit_seconds);
}

void PipelineMetrics::BatchFailed(const std::string& table) {
  batch_failures_.Add({table}, 1);
}

void PipelineMetrics::PollDone(bool source_ok, const std::string& error, int64_t now_ms) {
  polls_.Add({}, 1);
  if (!source_ok) poll_failures_.Add({}, 1);
  last_poll_.Set({}, static_cast<double>(now_ms) / 1000.0);
  std::lock_guard<std::mutex> lock(mutex_);
  health_.polled = true;
  health_.last_poll_ms = now_ms;
  health_.source_ok = source_ok;
  health_.source_error = source_ok ? "" : error;
}

void PipelineMetrics::CatalogReached(bool ok, const std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  health_.catalog_ok = ok;
  health_.catalog_error = ok ? "" : error;
}

void PipelineMetrics::TableCondition(const std::string& table, const std::string& state,
                                     const std::string& reason) {
  table_stopped_.Set({table}, state == "stopped" ? 1 : 0);
  std::lock_guard<std::mutex> lock(mutex_);
  if (state.empty()) {
    health_.conditions.erase(table);
  } else {
    health_.conditions[table] = {state, reason};
  }
}

void PipelineMetrics::SetStreamLag(const std::vector<StreamPartitionLag>& partitions,
                                   const std::vector<std::string>& table_labels) {
  for (size_t i = 0; i < partitions.size(); ++i) {
    const StreamPartitionLag& p = partitions[i];
    const std::vector<std::string> labels = {i < table_labels.size() ? table_labels[i] : p.table,
                                             PartitionLabel(p)};
    stream_committed_.Set(labels, static_cast<double>(p.committed));
    stream_high_.Set(labels, static_cast<double>(p.high));
    stream_lag_.Set(labels, static_cast<double>(p.lag));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  lag_ = partitions;
}

void PipelineMetrics::AggregateLateChanges(const std::string& table, const std::string& aggregate,
                                           int64_t count) {
  aggregate_late_.Add({table, aggregate}, static_cast<double>(count));
}

void PipelineMetrics::MaintenanceDone(const std::string& table, bool ok, double seconds, int64_t now_ms) {
  (void)seconds;
  maintenance_runs_.Add({table}, 1);
  if (!ok) maintenance_failures_.Add({table}, 1);
  last_maintenance_.Set({table}, static_cast<double>(now_ms) / 1000.0);
}

PipelineMetrics::Health PipelineMetrics::health() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return health_;
}

std::vector<StreamPartitionLag> PipelineMetrics::stream_lag() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lag_;
}

}  // namespace floe::ingest
