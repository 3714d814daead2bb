// RestCatalogService in process (no socket): loopback names are parsed as
// addresses; a purge deletes no file its manifests name outside the table,
// however the path climbs ("<table>/data/../../x"); multi-table commits are
// all or nothing in the SQL metastore, and a malformed transaction is
// refused whole with a 400; paging tokens are opaque and stable.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "catalog/rest_server/rest_catalog_service.h"
#include "catalog/sql/sql_metastore.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/spec/json_util.h"
#include "test_util.h"

namespace floe::catalog::rest {
namespace {

namespace fs = std::filesystem;

TEST(RestServiceRules, LoopbackHostIsAnAddressNotAPrefix) {
  for (const char* yes :
       {"127.0.0.1", "127.5.6.7", "localhost", "LocalHost", "::1", "[::1]", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(IsLoopbackHost(yes)) << yes;
  }
  for (const char* no : {"127.0.0.1.example", "127.evil.com", "128.0.0.1", "0.0.0.0",
                         "::", "localhost.example", "10.0.0.1", "", "[::2]"}) {
    EXPECT_FALSE(IsLoopbackHost(no)) << no;
  }
}

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    warehouse_ = dir_.File("wh");
    auto sql = SqlMetastore::Open("sqlite://" + dir_.File("c.db"), "floe");
    ASSERT_OK(sql.status());
    metastore_ = std::shared_ptr<Metastore>(std::move(*sql));
    auto service = RestCatalogService::Create(metastore_, MakeLocalFileIO(), warehouse_, {});
    ASSERT_OK(service.status());
    service_ = std::move(*service);
  }

  ServiceResponse Call(const std::string& method, const std::string& target, const std::string& body = "") {
    return service_->Handle({method, target, {{"host", "127.0.0.1"}}, body});
  }

  floe::testing::TempDir dir_;
  std::string warehouse_;
  std::shared_ptr<Metastore> metastore_;
  std::unique_ptr<RestCatalogService> service_;
};

const char* kSchema =
    R"({"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":true}]})";

TEST_F(ServiceTest, PurgeDeletesNothingAManifestNamesOutsideTheTable) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["db"]})").status, 200);
  auto created =
      Call("POST", "/v1/namespaces/db/tables", std::string(R"({"name":"t","schema":)") + kSchema + "}");
  ASSERT_EQ(created.status, 200) << created.body;
  const auto created_json = iceberg::Json::parse(created.body);
  const std::string location = created_json["metadata"]["location"];
  // Files the table's own manifest names: one of its own, one climbing out of it.
  const std::string victim = dir_.File("victim.parquet");
  const std::string own = location + "/data/own.parquet";
  fs::create_directories(location + "/data");
  for (const std::string& file : {victim, own}) std::ofstream(file) << "bytes";
  auto io = MakeLocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto parsed_schema, iceberg::SchemaFromJson(iceberg::Json::parse(kSchema)));
  const std::string manifest_path = location + "/metadata/m0.avro";
  ASSERT_OK_AND_ASSIGN(
      auto writer, iceberg::ManifestWriter::Open(*io, manifest_path, parsed_schema, iceberg::PartitionSpec{},
                                                 {2, {}, 9, "deflate"}));
  for (const std::string& path : {own, location + "/data/../../../victim.parquet"}) {
    iceberg::DataFile file;
    file.file_path = path;
    file.file_format = "PARQUET";
    file.record_count = 1;
    file.file_size_in_bytes = 5;
    ASSERT_OK(writer->Add(file));
  }
  ASSERT_OK_AND_ASSIGN(iceberg::ManifestFile manifest, writer->Finish());
  const std::string list = location + "/metadata/snap-9.avro";
  ASSERT_OK(
      iceberg::WriteManifestList(*io, list, {manifest}, {2, 9, std::nullopt, 1, std::nullopt, "deflate"})
          .status());
  auto committed =
      Call("POST", "/v1/namespaces/db/tables/t",
           R"({"updates":[{"action":"add-snapshot","snapshot":{"snapshot-id":9,"sequence-number":1,)"
           R"("timestamp-ms":1,"manifest-list":")" +
               list +
               R"(","summary":{"operation":"append"}}},)"
               R"({"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":9}]})");
  ASSERT_EQ(committed.status, 200) << committed.body;
  ASSERT_EQ(Call("DELETE", "/v1/namespaces/db/tables/t?purgeRequested=true").status, 204);
  EXPECT_TRUE(fs::exists(victim)) << "purge followed a '..' out of the table";
  EXPECT_FALSE(fs::exists(own));
  EXPECT_FALSE(fs::exists(list));
  EXPECT_FALSE(fs::exists(manifest_path));
}

TEST_F(ServiceTest, CommitTablesIsAllOrNothing) {
  ASSERT_OK(metastore_->CreateNamespace({"db"}, {}));
  ASSERT_OK(metastore_->RegisterTable({{"db"}, "a"}, "/m/a0"));
  ASSERT_OK(metastore_->RegisterTable({{"db"}, "b"}, "/m/b0"));
  Status lost = metastore_->CommitTables({{{{"db"}, "a"}, "/m/a0", "/m/a1"},
                                          {{{"db"}, "b"}, "/m/stale", "/m/b1"},
                                          {{{"db"}, "c"}, std::nullopt, "/m/c0"}});
  EXPECT_EQ(lost.kind(), ErrorKind::kCommitFailed) << lost.ToString();
  EXPECT_NE(lost.message().find("db.b"), std::string::npos) << lost.ToString();
  EXPECT_EQ(*metastore_->LoadMetadataLocation({{"db"}, "a"}), "/m/a0");
  EXPECT_EQ(metastore_->LoadMetadataLocation({{"db"}, "c"}).status().kind(), ErrorKind::kNotFound);
  ASSERT_OK(metastore_->CommitTables({{{{"db"}, "a"}, "/m/a0", "/m/a1"},
                                      {{{"db"}, "b"}, "/m/b0", "/m/b1"},
                                      {{{"db"}, "c"}, std::nullopt, "/m/c0"}}));
  EXPECT_EQ(*metastore_->LoadMetadataLocation({{"db"}, "b"}), "/m/b1");
  EXPECT_EQ(*metastore_->LoadMetadataLocation({{"db"}, "c"}), "/m/c0");
  // Creating a name that exists is a lost race, not a partial commit.
  EXPECT_EQ(
      metastore_->CommitTables({{{{"db"}, "a"}, "/m/a1", "/m/a2"}, {{{"db"}, "c"}, std::nullopt, "/m/c9"}})
          .kind(),
      ErrorKind::kCommitFailed);
  EXPECT_EQ(*metastore_->LoadMetadataLocation({{"db"}, "a"}), "/m/a1");
  EXPECT_EQ(metastore_->CommitTables({{{{"db"}, "x.y"}, std::nullopt, "/m/x"}}).kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(metastore_->DropTableAt({{"db"}, "a"}, "/m/a0").kind(), ErrorKind::kCommitFailed);
  ASSERT_OK(metastore_->DropTableAt({{"db"}, "a"}, "/m/a1"));
}

// A malformed or truncated transaction is refused whole: 400 with the
// specification's error body naming the offending change, no pointer moved
// and no metadata file left behind, whichever change is the bad one.
TEST_F(ServiceTest, MalformedTransactionsAreRefusedWholeWithA400) {
  ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["db"]})").status, 200);
  for (const std::string name : {"a", "b"}) {
    auto created =
        Call("POST", "/v1/namespaces/db/tables", R"({"name":")" + name + R"(","schema":)" + kSchema + "}");
    ASSERT_EQ(created.status, 200) << created.body;
  }
  auto pointers = [&]() {
    std::vector<std::string> out;
    for (const char* name : {"a", "b"}) {
      auto location = metastore_->LoadMetadataLocation({{"db"}, name});
      out.push_back(location.ok() ? *location : location.status().ToString());
    }
    return out;
  };
  auto files = [&]() {
    std::vector<std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(warehouse_)) out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto pointers_before = pointers();
  const auto files_before = files();
  auto change = [](const std::string& table, const std::string& rest) {
    return R"({"identifier":{"namespace":["db"],"name":")" + table + "\"}" + rest + "}";
  };
  const std::string good_a =
      change("a", R"(,"requirements":[],"updates":[{"action":"set-properties","updates":{"k":"1"}}])");
  auto with_b = [&](const std::string& rest) {
    return R"({"table-changes":[)" + good_a + "," + change("b", rest) + "]}";
  };
  struct Case {
    const char* what;
    std::string body;
    const char* named;  // what the message must name
  };
  const std::vector<Case> cases = {
      {"a truncated body", R"({"table-changes":[)" + good_a, "JSON"},
      {"no table-changes", "{}", "table-changes"},
      {"table-changes not an array", R"({"table-changes":{}})", "table-changes"},
      {"a change that is not an object", R"({"table-changes":[)" + good_a + ",1]}", "table-changes[1]"},
      {"no identifier", R"({"table-changes":[)" + good_a + R"(,{"requirements":[],"updates":[]}]})",
       "table-changes[1] has no 'identifier'"},
      {"an identifier without a name",
       R"({"table-changes":[{"identifier":{"namespace":["db"]},"requirements":[],"updates":[]}]})",
       "table-changes[0]"},
      {"the same table twice", R"({"table-changes":[)" + good_a + "," + good_a + "]}", "appears twice"},
      {"no updates", with_b(R"(,"requirements":[])"), "table-changes[1] (table db.b) has no 'updates'"},
      {"no requirements", with_b(R"(,"updates":[])"), "table-changes[1] (table db.b) has no 'requirements'"},
      {"requirements not an array", with_b(R"(,"requirements":{},"updates":[])"), "table db.b"},
      {"an unknown update action", with_b(R"(,"requirements":[],"updates":[{"action":"frobnicate"}])"),
       "table db.b: updates"},
      {"an update without its fields",
       with_b(R"(,"requirements":[],"updates":[{"action":"set-properties"}])"), "table db.b: updates"},
      {"an unknown requirement", with_b(R"(,"requirements":[{"type":"assert-nothing"}],"updates":[])"),
       "table db.b: requirements"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ServiceResponse r = Call("POST", "/v1/transactions/commit", c.body);
    EXPECT_EQ(r.status, 400) << r.body;
    const iceberg::Json json = iceberg::Json::parse(r.body, nullptr, false);
    ASSERT_TRUE(json.is_object() && json.contains("error")) << r.body;
    EXPECT_EQ(json["error"]["code"], 400) << r.body;
    EXPECT_EQ(json["error"]["type"], "BadRequestException") << r.body;
    const std::string message = json["error"].value("message", "");
    EXPECT_NE(message.find(c.named), std::string::npos) << message;
    EXPECT_EQ(pointers(), pointers_before);
    EXPECT_EQ(files(), files_before);
  }
  // The good change alone still commits.
  ServiceResponse r = Call("POST", "/v1/transactions/commit", R"({"table-changes":[)" + good_a + "]}");
  EXPECT_EQ(r.status, 204) << r.body;
  EXPECT_NE(pointers()[0], pointers_before[0]);
  EXPECT_EQ(pointers()[1], pointers_before[1]);
}

TEST_F(ServiceTest, PagesFollowTheirTokens) {
  for (const char* ns : {"d", "b", "e", "a", "c"}) {
    ASSERT_EQ(Call("POST", "/v1/namespaces", std::string(R"({"namespace":[")") + ns + "\"]}").status, 200);
  }
  std::vector<std::string> seen;
  std::string token;
  for (int page = 0; page < 10; ++page) {
    auto r = Call("GET", "/v1/namespaces?pageSize=2&pageToken=" + token);
    ASSERT_EQ(r.status, 200) << r.body;
    auto json = iceberg::Json::parse(r.body);
    ASSERT_LE(json["namespaces"].size(), 2u);
    for (const auto& ns : json["namespaces"]) seen.push_back(ns[0]);
    if (json["next-page-token"].is_null()) break;
    token = json["next-page-token"];
    // A namespace created between pages shows up where it sorts.
    if (page == 0) {
      ASSERT_EQ(Call("POST", "/v1/namespaces", R"({"namespace":["bb"]})").status, 200);
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "bb", "c", "d", "e"}));
  EXPECT_EQ(Call("GET", "/v1/namespaces?pageToken=abc").status, 400);
  EXPECT_EQ(Call("GET", "/v1/namespaces?pageToken=&pageSize=0").status, 400);
  auto all = iceberg::Json::parse(Call("GET", "/v1/namespaces").body);
  EXPECT_EQ(all["namespaces"].size(), 6u);
  EXPECT_TRUE(all["next-page-token"].is_null());
}

}  // namespace
}  // namespace floe::catalog::rest
