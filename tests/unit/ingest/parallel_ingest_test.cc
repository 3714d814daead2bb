// [performance] threads: source files read ahead and output chunks encoded
// on a pool must not change anything observable — the same input gives the
// same table rows, counts, data files (row counts, sizes) and quarantines
// with 1, 2 or 4 threads, in merge and append mode, with files of several
// row groups, a corrupt file and a file missing the key column in the middle.
// The tables of a poll are applied in parallel ([performance]
// parallel_tables), with the same outcome as one at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/filesystem/filesystem_catalog.h"
#include "catalog/table/catalog.h"
#include "columnar/column.h"
#include "formats/parquet/file_writer.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/transaction/table.h"
#include "ingest/pipeline.h"
#include "io/forwarding_file_io.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;

class ParallelIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    export_dir_ = (dir_.path() / "export").string();
    fs::create_directories(export_dir_);
  }

  // A CDA part file of `rows` changes with three row groups (so pass 2
  // reads several row groups per file, some without selected rows).
  void WritePart(int64_t ts, int part, bool with_key, const std::string& table = "cc_claim") {
    const fs::path path = fs::path(export_dir_) / table / "1" / std::to_string(ts) /
                          ("part-" + std::to_string(part) + ".parquet");
    Schema schema = {MakeField(with_key ? "id" : "not_id", Int64()),
                     MakeField("gwcbi___seqval_hex", String()), MakeField("gwcbi___operation", Int32()),
                     MakeField("name", String()), MakeField("amount", Float64())};
    RecordBatch batch;
    batch.schema = schema;
    for (const Field& f : schema) batch.columns.push_back(MakeEmptyColumn(f.type));
    const int64_t version = (ts / 100) * 4 + part;
    for (int64_t id = 0; id < 900; ++id) {
      if ((id * 7 + version) % 5 == 0) continue;
      // Odd parts carry older seqvals than even ones of the same folder: out of order.
      const int64_t seq = ts * 10'000 + (part % 2 == 1 ? 0 : 5'000) + id;
      const int32_t op =
          version < 2 ? 0 : ((id + version) % 13 == 0 ? 1 : ((id + version) % 17 == 0 ? 3 : 4));
      std::ostringstream hex;
      hex << std::hex << seq;
      batch.columns[0].AppendValue<int64_t>(id);
      batch.columns[1].AppendBytes(hex.str());
      batch.columns[2].AppendValue<int32_t>(op);
      batch.columns[3].AppendBytes("v" + std::to_string(version) + "-" + std::to_string(id));
      batch.columns[4].AppendValue<double>(static_cast<double>(id) * 0.25 + static_cast<double>(version));
    }
    batch.num_rows = batch.columns[0].length;
    auto io = MakeLocalFileIO();
    auto out = io->Create(path.string());
    ASSERT_OK(out);
    parquet::ParquetWriterOptions options;
    options.row_group_max_rows = 300;
    auto writer = parquet::ParquetFileWriter::Open(std::move(*out), schema, options);
    ASSERT_OK(writer);
    ASSERT_OK((*writer)->Write(batch));
    ASSERT_OK((*writer)->Close());
  }

  void WriteExport() {
    for (int folder = 0; folder < 6; ++folder) {
      for (int part = 0; part < 3; ++part) WritePart(1000 + folder * 100, part, !(folder == 2 && part == 1));
    }
    const fs::path corrupt = fs::path(export_dir_) / "cc_claim/1/1300/part-7.parquet";
    std::ofstream(corrupt, std::ios::binary) << "PAR1 but not parquet";
    std::ofstream(fs::path(export_dir_) / "manifest.json")
        << "{\"cc_claim\": {\"lastSuccessfulWriteTimestamp\": \"5000\", \"totalProcessedRecordsCount\": 0, "
           "\"dataFilesPath\": \"s3://bucket/cc_claim\", \"schemaHistory\": {\"1\": \"1000\"}}}";
  }

  PipelineConfig Config(const std::string& name, int threads, WriteMode mode) {
    PipelineConfig config;
    config.name = "parallel";
    config.source.discovery = DiscoveryKind::kCda;
    config.source.uri = export_dir_;
    config.catalog.type = "filesystem";
    config.catalog.warehouse = (dir_.path() / (name + "-warehouse")).string();
    config.state_dir = (dir_.path() / (name + "-state")).string();
    config.target.ns = "default";
    config.target.target_file_size_bytes = 4 << 10;  // several data files
    config.merge.mode = mode;
    config.performance.threads = threads;
    config.maintenance.enabled = false;
    return config;
  }

  struct TableContent {
    std::multimap<int64_t, std::string> rows;  // id -> name|amount
    std::vector<int64_t> data_file_rows;       // per data file, in manifest order
    std::vector<int64_t> data_file_sizes;
  };

  TableContent Content(const std::string& warehouse, const std::string& table_name = "cc_claim") {
    TableContent content;
    auto tables = catalog::OpenFilesystemCatalog(warehouse);
    EXPECT_OK(tables);
    if (!tables.ok()) return content;
    auto id = catalog::ParseTableIdentifier("default." + table_name);
    EXPECT_OK(id);
    auto ops = (*tables)->LoadTable(*id);
    EXPECT_OK(ops);
    if (!ops.ok()) return content;
    auto table = iceberg::Table::Load(std::move(*ops));
    EXPECT_OK(table);
    if (!table.ok()) return content;
    iceberg::ScanOptions options;
    options.columns = std::vector<std::string>{"id", "name", "amount"};
    auto scan = iceberg::TableScan::Make(table->metadata(), MakeLocalFileIO(), options);
    EXPECT_OK(scan);
    if (!scan.ok()) return content;
    auto tasks = (*scan)->PlanFiles();
    EXPECT_OK(tasks);
    if (!tasks.ok()) return content;
    std::vector<std::pair<int64_t, int64_t>> files;  // (rows, bytes), sorted: plan order is not specified
    for (const auto& task : *tasks) {
      files.emplace_back(task.data.file.record_count, task.data.file.file_size_in_bytes);
      auto reader = (*scan)->Open(task);
      EXPECT_OK(reader);
      if (!reader.ok()) return content;
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_OK(batch);
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        for (int64_t r = 0; r < b.num_rows; ++r) {
          content.rows.emplace(
              b.columns[0].Value<int64_t>(r),
              std::string(b.columns[1].StringAt(r)) + "|" + std::to_string(b.columns[2].Value<double>(r)));
        }
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& [rows, bytes] : files) {
      content.data_file_rows.push_back(rows);
      content.data_file_sizes.push_back(bytes);
    }
    return content;
  }

  void ExpectSameForEveryThreadCount(WriteMode mode) {
    WriteExport();
    std::optional<TableContent> expected;
    std::optional<BatchCounts> expected_counts;
    std::set<std::string> expected_quarantined;
    for (int threads : {1, 2, 4}) {
      SCOPED_TRACE("threads " + std::to_string(threads));
      const std::string name =
          std::string(mode == WriteMode::kMerge ? "merge" : "append") + std::to_string(threads);
      PipelineConfig config = Config(name, threads, mode);
      std::ostringstream log;
      PipelineOptions options;
      options.log = &log;
      ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
      ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
      ASSERT_EQ(summary.tables.count("cc_claim"), 1u) << log.str();
      const TableRunSummary& table = summary.tables.at("cc_claim");
      EXPECT_EQ(table.error, "") << log.str();
      // The corrupt file; in merge mode also the file without the key column.
      EXPECT_EQ(table.quarantined, mode == WriteMode::kMerge ? 2 : 1) << log.str();
      std::set<std::string> quarantined;
      ASSERT_OK_AND_ASSIGN(auto files, pipeline->ledger().Files({}));
      for (const LedgerFile& file : files) {
        if (file.state == FileState::kQuarantined) quarantined.insert(file.file.uri);
      }
      TableContent content = Content(config.catalog.warehouse);
      EXPECT_GT(content.rows.size(), 500u);
      EXPECT_GT(content.data_file_rows.size(), 1u);
      if (!expected) {
        expected = content;
        expected_counts = table.counts;
        expected_quarantined = quarantined;
        continue;
      }
      EXPECT_EQ(quarantined, expected_quarantined);
      EXPECT_EQ(table.counts.rows_read, expected_counts->rows_read);
      EXPECT_EQ(table.counts.inserted, expected_counts->inserted);
      EXPECT_EQ(table.counts.updated, expected_counts->updated);
      EXPECT_EQ(table.counts.deleted, expected_counts->deleted);
      EXPECT_EQ(table.counts.stale, expected_counts->stale);
      EXPECT_EQ(table.counts.ignored, expected_counts->ignored);
      EXPECT_EQ(table.counts.data_files_written, expected_counts->data_files_written);
      EXPECT_EQ(table.counts.delete_files_written, expected_counts->delete_files_written);
      EXPECT_TRUE(content.rows == expected->rows);
      EXPECT_EQ(content.data_file_rows, expected->data_file_rows);
      EXPECT_EQ(content.data_file_sizes, expected->data_file_sizes);
    }
  }

  floe::testing::TempDir dir_;
  std::string export_dir_;
};

TEST_F(ParallelIngestTest, MergeModeIsTheSameWithAnyThreadCount) {
  ExpectSameForEveryThreadCount(WriteMode::kMerge);
}

TEST_F(ParallelIngestTest, AppendModeIsTheSameWithAnyThreadCount) {
  ExpectSameForEveryThreadCount(WriteMode::kAppend);
}

// Holds the first data file a table creates until another table creates one
// too (or 5 s passed): the tables meet only when applied at the same time.
class RendezvousFileIO final : public ForwardingFileIO {
 public:
  struct Meeting {
    std::mutex mutex;
    std::condition_variable arrived;
    std::set<std::string> tables;  // that created a data file
    bool met = false;
  };
  RendezvousFileIO(std::shared_ptr<FileIO> base, std::shared_ptr<Meeting> meeting)
      : ForwardingFileIO(std::move(base)), meeting_(std::move(meeting)) {}

  Result<std::unique_ptr<OutputFile>> Create(const std::string& path, CreateOptions options) override {
    const size_t data = path.find("/data/");
    const size_t slash = data == std::string::npos ? data : path.rfind('/', data - 1);
    if (slash != std::string::npos) {
      const std::string table = path.substr(slash + 1, data - slash - 1);
      std::unique_lock lock(meeting_->mutex);
      // Met: the first table waited, and another one came while it did.
      if (meeting_->tables.insert(table).second && meeting_->tables.size() == 1) {
        meeting_->met = meeting_->arrived.wait_for(lock, std::chrono::seconds(5),
                                                   [&] { return meeting_->tables.size() >= 2; });
      } else {
        meeting_->arrived.notify_all();
      }
    }
    return base().Create(path, options);
  }

 private:
  std::shared_ptr<Meeting> meeting_;
};

TEST_F(ParallelIngestTest, TablesOfAPollAreAppliedInParallelWithTheSameOutcome) {
  WriteExport();  // cc_claim, with a corrupt file and a file without the key column
  for (int folder = 0; folder < 4; ++folder) {
    for (int part = 0; part < 2; ++part) WritePart(1000 + folder * 100, part, true, "cc_contact");
  }
  std::ofstream(fs::path(export_dir_) / "manifest.json")
      << "{\"cc_claim\": {\"lastSuccessfulWriteTimestamp\": \"5000\", \"totalProcessedRecordsCount\": 0, "
         "\"dataFilesPath\": \"s3://bucket/cc_claim\", \"schemaHistory\": {\"1\": \"1000\"}}, "
         "\"cc_contact\": {\"lastSuccessfulWriteTimestamp\": \"5000\", \"totalProcessedRecordsCount\": 0, "
         "\"dataFilesPath\": \"s3://bucket/cc_contact\", \"schemaHistory\": {\"1\": \"1000\"}}}";
  std::map<int, std::map<std::string, TableContent>> contents;
  std::map<int, std::map<std::string, BatchCounts>> counts;
  for (int parallel : {1, 2}) {
    SCOPED_TRACE("parallel_tables " + std::to_string(parallel));
    PipelineConfig config = Config("tables" + std::to_string(parallel), 2, WriteMode::kMerge);
    config.performance.parallel_tables = parallel;
    config.trigger.max_files_per_batch = 4;  // several batches per table
    std::ostringstream log;
    PipelineOptions options;
    options.log = &log;
    auto meeting = std::make_shared<RendezvousFileIO::Meeting>();
    options.wrap_file_io = [meeting](std::shared_ptr<FileIO> base) {
      return std::make_shared<RendezvousFileIO>(std::move(base), meeting);
    };
    ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
    ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
    EXPECT_EQ(meeting->met, parallel == 2) << log.str();
    for (const std::string table : {"cc_claim", "cc_contact"}) {
      ASSERT_EQ(summary.tables.count(table), 1u) << log.str();
      EXPECT_EQ(summary.tables.at(table).error, "") << log.str();
      EXPECT_EQ(summary.tables.at(table).quarantined, table == "cc_claim" ? 2 : 0) << log.str();
      EXPECT_GT(summary.tables.at(table).batches, 1) << log.str();
      contents[parallel][table] = Content(config.catalog.warehouse, table);
      counts[parallel][table] = summary.tables.at(table).counts;
      EXPECT_GT(contents[parallel][table].rows.size(), 500u);
    }
  }
  for (const std::string table : {"cc_claim", "cc_contact"}) {
    SCOPED_TRACE(table);
    EXPECT_TRUE(contents[1][table].rows == contents[2][table].rows);
    EXPECT_EQ(contents[1][table].data_file_rows, contents[2][table].data_file_rows);
    EXPECT_EQ(counts[1][table].rows_read, counts[2][table].rows_read);
    EXPECT_EQ(counts[1][table].inserted, counts[2][table].inserted);
    EXPECT_EQ(counts[1][table].updated, counts[2][table].updated);
    EXPECT_EQ(counts[1][table].deleted, counts[2][table].deleted);
    EXPECT_EQ(counts[1][table].stale, counts[2][table].stale);
  }
}

}  // namespace
}  // namespace floe::ingest
