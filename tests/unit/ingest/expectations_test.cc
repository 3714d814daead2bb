// The row stage in the pipeline ([transform], [[expectations]], issue 18):
// what each action does to a batch, quarantined rows in
// <table>__quarantine with the batch, counts in the snapshot summary and
// the ledger, `filter` against rows already in the table, `fail` leaving
// the table unchanged, derived columns evolving the schema, and a dry run
// (`floe validate`) that creates nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ingest/pipeline_impl.h"
#include "ingest/validation.h"
#include "pipeline_test_util.h"

namespace floe::ingest {
namespace {

using namespace pipeline_testing;
using ::testing::HasSubstr;

class ExpectationsTest : public PipelineTest {
 protected:
  // Rows of <table>__quarantine as "source row: failed expectations: id name".
  std::vector<std::string> QuarantinedRows(const std::string& table) {
    std::vector<std::string> rows;
    auto loaded = LoadTable(table + "__quarantine");
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    if (!loaded.ok()) return rows;
    iceberg::ScanOptions options;
    options.columns = std::vector<std::string>{"_floe_failed_expectations", "_floe_source_file",
                                               "_floe_source_row", "id", "name"};
    auto scan = iceberg::TableScan::Make(loaded->metadata(), MakeLocalFileIO(), options);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    auto tasks = (*scan)->PlanFiles();
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      while (reader.ok()) {
        auto batch = (*reader)->Next();
        if (!batch.ok() || !batch->has_value()) break;
        const RecordBatch& b = **batch;
        for (int64_t r = 0; r < b.num_rows; ++r) {
          const Column& names = b.columns[0];
          std::string failed;
          for (int64_t k = names.offsets[r]; k < names.offsets[r + 1]; ++k) {
            failed += (failed.empty() ? "" : ",") + std::string(names.children[0].StringAt(k));
          }
          EXPECT_EQ(fs::path(std::string(b.columns[1].StringAt(r))).filename(), "part-0.parquet");
          rows.push_back(std::to_string(b.columns[2].Value<int64_t>(r)) + ": " + failed + ": " +
                         std::to_string(b.columns[3].Value<int64_t>(r)) + " " +
                         std::string(b.columns[4].StringAt(r)));
        }
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  std::map<std::string, std::string> Summary(const std::string& table) {
    auto loaded = LoadTable(table);
    EXPECT_TRUE(loaded.ok());
    if (!loaded.ok() || loaded->metadata().CurrentSnapshot() == nullptr) return {};
    return loaded->metadata().CurrentSnapshot()->summary;
  }
};

TEST_F(ExpectationsTest, EachActionDoesWhatItSaysAndEveryCountIsRecorded) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet",
               {{1, "a", 0, "one"},
                {2, "b", 0, "x"},       // short: dropped
                {3, "c", 0, "bad"},     // quarantined
                {4, "d", 0, "bad"},     // quarantined (and short is fine: 3 letters)
                {5, "e", 0, "warnme"},  // warned, kept
                {6, "f", 1, "bad"}});   // a delete: never checked
  WriteManifest({{"cc_claim", 1000}});
  config_.expectations = {{"long_name", "length(name) > 1", ExpectationAction::kDrop},
                          {"not_bad", "name <> 'bad'", ExpectationAction::kQuarantine},
                          {"quiet", "name <> 'warnme'", ExpectationAction::kWarn}};
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {5, "warnme"}}));
  EXPECT_EQ(QuarantinedRows("cc_claim"),
            (std::vector<std::string>{"2: not_bad: 3 bad", "3: not_bad: 4 bad"}));
  const BatchCounts& counts = summary.tables.at("cc_claim").counts;
  EXPECT_EQ(counts.dropped, 1);
  EXPECT_EQ(counts.quarantined_rows, 2);
  ASSERT_EQ(counts.expectations.size(), 3u);
  EXPECT_EQ(counts.expectations[0].checked, 5);
  EXPECT_EQ(counts.expectations[0].failed, 1);
  EXPECT_EQ(counts.expectations[1].failed, 2);
  EXPECT_EQ(counts.expectations[2].failed, 1);
  // The snapshot summary.
  const auto props = Summary("cc_claim");
  EXPECT_EQ(props.at("floe.expect.not_bad.checked"), "5");
  EXPECT_EQ(props.at("floe.expect.not_bad.passed"), "3");
  EXPECT_EQ(props.at("floe.expect.not_bad.failed"), "2");
  EXPECT_EQ(props.at("floe.rows-dropped"), "1");
  EXPECT_EQ(props.at("floe.rows-quarantined"), "2");
  EXPECT_EQ(props.count("floe.side.quarantine"), 1u);
  // The ledger, for `floe files --expectations`.
  ASSERT_OK_AND_ASSIGN(auto recorded, pipeline->ledger().ExpectationCounts(std::nullopt));
  ASSERT_EQ(recorded.size(), 3u);
  EXPECT_EQ(recorded[1].name, "not_bad");
  EXPECT_EQ(recorded[1].action, "quarantine");
  EXPECT_EQ(recorded[1].table, "cc_claim");
  EXPECT_EQ(recorded[1].checked, 5);
  EXPECT_EQ(recorded[1].passed, 3);
  EXPECT_EQ(recorded[1].failed, 2);
  // The batch log line and the quarantine line.
  EXPECT_THAT(log_.str(), HasSubstr("expect long_name 1/5 failed (drop); not_bad 2/5 failed (quarantine)"));
  EXPECT_THAT(log_.str(), HasSubstr("2 rows of batch 1 failed a quarantine expectation; kept in "
                                    "default.cc_claim__quarantine"));
  // The quarantine table's append carries the batch, once.
  ASSERT_OK_AND_ASSIGN(iceberg::Table quarantine, LoadTable("cc_claim__quarantine"));
  EXPECT_EQ(quarantine.metadata().CurrentSnapshot()->summary.at("floe.batch-id"), "1");
  ASSERT_OK(pipeline->RunOnce().status());
  EXPECT_EQ(QuarantinedRows("cc_claim").size(), 2u);
}

TEST_F(ExpectationsTest, AFilteredChangeDeletesItsKeyAndDeletesPassUnfiltered) {
  config_.transform.filter = "name <> 'hidden'";
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet",
               {{1, "a", 0, "one"}, {2, "b", 0, "two"}, {3, "c", 0, "three"}, {4, "d", 0, "hidden"}});
  WriteCdaFile("cc_claim", "1", 2000, "part-0.parquet",
               {{1, "e", 4, "hidden"},      // an update the filter refuses: the row leaves the table
                {2, "f", 1, "hidden"},      // a delete: applied whatever its values
                {4, "1a", 4, "visible"}});  // now passes: inserted
  WriteManifest({{"cc_claim", 2000}});
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{3, "three"}, {4, "visible"}}));
  EXPECT_EQ(summary.tables.at("cc_claim").counts.filtered, 2);
  // An older change arriving later does not bring a filtered-out key back.
  WriteCdaFile("cc_claim", "1", 3000, "part-0.parquet", {{1, "b", 4, "old one"}});
  WriteManifest({{"cc_claim", 3000}});
  ASSERT_OK(pipeline->RunOnce().status());
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{3, "three"}, {4, "visible"}}));
}

TEST_F(ExpectationsTest, AFailingFailExpectationLeavesTheTableUnchangedAndNamesTheRow) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "a", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  config_.expectations = {{"no_bad", "name <> 'bad'", ExpectationAction::kFail}};
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK(pipeline->RunOnce().status());
  const size_t snapshots = SnapshotCount("cc_claim");
  WriteCdaFile("cc_claim", "1", 2000, "part-0.parquet", {{2, "b", 0, "two"}, {3, "c", 0, "bad"}});
  WriteManifest({{"cc_claim", 2000}});
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_FALSE(summary.ok());
  EXPECT_THAT(summary.tables.at("cc_claim").error,
              AllOf(HasSubstr("expectation \"no_bad\" (action \"fail\") failed at row 1 of"),
                    HasSubstr("cc_claim/1/2000/part-0.parquet")));
  EXPECT_EQ(SnapshotCount("cc_claim"), snapshots);
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}}));
  // Released like any failed batch: the file waits for a fix.
  EXPECT_EQ(FilesIn(*pipeline, "cc_claim", FileState::kDiscovered),
            std::vector<std::string>{"cc_claim/1/2000/part-0.parquet"});
}

TEST_F(ExpectationsTest, DerivedColumnsGetFieldIdsAndTheTransformShapesTheRows) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "a", 0, "one"}, {2, "b", 0, "two"}});
  WriteManifest({{"cc_claim", 1000}});
  ASSERT_OK_AND_ASSIGN(auto first, OpenPipeline());
  ASSERT_OK(first->RunOnce().status());
  first.reset();
  // A derived column added later evolves the table like a new source column.
  config_.transform.columns = {{"shout", "upper(name)"}, {"name_length", "length(name)"}};
  config_.transform.drop = {"gwcbi___operation"};
  WriteCdaFile("cc_claim", "1", 2000, "part-0.parquet", {{3, "c", 0, "three"}});
  WriteManifest({{"cc_claim", 2000}});
  ASSERT_OK_AND_ASSIGN(auto second, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, second->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  second.reset();
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, LoadTable("cc_claim"));
  const iceberg::Schema& schema = *table.metadata().CurrentSchema();
  const iceberg::NestedField* shout = schema.FindFieldByName("shout");
  ASSERT_NE(shout, nullptr);
  EXPECT_GT(shout->id, schema.FindFieldByName("name")->id);
  EXPECT_NE(schema.FindFieldByName("name_length"), nullptr);
  EXPECT_NE(schema.FindFieldByName("gwcbi___operation"), nullptr);  // older rows keep it
  EXPECT_EQ(Rows("cc_claim").size(), 3u);
  // Redefining the merge key is refused before anything is read.
  config_.transform.columns = {{"id", "id + 1"}};
  ASSERT_OK_AND_ASSIGN(auto third, OpenPipeline());
  WriteCdaFile("cc_claim", "1", 3000, "part-0.parquet", {{4, "d", 0, "four"}});
  WriteManifest({{"cc_claim", 3000}});
  ASSERT_OK_AND_ASSIGN(RunSummary refused, third->RunOnce());
  EXPECT_THAT(refused.tables.at("cc_claim").error, HasSubstr("columns.id: redefines id, a [merge] key"));
}

TEST_F(ExpectationsTest, AnExpressionThatDoesNotBindFailsTheBatchNamingTheColumn) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet", {{1, "a", 0, "one"}});
  WriteManifest({{"cc_claim", 1000}});
  config_.expectations = {{"typo", "nmae IS NOT NULL", ExpectationAction::kWarn}};
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_THAT(
      summary.tables.at("cc_claim").error,
      AllOf(HasSubstr("table default.cc_claim: [[expectations]] \"typo\": expression \"nmae IS NOT NULL\""),
            HasSubstr("nmae")));
  EXPECT_FALSE(LoadTable("cc_claim").ok());  // nothing was created
}

TEST_F(ExpectationsTest, AppendModeLeavesOutFilteredAndFailingRows) {
  config_.merge.mode = WriteMode::kAppend;
  config_.transform.filter = "id <> 2";
  config_.expectations = {{"not_bad", "name <> 'bad'", ExpectationAction::kDrop}};
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet",
               {{1, "a", 0, "one"}, {2, "b", 0, "two"}, {3, "c", 0, "bad"}, {4, "d", 0, "four"}});
  WriteManifest({{"cc_claim", 1000}});
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
  EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
  EXPECT_EQ(Rows("cc_claim"), (std::map<int64_t, std::string>{{1, "one"}, {4, "four"}}));
  EXPECT_EQ(summary.tables.at("cc_claim").counts.inserted, 2);
}

TEST_F(ExpectationsTest, ADryRunReportsWhatARunWouldDoAndCreatesNothing) {
  WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet",
               {{1, "a", 0, "one"}, {2, "b", 0, "bad"}, {3, "c", 0, "worse"}});
  WriteManifest({{"cc_claim", 1000}});
  config_.transform.columns = {{"shout", "upper(name)"}};
  config_.expectations = {{"not_bad", "name <> 'bad'", ExpectationAction::kQuarantine},
                          {"not_worse", "name <> 'worse'", ExpectationAction::kFail}};
  ValidateOptions options;
  options.rows = 10;
  ASSERT_OK_AND_ASSIGN(ValidationReport report, ValidatePipeline(config_, options));
  ASSERT_EQ(report.tables.size(), 1u);
  const TableValidation& table = report.tables[0];
  EXPECT_TRUE(report.would_fail());
  EXPECT_EQ(table.counts.quarantined_rows, 1);
  ASSERT_EQ(table.problems.size(), 2u);
  EXPECT_EQ(table.problems[1].row, 2);
  EXPECT_TRUE(table.problems[1].fails);
  EXPECT_THAT(table.problems[1].what, HasSubstr("\"not_worse\" (fail: the batch would stop)"));
  ASSERT_EQ(table.rows.size(), 1u);
  EXPECT_EQ(table.rows[0].num_rows, 1);  // only id 1 would be written
  EXPECT_THAT(report.Format(options), HasSubstr("\"shout\":\"ONE\""));
  EXPECT_THAT(report.Format(ValidateOptions{}), HasSubstr("row 1: failed \"not_bad\" (quarantine)"));
  // Nothing was created: no state, no warehouse.
  EXPECT_FALSE(fs::exists(config_.state_dir));
  EXPECT_FALSE(fs::exists(config_.catalog.warehouse));
  // Without the failing row, it would pass.
  config_.expectations.pop_back();
  ASSERT_OK_AND_ASSIGN(ValidationReport clean, ValidatePipeline(config_, options));
  EXPECT_FALSE(clean.would_fail()) << clean.Format(options);
}

TEST(ExpectationCountsOfSummaryTest, RecoveryReadsACommittedBatchsCountsFromItsSnapshot) {
  TableSettings settings;
  settings.expectations = {{"positive", "x > 0", ExpectationAction::kDrop},
                           {"absent", "y > 0", ExpectationAction::kWarn},
                           {"broken", "z > 0", ExpectationAction::kFail}};
  const std::map<std::string, std::string> summary = {
      {"floe.expect.positive.checked", "10"}, {"floe.expect.positive.passed", "8"},
      {"floe.expect.positive.failed", "2"},   {"floe.expect.broken.checked", "x"},
      {"floe.expect.broken.passed", "1"},     {"floe.expect.broken.failed", "1"}};
  const std::vector<LedgerExpectationCount> counts = ExpectationCountsOfSummary(summary, settings);
  ASSERT_EQ(counts.size(), 1u);  // "absent" has no counts, "broken" no number
  EXPECT_EQ(counts[0].name, "positive");
  EXPECT_EQ(counts[0].action, "drop");
  EXPECT_EQ(counts[0].checked, 10);
  EXPECT_EQ(counts[0].passed, 8);
  EXPECT_EQ(counts[0].failed, 2);
}

}  // namespace
}  // namespace floe::ingest
