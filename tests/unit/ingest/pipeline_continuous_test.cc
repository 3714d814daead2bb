// The continuous loop (Pipeline::Run): new data first (polling again at once
// after a commit, the interval counted from the previous poll's start, idle
// polls writing nothing), its trace, and maintenance off the loop on the
// background worker: landings of the same or another table commit while a
// (slow) maintenance run is in progress, a batch and a maintenance commit of
// one table never overlap, and Run returns promptly on stop.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ingest/pipeline.h"
#include "pipeline_test_util.h"

namespace floe::ingest {
namespace {

using namespace pipeline_testing;

// "batch" trace events of one source table.
size_t BatchesOf(const std::string& trace_path, const std::string& table) {
  size_t count = 0;
  for (const std::string& line : TraceEvents(trace_path, "batch")) {
    if (line.find("\"table\":\"" + table + "\"") != std::string::npos) ++count;
  }
  return count;
}

constexpr auto kPatience = std::chrono::seconds(20);

class ContinuousPipelineTest : public PipelineTest {
 protected:
  // cc_a: two one-file batches, so with compact_every 2 it falls due; cc_b: one batch.
  PipelineConfig TwoTablesOneDue() {
    WriteCdaFile("cc_a", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
    WriteCdaFile("cc_a", "1", 1100, "part-0.parquet", {{2, "2", 0, "two"}});
    WriteCdaFile("cc_b", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
    WriteManifest({{"cc_a", 1100}, {"cc_b", 1000}});
    PipelineConfig config = config_;
    config.trigger.interval_ms = 50;
    config.trigger.max_files_per_batch = 1;
    config.maintenance.enabled = true;
    config.maintenance.compact_every = 2;
    return config;
  }
  PipelineOptions TracedOptions() {
    PipelineOptions options;
    options.log = &log_;
    options.trace_path = trace_path_;
    return options;
  }
  const std::string trace_path_ = (dir_.path() / "trace.jsonl").string();
};

TEST_F(ContinuousPipelineTest, ALandingOfAnotherTableCommitsWhileATableIsMaintained) {
  PipelineConfig config = TwoTablesOneDue();
  PipelineOptions options = TracedOptions();
  Latch release;
  std::atomic<int> started{0};
  std::atomic<bool> finished{false};
  std::string maintained;  // written before `started` is raised
  options.maintain = [&](catalog::Catalog&, const catalog::TableIdentifier& id,
                         const MaintenanceHooks&) -> Result<std::string> {
    maintained = id.ToString();
    started.fetch_add(1);
    if (!release.Wait(std::chrono::seconds(60))) return Status::Internal("never released");
    finished.store(true);
    return std::string("done");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  BackgroundRun run(*pipeline);
  ASSERT_TRUE(Eventually([&] { return started.load() == 1; }, kPatience)) << "maintenance never started";
  EXPECT_EQ(maintained, "default.cc_a");

  WriteCdaFile("cc_b", "1", 2000, "part-0.parquet", {{2, "2", 0, "two"}});
  WriteManifest({{"cc_a", 1100}, {"cc_b", 2000}});
  const bool landed = Eventually([&] { return BatchesOf(trace_path_, "cc_b") == 2; }, kPatience);
  EXPECT_TRUE(landed) << "the landing waited for another table's maintenance";
  EXPECT_FALSE(finished.load());
  release.Open();
  EXPECT_TRUE(Eventually([&] { return finished.load(); }, kPatience));
  run.Finish();
  ASSERT_OK(run.result());
  EXPECT_EQ(run.result()->batches_committed, 4) << log_.str();
  EXPECT_EQ(Rows("cc_b").size(), 2u);
  EXPECT_NE(log_.str().find("maintenance default.cc_a (idle, background): done"), std::string::npos)
      << log_.str();
  // Each batch traces its key index's memory (CDA tables merge: each has one).
  const std::string field = "\"key_index_bytes\":";
  for (const std::string& batch : TraceEvents(trace_path_, "batch")) {
    const size_t at = batch.find(field);
    ASSERT_NE(at, std::string::npos) << batch;
    EXPECT_GT(std::stoll(batch.substr(at + field.size())), 0) << batch;
  }
}

TEST_F(ContinuousPipelineTest, ALandingOfTheSameTableCommitsDuringItsRewriteAndBeforeItsCommit) {
  PipelineConfig config = TwoTablesOneDue();
  PipelineOptions options = TracedOptions();
  Latch release;
  std::atomic<int> started{0};
  std::atomic<int> phases{0};
  size_t snapshots_at_commit = 0;  // written by the worker before `phases` is raised
  options.maintain = [&](catalog::Catalog& tables, const catalog::TableIdentifier& id,
                         const MaintenanceHooks& hooks) -> Result<std::string> {
    started.fetch_add(1);
    // The "rewrite": outside the gate, while ingestion goes on.
    if (!release.Wait(std::chrono::seconds(60))) return Status::Internal("never released");
    FLOE_RETURN_IF_ERROR(hooks.commit_gate([&]() -> Status {
      FLOE_ASSIGN_OR_RETURN(auto ops, tables.LoadTable(id));
      FLOE_ASSIGN_OR_RETURN(auto loaded, ops->Load());
      snapshots_at_commit = loaded.metadata.snapshots.size();
      phases.fetch_add(1);
      return Status::OK();
    }));
    return std::string("committed");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  BackgroundRun run(*pipeline);
  ASSERT_TRUE(Eventually([&] { return started.load() == 1; }, kPatience)) << "maintenance never started";

  WriteCdaFile("cc_a", "1", 2000, "part-0.parquet", {{3, "3", 0, "three"}});
  WriteManifest({{"cc_a", 2000}, {"cc_b", 1000}});
  const bool landed = Eventually([&] { return BatchesOf(trace_path_, "cc_a") == 3; }, kPatience);
  EXPECT_TRUE(landed) << "the landing waited for its table's maintenance";
  EXPECT_EQ(phases.load(), 0);
  release.Open();
  ASSERT_TRUE(Eventually([&] { return phases.load() == 1; }, kPatience));
  EXPECT_EQ(snapshots_at_commit, 3u) << "the maintenance commit did not see the landing's snapshot";
  run.Finish();
  ASSERT_OK(run.result());
  EXPECT_EQ(Rows("cc_a").size(), 3u);
  const auto commits = TraceEvents(trace_path_, "maintenance_commit");
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_NE(commits[0].find("\"table\":\"default.cc_a\""), std::string::npos) << commits[0];
}

TEST_F(ContinuousPipelineTest, ABatchWaitsForAMaintenanceCommitOfItsTable) {
  PipelineConfig config = TwoTablesOneDue();
  PipelineOptions options = TracedOptions();
  Latch release;
  std::atomic<int> in_commit{0};
  options.maintain = [&](catalog::Catalog&, const catalog::TableIdentifier&,
                         const MaintenanceHooks& hooks) -> Result<std::string> {
    FLOE_RETURN_IF_ERROR(hooks.commit_gate([&]() -> Status {
      in_commit.fetch_add(1);
      if (!release.Wait(std::chrono::seconds(60))) return Status::Internal("never released");
      return Status::OK();
    }));
    return std::string("committed");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  BackgroundRun run(*pipeline);
  ASSERT_TRUE(Eventually([&] { return in_commit.load() == 1; }, kPatience)) << "maintenance never committed";

  auto polls_that_found_files = [&] {
    size_t found = 0;
    for (const std::string& poll : TraceEvents(trace_path_, "poll"))
      found += NumberField(poll, "new_files") > 0;
    return found;
  };
  const size_t found_before = polls_that_found_files();
  WriteCdaFile("cc_a", "1", 2000, "part-0.parquet", {{3, "3", 0, "three"}});
  WriteManifest({{"cc_a", 2000}, {"cc_b", 1000}});
  ASSERT_TRUE(Eventually([&] { return polls_that_found_files() > found_before; }, kPatience));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(BatchesOf(trace_path_, "cc_a"), 2u) << "a batch committed inside a maintenance commit phase";
  release.Open();
  ASSERT_TRUE(Eventually([&] { return BatchesOf(trace_path_, "cc_a") == 3; }, kPatience));
  run.Finish();
  ASSERT_OK(run.result());
  const auto waits = TraceEvents(trace_path_, "table_lock_wait");
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_NE(waits[0].find("\"table\":\"default.cc_a\""), std::string::npos) << waits[0];
  EXPECT_GE(NumberField(waits[0], "ms"), 250.0) << waits[0];
  EXPECT_EQ(Rows("cc_a").size(), 3u);
}

TEST_F(ContinuousPipelineTest, RunReturnsPromptlyOnStopWhileMaintenanceRuns) {
  PipelineConfig config = TwoTablesOneDue();
  PipelineOptions options = TracedOptions();
  std::atomic<int> started{0};
  std::atomic<bool> committed{false};
  options.maintain = [&](catalog::Catalog&, const catalog::TableIdentifier&,
                         const MaintenanceHooks& hooks) -> Result<std::string> {
    started.fetch_add(1);
    // A long rewrite that looks at the stop flag between its input files.
    for (int file = 0; file < 6000 && !hooks.stop_requested(); ++file) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // The stop arrived during the rewrite: the gate refuses the commit.
    Status gated = hooks.commit_gate([&]() -> Status {
      committed.store(true);
      return Status::OK();
    });
    if (!gated.ok()) return gated;
    return std::string("finished");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  BackgroundRun run(*pipeline);
  ASSERT_TRUE(Eventually([&] { return started.load() == 1; }, kPatience)) << "maintenance never started";
  const double stop_ms = run.Finish();
  EXPECT_LT(stop_ms, 2000.0);
  ASSERT_OK(run.result());
  EXPECT_FALSE(committed.load());
  EXPECT_NE(log_.str().find("maintenance default.cc_a (idle, background): abandoned"), std::string::npos)
      << log_.str();
  const auto runs = TraceEvents(trace_path_, "maintenance");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NE(runs[0].find("\"background\":true"), std::string::npos) << runs[0];
  EXPECT_NE(runs[0].find("\"ok\":false"), std::string::npos) << runs[0];
}

TEST_F(ContinuousPipelineTest, AFailedMaintenanceIsLoggedWithItsTableAndIngestionGoesOn) {
  PipelineConfig config = TwoTablesOneDue();
  PipelineOptions options = TracedOptions();
  std::atomic<int> calls{0};
  options.maintain = [&](catalog::Catalog&, const catalog::TableIdentifier&,
                         const MaintenanceHooks&) -> Result<std::string> {
    calls.fetch_add(1);
    return Status::IOError("disk on fire");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  BackgroundRun run(*pipeline);
  ASSERT_TRUE(Eventually([&] { return !TraceEvents(trace_path_, "maintenance").empty(); }, kPatience));
  WriteCdaFile("cc_a", "1", 2000, "part-0.parquet", {{3, "3", 0, "three"}});
  WriteManifest({{"cc_a", 2000}, {"cc_b", 1000}});
  ASSERT_TRUE(Eventually([&] { return BatchesOf(trace_path_, "cc_a") == 3; }, kPatience));
  run.Finish();
  ASSERT_OK(run.result());
  EXPECT_EQ(calls.load(), 1);
  EXPECT_NE(log_.str().find("maintenance default.cc_a (idle, background): failed, ingestion goes on: "),
            std::string::npos)
      << log_.str();
  EXPECT_NE(log_.str().find("disk on fire"), std::string::npos);
  EXPECT_EQ(Rows("cc_a").size(), 3u);
}

TEST_F(ContinuousPipelineTest, ATableThatNeverGoesIdleIsStillMaintained) {
  // Five batches in one poll with compact_every 2: due after the 2nd commit
  // (queued for an idle poll), overdue after the 4th (handed to the worker then).
  for (int64_t i = 0; i < 5; ++i) {
    WriteCdaFile("cc_claim", "1", 1000 + i, "part-0.parquet", {{i, std::to_string(i + 1), 0, "row"}});
  }
  WriteManifest({{"cc_claim", 1004}});
  PipelineConfig config = config_;
  config.trigger.interval_ms = 3'600'000;
  config.trigger.max_files_per_batch = 1;
  config.maintenance.enabled = true;
  config.maintenance.compact_every = 2;
  PipelineOptions options = TracedOptions();
  std::atomic<int> calls{0};
  options.maintain = [&](catalog::Catalog&, const catalog::TableIdentifier&,
                         const MaintenanceHooks&) -> Result<std::string> {
    calls.fetch_add(1);
    return std::string("nothing to do");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  std::atomic<bool> stop{false};
  {
    // Until the loop first goes to sleep with the maintenance run ended.
    StopWhen stopper(
        stop,
        [&] {
          return !TraceEvents(trace_path_, "sleep").empty() &&
                 !TraceEvents(trace_path_, "maintenance").empty();
        },
        kPatience);
    ASSERT_OK(pipeline->Run(stop));
  }
  EXPECT_EQ(calls.load(), 1) << log_.str();
  const auto runs = TraceEvents(trace_path_, "maintenance");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NE(runs[0].find("\"why\":\"overdue\""), std::string::npos) << runs[0];
  EXPECT_EQ(Rows("cc_claim").size(), 5u);
}

TEST_F(ContinuousPipelineTest, ContinuousModePollsAgainAtOnceAfterCommitting) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  PipelineConfig config = config_;
  config.trigger.interval_ms = 3'600'000;
  std::atomic<bool> stop{false};
  WatchedLog watched;
  std::ostream log(&watched);
  bool landed = false;
  watched.on_flush = [&](const std::string& text) {
    const size_t batches = CountOf(text, "batch ");
    if (batches == 1 && !landed) {
      // Lands while the first batch is being reported: the loop must see it without sleeping.
      landed = true;
      WriteCdaFile("cc_claim", "1", 2000, "part-0.parquet", {{2, "2", 0, "two"}});
      WriteManifest({{"cc_claim", 2000}});
    } else if (batches >= 2) {
      stop.store(true);
    }
  };
  PipelineOptions options;
  options.log = &log;
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  StopWhen safety(stop, nullptr, std::chrono::seconds(10));
  ASSERT_OK_AND_ASSIGN(RunSummary total, pipeline->Run(stop));
  EXPECT_EQ(total.batches_committed, 2) << watched.str();
  EXPECT_EQ(Rows("cc_claim").size(), 2u);
}

TEST_F(ContinuousPipelineTest, ContinuousModeCountsTheIntervalFromThePreviousPollsStart) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  PipelineConfig config = config_;
  // The old loop slept in whole 100 ms steps after each poll: >= 300 ms apart.
  config.trigger.interval_ms = 220;
  PipelineOptions options;
  options.log = &log_;
  options.trace_path = (dir_.path() / "trace.jsonl").string();
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  std::atomic<bool> stop{false};
  {
    StopWhen stopper(
        stop, [&] { return TraceEvents(options.trace_path, "poll").size() >= 8; }, std::chrono::seconds(20));
    ASSERT_OK(pipeline->Run(stop));
  }
  const std::vector<std::string> polls = TraceEvents(options.trace_path, "poll");
  const std::vector<std::string> iterations = TraceEvents(options.trace_path, "iteration");
  ASSERT_GE(polls.size(), 8u);
  ASSERT_GE(iterations.size(), 2u);
  // The first poll commits; the second follows at once.
  EXPECT_NE(iterations[0].find("\"batches\":1"), std::string::npos) << iterations[0];
  EXPECT_NE(iterations[0].find("\"poll_again\":true"), std::string::npos) << iterations[0];
  EXPECT_LT(NumberField(polls[1], "start") - NumberField(iterations[0], "t"), 100.0)
      << "the poll after a commit waited";
  // Idle polls start one interval apart, whatever each took.
  const double mean_gap = (NumberField(polls.back(), "start") - NumberField(polls[1], "start")) /
                          static_cast<double>(polls.size() - 2);
  EXPECT_LT(mean_gap, 290.0);
  EXPECT_GE(mean_gap, 215.0);
}

TEST_F(ContinuousPipelineTest, AnIdlePollWritesNothingToTheLedger) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary first, pipeline->RunOnce());
  ASSERT_EQ(first.batches_committed, 1) << first.Format() << log_.str();
  const fs::path wal = fs::path(config_.state_dir) / "ledger.db-wal";
  ASSERT_TRUE(fs::exists(wal));
  const auto size_before = fs::file_size(wal);
  const auto written_before = fs::last_write_time(wal);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(RunSummary idle, pipeline->RunOnce());
    EXPECT_EQ(idle.batches_committed, 0);
  }
  EXPECT_EQ(fs::file_size(wal), size_before);
  EXPECT_EQ(fs::last_write_time(wal), written_before);
  // A new landing still moves the watermark and commits.
  WriteCdaFile("cc_claim", "1", 2000, "part-0.parquet", {{2, "2", 0, "two"}});
  WriteManifest({{"cc_claim", 2000}});
  ASSERT_OK_AND_ASSIGN(RunSummary second, pipeline->RunOnce());
  EXPECT_EQ(second.batches_committed, 1);
  ASSERT_OK_AND_ASSIGN(auto watermark, pipeline->ledger().Watermark("cc_claim"));
  ASSERT_TRUE(watermark.has_value());
  EXPECT_EQ(watermark->last_successful_write_ms, 2000);
}

TEST_F(ContinuousPipelineTest, TraceRecordsPollsBatchesMaintenanceAndIdleMemory) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  PipelineConfig config = config_;
  config.maintenance.enabled = true;
  config.maintenance.compact_every = 1;
  config.trigger.interval_ms = 100;
  PipelineOptions options;
  options.log = &log_;
  options.trace_path = (dir_.path() / "trace.jsonl").string();
  options.maintain = [](catalog::Catalog&, const catalog::TableIdentifier&,
                        const MaintenanceHooks&) -> Result<std::string> {
    return std::string("nothing to do");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  std::atomic<bool> stop{false};
  {
    StopWhen stopper(
        stop,
        [&] {
          // The maintenance run is the worker's: wait for its end too.
          return TraceEvents(options.trace_path, "sleep").size() >= 2 &&
                 !TraceEvents(options.trace_path, "maintenance").empty();
        },
        std::chrono::seconds(20));
    ASSERT_OK(pipeline->Run(stop));
  }
  std::ifstream trace(options.trace_path);
  std::map<std::string, std::vector<std::string>> by_event;
  for (std::string line; std::getline(trace, line);) {
    ASSERT_EQ(line.front(), '{') << line;
    ASSERT_EQ(line.back(), '}') << line;
    const size_t at = line.find("\"event\":\"");
    ASSERT_EQ(at, 1u) << line;
    by_event[line.substr(at + 9, line.find('"', at + 9) - at - 9)].push_back(line);
  }
  ASSERT_EQ(by_event["batch"].size(), 1u);
  EXPECT_NE(by_event["batch"][0].find("\"table\":\"cc_claim\""), std::string::npos) << by_event["batch"][0];
  EXPECT_NE(by_event["batch"][0].find("\"rows\":1"), std::string::npos) << by_event["batch"][0];
  EXPECT_GE(by_event["poll"].size(), 3u);
  ASSERT_EQ(by_event["maintenance_due"].size(), 1u);
  ASSERT_EQ(by_event["maintenance"].size(), 1u);
  EXPECT_NE(by_event["maintenance"][0].find("\"why\":\"idle\""), std::string::npos)
      << by_event["maintenance"][0];
  EXPECT_FALSE(by_event["sleep"].empty());
  // The first idle moment after the commit gives free heap memory back, once.
  size_t trimmed = 0;
  for (const std::string& line : by_event["iteration"]) trimmed += CountOf(line, "\"trimmed\":true");
  EXPECT_EQ(trimmed, 1u);
  EXPECT_NE(by_event["iteration"][0].find("\"rss_bytes\":"), std::string::npos);
}

// [source] notifications = "inotify": with a one-minute interval only the
// landing's events can start the poll that commits it, and a stop still
// ends Run at once.
TEST_F(ContinuousPipelineTest, InotifyEventsStartThePollThatCommitsALanding) {
  WriteCdaFile("cc_a", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_a", 1000}});
  PipelineConfig config = config_;
  config.trigger.interval_ms = 60'000;
  config.source.notifications.kind = NotificationKind::kInotify;
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, TracedOptions()));
  BackgroundRun run(*pipeline);
  ASSERT_TRUE(Eventually([&] { return BatchesOf(trace_path_, "cc_a") == 1; }, kPatience)) << log_.str();

  const auto landed = std::chrono::steady_clock::now();
  WriteCdaFile("cc_a", "1", 2000, "part-0.parquet", {{2, "2", 0, "two"}});
  WriteManifest({{"cc_a", 2000}});
  ASSERT_TRUE(Eventually([&] { return BatchesOf(trace_path_, "cc_a") == 2; }, kPatience)) << log_.str();
  EXPECT_LT(std::chrono::steady_clock::now() - landed, std::chrono::seconds(30))
      << "it waited for the interval";
  EXPECT_LT(run.Finish(), 2000.0);
  ASSERT_OK(run.result());
  EXPECT_EQ(Rows("cc_a").size(), 2u);
}

}  // namespace
}  // namespace floe::ingest
