// MaintenanceWorker and TableLocks (pipeline_maintenance.h): a commit phase
// waits for its table's lock (an in-flight batch) and only for its own
// table's; runs are queued once per table and run in order; Stop abandons
// queued runs and refuses a commit whose lock wait ended after the stop; a
// catalog that cannot be opened is reported and opened again next time.
#include "ingest/pipeline_maintenance.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pipeline_test_util.h"

namespace floe::ingest {
namespace {

using pipeline_testing::Eventually;
using pipeline_testing::Latch;
using pipeline_testing::TraceEvents;

constexpr auto kPatience = std::chrono::seconds(20);

class MaintenanceWorkerTest : public ::testing::Test {
 protected:
  MaintenanceWorker::OpenCatalogFn Catalogs() {
    return [this]() -> Result<std::unique_ptr<catalog::Catalog>> {
      opens_.fetch_add(1);
      return catalog::OpenFilesystemCatalog((dir_.path() / "warehouse").string());
    };
  }
  static catalog::TableIdentifier Table(const std::string& name) {
    return catalog::TableIdentifier{{"db"}, name};
  }
  static std::string Joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& line : lines) out += line + "\n";
    return out;
  }

  testing::TempDir dir_;
  TableLocks locks_;
  std::atomic<int> opens_{0};
};

TEST_F(MaintenanceWorkerTest, ACommitPhaseWaitsForItsTablesLockOnly) {
  const std::string trace_path = (dir_.path() / "trace.jsonl").string();
  ASSERT_OK_AND_ASSIGN(auto trace, PipelineTrace::Open(trace_path));
  std::mutex ran_mutex;
  std::vector<std::string> ran;
  MaintainFn maintain = [&](catalog::Catalog&, const catalog::TableIdentifier& id,
                            const MaintenanceHooks& hooks) -> Result<std::string> {
    FLOE_RETURN_IF_ERROR(hooks.commit_gate([&]() -> Status {
      std::lock_guard<std::mutex> guard(ran_mutex);
      ran.push_back(id.name);
      return Status::OK();
    }));
    return std::string("committed");
  };
  auto ran_tables = [&] {
    std::lock_guard<std::mutex> guard(ran_mutex);
    return ran;
  };
  MaintenanceWorker worker(maintain, Catalogs(), locks_, *trace);
  std::unique_lock<std::mutex> batch(locks_.For("db.busy"));  // an ingest batch in flight
  ASSERT_TRUE(worker.Submit(Table("busy"), "test"));
  ASSERT_TRUE(worker.Submit(Table("free"), "test"));
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_TRUE(ran_tables().empty()) << "the commit phase ran during the batch";
  EXPECT_FALSE(worker.Idle());
  batch.unlock();
  ASSERT_TRUE(Eventually([&] { return worker.Idle(); }, kPatience));
  EXPECT_EQ(ran_tables(), (std::vector<std::string>{"busy", "free"}));

  // Another table's batch does not hold a commit back.
  std::unique_lock<std::mutex> other(locks_.For("db.busy"));
  ASSERT_TRUE(worker.Submit(Table("free"), "again"));
  ASSERT_TRUE(Eventually([&] { return ran_tables().size() == 3; }, kPatience));
  other.unlock();
  ASSERT_TRUE(Eventually([&] { return worker.Idle(); }, kPatience));

  const std::string messages = Joined(worker.TakeMessages());
  EXPECT_NE(messages.find("maintenance db.busy (test, background): committed"), std::string::npos)
      << messages;
  EXPECT_NE(messages.find("maintenance db.free (again, background): committed"), std::string::npos)
      << messages;
  EXPECT_TRUE(worker.TakeMessages().empty());
  worker.Stop();
  EXPECT_EQ(opens_.load(), 1) << "one catalog connection for all runs";
  const auto commits = TraceEvents(trace_path, "maintenance_commit");
  ASSERT_EQ(commits.size(), 3u);
  EXPECT_NE(commits[0].find("\"table\":\"db.busy\""), std::string::npos) << commits[0];
  EXPECT_GE(pipeline_testing::NumberField(commits[0], "wait_ms"), 200.0) << commits[0];
  EXPECT_EQ(TraceEvents(trace_path, "maintenance").size(), 3u);
}

TEST_F(MaintenanceWorkerTest, ATableIsQueuedOnceAndRunsInOrder) {
  PipelineTrace trace;
  Latch release;
  std::mutex order_mutex;
  std::vector<std::string> order;
  MaintainFn maintain = [&](catalog::Catalog&, const catalog::TableIdentifier& id,
                            const MaintenanceHooks&) -> Result<std::string> {
    {
      std::lock_guard<std::mutex> guard(order_mutex);
      order.push_back(id.name);
    }
    if (!release.Wait(kPatience)) return Status::Internal("never released");
    return std::string("ok");
  };
  MaintenanceWorker worker(maintain, Catalogs(), locks_, trace);
  ASSERT_TRUE(worker.Submit(Table("a"), "test"));
  ASSERT_TRUE(Eventually(
      [&] {
        std::lock_guard<std::mutex> guard(order_mutex);
        return order.size() == 1;
      },
      kPatience));
  EXPECT_TRUE(worker.Submit(Table("b"), "test"));
  EXPECT_FALSE(worker.Submit(Table("b"), "test")) << "queued twice";
  EXPECT_TRUE(worker.Submit(Table("a"), "test")) << "a running table may be queued again";
  release.Open();
  ASSERT_TRUE(Eventually([&] { return worker.Idle(); }, kPatience));
  std::lock_guard<std::mutex> guard(order_mutex);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "a"}));
}

TEST_F(MaintenanceWorkerTest, StopAbandonsQueuedRunsAndACommitWhoseWaitEndedAfterIt) {
  PipelineTrace trace;
  std::atomic<int> calls{0};
  std::atomic<bool> committed{false};
  MaintainFn maintain = [&](catalog::Catalog&, const catalog::TableIdentifier&,
                            const MaintenanceHooks& hooks) -> Result<std::string> {
    calls.fetch_add(1);
    FLOE_RETURN_IF_ERROR(hooks.commit_gate([&]() -> Status {
      committed.store(true);
      return Status::OK();
    }));
    return std::string("committed");
  };
  MaintenanceWorker worker(maintain, Catalogs(), locks_, trace);
  std::unique_lock<std::mutex> batch(locks_.For("db.t"));
  ASSERT_TRUE(worker.Submit(Table("t"), "test"));
  ASSERT_TRUE(worker.Submit(Table("u"), "test"));
  ASSERT_TRUE(Eventually([&] { return calls.load() == 1; }, kPatience));
  // The loop stops after its batch: Stop is asked while the gate waits for the lock.
  std::thread stopper([&worker] { worker.Stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  batch.unlock();
  stopper.join();
  EXPECT_FALSE(committed.load());
  EXPECT_EQ(calls.load(), 1) << "a queued run started after the stop";
  const std::string messages = Joined(worker.TakeMessages());
  EXPECT_NE(messages.find("maintenance db.t (test, background): abandoned"), std::string::npos) << messages;
  EXPECT_FALSE(worker.Submit(Table("t"), "late"));
  EXPECT_TRUE(worker.Idle());
}

TEST_F(MaintenanceWorkerTest, ACatalogThatCannotBeOpenedIsReportedAndOpenedAgainNextTime) {
  PipelineTrace trace;
  std::atomic<int> attempts{0};
  MaintenanceWorker::OpenCatalogFn flaky = [&]() -> Result<std::unique_ptr<catalog::Catalog>> {
    if (attempts.fetch_add(1) == 0) return Status::IOError("catalog unreachable");
    return catalog::OpenFilesystemCatalog((dir_.path() / "warehouse").string());
  };
  MaintainFn maintain = [](catalog::Catalog&, const catalog::TableIdentifier&,
                           const MaintenanceHooks&) -> Result<std::string> { return std::string("ok"); };
  MaintenanceWorker worker(maintain, flaky, locks_, trace);
  ASSERT_TRUE(worker.Submit(Table("t"), "test"));
  ASSERT_TRUE(Eventually([&] { return worker.Idle(); }, kPatience));
  ASSERT_TRUE(worker.Submit(Table("t"), "test"));
  ASSERT_TRUE(Eventually([&] { return worker.Idle(); }, kPatience));
  const std::vector<std::string> messages = worker.TakeMessages();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_NE(messages[0].find("maintenance db.t (test, background): failed, ingestion goes on: "),
            std::string::npos)
      << messages[0];
  EXPECT_NE(messages[0].find("catalog unreachable"), std::string::npos) << messages[0];
  EXPECT_NE(messages[1].find("background): ok"), std::string::npos) << messages[1];
  EXPECT_EQ(attempts.load(), 2);
}

}  // namespace
}  // namespace floe::ingest
