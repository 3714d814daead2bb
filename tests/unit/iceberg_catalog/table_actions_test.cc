// Table actions through a real SQLite catalog: the metadata, manifest lists
// and manifests they produce, read back; retries and conflict validation.
#include <gtest/gtest.h>

#include "catalog_test_util.h"
#include "iceberg/spec/table_metadata_builder.h"

namespace floe::iceberg {
namespace {

using floe::testing::EventSchema;
using floe::testing::FakeDataFile;
using floe::testing::FakePositionDeletes;
using floe::testing::LivePaths;

class TableActionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = catalog::OpenSqlCatalog("sqlite://" + dir_.File("catalog.db"), dir_.File("warehouse"));
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
    ASSERT_OK(catalog_->CreateNamespace({"db"}, {}));
  }

  Table Create(int format_version = 2, PartitionSpec spec = PartitionSpec::Unpartitioned()) {
    catalog::TableCreation creation;
    creation.schema = EventSchema();
    creation.spec = std::move(spec);
    creation.format_version = format_version;
    creation.properties = {{kCommitMinWaitMsProperty, "1"}, {kCommitMaxWaitMsProperty, "5"}};
    auto ops = catalog_->CreateTable(id_, creation);
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    auto table = Table::Load(*ops);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return std::move(table).value();
  }

  Table Open() {
    auto ops = catalog_->LoadTable(id_);
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    auto table = Table::Load(*ops);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return std::move(table).value();
  }

  std::string Data(const std::string& name) { return dir_.File("warehouse") + "/db/events/data/" + name; }

  floe::testing::TempDir dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  catalog::TableIdentifier id_{{"db"}, "events"};
};

TEST_F(TableActionsTest, FastAppendsCarryManifestsAndInheritSequenceNumbers) {
  Table table = Create();
  ASSERT_OK_AND_ASSIGN(Snapshot s1, table.NewFastAppend()
                                        .AppendFile(FakeDataFile(Data("a.parquet"), 10))
                                        .AppendFile(FakeDataFile(Data("b.parquet"), 5))
                                        .Set("floe.batch-id", "7")
                                        .Commit());
  EXPECT_EQ(s1.sequence_number, 1);
  EXPECT_GT(s1.snapshot_id, 0);
  EXPECT_FALSE(s1.parent_snapshot_id.has_value());
  EXPECT_EQ(s1.summary.at("operation"), "append");
  EXPECT_EQ(s1.summary.at("floe.batch-id"), "7");
  EXPECT_EQ(s1.summary.at("added-data-files"), "2");
  EXPECT_EQ(s1.summary.at("added-records"), "15");
  EXPECT_EQ(s1.summary.at("added-files-size"), "215");
  EXPECT_EQ(s1.summary.at("total-records"), "15");
  EXPECT_EQ(s1.summary.at("total-data-files"), "2");
  EXPECT_EQ(s1.summary.at("total-delete-files"), "0");
  EXPECT_EQ(s1.summary.at("changed-partition-count"), "1");

  ASSERT_OK_AND_ASSIGN(Snapshot s2,
                       table.NewFastAppend().AppendFile(FakeDataFile(Data("c.parquet"), 1)).Commit());
  EXPECT_EQ(s2.sequence_number, 2);
  EXPECT_EQ(s2.parent_snapshot_id, s1.snapshot_id);
  EXPECT_EQ(s2.summary.at("total-records"), "16");
  EXPECT_EQ(table.metadata().current_snapshot_id, s2.snapshot_id);
  EXPECT_EQ(table.metadata().refs.at("main").snapshot_id, s2.snapshot_id);

  ASSERT_OK_AND_ASSIGN(auto manifests, ReadManifestList(table.io(), s2.manifest_list));
  ASSERT_EQ(manifests.size(), 2u);
  EXPECT_EQ(manifests[0].added_snapshot_id, s2.snapshot_id);  // new manifest first
  EXPECT_EQ(manifests[0].sequence_number, 2);
  EXPECT_EQ(manifests[1].added_snapshot_id, s1.snapshot_id);
  EXPECT_EQ(manifests[1].sequence_number, 1);
  ASSERT_OK_AND_ASSIGN(auto old_entries, ReadManifest(table.io(), manifests[1], StructType({})));
  ASSERT_EQ(old_entries.size(), 2u);
  EXPECT_EQ(old_entries[0].status, ManifestEntryStatus::kAdded);
  EXPECT_EQ(old_entries[0].sequence_number, 1);
  EXPECT_EQ(old_entries[0].snapshot_id, s1.snapshot_id);
  EXPECT_EQ(LivePaths(table, s2),
            (std::vector<std::string>{Data("a.parquet"), Data("b.parquet"), Data("c.parquet")}));

  // A fresh load sees the same state from the catalog.
  Table reloaded = Open();
  EXPECT_EQ(reloaded.metadata(), table.metadata());
  EXPECT_EQ(reloaded.metadata().metadata_log.size(), 2u);
}

TEST_F(TableActionsTest, RetryAfterConcurrentCommitRewritesOnlyTheManifestList) {
  Table first = Create();
  Table second = Open();  // stale after `first` commits
  ASSERT_OK(first.NewFastAppend().AppendFile(FakeDataFile(Data("a.parquet"), 3)).Commit().status());
  ASSERT_OK_AND_ASSIGN(Snapshot s,
                       second.NewFastAppend().AppendFile(FakeDataFile(Data("b.parquet"), 4)).Commit());
  EXPECT_EQ(s.sequence_number, 2);
  EXPECT_EQ(s.parent_snapshot_id, first.metadata().current_snapshot_id);
  EXPECT_EQ(s.summary.at("total-records"), "7");
  EXPECT_EQ(LivePaths(second, s), (std::vector<std::string>{Data("a.parquet"), Data("b.parquet")}));
  // The failed attempt's manifest list and metadata file were deleted: exactly one list per snapshot,
  // one manifest per append, one metadata file per committed version.
  const auto metadata_dir = std::filesystem::path(dir_.File("warehouse")) / "db" / "events" / "metadata";
  size_t lists = 0, manifests = 0;
  for (const auto& e : std::filesystem::directory_iterator(metadata_dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("snap-", 0) == 0) {
      ++lists;
    } else if (name.size() > 5 && name.substr(name.size() - 5) == ".avro") {
      ++manifests;
    }
  }
  EXPECT_EQ(lists, 2u);
  EXPECT_EQ(manifests, 2u);
  EXPECT_EQ(floe::testing::CountFiles(metadata_dir, ".metadata.json"), 3u);
}

TEST_F(TableActionsTest, RowDeltaAddsDeleteManifestAndSummaries) {
  Table table = Create();
  ASSERT_OK(table.NewFastAppend().AppendFile(FakeDataFile(Data("a.parquet"), 10)).Commit().status());
  ASSERT_OK_AND_ASSIGN(Snapshot s,
                       table.NewRowDelta()
                           .AddRows(FakeDataFile(Data("b.parquet"), 2))
                           .AddDeletes(FakePositionDeletes(Data("a-del.parquet"), Data("a.parquet"), 3))
                           .Commit());
  EXPECT_EQ(s.operation(), "overwrite");
  EXPECT_EQ(s.summary.at("added-delete-files"), "1");
  EXPECT_EQ(s.summary.at("added-position-delete-files"), "1");
  EXPECT_EQ(s.summary.at("added-position-deletes"), "3");
  EXPECT_EQ(s.summary.at("total-position-deletes"), "3");
  EXPECT_EQ(s.summary.at("total-delete-files"), "1");
  EXPECT_EQ(s.summary.at("total-records"), "12");
  ASSERT_OK_AND_ASSIGN(auto manifests, ReadManifestList(table.io(), s.manifest_list));
  int deletes = 0;
  for (const auto& m : manifests) {
    if (m.content == ManifestContent::kDeletes) {
      ++deletes;
      EXPECT_EQ(m.sequence_number, 2);
      ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(table.io(), m, StructType({})));
      ASSERT_EQ(entries.size(), 1u);
      EXPECT_EQ(entries[0].data_file.content, DataFileContent::kPositionDeletes);
      EXPECT_EQ(entries[0].data_file.referenced_data_file, Data("a.parquet"));
      EXPECT_EQ(entries[0].sequence_number, 2);
    }
  }
  EXPECT_EQ(deletes, 1);

  ASSERT_OK_AND_ASSIGN(Snapshot only_deletes,
                       table.NewRowDelta()
                           .AddDeletes(FakePositionDeletes(Data("b-del.parquet"), Data("b.parquet"), 1))
                           .Commit());
  EXPECT_EQ(only_deletes.operation(), "delete");
  // v2 tables take position delete files; adding a data file as deletes is refused.
  EXPECT_FALSE(table.NewRowDelta().AddDeletes(FakeDataFile(Data("x.parquet"), 1)).Commit().ok());
}

TEST_F(TableActionsTest, RowDeltaFailsValidationWhenItsDataFileWasRemovedConcurrently) {
  Table writer = Create();
  ASSERT_OK(writer.NewFastAppend().AppendFile(FakeDataFile(Data("a.parquet"), 10)).Commit().status());
  Table stale = Open();
  ASSERT_OK(writer.NewDeleteFiles().DeleteFile(Data("a.parquet")).Commit().status());
  auto result = stale.NewRowDelta()
                    .AddDeletes(FakePositionDeletes(Data("a-del.parquet"), Data("a.parquet"), 1))
                    .Commit();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kCommitFailed);
  EXPECT_FALSE(result.status().retryable());
  EXPECT_NE(result.status().message().find("a.parquet"), std::string::npos) << result.status().ToString();
}

TEST_F(TableActionsTest, RowDeltaFailsValidationOnConcurrentDeletesForTheSameFile) {
  Table writer = Create();
  ASSERT_OK(writer.NewFastAppend().AppendFile(FakeDataFile(Data("a.parquet"), 10)).Commit().status());
  Table stale = Open();
  ASSERT_OK(writer.NewRowDelta()
                .AddDeletes(FakePositionDeletes(Data("d1.parquet"), Data("a.parquet"), 1))
                .Commit()
                .status());
  auto result =
      stale.NewRowDelta().AddDeletes(FakePositionDeletes(Data("d2.parquet"), Data("a.parquet"), 1)).Commit();
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("d1.parquet"), std::string::npos) << result.status().ToString();
  // A delta for another file commits after a retry.
  ASSERT_OK(writer.NewFastAppend().AppendFile(FakeDataFile(Data("b.parquet"), 1)).Commit().status());
  Table stale2 = Open();
  ASSERT_OK(writer.NewFastAppend().AppendFile(FakeDataFile(Data("c.parquet"), 1)).Commit().status());
  EXPECT_OK(stale2.NewRowDelta()
                .AddDeletes(FakePositionDeletes(Data("d3.parquet"), Data("b.parquet"), 1))
                .Commit());
}

TEST_F(TableActionsTest, RewriteFilesReplacesLiveFilesAndValidates) {
  Table table = Create();
  ASSERT_OK(table.NewFastAppend()
                .AppendFile(FakeDataFile(Data("a.parquet"), 10))
                .AppendFile(FakeDataFile(Data("b.parquet"), 20))
                .Commit()
                .status());
  ASSERT_OK(table.NewRowDelta()
                .AddDeletes(FakePositionDeletes(Data("a-del.parquet"), Data("a.parquet"), 2))
                .Commit()
                .status());
  ASSERT_OK_AND_ASSIGN(Snapshot s, table.NewRewriteFiles()
                                       .DeleteFile(FakeDataFile(Data("a.parquet"), 10))
                                       .DeleteFile(FakeDataFile(Data("b.parquet"), 20))
                                       .AddFile(FakeDataFile(Data("ab.parquet"), 28))
                                       .Commit());
  EXPECT_EQ(s.operation(), "replace");
  EXPECT_EQ(s.sequence_number, 3);
  EXPECT_EQ(s.summary.at("deleted-data-files"), "2");
  EXPECT_EQ(s.summary.at("deleted-records"), "30");
  EXPECT_EQ(s.summary.at("removed-delete-files"), "1");  // the now dangling position deletes
  EXPECT_EQ(s.summary.at("total-records"), "28");
  EXPECT_EQ(s.summary.at("total-data-files"), "1");
  EXPECT_EQ(s.summary.at("total-delete-files"), "0");
  EXPECT_EQ(LivePaths(table, s), (std::vector<std::string>{Data("ab.parquet")}));

  // DELETED entries carry the rewrite's snapshot id and keep their sequence numbers.
  ASSERT_OK_AND_ASSIGN(auto manifests, ReadManifestList(table.io(), s.manifest_list));
  int deleted = 0;
  for (const auto& m : manifests) {
    ASSERT_OK_AND_ASSIGN(auto entries, ReadManifest(table.io(), m, StructType({})));
    for (const auto& e : entries) {
      if (e.status != ManifestEntryStatus::kDeleted) continue;
      ++deleted;
      EXPECT_EQ(e.snapshot_id, s.snapshot_id);
      EXPECT_EQ(e.sequence_number, e.data_file.content == DataFileContent::kData ? 1 : 2);
    }
  }
  EXPECT_EQ(deleted, 3);

  auto gone = table.NewRewriteFiles()
                  .DeleteFile(FakeDataFile(Data("a.parquet"), 10))
                  .AddFile(FakeDataFile(Data("a2.parquet"), 10))
                  .Commit();
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().kind(), ErrorKind::kCommitFailed);
  EXPECT_NE(gone.status().message().find("not live"), std::string::npos);
}

TEST_F(TableActionsTest, DeleteFilesByPath) {
  Table table = Create();
  ASSERT_OK(table.NewFastAppend()
                .AppendFile(FakeDataFile(Data("a.parquet"), 1))
                .AppendFile(FakeDataFile(Data("b.parquet"), 2))
                .Commit()
                .status());
  ASSERT_OK_AND_ASSIGN(Snapshot s, table.NewDeleteFiles().DeleteFile(Data("a.parquet")).Commit());
  EXPECT_EQ(s.operation(), "delete");
  EXPECT_EQ(s.summary.at("total-records"), "2");
  EXPECT_EQ(LivePaths(table, s), (std::vector<std::string>{Data("b.parquet")}));
  EXPECT_FALSE(table.NewDeleteFiles().DeleteFile(Data("nope.parquet")).Commit().ok());
}

TEST_F(TableActionsTest, PartitionedAppendAndSpecEvolution) {
  PartitionSpec spec;
  spec.fields.push_back(PartitionField{2, 1000, "category", Transform::Identity()});
  Table table = Create(2, spec);
  ASSERT_OK_AND_ASSIGN(Snapshot s,
                       table.NewFastAppend()
                           .AppendFile(FakeDataFile(Data("x.parquet"), 1, 0, {Literal::String("a")}))
                           .AppendFile(FakeDataFile(Data("y.parquet"), 1, 0, {Literal::String("b")}))
                           .AppendFile(FakeDataFile(Data("z.parquet"), 1, 0, {Literal::String("b")}))
                           .Commit());
  EXPECT_EQ(s.summary.at("changed-partition-count"), "2");
  ASSERT_OK_AND_ASSIGN(auto manifests, ReadManifestList(table.io(), s.manifest_list));
  ASSERT_EQ(manifests.size(), 1u);
  ASSERT_EQ(manifests[0].partitions.size(), 1u);
  EXPECT_EQ(manifests[0].partitions[0].lower_bound, "a");
  EXPECT_EQ(manifests[0].partitions[0].upper_bound, "b");

  ASSERT_OK_AND_ASSIGN(
      PartitionSpec evolved,
      table.NewUpdateSpec().AddField("ts", Transform::Day()).AddField("id", Transform::Bucket(16)).Commit());
  EXPECT_EQ(evolved.spec_id, 1);
  ASSERT_EQ(evolved.fields.size(), 3u);
  EXPECT_EQ(evolved.fields[1].name, "ts_day");
  EXPECT_EQ(evolved.fields[1].field_id, 1001);
  EXPECT_EQ(evolved.fields[2].name, "id_bucket_16");
  EXPECT_EQ(evolved.fields[2].field_id, 1002);
  EXPECT_EQ(table.metadata().last_partition_id, 1002);

  ASSERT_OK_AND_ASSIGN(PartitionSpec removed, table.NewUpdateSpec().RemoveField("ts_day").Commit());
  EXPECT_EQ(removed.spec_id, 2);
  EXPECT_EQ(removed.fields.size(), 2u);
  // Re-adding day(ts) reuses its old field id.
  ASSERT_OK_AND_ASSIGN(PartitionSpec readded,
                       table.NewUpdateSpec().AddField("ts", Transform::Day()).Commit());
  EXPECT_EQ(readded.fields.back().field_id, 1001);
  EXPECT_EQ(table.metadata().last_partition_id, 1002);
  EXPECT_FALSE(table.NewUpdateSpec().AddField("nope", Transform::Identity()).Commit().ok());
  EXPECT_FALSE(table.NewUpdateSpec().AddField("category", Transform::Identity()).Commit().ok());

  // Files of the old spec stay readable next to files of the new one.
  ASSERT_OK_AND_ASSIGN(Snapshot s2, table.NewFastAppend()
                                        .AppendFile(FakeDataFile(
                                            Data("w.parquet"), 1, readded.spec_id,
                                            {Literal::String("c"), Literal::Int(5), Literal::Date(19000)}))
                                        .Commit());
  EXPECT_EQ(LivePaths(table, s2).size(), 4u);
}

TEST_F(TableActionsTest, SchemaEvolutionAssignsFreshIdsAndKeepsIdsOnRename) {
  Table table = Create();
  ASSERT_OK_AND_ASSIGN(
      Schema evolved, table.NewUpdateSchema()
                          .AddColumn("note", PrimitiveType(TypeKind::kString))
                          .AddColumn("", "address",
                                     StructType({MakeNestedField(0, "city", PrimitiveType(TypeKind::kString)),
                                                 MakeNestedField(0, "zip", PrimitiveType(TypeKind::kInt))}))
                          .RenameColumn("category", "kind")
                          .UpdateColumn("qty", PrimitiveType(TypeKind::kLong))
                          .Commit());
  EXPECT_EQ(evolved.schema_id, 1);
  EXPECT_EQ(table.metadata().current_schema_id, 1);
  EXPECT_EQ(table.metadata().last_column_id, 8);
  EXPECT_EQ(evolved.FindFieldByName("note")->id, 5);
  EXPECT_FALSE(evolved.FindFieldByName("note")->required);
  EXPECT_EQ(evolved.FindFieldByName("address")->id, 6);
  EXPECT_EQ(evolved.FindFieldByName("address.city")->id, 7);
  EXPECT_EQ(evolved.FindFieldByName("address.zip")->id, 8);
  EXPECT_EQ(evolved.FindFieldByName("kind")->id, 2);
  EXPECT_EQ(evolved.FindFieldByName("category"), nullptr);
  EXPECT_EQ(evolved.FindFieldByName("qty")->type.kind, TypeKind::kLong);

  ASSERT_OK_AND_ASSIGN(
      Schema nested,
      table.NewUpdateSchema().AddColumn("address", "country", PrimitiveType(TypeKind::kString)).Commit());
  EXPECT_EQ(nested.FindFieldByName("address.country")->id, 9);
  ASSERT_OK_AND_ASSIGN(Schema dropped,
                       table.NewUpdateSchema().DeleteColumn("note").MakeColumnOptional("id").Commit());
  EXPECT_EQ(dropped.FindFieldByName("note"), nullptr);
  EXPECT_FALSE(dropped.FindFieldByName("id")->required);
  EXPECT_EQ(table.metadata().last_column_id, 9);
  EXPECT_EQ(table.metadata().schemas.size(), 4u);

  // Refused: narrowing, unrelated types, duplicates, required without opt-in, unknown columns.
  EXPECT_FALSE(table.NewUpdateSchema().UpdateColumn("qty", PrimitiveType(TypeKind::kInt)).Commit().ok());
  EXPECT_FALSE(table.NewUpdateSchema().UpdateColumn("kind", PrimitiveType(TypeKind::kInt)).Commit().ok());
  EXPECT_FALSE(table.NewUpdateSchema().AddColumn("kind", PrimitiveType(TypeKind::kInt)).Commit().ok());
  EXPECT_FALSE(
      table.NewUpdateSchema().AddRequiredColumn("", "r", PrimitiveType(TypeKind::kInt)).Commit().ok());
  EXPECT_OK(table.NewUpdateSchema()
                .AllowIncompatibleChanges()
                .AddRequiredColumn("", "r", PrimitiveType(TypeKind::kInt))
                .Commit());
  EXPECT_FALSE(table.NewUpdateSchema().RenameColumn("missing", "x").Commit().ok());
  EXPECT_FALSE(table.NewUpdateSchema().AddColumn("ns", PrimitiveType(TypeKind::kTimestampNs)).Commit().ok());
}

TEST_F(TableActionsTest, SchemaUpdateRetriesOnTopOfAConcurrentSchemaChange) {
  Table a = Create();
  Table b = Open();
  ASSERT_OK(a.NewUpdateSchema().AddColumn("x", PrimitiveType(TypeKind::kString)).Commit().status());
  ASSERT_OK_AND_ASSIGN(Schema s,
                       b.NewUpdateSchema().AddColumn("y", PrimitiveType(TypeKind::kString)).Commit());
  EXPECT_EQ(s.FindFieldByName("x")->id, 5);
  EXPECT_EQ(s.FindFieldByName("y")->id, 6);
}

TEST_F(TableActionsTest, PropertiesSetAndRemove) {
  Table table = Create();
  ASSERT_OK_AND_ASSIGN(auto props, table.NewUpdateProperties().Set("owner", "floe").Set("x", "1").Commit());
  EXPECT_EQ(props.at("owner"), "floe");
  ASSERT_OK_AND_ASSIGN(props, table.NewUpdateProperties().Remove("x").Commit());
  EXPECT_EQ(props.count("x"), 0u);
  EXPECT_FALSE(table.NewUpdateProperties().Set("a", "1").Remove("a").Commit().ok());
  EXPECT_EQ(Open().metadata().properties.at("owner"), "floe");
}

TEST_F(TableActionsTest, ExpireSnapshotsKeepsWhatRetainedSnapshotsNeed) {
  Table table = Create();
  std::vector<Snapshot> snaps;
  for (const char* name : {"a.parquet", "b.parquet", "c.parquet"}) {
    ASSERT_OK_AND_ASSIGN(Snapshot s, table.NewFastAppend().AppendFile(FakeDataFile(Data(name), 1)).Commit());
    snaps.push_back(s);
  }
  ASSERT_OK_AND_ASSIGN(Snapshot del, table.NewDeleteFiles().DeleteFile(Data("a.parquet")).Commit());
  ASSERT_OK_AND_ASSIGN(Snapshot last,
                       table.NewFastAppend().AppendFile(FakeDataFile(Data("d.parquet"), 1)).Commit());
  const auto retained_before = LivePaths(table, last);
  const auto del_before = LivePaths(table, del);

  // Keep the last two ancestors of main; everything older goes.
  ASSERT_OK_AND_ASSIGN(
      ExpiredFiles expired,
      table.NewExpireSnapshots().ExpireOlderThan(last.timestamp_ms + 1).RetainLast(2).Commit());
  std::vector<int64_t> expected_ids = {snaps[0].snapshot_id, snaps[1].snapshot_id, snaps[2].snapshot_id};
  std::sort(expected_ids.begin(), expected_ids.end());
  EXPECT_EQ(expired.expired_snapshot_ids, expected_ids);
  EXPECT_EQ(table.metadata().snapshots.size(), 2u);
  EXPECT_EQ(LivePaths(table, *table.metadata().SnapshotById(last.snapshot_id)), retained_before);
  EXPECT_EQ(LivePaths(table, *table.metadata().SnapshotById(del.snapshot_id)), del_before);
  EXPECT_EQ(expired.manifest_lists.size(), 3u);
  // a.parquet was deleted by a retained snapshot, so nothing retained needs it any more.
  EXPECT_EQ(expired.data_files, (std::vector<std::string>{Data("a.parquet")}));
  // The three append manifests: a's was rewritten by the delete; b's and c's are still referenced.
  EXPECT_EQ(expired.manifests.size(), 1u);
  for (const auto& path : expired.manifest_lists) {
    EXPECT_NE(path, last.manifest_list);
    EXPECT_NE(path, del.manifest_list);
  }
  ASSERT_OK(DeleteExpiredFiles(table.io(), expired));
  // Still readable after deleting what expiry returned.
  Table reloaded = Open();
  EXPECT_EQ(LivePaths(reloaded, *reloaded.metadata().CurrentSnapshot()), retained_before);

  // The current snapshot is never expired, and a ref's head cannot be expired explicitly.
  ASSERT_OK_AND_ASSIGN(
      ExpiredFiles none,
      table.NewExpireSnapshots().ExpireOlderThan(last.timestamp_ms + 1000).RetainLast(1).Commit());
  EXPECT_EQ(none.expired_snapshot_ids, std::vector<int64_t>{del.snapshot_id});
  EXPECT_FALSE(table.NewExpireSnapshots().ExpireSnapshotId(last.snapshot_id).Commit().ok());
}

TEST_F(TableActionsTest, FormatVersion3RowLineage) {
  Table table = Create(3);
  ASSERT_OK_AND_ASSIGN(Snapshot s1,
                       table.NewFastAppend().AppendFile(FakeDataFile(Data("a.parquet"), 10)).Commit());
  EXPECT_EQ(s1.first_row_id, 0);
  EXPECT_EQ(s1.added_rows, 10);
  ASSERT_OK_AND_ASSIGN(Snapshot s2,
                       table.NewFastAppend().AppendFile(FakeDataFile(Data("b.parquet"), 5)).Commit());
  EXPECT_EQ(s2.first_row_id, 10);
  EXPECT_EQ(s2.added_rows, 5);
  EXPECT_EQ(table.metadata().next_row_id, 15);
  ASSERT_OK_AND_ASSIGN(auto manifests, ReadManifestList(table.io(), s2.manifest_list));
  ASSERT_EQ(manifests.size(), 2u);
  EXPECT_EQ(manifests[0].first_row_id, 10);
  EXPECT_EQ(manifests[1].first_row_id, 0);
  // v3 takes deletion vectors, not position delete files.
  EXPECT_FALSE(table.NewRowDelta()
                   .AddDeletes(FakePositionDeletes(Data("d.parquet"), Data("a.parquet"), 1))
                   .Commit()
                   .ok());
}

}  // namespace
}  // namespace floe::iceberg
