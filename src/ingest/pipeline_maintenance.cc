#include "ingest/pipeline_maintenance.h"

#include <exception>
#include <utility>

#include "common/malloc_tuning.h"

namespace floe::ingest {

maintenance::MaintenanceOptions MaintenanceOptionsFor(const MaintenanceConfig& config, bool dry_run) {
  maintenance::MaintenanceOptions options;
  options.dry_run = dry_run;
  options.rewrite_manifests = config.rewrite_manifests;
  options.compaction.min_input_files = static_cast<int>(config.min_input_files);
  options.compaction.small_file_ratio = config.small_file_ratio;
  options.compaction.delete_ratio_threshold = config.delete_ratio_threshold;
  options.compaction.max_delete_files = static_cast<int>(config.max_delete_files);
  options.compaction.sort_columns = config.sort_by;
  options.expire.retain_last = static_cast<int>(config.retain_last);
  options.expire.max_snapshot_age_ms = config.max_snapshot_age_ms;
  options.orphans.older_than_ms = config.orphan_older_than_ms;
  return options;
}

MaintainFn ConfiguredMaintenance(const MaintenanceConfig& config) {
  const maintenance::MaintenanceOptions options = MaintenanceOptionsFor(config, /*dry_run=*/false);
  return [options](catalog::Catalog& tables, const catalog::TableIdentifier& id,
                   const MaintenanceHooks& hooks) -> Result<std::string> {
    maintenance::MaintenanceOptions run = options;
    run.commit_gate = hooks.commit_gate;
    run.stop_requested = hooks.stop_requested;
    run.commit_summary = hooks.commit_summary;
    FLOE_ASSIGN_OR_RETURN(maintenance::MaintenanceReport report, maintenance::MaintainTable(tables, id, run));
    std::string line = report.ToString();
    for (char& c : line) {
      if (c == '\n') c = ';';
    }
    return line;
  };
}

std::mutex& TableLocks::For(const std::string& table) {
  std::lock_guard<std::mutex> guard(mutex_);
  std::unique_ptr<std::mutex>& lock = locks_[table];
  if (lock == nullptr) lock = std::make_unique<std::mutex>();
  return *lock;
}

MaintenanceWorker::MaintenanceWorker(MaintainFn maintain, OpenCatalogFn open_catalog, TableLocks& locks,
                                     PipelineTrace& trace, PipelineMetrics* metrics)
    : maintain_(std::move(maintain)),
      open_catalog_(std::move(open_catalog)),
      locks_(locks),
      trace_(trace),
      metrics_(metrics) {}

MaintenanceWorker::~MaintenanceWorker() {
  Stop();
}

bool MaintenanceWorker::Submit(const catalog::TableIdentifier& table, const std::string& why, AfterFn after,
                               MaintenanceCommitSummary commit_summary) {
  std::lock_guard<std::mutex> guard(mutex_);
  if (stopping_.load()) return false;
  const std::string key = table.ToString();
  for (const Job& queued : queue_) {
    if (queued.table.ToString() == key) return false;
  }
  queue_.push_back(Job{table, why, std::move(after), std::move(commit_summary)});
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  wake_.notify_one();
  return true;
}

bool MaintenanceWorker::Idle() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return queue_.empty() && !running_job_;
}

std::vector<std::string> MaintenanceWorker::TakeMessages() {
  std::lock_guard<std::mutex> guard(mutex_);
  return std::exchange(messages_, {});
}

void MaintenanceWorker::Stop() {
  {
    // Set under the mutex so the worker cannot miss the wake-up between its check and its wait.
    std::lock_guard<std::mutex> guard(mutex_);
    stopping_.store(true);
    queue_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MaintenanceWorker::Loop() {
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> guard(mutex_);
      wake_.wait(guard, [this] { return stopping_.load() || !queue_.empty(); });
      if (stopping_.load()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      running_job_ = true;
    }
    RunJob(job);
    std::lock_guard<std::mutex> guard(mutex_);
    running_job_ = false;
  }
}

Status MaintenanceWorker::GatedCommit(const std::string& table, const std::function<Status()>& phase) {
  auto abandoned = [&table] {
    return Status(ErrorKind::kCancelled,
                  "the pipeline is stopping: a maintenance commit of " + table + " was abandoned");
  };
  if (stopping_.load()) return abandoned();
  const double wait_start_ms = PipelineTrace::NowMs();
  std::lock_guard<std::mutex> held(locks_.For(table));
  const double hold_start_ms = PipelineTrace::NowMs();
  // The loop finishes its batch before stopping; the wait may have ended because of that.
  if (stopping_.load()) return abandoned();
  Status status = phase();
  trace_.Write("maintenance_commit", {{"table", table},
                                      {"start", wait_start_ms},
                                      {"wait_ms", hold_start_ms - wait_start_ms},
                                      {"ms", PipelineTrace::NowMs() - hold_start_ms},
                                      {"ok", status.ok()}});
  return status;
}

void MaintenanceWorker::RunJob(const Job& job) {
  const std::string key = job.table.ToString();
  const double start_ms = PipelineTrace::NowMs();
  Result<std::string> report = [&]() -> Result<std::string> {
    if (catalog_ == nullptr) {
      auto opened = open_catalog_();
      if (!opened.ok()) return opened.status().WithContext("opening the maintenance catalog connection");
      catalog_ = std::move(*opened);
    }
    MaintenanceHooks hooks;
    hooks.commit_gate = [this, &key](const std::function<Status()>& phase) {
      return GatedCommit(key, phase);
    };
    hooks.stop_requested = [this] { return stopping_.load(); };
    hooks.commit_summary = job.commit_summary;
    // A thread boundary: nothing thrown below may end the process.
    try {
      auto maintained = maintain_(*catalog_, job.table, hooks);
      if (maintained.ok() && job.after) {
        Status after = job.after(*catalog_, hooks.commit_gate);
        if (!after.ok())
          *maintained += "; key index not caught up (the next batch does it): " + after.ToString();
      }
      return maintained;
    } catch (const std::exception& e) {
      return Status::Internal(std::string("maintenance threw: ") + e.what());
    }
  }();
  const double elapsed_ms = PipelineTrace::NowMs() - start_ms;
  std::string line = "maintenance " + key + " (" + job.why + ", background): ";
  if (report.ok()) {
    line += *report;
  } else if (report.status().kind() == ErrorKind::kCancelled) {
    line += "abandoned: " + report.status().ToString();
  } else {
    line += "failed, ingestion goes on: " + report.status().ToString();
    // A broken connection is not reused; the next run opens a new one.
    if (report.status().kind() == ErrorKind::kIOError) catalog_.reset();
  }
  line += " (" + std::to_string(static_cast<int64_t>(elapsed_ms)) + " ms)";
  if (metrics_ != nullptr && report.status().kind() != ErrorKind::kCancelled) {
    metrics_->MaintenanceDone(key, report.ok(), elapsed_ms / 1000.0,
                              static_cast<int64_t>(PipelineTrace::NowMs()));
  }
  trace_.Write("maintenance", {{"table", key},
                               {"why", job.why},
                               {"background", true},
                               {"start", start_ms},
                               {"ms", elapsed_ms},
                               {"ok", report.ok()}});
  // The run's buffers came from this thread's malloc arena, which the loop's
  // trim when it goes idle may have passed before they were freed.
  ReleaseFreeHeapMemory();
  std::lock_guard<std::mutex> guard(mutex_);
  messages_.push_back(std::move(line));
}

}  // namespace floe::ingest
