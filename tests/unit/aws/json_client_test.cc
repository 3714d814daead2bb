// The AWS JSON-protocol client without a network: the request it signs
// (target, content type, signed headers, a signature that SignV4 reproduces),
// endpoint resolution by the SDK conventions, how AWS error bodies become
// Status, and which failures are retried — throttling always, 5xx and
// transport failures only for idempotent calls, unknown outcomes of
// mutations reported as CommitStateUnknown.
#include "aws/json_client.h"

#include <gtest/gtest.h>

#include "aws/aws_error.h"
#include "aws/sigv4.h"
#include "common/base64.h"
#include "test_util.h"

namespace floe::aws {
namespace {

AwsClientOptions TestOptions() {
  AwsClientOptions options;
  options.credentials = {"eu-west-1", "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "token-1",
                         ""};
  options.endpoint = "http://127.0.0.1:9";
  options.retry = {5, 10000, 0, 0};
  return options;
}

std::string Header(const http::HttpRequest& request, const std::string& name) {
  for (const auto& [key, value] : request.headers) {
    if (key == name) return value;
  }
  return "";
}

TEST(JsonClientTest, SignsTheTargetContentTypeAndBody) {
  ASSERT_OK_AND_ASSIGN(auto client, AwsJsonClient::Open(KinesisService(), TestOptions(), MapEnvironment({})));
  const std::string body = R"({"StreamName":"orders"})";
  const auto now = std::chrono::system_clock::from_time_t(1440938160);  // 2015-08-30T12:36:00Z
  ASSERT_OK_AND_ASSIGN(http::HttpRequest request, client->BuildRequest("ListShards", body, now));
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.url, "http://127.0.0.1:9/");
  EXPECT_EQ(Header(request, "X-Amz-Target"), "Kinesis_20131202.ListShards");
  EXPECT_EQ(Header(request, "Content-Type"), "application/x-amz-json-1.1");
  EXPECT_EQ(Header(request, "X-Amz-Date"), "20150830T123600Z");
  EXPECT_EQ(Header(request, "X-Amz-Security-Token"), "token-1");
  EXPECT_EQ(Header(request, "X-Amz-Content-Sha256"), Sha256Hex(body));
  const std::string authorization = Header(request, "Authorization");
  EXPECT_NE(authorization.find("Credential=AKIDEXAMPLE/20150830/eu-west-1/kinesis/aws4_request"),
            std::string::npos)
      << authorization;
  EXPECT_NE(authorization.find("SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;"
                               "x-amz-security-token;x-amz-target,"),
            std::string::npos)
      << authorization;
  // The same canonical request signed independently gives the same signature.
  SigV4Request again{"POST",
                     "/",
                     {},
                     {{"host", "127.0.0.1:9"},
                      {"content-type", "application/x-amz-json-1.1"},
                      {"x-amz-content-sha256", Sha256Hex(body)},
                      {"x-amz-date", "20150830T123600Z"},
                      {"x-amz-security-token", "token-1"},
                      {"x-amz-target", "Kinesis_20131202.ListShards"}},
                     Sha256Hex(body)};
  ASSERT_OK_AND_ASSIGN(SigV4Signature expected,
                       SignV4(again, {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "token-1"},
                              {"eu-west-1", "kinesis", "20150830T123600Z", true}));
  EXPECT_EQ(authorization, expected.authorization);

  ASSERT_OK_AND_ASSIGN(auto sqs, AwsJsonClient::Open(SqsService(), TestOptions(), MapEnvironment({})));
  ASSERT_OK_AND_ASSIGN(http::HttpRequest sqs_request, sqs->BuildRequest("ReceiveMessage", "{}", now));
  EXPECT_EQ(Header(sqs_request, "X-Amz-Target"), "AmazonSQS.ReceiveMessage");
  EXPECT_EQ(Header(sqs_request, "Content-Type"), "application/x-amz-json-1.0");
  EXPECT_NE(Header(sqs_request, "Authorization").find("/eu-west-1/sqs/aws4_request"), std::string::npos);
}

TEST(JsonClientTest, AnonymousRequestsAreNotSigned) {
  AwsClientOptions options = TestOptions();
  options.credentials = {"us-east-1", "", "", "", ""};
  ASSERT_OK_AND_ASSIGN(
      auto client, AwsJsonClient::Open(GlueService(), options, MapEnvironment({{"HOME", "/nonexistent"}})));
  EXPECT_TRUE(client->anonymous());
  ASSERT_OK_AND_ASSIGN(http::HttpRequest request,
                       client->BuildRequest("GetTable", "{}", std::chrono::system_clock::now()));
  EXPECT_EQ(Header(request, "Authorization"), "");
  EXPECT_EQ(Header(request, "X-Amz-Target"), "AWSGlue.GetTable");
}

TEST(JsonClientTest, EndpointsFollowTheSdkConventions) {
  AwsClientOptions options = TestOptions();
  options.endpoint.clear();
  auto env = MapEnvironment({{"HOME", "/nonexistent"}});
  ASSERT_OK_AND_ASSIGN(auto plain, AwsJsonClient::Open(GlueService(), options, env));
  EXPECT_EQ(plain->endpoint().Url(), "https://glue.eu-west-1.amazonaws.com");
  EXPECT_FALSE(plain->endpoint().custom);
  options.credentials.region = "cn-north-1";
  ASSERT_OK_AND_ASSIGN(auto china, AwsJsonClient::Open(KinesisService(), options, env));
  EXPECT_EQ(china->endpoint().Url(), "https://kinesis.cn-north-1.amazonaws.com.cn");
  auto configured = MapEnvironment({{"HOME", "/nonexistent"},
                                    {"AWS_ENDPOINT_URL", "http://global:1"},
                                    {"AWS_ENDPOINT_URL_KINESIS", "http://kinesis-only:2/"}});
  ASSERT_OK_AND_ASSIGN(auto kinesis, AwsJsonClient::Open(KinesisService(), options, configured));
  EXPECT_EQ(kinesis->endpoint().Url(), "http://kinesis-only:2");
  EXPECT_EQ(kinesis->endpoint().source, "AWS_ENDPOINT_URL_KINESIS");
  ASSERT_OK_AND_ASSIGN(auto glue, AwsJsonClient::Open(GlueService(), options, configured));
  EXPECT_EQ(glue->endpoint().Url(), "http://global:1");
  options.endpoint = "http://explicit:3";
  ASSERT_OK_AND_ASSIGN(auto explicit_one, AwsJsonClient::Open(GlueService(), options, configured));
  EXPECT_EQ(explicit_one->endpoint().Url(), "http://explicit:3");
  options.endpoint.clear();
  auto ignored = MapEnvironment({{"HOME", "/nonexistent"},
                                 {"AWS_ENDPOINT_URL", "http://global:1"},
                                 {"AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true"}});
  ASSERT_OK_AND_ASSIGN(auto ignoring, AwsJsonClient::Open(GlueService(), options, ignored));
  EXPECT_EQ(ignoring->endpoint().Url(), "https://glue.cn-north-1.amazonaws.com.cn");
  options.endpoint = "ftp://nope";
  EXPECT_EQ(AwsJsonClient::Open(GlueService(), options, env).status().kind(), ErrorKind::kInvalidArgument);
  options.endpoint = "http://host/with/path";
  EXPECT_EQ(AwsJsonClient::Open(GlueService(), options, env).status().kind(), ErrorKind::kInvalidArgument);
}

TEST(JsonClientTest, ErrorBodiesBecomeStatusNamingTheOperation) {
  const std::map<std::string, std::string> no_headers;
  AwsError not_found = ParseAwsError(
      400, no_headers,
      R"({"__type":"com.amazonaws.kinesis.v20131202#ResourceNotFoundException","message":"Stream x not found"})");
  EXPECT_EQ(not_found.type, "ResourceNotFoundException");
  Status status = AwsErrorStatus(not_found, "Kinesis ListShards");
  EXPECT_EQ(status.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(status.message(), "Kinesis ListShards: HTTP 400 ResourceNotFoundException: Stream x not found");
  AwsError header_type = ParseAwsError(400, {{"x-amzn-errortype", "EntityNotFoundException:http://internal"}},
                                       R"({"Message":"Database lake not found."})");
  EXPECT_EQ(header_type.type, "EntityNotFoundException");
  EXPECT_EQ(header_type.message, "Database lake not found.");
  EXPECT_EQ(AwsErrorStatus(ParseAwsError(400, no_headers, R"({"__type":"ConcurrentModificationException"})"),
                           "Glue")
                .kind(),
            ErrorKind::kCommitFailed);
  Status throttled =
      AwsErrorStatus(ParseAwsError(400, no_headers,
                                   R"({"__type":"ProvisionedThroughputExceededException","message":"Rate"})"),
                     "K");
  EXPECT_TRUE(throttled.retryable());
  Status denied =
      AwsErrorStatus(ParseAwsError(400, no_headers, R"({"__type":"AccessDeniedException"})"), "Glue");
  EXPECT_EQ(denied.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(denied.message().find("authorization"), std::string::npos);
  AwsError html = ParseAwsError(502, no_headers, "<html>bad gateway</html>");
  EXPECT_TRUE(html.type.empty());
  EXPECT_TRUE(AwsErrorStatus(html, "SQS").retryable());
  AwsError huge = ParseAwsError(400, no_headers, std::string(100000, 'x'));
  EXPECT_LT(huge.message.size(), 1100u);
}

class ScriptedClient {
 public:
  explicit ScriptedClient(std::vector<Result<http::HttpResponse>> answers) : answers_(std::move(answers)) {
    auto client = AwsJsonClient::Open(GlueService(), TestOptions(), MapEnvironment({}));
    EXPECT_TRUE(client.ok());
    client_ = std::move(*client);
    client_->SetExchangeForTesting([this](std::string_view, const http::HttpRequest&,
                                          const AwsJsonClient::Send&) -> Result<http::HttpResponse> {
      ++calls_;
      if (answers_.empty()) return http::HttpResponse{200, {}, "{}", 2};
      Result<http::HttpResponse> next = answers_.front();
      answers_.erase(answers_.begin());
      return next;
    });
  }
  AwsJsonClient& client() { return *client_; }
  int calls() const { return calls_; }

 private:
  std::vector<Result<http::HttpResponse>> answers_;
  std::unique_ptr<AwsJsonClient> client_;
  int calls_ = 0;
};

http::HttpResponse Answer(long status, const std::string& body) {
  return http::HttpResponse{status, {}, body, static_cast<int64_t>(body.size())};
}

TEST(JsonClientTest, ThrottlingIsRetriedForEveryCall) {
  const auto throttled = Answer(400, R"({"__type":"ThrottlingException","message":"Rate exceeded"})");
  ScriptedClient scripted({throttled, Answer(429, "{}"), Answer(200, R"({"Table":{}})")});
  ASSERT_OK_AND_ASSIGN(json::Json answer,
                       scripted.client().Call("UpdateTable", json::Json::object(), CallKind::kMutation));
  EXPECT_TRUE(answer.contains("Table"));
  EXPECT_EQ(scripted.calls(), 3);
}

TEST(JsonClientTest, ServerErrorsAndLostConnectionsAreRetriedOnlyWhenIdempotent) {
  const auto failure = Answer(500, R"({"__type":"InternalServiceException","message":"oops"})");
  ScriptedClient reads(
      {failure, Status::IOError("transport error: connection reset", true), Answer(200, "{}")});
  ASSERT_OK(reads.client().Call("GetTable", json::Json::object()).status());
  EXPECT_EQ(reads.calls(), 3);

  ScriptedClient write({failure});
  auto unknown = write.client().Call("UpdateTable", json::Json::object(), CallKind::kMutation);
  EXPECT_EQ(unknown.status().kind(), ErrorKind::kCommitStateUnknown);
  EXPECT_NE(unknown.status().message().find("Glue UpdateTable: outcome unknown"), std::string::npos)
      << unknown.status().message();
  EXPECT_EQ(write.calls(), 1);

  ScriptedClient dropped({Status::IOError("transport error: connection reset", true)});
  auto lost = dropped.client().Call("CreateTable", json::Json::object(), CallKind::kMutation);
  EXPECT_EQ(lost.status().kind(), ErrorKind::kCommitStateUnknown);
  EXPECT_EQ(dropped.calls(), 1);

  ScriptedClient garbled({Answer(200, "{not json")});
  EXPECT_EQ(garbled.client().Call("CreateTable", json::Json::object(), CallKind::kMutation).status().kind(),
            ErrorKind::kCommitStateUnknown);
}

TEST(JsonClientTest, ClientErrorsAreNotRetriedAndRetriesAreBounded) {
  ScriptedClient invalid({Answer(400, R"({"__type":"InvalidInputException","message":"bad name"})")});
  std::string type;
  auto refused = invalid.client().Call("CreateDatabase", json::Json::object(), CallKind::kMutation, &type);
  EXPECT_EQ(refused.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(type, "InvalidInputException");
  EXPECT_EQ(invalid.calls(), 1);

  const auto throttled = Answer(400, R"({"__type":"ThrottlingException"})");
  ScriptedClient endless(std::vector<Result<http::HttpResponse>>(10, throttled));
  auto exhausted = endless.client().Call("GetTables", json::Json::object());
  EXPECT_FALSE(exhausted.ok());
  EXPECT_EQ(endless.calls(), 5);  // max_attempts
  EXPECT_NE(exhausted.status().message().find("after 5 attempts"), std::string::npos)
      << exhausted.status().message();
}

TEST(Base64Test, RoundTripsAndRejectsWhatIsNotCanonical) {
  for (const std::string& bytes : {std::string(), std::string("f"), std::string("fo"), std::string("foo"),
                                   std::string("foob"), std::string("\0\xff\x10", 3)}) {
    ASSERT_OK_AND_ASSIGN(std::string decoded, Base64Decode(Base64Encode(bytes)));
    EXPECT_EQ(decoded, bytes);
  }
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  for (const char* bad : {"Zg", "Zh==", "Zm9v!mFy", "====", "Zg=a", "Z===", "Zg==Zg=="}) {
    EXPECT_EQ(Base64Decode(bad).status().kind(), ErrorKind::kCorruption) << bad;
  }
}

}  // namespace
}  // namespace floe::aws
