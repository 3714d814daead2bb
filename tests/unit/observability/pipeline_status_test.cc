// ComputePipelineStatus and its formats over a ledger in every state that
// matters: a stopped pipeline's committed batches with their stats, units
// pending and the oldest one's age, a batch left open (mid-batch), a table
// stopped with its reason, quarantined units newest first, the hourly
// history; the JSON keeps untrusted names as data (a "<script>" file name
// is a JSON string, invalid UTF-8 is replaced) and snapshot ids as strings.
#include "observability/pipeline_status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

#include "ingest/pipeline.h"
#include "observability/status_format.h"
#include "test_util.h"

namespace floe::observability {
namespace {

using ::testing::HasSubstr;

ingest::SourceUnit File(const std::string& uri, const std::string& table, int64_t size) {
  ingest::SourceUnit file;
  file.uri = uri;
  file.table = table;
  file.order_key = uri;
  file.size = size;
  file.mtime_ms = 1;
  return file;
}

class PipelineStatusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.name = "orders";
    config_.state_dir = dir_.File("state");
    config_.target.ns = "lake";
    config_.source.uri = dir_.File("landing");
  }

  int64_t Now() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  floe::testing::TempDir dir_;
  ingest::PipelineConfig config_;
};

TEST_F(PipelineStatusTest, EveryTableStateOfAStoppedPipeline) {
  const int64_t discovered_at = Now() - 90'000;
  {
    ASSERT_OK_AND_ASSIGN(auto ledger, ingest::Ledger::Open(config_.state_dir));
    ASSERT_OK(
        ledger
            ->RecordDiscovered({File("/l/a/1", "a", 10), File("/l/a/2", "a", 20), File("/l/b/1", "b", 30),
                                File("/l/b/2", "b", 40), File("/l/c/1", "C", 50),
                                File("/l/d/<script>alert(1)</script>\xff.csv", "d", 60)},
                               discovered_at)
            .status());
    ingest::BatchStats stats;
    stats.files = 1;
    stats.rows = 7;
    stats.inserted = 5;
    stats.updated = 2;
    stats.duration_ms = 800;
    stats.commit_ms = 120;
    ASSERT_OK_AND_ASSIGN(int64_t first, ledger->OpenBatch("a", {"/l/a/1"}));
    ASSERT_OK(ledger->CommitBatch(first, 1234567890123456789, stats));
    ASSERT_OK_AND_ASSIGN(int64_t open, ledger->OpenBatch("b", {"/l/b/1"}));  // the process died mid-batch
    EXPECT_GT(open, first);
    ASSERT_OK(ledger->SetTableCondition("C", ingest::kTableStopped,
                                        "CDA table C was reset: run floe files CONFIG --reload-table C", 42));
    ASSERT_OK(ledger->Quarantine("/l/d/<script>alert(1)</script>\xff.csv",
                                 "not CSV: <img src=x onerror=alert(1)>"));
  }
  ASSERT_OK_AND_ASSIGN(auto reader, ingest::Ledger::OpenReadOnly(config_.state_dir));
  StatusOptions options;
  options.history_hours = 3;
  ASSERT_OK_AND_ASSIGN(PipelineStatus status, ComputePipelineStatus(config_, *reader, options));
  EXPECT_FALSE(status.running_pid.has_value()) << "the ledger's writer is gone";
  ASSERT_EQ(status.tables.size(), 4u);
  const TableStatus& a = status.tables[0];
  EXPECT_EQ(a.source_table, "C");
  EXPECT_EQ(a.target, "lake.c");
  EXPECT_EQ(a.state, "stopped");
  EXPECT_THAT(a.reason, HasSubstr("--reload-table C"));
  EXPECT_EQ(a.state_since_ms, 42);
  EXPECT_EQ(a.backlog.pending_files, 1);

  const TableStatus& table_a = status.tables[1];
  EXPECT_EQ(table_a.source_table, "a");
  EXPECT_EQ(table_a.state, "pending");
  EXPECT_EQ(table_a.backlog.pending_files, 1);
  EXPECT_EQ(table_a.backlog.pending_bytes, 20);
  ASSERT_TRUE(table_a.oldest_pending_age_s.has_value());
  EXPECT_GE(*table_a.oldest_pending_age_s, 89);
  ASSERT_TRUE(table_a.last_batch.has_value());
  EXPECT_EQ(table_a.last_batch->snapshot_id, 1234567890123456789);
  ASSERT_TRUE(table_a.seconds_since_commit.has_value());
  EXPECT_LT(*table_a.seconds_since_commit, 60);
  EXPECT_EQ(table_a.last_hour.inserted, 5);
  EXPECT_EQ(table_a.last_day.updated, 2);

  const TableStatus& b = status.tables[2];
  EXPECT_EQ(b.state, "ingesting");
  ASSERT_TRUE(b.open_batch_id.has_value());
  EXPECT_EQ(b.backlog.in_batch_files, 1);
  EXPECT_FALSE(b.last_batch.has_value());

  const TableStatus& d = status.tables[3];
  EXPECT_EQ(d.state, "ok");
  EXPECT_EQ(d.backlog.quarantined_files, 1);
  EXPECT_EQ(d.quarantined_last_hour, 1);
  ASSERT_EQ(status.quarantined.size(), 1u);
  ASSERT_EQ(status.history.size(), 3u);
  EXPECT_EQ(status.history.back().batches, 1);
  EXPECT_EQ(status.history.back().rows, 7);
  EXPECT_EQ(status.history.back().max_commit_ms, 120);
  ASSERT_EQ(status.recent_batches.size(), 2u);
  EXPECT_FALSE(status.recent_batches[0].committed);
  EXPECT_TRUE(status.errors.empty());

  const std::string json = StatusJsonText(status);
  auto parsed = nlohmann::json::parse(json);
  EXPECT_EQ(parsed["tables"][1]["last_batch"]["snapshot"], "1234567890123456789");
  EXPECT_EQ(parsed["tables"][0]["state"], "stopped");
  EXPECT_EQ(parsed["tables"][2]["open_batch"], *b.open_batch_id);
  EXPECT_EQ(parsed["quarantined"][0]["reason"], "not CSV: <img src=x onerror=alert(1)>");
  EXPECT_EQ(parsed["quarantined"][0]["uri"], "/l/d/<script>alert(1)</script>\xEF\xBF\xBD.csv");
  EXPECT_TRUE(parsed["streams"].is_null()) << "not a stream source";
  const std::string text = FormatStatusText(status);
  EXPECT_THAT(text, HasSubstr("pipeline orders: not running"));
  EXPECT_THAT(text, HasSubstr("C is stopped since"));
  EXPECT_THAT(text, HasSubstr("ingesting (batch"));
}

TEST_F(PipelineStatusTest, AWriterHoldingTheStateDirIsRunning) {
  ASSERT_OK_AND_ASSIGN(auto writer, ingest::Ledger::Open(config_.state_dir));
  ASSERT_OK_AND_ASSIGN(auto reader, ingest::Ledger::OpenReadOnly(config_.state_dir));
  ASSERT_OK_AND_ASSIGN(PipelineStatus status, ComputePipelineStatus(config_, *reader, {}));
  ASSERT_TRUE(status.running_pid.has_value());
  EXPECT_EQ(*status.running_pid, ::getpid());
  EXPECT_TRUE(status.tables.empty());
  EXPECT_THAT(FormatStatusText(status), HasSubstr("no tables yet"));
}

TEST_F(PipelineStatusTest, StreamPartitionsJoinTheLedgerWithTheSourcesMarks) {
  config_.source.discovery = ingest::DiscoveryKind::kKafka;
  ASSERT_OK_AND_ASSIGN(auto ledger, ingest::Ledger::Open(config_.state_dir));
  ingest::SourceUnit range;
  range.kind = ingest::UnitKind::kStreamRange;
  range.table = "orders";
  range.range = {"shop.orders", "0", "0", "99"};
  range.uri = "kafka://shop.orders/0/0-99";
  range.order_key = "0";
  ingest::SourceUnit next = range;
  next.range = {"shop.orders", "0", "100", "149"};
  next.uri = "kafka://shop.orders/0/100-149";
  next.order_key = "1";
  ASSERT_OK(ledger->RecordDiscovered({range, next}, 1).status());
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("orders", {range.uri}));
  ASSERT_OK(ledger->CommitBatch(batch, 5));
  ASSERT_OK_AND_ASSIGN(auto positions, ledger->StreamPositions());
  ASSERT_OK_AND_ASSIGN(auto lag, ingest::StreamLag(positions, {{"shop.orders", "0", "orders", 0, 180},
                                                               {"shop.orders", "1", "orders", 7, 9}}));
  ASSERT_EQ(lag.size(), 2u);
  EXPECT_EQ(lag[0].committed, 100);
  EXPECT_EQ(lag[0].recorded, 150);
  EXPECT_EQ(lag[0].lag, 80);
  EXPECT_EQ(lag[1].committed, 7) << "never read: committed at the low watermark";
  EXPECT_EQ(lag[1].lag, 2);
  StatusOptions options;
  options.stream_lag = lag;
  ASSERT_OK_AND_ASSIGN(PipelineStatus status, ComputePipelineStatus(config_, *ledger, options));
  ASSERT_EQ(status.streams.size(), 2u);
  auto parsed = nlohmann::json::parse(StatusJsonText(status));
  EXPECT_EQ(parsed["streams"][0]["lag"], 80);
  EXPECT_EQ(parsed["streams"][0]["partition"], "0");
}

}  // namespace
}  // namespace floe::observability
