// Side tables: rows set aside by a batch reach <table>__<suffix> exactly once,
// whether the process dies before, between or after the two commits.
#include "ingest/side_tables.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "catalog/table/catalog.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/transaction/table.h"
#include "ingest/batch_recovery.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

namespace fs = std::filesystem;

RecordBatch BadRows(const std::vector<std::pair<std::string, int64_t>>& rows, bool with_detail = false) {
  RecordBatch batch;
  batch.schema = {MakeField("file", String()), MakeField("row", Int64())};
  batch.columns = {MakeEmptyColumn(String()), MakeEmptyColumn(Int64())};
  if (with_detail) {
    batch.schema.push_back(MakeField("detail", String()));
    batch.columns.push_back(MakeEmptyColumn(String()));
  }
  for (const auto& [file, row] : rows) {
    batch.columns[0].AppendBytes(file);
    batch.columns[1].AppendValue<int64_t>(row);
    if (with_detail) batch.columns[2].AppendBytes("d" + std::to_string(row));
  }
  batch.num_rows = static_cast<int64_t>(rows.size());
  return batch;
}

class SideTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = catalog::OpenSqlCatalog("sqlite://" + dir_.File("c.db"), dir_.File("wh"));
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
    ASSERT_OK(catalog_->CreateNamespace({"cda"}, {}));
    catalog::TableCreation creation;
    iceberg::NestedField id;
    id.id = 1;
    id.name = "id";
    id.type = iceberg::PrimitiveType(iceberg::TypeKind::kLong);
    creation.schema.fields = {id};
    ASSERT_OK(catalog_->CreateTable(target_, creation).status());
  }

  // The data commit of batch `batch_id`: an empty append carrying `summary`.
  Result<iceberg::Snapshot> CommitTarget(int64_t batch_id,
                                         const std::map<std::string, std::string>& summary) {
    FLOE_ASSIGN_OR_RETURN(auto ops, catalog_->LoadTable(target_));
    FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::Table::Load(std::move(ops)));
    iceberg::FastAppend append = table.NewFastAppend();
    append.AllowEmpty().Set(kSummaryPipeline, "p1").Set(kSummaryBatchId, std::to_string(batch_id));
    for (const auto& [key, value] : summary) append.Set(key, value);
    return append.Commit();
  }

  // (file, row) pairs of the side table's live rows, and its snapshot count.
  std::multiset<std::pair<std::string, int64_t>> SideRows(const std::string& suffix,
                                                          size_t* snapshots = nullptr) {
    std::multiset<std::pair<std::string, int64_t>> rows;
    auto ops = catalog_->LoadTable(SideTableId(target_, suffix));
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    if (!ops.ok()) return rows;
    auto table = iceberg::Table::Load(std::move(*ops));
    EXPECT_TRUE(table.ok());
    if (snapshots) *snapshots = table->metadata().snapshots.size();
    iceberg::ScanOptions options;
    options.columns = std::vector<std::string>{"file", "row"};
    auto scan = iceberg::TableScan::Make(table->metadata(), MakeLocalFileIO(), options);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    auto tasks = (*scan)->PlanFiles();
    EXPECT_TRUE(tasks.ok());
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      EXPECT_TRUE(reader.ok());
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_TRUE(batch.ok()) << batch.status().ToString();
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        for (int64_t r = 0; r < b.num_rows; ++r) {
          rows.emplace(std::string(b.columns[0].StringAt(r)), b.columns[1].Value<int64_t>(r));
        }
      }
    }
    return rows;
  }

  testing::TempDir dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  const catalog::TableIdentifier target_{{"cda"}, "account"};
};

TEST_F(SideTablesTest, RowsCommitOnceWhateverMomentTheProcessDies) {
  SideTables side;
  ASSERT_OK(side.Add("bad_rows", BadRows({{"a.parquet", 3}, {"a.parquet", 9}})));
  ASSERT_OK(side.Add("bad_rows", BadRows({{"b.parquet", 0}})));
  EXPECT_EQ(side.RowCounts().at("bad_rows"), 3);
  ASSERT_OK_AND_ASSIGN(auto summary, side.WritePending(*catalog_, target_, "b7-x", 2));
  ASSERT_EQ(summary.count("floe.side.bad_rows"), 1u);
  // The side table exists (empty) before the data commit; a crash here leaves only orphans.
  size_t snapshots = 99;
  EXPECT_TRUE(SideRows("bad_rows", &snapshots).empty());
  EXPECT_EQ(snapshots, 0u);

  // The data commit lands, the process dies before the side append: recovery finishes it.
  ASSERT_OK_AND_ASSIGN(iceberg::Snapshot committed, CommitTarget(7, summary));
  ASSERT_OK(CompleteSideCommits(*catalog_, target_, committed, "p1", 7));
  const std::multiset<std::pair<std::string, int64_t>> expected{
      {"a.parquet", 3}, {"a.parquet", 9}, {"b.parquet", 0}};
  EXPECT_EQ(SideRows("bad_rows", &snapshots), expected);
  EXPECT_EQ(snapshots, 1u);
  // Run again (a second recovery, or recovery after the append had landed): nothing twice.
  ASSERT_OK(CompleteSideCommits(*catalog_, target_, committed, "p1", 7));
  EXPECT_EQ(SideRows("bad_rows", &snapshots), expected);
  EXPECT_EQ(snapshots, 1u);
  ASSERT_OK_AND_ASSIGN(auto side_batch,
                       FindCommittedBatch(*catalog_, SideTableId(target_, "bad_rows"), "p1", 7));
  EXPECT_TRUE(side_batch);
}

TEST_F(SideTablesTest, NewColumnsEvolveTheSideTableAndBatchesOfOtherSchemasJoinIt) {
  {
    SideTables side;
    ASSERT_OK(side.Add("quarantine", BadRows({{"a", 1}})));
    ASSERT_OK_AND_ASSIGN(auto summary, side.WritePending(*catalog_, target_, "b1-x", 2));
    ASSERT_OK_AND_ASSIGN(iceberg::Snapshot committed, CommitTarget(1, summary));
    ASSERT_OK(CompleteSideCommits(*catalog_, target_, committed, "p1", 1));
  }
  SideTables side;
  ASSERT_OK(side.Add("quarantine", RecordBatch{}));  // no rows: ignored
  ASSERT_OK(side.Add("quarantine", BadRows({{"b", 2}}, /*with_detail=*/true)));
  // Quarantined rows carry their unit's columns: a batch without `detail` joins.
  ASSERT_OK(side.Add("quarantine", BadRows({{"c", 3}})));
  EXPECT_EQ(side.RowCounts().at("quarantine"), 2);
  ASSERT_OK_AND_ASSIGN(auto summary, side.WritePending(*catalog_, target_, "b2-x", 2));
  ASSERT_OK_AND_ASSIGN(iceberg::Snapshot committed, CommitTarget(2, summary));
  ASSERT_OK(CompleteSideCommits(*catalog_, target_, committed, "p1", 2));
  EXPECT_EQ(SideRows("quarantine"),
            (std::multiset<std::pair<std::string, int64_t>>{{"a", 1}, {"b", 2}, {"c", 3}}));
  ASSERT_OK_AND_ASSIGN(auto ops, catalog_->LoadTable(SideTableId(target_, "quarantine")));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::Table::Load(std::move(ops)));
  EXPECT_NE(table.metadata().CurrentSchema()->FindFieldByName("detail"), nullptr);
}

TEST_F(SideTablesTest, AbortDeletesThePendingFilesAndABadMarkerIsCorruption) {
  SideTables side;
  ASSERT_OK(side.Add("dead_letter", BadRows({{"a", 1}})));
  ASSERT_OK_AND_ASSIGN(auto summary, side.WritePending(*catalog_, target_, "b3-x", 2));
  const std::string marker = summary.at("floe.side.dead_letter");
  const std::string manifest = marker.substr(marker.find(':') + 1);
  EXPECT_TRUE(fs::exists(manifest)) << manifest;
  side.AbortPending(*catalog_);
  EXPECT_FALSE(fs::exists(manifest));
  size_t data_files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir_.File("wh"))) {
    if (entry.path().extension() == ".parquet") ++data_files;
  }
  EXPECT_EQ(data_files, 0u);

  ASSERT_OK_AND_ASSIGN(iceberg::Snapshot bad, CommitTarget(4, {{"floe.side.dead_letter", "12x:/nowhere"}}));
  Status status = CompleteSideCommits(*catalog_, target_, bad, "p1", 4);
  EXPECT_EQ(status.kind(), ErrorKind::kCorruption);
  EXPECT_NE(status.message().find("floe.side.dead_letter"), std::string::npos) << status.ToString();
}

}  // namespace
}  // namespace floe::ingest
