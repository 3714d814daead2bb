// Authentication between the REST client and floe serve: a fixed bearer
// token, OAuth2 client credentials at /v1/oauth/tokens (with a token that
// expires and is fetched again), custom headers, refusal to listen beyond
// loopback without a token, and SigV4-signed catalog requests checked by a
// capturing server that recomputes the signature.
#include <gtest/gtest.h>
#include <httplib.h>

#include <mutex>

#include "rest_server_fixture.h"

namespace floe::catalog::rest {
namespace {

TEST_F(RestServerTest, BearerTokenIsRequired) {
  RestServiceOptions options;
  options.token = "s3cret-token-0123456789";
  StartServer(options);
  auto anonymous = Client();
  ASSERT_FALSE(anonymous.ok());
  EXPECT_EQ(anonymous.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(anonymous.status().message().find("authentication failed"), std::string::npos);
  EXPECT_EQ(anonymous.status().message().find("s3cret"), std::string::npos);

  RestCatalogOptions wrong = ClientOptions();
  wrong.token = "guess";
  EXPECT_FALSE(Client(wrong).ok());

  RestCatalogOptions right = ClientOptions();
  right.token = "s3cret-token-0123456789";
  ASSERT_OK_AND_ASSIGN(auto client, Client(right));
  ASSERT_OK(client->CreateNamespace({"db"}, {}));
  EXPECT_EQ(Raw("GET", "/v1/namespaces").status, 401);
  EXPECT_EQ(Raw("GET", "/v1/namespaces", "", {{"Authorization", "Bearer s3cret-token-0123456789"}}).status,
            200);
}

TEST_F(RestServerTest, OAuth2ClientCredentials) {
  RestServiceOptions options;
  options.client_id = "ingest";
  options.client_secret = "pa55-long-enough-secret";
  options.issued_token_lifetime_s = 1;
  StartServer(options);

  RestCatalogOptions client_options = ClientOptions();
  client_options.credential = "ingest:pa55-long-enough-secret";
  client_options.scope = "PRINCIPAL_ROLE:ALL";
  ASSERT_OK_AND_ASSIGN(auto client, Client(client_options));
  ASSERT_OK(client->CreateNamespace({"db"}, {}));
  // The 1-second token expires; the client notices (expires_in, then a 401) and fetches another.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ASSERT_OK_AND_ASSIGN(auto namespaces, client->ListNamespaces({}));
  EXPECT_EQ(namespaces.size(), 1u);

  RestCatalogOptions bad = ClientOptions();
  bad.credential = "ingest:guess-xyz";
  auto refused = Client(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("invalid_client"), std::string::npos);
  EXPECT_EQ(refused.status().message().find("guess-xyz"), std::string::npos);

  // Token endpoint by explicit URI, and the form the spec describes.
  RestCatalogOptions explicit_endpoint = ClientOptions();
  explicit_endpoint.credential = "ingest:pa55-long-enough-secret";
  explicit_endpoint.oauth2_server_uri = BaseUri() + "/v1/oauth/tokens";
  EXPECT_OK(Client(explicit_endpoint).status());
  auto token = Raw("POST", "/v1/oauth/tokens",
                   "grant_type=password&client_id=ingest&client_secret=pa55-long-enough-secret",
                   {{"Content-Type", "application/x-www-form-urlencoded"}});
  EXPECT_EQ(token.status, 400);
  EXPECT_NE(token.body.find("unsupported_grant_type"), std::string::npos);
}

TEST(RestHttpServerTest, RefusesNonLoopbackWithoutToken) {
  floe::testing::TempDir dir;
  auto sql = SqlMetastore::Open("sqlite://" + dir.File("c.db"), "floe");
  ASSERT_OK(sql.status());
  ASSERT_OK_AND_ASSIGN(auto service, RestCatalogService::Create(std::shared_ptr<Metastore>(std::move(*sql)),
                                                                MakeLocalFileIO(), dir.File("wh"), {}));
  http_server::HttpServerOptions options{"0.0.0.0", 0, 1024};
  options.how_to_authenticate = "pass --token";
  http_server::HttpServer server(std::shared_ptr<RestCatalogService>(std::move(service)), options);
  auto bound = server.Bind();
  ASSERT_FALSE(bound.ok());
  EXPECT_NE(bound.status().message().find("without authentication: pass --token"), std::string::npos);
  server.Stop();  // safe without Serve
}

// A stand-in for an AWS endpoint: records each request and answers /v1/config.
class CapturingServer {
 public:
  CapturingServer() {
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(req);
      res.set_content(R"({"defaults":{},"overrides":{"prefix":"catalogs/123456789012"}})",
                      "application/json");
    });
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(req);
      res.set_content(R"({"namespace":["db"],"properties":{}})", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~CapturingServer() {
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::vector<httplib::Request> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<httplib::Request> requests_;
  int port_ = 0;
};

TEST(RestSigV4EndToEndTest, RequestsCarryAVerifiableSignature) {
  CapturingServer aws;
  RestCatalogOptions options;
  options.uri = "http://127.0.0.1:" + std::to_string(aws.port()) + "/iceberg";
  options.warehouse = "123456789012";
  options.sigv4_enabled = true;
  options.signing_name = "glue";
  options.signing_region = "eu-west-1";
  options.headers = {{"X-Custom", "yes"}};
  auto env = aws::MapEnvironment({{"AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"},
                                  {"AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"},
                                  {"AWS_SESSION_TOKEN", "session"}});
  ASSERT_OK_AND_ASSIGN(auto client, RestCatalog::Open(options, nullptr, env));
  EXPECT_EQ(client->prefix(), "catalogs/123456789012");
  ASSERT_OK(client->CreateNamespace({"db", "x y"}, {{"k", "v"}}));

  auto requests = aws.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/iceberg/v1/config");
  EXPECT_EQ(requests[0].get_param_value("warehouse"), "123456789012");
  EXPECT_EQ(requests[1].path, "/iceberg/v1/catalogs/123456789012/namespaces");
  for (const auto& req : requests) {
    SCOPED_TRACE(req.method + " " + req.target);
    EXPECT_EQ(req.get_header_value("X-Custom"), "yes");
    EXPECT_EQ(req.get_header_value("X-Amz-Security-Token"), "session");
    // Recompute the signature from what arrived on the wire.
    const std::string target = req.target;
    const size_t question = target.find('?');
    QueryParams query;
    for (const auto& [name, value] : req.params) query.emplace_back(name, value);
    std::vector<std::pair<std::string, std::string>> headers;
    if (req.has_header("Content-Type"))
      headers.emplace_back("Content-Type", req.get_header_value("Content-Type"));
    const std::string amz_date = req.get_header_value("X-Amz-Date");
    ASSERT_EQ(amz_date.size(), 16u);
    ASSERT_OK_AND_ASSIGN(
        auto expected,
        SignCatalogRequest(req.method, req.get_header_value("Host"), target.substr(0, question), query,
                           &headers, req.body,
                           {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session"},
                           "eu-west-1", "glue", amz_date));
    EXPECT_EQ(req.get_header_value("Authorization"), expected.authorization);
    EXPECT_NE(expected.authorization.find("/eu-west-1/glue/aws4_request"), std::string::npos);
  }
}

TEST(RestSigV4EndToEndTest, MissingCredentialsAreAClearError) {
  RestCatalogOptions options;
  options.uri = "http://127.0.0.1:1";
  options.sigv4_enabled = true;
  options.signing_region = "us-east-1";
  auto env = aws::MapEnvironment(
      {{"AWS_SHARED_CREDENTIALS_FILE", "/nonexistent"}, {"AWS_CONFIG_FILE", "/nonexistent"}});
  auto client = RestCatalog::Open(options, nullptr, env);
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().message().find("AWS credentials"), std::string::npos);
}

}  // namespace
}  // namespace floe::catalog::rest
