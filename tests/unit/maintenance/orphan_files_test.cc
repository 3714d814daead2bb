// Orphan-file removal: a planted old orphan goes, young files and every file
// any metadata references stay, whatever their age.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "maintenance/maintenance.h"
#include "maintenance_test_util.h"

namespace floe::maintenance {
namespace {

using iceberg::DataFile;
using iceberg::Literal;
using testing::MaintenanceTableTest;
using testing::Range;

class OrphanFilesTest : public MaintenanceTableTest {
 protected:
  // Makes every file under the table location look `days` old.
  void AgeAllFiles(int days) {
    const auto when = std::filesystem::file_time_type::clock::now() - std::chrono::hours(24 * days);
    for (const auto& f : FilesOnDisk()) std::filesystem::last_write_time(f, when);
  }
  std::string Plant(const std::string& relative) {
    const std::string path = Location() + "/" + relative;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << "not referenced";
    return path;
  }
};

TEST_F(OrphanFilesTest, RemovesOldUnreferencedFilesOnly) {
  iceberg::Table table = Open();
  DataFile first = Append(table, Range(0, 10), "a");
  Append(table, Range(10, 20), "b");
  CommitDeletes(table, WritePositionDeletes(table, "a", {{first.file_path, 4}}));
  const std::string old_data = Plant("data/cat=a/leftover.parquet");
  const std::string old_manifest = Plant("metadata/leftover-m0.avro");
  AgeAllFiles(10);
  const std::string young = Plant("data/cat=b/in-flight.parquet");
  const auto snapshots = table.metadata().snapshots;

  OrphanOptions options;
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(OrphanReport planned, RemoveOrphanFiles(table, options));
  std::set<std::string> planned_set(planned.orphans.begin(), planned.orphans.end());
  EXPECT_EQ(planned_set, (std::set<std::string>{old_data, old_manifest}));
  EXPECT_EQ(planned.too_recent, 1);
  EXPECT_TRUE(std::filesystem::exists(old_data));

  options.dry_run = false;
  ASSERT_OK_AND_ASSIGN(OrphanReport report, RemoveOrphanFiles(table, options));
  EXPECT_EQ(report.files_deleted, 2);
  EXPECT_FALSE(std::filesystem::exists(old_data));
  EXPECT_FALSE(std::filesystem::exists(old_manifest));
  EXPECT_TRUE(std::filesystem::exists(young));
  // Every snapshot still reads, and everything they need is there.
  for (const auto& f : FilesNeededBySnapshots(table)) EXPECT_TRUE(std::filesystem::exists(f)) << f;
  EXPECT_EQ(ScanIds(table, snapshots[0].snapshot_id), Range(0, 10));
  EXPECT_EQ(ScanIds(table, snapshots[1].snapshot_id), Range(0, 20));
  std::vector<int64_t> expected = Range(0, 20);
  expected.erase(expected.begin() + 4);
  EXPECT_EQ(ScanIds(Open()), expected);
  // Metadata files of the log and the current one were old too, and stay.
  EXPECT_TRUE(std::filesystem::exists(table.metadata_location()));
  for (const auto& entry : table.metadata().metadata_log) {
    EXPECT_TRUE(std::filesystem::exists(entry.metadata_file)) << entry.metadata_file;
  }
}

TEST_F(OrphanFilesTest, AgeBelowAnHourNeedsForce) {
  iceberg::Table table = Open();
  Append(table, Range(0, 3), "a");
  const std::string fresh = Plant("data/fresh.parquet");
  OrphanOptions options;
  options.older_than_ms = 1000;
  EXPECT_EQ(RemoveOrphanFiles(table, options).status().kind(), ErrorKind::kInvalidArgument);
  options.force = true;
  options.now_ms = iceberg::CurrentTimeMillis() + 60'000;
  ASSERT_OK_AND_ASSIGN(OrphanReport report, RemoveOrphanFiles(table, options));
  EXPECT_EQ(report.orphans, std::vector<std::string>{fresh});
  EXPECT_EQ(ScanIds(table), Range(0, 3));
}

}  // namespace
}  // namespace floe::maintenance
