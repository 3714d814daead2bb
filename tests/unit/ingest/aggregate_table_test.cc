// [[aggregates]] through the pipeline, with the filesystem catalog: after
// every run the aggregate tables equal the GROUP BY over the table's rows —
// inserts add, an update moves a row between groups, a delete of a
// non-extreme value only subtracts, a delete of the max recomputes it from
// the table, a group whose rows are gone disappears — each aggregate
// snapshot records the source snapshot it is up to, a repeated catch-up
// applies nothing, and an aggregate added to an existing table is built from
// its current rows, also by a run without new files.
#include "ingest/aggregate/aggregate_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tuple>

#include "ingest/validation.h"
#include "pipeline_test_util.h"

namespace floe::ingest {
namespace {

using pipeline_testing::PipelineTest;
using ::testing::HasSubstr;

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

// Times "2024-01-01 00:MM:00" as the table holds them (a column computed from name).
std::string At(int minute) {
  return "2024-01-01 00:" + std::string(minute < 10 ? "0" : "") + std::to_string(minute) + ":00";
}
int64_t Ms(int minute) {
  return (int64_t{1'704'067'200} + minute * 60) * 1000;
}
std::string Us(int minute) {
  return std::to_string(Ms(minute) * 1000);
}

AggregateConfig ByWindow(const std::string& name) {
  AggregateConfig config;
  config.name = name;
  config.table = "cc_claim";
  config.group_by.push_back(*ParseAggregateGroup("window(ts, '5 minutes')"));
  config.measures.push_back(*ParseAggregateMeasure("count(*)"));
  config.watermark_ms = 10 * 60'000;
  config.late_changes = LateChanges::kDrop;
  return config;
}

// late_changes = "drop": each source commit is judged against the watermark
// of the commits before it (the largest time applied minus 10 minutes), and
// that state is read back from the aggregate's snapshot by every run.
TEST_F(AggregateTableTest, LateChangesToClosedWindowsAreDroppedAndCountedAcrossRuns) {
  config_.transform.columns = {{"ts", "CAST(name AS timestamp)"}};
  config_.aggregates = {ByWindow("by_window")};
  auto recorded = [&](const char* key) -> std::string {
    auto table = LoadTable("by_window");
    if (!table.ok() || !table->metadata().CurrentSnapshot()) return "<no snapshot>";
    const auto& summary = table->metadata().CurrentSnapshot()->summary;
    auto it = summary.find(key);
    return it == summary.end() ? "<absent>" : it->second;
  };
  WriteCdaFile("cc_claim", "1", 1000, "part-1.parquet", {{1, "1", 0, At(0)}, {2, "2", 0, At(30)}});
  WriteManifest({{"cc_claim", 1000}});
  RunOnce();
  // Nothing applied before: nothing was late.
  EXPECT_EQ(AggregateRows("by_window", 3), (AggRows{{Us(0), Us(5), "1"}, {Us(30), Us(35), "1"}}));
  EXPECT_EQ(recorded(kSummaryMaxEventTime), std::to_string(Ms(30)));
  EXPECT_EQ(recorded(kSummaryLateChanges), "0");

  // Watermark 00:20: [00:00, 00:05) and [00:15, 00:20) are closed.
  WriteCdaFile("cc_claim", "1", 2000, "part-2.parquet",
               {{3, "3", 0, At(1)},     // late insert: dropped
                {4, "4", 0, At(18)},    // its window ends at the watermark: dropped
                {5, "5", 0, At(21)},    // open
                {1, "6", 4, At(31)},    // update: the pre-image's window is closed (not retracted)
                {2, "7", 1, At(30)}});  // delete in an open window
  WriteManifest({{"cc_claim", 2000}});
  RunOnce();
  EXPECT_EQ(AggregateRows("by_window", 3),
            (AggRows{{Us(0), Us(5), "1"}, {Us(20), Us(25), "1"}, {Us(30), Us(35), "1"}}));
  EXPECT_EQ(recorded(kSummaryLateChanges), "3");
  EXPECT_EQ(recorded(kSummaryMaxEventTime), std::to_string(Ms(31)));
  EXPECT_NE(
      log_.str().find("aggregate default.by_window: 3 late changes (to windows closed by the watermark"),
      std::string::npos)
      << log_.str();
  EXPECT_NE(log_.str().find(") dropped"), std::string::npos) << log_.str();

  // A new process: the watermark (00:21) comes from the aggregate's snapshot.
  WriteCdaFile("cc_claim", "1", 3000, "part-3.parquet", {{6, "8", 0, At(22)}, {7, "9", 0, At(16)}});
  WriteManifest({{"cc_claim", 3000}});
  RunOnce();
  EXPECT_EQ(AggregateRows("by_window", 3),
            (AggRows{{Us(0), Us(5), "1"}, {Us(20), Us(25), "2"}, {Us(30), Us(35), "1"}}));
  EXPECT_EQ(recorded(kSummaryLateChanges), "4");
  ExpectUpToDate("by_window");

  // An aggregate built from the current rows takes every row, closed windows included.
  config_.aggregates = {ByWindow("by_window"), ByWindow("rebuilt")};
  RunOnce();
  EXPECT_EQ(
      AggregateRows("rebuilt", 3),
      (AggRows{{Us(0), Us(5), "1"}, {Us(15), Us(20), "2"}, {Us(20), Us(25), "2"}, {Us(30), Us(35), "1"}}));
  ASSERT_OK_AND_ASSIGN(auto rebuilt, LoadTable("rebuilt"));
  EXPECT_EQ(rebuilt.metadata().CurrentSnapshot()->summary.at(kSummaryMaxEventTime), std::to_string(Ms(31)));
  EXPECT_EQ(rebuilt.metadata().CurrentSnapshot()->summary.at(kSummaryLateChanges), "0");
}

// floe validate checks each aggregate against its tables as they are, writing nothing.
TEST_F(AggregateTableTest, ValidateChecksEachAggregateAgainstItsTables) {
  config_.aggregates = {ByName(), Totals()};
  WriteCdaFile("cc_claim", "1", 1000, "part-1.parquet", {{1, "1", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  RunOnce();
  // Two commits of the table the aggregates do not follow.
  config_.aggregates = {};
  for (int64_t ts : {2000, 3000}) {
    WriteCdaFile("cc_claim", "1", ts, "part-" + std::to_string(ts) + ".parquet",
                 {{ts, std::to_string(ts), 0, "two"}});
    WriteManifest({{"cc_claim", ts}});
    RunOnce();
  }
  AggregateConfig unknown = Totals();
  unknown.name = "priced";
  unknown.measures.push_back(*ParseAggregateMeasure("sum(price)"));
  AggregateConfig changed = ByName();
  changed.filter = "id < 1000";
  AggregateConfig fresh = ByName();
  fresh.name = "fresh";
  config_.aggregates = {Totals(), unknown, changed, fresh};
  ASSERT_OK_AND_ASSIGN(ValidationReport report, ValidatePipeline(config_, ValidateOptions{}));
  const std::string text = report.Format(ValidateOptions{});
  EXPECT_TRUE(report.would_fail()) << text;
  ASSERT_EQ(report.aggregates.size(), 4u) << text;
  EXPECT_EQ(report.aggregates[0].state, "matches, 2 source snapshots behind (caught up by the next run)")
      << text;
  EXPECT_FALSE(report.aggregates[0].would_fail());
  EXPECT_THAT(report.aggregates[1].error,
              HasSubstr("aggregate priced over cc_claim: measures: unknown column \"price\""));
  EXPECT_THAT(report.aggregates[2].error,
              HasSubstr("table default.claims_by_name was built for [[aggregates]] \"claims_by_name\" as"));
  EXPECT_THAT(report.aggregates[3].state, HasSubstr("the table does not exist yet"));
  EXPECT_FALSE(report.aggregates[3].would_fail());
  EXPECT_THAT(text, HasSubstr("aggregate default.priced over default.cc_claim\n  error: "));
  EXPECT_THAT(text,
              HasSubstr("aggregate default.claim_totals over default.cc_claim: matches, 2 source snapshots "
                        "behind (caught up by the next run)\n  ok\n"));
  EXPECT_FALSE(LoadTable("fresh").ok()) << "validate creates nothing";
}

}  // namespace
}  // namespace floe::ingest
