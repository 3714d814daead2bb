// Snapshot expiry: retained snapshots stay readable and exactly the files no
// retained snapshot needs are deleted.
#include <gtest/gtest.h>

#include "maintenance/maintenance.h"
#include "maintenance_test_util.h"

namespace floe::maintenance {
namespace {

using iceberg::DataFile;
using iceberg::Literal;
using testing::MaintenanceTableTest;
using testing::Range;

class ExpireTest : public MaintenanceTableTest {};

TEST_F(ExpireTest, KeepsRetainedSnapshotsReadableAndDeletesExactlyTheUnreachableFiles) {
  iceberg::Table table = Open();
  for (int i = 0; i < 5; ++i) Append(table, Range(i * 10, i * 10 + 10), "a");
  ASSERT_OK_AND_ASSIGN(CompactionReport compaction, CompactTable(table, CompactionOptions{}));
  ASSERT_TRUE(compaction.snapshot_id.has_value());
  Append(table, Range(50, 60), "a");
  ASSERT_EQ(table.metadata().snapshots.size(), 7u);

  // Dry run: lists, changes nothing.
  const auto files_before = FilesOnDisk();
  ExpireOptions options;
  options.retain_last = 2;
  options.max_snapshot_age_ms = 0;
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(ExpireReport planned, ExpireTableSnapshots(table, options));
  EXPECT_EQ(planned.expired_snapshot_ids.size(), 5u);
  EXPECT_EQ(planned.files_deleted, 0);
  EXPECT_EQ(FilesOnDisk(), files_before);
  EXPECT_EQ(table.metadata().snapshots.size(), 7u);

  options.dry_run = false;
  ASSERT_OK_AND_ASSIGN(ExpireReport report, ExpireTableSnapshots(table, options));
  EXPECT_EQ(report.expired_snapshot_ids, planned.expired_snapshot_ids);
  ASSERT_EQ(table.metadata().snapshots.size(), 2u);
  // 5 small data files, their manifests and 5 manifest lists are unreachable now.
  EXPECT_EQ(report.files_deleted, static_cast<int64_t>(report.files.size()));
  EXPECT_EQ(report.files.size(), planned.files.size());

  // Exactly the unreachable files are gone: what remains on disk is what the retained snapshots
  // need plus metadata.json files (the catalog's history, not expiry's business).
  const auto needed = FilesNeededBySnapshots(table);
  std::set<std::string> remaining;
  for (const auto& f : FilesOnDisk()) {
    if (f.size() < 14 || f.substr(f.size() - 14) != ".metadata.json") remaining.insert(f);
  }
  EXPECT_EQ(remaining, needed);
  std::set<std::string> deleted;
  for (const auto& f : files_before) {
    if (!FilesOnDisk().count(f)) deleted.insert(f);
  }
  EXPECT_EQ(deleted, std::set<std::string>(report.files.begin(), report.files.end()));
  // Every retained snapshot still reads.
  for (const auto& s : table.metadata().snapshots) {
    const size_t expected = s.snapshot_id == *compaction.snapshot_id ? 50u : 60u;
    EXPECT_EQ(ScanIds(table, s.snapshot_id).size(), expected);
  }
  EXPECT_EQ(ScanIds(Open()), Range(0, 60));
}

TEST_F(ExpireTest, YoungSnapshotsAndTheCurrentOneAreKept) {
  iceberg::Table table = Open();
  for (int i = 0; i < 3; ++i) Append(table, Range(i, i + 1), "a");
  ExpireOptions options;
  options.retain_last = 1;
  options.max_snapshot_age_ms = int64_t{3600} * 1000;  // all are younger than an hour
  ASSERT_OK_AND_ASSIGN(ExpireReport report, ExpireTableSnapshots(table, options));
  EXPECT_TRUE(report.expired_snapshot_ids.empty());
  EXPECT_EQ(table.metadata().snapshots.size(), 3u);
  options.max_snapshot_age_ms = 0;
  options.retain_last = 1;
  ASSERT_OK_AND_ASSIGN(report, ExpireTableSnapshots(table, options));
  EXPECT_EQ(report.expired_snapshot_ids.size(), 2u);
  ASSERT_EQ(table.metadata().snapshots.size(), 1u);
  EXPECT_EQ(ScanIds(table), Range(0, 3));  // appends keep the earlier files live
  EXPECT_EQ(report.files_deleted, 2);      // only the two older manifest lists
  options.retain_last = 0;
  EXPECT_EQ(ExpireTableSnapshots(table, options).status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace floe::maintenance
