// HeadAdmission: the Host, Origin, preflight, form-POST and token checks
// every floe HTTP service makes on a head; ParseListenAddress.
#include "http_server/head_admission.h"

#include <gtest/gtest.h>

#include "http_server/http_server.h"

namespace floe::http_server {
namespace {

HttpRequest Get(std::string target,
                std::map<std::string, std::string> headers = {{"host", "127.0.0.1:9464"}}) {
  return HttpRequest{"GET", std::move(target), std::move(headers), ""};
}

TEST(HeadAdmissionTest, WithoutATokenOnlyLoopbackHostNamesAreServed) {
  HeadAdmission open({});
  EXPECT_FALSE(open.Check(Get("/metrics")).has_value());
  EXPECT_FALSE(open.Check(Get("/metrics", {{"host", "localhost:9464"}})).has_value());
  EXPECT_FALSE(open.Check(Get("/metrics", {})).has_value()) << "no Host: not a browser";
  auto rebound = open.Check(Get("/metrics", {{"host", "evil.example:9464"}}));
  ASSERT_TRUE(rebound.has_value());
  EXPECT_EQ(rebound->status, 400);
  EXPECT_NE(rebound->message.find("evil.example"), std::string::npos);
}

TEST(HeadAdmissionTest, ATokenIsRequiredUnlessTheRouteIsExempt) {
  HeadAdmissionOptions options;
  options.token = "observability-token-123";
  HeadAdmission admission(options);
  auto refused = admission.Check(Get("/metrics", {{"host", "floe.internal"}}));
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 401);
  ASSERT_EQ(refused->headers.size(), 1u);
  EXPECT_EQ(refused->headers[0].first, "WWW-Authenticate");
  EXPECT_FALSE(admission.Check(Get("/healthz", {{"host", "floe.internal"}}), /*token_exempt=*/true));
  EXPECT_FALSE(admission.Check(
      Get("/metrics", {{"host", "floe.internal"}, {"authorization", "Bearer observability-token-123"}})));
  EXPECT_TRUE(
      admission.Check(Get("/metrics", {{"host", "x"}, {"authorization", "Bearer observability-token-12"}})));
  EXPECT_TRUE(
      admission.Check(Get("/metrics", {{"host", "x"}, {"authorization", "observability-token-123"}})));
  // Tokens the caller issued, by digest.
  const std::string issued = HeadAdmission::TokenDigest("issued-token-abcdefgh");
  auto accepts_issued = [&issued](const std::string& digest) { return SameDigest(digest, issued); };
  EXPECT_FALSE(
      admission.Check(Get("/metrics", {{"host", "x"}, {"authorization", "bearer issued-token-abcdefgh"}}),
                      false, accepts_issued));
}

TEST(HeadAdmissionTest, AllowedHostsNarrowTheNamesATokenAccepts) {
  HeadAdmissionOptions options;
  options.token = "observability-token-123";
  options.allowed_hosts = {"Floe.Internal"};
  HeadAdmission admission(options);
  const std::string bearer = "Bearer observability-token-123";
  EXPECT_FALSE(admission.Check(Get("/", {{"host", "floe.internal.:80"}, {"authorization", bearer}})));
  auto other = admission.Check(Get("/", {{"host", "other.internal"}, {"authorization", bearer}}));
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->status, 400);
}

TEST(HeadAdmissionTest, OriginsMustBeListedAndPreflightsAreAnswered) {
  HeadAdmissionOptions options;
  options.cors_origins = {"https://grafana.example/"};
  HeadAdmission admission(options);
  auto foreign =
      admission.Check(Get("/api/status", {{"host", "127.0.0.1"}, {"origin", "https://evil.example"}}));
  ASSERT_TRUE(foreign.has_value());
  EXPECT_EQ(foreign->status, 403);
  EXPECT_FALSE(
      admission.Check(Get("/api/status", {{"host", "127.0.0.1"}, {"origin", "https://grafana.example"}})));
  HttpRequest preflight = Get("/api/status", {{"host", "127.0.0.1"},
                                              {"origin", "https://grafana.example"},
                                              {"access-control-request-headers", "authorization"}});
  preflight.method = "OPTIONS";
  auto answered = admission.Check(preflight);
  ASSERT_TRUE(answered.has_value());
  EXPECT_EQ(answered->status, 204);
  bool allows_methods = false;
  for (const auto& [name, value] : answered->headers)
    allows_methods |= name == "Access-Control-Allow-Methods";
  EXPECT_TRUE(allows_methods);
}

TEST(HeadAdmissionTest, FormPostsWithoutAuthorizationAreRefused) {
  HeadAdmission admission({});
  HttpRequest post{"POST", "/x", {{"host", "127.0.0.1"}, {"content-type", "text/plain;charset=UTF-8"}}, ""};
  auto refused = admission.Check(post);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 400);
}

TEST(HeadAdmissionTest, TokenTextAndLoopbackNames) {
  EXPECT_FALSE(HeadAdmission::CheckTokenText("short").empty());
  EXPECT_FALSE(HeadAdmission::CheckTokenText("has a space in it here").empty());
  EXPECT_TRUE(HeadAdmission::CheckTokenText("0123456789abcdef").empty());
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("[::1]"));
  EXPECT_FALSE(IsLoopbackHost("127.0.0.1.example"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
}

TEST(HttpServerTest, ParseListenAddress) {
  std::string host;
  int port = -1;
  ASSERT_TRUE(ParseListenAddress("127.0.0.1:0", &host, &port).ok());
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 0);
  ASSERT_TRUE(ParseListenAddress("[::1]:8181", &host, &port).ok());
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 8181);
  EXPECT_FALSE(ParseListenAddress("127.0.0.1", &host, &port).ok());
  EXPECT_FALSE(ParseListenAddress("127.0.0.1:70000", &host, &port).ok());
  EXPECT_FALSE(ParseListenAddress(":80", &host, &port).ok());
}

}  // namespace
}  // namespace floe::http_server
