// Scale-out through the whole pipeline, against a real PostgreSQL server
// (FLOE_TEST_PG_URI; skipped with a message without it): worker A is held in
// the middle of a batch (its first data file's creation blocks), declared
// dead, and worker B takes its table over, resolves A's open batch and
// commits everything. Released, A must commit nothing: its commit is refused
// in the SQL catalog's own transaction, the table holds each key once, and
// the history's lease epochs never go back.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "ingest/batch_recovery.h"
#include "ingest/pipeline_maintenance.h"
#include "ingest/state/worker_leases.h"
#include "io/forwarding_file_io.h"
#include "maintenance/maintenance.h"
#include "pipeline_test_util.h"
#include "sql/sql_connection.h"
#include "unit/ingest_state/ledger_backends.h"

namespace floe::ingest::pipeline_testing {
namespace {

// A FileIO whose Create of a table data file blocks, once armed, until released.
class GateFileIO final : public ForwardingFileIO {
 public:
  struct Gate {
    std::mutex mutex;
    std::condition_variable changed;
    int pass_first = 0;  // data files created before the gate holds one
    bool holding = false;
    bool released = false;
  };
  GateFileIO(std::shared_ptr<FileIO> base, std::shared_ptr<Gate> gate)
      : ForwardingFileIO(std::move(base)), gate_(std::move(gate)) {}

  Result<std::unique_ptr<OutputFile>> Create(const std::string& path, CreateOptions options) override {
    if (path.find("/data/") != std::string::npos) {
      std::unique_lock lock(gate_->mutex);
      if (gate_->pass_first > 0) {
        --gate_->pass_first;
      } else if (!gate_->released) {
        gate_->holding = true;
        gate_->changed.notify_all();
        gate_->changed.wait(lock, [&] { return gate_->released; });
      }
    }
    return base().Create(path, options);
  }

 private:
  std::shared_ptr<Gate> gate_;
};

// The worker id a pipeline's log names when it joins ("scale-out: worker <id> joined ...").
std::string ExtractWorkerId(const std::string& log) {
  const size_t named = log.find("scale-out: worker ");
  if (named == std::string::npos) return "";
  const size_t start = named + 18;
  return log.substr(start, log.find(' ', start) - start);
}

class PipelineWorkersTest : public PipelineTest {
 protected:
  void SetUp() override {
    PipelineTest::SetUp();
    uri_ = PostgresTestUri();
    if (uri_.empty()) GTEST_SKIP() << kNoPostgresMessage;
    config_.name = TestPipelineName("p");
    config_.state_uri = uri_;
    config_.catalog.type = "sql";
    config_.catalog.uri = uri_;  // the ledger's database: fenced inside the commit transaction
    config_.catalog.name = config_.name;
  }
  void TearDown() override {
    if (held_thread_.joinable()) {
      Release();
      held_thread_.join();
    }
    worker_b_.reset();  // they leave while their schema exists
    worker_a_.reset();
    if (uri_.empty()) return;
    DropPipelineSchema(uri_, config_.name);
    auto connection = sql::OpenSqlConnection(uri_);
    if (!connection.ok()) return;
    (void)(*connection)->Execute("DELETE FROM iceberg_tables WHERE catalog_name = ?1", {config_.name});
    (void)(*connection)
        ->Execute("DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1", {config_.name});
  }

  // Where worker A is held.
  enum class HoldAt {
    kSecondBatch,  // the first data file of its second batch
    kMaintenance,  // the start of its maintenance run, after both batches committed
  };

  // Worker A commits its first batch, is held (`at`), and is declared dead
  // (its worker row removed, as the others do once its heartbeat is older
  // than lease_timeout).
  void HoldWorkerAAndDeclareItDead(HoldAt at = HoldAt::kSecondBatch) {
    WriteFirstExport();
    PipelineConfig config = config_;
    config.state_dir = (dir_.path() / "state-a").string();
    config.trigger.max_files_per_batch = 1;  // two batches
    PipelineOptions options;
    options.log = &log_a_;
    if (at == HoldAt::kSecondBatch) {
      gate_->pass_first = 1;  // the first batch inserts: one data file
      options.wrap_file_io = [gate = gate_](std::shared_ptr<FileIO> base) {
        return std::make_shared<GateFileIO>(std::move(base), gate);
      };
    } else {
      // Maintenance after the second commit: the update and the delete left
      // 2 of the first file's 3 rows deleted, which compaction rewrites.
      config.maintenance.enabled = true;
      config.maintenance.compact_every = 2;
      config.maintenance.min_input_files = 2;
      options.maintain = [gate = gate_, maintain = ConfiguredMaintenance(config.maintenance)](
                             catalog::Catalog& tables, const catalog::TableIdentifier& id,
                             const MaintenanceHooks& hooks) {
        {
          std::unique_lock lock(gate->mutex);
          gate->holding = true;
          gate->changed.notify_all();
          gate->changed.wait(lock, [&] { return gate->released; });
        }
        return maintain(tables, id, hooks);
      };
    }
    auto opened = Pipeline::Open(config, options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    worker_a_ = std::move(*opened);
    held_thread_ = std::thread([this, at] {
      auto summary = worker_a_->RunOnce();
      EXPECT_TRUE(summary.ok()) << summary.status().ToString();
      if (summary.ok()) {
        EXPECT_EQ(summary->batches_committed, at == HoldAt::kSecondBatch ? 1 : 2) << log_a_.str();
      }
    });
    {
      std::unique_lock lock(gate_->mutex);
      ASSERT_TRUE(gate_->changed.wait_for(lock, std::chrono::seconds(20), [&] { return gate_->holding; }))
          << "worker A was never held:\n"
          << log_a_.str();
    }
    const std::string id = ExtractWorkerId(log_a_.str());
    ASSERT_FALSE(id.empty()) << log_a_.str();
    auto admin = sql::OpenSqlConnection(uri_);
    ASSERT_TRUE(admin.ok()) << admin.status().ToString();
    auto removed = (*admin)->Execute(
        "DELETE FROM \"floe_ledger_" + config_.name + "\".workers WHERE worker_id = ?1", {id});
    ASSERT_TRUE(removed.ok()) << removed.status().ToString();
    ASSERT_EQ(removed->rows_affected, 1) << id;
  }

  // Lets worker A go on and waits for its RunOnce to end.
  void Release() {
    {
      std::lock_guard lock(gate_->mutex);
      gate_->released = true;
    }
    gate_->changed.notify_all();
  }
  void ReleaseAndJoinWorkerA() {
    Release();
    held_thread_.join();
  }

  // The table's lease epochs along its history (ingest and maintenance
  // snapshots), each ingest batch id once.
  std::vector<int64_t> EpochsOfHistory(const std::string& name) {
    std::vector<int64_t> epochs;
    auto table = LoadTable(name);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) return epochs;
    std::set<std::string> batches;
    for (const iceberg::Snapshot& snapshot : table->metadata().snapshots) {
      auto epoch = snapshot.summary.find(kSummaryLeaseEpoch);
      EXPECT_NE(epoch, snapshot.summary.end()) << snapshot.snapshot_id;
      if (epoch != snapshot.summary.end()) epochs.push_back(std::stoll(epoch->second));
      if (snapshot.summary.count(maintenance::kMaintenanceSummaryKey)) continue;
      EXPECT_TRUE(batches.insert(snapshot.summary.at(kSummaryBatchId)).second);
    }
    return epochs;
  }

  std::string RunABusyAndAnIdleWorker(bool tables_have_rows);

  const std::vector<std::string> kSixTables = {"cc_a", "cc_b", "cc_c", "cc_d", "cc_e", "cc_f"};
  int64_t a_batches_ = -1;  // worker A's batches in RunABusyAndAnIdleWorker
  std::unique_ptr<Pipeline> worker_b_;
  std::string uri_;
  std::shared_ptr<GateFileIO::Gate> gate_ = std::make_shared<GateFileIO::Gate>();
  std::ostringstream log_a_;
  std::unique_ptr<Pipeline> worker_a_;
  std::thread held_thread_;
};

TEST_F(PipelineWorkersTest, AWorkerHeldMidBatchAndDeclaredDeadCommitsNothingWhileTheNewOwnerRedoesItsBatch) {
  ASSERT_NO_FATAL_FAILURE(HoldWorkerAAndDeclareItDead());
  // B takes the table over: A's open batch is released and redone, everything commits.
  std::ostringstream log_b;
  PipelineOptions options_b;
  options_b.log = &log_b;
  PipelineConfig config_b = config_;
  config_b.state_dir = (dir_.path() / "state-b").string();
  ASSERT_OK_AND_ASSIGN(auto worker_b, Pipeline::Open(config_b, options_b));
  ASSERT_OK_AND_ASSIGN(RunSummary summary_b, worker_b->RunOnce());
  EXPECT_EQ(summary_b.tables["cc_claim"].recovered_batches, 1) << log_b.str();
  EXPECT_GE(summary_b.batches_committed, 1) << log_b.str();
  EXPECT_NE(log_b.str().find("scale-out: took default.cc_claim"), std::string::npos) << log_b.str();
  const size_t snapshots_before = SnapshotCount("cc_claim");

  ReleaseAndJoinWorkerA();
  // Refused by whichever check came first: the table moved under its commit
  // (B's commit), the catalog's fence, or the ledger's when it recorded the failure.
  EXPECT_NE(log_a_.str().find("scale-out: table cc_claim: "), std::string::npos) << log_a_.str();
  EXPECT_EQ(SnapshotCount("cc_claim"), snapshots_before);
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {2, "two v2"}}));
  EXPECT_EQ(FilesIn(*worker_b, "cc_claim", FileState::kCommitted),
            (std::vector<std::string>{"cc_claim/1/1000/part-0.parquet", "cc_claim/1/2000/part-1.parquet"}));
  EXPECT_EQ(EpochsOfHistory("cc_claim"), (std::vector<int64_t>{1, 2}));  // one owner at a time
}

// Six tables, one file each. With `tables_have_rows`, a worker alone loads
// them first (and leaves), and a second file per table lands. Then worker A
// (a share of three) is held in its first table's batch while worker B, in
// a continuous run, commits its own three and says it wants work; A is then
// released and both finish. Returns B's log; A's is log_a_.
std::string PipelineWorkersTest::RunABusyAndAnIdleWorker(bool tables_have_rows) {
  std::map<std::string, int64_t> manifest;
  for (const std::string& name : kSixTables) {
    WriteCdaFile(name, "1", 1000, "part-0.parquet", {{1, "a", 0, "one " + name}});
    manifest[name] = 1000;
  }
  WriteManifest(manifest);
  int64_t files = 6;
  if (tables_have_rows) {
    PipelineConfig config_first = config_;
    config_first.state_dir = (dir_.path() / "state-first").string();
    std::ostringstream log_first;
    PipelineOptions options_first;
    options_first.log = &log_first;
    auto first = Pipeline::Open(config_first, options_first);
    EXPECT_TRUE(first.ok()) << first.status().ToString();
    if (!first.ok()) return "";
    auto loaded = (*first)->RunOnce();
    EXPECT_TRUE(loaded.ok() && loaded->batches_committed == 6);
    first->reset();  // leaves: its tables are free
    for (const std::string& name : kSixTables) {
      WriteCdaFile(name, "1", 2000, "part-0.parquet", {{1, "b", 4, "two " + name}});
      manifest[name] = 2000;
    }
    WriteManifest(manifest);
    files = 12;
  }
  PipelineConfig config_a = config_;
  config_a.state_dir = (dir_.path() / "state-a").string();
  PipelineOptions options_a;
  options_a.log = &log_a_;
  options_a.wrap_file_io = [gate = gate_](std::shared_ptr<FileIO> base) {
    return std::make_shared<GateFileIO>(std::move(base), gate);
  };
  PipelineConfig config_b = config_;
  config_b.state_dir = (dir_.path() / "state-b").string();
  config_b.trigger.interval_ms = 50;
  std::ostringstream log_b;
  PipelineOptions options_b;
  options_b.log = &log_b;
  // Both registered before either balances: a share of three tables each.
  auto opened_a = Pipeline::Open(config_a, options_a);
  auto opened_b = Pipeline::Open(config_b, options_b);
  EXPECT_TRUE(opened_a.ok() && opened_b.ok());
  if (!opened_a.ok() || !opened_b.ok()) return "";
  worker_a_ = std::move(*opened_a);
  worker_b_ = std::move(*opened_b);  // kept until the test ends: a worker that goes gives its leases up
  held_thread_ = std::thread([this] {
    auto summary = worker_a_->RunOnce();
    EXPECT_TRUE(summary.ok()) << summary.status().ToString();
    if (summary.ok()) a_batches_ = summary->batches_committed;
  });
  {
    std::unique_lock lock(gate_->mutex);
    EXPECT_TRUE(gate_->changed.wait_for(lock, std::chrono::seconds(20), [&] { return gate_->holding; }))
        << "worker A never started a batch";
  }
  auto admin = sql::OpenSqlConnection(uri_);
  EXPECT_TRUE(admin.ok());
  if (!admin.ok()) return "";
  const std::string schema = "\"floe_ledger_" + config_.name + "\"";
  auto query_count = [&](const std::string& sql) -> int64_t {
    auto result = (*admin)->Execute(sql);
    if (!result.ok() || result->rows.empty() || !result->rows[0][0]) return -1;
    return std::stoll(*result->rows[0][0]);
  };
  BackgroundRun run_b(*worker_b_);
  // B commits its three tables, then its polls find nothing of its own.
  EXPECT_TRUE(Eventually(
      [&] { return query_count("SELECT count(*) FROM " + schema + ".workers WHERE wants_work") == 1; },
      std::chrono::seconds(20)))
      << "worker B never said it wants work:\n"
      << log_b.str();
  ReleaseAndJoinWorkerA();
  EXPECT_TRUE(Eventually(
      [&] {
        return query_count("SELECT count(*) FROM " + schema + ".files WHERE state = 'committed'") == files;
      },
      std::chrono::seconds(20)))
      << "not every file was committed:\n"
      << log_a_.str() << log_b.str();
  run_b.Finish();
  EXPECT_TRUE(run_b.result().ok()) << run_b.result().status().ToString();
  return log_b.str();
}

// A first load (no rows yet): released, A starts its second table and hands
// B the third, and B commits it at its next poll. Every table once, one owner
// at a time, and the handed table still counts in A's share (nothing is
// released afterwards).
TEST_F(PipelineWorkersTest, AnIdleWorkerIsHandedATableTheBusyOneHasNotStarted) {
  const std::string log_b = RunABusyAndAnIdleWorker(/*tables_have_rows=*/false);
  EXPECT_EQ(a_batches_, 2);  // the third went to B
  const std::string text_a = log_a_.str();
  const size_t handed_at = text_a.find("scale-out: handed default.");
  ASSERT_NE(handed_at, std::string::npos) << text_a;
  const std::string handed =
      text_a.substr(handed_at + 26, text_a.find(' ', handed_at + 26) - (handed_at + 26));
  EXPECT_NE(log_b.find("scale-out: default." + handed + " was handed over by another worker (lease epoch 2)"),
            std::string::npos)
      << log_b;
  for (const std::string& name : kSixTables) {
    EXPECT_EQ(Rows(name), (std::map<int64_t, std::string>{{1, "one " + name}})) << name;
    EXPECT_EQ(SnapshotCount(name), 1u) << name;
  }
  EXPECT_EQ(EpochsOfHistory(handed), (std::vector<int64_t>{2}));  // granted to A, then handed to B
  ASSERT_OK_AND_ASSIGN(auto view, WorkerLeases::Read(uri_, config_.name));
  std::map<std::string, int> held_by;
  for (const LeaseRecord& lease : view.second) ++held_by[lease.worker_id];
  // Nothing was released: A holds two, B its three and the handed one.
  EXPECT_EQ(held_by,
            (std::map<std::string, int>{{ExtractWorkerId(log_a_.str()), 2}, {ExtractWorkerId(log_b), 4}}));
  // `floe status` names the giver of the handed table.
  for (const LeaseRecord& lease : view.second) {
    EXPECT_EQ(lease.handed_by, lease.table == "default." + handed ? ExtractWorkerId(log_a_.str()) : "")
        << lease.table;
  }
}

// Tables with rows are never handed over (the taker would first build the
// key index from the whole table): A commits all three of its tables.
TEST_F(PipelineWorkersTest, ATableWithRowsIsNotHandedOver) {
  const std::string log_b = RunABusyAndAnIdleWorker(/*tables_have_rows=*/true);
  EXPECT_EQ(a_batches_, 3);
  EXPECT_EQ(log_a_.str().find("scale-out: handed"), std::string::npos) << log_a_.str();
  for (const std::string& name : kSixTables) {
    EXPECT_EQ(Rows(name), (std::map<int64_t, std::string>{{1, "two " + name}})) << name;
  }
}

// Nothing else committed meanwhile, so only the lease stands between the
// zombie's commit and the table: the SQL catalog's fence refuses it.
TEST_F(PipelineWorkersTest, TheCatalogFenceRefusesAZombieCommitThatNothingElseWouldStop) {
  ASSERT_NO_FATAL_FAILURE(HoldWorkerAAndDeclareItDead());
  ASSERT_OK_AND_ASSIGN(auto taker, WorkerLeases::Join({uri_, config_.name, 30'000}));
  ASSERT_OK_AND_ASSIGN(LeaseBalance took, taker->Balance({"default.cc_claim"}));
  ASSERT_EQ(took.gained.size(), 1u);
  const size_t snapshots_before = SnapshotCount("cc_claim");

  ReleaseAndJoinWorkerA();
  EXPECT_NE(log_a_.str().find("refused: worker"), std::string::npos) << log_a_.str();
  EXPECT_NE(log_a_.str().find("no longer holds the lease of epoch 1"), std::string::npos) << log_a_.str();
  EXPECT_EQ(SnapshotCount("cc_claim"), snapshots_before);
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {2, "two"}, {3, "three"}}));
  EXPECT_EQ(EpochsOfHistory("cc_claim"), (std::vector<int64_t>{1}));
}

// Maintenance commits are fenced like ingest commits: a worker that lost
// its table while its compaction ran commits nothing (the catalog's fence),
// and says so in its log; ingestion's result stands.
TEST_F(PipelineWorkersTest, AMaintenanceCommitOfAWorkerThatLostItsLeaseIsRefused) {
  ASSERT_NO_FATAL_FAILURE(HoldWorkerAAndDeclareItDead(HoldAt::kMaintenance));
  ASSERT_OK_AND_ASSIGN(auto taker, WorkerLeases::Join({uri_, config_.name, 30'000}));
  ASSERT_OK_AND_ASSIGN(LeaseBalance took, taker->Balance({"default.cc_claim"}));
  ASSERT_EQ(took.gained.size(), 1u);
  const size_t snapshots_before = SnapshotCount("cc_claim");
  ASSERT_EQ(snapshots_before, 2u);

  ReleaseAndJoinWorkerA();
  const std::string log = log_a_.str();
  EXPECT_NE(log.find("maintenance default.cc_claim: failed, ingestion goes on"), std::string::npos) << log;
  EXPECT_NE(log.find("no longer holds the lease of epoch 1"), std::string::npos) << log;
  EXPECT_EQ(SnapshotCount("cc_claim"), snapshots_before);
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {2, "two v2"}}));
  EXPECT_EQ(EpochsOfHistory("cc_claim"), (std::vector<int64_t>{1, 1}));
}

// A worker's maintenance snapshots carry the lease epoch it commits under,
// like its ingest snapshots, so a table's history says which owner made each.
TEST_F(PipelineWorkersTest, MaintenanceSnapshotsCarryTheLeaseEpoch) {
  WriteFirstExport();
  PipelineConfig config = config_;
  config.state_dir = (dir_.path() / "state").string();
  config.trigger.max_files_per_batch = 1;
  config.maintenance.enabled = true;
  config.maintenance.compact_every = 2;
  config.maintenance.min_input_files = 2;
  std::ostringstream log;
  PipelineOptions options;
  options.log = &log;
  ASSERT_OK_AND_ASSIGN(auto worker, Pipeline::Open(config, options));
  ASSERT_OK_AND_ASSIGN(RunSummary summary, worker->RunOnce());
  EXPECT_EQ(summary.batches_committed, 2) << log.str();
  ASSERT_OK_AND_ASSIGN(auto table, LoadTable("cc_claim"));
  std::vector<std::string> maintenance_kinds;
  for (const iceberg::Snapshot& snapshot : table.metadata().snapshots) {
    auto kind = snapshot.summary.find(maintenance::kMaintenanceSummaryKey);
    if (kind != snapshot.summary.end()) maintenance_kinds.push_back(kind->second);
  }
  EXPECT_EQ(maintenance_kinds, (std::vector<std::string>{"compaction", "rewrite-manifests"})) << log.str();
  EXPECT_EQ(EpochsOfHistory("cc_claim"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {2, "two v2"}}));
}

}  // namespace
}  // namespace floe::ingest::pipeline_testing
