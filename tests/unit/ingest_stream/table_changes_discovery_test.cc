// The positions of a change-feed source (table_changes_discovery.h): which
// commits of a source table's history come after the position floe read up
// to (a sequence number), and the errors when the history no longer holds
// it — expired snapshots, a rollback, a replaced table, a v1 table.
#include "ingest/stream/table_changes_discovery.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::ingest {
namespace {

// A v2 table whose main history is `chain`: (snapshot id, sequence number),
// oldest first, each the parent of the next; `first_parent` is the oldest
// one's parent (an expired snapshot when set).
iceberg::TableMetadata History(const std::vector<std::pair<int64_t, int64_t>>& chain,
                               std::optional<int64_t> first_parent = std::nullopt) {
  iceberg::TableMetadata metadata;
  std::optional<int64_t> parent = first_parent;
  for (const auto& [id, sequence] : chain) {
    iceberg::Snapshot snapshot;
    snapshot.snapshot_id = id;
    snapshot.parent_snapshot_id = parent;
    snapshot.sequence_number = sequence;
    metadata.snapshots.push_back(snapshot);
    parent = id;
    metadata.last_sequence_number = sequence;
  }
  metadata.current_snapshot_id = parent;
  return metadata;
}

std::vector<int64_t> Sequences(const std::vector<const iceberg::Snapshot*>& commits) {
  std::vector<int64_t> out;
  for (const iceberg::Snapshot* commit : commits) out.push_back(commit->sequence_number);
  return out;
}

TEST(FeedCommitsAfterTest, FromTheStartAndAfterAPosition) {
  // Snapshot ids are not ordered; sequence numbers are (a gap: a commit on another branch).
  const auto metadata = History({{900, 1}, {17, 2}, {512, 4}, {3, 5}});
  ASSERT_OK_AND_ASSIGN(auto all, FeedCommitsAfter(metadata, "silver.claims", std::nullopt));
  EXPECT_EQ(Sequences(all), (std::vector<int64_t>{1, 2, 4, 5}));
  ASSERT_OK_AND_ASSIGN(auto after, FeedCommitsAfter(metadata, "silver.claims", 2));
  EXPECT_EQ(Sequences(after), (std::vector<int64_t>{4, 5}));
  ASSERT_OK_AND_ASSIGN(auto none, FeedCommitsAfter(metadata, "silver.claims", 5));
  EXPECT_TRUE(none.empty());
  ASSERT_OK_AND_ASSIGN(auto empty, FeedCommitsAfter(iceberg::TableMetadata{}, "silver.claims", std::nullopt));
  EXPECT_TRUE(empty.empty());
}

TEST(FeedCommitsAfterTest, ExpiredPastThePositionNamesTheTableAndSnapshot) {
  // Snapshots up to sequence number 3 expired (the oldest kept, 44, names 33 as its parent).
  const auto metadata = History({{44, 4}, {55, 5}}, /*first_parent=*/33);
  auto read_up_to_2 = FeedCommitsAfter(metadata, "silver.claims", 2);
  ASSERT_FALSE(read_up_to_2.ok());
  EXPECT_NE(read_up_to_2.status().message().find("source table silver.claims: snapshot 33, the parent of its "
                                                 "oldest snapshot 44 (sequence number 4), was expired"),
            std::string::npos)
      << read_up_to_2.status().message();
  EXPECT_NE(read_up_to_2.status().message().find("read up to sequence number 2"), std::string::npos);
  // Never read: the history must reach the first snapshot.
  EXPECT_FALSE(FeedCommitsAfter(metadata, "silver.claims", std::nullopt).ok());
  // Read up to the oldest kept snapshot (or past it): nothing is missing.
  ASSERT_OK_AND_ASSIGN(auto after_4, FeedCommitsAfter(metadata, "silver.claims", 4));
  EXPECT_EQ(Sequences(after_4), (std::vector<int64_t>{5}));
}

TEST(FeedCommitsAfterTest, RollbackReplacedTableAndVersionOneAreErrors) {
  // Read up to 3, but the current history goes 2 -> 4: 3 was rolled back.
  auto rolled_back = FeedCommitsAfter(History({{1, 1}, {2, 2}, {4, 4}}), "s.t", 3);
  ASSERT_FALSE(rolled_back.ok());
  EXPECT_NE(rolled_back.status().message().find("rolled back"), std::string::npos);
  // Read up to 9, the table is at 2: re-created.
  auto replaced = FeedCommitsAfter(History({{1, 1}, {2, 2}}), "s.t", 9);
  ASSERT_FALSE(replaced.ok());
  EXPECT_NE(replaced.status().message().find("re-created"), std::string::npos);
  auto v1 = History({{1, 0}});
  v1.format_version = 1;
  auto version_one = FeedCommitsAfter(v1, "s.t", std::nullopt);
  ASSERT_FALSE(version_one.ok());
  EXPECT_NE(version_one.status().message().find("format version 1"), std::string::npos);
}

TEST(FeedTableNameTest, TheTableNameWithoutItsNamespace) {
  EXPECT_EQ(FeedTableName("silver.claims"), "claims");
  EXPECT_EQ(FeedTableName("a.b.claims"), "claims");
}

}  // namespace
}  // namespace floe::ingest
