// OpenCatalog: one entry point for every catalog kind, chosen by type or uri.
#include "catalog/open/open_catalog.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace floe::catalog {
namespace {

TEST(OpenCatalog, PicksTheKindFromTheUriOrTheType) {
  CatalogOptions options;
  options.uri = "sqlite:///x.db";
  EXPECT_EQ(CatalogKind(options).ValueOr(""), "sql");
  options.uri = "postgresql://u:pw@h/db";
  EXPECT_EQ(CatalogKind(options).ValueOr(""), "sql");
  options.uri = "file:///wh";
  EXPECT_EQ(CatalogKind(options).ValueOr(""), "filesystem");
  options.uri = "rest+http://127.0.0.1:8181";
  EXPECT_EQ(CatalogKind(options).ValueOr(""), "rest");
  options.uri = "glue://123456789012?region=eu-west-1";
  EXPECT_EQ(CatalogKind(options).ValueOr(""), "glue");
  options.uri = "";
  options.type = "filesystem";
  options.warehouse = "/wh";
  EXPECT_EQ(CatalogKind(options).ValueOr(""), "filesystem");
}

TEST(OpenCatalog, RefusesATypeThatContradictsTheUriAndMasksPasswords) {
  CatalogOptions options;
  options.type = "rest";
  options.uri = "postgresql://floe:s3cret@db/lake";
  Status status = CatalogKind(options).status();
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("does not match"), std::string::npos) << status.ToString();
  EXPECT_EQ(status.message().find("s3cret"), std::string::npos) << status.ToString();
  options.type = "";
  options.uri = "mysql://floe:s3cret@db/lake";
  status = OpenCatalog(options).status();
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("unsupported catalog URI"), std::string::npos) << status.ToString();
  EXPECT_EQ(status.message().find("s3cret"), std::string::npos) << status.ToString();
  options.type = "hive";
  EXPECT_NE(CatalogKind(options).status().message().find("unknown catalog type"), std::string::npos);
  options.type = "glue";
  options.uri = "rest+http://127.0.0.1:8181";
  EXPECT_NE(CatalogKind(options).status().message().find("does not match"), std::string::npos);
}

TEST(OpenCatalog, GlueFromTypeOrUriWithoutContactingGlue) {
  CatalogOptions options;
  options.type = "glue";
  options.glue.region = "eu-west-1";
  options.glue.endpoint = "http://127.0.0.1:1";  // nothing listens; opening sends nothing
  ASSERT_OK(OpenCatalog(options).status());
  CatalogOptions from_uri =
      CatalogOptionsForUri("glue://123456789012?region=eu-west-1&endpoint=http%3A%2F%2F127.0.0.1%3A1", "");
  ASSERT_OK_AND_ASSIGN(auto catalog, OpenCatalog(from_uri));
  EXPECT_EQ(catalog->warehouse(), "");
  from_uri.glue.region = "us-east-1";
  Status contradiction = OpenCatalog(from_uri).status();
  EXPECT_EQ(contradiction.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(contradiction.message().find("contradicts"), std::string::npos) << contradiction.ToString();
}

TEST(OpenCatalog, ACommandLineNeverCreatesAMissingSqliteCatalog) {
  floe::testing::TempDir dir;
  const std::string db = dir.File("typo.db");
  Status status = OpenCatalog(CatalogOptionsForUri("sqlite://" + db, "")).status();
  EXPECT_EQ(status.kind(), ErrorKind::kNotFound) << status.ToString();
  EXPECT_NE(status.message().find(db), std::string::npos) << status.ToString();
  EXPECT_FALSE(std::filesystem::exists(db));

  // `floe run` (create_if_missing) creates it; afterwards a command line opens it without a warehouse.
  CatalogOptions run;
  run.uri = "sqlite://" + db;
  run.warehouse = dir.File("wh");
  ASSERT_OK_AND_ASSIGN(auto created, OpenCatalog(run));
  ASSERT_OK(created->CreateNamespace({"cda"}, {}));
  ASSERT_OK_AND_ASSIGN(auto listed, OpenCatalog(CatalogOptionsForUri("sqlite://" + db, "")));
  ASSERT_OK_AND_ASSIGN(auto namespaces, listed->ListNamespaces({}));
  ASSERT_EQ(namespaces.size(), 1u);
  EXPECT_EQ(namespaces[0], Namespace{"cda"});
}

TEST(OpenCatalog, FilesystemCatalogRootFromUriOrWarehouse) {
  floe::testing::TempDir dir;
  CatalogOptions options;
  options.type = "filesystem";
  options.warehouse = dir.File("wh");
  ASSERT_OK_AND_ASSIGN(auto from_warehouse, OpenCatalog(options));
  EXPECT_EQ(from_warehouse->warehouse(), dir.File("wh"));
  options.uri = "file://" + dir.File("other");
  Status status = OpenCatalog(options).status();
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(status.message().find("is its own warehouse"), std::string::npos) << status.ToString();
}

}  // namespace
}  // namespace floe::catalog
