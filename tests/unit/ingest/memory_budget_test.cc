// [performance] memory_budget bounds a batch's change map: a batch that
// would exceed it is cut short before anything is written, released and
// applied as smaller batches; the table ends up exactly as without the cut,
// every file lands once, batch ids are never reused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/table/table_catalog.h"
#include "columnar/column.h"
#include "formats/parquet/file_writer.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/transaction/table.h"
#include "ingest/batch_planner.h"
#include "ingest/pipeline.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;

struct Row {
  int64_t id;
  std::string seq;  // gwcbi___seqval_hex
  int32_t op;       // 0 insert, 4 update, 1 delete
  std::string name;
};

class MemoryBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    export_dir_ = (dir_.path() / "export").string();
    fs::create_directories(export_dir_);
  }

  void WriteCdaFile(int64_t ts, const std::string& name, const std::vector<Row>& rows) {
    const fs::path path = fs::path(export_dir_) / "cc_claim" / "1" / std::to_string(ts) / name;
    Schema schema = {MakeField("id", Int64()), MakeField("gwcbi___seqval_hex", String()),
                     MakeField("gwcbi___operation", Int32()), MakeField("name", String())};
    RecordBatch batch;
    batch.schema = schema;
    batch.columns = {MakeEmptyColumn(Int64()), MakeEmptyColumn(String()), MakeEmptyColumn(Int32()),
                     MakeEmptyColumn(String())};
    for (const Row& r : rows) {
      batch.columns[0].AppendValue<int64_t>(r.id);
      batch.columns[1].AppendBytes(r.seq);
      batch.columns[2].AppendValue<int32_t>(r.op);
      batch.columns[3].AppendBytes(r.name);
    }
    batch.num_rows = static_cast<int64_t>(rows.size());
    auto io = MakeLocalFileIO();
    auto out = io->Create(path.string());
    ASSERT_OK(out);
    auto writer = parquet::ParquetFileWriter::Open(std::move(*out), schema, {});
    ASSERT_OK(writer);
    ASSERT_OK((*writer)->Write(batch));
    ASSERT_OK((*writer)->Close());
  }

  void WriteRaw(const std::string& relative, const std::string& bytes) {
    const fs::path path = fs::path(export_dir_) / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
  }

  // Eight folders of overlapping changes (updates, deletes, out-of-order
  // seqvals across files), plus one corrupt file in the middle.
  void WriteExport() {
    for (int folder = 0; folder < 8; ++folder) {
      for (int part = 0; part < 2; ++part) {
        std::vector<Row> rows;
        for (int64_t id = 0; id < 300; ++id) {
          const int64_t version = folder * 2 + part;
          if ((id + version) % 3 == 0) continue;
          // Part 1 of odd folders carries older seqvals than part 0: out of order.
          const int64_t seq = folder * 1000 + (folder % 2 == 1 ? 1 - part : part) * 500 + id;
          const int32_t op = version == 0 ? 0 : ((id + version) % 11 == 0 ? 1 : 4);
          std::ostringstream hex;
          hex << std::hex << seq;
          rows.push_back({id, hex.str(), op, "v" + std::to_string(version) + "-" + std::to_string(id)});
        }
        WriteCdaFile(1000 + folder * 100, "part-" + std::to_string(part) + ".parquet", rows);
      }
    }
    WriteRaw("cc_claim/1/1300/part-9.parquet", "not parquet at all");
    WriteRaw("manifest.json",
             "{\"cc_claim\": {\"lastSuccessfulWriteTimestamp\": \"5000\", \"totalProcessedRecordsCount\": 0, "
             "\"dataFilesPath\": \"s3://bucket/cc_claim\", \"schemaHistory\": {\"1\": \"1000\"}}}");
  }

  PipelineConfig Config(const std::string& name, int64_t budget) {
    PipelineConfig config;
    config.name = "budget";
    config.source.format = SourceFormat::kCda;
    config.source.uri = export_dir_;
    config.catalog.type = "filesystem";
    config.catalog.warehouse = (dir_.path() / (name + "-warehouse")).string();
    config.state_dir = (dir_.path() / (name + "-state")).string();
    config.target.ns = "default";
    config.performance.memory_budget_bytes = budget;
    return config;
  }

  // id -> name of the live rows of default.cc_claim in `warehouse`.
  std::map<int64_t, std::string> Rows(const std::string& warehouse) {
    std::map<int64_t, std::string> rows;
    auto tables = catalog::OpenCatalog("file://" + warehouse, "");
    EXPECT_OK(tables);
    if (!tables.ok()) return rows;
    auto id = catalog::ParseTableIdentifier("default.cc_claim");
    EXPECT_OK(id);
    auto ops = (*tables)->LoadTable(*id);
    EXPECT_OK(ops);
    if (!ops.ok()) return rows;
    auto table = iceberg::Table::Load(std::move(*ops));
    EXPECT_OK(table);
    if (!table.ok()) return rows;
    iceberg::ScanOptions options;
    options.columns = std::vector<std::string>{"id", "name"};
    auto scan = iceberg::TableScan::Make(table->metadata(), MakeLocalFileIO(), options);
    EXPECT_OK(scan);
    if (!scan.ok()) return rows;
    auto tasks = (*scan)->PlanFiles();
    EXPECT_OK(tasks);
    if (!tasks.ok()) return rows;
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      EXPECT_OK(reader);
      if (!reader.ok()) return rows;
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_OK(batch);
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        for (int64_t r = 0; r < b.num_rows; ++r) {
          EXPECT_TRUE(
              rows.emplace(b.columns[0].Value<int64_t>(r), std::string(b.columns[1].StringAt(r))).second);
        }
      }
    }
    return rows;
  }

  testing::TempDir dir_;
  std::string export_dir_;
};

TEST_F(MemoryBudgetTest, ATinyBudgetSplitsBatchesAndTheTableEqualsTheUnsplitRun) {
  WriteExport();
  std::ostringstream log_whole;
  std::ostringstream log_split;

  PipelineConfig whole = Config("whole", int64_t{512} << 20);
  PipelineOptions whole_options;
  whole_options.log = &log_whole;
  ASSERT_OK_AND_ASSIGN(auto whole_pipeline, Pipeline::Open(whole, whole_options));
  ASSERT_OK_AND_ASSIGN(RunSummary whole_summary, whole_pipeline->RunOnce());
  EXPECT_EQ(whole_summary.batches_committed, 1) << log_whole.str();
  EXPECT_EQ(log_whole.str().find("memory_budget"), std::string::npos);

  // One byte: every batch is cut after its first file.
  PipelineConfig split = Config("split", 1);
  PipelineOptions split_options;
  split_options.log = &log_split;
  ASSERT_OK_AND_ASSIGN(auto split_pipeline, Pipeline::Open(split, split_options));
  ASSERT_OK_AND_ASSIGN(RunSummary split_summary, split_pipeline->RunOnce());
  EXPECT_EQ(split_summary.batches_committed, 16) << log_split.str();
  EXPECT_EQ(split_summary.tables.at("cc_claim").quarantined, 1);
  EXPECT_NE(log_split.str().find("outgrew [performance] memory_budget"), std::string::npos);

  const auto expected = Rows(whole.catalog.warehouse);
  EXPECT_GT(expected.size(), 100u);
  EXPECT_EQ(Rows(split.catalog.warehouse), expected);

  // Every good file committed exactly once, each in a batch of its own; ids never reused.
  ASSERT_OK_AND_ASSIGN(auto files, split_pipeline->ledger().Files({}));
  std::set<int64_t> batch_ids;
  int committed = 0;
  int quarantined = 0;
  for (const LedgerFile& file : files) {
    if (file.state == FileState::kQuarantined) {
      ++quarantined;
      EXPECT_NE(file.file.uri.find("part-9"), std::string::npos);
      continue;
    }
    EXPECT_EQ(file.state, FileState::kCommitted) << file.file.uri;
    ASSERT_TRUE(file.batch_id.has_value());
    EXPECT_TRUE(batch_ids.insert(*file.batch_id).second) << "batch " << *file.batch_id << " holds two files";
    ++committed;
  }
  EXPECT_EQ(committed, 16);
  EXPECT_EQ(quarantined, 1);
  // Released batches took ids too: the committed ones are not 1..16.
  EXPECT_GT(*batch_ids.rbegin(), 16);

  // Nothing left: a second run commits nothing.
  ASSERT_OK_AND_ASSIGN(RunSummary again, split_pipeline->RunOnce());
  EXPECT_EQ(again.batches_committed, 0);
}

TEST(SplitAtBudgetCutTest, KeepsOrderDropsSetAsideAndEmptyParts) {
  std::vector<SourceFile> batch(4);
  for (size_t i = 0; i < batch.size(); ++i) batch[i].uri = "f" + std::to_string(i);
  auto parts = SplitAtBudgetCut(batch, 2, {"f1"});
  ASSERT_EQ(parts.size(), 2u);
  ASSERT_EQ(parts[0].size(), 1u);
  EXPECT_EQ(parts[0][0].uri, "f0");
  ASSERT_EQ(parts[1].size(), 2u);
  EXPECT_EQ(parts[1][0].uri, "f2");
  EXPECT_EQ(parts[1][1].uri, "f3");
  parts = SplitAtBudgetCut(batch, 1, {"f0"});
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].size(), 3u);
  EXPECT_TRUE(SplitAtBudgetCut({}, 0, {}).empty());
}

}  // namespace
}  // namespace floe::ingest
