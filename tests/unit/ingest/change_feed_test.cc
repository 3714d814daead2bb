// [target] change_feed through the pipeline: <table>__changes holds every
// commit's changes once, in order, with the change columns; a repeated
// catch-up appends nothing; a feed left behind (the feature off for a run)
// is filled from the table's history; new source columns widen the feed.
#include <gtest/gtest.h>

#include <tuple>

#include "ingest/change_feed_table.h"
#include "pipeline_test_util.h"

namespace floe::ingest {
namespace {

using pipeline_testing::PipelineTest;
// (commit order, change type, id, name)
using FeedRow = std::tuple<int64_t, std::string, int64_t, std::string>;

class ChangeFeedTest : public PipelineTest {
 protected:
  // The feed's rows through TableScan, ordered by source commit (sequence) then as stored.
  std::vector<FeedRow> FeedRows(const std::string& table) {
    std::vector<FeedRow> rows;
    auto source = LoadTable(table);
    auto feed = LoadTable(table + "__changes");
    EXPECT_TRUE(feed.ok()) << feed.status().ToString();
    if (!feed.ok() || !source.ok()) return rows;
    std::map<int64_t, int64_t> sequence;
    for (const auto& s : source->metadata().snapshots) sequence[s.snapshot_id] = s.sequence_number;
    iceberg::ScanOptions options;
    options.columns = std::vector<std::string>{"id", "name", "_change_type", "_commit_snapshot_id"};
    auto scan = iceberg::TableScan::Make(feed->metadata(), MakeLocalFileIO(), options);
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
          rows.emplace_back(sequence[b.columns[3].Value<int64_t>(r)], std::string(b.columns[2].StringAt(r)),
                            b.columns[0].Value<int64_t>(r), std::string(b.columns[1].StringAt(r)));
        }
      }
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const FeedRow& a, const FeedRow& b) { return std::get<0>(a) < std::get<0>(b); });
    return rows;
  }
};

TEST_F(ChangeFeedTest, EveryCommitsChangesOnceInOrder) {
  config_.target.change_feed = true;
  WriteFirstExport();
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK_AND_ASSIGN(RunSummary first, pipeline->RunOnce());
  ASSERT_TRUE(first.ok()) << first.Format() << log_.str();
  EXPECT_EQ(log_.str().find("behind"), std::string::npos) << log_.str();
  EXPECT_EQ(FeedRows("cc_claim"),
            (std::vector<FeedRow>{{1, "insert", 1, "one"}, {1, "insert", 2, "two v2"}}));

  WriteManifest({{"cc_claim", 3000}});
  ASSERT_OK(pipeline->RunOnce().status());
  WriteCdaFile("cc_claim", "1", 4000, "part-3.parquet", {{1, "3a", 4, "one v2"}, {2, "3b", 1, ""}});
  WriteManifest({{"cc_claim", 4000}});
  ASSERT_OK(pipeline->RunOnce().status());
  EXPECT_EQ(FeedRows("cc_claim"), (std::vector<FeedRow>{{1, "insert", 1, "one"},
                                                        {1, "insert", 2, "two v2"},
                                                        {2, "insert", 4, "four"},
                                                        {3, "update_preimage", 1, "one"},
                                                        {3, "update_postimage", 1, "one v2"},
                                                        {3, "delete", 2, "two v2"}}));

  // The feed's snapshots name their source commit and batch; a repeated catch-up adds nothing.
  ASSERT_OK_AND_ASSIGN(auto feed, LoadTable("cc_claim__changes"));
  EXPECT_EQ(feed.metadata().snapshots.size(), 3u);
  for (const auto& s : feed.metadata().snapshots) {
    EXPECT_EQ(s.summary.count(kSummarySourceSnapshot), 1u);
    EXPECT_EQ(s.summary.at(kSummaryPipeline), config_.name);
  }
  ASSERT_OK_AND_ASSIGN(auto source, LoadTable("cc_claim"));
  auto tables = ReadCatalog();
  ChangeFeedTable again(*tables, catalog::TableIdentifier{{"default"}, "cc_claim"}, {});
  ASSERT_OK_AND_ASSIGN(CatchUpResult repeated, again.CatchUp(source.metadata(), source.io(), {"id"}));
  EXPECT_EQ(repeated.commits, 0);
  EXPECT_EQ(FeedRows("cc_claim").size(), 6u);
}

TEST_F(ChangeFeedTest, AFeedLeftBehindCatchesUpFromTheHistory) {
  WriteFirstExport();
  {
    // Without the feed: the table commits, no feed table.
    ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
    ASSERT_OK(pipeline->RunOnce().status());
  }
  EXPECT_FALSE(LoadTable("cc_claim__changes").ok());
  config_.target.change_feed = true;
  WriteManifest({{"cc_claim", 3000}});
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK(pipeline->RunOnce().status());
  EXPECT_EQ(
      FeedRows("cc_claim"),
      (std::vector<FeedRow>{{1, "insert", 1, "one"}, {1, "insert", 2, "two v2"}, {2, "insert", 4, "four"}}));
}

TEST_F(ChangeFeedTest, NewSourceColumnsWidenTheFeed) {
  config_.target.change_feed = true;
  WriteFirstExport();
  ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
  ASSERT_OK(pipeline->RunOnce().status());
  // A file with an extra column: the table and then its feed gain it.
  {
    Schema schema = {MakeField("id", Int64()), MakeField("gwcbi___seqval_hex", String()),
                     MakeField("gwcbi___operation", Int32()), MakeField("name", String()),
                     MakeField("extra", Int64())};
    RecordBatch batch;
    batch.schema = schema;
    for (const Field& field : schema) batch.columns.push_back(MakeEmptyColumn(field.type));
    batch.columns[0].AppendValue<int64_t>(9);
    batch.columns[1].AppendBytes("9");
    batch.columns[2].AppendValue<int32_t>(0);
    batch.columns[3].AppendBytes("nine");
    batch.columns[4].AppendValue<int64_t>(99);
    batch.num_rows = 1;
    const std::string path = export_dir_ + "/cc_claim/1/3000/part-9.parquet";
    auto out = MakeLocalFileIO()->Create(path);
    ASSERT_OK(out.status());
    auto writer = parquet::ParquetFileWriter::Open(std::move(*out), schema, {});
    ASSERT_OK(writer.status());
    ASSERT_OK((*writer)->Write(batch));
    ASSERT_OK((*writer)->Close().status());
  }
  WriteManifest({{"cc_claim", 3000}});
  ASSERT_OK(pipeline->RunOnce().status());
  EXPECT_EQ(log_.str().find("behind"), std::string::npos) << log_.str();
  ASSERT_OK_AND_ASSIGN(auto feed, LoadTable("cc_claim__changes"));
  const iceberg::Schema& schema = *feed.metadata().CurrentSchema();
  ASSERT_NE(schema.FindFieldByName("extra"), nullptr);
  ASSERT_NE(schema.FindFieldByName("_change_type"), nullptr);
  EXPECT_EQ(FeedRows("cc_claim").size(), 4u);
}

}  // namespace
}  // namespace floe::ingest
