#include "observability/pipeline_status.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "iceberg/transaction/snapshot_producer.h"
#include "iceberg/transaction/table_reading.h"
#include "ingest/pipeline.h"
#include "maintenance/maintenance.h"

namespace floe::observability {

namespace {

constexpr int64_t kHourMs = int64_t{3600} * 1000;
constexpr int64_t kDayMs = 24 * kHourMs;
// Maintenance commits listed per table, newest first.
constexpr size_t kMaintenanceRunsPerTable = 10;
// Batches the hourly history reads at most.
constexpr int64_t kHistoryBatches = 20'000;

int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t SummaryInt(const iceberg::Snapshot& snapshot, const char* key) {
  auto it = snapshot.summary.find(key);
  if (it == snapshot.summary.end()) return 0;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return 0;
  }
}

// The table's figures from its current snapshot; maintenance commits into `runs`.
void ReadTable(const ingest::PipelineConfig& config, const std::string& target, const StatusOptions& options,
               MaintenanceStatus* out, std::vector<MaintenanceRun>* runs) {
  auto id = catalog::ParseTableIdentifier(target);
  if (!id.ok()) {
    out->error = id.status().ToString();
    return;
  }
  auto operations = options.catalog->LoadTable(*id);
  if (!operations.ok()) {
    if (operations.status().kind() != ErrorKind::kNotFound) out->error = operations.status().ToString();
    return;  // not created yet
  }
  auto loaded = (*operations)->Load();
  if (!loaded.ok()) {
    out->error = loaded.status().ToString();
    return;
  }
  const iceberg::TableMetadata& metadata = loaded->metadata;
  out->table_exists = true;
  std::vector<const iceberg::Snapshot*> maintenance;
  for (const iceberg::Snapshot& snapshot : metadata.snapshots) {
    auto kind = snapshot.summary.find(maintenance::kMaintenanceSummaryKey);
    if (kind == snapshot.summary.end()) continue;
    maintenance.push_back(&snapshot);
    if (kind->second == "compaction" &&
        (!out->last_compaction_ms || snapshot.timestamp_ms > *out->last_compaction_ms)) {
      out->last_compaction_ms = snapshot.timestamp_ms;
      out->last_compaction_snapshot_id = snapshot.snapshot_id;
    }
  }
  std::sort(maintenance.begin(), maintenance.end(),
            [](const iceberg::Snapshot* a, const iceberg::Snapshot* b) {
              return a->timestamp_ms > b->timestamp_ms;
            });
  for (size_t i = 0; i < maintenance.size() && i < kMaintenanceRunsPerTable; ++i) {
    const iceberg::Snapshot& s = *maintenance[i];
    runs->push_back({target, s.snapshot_id, s.timestamp_ms, s.summary.at(maintenance::kMaintenanceSummaryKey),
                     s.operation()});
  }
  const iceberg::Snapshot* current = metadata.CurrentSnapshot();
  if (current == nullptr) return;
  out->current_snapshot_id = current->snapshot_id;
  out->snapshot_timestamp_ms = current->timestamp_ms;
  out->data_files = SummaryInt(*current, iceberg::summary::kTotalDataFiles);
  out->delete_files = SummaryInt(*current, iceberg::summary::kTotalDeleteFiles);
  out->records = SummaryInt(*current, iceberg::summary::kTotalRecords);
  out->bytes = SummaryInt(*current, iceberg::summary::kTotalFilesSize);
  if (!options.small_files) return;
  if (options.cached_small_files) {
    if (std::optional<int64_t> known = options.cached_small_files(target, current->snapshot_id)) {
      out->small_files = *known;
    }
  }
  if (!out->small_files) {
    int64_t target_size = config.target.target_file_size_bytes;
    if (auto property = metadata.properties.find(maintenance::kTargetFileSizeProperty);
        property != metadata.properties.end()) {
      try {
        target_size = std::stoll(property->second);
      } catch (...) {
      }
    }
    const double threshold = config.maintenance.small_file_ratio * static_cast<double>(target_size);
    auto entries = iceberg::LiveEntries((*operations)->io(), metadata, *current);
    if (!entries.ok()) {
      out->error = "reading the manifests of " + target + ": " + entries.status().ToString();
      return;
    }
    int64_t small = 0;
    for (const iceberg::ManifestEntry& entry : *entries) {
      if (entry.data_file.content == iceberg::DataFileContent::kData &&
          static_cast<double>(entry.data_file.file_size_in_bytes) < threshold) {
        ++small;
      }
    }
    out->small_files = small;
  }
  if (out->data_files > 0) {
    out->small_file_ratio = static_cast<double>(*out->small_files) / static_cast<double>(out->data_files);
  }
}

}  // namespace

std::optional<int64_t> RunningPid(const std::string& state_dir) {
  // The ledger's writer holds an flock on ledger.lock for its lifetime; the
  // kernel lists it in /proc/locks ("1: FLOCK ADVISORY WRITE <pid>
  // <major>:<minor>:<inode> 0 EOF"). Read, never taken: taking it, even for
  // a moment, could make a starting `floe run` fail.
  struct stat lock {};
  const std::string path = (std::filesystem::path(state_dir) / "ledger.lock").string();
  if (::stat(path.c_str(), &lock) != 0) return std::nullopt;
  char device[64];
  std::snprintf(device, sizeof(device), "%02x:%02x:%llu", major(lock.st_dev), minor(lock.st_dev),
                static_cast<unsigned long long>(lock.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, pid, file;
    if (!(fields >> number >> kind)) continue;
    if (kind == "->") fields >> kind;  // a waiter on the lock above
    if (!(fields >> mode >> access >> pid >> file)) continue;
    if (kind != "FLOCK" || file != device) continue;
    try {
      return std::stoll(pid);
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Result<PipelineStatus> ComputePipelineStatus(const ingest::PipelineConfig& config, ingest::Ledger& ledger,
                                             const StatusOptions& options) {
  PipelineStatus status;
  status.pipeline = config.name;
  status.config_path = config.config_path;
  status.state_dir = config.state_dir;
  status.source_uri = config.source.uri;
  status.now_ms = options.now_ms != 0 ? options.now_ms : SystemNowMs();
  status.running_pid = RunningPid(config.state_dir);
  const int64_t now = status.now_ms;

  FLOE_ASSIGN_OR_RETURN(auto backlog, ledger.Backlog());
  FLOE_ASSIGN_OR_RETURN(auto last_batches, ledger.LastCommittedBatches());
  FLOE_ASSIGN_OR_RETURN(auto hour, ledger.CommittedSince(now - kHourMs));
  FLOE_ASSIGN_OR_RETURN(auto day, ledger.CommittedSince(now - kDayMs));
  FLOE_ASSIGN_OR_RETURN(auto quarantined_hour, ledger.QuarantinedSince(now - kHourMs));
  FLOE_ASSIGN_OR_RETURN(auto quarantined_day, ledger.QuarantinedSince(now - kDayMs));
  FLOE_ASSIGN_OR_RETURN(auto conditions, ledger.TableConditions());
  FLOE_ASSIGN_OR_RETURN(auto open_batches, ledger.OpenBatches());
  FLOE_ASSIGN_OR_RETURN(status.recent_batches, ledger.RecentBatches(0, options.recent_batches));
  FLOE_ASSIGN_OR_RETURN(status.quarantined,
                        ledger.NewestFiles(ingest::FileState::kQuarantined, options.recent_quarantined));

  std::set<std::string> names;
  for (const auto& [name, unused] : backlog) names.insert(name);
  for (const auto& [name, unused] : last_batches) names.insert(name);
  for (const auto& [name, unused] : conditions) names.insert(name);
  for (const ingest::LedgerBatch& batch : open_batches) names.insert(batch.table);

  status.has_workers = !config.state_uri.empty();
  if (status.has_workers) {
    auto workers = ingest::WorkerLeases::Read(config.state_uri, config.name);
    if (workers.ok()) {
      status.workers = std::move(workers->first);
      status.leases = std::move(workers->second);
    } else {
      status.errors.push_back("workers: " + workers.status().ToString());
    }
  }

  status.has_streams = config.source.discovery == ingest::DiscoveryKind::kKafka;
  if (status.has_streams) {
    Result<std::vector<ingest::StreamPartitionLag>> lag = std::vector<ingest::StreamPartitionLag>();
    if (options.stream_lag) {
      lag = *options.stream_lag;
    } else if (options.query_streams) {
      lag = ingest::QueryStreamLag(config, ledger);
    }
    if (lag.ok()) {
      status.streams = std::move(*lag);
      for (const auto& partition : status.streams) names.insert(partition.table);
    } else {
      status.errors.push_back("stream positions: " + lag.status().ToString());
    }
  }

  for (const std::string& name : names) {
    TableStatus table;
    table.source_table = name;
    auto target = ingest::TargetTableOf(config, name);
    table.target = target.ok() ? target->ToString() : "";
    if (auto it = backlog.find(name); it != backlog.end()) table.backlog = it->second;
    if (table.backlog.oldest_pending_ms) {
      table.oldest_pending_age_s = std::max<int64_t>(0, (now - *table.backlog.oldest_pending_ms) / 1000);
    }
    for (const ingest::LedgerBatch& batch : open_batches) {
      if (batch.table == name) table.open_batch_id = batch.batch_id;
    }
    if (auto it = last_batches.find(name); it != last_batches.end()) {
      table.last_batch = it->second;
      if (it->second.committed_at_ms) {
        table.seconds_since_commit = std::max<int64_t>(0, (now - *it->second.committed_at_ms) / 1000);
      }
    }
    if (auto it = hour.find(name); it != hour.end()) table.last_hour = it->second;
    if (auto it = day.find(name); it != day.end()) table.last_day = it->second;
    if (auto it = quarantined_hour.find(name); it != quarantined_hour.end())
      table.quarantined_last_hour = it->second;
    if (auto it = quarantined_day.find(name); it != quarantined_day.end())
      table.quarantined_last_day = it->second;
    if (auto it = conditions.find(name); it != conditions.end()) {
      table.state = it->second.state;
      table.reason = it->second.reason;
      table.state_since_ms = it->second.since_ms;
    } else if (table.open_batch_id) {
      table.state = "ingesting";
    } else if (table.backlog.pending_files > 0) {
      table.state = "pending";
    } else {
      table.state = "ok";
    }
    if (options.catalog != nullptr && !table.target.empty()) {
      ReadTable(config, table.target, options, &table.maintenance, &status.maintenance_runs);
      if (!table.maintenance.error.empty()) {
        status.errors.push_back("table " + table.target + ": " + table.maintenance.error);
      }
    }
    status.tables.push_back(std::move(table));
  }
  std::sort(status.maintenance_runs.begin(), status.maintenance_runs.end(),
            [](const MaintenanceRun& a, const MaintenanceRun& b) { return a.timestamp_ms > b.timestamp_ms; });

  // Hourly buckets, oldest first, ending with the current hour.
  const int64_t hours = std::max<int64_t>(1, options.history_hours);
  const int64_t first_start = (now / kHourMs - (hours - 1)) * kHourMs;
  for (int64_t i = 0; i < hours; ++i) status.history.push_back({first_start + i * kHourMs, 0, 0, 0, 0});
  FLOE_ASSIGN_OR_RETURN(auto window, ledger.RecentBatches(first_start, kHistoryBatches));
  for (const ingest::BatchRecord& batch : window) {
    if (!batch.committed || !batch.committed_at_ms || *batch.committed_at_ms < first_start) continue;
    const int64_t index = (*batch.committed_at_ms - first_start) / kHourMs;
    if (index < 0 || index >= hours) continue;
    HistoryBucket& bucket = status.history[static_cast<size_t>(index)];
    ++bucket.batches;
    if (batch.stats) {
      bucket.rows += batch.stats->inserted + batch.stats->updated + batch.stats->deleted;
      bucket.max_commit_ms = std::max(bucket.max_commit_ms, batch.stats->commit_ms);
      bucket.total_commit_ms += batch.stats->commit_ms;
    }
  }
  return status;
}

}  // namespace floe::observability
