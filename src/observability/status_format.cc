#include "observability/status_format.h"

#include "common/text_table.h"
#include "ingest/progress_reporter.h"

namespace floe::observability {

namespace {

using Json = nlohmann::ordered_json;

Json Optional(const std::optional<int64_t>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json Time(const std::optional<int64_t>& ms) {
  return ms ? Json(ingest::FormatUtcMillis(*ms)) : Json(nullptr);
}

// Snapshot ids as strings; 0 (a batch that committed nothing) as null.
Json SnapshotId(const std::optional<int64_t>& id) {
  return id && *id != 0 ? Json(std::to_string(*id)) : Json(nullptr);
}

Json StatsJson(const ingest::BatchStats& stats) {
  return Json{{"files", stats.files},     {"bytes", stats.bytes},
              {"rows", stats.rows},       {"inserted", stats.inserted},
              {"updated", stats.updated}, {"deleted", stats.deleted},
              {"stale", stats.stale},     {"quarantined", stats.quarantined}};
}

Json BatchJson(const ingest::BatchRecord& batch) {
  Json json{{"batch", batch.batch_id},
            {"table", batch.table},
            {"committed", batch.committed},
            {"snapshot", SnapshotId(batch.snapshot_id)},
            {"created_at", ingest::FormatUtcMillis(batch.created_at_ms)},
            {"created_at_ms", batch.created_at_ms},
            {"committed_at", Time(batch.committed_at_ms)},
            {"committed_at_ms", Optional(batch.committed_at_ms)}};
  if (batch.stats) {
    json["duration_ms"] = batch.stats->duration_ms;
    json["commit_ms"] = batch.stats->commit_ms;
    json["stats"] = StatsJson(*batch.stats);
  } else {
    json["duration_ms"] = nullptr;
    json["commit_ms"] = nullptr;
    json["stats"] = nullptr;
  }
  return json;
}

std::string OrDash(const std::optional<int64_t>& value) {
  return value ? ingest::FormatThousands(*value) : "-";
}

std::string Age(const std::optional<int64_t>& seconds) {
  return seconds ? ingest::FormatSeconds(static_cast<double>(*seconds)) : "-";
}

}  // namespace

Json StatusJson(const PipelineStatus& status) {
  Json json = Json::object();
  json["pipeline"] = status.pipeline;
  json["config"] = status.config_path;
  json["state_dir"] = status.state_dir;
  json["source"] = status.source_uri;
  json["generated_at"] = ingest::FormatUtcMillis(status.now_ms);
  json["generated_at_ms"] = status.now_ms;
  json["running"] = status.running_pid.has_value();
  json["pid"] = Optional(status.running_pid);
  Json tables = Json::array();
  for (const TableStatus& t : status.tables) {
    const MaintenanceStatus& m = t.maintenance;
    Json table{{"source_table", t.source_table},
               {"table", t.target},
               {"state", t.state},
               {"reason", t.reason},
               {"state_since", Time(t.state_since_ms)},
               {"pending_files", t.backlog.pending_files},
               {"pending_bytes", t.backlog.pending_bytes},
               {"oldest_pending_age_seconds", Optional(t.oldest_pending_age_s)},
               {"in_batch_files", t.backlog.in_batch_files},
               {"quarantined_files", t.backlog.quarantined_files},
               {"skipped_files", t.backlog.skipped_files},
               {"open_batch", Optional(t.open_batch_id)},
               {"last_batch", t.last_batch ? BatchJson(*t.last_batch) : Json(nullptr)},
               {"seconds_since_commit", Optional(t.seconds_since_commit)},
               {"last_hour", StatsJson(t.last_hour)},
               {"last_day", StatsJson(t.last_day)},
               {"quarantined_last_hour", t.quarantined_last_hour},
               {"quarantined_last_day", t.quarantined_last_day}};
    table["last_hour"]["quarantined"] = t.quarantined_last_hour;
    table["last_day"]["quarantined"] = t.quarantined_last_day;
    table["maintenance"] =
        Json{{"table_exists", m.table_exists},
             {"snapshot", SnapshotId(m.current_snapshot_id)},
             {"snapshot_at", Time(m.snapshot_timestamp_ms)},
             {"data_files", m.data_files},
             {"delete_files", m.delete_files},
             {"records", m.records},
             {"bytes", m.bytes},
             {"small_files", Optional(m.small_files)},
             {"small_file_ratio", m.small_file_ratio ? Json(*m.small_file_ratio) : Json(nullptr)},
             {"last_compaction", Time(m.last_compaction_ms)},
             {"last_compaction_snapshot", SnapshotId(m.last_compaction_snapshot_id)},
             {"error", m.error.empty() ? Json(nullptr) : Json(m.error)}};
    tables.push_back(std::move(table));
  }
  json["tables"] = std::move(tables);
  Json streams = Json::array();
  for (const ingest::StreamPartitionLag& p : status.streams) {
    streams.push_back(Json{{"topic", p.stream},
                           {"partition", p.partition},
                           {"table", p.table},
                           {"committed", p.committed},
                           {"recorded", p.recorded},
                           {"low", p.low},
                           {"high", p.high},
                           {"lag", p.lag}});
  }
  json["streams"] = status.has_streams ? std::move(streams) : Json(nullptr);
  Json workers = Json::array();
  for (const ingest::WorkerRecord& w : status.workers) {
    workers.push_back(Json{{"worker", w.worker_id},
                           {"host", w.host},
                           {"pid", w.pid},
                           {"started", Time(w.started_at_ms)},
                           {"heartbeat_age_ms", w.heartbeat_age_ms}});
  }
  json["workers"] = status.has_workers ? std::move(workers) : Json(nullptr);
  Json leases = Json::array();
  for (const ingest::LeaseRecord& l : status.leases) {
    leases.push_back(Json{{"table", l.table},
                          {"worker", l.worker_id.empty() ? Json(nullptr) : Json(l.worker_id)},
                          {"epoch", l.epoch},
                          {"held_for_ms", l.worker_id.empty() ? Json(nullptr) : Json(l.held_for_ms)},
                          {"handed_by", l.handed_by.empty() ? Json(nullptr) : Json(l.handed_by)}});
  }
  json["leases"] = status.has_workers ? std::move(leases) : Json(nullptr);
  Json batches = Json::array();
  for (const ingest::BatchRecord& batch : status.recent_batches) batches.push_back(BatchJson(batch));
  json["recent_batches"] = std::move(batches);
  Json quarantined = Json::array();
  for (const ingest::LedgerFile& file : status.quarantined) {
    quarantined.push_back(Json{{"table", file.file.table},
                               {"uri", file.file.uri},
                               {"reason", file.reason},
                               {"at", ingest::FormatUtcMillis(file.updated_at_ms)},
                               {"at_ms", file.updated_at_ms}});
  }
  json["quarantined"] = std::move(quarantined);
  Json runs = Json::array();
  for (const MaintenanceRun& run : status.maintenance_runs) {
    runs.push_back(Json{{"table", run.target},
                        {"kind", run.kind},
                        {"operation", run.operation},
                        {"snapshot", SnapshotId(run.snapshot_id)},
                        {"at", ingest::FormatUtcMillis(run.timestamp_ms)},
                        {"at_ms", run.timestamp_ms}});
  }
  json["maintenance_runs"] = std::move(runs);
  Json history = Json::array();
  for (const HistoryBucket& bucket : status.history) {
    history.push_back(
        Json{{"start", ingest::FormatUtcMillis(bucket.start_ms)},
             {"start_ms", bucket.start_ms},
             {"batches", bucket.batches},
             {"rows", bucket.rows},
             {"max_commit_ms", bucket.max_commit_ms},
             {"avg_commit_ms", bucket.batches > 0 ? bucket.total_commit_ms / bucket.batches : 0}});
  }
  json["history"] = std::move(history);
  json["errors"] = status.errors;
  return json;
}

std::string StatusJsonText(const PipelineStatus& status) {
  return StatusJson(status).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string FormatStatusText(const PipelineStatus& status) {
  std::string out = "pipeline " + status.pipeline + ": " +
                    (status.running_pid ? "running (pid " + std::to_string(*status.running_pid) + ")"
                                        : std::string("not running")) +
                    "\nsource " + status.source_uri + ", state dir " + status.state_dir + "\n\n";
  std::vector<std::vector<std::string>> rows = {{"table", "target", "state", "pending", "bytes", "oldest",
                                                 "last batch", "snapshot", "since commit", "rows 1h",
                                                 "rows 24h", "quarantined 24h", "data files", "delete files",
                                                 "small files", "last compaction"}};
  std::vector<std::string> reasons;
  for (const TableStatus& t : status.tables) {
    const MaintenanceStatus& m = t.maintenance;
    const auto changed = [](const ingest::BatchStats& s) { return s.inserted + s.updated + s.deleted; };
    std::string state = t.state;
    if (t.open_batch_id) state += " (batch " + std::to_string(*t.open_batch_id) + " open)";
    rows.push_back(
        {t.source_table, t.target, state, ingest::FormatThousands(t.backlog.pending_files),
         ingest::FormatByteSize(t.backlog.pending_bytes), Age(t.oldest_pending_age_s),
         t.last_batch ? std::to_string(t.last_batch->batch_id) : "-",
         t.last_batch && t.last_batch->snapshot_id && *t.last_batch->snapshot_id != 0
             ? std::to_string(*t.last_batch->snapshot_id)
             : "-",
         Age(t.seconds_since_commit), ingest::FormatThousands(changed(t.last_hour)),
         ingest::FormatThousands(changed(t.last_day)), ingest::FormatThousands(t.quarantined_last_day),
         m.table_exists ? ingest::FormatThousands(m.data_files) : "-",
         m.table_exists ? ingest::FormatThousands(m.delete_files) : "-",
         m.small_file_ratio ? OrDash(m.small_files) + " (" +
                                  std::to_string(static_cast<int>(*m.small_file_ratio * 100 + 0.5)) + "%)"
                            : OrDash(m.small_files),
         m.last_compaction_ms ? ingest::FormatUtcMillis(*m.last_compaction_ms) : "-"});
    if (!t.reason.empty()) {
      reasons.push_back(t.source_table + " is " + t.state +
                        (t.state_since_ms ? " since " + ingest::FormatUtcMillis(*t.state_since_ms) : "") +
                        ": " + t.reason);
    }
  }
  if (status.tables.empty()) {
    out += "no tables yet (nothing discovered)\n";
  } else {
    out += FormatTextTable(rows, [](size_t column) { return column >= 3 && column != 5 && column != 15; });
  }
  for (const std::string& reason : reasons) out += reason + "\n";
  if (status.has_streams && !status.streams.empty()) {
    std::vector<std::vector<std::string>> streams = {{"partition", "table", "committed", "high", "lag"}};
    int64_t total = 0;
    for (const ingest::StreamPartitionLag& p : status.streams) {
      total += p.lag;
      streams.push_back({p.stream + "[" + p.partition + "]", p.table, std::to_string(p.committed),
                         std::to_string(p.high), std::to_string(p.lag)});
    }
    out += "\n" + FormatTextTable(streams, [](size_t column) { return column >= 2; });
    out += "lag " + ingest::FormatThousands(total) + (total == 1 ? " record\n" : " records\n");
  }
  if (status.has_workers) {
    std::vector<std::vector<std::string>> workers = {{"worker", "pid", "heartbeat", "tables"}};
    for (const ingest::WorkerRecord& w : status.workers) {
      int64_t held = 0;
      for (const ingest::LeaseRecord& l : status.leases) held += l.worker_id == w.worker_id ? 1 : 0;
      workers.push_back({w.worker_id, std::to_string(w.pid),
                         ingest::FormatSeconds(static_cast<double>(w.heartbeat_age_ms) / 1000.0) + " ago",
                         std::to_string(held)});
    }
    out += "\n" + std::to_string(status.workers.size()) +
           (status.workers.size() == 1 ? " worker" : " workers") + " ([state] uri):\n";
    if (!status.workers.empty())
      out += FormatTextTable(workers, [](size_t column) { return column == 1 || column == 3; });
    std::vector<std::vector<std::string>> leases = {{"table", "worker", "epoch", "held for", "handed by"}};
    for (const ingest::LeaseRecord& l : status.leases) {
      leases.push_back(
          {l.table, l.worker_id.empty() ? "-" : l.worker_id, std::to_string(l.epoch),
           l.worker_id.empty() ? "-" : ingest::FormatSeconds(static_cast<double>(l.held_for_ms) / 1000.0),
           l.handed_by.empty() ? "-" : l.handed_by});
    }
    if (!status.leases.empty())
      out += FormatTextTable(leases, [](size_t column) { return column == 2 || column == 3; });
  }
  if (!status.quarantined.empty()) {
    out += "\nquarantined (newest first):\n";
    for (const ingest::LedgerFile& file : status.quarantined) {
      out += "  " + ingest::FormatUtcMillis(file.updated_at_ms) + " " + file.file.table + " " +
             file.file.uri + ": " + file.reason + "\n";
    }
  }
  for (const std::string& error : status.errors) out += "error: " + error + "\n";
  return out;
}

}  // namespace floe::observability
