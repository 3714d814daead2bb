// Stream positions kept in snapshot summaries (issue 16: "snapshot expiry
// must never lose the marker"): the text form, raising and advancing ends,
// and reading them back from the newest snapshot of the current ancestry
// that carries the pipeline's key.
#include "ingest/stream_positions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

SourceUnit Range(const std::string& topic, const std::string& partition, const std::string& first,
                 const std::string& last) {
  SourceUnit unit;
  unit.kind = UnitKind::kStreamRange;
  unit.range = {topic, partition, first, last};
  unit.uri = "kafka://" + topic + "/" + partition + "/" + first + "-" + last;
  return unit;
}

TEST(StreamPositionsTest, EndsRoundTripAndOnlyMoveForward) {
  StreamEnds ends;
  AdvanceStreamEnds(
      {Range("db.t", "0", "0", "99"), Range("db.t", "1", "0", "9"), Range("db.t", "0", "100", "149")}, &ends);
  EXPECT_EQ(FormatStreamEnds(ends), "db.t/0/149,db.t/1/9");
  ASSERT_OK_AND_ASSIGN(StreamEnds parsed, ParseStreamEnds(FormatStreamEnds(ends)));
  EXPECT_EQ(parsed, ends);
  // Kinesis: shard ids and sequence numbers longer than 64 bits.
  const std::string big = "49590338271490256608559692538361571095921575989136588898";
  AdvanceStreamEnds({Range("orders", "shardId-000000000001", "1", big)}, &ends);
  ASSERT_OK_AND_ASSIGN(parsed, ParseStreamEnds(FormatStreamEnds(ends)));
  EXPECT_EQ(parsed.at({"orders", "shardId-000000000001"}), big);

  StreamEnds older = {{{"db.t", "0"}, "120"}, {{"db.t", "2"}, "5"}};
  EXPECT_TRUE(RaiseStreamEnds(older, &ends)) << "partition 2 is new";
  EXPECT_EQ(ends.at({"db.t", "0"}), "149") << "never backwards";
  EXPECT_EQ(ends.at({"db.t", "2"}), "5");
  EXPECT_FALSE(RaiseStreamEnds(older, &ends));
  EXPECT_TRUE(RaiseStreamEnds({{{"db.t", "0"}, "1000"}}, &ends));
  EXPECT_EQ(ends.at({"db.t", "0"}), "1000") << "1000 > 149 as numbers, not text";

  for (const char* bad : {"db.t/0", "db.t/0/x", "/0/5", "db.t//5", "db.t/0/"}) {
    EXPECT_THAT(ParseStreamEnds(bad).status().message(), HasSubstr("is not <stream>/<partition>/<position>"))
        << bad;
  }
}

iceberg::Snapshot SnapshotWith(int64_t id, std::optional<int64_t> parent,
                               std::map<std::string, std::string> summary) {
  iceberg::Snapshot snapshot;
  snapshot.snapshot_id = id;
  snapshot.parent_snapshot_id = parent;
  snapshot.summary = std::move(summary);
  snapshot.summary["operation"] = "append";
  return snapshot;
}

TEST(StreamPositionsTest, TheNewestSnapshotOfTheCurrentAncestryWithThePipelinesKeyDecides) {
  const std::string key = StreamEndsSummaryKey("cdc");
  EXPECT_EQ(key, "floe.stream-ends.cdc");
  iceberg::TableMetadata table;
  table.snapshots = {SnapshotWith(1, std::nullopt, {{key, "t/0/9"}}),
                     SnapshotWith(2, 1, {{key, "t/0/19"}, {StreamEndsSummaryKey("other"), "t/0/500"}}),
                     SnapshotWith(3, 2, {}),                  // another engine's commit on top
                     SnapshotWith(4, 1, {{key, "t/0/99"}})};  // not in the current ancestry
  table.current_snapshot_id = 3;
  ASSERT_OK_AND_ASSIGN(StreamEnds ends, TableStreamEnds(table, "cdc"));
  EXPECT_EQ(ends, (StreamEnds{{{"t", "0"}, "19"}}));
  ASSERT_OK_AND_ASSIGN(StreamEnds none, TableStreamEnds(table, "nobody"));
  EXPECT_TRUE(none.empty());

  table.snapshots[1].summary[key] = "t/0";
  EXPECT_THAT(TableStreamEnds(table, "cdc").status().message(), HasSubstr("snapshot 2 summary " + key));
}

}  // namespace
}  // namespace floe::ingest
