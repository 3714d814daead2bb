// SchemaRegistryClient against the registry stub (tests/tools/schema_registry_stub.mjs).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "child_process.h"
#include "stream/schema_registry/schema_registry_client.h"
#include "test_util.h"

namespace floe::schema_registry {
namespace {

constexpr const char* kCustomerSchema =
    R"({"type":"record","name":"Value","namespace":"dbserver1.inventory.customers","fields":[{"name":"id","type":"int"}]})";

class SchemaRegistryClientTest : public ::testing::Test {
 protected:
  // Starts the stub with the test's schemas (ids 1, 2, 3, 4 in this order).
  void StartStub(const std::vector<std::string>& extra_args = {}) {
    nlohmann::json schemas = nlohmann::json::array();
    schemas.push_back({{"subject", "customers-value"}, {"schema", kCustomerSchema}});
    schemas.push_back(
        {{"subject", "customers-key"}, {"schema", R"({"type":"record","name":"Key","fields":[]})"}});
    schemas.push_back(
        {{"subject", "events-value"}, {"schema", R"({"type":"object"})"}, {"schemaType", "JSON"}});
    schemas.push_back({{"subject", "broken-value"}, {"schema", R"({"type":"record"})"}});
    std::ofstream(dir_.File("schemas.json")) << schemas.dump();
    std::vector<std::string> args = {std::string(FLOE_SOURCE_DIR) + "/tests/tools/schema_registry_stub.mjs",
                                     "--schemas", dir_.File("schemas.json")};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    auto port = stub_.Start(args, dir_.File("stub.log"));
    if (!port) GTEST_SKIP() << "skipped: " << stub_.error();
    url_ = "http://127.0.0.1:" + std::to_string(*port);
  }

  std::unique_ptr<SchemaRegistryClient> Open(SchemaRegistryOptions options = {}) {
    if (options.url.empty()) options.url = url_;
    auto client = SchemaRegistryClient::Open(options);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  // Sends a control request to the stub.
  std::string Control(const std::string& method, const std::string& path, const std::string& body = "") {
    http::HttpTransport transport(2000, 5000);
    http::HttpRequest request;
    request.method = method;
    request.url = url_ + path;
    request.body = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(body.data()), body.size());
    auto response = transport.Execute(request);
    EXPECT_TRUE(response.ok()) << response.status().ToString();
    return response.ok() ? response->body : "";
  }

  int StubCount(const std::string& request) {
    auto counts = nlohmann::json::parse(Control("GET", "/__stub/requests"));
    return counts.contains(request) ? counts[request].get<int>() : 0;
  }

  floe::testing::TempDir dir_;
  floe::testing::NodeProcess stub_;
  std::string url_;
};

TEST_F(SchemaRegistryClientTest, FetchesAvroSchemasOnceAndCachesThem) {
  StartStub();
  auto client = Open();
  ASSERT_TRUE(client);
  ASSERT_OK_AND_ASSIGN(auto schema, client->GetSchema(1));
  EXPECT_EQ(schema->id, 1);
  EXPECT_EQ(schema->schema_type, "AVRO");
  EXPECT_EQ(schema->text, kCustomerSchema);
  ASSERT_TRUE(schema->avro.has_value());
  EXPECT_EQ(schema->avro->root().full_name, "dbserver1.inventory.customers.Value");
  ASSERT_OK_AND_ASSIGN(auto again, client->GetSchema(1));
  EXPECT_EQ(again.get(), schema.get());
  EXPECT_EQ(client->requests_sent(), 1);
  EXPECT_EQ(StubCount("GET /schemas/ids/1"), 1);

  ASSERT_OK_AND_ASSIGN(auto json, client->GetSchema(3));
  EXPECT_EQ(json->schema_type, "JSON");
  EXPECT_FALSE(json->avro.has_value());
  EXPECT_EQ(json->text, R"({"type":"object"})");
}

TEST_F(SchemaRegistryClientTest, UnknownIdsAndBadSchemasAreNotRetried) {
  StartStub();
  auto client = Open();
  ASSERT_TRUE(client);
  auto missing = client->GetSchema(99);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "schema registry " + url_ + ": schema id 99 not found (40403 Schema 99 not found)");
  EXPECT_EQ(client->requests_sent(), 1);

  auto broken = client->GetSchema(4);  // a record without name or fields
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(broken.status().message().find("schema id 4"), std::string::npos) << broken.status().ToString();
}

TEST_F(SchemaRegistryClientTest, TransientFailuresAreRetried) {
  StartStub();
  auto client = Open();
  ASSERT_TRUE(client);
  Control("POST", "/__stub/faults", R"({"status": 503, "count": 2})");
  ASSERT_OK_AND_ASSIGN(auto schema, client->GetSchema(2));
  EXPECT_EQ(schema->avro->root().name, "Key");
  EXPECT_EQ(client->requests_sent(), 3);

  Control("POST", "/__stub/faults", R"({"status": 0, "count": 1})");  // the connection is cut
  ASSERT_OK(client->GetSchema(1));

  Control("POST", "/__stub/faults", R"({"status": 429, "count": 3})");
  auto throttled = client->GetSchema(3);
  ASSERT_FALSE(throttled.ok());
  EXPECT_TRUE(throttled.status().retryable());
  EXPECT_NE(throttled.status().message().find("HTTP 429"), std::string::npos)
      << throttled.status().ToString();
  ASSERT_OK(client->GetSchema(3));  // the stub answers again
}

TEST_F(SchemaRegistryClientTest, FailsOverToTheNextUrl) {
  StartStub();
  SchemaRegistryOptions options;
  options.url = "http://127.0.0.1:1/, " + url_;  // nothing listens on port 1
  auto client = Open(options);
  ASSERT_TRUE(client);
  ASSERT_OK(client->GetSchema(1));
  EXPECT_EQ(client->requests_sent(), 2);
}

TEST_F(SchemaRegistryClientTest, BasicAuthCredentialsAreSentAndNeverShown) {
  StartStub({"--user", "floe:s3cret-pass"});
  auto anonymous = Open();
  ASSERT_TRUE(anonymous);
  auto denied = anonymous->GetSchema(1);
  ASSERT_FALSE(denied.ok());
  EXPECT_FALSE(denied.status().retryable());
  EXPECT_NE(denied.status().message().find("HTTP 401"), std::string::npos) << denied.status().ToString();

  SchemaRegistryOptions options;
  options.basic_auth_user_info = "floe:wrong-pass";
  auto wrong = Open(options);
  ASSERT_TRUE(wrong);
  denied = wrong->GetSchema(1);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().message().find("wrong-pass"), std::string::npos) << denied.status().ToString();

  options.basic_auth_user_info = "floe:s3cret-pass";
  auto client = Open(options);
  ASSERT_TRUE(client);
  ASSERT_OK(client->GetSchema(1));
}

TEST_F(SchemaRegistryClientTest, ConcurrentCallersShareTheCache) {
  StartStub();
  auto client = Open();
  ASSERT_TRUE(client);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        auto schema = client->GetSchema(1 + (t + i) % 3);
        if (!schema.ok() || (*schema)->id != 1 + (t + i) % 3) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(client->requests_sent(), 3 * 8);  // at most one race per id and thread
  ASSERT_OK_AND_ASSIGN(auto cached, client->GetSchema(1));
  const int64_t sent = client->requests_sent();
  ASSERT_OK(client->GetSchema(2));
  EXPECT_EQ(client->requests_sent(), sent);
}

TEST(SchemaRegistryOptionsTest, UrlsAndCredentialsAreChecked) {
  SchemaRegistryOptions options;
  EXPECT_EQ(SchemaRegistryClient::Open(options).status().kind(), ErrorKind::kInvalidArgument);
  options.url = "registry:8081";
  EXPECT_EQ(SchemaRegistryClient::Open(options).status().kind(), ErrorKind::kInvalidArgument);
  options.url = "http://registry:8081";
  options.basic_auth_user_info = "no-colon";
  auto bad = SchemaRegistryClient::Open(options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().find("no-colon"), std::string::npos);
  // A URL that is refused is named without the password it carries.
  options.basic_auth_user_info.reset();
  options.url = "ftp://user:hunter2hunter2@registry:8081";
  auto refused = SchemaRegistryClient::Open(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().find("hunter2hunter2"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("ftp://user:***@registry:8081"), std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace floe::schema_registry
