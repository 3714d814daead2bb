// The REST client's list paging against a server that pages: every page is
// fetched with the previous page's token (and the original query), the
// entries of all pages come back in order, and a server that repeats a
// token or sends a malformed page is Corruption naming the operation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "aws/environment.h"
#include "catalog/rest/rest_catalog.h"
#include "test_util.h"

namespace floe::catalog::rest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class RestPagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Get("/v1/config", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"defaults":{},"overrides":{}})", "application/json");
    });
    server_.Get("/v1/namespaces", [this](const httplib::Request& req, httplib::Response& res) {
      const std::string token = req.has_param("pageToken") ? req.get_param_value("pageToken") : "";
      {
        std::lock_guard<std::mutex> lock(mutex_);
        seen_.push_back("token=" + token + " parent=" + req.get_param_value("parent"));
      }
      if (token.empty()) {
        res.set_content(R"({"namespaces":[["a"]],"next-page-token":"t1"})", "application/json");
      } else if (token == "t1") {
        res.set_content(R"({"namespaces":[["b"],["c"]],"next-page-token":"t2"})", "application/json");
      } else {
        res.set_content(R"({"namespaces":[["d"]],"next-page-token":""})", "application/json");
      }
    });
    // Tables of "loop" repeat their token; tables of "bad" send a number as the token.
    server_.Get("/v1/namespaces/loop/tables", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"identifiers":[{"namespace":["loop"],"name":"t"}],"next-page-token":"again"})",
                      "application/json");
    });
    server_.Get("/v1/namespaces/bad/tables", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"identifiers":[],"next-page-token":7})", "application/json");
    });
    server_.Get("/v1/namespaces/two/tables", [](const httplib::Request& req, httplib::Response& res) {
      if (!req.has_param("pageToken")) {
        res.set_content(R"({"identifiers":[{"namespace":["two"],"name":"x"}],"next-page-token":"p2"})",
                        "application/json");
      } else {
        res.set_content(R"({"identifiers":[{"namespace":["two"],"name":"y"}]})", "application/json");
      }
    });
    server_.set_keep_alive_max_count(1);  // each request on its own connection: a quick stop
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    RestCatalogOptions options;
    options.uri = "http://127.0.0.1:" + std::to_string(port_);
    options.max_attempts = 1;
    auto client = RestCatalog::Open(options, nullptr, aws::MapEnvironment({}));
    ASSERT_OK(client.status());
    client_ = std::move(*client);
  }

  void TearDown() override {
    client_.reset();
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<RestCatalog> client_;
  std::mutex mutex_;
  std::vector<std::string> seen_;
};

TEST_F(RestPagingTest, FollowsEveryPageWithTheSameQuery) {
  ASSERT_OK_AND_ASSIGN(std::vector<Namespace> namespaces, client_->ListNamespaces({"parent"}));
  EXPECT_THAT(namespaces, ElementsAre(Namespace{"a"}, Namespace{"b"}, Namespace{"c"}, Namespace{"d"}));
  EXPECT_THAT(seen_, ElementsAre("token= parent=parent", "token=t1 parent=parent", "token=t2 parent=parent"));
  ASSERT_OK_AND_ASSIGN(std::vector<TableIdentifier> tables, client_->ListTables({"two"}));
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].name, "x");
  EXPECT_EQ(tables[1].name, "y");
}

TEST_F(RestPagingTest, ARepeatedOrMalformedTokenIsCorruption) {
  auto looping = client_->ListTables({"loop"});
  ASSERT_FALSE(looping.ok());
  EXPECT_EQ(looping.status().kind(), ErrorKind::kCorruption);
  EXPECT_THAT(looping.status().message(), HasSubstr("listing tables of namespace 'loop'"));
  EXPECT_THAT(looping.status().message(), HasSubstr("repeated page token 'again'"));
  auto bad = client_->ListTables({"bad"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("next-page-token"));
}

// The page parser alone: what the fuzz target drives.
TEST(RestAnswersTest, ListPagesAndConfig) {
  std::vector<std::string> names;
  auto collect = [&](const iceberg::Json& entry) -> Status {
    if (!entry.is_string()) return Status::Corruption("not a string");
    names.push_back(entry.get<std::string>());
    return Status::OK();
  };
  ASSERT_OK_AND_ASSIGN(std::string next, ListPageFromJson(R"({"xs":["a","b"],"next-page-token":"n"})", "xs",
                                                          "listing xs", collect));
  EXPECT_EQ(next, "n");
  ASSERT_OK_AND_ASSIGN(next, ListPageFromJson(R"({"next-page-token":null})", "xs", "listing xs", collect));
  EXPECT_EQ(next, "");
  EXPECT_THAT(names, ElementsAre("a", "b"));
  EXPECT_FALSE(ListPageFromJson(R"({"xs":[1]})", "xs", "listing xs", collect).ok());
  EXPECT_FALSE(ListPageFromJson(R"({"xs":{}})", "xs", "listing xs", collect).ok());
  EXPECT_FALSE(ListPageFromJson("[]", "xs", "listing xs", collect).ok());
  EXPECT_FALSE(ListPageFromJson("{", "xs", "listing xs", collect).ok());

  ASSERT_OK_AND_ASSIGN(
      CatalogConfigAnswer config,
      CatalogConfigFromJson(R"({"defaults":{"a":"1"},"overrides":{"prefix":"p"}})", "config"));
  EXPECT_EQ(config.defaults.at("a"), "1");
  EXPECT_EQ(config.overrides.at("prefix"), "p");
  auto wrong = CatalogConfigFromJson(R"({"defaults":{"a":1}})", "reading the config");
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().message(), HasSubstr("reading the config"));
}

}  // namespace
}  // namespace floe::catalog::rest
