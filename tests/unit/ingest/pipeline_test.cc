// Pipeline end to end on a tiny CDA export: committed folders only, nothing
// twice, new folders, quarantine, crash recovery both ways, resets, batch
// limits, independent tables, the stoppable loop. The continuous loop's
// scheduling and maintenance worker: pipeline_continuous_test.cc.
#include "ingest/pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ingest/merge/key_index.h"
#include "ingest/merge/key_index_manifest.h"
#include "pipeline_test_util.h"

namespace floe::ingest {
namespace {

using namespace pipeline_testing;

TEST_F(PipelineTest, IngestsCommittedFoldersOnceAndNewFoldersLater) {
  WriteFirstExport();
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary first, pipeline->RunOnce());
  EXPECT_TRUE(first.ok()) << first.Format() << log_.str();
  ASSERT_EQ(first.tables.count("cc_claim"), 1u) << first.Format();
  const TableRunSummary& claim = first.tables.at("cc_claim");
  EXPECT_EQ(claim.table, "default.cc_claim");
  EXPECT_EQ(claim.batches, 1);
  EXPECT_EQ(claim.counts.files, 2);
  EXPECT_EQ(claim.counts.rows_read, 5);
  EXPECT_EQ(first.batches_committed, 1);
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {2, "two v2"}}));
  EXPECT_EQ(FilesIn(*pipeline, "cc_claim", FileState::kCommitted),
            (std::vector<std::string>{"cc_claim/1/1000/part-0.parquet", "cc_claim/1/2000/part-1.parquet"}));
  EXPECT_TRUE(FilesIn(*pipeline, "cc_claim", FileState::kDiscovered).empty());
  // The batch line of a non-terminal log.
  EXPECT_NE(log_.str().find("batch "), std::string::npos) << log_.str();
  EXPECT_NE(first.Format().find("total"), std::string::npos);
  const size_t snapshots = SnapshotCount("cc_claim");
  EXPECT_EQ(snapshots, 1u);

  // Nothing new: nothing committed, no snapshot.
  ASSERT_OK_AND_ASSIGN(RunSummary second, pipeline->RunOnce());
  EXPECT_TRUE(second.ok());
  EXPECT_EQ(second.batches_committed, 0);
  EXPECT_EQ(SnapshotCount("cc_claim"), snapshots);

  // The manifest moves past the third folder: only its file commits.
  WriteManifest({{"cc_claim", 3000}});
  ASSERT_OK_AND_ASSIGN(RunSummary third, pipeline->RunOnce());
  EXPECT_TRUE(third.ok()) << third.Format();
  EXPECT_EQ(third.batches_committed, 1);
  EXPECT_EQ(third.tables.at("cc_claim").counts.files, 1);
  EXPECT_EQ(third.tables.at("cc_claim").counts.rows_read, 1);
  EXPECT_EQ(SnapshotCount("cc_claim"), snapshots + 1);
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {2, "two v2"}, {4, "four"}}));
  EXPECT_EQ(FilesIn(*pipeline, "cc_claim", FileState::kCommitted).size(), 3u);

  // Every committed file names its batch and the snapshot that carries it.
  ASSERT_OK_AND_ASSIGN(auto table, LoadTable("cc_claim"));
  LedgerFilter filter;
  filter.state = FileState::kCommitted;
  ASSERT_OK_AND_ASSIGN(auto committed, pipeline->ledger().Files(filter));
  for (const LedgerFile& f : committed) {
    ASSERT_TRUE(f.batch_id && f.snapshot_id) << f.file.uri;
    const iceberg::Snapshot* snapshot = table.metadata().SnapshotById(*f.snapshot_id);
    ASSERT_NE(snapshot, nullptr) << f.file.uri;
    EXPECT_EQ(snapshot->summary.at(kSummaryPipeline), "test-pipeline");
    EXPECT_EQ(snapshot->summary.at(kSummaryBatchId), std::to_string(*f.batch_id));
  }
}

TEST_F(PipelineTest, BatchLimitsMakeOneCommitPerBatch) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
  WriteCdaFile("cc_claim", "1", 1100, "part-0.parquet", {{2, "2", 0, "two"}});
  WriteCdaFile("cc_claim", "1", 1200, "part-0.parquet", {{3, "3", 0, "three"}});
  WriteManifest({{"cc_claim", 2000}});
  PipelineConfig config = config_;
  config.trigger.max_files_per_batch = 2;
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline(config));
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_EQ(summary.batches_committed, 2);
  EXPECT_EQ(summary.tables.at("cc_claim").batches, 2);
  EXPECT_EQ(SnapshotCount("cc_claim"), 2u);
  ASSERT_OK_AND_ASSIGN(auto files, pipeline->ledger().Files({}));
  std::map<int64_t, int> files_per_batch;
  for (const LedgerFile& f : files) {
    ASSERT_TRUE(f.batch_id);
    ++files_per_batch[*f.batch_id];
  }
  ASSERT_EQ(files_per_batch.size(), 2u);
  // order_key order: the two oldest folders first.
  EXPECT_EQ(files_per_batch.begin()->second, 2);
  EXPECT_EQ(Rows("cc_claim").size(), 3u);
}

TEST_F(PipelineTest, CorruptFileIsQuarantinedAndTheRunIsNotOk) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}, {2, "2", 0, "two"}});
  WriteRawFile("cc_claim/1/1000/part-1.parquet", "this is not a parquet file");
  WriteManifest({{"cc_claim", 2000}});
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_FALSE(summary.ok());
  EXPECT_EQ(summary.tables.at("cc_claim").quarantined, 1);
  EXPECT_TRUE(summary.tables.at("cc_claim").error.empty());
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {2, "two"}}));
  EXPECT_EQ(FilesIn(*pipeline, "cc_claim", FileState::kQuarantined),
            std::vector<std::string>{"cc_claim/1/1000/part-1.parquet"});
  EXPECT_EQ(FilesIn(*pipeline, "cc_claim", FileState::kCommitted),
            std::vector<std::string>{"cc_claim/1/1000/part-0.parquet"});
  LedgerFilter filter;
  filter.state = FileState::kQuarantined;
  ASSERT_OK_AND_ASSIGN(auto quarantined, pipeline->ledger().Files(filter));
  ASSERT_EQ(quarantined.size(), 1u);
  EXPECT_NE(quarantined[0].reason.find("part-1.parquet"), std::string::npos) << quarantined[0].reason;
  EXPECT_NE(log_.str().find("quarantined"), std::string::npos);
  EXPECT_NE(summary.Format().find("quarantined files"), std::string::npos) << summary.Format();

  // Quarantined files stay aside on later runs...
  ASSERT_OK_AND_ASSIGN(RunSummary again, pipeline->RunOnce());
  EXPECT_TRUE(again.ok()) << again.Format();
  EXPECT_EQ(again.batches_committed, 0);
  // ...until retried; still broken, they come back to quarantine.
  ASSERT_OK_AND_ASSIGN(int64_t retried, pipeline->ledger().Retry(std::string("cc_claim")));
  EXPECT_EQ(retried, 1);
  ASSERT_OK_AND_ASSIGN(RunSummary retry_run, pipeline->RunOnce());
  EXPECT_EQ(retry_run.tables.at("cc_claim").quarantined, 1);
  EXPECT_EQ(FilesIn(*pipeline, "cc_claim", FileState::kQuarantined).size(), 1u);
}

// Discovers the export and opens a batch of the files not yet in the ledger,
// as a process that crashed right after OpenBatch would leave it.
Result<std::pair<int64_t, std::vector<SourceUnit>>> OpenBatchLikeACrashedRun(Pipeline& pipeline,
                                                                             const PipelineConfig& config) {
  FLOE_ASSIGN_OR_RETURN(Source source, OpenSource(config.source, config.s3));
  FLOE_ASSIGN_OR_RETURN(DiscoveryResult discovery, source.discovery->Discover({}, 0));
  FLOE_ASSIGN_OR_RETURN(auto recorded, pipeline.ledger().RecordDiscovered(discovery.files, 1));
  (void)recorded;
  FLOE_ASSIGN_OR_RETURN(auto pending, pipeline.ledger().Pending("cc_claim"));
  std::vector<SourceUnit> files;
  std::vector<std::string> uris;
  for (const LedgerFile& f : pending) {
    files.push_back(f.file);
    uris.push_back(f.file.uri);
  }
  if (files.empty()) return Status::Internal("nothing pending to put in a batch");
  FLOE_ASSIGN_OR_RETURN(int64_t batch_id, pipeline.ledger().OpenBatch("cc_claim", uris));
  return std::make_pair(batch_id, files);
}

TEST_F(PipelineTest, RecoveryMarksABatchThatCommittedBeforeTheCrash) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  {
    ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
    ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
    ASSERT_TRUE(summary.ok()) << summary.Format() << log_.str();
  }
  WriteCdaFile("cc_claim", "1", 2000, "part-0.parquet", {{1, "2", 4, "one v2"}, {5, "3", 0, "five"}});
  WriteManifest({{"cc_claim", 2000}});
  int64_t crashed_batch = 0;
  {
    // The crashed process: batch opened, applied to the table, ledger never told.
    ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
    ASSERT_OK_AND_ASSIGN(auto batch, OpenBatchLikeACrashedRun(*pipeline, config_));
    crashed_batch = batch.first;
    ASSERT_OK_AND_ASSIGN(auto id, pipeline->TargetOf("cc_claim"));
    TableIngestorOptions options;
    options.pipeline_name = config_.name;
    options.table = id;
    options.settings = config_.ForTable("cc_claim");
    options.state_dir = (fs::path(config_.state_dir) / "tables" / id.ToString()).string();
    ASSERT_OK_AND_ASSIGN(auto ingestor,
                         TableIngestor::Open(pipeline->table_catalog(), ParquetFiles(MakeLocalFileIO()),
                                             MakeLocalFileIO(), options));
    ASSERT_OK_AND_ASSIGN(BatchResult applied, ingestor->ApplyBatch(batch.second, batch.first));
    ASSERT_TRUE(applied.snapshot_id);
  }
  const size_t snapshots = SnapshotCount("cc_claim");
  ASSERT_EQ(snapshots, 2u);

  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_EQ(summary.tables.at("cc_claim").recovered_batches, 1);
  EXPECT_EQ(summary.batches_committed, 0);  // not redone
  EXPECT_EQ(SnapshotCount("cc_claim"), snapshots);
  EXPECT_NE(log_.str().find("had committed as snapshot"), std::string::npos) << log_.str();
  ASSERT_OK_AND_ASSIGN(auto table, LoadTable("cc_claim"));
  ASSERT_OK_AND_ASSIGN(auto files, pipeline->ledger().Files({}));
  for (const LedgerFile& f : files) {
    EXPECT_EQ(f.state, FileState::kCommitted) << f.file.uri;
    if (f.batch_id == crashed_batch) {
      EXPECT_EQ(f.snapshot_id, table.metadata().current_snapshot_id);
    }
  }
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one v2"}, {5, "five"}}));
}

TEST_F(PipelineTest, RecoveryRedoesABatchThatNeverCommitted) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}, {2, "2", 0, "two"}});
  WriteManifest({{"cc_claim", 1000}});
  int64_t crashed_batch = 0;
  {
    ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
    ASSERT_OK_AND_ASSIGN(auto batch, OpenBatchLikeACrashedRun(*pipeline, config_));
    crashed_batch = batch.first;
  }
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_EQ(summary.tables.at("cc_claim").recovered_batches, 1);
  EXPECT_EQ(summary.batches_committed, 1);
  EXPECT_NE(log_.str().find("released to be redone"), std::string::npos) << log_.str();
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {2, "two"}}));
  ASSERT_OK_AND_ASSIGN(auto files, pipeline->ledger().Files({}));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].state, FileState::kCommitted);
  ASSERT_TRUE(files[0].batch_id);
  EXPECT_GT(*files[0].batch_id, crashed_batch);  // a new batch id, never reused
  ASSERT_OK_AND_ASSIGN(auto open, pipeline->ledger().OpenBatches());
  EXPECT_TRUE(open.empty());
}

TEST_F(PipelineTest, ResetStopsTheTableUnlessReloadIsConfigured) {
  WriteFirstExport();
  {
    ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
    ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
    ASSERT_TRUE(summary.ok()) << summary.Format() << log_.str();
  }
  const auto rows = Rows("cc_claim");
  const size_t snapshots = SnapshotCount("cc_claim");
  // The producer re-exported: lastSuccessfulWriteTimestamp went backwards.
  WriteManifest({{"cc_claim", 1000}});
  {
    ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
    ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
    EXPECT_FALSE(summary.ok());
    EXPECT_FALSE(summary.tables.at("cc_claim").error.empty()) << summary.Format();
    EXPECT_EQ(summary.batches_committed, 0);
  }
  PipelineConfig reload = config_;
  reload.source.reload_on_reset = true;
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline(reload));
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_NE(log_.str().find("RESET"), std::string::npos) << log_.str();
  // The current export (one folder) is loaded again on top: nothing newer, rows unchanged.
  EXPECT_EQ(summary.tables.at("cc_claim").counts.rows_read, 3);
  EXPECT_EQ(summary.tables.at("cc_claim").counts.inserted, 0);
  EXPECT_EQ(Rows("cc_claim"), rows);
  EXPECT_LE(SnapshotCount("cc_claim"), snapshots + 1);
  EXPECT_EQ(FilesIn(*pipeline, "cc_claim", FileState::kCommitted),
            std::vector<std::string>{"cc_claim/1/1000/part-0.parquet"});
}

TEST_F(PipelineTest, ATableErrorDoesNotStopTheOtherTables) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "claim"}});
  WriteCdaFile("cc_policy", "1", 1000, "part-0.parquet", {{7, "1", 0, "policy"}});
  WriteManifest({{"cc_claim", 1000}, {"cc_policy", 1000}});
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary first, pipeline->RunOnce());
  ASSERT_TRUE(first.ok()) << first.Format() << log_.str();
  EXPECT_EQ(first.batches_committed, 2);

  // cc_policy vanished from the manifest (a table error); cc_claim moves on.
  WriteCdaFile("cc_claim", "1", 2000, "part-0.parquet", {{2, "2", 0, "claim two"}});
  WriteManifest({{"cc_claim", 2000}});
  ASSERT_OK_AND_ASSIGN(RunSummary second, pipeline->RunOnce());
  EXPECT_FALSE(second.ok());
  EXPECT_FALSE(second.tables.at("cc_policy").error.empty()) << second.Format();
  EXPECT_TRUE(second.tables.at("cc_claim").error.empty()) << second.Format();
  EXPECT_EQ(second.tables.at("cc_claim").batches, 1);
  EXPECT_EQ(Rows("cc_claim").size(), 2u);
  EXPECT_EQ(Rows("cc_policy").size(), 1u);
  EXPECT_NE(second.Format().find("1 table failed"), std::string::npos) << second.Format();
}

TEST_F(PipelineTest, RunStopsPromptlyWhenAsked) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  PipelineConfig config = config_;
  config.trigger.interval_ms = 3'600'000;  // the wait must not delay the stop
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline(config));
  std::atomic<bool> stop{false};
  std::thread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(3000));
    stop.store(true);
  });
  const auto started = std::chrono::steady_clock::now();
  auto total = pipeline->Run(stop);
  const auto elapsed = std::chrono::steady_clock::now() - started;
  stopper.join();
  ASSERT_OK(total);
  EXPECT_EQ(total->batches_committed, 1);
  EXPECT_LT(elapsed, std::chrono::seconds(10));
  EXPECT_EQ(Rows("cc_claim").size(), 1u);
}

// A pipeline opened with no maintenance hook (as any caller of Pipeline::Open
// gets it) maintains its tables itself by its [maintenance] settings.
TEST_F(PipelineTest, APlainPipelineRunsItsOwnMaintenance) {
  for (int folder = 0; folder < 4; ++folder) {
    WriteCdaFile("cc_claim", "1", 1000 + folder * 100, "part-0.parquet",
                 {{folder + 1, std::to_string(folder + 1), 0, "row"}});
  }
  WriteManifest({{"cc_claim", 2000}});
  PipelineConfig config = config_;
  config.trigger.max_files_per_batch = 1;
  config.maintenance.enabled = true;
  config.maintenance.compact_every = 4;
  config.maintenance.min_input_files = 2;
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline(config));
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, LoadTable("cc_claim"));
  const iceberg::Snapshot* current = table.metadata().CurrentSnapshot();
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(current->summary.count("floe.maintenance"), 1u) << log_.str();
  EXPECT_NE(log_.str().find("maintenance default.cc_claim: compaction"), std::string::npos) << log_.str();
  EXPECT_EQ(Rows("cc_claim").size(), 4u);
  // The key index caught up with the compaction right after it (the rows it
  // moved, one run), so the next batch neither catches up nor rebuilds.
  ASSERT_OK_AND_ASSIGN(auto id, pipeline->TargetOf("cc_claim"));
  const fs::path index_dir = fs::path(config_.state_dir) / "tables" / id.ToString();
  EXPECT_TRUE(fs::exists(PrimaryKeyIndex::FilePath(index_dir.string(), current->snapshot_id)))
      << "no key index for the compaction's snapshot " << current->snapshot_id << "\n"
      << log_.str();
  // ...and the run finished that index's merges before it ended: one run
  // (four batches' runs and the moved rows' would otherwise wait for the
  // next run).
  ASSERT_OK_AND_ASSIGN(
      std::vector<uint8_t> manifest_bytes,
      MakeLocalFileIO()->ReadAll(PrimaryKeyIndex::FilePath(index_dir.string(), current->snapshot_id)));
  ASSERT_OK_AND_ASSIGN(auto manifest, key_index_internal::DecodeManifest(manifest_bytes));
  EXPECT_EQ(manifest.runs.size(), 1u) << log_.str();
  WriteCdaFile("cc_claim", "1", 2100, "part-0.parquet", {{1, "9", 4, "one v2"}});
  WriteManifest({{"cc_claim", 2100}});
  ASSERT_OK_AND_ASSIGN(RunSummary next, pipeline->RunOnce());
  EXPECT_TRUE(next.ok()) << next.Format() << log_.str();
  EXPECT_EQ(log_.str().find("rebuilt from the table"), std::string::npos) << log_.str();
  const auto rows = Rows("cc_claim");
  EXPECT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows.count(1) ? rows.at(1) : "", "one v2");
}

// A long --once load merges its key index as it goes (in the background, as
// a continuous run does): it used to keep one run per batch until the end
// (55 runs and 266 MiB of Bloom filters after a 100M-key load).
TEST_F(PipelineTest, ALongOnceLoadMergesItsKeyIndexAsItGoes) {
  constexpr int kFiles = 24;
  for (int folder = 0; folder < kFiles; ++folder) {
    WriteCdaFile("cc_claim", "1", 1000 + folder * 100, "part-0.parquet",
                 {{folder + 1, std::to_string(folder + 1), 0, "row"}});
  }
  WriteManifest({{"cc_claim", 1000 + kFiles * 100}});
  PipelineConfig config = config_;
  config.trigger.max_files_per_batch = 1;
  const std::string trace_path = (dir_.path() / "trace.jsonl").string();
  PipelineOptions options;
  options.log = &log_;
  options.trace_path = trace_path;
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_EQ(Rows("cc_claim").size(), static_cast<size_t>(kFiles));
  const std::vector<std::string> batches = TraceEvents(trace_path, "batch");
  ASSERT_EQ(batches.size(), static_cast<size_t>(kFiles)) << log_.str();
  double most_runs = 0;
  for (const std::string& batch : batches)
    most_runs = std::max(most_runs, NumberField(batch, "key_index_runs"));
  // Each batch adds a run and a finished merge is taken up at the next
  // batch's start; half the batches is slack for a slow merge thread.
  EXPECT_GE(most_runs, 1) << batches.back();
  EXPECT_LE(most_runs, kFiles / 2) << batches.back();
}

TEST_F(PipelineTest, OpenFailsWithAClearMessageForABadCatalog) {
  PipelineConfig config = config_;
  config.catalog.type = "sql";
  config.catalog.uri = "mysql://nowhere";
  auto pipeline = OpenPipeline(config);
  ASSERT_FALSE(pipeline.ok());
  EXPECT_NE(pipeline.status().message().find("mysql://nowhere"), std::string::npos)
      << pipeline.status().ToString();
}

// ---------------------------------------------------------------------------

}  // namespace
}  // namespace floe::ingest
