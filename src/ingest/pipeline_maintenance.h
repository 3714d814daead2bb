// The continuous pipeline's table maintenance off its loop: per-table locks
// shared by ingest batches and maintenance commits, and ONE background worker
// thread that runs queued maintenance with its own catalog connection.
//
// Locking contract: the ingest loop holds a table's lock for a whole batch
// (refresh -> commit); maintenance holds it only inside its commit gate
// (compaction's refresh + new-deletes check + commit, the manifest-rewrite and
// expiry commits), never while rewriting files. So an ingest batch never
// fails or is wasted because of maintenance, and a maintenance commit waits
// for an in-flight batch of its table; an ingest commit that lands during a
// rewrite makes that compaction give up (the ingest data goes first).
//
// Worker contract: Submit queues a table (once: a table already queued is not
// queued twice); runs happen one at a time in submission order, on the
// worker's thread, through the MaintainFn with a gate that takes the table's
// lock. The catalog is opened on the worker thread at its first run (and
// again after a failure to open). Stop() abandons queued runs and makes the
// running one stop at its next step or commit (the gate returns kCancelled
// once stopping, also after waiting for the lock), then joins; the
// destructor stops. Results (one log line per run, the table named) are kept
// for the owner to print (TakeMessages), since the owner's reporter is
// single-threaded; trace events ("maintenance", "maintenance_commit") are
// written from the worker thread (PipelineTrace is thread-safe). After each
// run the worker gives malloc's free memory back to the system (its buffers
// live in its own arena, which the loop's idle trim may have run before).
// Submit, Idle, TakeMessages and Stop are safe from any one owner thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "catalog/table/catalog.h"
#include "common/status.h"
#include "ingest/pipeline.h"
#include "ingest/pipeline_metrics.h"
#include "ingest/pipeline_trace.h"
#include "maintenance/maintenance.h"

namespace floe::ingest {

// The pipeline's [maintenance] settings as the options of a maintenance run
// (`floe maintain` sets dry_run).
maintenance::MaintenanceOptions MaintenanceOptionsFor(const MaintenanceConfig& config, bool dry_run);

// The maintenance a pipeline runs after its commits: src/maintenance's
// MaintainTable with the [maintenance] settings and the pipeline's gate and
// stop hooks; its report joined into one log line.
MaintainFn ConfiguredMaintenance(const MaintenanceConfig& config);

// One mutex per target table (by identifier text), created on first use and
// kept for the owner's lifetime. Thread-safe.
class TableLocks {
 public:
  std::mutex& For(const std::string& table);

 private:
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<std::mutex>> locks_;
};

class MaintenanceWorker {
 public:
  using OpenCatalogFn = std::function<Result<std::unique_ptr<catalog::Catalog>>()>;

  // `locks`, `trace` and `metrics` (null: none) must outlive the worker.
  MaintenanceWorker(MaintainFn maintain, OpenCatalogFn open_catalog, TableLocks& locks, PipelineTrace& trace,
                    PipelineMetrics* metrics = nullptr);
  ~MaintenanceWorker();
  MaintenanceWorker(const MaintenanceWorker&) = delete;
  MaintenanceWorker& operator=(const MaintenanceWorker&) = delete;

  // Run after a successful maintenance run, on the worker thread, with its
  // catalog and gate (the table's key index catching up, TableIngestor::
  // IndexCatchUp); its failure is noted in the run's log line.
  using AfterFn =
      std::function<Status(catalog::Catalog&, const std::function<Status(const std::function<Status()>&)>&)>;
  // Queues the table's maintenance (`why` goes to the trace); false when it
  // was already queued (not yet started) or the worker is stopped.
  // `commit_summary` goes to the run's hooks (MaintenanceHooks::commit_summary).
  bool Submit(const catalog::TableIdentifier& table, const std::string& why, AfterFn after = nullptr,
              MaintenanceCommitSummary commit_summary = nullptr);
  // Nothing queued and nothing running.
  bool Idle() const;
  // Log lines of runs that ended since the last call, oldest first.
  std::vector<std::string> TakeMessages();
  // See the contract; idempotent.
  void Stop();

 private:
  struct Job {
    catalog::TableIdentifier table;
    std::string why;
    AfterFn after;
    MaintenanceCommitSummary commit_summary;
  };
  void Loop();
  void RunJob(const Job& job);
  Status GatedCommit(const std::string& table, const std::function<Status()>& phase);

  const MaintainFn maintain_;
  const OpenCatalogFn open_catalog_;
  TableLocks& locks_;
  PipelineTrace& trace_;
  PipelineMetrics* const metrics_;
  std::unique_ptr<catalog::Catalog> catalog_;  // worker thread only

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool running_job_ = false;
  std::vector<std::string> messages_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;  // started by the first Submit
};

}  // namespace floe::ingest
