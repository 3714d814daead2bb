// Manifest rewrite: small data manifests merge into one per spec, entries keep
// their sequence numbers (so deletes still apply exactly as before), older
// snapshots still read, and a table addressed by its metadata file commits
// the next version beside it.
#include <gtest/gtest.h>

#include "maintenance/maintenance.h"
#include "maintenance/metadata_file_table.h"
#include "maintenance_test_util.h"

namespace floe::maintenance {
namespace {

using iceberg::DataFile;
using iceberg::Literal;
using iceberg::ManifestContent;
using testing::MaintenanceTableTest;
using testing::Range;

class ManifestRewriteTest : public MaintenanceTableTest {
 protected:
  std::vector<iceberg::ManifestFile> CurrentManifests(iceberg::Table& table, ManifestContent content) {
    std::vector<iceberg::ManifestFile> out;
    auto manifests = iceberg::ReadManifestList(table.io(), table.metadata().CurrentSnapshot()->manifest_list);
    EXPECT_OK(manifests.status());
    if (!manifests.ok()) return out;
    for (const auto& m : *manifests) {
      if (m.content == content) out.push_back(m);
    }
    return out;
  }
};

TEST_F(ManifestRewriteTest, MergesSmallDataManifestsAndKeepsTheRows) {
  iceberg::Table table = Open();
  std::vector<DataFile> files;
  for (int i = 0; i < 6; ++i) files.push_back(Append(table, Range(i * 10, i * 10 + 10), i % 2 ? "a" : "b"));
  CommitDeletes(table, WritePositionDeletes(table, "b", {{files[0].file_path, 1}}));
  // Appended after the delete: a later sequence number, so the delete must not apply to it.
  Append(table, Range(60, 70), "b");
  ASSERT_EQ(CurrentManifests(table, ManifestContent::kData).size(), 7u);
  const auto before_ids = ScanIds(table);
  const auto snapshots_before = table.metadata().snapshots;

  ManifestRewriteOptions options;
  options.dry_run = true;
  ASSERT_OK_AND_ASSIGN(ManifestRewriteReport planned, RewriteTableManifests(table, options));
  EXPECT_EQ(planned.manifests_replaced, 7);
  EXPECT_EQ(planned.manifests_written, 1);
  EXPECT_FALSE(planned.snapshot_id.has_value());
  EXPECT_EQ(table.metadata().snapshots.size(), snapshots_before.size());

  options.dry_run = false;
  ASSERT_OK_AND_ASSIGN(ManifestRewriteReport report, RewriteTableManifests(table, options));
  ASSERT_TRUE(report.snapshot_id.has_value());
  const iceberg::Snapshot* current = table.metadata().CurrentSnapshot();
  EXPECT_EQ(current->operation(), "replace");
  EXPECT_EQ(current->summary.at(kMaintenanceSummaryKey), "rewrite-manifests");
  EXPECT_EQ(current->summary.at("total-data-files"), "7");
  auto data_manifests = CurrentManifests(table, ManifestContent::kData);
  ASSERT_EQ(data_manifests.size(), 1u);
  EXPECT_EQ(data_manifests[0].existing_files_count, 7);
  EXPECT_EQ(data_manifests[0].added_files_count, 0);
  EXPECT_EQ(CurrentManifests(table, ManifestContent::kDeletes).size(), 1u);
  EXPECT_EQ(ScanIds(table), before_ids);
  EXPECT_EQ(ScanIds(Open()), before_ids);
  // The entries kept their sequence numbers.
  auto entries = iceberg::LiveEntries(table.io(), table.metadata(), *current);
  ASSERT_OK(entries.status());
  for (const auto& e : *entries) {
    if (e.data_file.content != iceberg::DataFileContent::kData) continue;  // the delete manifest was kept
    if (e.data_file.file_path == files[0].file_path) {
      EXPECT_EQ(e.sequence_number, 1);
    }
    EXPECT_EQ(e.status, iceberg::ManifestEntryStatus::kExisting);
  }
  for (const auto& s : snapshots_before) EXPECT_FALSE(ScanIds(table, s.snapshot_id).empty());
  // Nothing left to merge.
  ASSERT_OK_AND_ASSIGN(report, RewriteTableManifests(table, ManifestRewriteOptions{}));
  EXPECT_EQ(report.manifests_replaced, 0);
  EXPECT_FALSE(report.snapshot_id.has_value());
}

TEST_F(ManifestRewriteTest, ManifestsAtTheTargetSizeStay) {
  iceberg::Table table = Open();
  for (int i = 0; i < 3; ++i) Append(table, Range(i, i + 1), "a");
  ManifestRewriteOptions options;
  options.target_manifest_size = 1;  // every manifest is already "large"
  ASSERT_OK_AND_ASSIGN(ManifestRewriteReport report, RewriteTableManifests(table, options));
  EXPECT_EQ(report.manifests_replaced, 0);
  EXPECT_EQ(CurrentManifests(table, ManifestContent::kData).size(), 3u);
}

TEST_F(ManifestRewriteTest, MetadataFileTableCommitsTheNextVersionBesideIt) {
  {
    iceberg::Table table = Open();
    for (int i = 0; i < 5; ++i) Append(table, Range(i * 10, i * 10 + 10), "a");
  }
  const std::string metadata_path = Open().metadata_location();
  auto ops = std::make_shared<MetadataFileTableOperations>(MakeLocalFileIO(), metadata_path);
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::Table::Load(ops));
  ASSERT_OK_AND_ASSIGN(CompactionReport report, CompactTable(table, CompactionOptions{}));
  ASSERT_TRUE(report.snapshot_id.has_value());
  ASSERT_OK_AND_ASSIGN(std::string expected_next, NextMetadataPath(metadata_path));
  // 5-digit names get a fresh uuid: compare the version prefix.
  const std::string dir = metadata_path.substr(0, metadata_path.find_last_of('/') + 1);
  EXPECT_EQ(table.metadata_location().substr(0, dir.size() + 5), expected_next.substr(0, dir.size() + 5));
  EXPECT_TRUE(std::filesystem::exists(table.metadata_location()));
  auto fresh = std::make_shared<MetadataFileTableOperations>(MakeLocalFileIO(), table.metadata_location());
  ASSERT_OK_AND_ASSIGN(iceberg::Table reread, iceberg::Table::Load(fresh));
  EXPECT_EQ(reread.metadata().current_snapshot_id, report.snapshot_id);
  EXPECT_EQ(ScanIds(reread), Range(0, 50));

  EXPECT_EQ(*NextMetadataPath("/t/metadata/v7.metadata.json"), "/t/metadata/v8.metadata.json");
  EXPECT_EQ(NextMetadataPath("/t/metadata/current.json").status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace floe::maintenance
