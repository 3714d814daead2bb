// MaintainTable end to end through the catalog: many small appends with
// deletes (five files per partition, a delete file each) leave one file per partition, no delete files, the
// same rows, a single snapshot and no file on disk that no metadata names.
// Every commit goes through the commit gate; a stop request ends the run
// between operations.
#include <gtest/gtest.h>

#include "maintenance/maintenance.h"
#include "maintenance_test_util.h"

namespace floe::maintenance {
namespace {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::Literal;
using testing::MaintenanceTableTest;
using testing::Range;

class MaintainTest : public MaintenanceTableTest {};

TEST_F(MaintainTest, LeavesACompactTidyTable) {
  std::vector<int64_t> expected;
  {
    iceberg::Table table = Open();
    for (int i = 0; i < 10; ++i) {
      const std::string cat = i % 2 ? "a" : "b";
      DataFile f = Append(table, Range(i * 10, i * 10 + 10), cat);
      CommitDeletes(table, WritePositionDeletes(table, cat, {{f.file_path, 0}}));
      for (int64_t id = i * 10 + 1; id < i * 10 + 10; ++id) expected.push_back(id);
    }
  }
  MaintenanceOptions options;
  options.expire.retain_last = 1;
  options.expire.max_snapshot_age_ms = 0;
  options.orphans.older_than_ms = 0;
  options.orphans.force = true;
  options.orphans.now_ms = iceberg::CurrentTimeMillis() + 60'000;
  ASSERT_OK_AND_ASSIGN(MaintenanceReport report, MaintainTable(*catalog_, id_, options));
  EXPECT_EQ(report.compaction.data_files_rewritten, 10);
  EXPECT_EQ(report.compaction.data_files_added, 2);
  EXPECT_EQ(report.compaction.delete_files_removed, 10);
  // 10 appends, 10 row deltas, the compaction and the manifest rewrite: all but the last expire.
  EXPECT_EQ(report.expire.expired_snapshot_ids.size(), 21u);
  EXPECT_NE(report.ToString().find("compaction: 10 data files"), std::string::npos) << report.ToString();

  iceberg::Table table = Open();
  EXPECT_EQ(table.metadata().snapshots.size(), 1u);
  EXPECT_EQ(LiveFiles(table, DataFileContent::kData).size(), 2u);
  EXPECT_TRUE(LiveFiles(table, DataFileContent::kPositionDeletes).empty());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ScanIds(table), expected);
  // Only referenced files remain: the snapshot's files and the metadata files of the log.
  std::set<std::string> referenced = FilesNeededBySnapshots(table);
  referenced.insert(table.metadata_location());
  for (const auto& entry : table.metadata().metadata_log) referenced.insert(entry.metadata_file);
  for (const auto& f : FilesOnDisk()) EXPECT_TRUE(referenced.count(f)) << "unreferenced file left: " << f;
  for (const auto& f : FilesNeededBySnapshots(table)) EXPECT_TRUE(std::filesystem::exists(f)) << f;
}

TEST_F(MaintainTest, EveryCommitGoesThroughTheGate) {
  {
    iceberg::Table table = Open();
    for (int i = 0; i < 6; ++i) Append(table, Range(i * 10, i * 10 + 10), "a");
  }
  const size_t snapshots_before = Open().metadata().snapshots.size();
  // Each operation alone, with a gate that refuses: nothing may change.
  for (int operation = 0; operation < 3; ++operation) {
    MaintenanceOptions options;
    options.compact = operation == 0;
    options.rewrite_manifests = operation == 1;
    options.expire_snapshots = operation == 2;
    options.remove_orphans = false;
    options.expire.retain_last = 1;
    options.expire.max_snapshot_age_ms = 0;
    int gate_calls = 0;
    options.commit_gate = [&](const std::function<Status()>&) -> Status {
      ++gate_calls;
      return Status(ErrorKind::kCancelled, "refused");
    };
    auto report = MaintainTable(*catalog_, id_, options);
    ASSERT_FALSE(report.ok()) << "operation " << operation;
    EXPECT_EQ(report.status().kind(), ErrorKind::kCancelled);
    EXPECT_EQ(gate_calls, 1) << "operation " << operation;
    EXPECT_EQ(Open().metadata().snapshots.size(), snapshots_before) << "operation " << operation;
  }
  // A gate that runs the phases: the same run commits.
  MaintenanceOptions options;
  options.remove_orphans = false;
  options.expire.retain_last = 1;
  options.expire.max_snapshot_age_ms = 0;
  int gate_calls = 0;
  options.commit_gate = [&](const std::function<Status()>& phase) -> Status {
    ++gate_calls;
    return phase();
  };
  ASSERT_OK_AND_ASSIGN(MaintenanceReport report, MaintainTable(*catalog_, id_, options));
  EXPECT_TRUE(report.compaction.snapshot_id.has_value());
  EXPECT_EQ(gate_calls, 3);
  EXPECT_EQ(Open().metadata().snapshots.size(), 1u);
  EXPECT_EQ(ScanIds(Open()), Range(0, 60));
}

TEST_F(MaintainTest, AStopRequestEndsTheRunBetweenOperations) {
  {
    iceberg::Table table = Open();
    for (int i = 0; i < 6; ++i) Append(table, Range(i * 10, i * 10 + 10), "a");
  }
  const int64_t snapshot_before = *Open().metadata().current_snapshot_id;
  MaintenanceOptions options;
  options.stop_requested = [] { return true; };
  auto report = MaintainTable(*catalog_, id_, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().kind(), ErrorKind::kCancelled);
  EXPECT_NE(report.status().message().find("stopped before compaction"), std::string::npos)
      << report.status().ToString();
  EXPECT_EQ(*Open().metadata().current_snapshot_id, snapshot_before);
}

TEST_F(MaintainTest, DryRunChangesNothing) {
  {
    iceberg::Table table = Open();
    for (int i = 0; i < 6; ++i) Append(table, Range(i, i + 1), "a");
  }
  const auto files_before = FilesOnDisk();
  MaintenanceOptions options;
  options.dry_run = true;
  options.expire.max_snapshot_age_ms = 0;
  options.expire.retain_last = 1;
  ASSERT_OK_AND_ASSIGN(MaintenanceReport report, MaintainTable(*catalog_, id_, options));
  EXPECT_EQ(report.compaction.data_files_rewritten, 6);
  EXPECT_EQ(report.expire.expired_snapshot_ids.size(), 5u);
  EXPECT_EQ(FilesOnDisk(), files_before);
  EXPECT_EQ(Open().metadata().snapshots.size(), 6u);
}

TEST_F(MaintainTest, UnknownTableIsNotFound) {
  auto report = MaintainTable(*catalog_, catalog::TableIdentifier{{"db"}, "missing"}, MaintenanceOptions{});
  EXPECT_EQ(report.status().kind(), ErrorKind::kNotFound);
}

}  // namespace
}  // namespace floe::maintenance
