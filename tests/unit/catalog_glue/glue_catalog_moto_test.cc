// GlueCatalog against moto's Glue Data Catalog, checked with boto3's
// get_table the way Athena reads a table: table_type ICEBERG, the current
// metadata_location and the previous one, the location, and the columns
// typed as Iceberg's GlueCatalog types them — also after schema evolution.
// moto does not enforce UpdateTable's VersionId, so a test puts Glue's rule
// in front of it (the request's VersionId must be the table's current one,
// else ConcurrentModificationException) and races a second writer in: the
// loser retries and nothing is lost. Unknown outcomes are settled by reading
// the table back, or keep the files. Skipped, saying so, without moto_server.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "catalog/glue/glue_catalog.h"
#include "iceberg/transaction/table.h"
#include "moto_test_server.h"
#include "unit/iceberg_catalog/catalog_test_util.h"

namespace floe::catalog::glue {
namespace {

using iceberg::PrimitiveType;
using iceberg::TypeKind;
using json::Json;

class GlueMotoTest : public testing::MotoTest {
 protected:
  std::unique_ptr<GlueCatalog> Open() {
    GlueCatalogOptions options;
    options.catalog_id = "123456789012";
    options.endpoint = moto().url();
    options.retry = {4, 10000, 1, 20};
    s3::S3Options s3;
    s3.region = "us-east-1";
    s3.access_key_id = "testing";
    s3.secret_access_key = "testing";
    auto catalog = GlueCatalog::Open(options, dir_.File("warehouse"), s3, nullptr, aws::MapEnvironment({}));
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return catalog.ok() ? std::move(*catalog) : nullptr;
  }

  static Json GetTable(const std::string& database, const std::string& table) {
    auto out = moto().Driver({{"command", "glue-get-table"}, {"database", database}, {"table", table}});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : Json::object();
  }

  static Json Column(const std::string& name, const std::string& type, int id, bool optional, bool current) {
    return {{"Name", name},
            {"Type", type},
            {"Parameters",
             {{"iceberg.field.id", std::to_string(id)},
              {"iceberg.field.optional", optional ? "true" : "false"},
              {"iceberg.field.current", current ? "true" : "false"}}}};
  }

  size_t MetadataFiles(const std::string& table_dir) {
    return testing::CountFiles(dir_.path() / "warehouse" / table_dir / "metadata", ".metadata.json");
  }

  testing::TempDir dir_;
};

TEST_F(GlueMotoTest, TablesAreIcebergTablesWithCurrentAndPreviousMetadataAndTypedColumns) {
  auto catalog = Open();
  ASSERT_NE(catalog, nullptr);
  ASSERT_OK(catalog->CreateNamespace({"lake"}, {{"comment", "landing zone"}}));
  EXPECT_EQ(catalog->CreateNamespace({"lake"}, {}).kind(), ErrorKind::kAlreadyExists);
  TableCreation creation;
  creation.schema = testing::EventSchema();
  ASSERT_OK_AND_ASSIGN(auto ops, catalog->CreateTable({{"lake"}, "events"}, creation));
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable created, ops->Load());
  const std::string location = (dir_.path() / "warehouse" / "lake.db" / "events").string();
  EXPECT_EQ(created.metadata.location, location);

  Json table = GetTable("lake", "events");
  EXPECT_EQ(table["TableType"], "EXTERNAL_TABLE");
  EXPECT_EQ(table["Parameters"]["table_type"], "ICEBERG");
  EXPECT_EQ(table["Parameters"]["metadata_location"], created.metadata_location);
  EXPECT_FALSE(table["Parameters"].contains("previous_metadata_location"));
  EXPECT_EQ(table["StorageDescriptor"]["Location"], location);
  EXPECT_EQ(table["StorageDescriptor"]["Columns"],
            Json::array({Column("id", "bigint", 1, false, true), Column("category", "string", 2, true, true),
                         Column("ts", "timestamp", 3, true, true), Column("qty", "int", 4, true, true)}));

  // An append, then schema evolution: a new struct column, int -> long, a rename.
  ASSERT_OK_AND_ASSIGN(iceberg::Table loaded, iceberg::Table::Load(ops));
  ASSERT_OK(loaded.NewFastAppend()
                .AppendFile(testing::FakeDataFile(location + "/data/a.parquet", 3))
                .Commit()
                .status());
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable after_append, ops->Load());
  ASSERT_OK(loaded.NewUpdateSchema()
                .AddColumn("", "address",
                           iceberg::StructType(
                               {iceberg::MakeNestedField(0, "city", PrimitiveType(TypeKind::kString)),
                                iceberg::MakeNestedField(
                                    0, "zips", iceberg::ListType(0, PrimitiveType(TypeKind::kInt), false))}))
                .AddColumn("amount", iceberg::DecimalType(12, 2))
                .UpdateColumn("qty", PrimitiveType(TypeKind::kLong))
                .RenameColumn("category", "kind")
                .Commit()
                .status());
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable evolved, ops->Load());

  table = GetTable("lake", "events");
  EXPECT_EQ(table["Parameters"]["table_type"], "ICEBERG");
  EXPECT_EQ(table["Parameters"]["metadata_location"], evolved.metadata_location);
  EXPECT_EQ(table["Parameters"]["previous_metadata_location"], after_append.metadata_location);
  const int city = evolved.metadata.CurrentSchema()->FindFieldByName("address")->id;
  const int amount = evolved.metadata.CurrentSchema()->FindFieldByName("amount")->id;
  EXPECT_EQ(table["StorageDescriptor"]["Columns"],
            Json::array({Column("id", "bigint", 1, false, true), Column("kind", "string", 2, true, true),
                         Column("ts", "timestamp", 3, true, true), Column("qty", "bigint", 4, true, true),
                         Column("address", "struct<city:string,zips:array<int>>", city, true, true),
                         Column("amount", "decimal(12,2)", amount, true, true),
                         Column("category", "string", 2, true, false)}))
      << table["StorageDescriptor"]["Columns"].dump(1);

  // Reading back through a fresh catalog gives the same table.
  auto other = Open();
  ASSERT_NE(other, nullptr);
  ASSERT_OK_AND_ASSIGN(auto reopened, other->LoadTable({{"lake"}, "events"}));
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable read, reopened->Load());
  EXPECT_EQ(read.metadata_location, evolved.metadata_location);
  EXPECT_EQ(read.metadata.snapshots.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto tables, other->ListTables({"lake"}));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{{{"lake"}, "events"}}));
}

TEST_F(GlueMotoTest, ALostVersionIdRaceIsRetriedAndLosesNothing) {
  auto writer = Open();
  auto rival = Open();
  ASSERT_NE(writer, nullptr);
  ASSERT_NE(rival, nullptr);
  ASSERT_OK(writer->CreateNamespace({"race"}, {}));
  TableCreation creation;
  creation.schema = testing::EventSchema();
  ASSERT_OK_AND_ASSIGN(auto ops, writer->CreateTable({{"race"}, "t"}, creation));
  ASSERT_OK_AND_ASSIGN(auto rival_ops, rival->LoadTable({{"race"}, "t"}));
  const std::string data = (dir_.path() / "warehouse" / "race.db" / "t" / "data").string();

  // Glue's rule in front of moto: UpdateTable must carry the current VersionId.
  int updates = 0;
  int refused = 0;
  writer->client().SetExchangeForTesting([&](std::string_view operation, const http::HttpRequest& request,
                                             const aws::AwsJsonClient::Send& send)
                                             -> Result<http::HttpResponse> {
    if (operation != "UpdateTable") return send(request);
    if (++updates == 1) {
      // The rival commits between this writer's GetTable and its UpdateTable.
      auto rival_table = iceberg::Table::Load(rival_ops);
      if (!rival_table.ok()) return rival_table.status();
      auto appended =
          rival_table->NewFastAppend().AppendFile(testing::FakeDataFile(data + "/rival.parquet", 5)).Commit();
      if (!appended.ok()) return appended.status();
    }
    auto body = json::ParseJson(
        std::string_view(reinterpret_cast<const char*>(request.body.data()), request.body.size()));
    if (!body.ok()) return body.status();
    const Json current = GetTable("race", "t");
    if ((*body)["VersionId"] != current["VersionId"]) {
      ++refused;
      return http::HttpResponse{
          400,
          {},
          R"({"__type":"ConcurrentModificationException","message":"Update table failed due to concurrent modifications."})",
          0};
    }
    return send(request);
  });
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::Table::Load(ops));
  ASSERT_OK(
      table.NewFastAppend().AppendFile(testing::FakeDataFile(data + "/writer.parquet", 7)).Commit().status());
  EXPECT_EQ(refused, 1);
  EXPECT_EQ(updates, 2);

  auto check = Open();
  ASSERT_NE(check, nullptr);
  ASSERT_OK_AND_ASSIGN(auto final_ops, check->LoadTable({{"race"}, "t"}));
  ASSERT_OK_AND_ASSIGN(iceberg::Table final_table, iceberg::Table::Load(final_ops));
  ASSERT_NE(final_table.metadata().CurrentSnapshot(), nullptr);
  EXPECT_EQ(testing::LivePaths(final_table, *final_table.metadata().CurrentSnapshot()),
            (std::vector<std::string>{data + "/rival.parquet", data + "/writer.parquet"}));
  EXPECT_EQ(final_table.metadata().snapshots.size(), 2u);
  // create + rival + writer; the refused attempt's metadata file was deleted.
  EXPECT_EQ(MetadataFiles("race.db/t"), 3u);
  Json glue = GetTable("race", "t");
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable loaded, final_ops->Load());
  EXPECT_EQ(glue["Parameters"]["metadata_location"], loaded.metadata_location);
}

TEST_F(GlueMotoTest, UnknownOutcomesAreSettledByReadingBackOrKeepTheFiles) {
  auto catalog = Open();
  ASSERT_NE(catalog, nullptr);
  ASSERT_OK(catalog->CreateNamespace({"unknown"}, {}));
  TableCreation creation;
  creation.schema = testing::EventSchema();
  ASSERT_OK_AND_ASSIGN(auto ops, catalog->CreateTable({{"unknown"}, "t"}, creation));
  bool apply_then_fail = true;
  catalog->client().SetExchangeForTesting(
      [&](std::string_view operation, const http::HttpRequest& request,
          const aws::AwsJsonClient::Send& send) -> Result<http::HttpResponse> {
        if (operation != "UpdateTable") return send(request);
        if (apply_then_fail) {
          auto applied = send(request);
          if (!applied.ok()) return applied;
        }
        return http::HttpResponse{500, {}, R"({"__type":"InternalServiceException","message":"boom"})", 0};
      });
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::Table::Load(ops));
  // Applied, then answered 500: reading the table back shows the commit landed.
  ASSERT_OK(table.NewUpdateProperties().Set("k", "v").Commit().status());
  EXPECT_EQ(MetadataFiles("unknown.db/t"), 2u);
  // Not applied, answered 500: unknown, and the new metadata file is kept.
  apply_then_fail = false;
  auto lost = table.NewUpdateProperties().Set("k", "w").Commit();
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().kind(), ErrorKind::kCommitStateUnknown) << lost.status().ToString();
  EXPECT_EQ(MetadataFiles("unknown.db/t"), 3u);
}

TEST_F(GlueMotoTest, ListingsFollowEveryPageAndShowOnlyIcebergTables) {
  auto catalog = Open();
  ASSERT_NE(catalog, nullptr);
  for (const char* name : {"pages_a", "pages_b", "pages_c"}) ASSERT_OK(catalog->CreateNamespace({name}, {}));
  TableCreation creation;
  creation.schema = testing::EventSchema();
  for (const char* name : {"t1", "t2", "t3", "t4"})
    ASSERT_OK(catalog->CreateTable({{"pages_a"}, name}, creation).status());
  ASSERT_OK(moto()
                .Driver({{"command", "glue-create-plain-table"}, {"database", "pages_a"}, {"table", "hive"}})
                .status());
  // moto answers every listing in one page: split its answers into pages of one.
  int pages = 0;
  catalog->client().SetExchangeForTesting(
      [&](std::string_view operation, const http::HttpRequest& request,
          const aws::AwsJsonClient::Send& send) -> Result<http::HttpResponse> {
        if (operation != "GetDatabases" && operation != "GetTables") return send(request);
        const char* list = operation == "GetDatabases" ? "DatabaseList" : "TableList";
        auto body = json::ParseJson(
            std::string_view(reinterpret_cast<const char*>(request.body.data()), request.body.size()));
        if (!body.ok()) return body.status();
        const size_t index =
            body->contains("NextToken") ? std::stoul((*body)["NextToken"].get<std::string>()) : 0;
        http::HttpRequest all = request;
        Json without_token = *body;
        without_token.erase("NextToken");
        const std::string text = without_token.dump();
        all.body = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size());
        auto answer = send(all);
        if (!answer.ok()) return answer;
        auto parsed = json::ParseJson(answer->body);
        if (!parsed.ok()) return parsed.status();
        Json page = {{list, Json::array()}};
        if (index < (*parsed)[list].size()) page[list].push_back((*parsed)[list][index]);
        if (index + 1 < (*parsed)[list].size()) page["NextToken"] = std::to_string(index + 1);
        ++pages;
        answer->body = page.dump();
        return answer;
      });
  ASSERT_OK_AND_ASSIGN(auto namespaces, catalog->ListNamespaces({}));
  std::set<Namespace> names(namespaces.begin(), namespaces.end());
  for (const char* name : {"pages_a", "pages_b", "pages_c"}) EXPECT_TRUE(names.count({name})) << name;
  ASSERT_OK_AND_ASSIGN(auto tables, catalog->ListTables({"pages_a"}));
  std::set<std::string> table_names;
  for (const auto& id : tables) table_names.insert(id.name);
  EXPECT_EQ(table_names, (std::set<std::string>{"t1", "t2", "t3", "t4"}));  // not the Hive table
  EXPECT_GE(pages, 8);
  auto hive = catalog->LoadTable({{"pages_a"}, "hive"});
  ASSERT_FALSE(hive.ok());
  EXPECT_NE(hive.status().message().find("not an Iceberg table"), std::string::npos)
      << hive.status().message();
}

TEST_F(GlueMotoTest, NamesAndConflictsAreRefusedClearly) {
  auto catalog = Open();
  ASSERT_NE(catalog, nullptr);
  EXPECT_EQ(catalog->CreateNamespace({"Bad-Name"}, {}).kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(catalog->CreateNamespace({"a", "b"}, {}).kind(), ErrorKind::kInvalidArgument);
  TableCreation creation;
  creation.schema = testing::EventSchema();
  auto missing = catalog->CreateTable({{"nowhere"}, "t"}, creation);
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound) << missing.status().ToString();
  ASSERT_OK(catalog->CreateNamespace({"dup"}, {}));
  ASSERT_OK(catalog->CreateTable({{"dup"}, "t"}, creation).status());
  auto again = catalog->CreateTable({{"dup"}, "t"}, creation);
  EXPECT_EQ(again.status().kind(), ErrorKind::kAlreadyExists) << again.status().ToString();
  EXPECT_EQ(MetadataFiles("dup.db/t"), 1u);  // the loser's metadata file is gone
  EXPECT_EQ(catalog->LoadTable({{"dup"}, "absent"}).status().kind(), ErrorKind::kNotFound);
}

}  // namespace
}  // namespace floe::catalog::glue
