// SigV4 signing of REST catalog requests (SignCatalogRequest) against AWS's
// published vectors: the Signature Version 4 test suite (2015-08-30, service
// "service") and the IAM ListUsers example of the AWS General Reference
// ("Examples of the complete Signature Version 4 signing process"), which
// signs a Content-Type header as catalog requests with a body do.
#include <gtest/gtest.h>

#include "catalog/rest/rest_session.h"
#include "test_util.h"

namespace floe::catalog::rest {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

const aws::SigV4Credentials kSuiteCredentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};

std::string HeaderValue(const Headers& headers, const std::string& name) {
  for (const auto& [n, v] : headers) {
    if (n == name) return v;
  }
  return "";
}

TEST(RestSigV4Test, SuiteVectorGetVanillaQueryOrderKeyCase) {
  Headers headers;
  ASSERT_OK_AND_ASSIGN(
      auto sig,
      SignCatalogRequest("GET", "example.amazonaws.com", "/", {{"Param2", "value2"}, {"Param1", "value1"}},
                         &headers, "", kSuiteCredentials, "us-east-1", "service", "20150830T123600Z"));
  EXPECT_EQ(sig.canonical_request,
            "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sig.signature, "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  EXPECT_EQ(HeaderValue(headers, "Authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  EXPECT_EQ(HeaderValue(headers, "Host"), "example.amazonaws.com");
  EXPECT_EQ(HeaderValue(headers, "X-Amz-Date"), "20150830T123600Z");
}

TEST(RestSigV4Test, SuiteVectorPostVanillaQuery) {
  Headers headers;
  ASSERT_OK_AND_ASSIGN(
      auto sig, SignCatalogRequest("POST", "example.amazonaws.com", "/", {{"Param1", "value1"}}, &headers, "",
                                   kSuiteCredentials, "us-east-1", "service", "20150830T123600Z"));
  EXPECT_EQ(sig.signature, "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11");
}

TEST(RestSigV4Test, IamListUsersExampleSignsContentType) {
  Headers headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
  ASSERT_OK_AND_ASSIGN(auto sig,
                       SignCatalogRequest("GET", "iam.amazonaws.com", "/",
                                          {{"Action", "ListUsers"}, {"Version", "2010-05-08"}}, &headers, "",
                                          kSuiteCredentials, "us-east-1", "iam", "20150830T123600Z"));
  EXPECT_EQ(sig.canonical_request,
            "GET\n/\nAction=ListUsers&Version=2010-05-08\n"
            "content-type:application/x-www-form-urlencoded; charset=utf-8\nhost:iam.amazonaws.com\n"
            "x-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(aws::Sha256Hex(sig.canonical_request),
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
  EXPECT_EQ(sig.signature, "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
}

// Non-S3 services sign the wire path encoded once more: %1F (the namespace
// separator) becomes %251F in the canonical request.
TEST(RestSigV4Test, CatalogPathIsDoubleEncodedAndBearerTokenMoves) {
  Headers headers = {{"Authorization", "Bearer abc"}, {"Content-Type", "application/json"}};
  const std::string body = R"({"requirements":[],"updates":[]})";
  ASSERT_OK_AND_ASSIGN(
      auto sig, SignCatalogRequest("POST", "glue.us-east-1.amazonaws.com",
                                   "/iceberg/v1/catalogs/123/namespaces/a%1Fb/tables/t", {}, &headers, body,
                                   {"AKID", "SECRET", "SESSION"}, "us-east-1", "glue", "20240101T000000Z"));
  const std::string expected_prefix =
      "POST\n/iceberg/v1/catalogs/123/namespaces/a%251Fb/tables/t\n\ncontent-type:application/json\n"
      "host:glue.us-east-1.amazonaws.com\nx-amz-date:20240101T000000Z\nx-amz-security-token:SESSION\n\n"
      "content-type;host;x-amz-date;x-amz-security-token\n";
  EXPECT_EQ(sig.canonical_request, expected_prefix + aws::Sha256Hex(body));
  EXPECT_EQ(HeaderValue(headers, "Original-Authorization"), "Bearer abc");
  EXPECT_EQ(HeaderValue(headers, "X-Amz-Security-Token"), "SESSION");
  EXPECT_NE(HeaderValue(headers, "Authorization").find("/us-east-1/glue/aws4_request"), std::string::npos);
}

}  // namespace
}  // namespace floe::catalog::rest
