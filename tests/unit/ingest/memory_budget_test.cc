// [performance] memory_budget bounds a batch's change map: a batch that
// would exceed it is cut short before anything is written, released and
// applied as smaller batches; the table ends up exactly as without the cut,
// every file lands once, batch ids are never reused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "formats/parquet/thrift/parquet_types.h"
#include "ingest/batch_planner.h"
#include "ingest/format/parquet_file_format.h"
#include "ingest/pipeline.h"
#include "pipeline_test_util.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using pipeline_testing::Change;

class MemoryBudgetTest : public pipeline_testing::PipelineTest {
 protected:
  // Eight folders of overlapping changes (updates, deletes, out-of-order
  // seqvals across files), plus one corrupt file in the middle.
  void WriteExport() {
    for (int folder = 0; folder < 8; ++folder) {
      for (int part = 0; part < 2; ++part) {
        std::vector<Change> rows;
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
        WriteCdaFile("cc_claim", "1", 1000 + folder * 100, "part-" + std::to_string(part) + ".parquet", rows);
      }
    }
    WriteRawFile("cc_claim/1/1300/part-9.parquet", "not parquet at all");
    WriteManifest({{"cc_claim", 5000}});
  }

  // The fixture's config with its own warehouse and state for `name`.
  PipelineConfig Config(const std::string& name, int64_t budget) {
    PipelineConfig config = config_;
    config.name = "budget";
    config.catalog.warehouse = (dir_.path() / (name + "-warehouse")).string();
    config.state_dir = (dir_.path() / (name + "-state")).string();
    config.performance.memory_budget_bytes = budget;
    return config;
  }

  // id -> name of the live rows of default.cc_claim in `config`'s warehouse.
  std::map<int64_t, std::string> RowsOf(const PipelineConfig& config) {
    config_.catalog.warehouse = config.catalog.warehouse;
    return Rows("cc_claim");
  }
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

  // One byte: the first batch is cut after its first file, and the rest is
  // re-planned one file per batch at once (the corrupt file too, set aside
  // in a batch of its own), not scanned and cut again batch after batch.
  PipelineConfig split = Config("split", 1);
  PipelineOptions split_options;
  split_options.log = &log_split;
  ASSERT_OK_AND_ASSIGN(auto split_pipeline, Pipeline::Open(split, split_options));
  ASSERT_OK_AND_ASSIGN(RunSummary split_summary, split_pipeline->RunOnce());
  EXPECT_EQ(split_summary.batches_committed, 17) << log_split.str();
  EXPECT_NE(log_split.str().find("batch 1 outgrew [performance] memory_budget; released, applied again as 17 "
                                 "smaller batches"),
            std::string::npos)
      << log_split.str();
  EXPECT_EQ(log_split.str().find("batch 2 outgrew"), std::string::npos) << log_split.str();
  EXPECT_EQ(split_summary.tables.at("cc_claim").quarantined, 1);
  EXPECT_NE(log_split.str().find("outgrew [performance] memory_budget"), std::string::npos);

  const auto expected = RowsOf(whole);
  EXPECT_GT(expected.size(), 100u);
  EXPECT_EQ(RowsOf(split), expected);

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

// The progress line counts each file once, although a cut batch's files are
// read again by the smaller batches it is re-planned into.
TEST_F(MemoryBudgetTest, ProgressCountsReplannedFilesOnce) {
  WriteExport();
  std::ostringstream terminal;
  PipelineOptions options;
  options.log = &terminal;
  options.progress_bar = true;
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(Config("progress", 1), options));
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_EQ(summary.batches_committed, 17);  // 16 good files and the corrupt one, one per batch
  // "[cc_claim] files N/17 ..." redrawn after carriage returns: N never passes the total.
  const std::string text = terminal.str();
  int64_t highest = -1;
  for (size_t at = text.find("files "); at != std::string::npos; at = text.find("files ", at + 1)) {
    highest = std::max<int64_t>(highest, std::stoll(text.substr(at + 6)));
  }
  EXPECT_EQ(highest, 16) << text;  // 16 good files; the corrupt one is quarantined, not read
}

// A Parquet file's bytes and its parsed footer (`parsed` false when it does not parse).
struct ParquetFooter {
  std::vector<uint8_t> bytes;
  size_t footer_start = 0;
  parquet::FileMetaData meta;
  bool parsed = false;
};

ParquetFooter ReadParquetFooter(const std::string& path) {
  ParquetFooter footer;
  std::ifstream in(path, std::ios::binary);
  footer.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (footer.bytes.size() < 12) return footer;
  uint32_t length = 0;
  std::memcpy(&length, footer.bytes.data() + footer.bytes.size() - 8, 4);
  if (length > footer.bytes.size() - 12) return footer;
  footer.footer_start = footer.bytes.size() - 8 - length;
  footer.parsed =
      parquet::DeserializeFileMetaData({footer.bytes.data() + footer.footer_start, length}, &footer.meta)
          .ok();
  return footer;
}

// The row groups of the data files in `warehouse`, per file.
std::vector<size_t> RowGroupsOfDataFiles(const std::string& warehouse) {
  std::vector<size_t> row_groups;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(warehouse)) {
    const std::string path = entry.path().string();
    if (!entry.is_regular_file() || path.find("/data/") == std::string::npos || !path.ends_with(".parquet"))
      continue;
    ParquetFooter footer = ReadParquetFooter(path);
    EXPECT_TRUE(footer.parsed) << path;
    row_groups.push_back(footer.meta.row_groups.size());
  }
  return row_groups;
}

// A row group is buffered whole before it is written, so it takes an eighth
// of the budget at most (at least 16 MiB, at most 128 MiB): with 64 MiB,
// 16 MiB row groups; with 512 MiB, 64 MiB.
TEST_F(MemoryBudgetTest, RowGroupsAreBufferedWithinAnEighthOfTheBudget) {
  std::vector<Change> rows;
  const std::string filler(1000, 'x');
  for (int64_t id = 0; id < 40'000; ++id) {  // ~40 MB of values
    std::ostringstream hex;
    hex << std::hex << (id + 1);
    rows.push_back({id, hex.str(), 0, std::to_string(id) + filler});
  }
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", rows);
  WriteManifest({{"cc_claim", 5000}});
  for (int64_t budget_mib : {64, 512}) {
    SCOPED_TRACE("memory_budget " + std::to_string(budget_mib) + " MiB");
    PipelineConfig config = Config("rowgroups" + std::to_string(budget_mib), budget_mib << 20);
    config.target.target_file_size_bytes = int64_t{1} << 30;  // one data file
    std::ostringstream log;
    PipelineOptions options;
    options.log = &log;
    ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
    ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
    EXPECT_EQ(summary.batches_committed, 1) << log.str();
    const std::vector<size_t> row_groups = RowGroupsOfDataFiles(config.catalog.warehouse);
    ASSERT_EQ(row_groups.size(), 1u) << log.str();
    if (budget_mib == 64) {
      EXPECT_GE(row_groups[0], 2u);
    } else {
      EXPECT_EQ(row_groups[0], 1u);
    }
  }
}

// A source row group larger than a 32nd of the budget decoded is read in
// slices of its rows (ParquetChunkedReader), in both passes: the merge
// still keeps the newest change of each key, whether its older changes are
// in the same slice, another slice or another file, and deletes apply.
TEST_F(MemoryBudgetTest, LargeRowGroupsAreReadInSlicesAndMergeAsWhole) {
  const std::string filler(1000, 'y');
  std::map<int64_t, std::string> expected;
  std::vector<Change> first;  // one row group of ~40 MB decoded
  for (int64_t i = 0; i < 40'000; ++i) {
    // Ids 0..19,999 twice: the second change (20,000 rows later, another slice) wins.
    const int64_t id = i % 20'000;
    std::ostringstream hex;
    hex << std::hex << (i + 1);
    const int32_t op = i < 20'000 ? 0 : (id % 7 == 0 ? 1 : 4);
    const std::string name = std::to_string(i) + filler;
    first.push_back({id, hex.str(), op, name});
    if (op == 1) {
      expected.erase(id);
    } else {
      expected[id] = name;
    }
  }
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", first);
  // A later file updates every 100th key again.
  std::vector<Change> second;
  for (int64_t id = 1; id < 20'000; id += 100) {
    std::ostringstream hex;
    hex << std::hex << (100'000 + id);
    second.push_back({id, hex.str(), 4, "late " + std::to_string(id)});
    expected[id] = "late " + std::to_string(id);
  }
  WriteCdaFile("cc_claim", "1", 2000, "part-0.parquet", second);
  WriteManifest({{"cc_claim", 5000}});
  // With 64 MiB the big row group is read in slices of at most 2 MiB.
  const int64_t budget = int64_t{64} << 20;
  ParquetFileFormat format(budget);
  const std::string big = export_dir_ + "/cc_claim/1/1000/part-0.parquet";
  ASSERT_OK_AND_ASSIGN(auto in, MakeLocalFileIO()->OpenRead(big));
  ASSERT_OK_AND_ASSIGN(auto reader, format.Open(std::shared_ptr<InputFile>(std::move(in)), {}, "cc_claim"));
  EXPECT_GE(reader->num_chunks(), 15);
  PipelineConfig config = Config("slices", budget);
  std::ostringstream log;
  PipelineOptions options;
  options.log = &log;
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(config, options));
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_EQ(summary.tables.at("cc_claim").quarantined, 0) << log.str();
  const std::map<int64_t, std::string> rows = RowsOf(config);
  EXPECT_EQ(rows.size(), expected.size());
  EXPECT_TRUE(rows == expected) << log.str();
}

// Rewrites the Parquet file at `path` with its first row group repeated `copies` times in the footer.
void DuplicateRowGroups(const std::string& path, int copies) {
  ParquetFooter parsed = ReadParquetFooter(path);
  ASSERT_TRUE(parsed.parsed) << path;
  std::vector<uint8_t>& bytes = parsed.bytes;
  const size_t footer_start = parsed.footer_start;
  parquet::FileMetaData& meta = parsed.meta;
  const parquet::RowGroup first = meta.row_groups[0];
  meta.row_groups.assign(static_cast<size_t>(copies), first);
  meta.num_rows = first.num_rows * copies;
  bytes.resize(footer_start);
  std::vector<uint8_t> footer;
  parquet::SerializeFileMetaData(meta, &footer);
  bytes.insert(bytes.end(), footer.begin(), footer.end());
  uint32_t length = static_cast<uint32_t>(footer.size());
  bytes.insert(bytes.end(), reinterpret_cast<uint8_t*>(&length), reinterpret_cast<uint8_t*>(&length) + 4);
  for (char c : std::string("PAR1")) bytes.push_back(static_cast<uint8_t>(c));
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A footer of many duplicated row groups parses to ~20x its size: a file
// whose footer could take more than half of memory_budget is quarantined,
// saying so, before its footer is read; the other files land.
TEST_F(MemoryBudgetTest, AFooterBeyondTheBudgetIsQuarantined) {
  WriteExport();
  const std::string hostile =
      (std::filesystem::path(export_dir_) / "cc_claim" / "1" / "1000" / "part-1.parquet").string();
  DuplicateRowGroups(hostile, 100000);  // a ~3 MB footer; 64 MiB budget: at most 1 MiB
  std::ostringstream log;
  PipelineOptions options;
  options.log = &log;
  ASSERT_OK_AND_ASSIGN(auto pipeline, Pipeline::Open(Config("footer", int64_t{64} << 20), options));
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_EQ(summary.tables.at("cc_claim").quarantined, 2) << log.str();
  ASSERT_OK_AND_ASSIGN(auto files, pipeline->ledger().Files({}));
  bool seen = false;
  for (const LedgerFile& file : files) {
    if (file.file.uri != hostile) continue;
    seen = true;
    EXPECT_EQ(file.state, FileState::kQuarantined);
    EXPECT_NE(file.reason.find("larger than the limit of 1048576 bytes"), std::string::npos) << file.reason;
    EXPECT_NE(file.reason.find("memory_budget"), std::string::npos) << file.reason;
  }
  EXPECT_TRUE(seen);
  EXPECT_GT(RowsOf(Config("footer", int64_t{64} << 20)).size(), 100u);
}

TEST(SplitAtBudgetCutTest, KeepsOrderDropsSetAsideAndEmptyParts) {
  std::vector<SourceUnit> batch(4);
  for (size_t i = 0; i < batch.size(); ++i) batch[i].uri = "f" + std::to_string(i);
  auto parts = SplitAtBudgetCut(batch, 2, {"f1"});
  ASSERT_EQ(parts.size(), 3u);  // one file fitted: the rest one file per part
  ASSERT_EQ(parts[0].size(), 1u);
  EXPECT_EQ(parts[0][0].uri, "f0");
  ASSERT_EQ(parts[1].size(), 1u);
  EXPECT_EQ(parts[1][0].uri, "f2");
  ASSERT_EQ(parts[2].size(), 1u);
  EXPECT_EQ(parts[2][0].uri, "f3");
  parts = SplitAtBudgetCut(batch, 1, {"f0"});
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].size(), 3u);
  EXPECT_TRUE(SplitAtBudgetCut({}, 0, {}).empty());
}

TEST(SplitAtBudgetCutTest, TheRestGoesInPartsOfWhatFittedBeforeTheCut) {
  // A batch of ten alike files cut at the fourth: the other seven in parts
  // of three (then one), not in one part that would be scanned and cut again.
  std::vector<SourceUnit> batch(10);
  for (size_t i = 0; i < batch.size(); ++i) batch[i].uri = "f" + std::to_string(i);
  auto parts = SplitAtBudgetCut(batch, 3, {});
  std::vector<size_t> sizes;
  for (const auto& part : parts) sizes.push_back(part.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{3, 3, 3, 1}));
  EXPECT_EQ(parts[1][0].uri, "f3");
  EXPECT_EQ(parts[3][0].uri, "f9");
}

}  // namespace
}  // namespace floe::ingest
