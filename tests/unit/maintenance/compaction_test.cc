// Compaction on real tables: small files and their deletes become one file
// per partition with the same rows; thresholds, equality deletes, sorting,
// dry runs, a conflicting concurrent delete, the commit gate (around refresh,
// check and commit only) and a stop request during the rewrite.
#include <gtest/gtest.h>

#include "iceberg/writer/data_file_writer.h"
#include "maintenance/maintenance.h"
#include "maintenance_test_util.h"

namespace floe::maintenance {
namespace {

using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::Literal;
using testing::MaintenanceTableTest;
using testing::Range;

class CompactionTest : public MaintenanceTableTest {};

std::vector<int64_t> Without(std::vector<int64_t> ids, const std::set<int64_t>& removed) {
  ids.erase(std::remove_if(ids.begin(), ids.end(), [&](int64_t id) { return removed.count(id) > 0; }),
            ids.end());
  return ids;
}

TEST_F(CompactionTest, SmallFilesAndDeletesBecomeOneFilePerPartition) {
  iceberg::Table table = Open();
  std::vector<DataFile> a_files;
  std::vector<DataFile> b_files;
  for (int i = 0; i < 6; ++i) {
    a_files.push_back(Append(table, Range(i * 10, i * 10 + 10), "a"));
    b_files.push_back(Append(table, Range(100 + i * 10, 100 + i * 10 + 10), "b"));
  }
  // One delete file per data file (referenced_data_file set) and one spanning two files.
  CommitDeletes(table,
                WritePositionDeletes(table, "a", {{a_files[0].file_path, 0}, {a_files[0].file_path, 5}}));
  CommitDeletes(table, WritePositionDeletes(table, "b", {{b_files[2].file_path, 9}}));
  CommitDeletes(table,
                WritePositionDeletes(table, "a", {{a_files[3].file_path, 1}, {a_files[4].file_path, 2}}));
  const std::vector<int64_t> expected = Without(Range(0, 60), {0, 5, 31, 42});
  std::vector<int64_t> all_expected = expected;
  for (int64_t id : Without(Range(100, 160), {129})) all_expected.push_back(id);
  ASSERT_EQ(ScanIds(table), all_expected);
  ASSERT_EQ(LiveFiles(table, DataFileContent::kPositionDeletes).size(), 3u);

  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, CompactionOptions{}));
  EXPECT_TRUE(report.conflict.empty()) << report.conflict;
  EXPECT_EQ(report.groups.size(), 2u);
  EXPECT_EQ(report.data_files_rewritten, 12);
  EXPECT_EQ(report.data_files_added, 2);
  EXPECT_EQ(report.delete_files_removed, 3);
  EXPECT_EQ(report.rows_written, static_cast<int64_t>(all_expected.size()));
  ASSERT_TRUE(report.snapshot_id.has_value());

  const iceberg::Snapshot* current = table.metadata().CurrentSnapshot();
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(current->snapshot_id, *report.snapshot_id);
  EXPECT_EQ(current->operation(), "replace");
  EXPECT_EQ(current->summary.at(kMaintenanceSummaryKey), "compaction");
  EXPECT_EQ(LiveFiles(table, DataFileContent::kData).size(), 2u);
  EXPECT_TRUE(LiveFiles(table, DataFileContent::kPositionDeletes).empty());
  EXPECT_EQ(ScanIds(table), all_expected);
  // A reloaded table reads the same.
  iceberg::Table reloaded = Open();
  EXPECT_EQ(ScanIds(reloaded), all_expected);
  // Nothing left to do: a second run commits nothing.
  ASSERT_OK_AND_ASSIGN(CompactionReport again, CompactTable(table, CompactionOptions{}));
  EXPECT_EQ(again.data_files_rewritten, 0);
  EXPECT_FALSE(again.snapshot_id.has_value());
}

// Issue 16: the stream positions floe run keeps in the newest snapshot
// (floe.stream-ends.<pipeline>) are carried over by compaction and manifest
// rewrites, so expiring the ingest snapshots never loses them; so is the
// source position of an aggregate or change feed table
// (floe.source-snapshot-id), which would otherwise be rebuilt from its
// source once its older snapshots expired; other floe markers (batch ids)
// are not copied.
TEST_F(CompactionTest, MaintenanceCommitsCarryTheStreamPositionsForward) {
  iceberg::Table table = Open();
  const std::string ends = std::string(kCarriedSummaryPrefix) + "cdc";
  for (int i = 0; i < 6; ++i) {
    DataFile file = WriteData(table, Range(i * 10, i * 10 + 10), "a", {}, "");
    ASSERT_OK(table.NewFastAppend()
                  .AppendFile(file)
                  .Set(ends, "db.t/0/" + std::to_string(i * 10 + 9))
                  .Set("floe.source-snapshot-id", std::to_string(1000 + i))
                  .Set("floe.batch-id", std::to_string(i))
                  .Commit()
                  .status());
  }
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, CompactionOptions{}));
  ASSERT_TRUE(report.snapshot_id.has_value());
  const iceberg::Snapshot* compacted = table.metadata().CurrentSnapshot();
  EXPECT_EQ(compacted->summary.at(ends), "db.t/0/59");
  EXPECT_EQ(compacted->summary.at("floe.source-snapshot-id"), "1005");
  EXPECT_EQ(compacted->summary.count("floe.batch-id"), 0u);

  for (int i = 0; i < 3; ++i) {
    DataFile file = WriteData(table, Range(100 + i, 101 + i), "b", {}, "");
    ASSERT_OK(table.NewFastAppend()
                  .AppendFile(file)
                  .Set(ends, "db.t/0/" + std::to_string(70 + i))
                  .Set("floe.source-snapshot-id", std::to_string(2000 + i))
                  .Commit()
                  .status());
  }
  ASSERT_OK_AND_ASSIGN(ManifestRewriteReport rewritten,
                       RewriteTableManifests(table, ManifestRewriteOptions{}));
  ASSERT_TRUE(rewritten.snapshot_id.has_value());
  EXPECT_EQ(table.metadata().CurrentSnapshot()->summary.at(kMaintenanceSummaryKey), "rewrite-manifests");
  EXPECT_EQ(table.metadata().CurrentSnapshot()->summary.at(ends), "db.t/0/72");
  EXPECT_EQ(table.metadata().CurrentSnapshot()->summary.at("floe.source-snapshot-id"), "2002");
}

TEST_F(CompactionTest, FewerSmallFilesThanTheMinimumAreLeftAlone) {
  iceberg::Table table = Open();
  for (int i = 0; i < 4; ++i) Append(table, Range(i * 10, i * 10 + 10), "a");
  const int64_t before = *table.metadata().current_snapshot_id;
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, CompactionOptions{}));
  EXPECT_EQ(report.data_files_rewritten, 0);
  EXPECT_EQ(*table.metadata().current_snapshot_id, before);
  CompactionOptions four;
  four.min_input_files = 4;
  ASSERT_OK_AND_ASSIGN(report, CompactTable(table, four));
  EXPECT_EQ(report.data_files_rewritten, 4);
  EXPECT_EQ(LiveFiles(table, DataFileContent::kData).size(), 1u);
  EXPECT_EQ(ScanIds(table), Range(0, 40));
}

// Size tiers: a file that grew from earlier packing waits until the small
// files come to half its size; only the small ones are packed meanwhile.
TEST_F(CompactionTest, AGrownFileIsNotRewrittenWithEveryFewSmallFiles) {
  iceberg::Table table = Open();
  DataFile grown = Append(table, Range(0, 20000), "a");
  for (int i = 0; i < 5; ++i) Append(table, Range(100000 + i * 10, 100000 + i * 10 + 10), "a");
  CompactionOptions options;
  options.target_file_size = int64_t{64} << 20;  // every file is small
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, options));
  EXPECT_EQ(report.data_files_rewritten, 5);
  EXPECT_EQ(report.data_files_added, 1);
  auto data = LiveFiles(table, DataFileContent::kData);
  ASSERT_EQ(data.size(), 2u);
  EXPECT_TRUE(data[0].file_path == grown.file_path || data[1].file_path == grown.file_path);
  std::vector<int64_t> ids = Range(0, 20000);
  std::vector<int64_t> added = Range(100000, 100050);
  ids.insert(ids.end(), added.begin(), added.end());
  EXPECT_EQ(ScanIds(table), ids);
}

TEST_F(CompactionTest, FileWithManyDeletedRowsIsRewrittenAloneWithItsDeletesApplied) {
  iceberg::Table table = Open();
  DataFile big = Append(table, Range(0, 10), "a");
  DataFile other = Append(table, Range(10, 20), "a");
  CommitDeletes(
      table, WritePositionDeletes(table, "a", {{big.file_path, 0}, {big.file_path, 1}, {big.file_path, 2}}));
  CommitDeletes(table, WritePositionDeletes(table, "a", {{other.file_path, 0}}));  // 10%: below the ratio
  CompactionOptions options;
  options.target_file_size = 1;  // no file counts as small
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, options));
  EXPECT_EQ(report.data_files_rewritten, 1);
  EXPECT_EQ(report.delete_files_removed, 1);
  auto data = LiveFiles(table, DataFileContent::kData);
  ASSERT_EQ(data.size(), 2u);
  auto deletes = LiveFiles(table, DataFileContent::kPositionDeletes);
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(*deletes[0].referenced_data_file, other.file_path);
  EXPECT_EQ(ScanIds(table), Without(Range(0, 20), {0, 1, 2, 10}));
}

// Many position delete files on a data file with few deleted rows (one per
// commit that updated some of its rows) merge into one: the data file stays,
// so the work is the deletes', not the table's.
TEST_F(CompactionTest, DeleteFileCountThresholdMergesThePositionDeleteFilesInsteadOfRewritingData) {
  iceberg::Table table = Open();
  DataFile file = Append(table, Range(0, 100), "a");
  for (int i = 0; i < 4; ++i) CommitDeletes(table, WritePositionDeletes(table, "a", {{file.file_path, i}}));
  CompactionOptions options;
  options.target_file_size = 1;
  options.max_delete_files = 5;
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, options));
  EXPECT_EQ(report.data_files_rewritten, 0);  // 4% deleted, 4 delete files < 5
  EXPECT_EQ(report.delete_files_merged, 0);
  EXPECT_FALSE(report.snapshot_id.has_value());
  options.max_delete_files = 4;
  ASSERT_OK_AND_ASSIGN(report, CompactTable(table, options));
  EXPECT_EQ(report.data_files_rewritten, 0);
  EXPECT_EQ(report.delete_files_merged, 4);
  EXPECT_EQ(report.delete_files_written, 1);
  ASSERT_TRUE(report.snapshot_id.has_value());
  auto data = LiveFiles(table, DataFileContent::kData);
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0].file_path, file.file_path);  // not rewritten
  auto deletes = LiveFiles(table, DataFileContent::kPositionDeletes);
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0].record_count, 4);
  EXPECT_EQ(ScanIds(table), Range(4, 100));
  EXPECT_EQ(table.metadata().CurrentSnapshot()->operation(), "replace");
  // Merged once: the next run has nothing to do.
  ASSERT_OK_AND_ASSIGN(report, CompactTable(table, options));
  EXPECT_EQ(report.delete_files_merged, 0);
  EXPECT_FALSE(report.snapshot_id.has_value());
}

// Delete files naming several data files (floe writes one per commit and
// partition): the merged file keeps the positions of the files that stay and
// drops those of a file rewritten in the same run; each partition merges apart.
TEST_F(CompactionTest, MergedDeleteFilesKeepOnlyPositionsOfDataFilesThatStay) {
  iceberg::Table table = Open();
  DataFile a1 = Append(table, Range(0, 100), "a");
  DataFile a2 = Append(table, Range(100, 200), "a");
  DataFile a3 = Append(table, Range(200, 210), "a");  // goes: 50% deleted
  DataFile b1 = Append(table, Range(300, 400), "b");
  std::set<int64_t> deleted;
  for (int i = 0; i < 5; ++i) {
    CommitDeletes(table, WritePositionDeletes(
                             table, "a", {{a1.file_path, i}, {a2.file_path, 10 + i}, {a3.file_path, i}}));
    CommitDeletes(table, WritePositionDeletes(table, "b", {{b1.file_path, 20 + i}}));
    deleted.insert({i, 110 + i, 200 + i, 320 + i});
  }
  CompactionOptions options;
  options.target_file_size = 1;
  options.max_delete_files = 4;
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, options));
  EXPECT_EQ(report.data_files_rewritten, 1);  // a3
  EXPECT_EQ(report.delete_files_merged, 10);
  EXPECT_EQ(report.delete_files_written, 2);  // one for a, one for b
  auto deletes = LiveFiles(table, DataFileContent::kPositionDeletes);
  ASSERT_EQ(deletes.size(), 2u);
  int64_t positions = 0;
  for (const DataFile& d : deletes) positions += d.record_count;
  EXPECT_EQ(positions, 15);  // a1 5 + a2 5 + b1 5; a3's went with it
  EXPECT_EQ(ScanIds(table), Without(
                                [] {
                                  std::vector<int64_t> ids = Range(0, 210);
                                  std::vector<int64_t> b = Range(300, 400);
                                  ids.insert(ids.end(), b.begin(), b.end());
                                  return ids;
                                }(),
                                deleted));
}

TEST_F(CompactionTest, EqualityDeletesAreAppliedAndRemoved) {
  iceberg::Table table = Open();
  for (int i = 0; i < 5; ++i) Append(table, Range(i * 10, i * 10 + 10), "a");
  // An equality delete on id for ids 3 and 47, in partition a.
  iceberg::Schema id_only;
  id_only.fields.push_back(testing::RowSchema().fields[0]);
  RecordBatch keys;
  keys.schema = *iceberg::ToFloeSchema(id_only);
  Column ids(Int64());
  ids.AppendValue<int64_t>(3);
  ids.AppendValue<int64_t>(47);
  keys.columns = {ids};
  keys.num_rows = 2;
  const std::string path = Location() + "/data/cat=a/eq-deletes.parquet";
  auto writer = iceberg::DataFileWriter::Open(table.io(), path, id_only, {Literal::String("a")}, {});
  ASSERT_OK(writer.status());
  ASSERT_OK((*writer)->Write(keys));
  ASSERT_OK_AND_ASSIGN(DataFile eq, (*writer)->Close());
  eq.content = DataFileContent::kEqualityDeletes;
  eq.equality_ids = {1};
  CommitDeletes(table, eq);
  ASSERT_EQ(ScanIds(table), Without(Range(0, 50), {3, 47}));

  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, CompactionOptions{}));
  EXPECT_EQ(report.data_files_rewritten, 5);
  EXPECT_EQ(report.delete_files_removed, 1);
  EXPECT_TRUE(LiveFiles(table, DataFileContent::kEqualityDeletes).empty());
  EXPECT_EQ(ScanIds(table), Without(Range(0, 50), {3, 47}));
}

TEST_F(CompactionTest, SortColumnsOrderTheRewrittenRows) {
  iceberg::Table table = Open();
  for (int i = 0; i < 5; ++i) {
    DataFile f = WriteData(table, {i, i + 10}, "a", {100 - i, 50 - i});
    ASSERT_OK(table.NewFastAppend().AppendFile(f).Commit().status());
  }
  CompactionOptions options;
  options.sort_columns = {"v"};
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, options));
  ASSERT_EQ(report.data_files_added, 1);
  // One task: the rows come back in file order, which is sorted by v.
  std::shared_ptr<FileIO> io(std::shared_ptr<FileIO>(), &table.io());
  ASSERT_OK_AND_ASSIGN(auto scan, iceberg::TableScan::Make(table.metadata(), io));
  ASSERT_OK_AND_ASSIGN(auto tasks, scan->PlanFiles());
  ASSERT_EQ(tasks.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto reader, scan->Open(tasks[0]));
  ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
  ASSERT_TRUE(batch.has_value());
  std::vector<int64_t> values;
  for (int64_t r = 0; r < batch->num_rows; ++r) values.push_back(batch->columns[2].Value<int64_t>(r));
  EXPECT_EQ(values, (std::vector<int64_t>{46, 47, 48, 49, 50, 96, 97, 98, 99, 100}));

  options.sort_columns = {"nope"};
  EXPECT_EQ(CompactTable(table, options).status().kind(), ErrorKind::kInvalidArgument);
}

TEST_F(CompactionTest, DryRunPlansWithoutWriting) {
  iceberg::Table table = Open();
  for (int i = 0; i < 5; ++i) Append(table, Range(i * 10, i * 10 + 10), "b");
  const auto files_before = FilesOnDisk();
  const int64_t snapshot_before = *table.metadata().current_snapshot_id;
  CompactionOptions options;
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, options));
  ASSERT_EQ(report.groups.size(), 1u);
  EXPECT_EQ(report.groups[0].partition, "cat=b");
  EXPECT_EQ(report.groups[0].input_files, 5);
  EXPECT_EQ(report.data_files_rewritten, 5);
  EXPECT_FALSE(report.snapshot_id.has_value());
  EXPECT_EQ(FilesOnDisk(), files_before);
  EXPECT_EQ(*Open().metadata().current_snapshot_id, snapshot_before);
}

TEST_F(CompactionTest, ConcurrentDeleteForARewrittenFileMakesItGiveUpCleanly) {
  iceberg::Table stale = Open();
  std::vector<DataFile> files;
  for (int i = 0; i < 5; ++i) files.push_back(Append(stale, Range(i * 10, i * 10 + 10), "a"));
  iceberg::Table planner = Open();  // plans on this state
  // Another writer deletes a row of a file the compaction will replace.
  CommitDeletes(stale, WritePositionDeletes(stale, "a", {{files[2].file_path, 3}}));
  const auto files_before = FilesOnDisk();
  const int64_t snapshot_before = *Open().metadata().current_snapshot_id;

  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(planner, CompactionOptions{}));
  EXPECT_NE(report.conflict.find("added delete file"), std::string::npos) << report.conflict;
  EXPECT_FALSE(report.snapshot_id.has_value());
  EXPECT_EQ(report.data_files_added, 0);
  EXPECT_EQ(FilesOnDisk(), files_before);  // the files it wrote are gone again
  iceberg::Table now = Open();
  EXPECT_EQ(*now.metadata().current_snapshot_id, snapshot_before);
  EXPECT_EQ(ScanIds(now), Without(Range(0, 50), {23}));
  // The next round plans on the new state and succeeds.
  ASSERT_OK_AND_ASSIGN(report, CompactTable(now, CompactionOptions{}));
  EXPECT_TRUE(report.conflict.empty());
  EXPECT_EQ(ScanIds(now), Without(Range(0, 50), {23}));
  EXPECT_TRUE(LiveFiles(now, DataFileContent::kPositionDeletes).empty());
}

TEST_F(CompactionTest, TheCommitGateWrapsOnlyRefreshCheckAndCommit) {
  iceberg::Table table = Open();
  std::vector<DataFile> files;
  for (int i = 0; i < 5; ++i) files.push_back(Append(table, Range(i * 10, i * 10 + 10), "a"));
  const auto files_before = FilesOnDisk();
  int gate_calls = 0;
  size_t files_at_gate = 0;
  CompactionOptions options;
  options.commit_gate = [&](const std::function<Status()>& phase) -> Status {
    ++gate_calls;
    files_at_gate = FilesOnDisk().size();  // the rewrite is done before the gate
    return phase();
  };
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, options));
  EXPECT_TRUE(report.conflict.empty()) << report.conflict;
  ASSERT_TRUE(report.snapshot_id.has_value());
  EXPECT_EQ(gate_calls, 1);
  EXPECT_EQ(files_at_gate, files_before.size() + 1);
  EXPECT_EQ(ScanIds(Open()), Range(0, 50));
}

TEST_F(CompactionTest, ACommitThatLandsBeforeTheGateOpensMakesItGiveUp) {
  iceberg::Table table = Open();
  std::vector<DataFile> files;
  for (int i = 0; i < 5; ++i) files.push_back(Append(table, Range(i * 10, i * 10 + 10), "a"));
  iceberg::Table writer = Open();
  DataFile deletes = WritePositionDeletes(writer, "a", {{files[1].file_path, 4}});
  const auto files_with_deletes = FilesOnDisk();
  CompactionOptions options;
  // The gate's owner (an ingest batch) committed during the rewrite; the gate waited for it.
  options.commit_gate = [&](const std::function<Status()>& phase) -> Status {
    CommitDeletes(writer, deletes);
    return phase();
  };
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, options));
  EXPECT_NE(report.conflict.find("added delete file"), std::string::npos) << report.conflict;
  EXPECT_FALSE(report.snapshot_id.has_value());
  iceberg::Table now = Open();
  EXPECT_EQ(now.metadata().current_snapshot_id, writer.metadata().current_snapshot_id);
  EXPECT_EQ(ScanIds(now), Without(Range(0, 50), {14}));
  // Only the writer's commit added files: the compaction's are deleted again.
  for (const auto& f : FilesOnDisk()) {
    if (files_with_deletes.count(f) || f.find("/metadata/") != std::string::npos) continue;
    ADD_FAILURE() << "left behind: " << f;
  }
}

TEST_F(CompactionTest, AGateThatRefusesLeavesTheTableAndNoFilesBehind) {
  iceberg::Table table = Open();
  for (int i = 0; i < 5; ++i) Append(table, Range(i * 10, i * 10 + 10), "a");
  const auto files_before = FilesOnDisk();
  const int64_t snapshot_before = *table.metadata().current_snapshot_id;
  CompactionOptions options;
  options.commit_gate = [&](const std::function<Status()>&) -> Status {
    return Status(ErrorKind::kCancelled, "stopping");
  };
  auto report = CompactTable(table, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().kind(), ErrorKind::kCancelled);
  EXPECT_EQ(FilesOnDisk(), files_before);
  EXPECT_EQ(*Open().metadata().current_snapshot_id, snapshot_before);
}

TEST_F(CompactionTest, AStopRequestDuringTheRewriteEndsItAndDeletesWhatItWrote) {
  iceberg::Table table = Open();
  for (int i = 0; i < 5; ++i) Append(table, Range(i * 10, i * 10 + 10), "a");
  const auto files_before = FilesOnDisk();
  const int64_t snapshot_before = *table.metadata().current_snapshot_id;
  int polls = 0;
  CompactionOptions options;
  options.stop_requested = [&] { return ++polls > 2; };  // after two input files
  int gate_calls = 0;
  options.commit_gate = [&](const std::function<Status()>& phase) -> Status {
    ++gate_calls;
    return phase();
  };
  auto report = CompactTable(table, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().kind(), ErrorKind::kCancelled) << report.status().ToString();
  EXPECT_EQ(polls, 3);
  EXPECT_EQ(gate_calls, 0);
  EXPECT_EQ(FilesOnDisk(), files_before);
  EXPECT_EQ(*Open().metadata().current_snapshot_id, snapshot_before);
}

TEST_F(CompactionTest, DanglingDeleteFilesAreRemovedWithoutRewritingData) {
  iceberg::Table table = Open();
  DataFile a = Append(table, Range(0, 10), "a");
  DataFile b = Append(table, Range(10, 20), "a");
  Append(table, Range(20, 30), "a");
  // One delete file for two data files (no referenced_data_file), then both data files go.
  DataFile shared = WritePositionDeletes(table, "a", {{a.file_path, 1}, {b.file_path, 2}});
  ASSERT_FALSE(shared.referenced_data_file.has_value());
  CommitDeletes(table, shared);
  ASSERT_OK(table.NewDeleteFiles().DeleteFile(a.file_path).DeleteFile(b.file_path).Commit().status());
  ASSERT_EQ(LiveFiles(table, DataFileContent::kPositionDeletes).size(), 1u);

  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, CompactionOptions{}));
  EXPECT_EQ(report.data_files_rewritten, 0);
  EXPECT_EQ(report.delete_files_removed, 1);
  ASSERT_TRUE(report.snapshot_id.has_value());
  EXPECT_TRUE(LiveFiles(table, DataFileContent::kPositionDeletes).empty());
  EXPECT_EQ(LiveFiles(table, DataFileContent::kData).size(), 1u);
  EXPECT_EQ(ScanIds(table), Range(20, 30));
}

TEST_F(CompactionTest, InvalidOptionsAreRefused) {
  iceberg::Table table = Open();
  CompactionOptions options;
  options.small_file_ratio = 0;
  EXPECT_EQ(CompactTable(table, options).status().kind(), ErrorKind::kInvalidArgument);
  options = CompactionOptions{};
  options.target_file_size = -1;
  EXPECT_EQ(CompactTable(table, options).status().kind(), ErrorKind::kInvalidArgument);
  // An empty table has nothing to compact.
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, CompactionOptions{}));
  EXPECT_EQ(report.data_files_rewritten, 0);
}

}  // namespace
}  // namespace floe::maintenance
