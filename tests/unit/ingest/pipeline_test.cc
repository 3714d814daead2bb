// Pipeline end to end on a tiny CDA export: committed folders only, nothing
// twice, new folders, quarantine, crash recovery both ways, resets, batch
// limits, independent tables, the stoppable loop, and the continuous loop's
// scheduling (new data before maintenance, polling again at once after a
// commit, the interval counted from the previous poll's start, idle polls
// writing nothing) and its trace.
#include "ingest/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "catalog/table/table_catalog.h"
#include "columnar/column.h"
#include "formats/parquet/file_writer.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/transaction/table.h"
#include "ingest/source/source.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;

struct Change {
  int64_t id;
  std::string seq;  // gwcbi___seqval_hex, not padded
  int32_t op;       // 0/2 insert, 4 update, 1 delete
  std::string name;
};

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    export_dir_ = (dir_.path() / "export").string();
    fs::create_directories(export_dir_);
    config_.name = "test-pipeline";
    config_.source.format = SourceFormat::kCda;
    config_.source.uri = export_dir_;
    config_.catalog.type = "filesystem";
    config_.catalog.warehouse = (dir_.path() / "warehouse").string();
    config_.state_dir = (dir_.path() / "state").string();
    config_.target.ns = "default";
    config_.trigger.interval_ms = 50;
  }

  // <export>/<table>/<fingerprint>/<ts>/<name> as a CDA part file.
  void WriteCdaFile(const std::string& table, const std::string& fingerprint, int64_t ts,
                    const std::string& name, const std::vector<Change>& changes) {
    const fs::path path = fs::path(export_dir_) / table / fingerprint / std::to_string(ts) / name;
    Schema schema = {MakeField("id", Int64()), MakeField("gwcbi___seqval_hex", String()),
                     MakeField("gwcbi___operation", Int32()), MakeField("name", String())};
    RecordBatch batch;
    batch.schema = schema;
    batch.columns = {MakeEmptyColumn(Int64()), MakeEmptyColumn(String()), MakeEmptyColumn(Int32()),
                     MakeEmptyColumn(String())};
    for (const Change& c : changes) {
      batch.columns[0].AppendValue<int64_t>(c.id);
      batch.columns[1].AppendBytes(c.seq);
      batch.columns[2].AppendValue<int32_t>(c.op);
      batch.columns[3].AppendBytes(c.name);
    }
    batch.num_rows = static_cast<int64_t>(changes.size());
    auto io = MakeLocalFileIO();
    auto out = io->Create(path.string());
    ASSERT_OK(out);
    auto writer = parquet::ParquetFileWriter::Open(std::move(*out), schema, {});
    ASSERT_OK(writer);
    ASSERT_OK((*writer)->Write(batch));
    ASSERT_OK((*writer)->Close());
  }

  void WriteRawFile(const std::string& relative, const std::string& bytes) {
    const fs::path path = fs::path(export_dir_) / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
  }

  // tables: name -> lastSuccessfulWriteTimestamp; every table has fingerprint "1" from 1000.
  void WriteManifest(const std::map<std::string, int64_t>& tables) {
    std::string json = "{";
    for (const auto& [name, last] : tables) {
      if (json.size() > 1) json += ",";
      json += "\"" + name + "\": {\"lastSuccessfulWriteTimestamp\": \"" + std::to_string(last) +
              "\", \"totalProcessedRecordsCount\": 0, \"dataFilesPath\": \"s3://bucket/" + name +
              "\", \"schemaHistory\": {\"1\": \"1000\"}}";
    }
    WriteRawFile("manifest.json", json + "}");
  }

  Result<std::unique_ptr<Pipeline>> OpenPipeline(PipelineConfig config) {
    PipelineOptions options;
    options.log = &log_;
    return Pipeline::Open(std::move(config), options);
  }
  Result<std::unique_ptr<Pipeline>> OpenPipeline() { return OpenPipeline(config_); }

  std::unique_ptr<catalog::TableCatalog> ReadCatalog() {
    auto tables = catalog::OpenCatalog("file://" + config_.catalog.warehouse, "");
    EXPECT_TRUE(tables.ok()) << tables.status().ToString();
    return tables.ok() ? std::move(*tables) : nullptr;
  }

  Result<iceberg::Table> LoadTable(const std::string& name) {
    auto tables = ReadCatalog();
    if (tables == nullptr) return Status::Internal("no catalog");
    FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier("default." + name));
    FLOE_ASSIGN_OR_RETURN(auto ops, tables->LoadTable(id));
    return iceberg::Table::Load(std::move(ops));
  }

  // id -> name of the table's live rows.
  std::map<int64_t, std::string> Rows(const std::string& name) {
    std::map<int64_t, std::string> rows;
    auto table = LoadTable(name);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) return rows;
    iceberg::ScanOptions options;
    options.columns = std::vector<std::string>{"id", "name"};
    auto scan = iceberg::TableScan::Make(table->metadata(), MakeLocalFileIO(), options);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    if (!scan.ok()) return rows;
    auto tasks = (*scan)->PlanFiles();
    EXPECT_TRUE(tasks.ok()) << tasks.status().ToString();
    if (!tasks.ok()) return rows;
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      EXPECT_TRUE(reader.ok()) << reader.status().ToString();
      if (!reader.ok()) return rows;
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_TRUE(batch.ok()) << batch.status().ToString();
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        for (int64_t r = 0; r < b.num_rows; ++r) {
          const bool inserted =
              rows.emplace(b.columns[0].Value<int64_t>(r), std::string(b.columns[1].StringAt(r))).second;
          EXPECT_TRUE(inserted) << "key " << b.columns[0].Value<int64_t>(r) << " is live twice";
        }
      }
    }
    return rows;
  }

  size_t SnapshotCount(const std::string& name) {
    auto table = LoadTable(name);
    return table.ok() ? table->metadata().snapshots.size() : 0;
  }

  // Ledger files of `table` in `state`, as paths relative to the export.
  std::vector<std::string> FilesIn(Pipeline& pipeline, const std::string& table, FileState state) {
    LedgerFilter filter;
    filter.table = table;
    filter.state = state;
    auto files = pipeline.ledger().Files(filter);
    EXPECT_TRUE(files.ok()) << files.status().ToString();
    std::vector<std::string> out;
    if (!files.ok()) return out;
    for (const LedgerFile& f : *files) out.push_back(fs::relative(f.file.uri, export_dir_).string());
    std::sort(out.begin(), out.end());
    return out;
  }

  void WriteFirstExport() {
    WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet",
                 {{1, "a", 0, "one"}, {2, "b", 0, "two"}, {3, "c", 2, "three"}});
    WriteCdaFile("cc_claim", "1", 2000, "part-1.parquet", {{2, "1b", 4, "two v2"}, {3, "1c", 1, ""}});
    // Newer than the manifest: still being written, must wait.
    WriteCdaFile("cc_claim", "1", 3000, "part-2.parquet", {{4, "2a", 0, "four"}});
    WriteManifest({{"cc_claim", 2000}});
  }

  testing::TempDir dir_;
  std::string export_dir_;
  PipelineConfig config_;
  std::ostringstream log_;
};

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
Result<std::pair<int64_t, std::vector<SourceFile>>> OpenBatchLikeACrashedRun(Pipeline& pipeline,
                                                                             const PipelineConfig& config) {
  std::shared_ptr<FileIO> io = MakeLocalFileIO();
  FLOE_ASSIGN_OR_RETURN(auto source, MakeSource(config.source, io));
  FLOE_ASSIGN_OR_RETURN(Discovery discovery, source->Discover({}, 0));
  FLOE_ASSIGN_OR_RETURN(auto recorded, pipeline.ledger().RecordDiscovered(discovery.files, 1));
  (void)recorded;
  FLOE_ASSIGN_OR_RETURN(auto pending, pipeline.ledger().Pending("cc_claim"));
  std::vector<SourceFile> files;
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
    ASSERT_OK_AND_ASSIGN(auto ingestor, TableIngestor::Open(pipeline->table_catalog(), MakeLocalFileIO(),
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
// Continuous mode: new data first.

// A log whose every flush hands the text logged so far to `on_flush` (the
// pipeline flushes after each batch line), to act at a known moment of a Run.
class WatchedLog : public std::stringbuf {
 public:
  std::function<void(const std::string&)> on_flush;

 protected:
  int sync() override {
    if (on_flush) on_flush(str());
    return 0;
  }
};

size_t CountOf(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// Sets `stop` once `done()` holds (checked every 10 ms) or after `limit`,
// unless the test stopped it first.
class StopWhen {
 public:
  StopWhen(std::atomic<bool>& stop, std::function<bool()> done, std::chrono::milliseconds limit)
      : thread_([&stop, done = std::move(done), limit, this] {
          const auto until = std::chrono::steady_clock::now() + limit;
          while (!stop.load() && !finished_.load() && std::chrono::steady_clock::now() < until) {
            if (done && done()) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          stop.store(true);
        }) {}
  ~StopWhen() {
    finished_.store(true);
    thread_.join();
  }

 private:
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The trace's lines of one event, in order.
std::vector<std::string> TraceEvents(const std::string& path, const std::string& event) {
  std::vector<std::string> lines;
  std::istringstream text(ReadText(path));
  for (std::string line; std::getline(text, line);) {
    if (line.find("\"event\":\"" + event + "\"") != std::string::npos) lines.push_back(line);
  }
  return lines;
}

double NumberField(const std::string& line, const std::string& key) {
  const size_t at = line.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::stod(line.substr(at + key.size() + 3));
}

TEST_F(PipelineTest, ContinuousModeMaintainsOnlyWhenNothingIsWaiting) {
  // Two ingest commits per table (one file per batch): both tables fall due with compact_every 2.
  for (const std::string table : {"cc_a", "cc_b"}) {
    WriteCdaFile(table, "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
    WriteCdaFile(table, "1", 1100, "part-0.parquet", {{2, "2", 0, "two"}});
  }
  WriteManifest({{"cc_a", 1100}, {"cc_b", 1100}});
  PipelineConfig config = config_;
  config.trigger.interval_ms = 3'600'000;  // a sleep would outlast the test: every poll here is immediate
  config.trigger.max_files_per_batch = 1;
  config.maintenance.enabled = true;
  config.maintenance.compact_every = 2;

  std::atomic<bool> stop{false};
  Pipeline* running = nullptr;
  struct Call {
    std::string table;
    std::vector<std::string> tables_with_work;
    size_t committed_files = 0;
  };
  std::vector<Call> calls;
  PipelineOptions options;
  options.log = &log_;
  options.maintain = [&](catalog::TableCatalog&, const catalog::TableIdentifier& id) -> Result<std::string> {
    Call call;
    call.table = id.ToString();
    FLOE_ASSIGN_OR_RETURN(call.tables_with_work, running->ledger().TablesWithWork());
    LedgerFilter committed;
    committed.state = FileState::kCommitted;
    FLOE_ASSIGN_OR_RETURN(auto files, running->ledger().Files(committed));
    call.committed_files = files.size();
    calls.push_back(call);
    if (calls.size() == 1) {
      // A landing arrives while the first table is maintained: it must be
      // applied before the second table's maintenance.
      WriteCdaFile("cc_a", "1", 2000, "part-0.parquet", {{3, "3", 0, "three"}});
      WriteCdaFile("cc_b", "1", 2000, "part-0.parquet", {{3, "3", 0, "three"}});
      WriteManifest({{"cc_a", 2000}, {"cc_b", 2000}});
    } else {
      stop.store(true);
    }
    return std::string("nothing to do");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  running = pipeline.get();
  StopWhen safety(stop, nullptr, std::chrono::seconds(20));
  ASSERT_OK_AND_ASSIGN(RunSummary total, pipeline->Run(stop));

  ASSERT_EQ(calls.size(), 2u) << log_.str();
  EXPECT_EQ(calls[0].table, "default.cc_a");
  EXPECT_TRUE(calls[0].tables_with_work.empty()) << "maintenance ran while files were pending";
  EXPECT_EQ(calls[0].committed_files, 4u);
  EXPECT_EQ(calls[1].table, "default.cc_b");
  EXPECT_TRUE(calls[1].tables_with_work.empty());
  EXPECT_EQ(calls[1].committed_files, 6u) << "the landing waited behind maintenance";
  EXPECT_EQ(total.batches_committed, 6);
  EXPECT_EQ(Rows("cc_a").size(), 3u);
  EXPECT_EQ(Rows("cc_b").size(), 3u);
}

TEST_F(PipelineTest, ContinuousModeStillMaintainsATableThatNeverGoesIdle) {
  // Five batches in one poll with compact_every 2: due after the 2nd commit
  // (deferred), overdue after the 4th (run then), the 5th is still pending.
  for (int64_t i = 0; i < 5; ++i) {
    WriteCdaFile("cc_claim", "1", 1000 + i, "part-0.parquet", {{i, std::to_string(i + 1), 0, "row"}});
  }
  WriteManifest({{"cc_claim", 1004}});
  PipelineConfig config = config_;
  config.trigger.interval_ms = 3'600'000;
  config.trigger.max_files_per_batch = 1;
  config.maintenance.enabled = true;
  config.maintenance.compact_every = 2;
  std::atomic<bool> stop{false};
  Pipeline* running = nullptr;
  std::vector<size_t> pending_at_call;
  PipelineOptions options;
  options.log = &log_;
  options.trace_path = (dir_.path() / "trace.jsonl").string();
  options.maintain = [&](catalog::TableCatalog&, const catalog::TableIdentifier&) -> Result<std::string> {
    FLOE_ASSIGN_OR_RETURN(auto pending, running->ledger().Pending("cc_claim"));
    pending_at_call.push_back(pending.size());
    return std::string("nothing to do");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  running = pipeline.get();
  {
    // Until the loop first goes to sleep: everything applied, nothing due.
    StopWhen stopper(
        stop, [&] { return !TraceEvents(options.trace_path, "sleep").empty(); }, std::chrono::seconds(20));
    ASSERT_OK(pipeline->Run(stop));
  }
  EXPECT_EQ(pending_at_call, std::vector<size_t>{1}) << log_.str();
  EXPECT_EQ(Rows("cc_claim").size(), 5u);
}

TEST_F(PipelineTest, ContinuousModePollsAgainAtOnceAfterCommitting) {
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

TEST_F(PipelineTest, ContinuousModeCountsTheIntervalFromThePreviousPollsStart) {
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

TEST_F(PipelineTest, AnIdlePollWritesNothingToTheLedger) {
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

TEST_F(PipelineTest, TraceRecordsPollsBatchesMaintenanceAndIdleMemory) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  PipelineConfig config = config_;
  config.maintenance.enabled = true;
  config.maintenance.compact_every = 1;
  config.trigger.interval_ms = 100;
  PipelineOptions options;
  options.log = &log_;
  options.trace_path = (dir_.path() / "trace.jsonl").string();
  options.maintain = [](catalog::TableCatalog&, const catalog::TableIdentifier&) -> Result<std::string> {
    return std::string("nothing to do");
  };
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  std::atomic<bool> stop{false};
  {
    StopWhen stopper(
        stop, [&] { return TraceEvents(options.trace_path, "sleep").size() >= 2; }, std::chrono::seconds(20));
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

}  // namespace
}  // namespace floe::ingest
