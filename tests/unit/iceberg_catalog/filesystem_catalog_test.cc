// The filesystem (Hadoop) catalog: layout, version hint, commits that lose
// the exclusive create, listing, and OpenCatalog's URI dispatch.
#include "catalog/filesystem/filesystem_catalog.h"

#include <fstream>

#include "catalog/table/metastore_table_operations.h"
#include "catalog_test_util.h"

namespace floe::catalog {
namespace {

using iceberg::Table;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(FilesystemCatalog, CreateCommitListAndReload) {
  floe::testing::TempDir dir;
  const std::string warehouse = dir.File("wh");
  ASSERT_OK_AND_ASSIGN(auto catalog, OpenFilesystemCatalog(warehouse));
  ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  ASSERT_OK(catalog->CreateNamespace({"db", "raw"}, {}));
  EXPECT_EQ(catalog->CreateNamespace({"db"}, {}).kind(), ErrorKind::kAlreadyExists);
  TableCreation creation;
  creation.schema = floe::testing::EventSchema();
  ASSERT_OK_AND_ASSIGN(auto ops, catalog->CreateTable({{"db"}, "events"}, creation));
  EXPECT_EQ(catalog->CreateTable({{"db"}, "events"}, creation).status().kind(), ErrorKind::kAlreadyExists);
  EXPECT_EQ(catalog->CreateTable({{"nope"}, "t"}, creation).status().kind(), ErrorKind::kNotFound);
  EXPECT_FALSE(catalog->CreateTable({{"db"}, "../escape"}, creation).ok());

  const std::string metadata_dir = warehouse + "/db/events/metadata";
  EXPECT_EQ(ReadText(metadata_dir + "/version-hint.text"), "1");
  ASSERT_OK_AND_ASSIGN(Table table, Table::Load(ops));
  EXPECT_EQ(table.metadata_location(), metadata_dir + "/v1.metadata.json");
  EXPECT_EQ(table.metadata().location, warehouse + "/db/events");

  ASSERT_OK(table.NewFastAppend()
                .AppendFile(floe::testing::FakeDataFile(warehouse + "/db/events/data/a.parquet", 3))
                .Commit()
                .status());
  EXPECT_EQ(table.metadata_location(), metadata_dir + "/v2.metadata.json");
  EXPECT_EQ(ReadText(metadata_dir + "/version-hint.text"), "2");

  ASSERT_OK_AND_ASSIGN(auto namespaces, catalog->ListNamespaces({}));
  EXPECT_EQ(namespaces, (std::vector<Namespace>{{"db"}}));
  ASSERT_OK_AND_ASSIGN(auto children, catalog->ListNamespaces({"db"}));
  EXPECT_EQ(children, (std::vector<Namespace>{{"db", "raw"}}));  // the table directory is not a namespace
  ASSERT_OK_AND_ASSIGN(auto tables, catalog->ListTables({"db"}));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{{{"db"}, "events"}}));
  EXPECT_EQ(catalog->LoadTable({{"db"}, "missing"}).status().kind(), ErrorKind::kNotFound);

  // A stale hint (a crash between commit and hint update) is overtaken by probing.
  ASSERT_OK(table.io().WriteAll(metadata_dir + "/version-hint.text", std::string("1")));
  ASSERT_OK_AND_ASSIGN(auto reloaded_ops, catalog->LoadTable({{"db"}, "events"}));
  ASSERT_OK_AND_ASSIGN(Table reloaded, Table::Load(reloaded_ops));
  EXPECT_EQ(reloaded.metadata_location(), metadata_dir + "/v2.metadata.json");
}

TEST(FilesystemCatalog, StaleWritersCommitOnTopAndNeverOverwrite) {
  floe::testing::TempDir dir;
  const std::string warehouse = dir.File("wh");
  ASSERT_OK_AND_ASSIGN(auto catalog, OpenFilesystemCatalog(warehouse));
  ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  TableCreation creation;
  creation.schema = floe::testing::EventSchema();
  creation.properties = {{iceberg::kCommitMinWaitMsProperty, "1"}};
  ASSERT_OK_AND_ASSIGN(auto ops_a, catalog->CreateTable({{"db"}, "t"}, creation));
  ASSERT_OK_AND_ASSIGN(auto ops_b, catalog->LoadTable({{"db"}, "t"}));
  ASSERT_OK_AND_ASSIGN(auto loaded_b, ops_b->Load());

  // Another writer takes v2 behind b's back.
  ASSERT_OK_AND_ASSIGN(Table a, Table::Load(ops_a));
  ASSERT_OK(a.NewUpdateProperties().Set("writer", "a").Commit().status());
  const std::string v2 = warehouse + "/db/t/metadata/v2.metadata.json";
  ASSERT_OK_AND_ASSIGN(auto v2_before, a.io().ReadAll(v2));

  // b commits after a took v2: Commit reloads (probing past the hint), so it writes v3, never v2 ...
  Status stale = ops_b
                     ->Commit({iceberg::requirement::AssertLastAssignedFieldId{4},
                               iceberg::requirement::AssertRefSnapshotId{"main", std::nullopt}},
                              {iceberg::update::SetProperties{{{"writer", "b"}}}})
                     .status();
  EXPECT_OK(stale);  // requirements still hold on v2, so it lands as v3
  ASSERT_OK_AND_ASSIGN(auto after, ops_b->Load());
  EXPECT_EQ(after.metadata_location, warehouse + "/db/t/metadata/v3.metadata.json");
  ASSERT_OK_AND_ASSIGN(auto v2_after, a.io().ReadAll(v2));
  EXPECT_EQ(v2_before, v2_after);  // never overwritten

  // ... and a Table on the stale state retries its append on top of v3.
  ASSERT_OK_AND_ASSIGN(Table b, Table::Load(ops_b));
  ASSERT_OK(a.NewFastAppend()
                .AppendFile(floe::testing::FakeDataFile(warehouse + "/db/t/data/1.parquet", 1))
                .Commit()
                .status());
  ASSERT_OK(b.NewFastAppend()
                .AppendFile(floe::testing::FakeDataFile(warehouse + "/db/t/data/2.parquet", 1))
                .Commit()
                .status());
  EXPECT_EQ(b.metadata().snapshots.size(), 2u);
  EXPECT_EQ(b.metadata().properties.at("writer"), "b");
}

TEST(FilesystemCatalog, FailedMetastoreCommitLeavesNoMetadataFile) {
  floe::testing::TempDir dir;
  const std::string warehouse = dir.File("wh");
  ASSERT_OK_AND_ASSIGN(auto catalog, OpenSqlCatalog("sqlite://" + dir.File("c.db"), warehouse));
  ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  TableCreation creation;
  creation.schema = floe::testing::EventSchema();
  ASSERT_OK_AND_ASSIGN(auto ops, catalog->CreateTable({{"db"}, "t"}, creation));
  EXPECT_EQ(catalog->CreateTable({{"db"}, "t"}, creation).status().kind(), ErrorKind::kAlreadyExists);
  const auto metadata_dir = std::filesystem::path(warehouse) / "db" / "t" / "metadata";
  EXPECT_EQ(floe::testing::CountFiles(metadata_dir, ".metadata.json"), 1u);
  Status failed = ops->Commit({iceberg::requirement::AssertCurrentSchemaId{7}},
                              {iceberg::update::SetProperties{{{"k", "v"}}}})
                      .status();
  EXPECT_EQ(failed.kind(), ErrorKind::kCommitFailed);
  EXPECT_NE(failed.message().find("assert-current-schema-id"), std::string::npos);
  ASSERT_OK(ops->Commit({}, {iceberg::update::SetProperties{{{"k", "v"}}}}).status());
  EXPECT_EQ(floe::testing::CountFiles(metadata_dir, ".metadata.json"), 2u);
  ASSERT_OK_AND_ASSIGN(auto loaded, ops->Load());
  EXPECT_EQ(MetadataFileVersion(loaded.metadata_location), 1);
  EXPECT_EQ(MetadataFileVersion("s3://b/t/metadata/v12.metadata.json"), 12);
  EXPECT_EQ(MetadataFileVersion("s3://b/t/metadata/garbage.json"), std::nullopt);
  // Without a warehouse a SQL catalog opens (to list and load) but cannot place new tables.
  ASSERT_OK_AND_ASSIGN(auto no_warehouse, OpenSqlCatalog("sqlite://" + dir.File("d.db"), ""));
  ASSERT_OK(no_warehouse->CreateNamespace({"db"}, {}));
  Status created = no_warehouse->CreateTable({{"db"}, "t"}, creation).status();
  EXPECT_EQ(created.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(created.message().find("without a warehouse"), std::string::npos) << created.ToString();
  EXPECT_FALSE(OpenFilesystemCatalog("s3://bucket/wh").ok());
}

}  // namespace
}  // namespace floe::catalog
