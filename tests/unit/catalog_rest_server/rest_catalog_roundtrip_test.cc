// RestCatalog (the client) against RestCatalogService (floe serve) in one
// process: namespaces, tables, commits through the transaction layer,
// rename, register, drop with purge, prefixes, and the status codes of bad
// requests.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "iceberg/transaction/table.h"
#include "rest_server_fixture.h"
#include "unit/iceberg_catalog/catalog_test_util.h"

namespace floe::catalog::rest {
namespace {

using floe::testing::EventSchema;
using floe::testing::FakeDataFile;

TableCreation EventsCreation() {
  TableCreation creation;
  creation.schema = EventSchema();
  creation.properties = {{"owner", "floe"}};
  return creation;
}

TEST_F(RestServerTest, NamespacesRoundTrip) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto client, Client());
  EXPECT_EQ(client->prefix(), "");
  ASSERT_OK(client->CreateNamespace({"db"}, {{"comment", "events"}}));
  ASSERT_OK(client->CreateNamespace({"db", "nested level"}, {}));
  EXPECT_EQ(client->CreateNamespace({"db"}, {}).kind(), ErrorKind::kAlreadyExists);

  ASSERT_OK_AND_ASSIGN(auto top, client->ListNamespaces({}));
  EXPECT_EQ(top, (std::vector<Namespace>{{"db"}}));
  ASSERT_OK_AND_ASSIGN(auto children, client->ListNamespaces({"db"}));
  EXPECT_EQ(children, (std::vector<Namespace>{{"db", "nested level"}}));
  EXPECT_EQ(client->ListNamespaces({"missing"}).status().kind(), ErrorKind::kNotFound);

  ASSERT_OK_AND_ASSIGN(bool exists, client->NamespaceExists({"db", "nested level"}));
  EXPECT_TRUE(exists);
  ASSERT_OK_AND_ASSIGN(exists, client->NamespaceExists({"nope"}));
  EXPECT_FALSE(exists);

  ASSERT_OK(client->UpdateNamespaceProperties({"db"}, {{"owner", "team"}}, {"comment"}));
  ASSERT_OK_AND_ASSIGN(auto properties, client->LoadNamespaceProperties({"db"}));
  EXPECT_EQ(properties.count("comment"), 0u);
  EXPECT_EQ(properties["owner"], "team");
  EXPECT_EQ(client->LoadNamespaceProperties({"nope"}).status().kind(), ErrorKind::kNotFound);

  // Not empty: 409 NamespaceNotEmptyException.
  Status not_empty = client->DropNamespace({"db"});
  EXPECT_EQ(not_empty.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(not_empty.message().find("NamespaceNotEmptyException"), std::string::npos);
  ASSERT_OK(client->DropNamespace({"db", "nested level"}));
  ASSERT_OK(client->DropNamespace({"db"}));
  EXPECT_EQ(client->DropNamespace({"db"}).kind(), ErrorKind::kNotFound);
}

TEST_F(RestServerTest, TablesCreateLoadCommitRenameDrop) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto client, Client());
  ASSERT_OK(client->CreateNamespace({"db"}, {}));
  const TableIdentifier id{{"db"}, "events"};
  EXPECT_EQ(client->CreateTable({{"missing"}, "t"}, EventsCreation()).status().kind(), ErrorKind::kNotFound);
  ASSERT_OK_AND_ASSIGN(auto ops, client->CreateTable(id, EventsCreation()));
  EXPECT_EQ(client->CreateTable(id, EventsCreation()).status().kind(), ErrorKind::kAlreadyExists);

  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable created, ops->Load());
  EXPECT_EQ(created.metadata.location, warehouse_ + "/db/events");
  EXPECT_EQ(created.metadata.properties.at("owner"), "floe");
  EXPECT_EQ(created.metadata.properties.count("format-version"), 0u);
  EXPECT_EQ(created.metadata.format_version, 2);
  EXPECT_TRUE(std::filesystem::exists(created.metadata_location));

  // An append through the transaction layer: manifests are written through
  // the client's FileIO, the commit goes through the server.
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::Table::Load(ops));
  const std::string data = warehouse_ + "/db/events/data/a.parquet";
  ASSERT_OK(table.NewFastAppend().AppendFile(FakeDataFile(data, 5)).Commit().status());
  ASSERT_OK_AND_ASSIGN(auto reloaded_ops, client->LoadTable(id));
  ASSERT_OK_AND_ASSIGN(iceberg::Table reloaded, iceberg::Table::Load(reloaded_ops));
  ASSERT_NE(reloaded.metadata().CurrentSnapshot(), nullptr);
  EXPECT_EQ(floe::testing::LivePaths(reloaded, *reloaded.metadata().CurrentSnapshot()),
            std::vector<std::string>{data});
  ASSERT_OK(reloaded.NewUpdateProperties().Set("k", "v").Commit().status());

  ASSERT_OK_AND_ASSIGN(auto tables, client->ListTables({"db"}));
  EXPECT_EQ(tables, std::vector<TableIdentifier>{id});
  ASSERT_OK_AND_ASSIGN(bool exists, client->TableExists(id));
  EXPECT_TRUE(exists);

  const TableIdentifier renamed{{"db"}, "events_v2"};
  ASSERT_OK(client->RenameTable(id, renamed));
  EXPECT_EQ(client->LoadTable(id).status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(client->RenameTable(id, renamed).kind(), ErrorKind::kNotFound);
  ASSERT_OK_AND_ASSIGN(auto renamed_ops, client->LoadTable(renamed));
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable latest, renamed_ops->Load());
  EXPECT_EQ(latest.metadata.properties.at("k"), "v");

  // Register the same metadata file under a second name, then drop it without purge.
  const TableIdentifier registered{{"db"}, "events_copy"};
  ASSERT_OK(client->RegisterTable(registered, latest.metadata_location).status());
  EXPECT_EQ(client->RegisterTable(registered, latest.metadata_location).status().kind(),
            ErrorKind::kAlreadyExists);
  ASSERT_OK(client->DropTable(registered, /*purge=*/false));
  EXPECT_TRUE(std::filesystem::exists(latest.metadata_location));

  // Purge deletes what the metadata references under the table's location.
  std::filesystem::create_directories(warehouse_ + "/db/events/data");
  { std::ofstream(data) << "not really parquet"; }
  ASSERT_OK(client->DropTable(renamed, /*purge=*/true));
  EXPECT_FALSE(std::filesystem::exists(latest.metadata_location));
  EXPECT_FALSE(std::filesystem::exists(created.metadata_location));
  EXPECT_FALSE(std::filesystem::exists(data));
  EXPECT_EQ(floe::testing::CountFiles(warehouse_, ".avro"), 0u);
  EXPECT_EQ(client->DropTable(renamed, false).kind(), ErrorKind::kNotFound);
}

TEST_F(RestServerTest, CommitRequirementsAreCheckedAndStaleCommitsGet409) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto client, Client());
  ASSERT_OK(client->CreateNamespace({"db"}, {}));
  ASSERT_OK_AND_ASSIGN(auto ops, client->CreateTable({{"db"}, "t"}, EventsCreation()));
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable base, ops->Load());
  using namespace iceberg;
  std::vector<TableRequirement> requirements = {
      requirement::AssertTableUuid{base.metadata.table_uuid},
      requirement::AssertRefSnapshotId{"main", std::nullopt},
      requirement::AssertCurrentSchemaId{base.metadata.current_schema_id},
      requirement::AssertLastAssignedFieldId{base.metadata.last_column_id},
      requirement::AssertLastAssignedPartitionId{base.metadata.last_partition_id},
      requirement::AssertDefaultSpecId{base.metadata.default_spec_id},
      requirement::AssertDefaultSortOrderId{base.metadata.default_sort_order_id}};
  ASSERT_OK(ops->Commit(requirements, {update::SetProperties{{{"a", "1"}}}}).status());
  // Each requirement on its own, made stale or wrong, is refused with 409.
  std::vector<TableRequirement> wrong = {requirement::AssertCreate{},
                                         requirement::AssertTableUuid{"00000000-0000-0000-0000-000000000000"},
                                         requirement::AssertRefSnapshotId{"main", 42},
                                         requirement::AssertCurrentSchemaId{7},
                                         requirement::AssertLastAssignedFieldId{99},
                                         requirement::AssertLastAssignedPartitionId{1234},
                                         requirement::AssertDefaultSpecId{3},
                                         requirement::AssertDefaultSortOrderId{5}};
  for (const auto& req : wrong) {
    Status status = ops->Commit({req}, {update::SetProperties{{{"b", "2"}}}}).status();
    EXPECT_EQ(status.kind(), ErrorKind::kCommitFailed) << TableRequirementType(req);
    EXPECT_TRUE(status.retryable());
  }
  // An invalid update is 400, not a conflict.
  Status invalid = ops->Commit({}, {update::SetCurrentSchema{77}}).status();
  EXPECT_EQ(invalid.kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable after, ops->Load());
  EXPECT_EQ(after.metadata.properties.count("b"), 0u);
  EXPECT_EQ(after.metadata.properties.at("a"), "1");
}

// The client commits several tables in one request where the server's
// config lists the transactions endpoint (floe serve does): all or none.
TEST_F(RestServerTest, SeveralTablesCommitTogetherThroughTheTransactionsEndpoint) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto client, Client());
  EXPECT_TRUE(client->SupportsMultiTableCommit());
  ASSERT_OK(client->CreateNamespace({"db"}, {}));
  const TableIdentifier a{{"db"}, "a"};
  const TableIdentifier b{{"db"}, "b"};
  ASSERT_OK(client->CreateTable(a, EventsCreation()).status());
  ASSERT_OK(client->CreateTable(b, EventsCreation()).status());
  using namespace iceberg;
  ASSERT_OK_AND_ASSIGN(std::vector<LoadedTable> both,
                       client->CommitTables({{a, {}, {update::SetProperties{{{"k", "a1"}}}}},
                                             {b, {}, {update::SetProperties{{{"k", "b1"}}}}}}));
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].metadata.properties.at("k"), "a1");
  EXPECT_EQ(both[1].metadata.properties.at("k"), "b1");
  // A failed requirement of the second table: the first does not move either.
  Status refused =
      client
          ->CommitTables(
              {{a, {}, {update::SetProperties{{{"k", "a2"}}}}},
               {b, {requirement::AssertRefSnapshotId{"main", 42}}, {update::SetProperties{{{"k", "b2"}}}}}})
          .status();
  EXPECT_EQ(refused.kind(), ErrorKind::kCommitFailed) << refused.ToString();
  for (const auto& [id, value] : {std::pair{a, "a1"}, std::pair{b, "b1"}}) {
    ASSERT_OK_AND_ASSIGN(auto ops, client->LoadTable(id));
    ASSERT_OK_AND_ASSIGN(LoadedTable now, ops->Load());
    EXPECT_EQ(now.metadata.properties.at("k"), value) << id.ToString();
  }
}

// A config without `endpoints` (servers older than the list): floe does not
// assume the transactions endpoint.
TEST(RestConfigEndpoints, OnlyAListedTransactionsEndpointCounts) {
  ASSERT_OK_AND_ASSIGN(CatalogConfigAnswer none,
                       CatalogConfigFromJson(R"({"defaults":{},"overrides":{}})", "c"));
  EXPECT_FALSE(none.endpoints.has_value());
  ASSERT_OK_AND_ASSIGN(
      CatalogConfigAnswer listed,
      CatalogConfigFromJson(R"({"endpoints":["POST /v1/{prefix}/transactions/commit"]})", "c"));
  ASSERT_TRUE(listed.endpoints.has_value());
  EXPECT_EQ(listed.endpoints->front(), kTransactionsCommitEndpoint);
  EXPECT_FALSE(CatalogConfigFromJson(R"({"endpoints":[1]})", "c").ok());
}

TEST_F(RestServerTest, PrefixFromConfigIsUsed) {
  RestServiceOptions options;
  options.prefix = "main_catalog";
  StartServer(options);
  ASSERT_OK_AND_ASSIGN(auto client, Client());
  EXPECT_EQ(client->prefix(), "main_catalog");
  ASSERT_OK(client->CreateNamespace({"db"}, {}));
  ASSERT_OK_AND_ASSIGN(auto top, client->ListNamespaces({}));
  EXPECT_EQ(top.size(), 1u);
  // Without the prefix the route does not exist.
  EXPECT_EQ(Raw("GET", "/v1/namespaces").status, 404);
  EXPECT_EQ(Raw("GET", "/v1/main_catalog/namespaces").status, 200);
}

TEST_F(RestServerTest, BadRequestsGetSpecErrors) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto client, Client());
  ASSERT_OK(client->CreateNamespace({"db"}, {}));
  auto expect_error = [&](const http::HttpResponse& response, long status, const std::string& type) {
    EXPECT_EQ(response.status, status) << response.body;
    auto json = iceberg::Json::parse(response.body, nullptr, false);
    ASSERT_TRUE(json.is_object()) << response.body;
    EXPECT_EQ(json["error"]["code"], status);
    EXPECT_EQ(json["error"]["type"], type);
  };
  expect_error(Raw("POST", "/v1/namespaces", "{not json"), 400, "BadRequestException");
  expect_error(Raw("POST", "/v1/namespaces", "[1]"), 400, "BadRequestException");
  expect_error(Raw("POST", "/v1/namespaces", R"({"namespace":["..",".."]})"), 400, "BadRequestException");
  expect_error(Raw("POST", "/v1/namespaces", R"({"namespace":["a\u0001b"]})"), 400, "BadRequestException");
  expect_error(Raw("POST", "/v1/namespaces/db/tables", R"({"name":"a/b","schema":{}})"), 400,
               "BadRequestException");
  expect_error(Raw("GET", "/v1/namespaces/db/tables/a%2Fb"), 400, "BadRequestException");
  expect_error(Raw("GET", "/v1/namespaces/%2E%2E/tables"), 400, "BadRequestException");
  expect_error(Raw("GET", "/v1/namespaces/db/tables/%zz"), 400, "BadRequestException");
  expect_error(Raw("GET", "/v1/namespaces/db/tables/missing"), 404, "NoSuchTableException");
  expect_error(Raw("GET", "/v1/namespaces/nope/tables"), 404, "NoSuchNamespaceException");
  expect_error(Raw("GET", "/v2/anything"), 404, "NotFoundException");
  expect_error(Raw("DELETE", "/v1/tables/rename"), 405, "MethodNotAllowedException");
  // A location outside the warehouse is refused.
  iceberg::OrderedJson create = iceberg::OrderedJson::object();
  create["name"] = "t";
  create["location"] = dir_.File("elsewhere");
  create["schema"] = iceberg::SchemaToJson(EventSchema());
  expect_error(Raw("POST", "/v1/namespaces/db/tables", create.dump()), 400, "BadRequestException");
  create["location"] = warehouse_ + "/db/../../escape";
  expect_error(Raw("POST", "/v1/namespaces/db/tables", create.dump()), 400, "BadRequestException");
  create["location"] = warehouse_ + "/custom/t";
  // A staged create answers the metadata and creates nothing (the commit with assert-create does).
  create["stage-create"] = true;
  const http::HttpResponse staged = Raw("POST", "/v1/namespaces/db/tables", create.dump());
  EXPECT_EQ(staged.status, 200) << staged.body;
  EXPECT_FALSE(iceberg::Json::parse(staged.body).contains("metadata-location")) << staged.body;
  expect_error(Raw("GET", "/v1/namespaces/db/tables/t"), 404, "NoSuchTableException");
  create["stage-create"] = false;
  EXPECT_EQ(Raw("POST", "/v1/namespaces/db/tables", create.dump()).status, 200);
  // Too large: 413 before the body is read (the fixture allows 1 MiB).
  const http::HttpResponse large = Raw("POST", "/v1/namespaces", std::string(2 << 20, ' '));
  EXPECT_EQ(large.status, 413);
  // A commit whose identifier disagrees with the path.
  expect_error(Raw("POST", "/v1/namespaces/db/tables/t",
                   R"({"identifier":{"namespace":["db"],"name":"other"},"requirements":[],"updates":[]})"),
               400, "BadRequestException");
  expect_error(Raw("POST", "/v1/namespaces/db/tables/t", R"({"requirements":[{"type":"assert-nothing"}]})"),
               400, "BadRequestException");
}

}  // namespace
}  // namespace floe::catalog::rest
