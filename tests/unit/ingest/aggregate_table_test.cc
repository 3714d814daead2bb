// [[aggregates]] through the pipeline, with the filesystem catalog: after
// every run the aggregate tables equal the GROUP BY over the table's rows —
// inserts add, an update moves a row between groups, a delete of a
// non-extreme value only subtracts, a delete of the max recomputes it from
// the table, a group whose rows are gone disappears — each aggregate
// snapshot records the source snapshot it is up to, a repeated catch-up
// applies nothing, and an aggregate added to an existing table is built from
// its current rows, also by a run without new files.
#include "ingest/aggregate/aggregate_table.h"

#include <gtest/gtest.h>

#include <tuple>

#include "pipeline_test_util.h"

namespace floe::ingest {
namespace {

using pipeline_testing::PipelineTest;

AggregateConfig Totals() {
  AggregateConfig config;
  config.name = "claim_totals";
  config.table = "cc_claim";
  for (const char* measure : {"count(*) AS claims", "sum(id)", "min(id)", "max(id)"})
    config.measures.push_back(*ParseAggregateMeasure(measure));
  return config;
}

AggregateConfig ByName() {
  AggregateConfig config;
  config.name = "claims_by_name";
  config.table = "cc_claim";
  config.group_by.push_back(*ParseAggregateGroup("name"));
  config.measures.push_back(*ParseAggregateMeasure("count(*)"));
  config.filter = "id < 100";
  return config;
}

class AggregateTableTest : public PipelineTest {
 protected:
  // Every row of an aggregate table's first `columns` columns, as text, sorted.
  std::vector<std::vector<std::string>> AggregateRows(const std::string& name, size_t columns) {
    std::vector<std::vector<std::string>> rows;
    auto table = LoadTable(name);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    if (!table.ok()) return rows;
    auto scan = iceberg::TableScan::Make(table->metadata(), MakeLocalFileIO());
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    if (!scan.ok()) return rows;
    auto tasks = (*scan)->PlanFiles();
    if (!tasks.ok()) return rows;
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      if (!reader.ok()) return rows;
      while (true) {
        auto batch = (*reader)->Next();
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        for (int64_t r = 0; r < b.num_rows; ++r) {
          std::vector<std::string> row;
          for (size_t c = 0; c < columns; ++c) {
            const Column& column = b.columns[c];
            if (column.IsNull(r)) {
              row.push_back("null");
            } else if (column.type.id == TypeId::kString) {
              row.emplace_back(column.StringAt(r));
            } else {
              row.push_back(std::to_string(column.Value<int64_t>(r)));
            }
          }
          rows.push_back(std::move(row));
        }
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  // The aggregate's recorded source snapshot equals the table's current one.
  void ExpectUpToDate(const std::string& name) {
    auto source = LoadTable("cc_claim");
    auto aggregate = LoadTable(name);
    ASSERT_TRUE(source.ok() && aggregate.ok());
    auto recorded = RecordedSourceSnapshot(aggregate->metadata());
    ASSERT_TRUE(recorded.has_value());
    EXPECT_EQ(*recorded, source->metadata().current_snapshot_id);
  }

  void RunOnce() {
    ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
    ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
    ASSERT_TRUE(summary.ok()) << summary.Format() << log_.str();
    EXPECT_EQ(log_.str().find("behind"), std::string::npos) << log_.str();
  }
};

using AggRows = std::vector<std::vector<std::string>>;

TEST_F(AggregateTableTest, EqualsTheGroupByAfterEveryRun) {
  config_.aggregates = {Totals(), ByName()};
  WriteCdaFile("cc_claim", "1", 1000, "part-1.parquet",
               {{1, "1", 0, "one"}, {2, "2", 0, "two"}, {200, "3", 0, "two"}});
  WriteManifest({{"cc_claim", 1000}});
  RunOnce();
  EXPECT_EQ(AggregateRows("claim_totals", 4), (AggRows{{"3", "203", "1", "200"}}));
  EXPECT_EQ(AggregateRows("claims_by_name", 2),
            (AggRows{{"one", "1"}, {"two", "1"}}));  // id 200 filtered out
  ExpectUpToDate("claim_totals");

  WriteCdaFile("cc_claim", "1", 2000, "part-2.parquet", {{4, "4", 0, "four"}});
  WriteManifest({{"cc_claim", 2000}});
  RunOnce();
  EXPECT_EQ(AggregateRows("claim_totals", 4), (AggRows{{"4", "207", "1", "200"}}));

  // An update moves id 1 to another group ("one" disappears), a delete of a non-extreme value subtracts.
  WriteCdaFile("cc_claim", "1", 3000, "part-3.parquet", {{1, "5", 4, "four"}, {2, "6", 1, ""}});
  WriteManifest({{"cc_claim", 3000}});
  RunOnce();
  EXPECT_EQ(AggregateRows("claim_totals", 4), (AggRows{{"3", "205", "1", "200"}}));
  EXPECT_EQ(AggregateRows("claims_by_name", 2), (AggRows{{"four", "2"}}));

  // Deleting the max recomputes it from the table.
  WriteCdaFile("cc_claim", "1", 4000, "part-4.parquet", {{200, "7", 1, ""}});
  WriteManifest({{"cc_claim", 4000}});
  RunOnce();
  EXPECT_EQ(AggregateRows("claim_totals", 4), (AggRows{{"2", "5", "1", "4"}}));
  ExpectUpToDate("claim_totals");
  ExpectUpToDate("claims_by_name");

  // A repeated catch-up applies nothing.
  ASSERT_OK_AND_ASSIGN(auto source, LoadTable("cc_claim"));
  auto tables = ReadCatalog();
  AggregateTable again(*tables, catalog::TableIdentifier{{"default"}, "cc_claim"}, Totals(), {});
  ASSERT_OK_AND_ASSIGN(AggregateCatchUpResult repeated,
                       again.CatchUp(source.metadata(), source.io(), {"id"}));
  EXPECT_EQ(repeated.source_commits, 0);
  EXPECT_FALSE(repeated.rebuilt);

  // Every row deleted: the group disappears.
  WriteCdaFile("cc_claim", "1", 5000, "part-5.parquet", {{1, "8", 1, ""}, {4, "9", 1, ""}});
  WriteManifest({{"cc_claim", 5000}});
  RunOnce();
  EXPECT_EQ(AggregateRows("claim_totals", 4), AggRows{});
  EXPECT_EQ(AggregateRows("claims_by_name", 2), AggRows{});
}

TEST_F(AggregateTableTest, AnAggregateAddedLaterIsBuiltFromTheCurrentRows) {
  WriteCdaFile("cc_claim", "1", 1000, "part-1.parquet", {{1, "1", 0, "one"}, {2, "2", 0, "two"}});
  WriteManifest({{"cc_claim", 1000}});
  RunOnce();
  EXPECT_FALSE(LoadTable("claim_totals").ok());
  // No new file: the run builds it all the same.
  config_.aggregates = {Totals()};
  RunOnce();
  EXPECT_EQ(AggregateRows("claim_totals", 4), (AggRows{{"2", "3", "1", "2"}}));
  ExpectUpToDate("claim_totals");
}

TEST_F(AggregateTableTest, AnUnknownColumnIsAWarningNamingIt) {
  AggregateConfig config = Totals();
  config.measures.push_back(*ParseAggregateMeasure("sum(price)"));
  config_.aggregates = {config};
  WriteCdaFile("cc_claim", "1", 1000, "part-1.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  // The table's commit stands; the aggregate says why it is behind.
  EXPECT_EQ(Rows("cc_claim").size(), 1u);
  EXPECT_NE(log_.str().find("aggregate default.claim_totals is behind"), std::string::npos) << log_.str();
  EXPECT_NE(log_.str().find("unknown column \"price\""), std::string::npos) << log_.str();
}

TEST_F(AggregateTableTest, AChangedDefinitionWithTheSameColumnsIsRefused) {
  config_.aggregates = {ByName()};
  WriteCdaFile("cc_claim", "1", 1000, "part-1.parquet", {{1, "1", 0, "one"}, {200, "2", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  RunOnce();
  EXPECT_EQ(AggregateRows("claims_by_name", 2), (AggRows{{"one", "1"}}));
  // Another filter keeps the columns: the old rows would be kept under the new definition.
  AggregateConfig changed = ByName();
  changed.filter = "id < 1000";
  config_.aggregates = {changed};
  WriteCdaFile("cc_claim", "1", 2000, "part-2.parquet", {{3, "3", 0, "one"}});
  WriteManifest({{"cc_claim", 2000}});
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_EQ(Rows("cc_claim").size(), 3u);
  EXPECT_NE(log_.str().find("aggregate default.claims_by_name is behind"), std::string::npos) << log_.str();
  EXPECT_NE(
      log_.str().find("table default.claims_by_name was built for [[aggregates]] \"claims_by_name\" as "
                      "group_by [name], measures [count(*) AS count], filter [id < 100]; the config now "
                      "says group_by [name], measures [count(*) AS count], filter [id < 1000] (drop the "
                      "table and floe rebuilds it from the current rows of default.cc_claim)"),
      std::string::npos)
      << log_.str();
  EXPECT_EQ(AggregateRows("claims_by_name", 2), (AggRows{{"one", "1"}})) << "left as it was";
}

}  // namespace
}  // namespace floe::ingest
