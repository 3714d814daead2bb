// Bad rows ([schema] on_bad_row = "table", issue 15 item 6): rows a change
// convention cannot use go to the side table <table>__bad_rows with their
// batch (side_tables.h covers crashes between the two commits) while the
// rest of their file lands; the default policy still quarantines the whole
// file.
#include <gtest/gtest.h>

#include "pipeline_test_util.h"

namespace floe::ingest {
namespace {

using namespace pipeline_testing;

class BadRowsTest : public PipelineTest {
 protected:
  // part-0: three good rows and one with an unknown operation code (7).
  void WriteExportWithABadRow() {
    WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet",
                 {{1, "a", 0, "one"}, {2, "b", 7, "bad op"}, {3, "c", 0, "three"}, {4, "d", 0, "four"}});
    WriteManifest({{"cc_claim", 1000}});
  }

  // Rows of <ns>.cc_claim__bad_rows as "row: reason".
  std::vector<std::string> BadRows() {
    std::vector<std::string> rows;
    auto table = LoadTable("cc_claim__bad_rows");
    if (!table.ok()) return rows;
    iceberg::ScanOptions options;
    options.columns = std::vector<std::string>{"file", "row", "reason"};
    auto scan = iceberg::TableScan::Make(table->metadata(), MakeLocalFileIO(), options);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    if (!scan.ok()) return rows;
    auto tasks = (*scan)->PlanFiles();
    EXPECT_TRUE(tasks.ok());
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      EXPECT_TRUE(reader.ok()) << reader.status().ToString();
      while (reader.ok()) {
        auto batch = (*reader)->Next();
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        for (int64_t r = 0; r < b.num_rows; ++r) {
          EXPECT_EQ(fs::path(std::string(b.columns[0].StringAt(r))).filename(), "part-0.parquet");
          rows.push_back(std::to_string(b.columns[1].Value<int64_t>(r)) + ": " +
                         std::string(b.columns[2].StringAt(r)));
        }
      }
    }
    return rows;
  }
};

TEST_F(BadRowsTest, ByDefaultABadRowQuarantinesItsFile) {
  WriteExportWithABadRow();
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_FALSE(summary.ok());
  EXPECT_EQ(FilesIn(*pipeline, "cc_claim", FileState::kQuarantined),
            std::vector<std::string>{"cc_claim/1/1000/part-0.parquet"});
  EXPECT_NE(log_.str().find("row 1: column gwcbi___operation: unknown operation code 7"), std::string::npos)
      << log_.str();
  EXPECT_FALSE(LoadTable("cc_claim__bad_rows").ok());
}

TEST_F(BadRowsTest, ARowGoesToTheBadRowsTableAndTheRestOfTheFileLands) {
  WriteExportWithABadRow();
  config_.schema.on_bad_row = BadRowPolicy::kTable;
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_EQ(summary.tables.at("cc_claim").counts.bad_rows, 1);
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {3, "three"}, {4, "four"}}));
  const std::vector<std::string> bad = BadRows();
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("1: column gwcbi___operation: unknown operation code 7"), std::string::npos)
      << bad[0];
  // The bad-rows snapshot carries the batch, as ingest commits do.
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, LoadTable("cc_claim__bad_rows"));
  EXPECT_EQ(table.metadata().CurrentSnapshot()->summary.at("floe.batch-id"), "1");
}

TEST_F(BadRowsTest, AFileOfOnlyBadRowsStillCommitsItsBatchOnce) {
  config_.schema.on_bad_row = BadRowPolicy::kTable;
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "a", 9, "bad"}, {2, "b", 8, "bad too"}});
  WriteManifest({{"cc_claim", 1000}});
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_EQ(BadRows().size(), 2u);
  EXPECT_EQ(FilesIn(*pipeline, "cc_claim", FileState::kCommitted),
            std::vector<std::string>{"cc_claim/1/1000/part-0.parquet"});
  EXPECT_NE(log_.str().find("2 bad rows of batch 1 set aside in default.cc_claim__bad_rows"),
            std::string::npos)
      << log_.str();
  // Nothing new: no second copy.
  ASSERT_OK(pipeline->RunOnce().status());
  EXPECT_EQ(BadRows().size(), 2u);
}

// The bad-rows table takes a commit (a small file) per batch with bad rows:
// the pipeline's maintenance keeps it compact with its table. Before, a
// continuous run left it one file per such batch, forever.
TEST_F(BadRowsTest, TheBadRowsTableIsMaintainedWithItsTable) {
  config_.schema.on_bad_row = BadRowPolicy::kTable;
  config_.maintenance.enabled = true;
  config_.maintenance.compact_every = 3;
  config_.maintenance.min_input_files = 2;
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  for (int64_t folder = 1; folder <= 3; ++folder) {
    const int64_t id = folder * 10;
    WriteCdaFile("cc_claim", "1", 1000 * folder, "part-0.parquet",
                 {{id, "a", 0, "good"}, {id + 1, "b", 7, "bad op"}});
    WriteManifest({{"cc_claim", 1000 * folder}});
    ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
    ASSERT_TRUE(summary.ok()) << summary.Format() << log_.str();
  }
  ASSERT_OK_AND_ASSIGN(iceberg::Table bad_rows, LoadTable("cc_claim__bad_rows"));
  bool compacted = false;
  for (const iceberg::Snapshot& snapshot : bad_rows.metadata().snapshots) {
    auto maintenance = snapshot.summary.find("floe.maintenance");
    compacted |= maintenance != snapshot.summary.end() && maintenance->second == "compaction";
  }
  EXPECT_TRUE(compacted) << log_.str();
  EXPECT_EQ(BadRows().size(), 3u);
  EXPECT_NE(log_.str().find("maintenance default.cc_claim__bad_rows: "), std::string::npos) << log_.str();
}

}  // namespace
}  // namespace floe::ingest
