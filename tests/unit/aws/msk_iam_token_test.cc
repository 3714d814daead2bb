// The MSK IAM token and the query-string signing under it, checked against
// URLs that botocore (AWS's Python SDK core: SigV4QueryAuth, the signer
// aws-msk-iam-sasl-signer-python uses) produced for the same credentials
// and time, and against the S3 documentation's presigned URL example.
#include "aws/msk_iam_token.h"

#include <gtest/gtest.h>

#include <chrono>

#include "common/base64.h"
#include "test_util.h"

namespace floe::aws {
namespace {

std::chrono::system_clock::time_point At(int64_t epoch_seconds) {
  return std::chrono::system_clock::time_point(std::chrono::seconds(epoch_seconds));
}

// base64url (RFC 4648 section 5) without padding, back to bytes.
std::string DecodeUrlUnpadded(std::string text) {
  for (char& c : text) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (text.size() % 4 != 0) text += '=';
  auto decoded = Base64Decode(text);
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  return decoded.ok() ? *decoded : "";
}

TEST(Base64UrlTest, Rfc4648VectorsWithoutPaddingAndTheUrlAlphabet) {
  EXPECT_EQ(Base64UrlEncodeUnpadded(""), "");
  EXPECT_EQ(Base64UrlEncodeUnpadded("f"), "Zg");
  EXPECT_EQ(Base64UrlEncodeUnpadded("fo"), "Zm8");
  EXPECT_EQ(Base64UrlEncodeUnpadded("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlEncodeUnpadded("foob"), "Zm9vYg");
  EXPECT_EQ(Base64UrlEncodeUnpadded("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64UrlEncodeUnpadded("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64Encode("\xfb\xff"), "+/8=");
}

// docs.aws.amazon.com, "Authenticating Requests: Using Query Parameters"
// (the same URL botocore's S3SigV4QueryAuth makes).
TEST(PresignV4Test, S3DocumentationExample) {
  SigV4Request request;
  request.method = "GET";
  request.path = "/test.txt";
  request.headers = {{"Host", "examplebucket.s3.amazonaws.com"}};
  request.payload_hash = std::string(kUnsignedPayload);
  SigV4Scope scope{"us-east-1", "s3", "20130524T000000Z"};
  ASSERT_OK_AND_ASSIGN(
      SigV4Presigned presigned,
      PresignV4(request, {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""}, scope,
                86400));
  // CanonicalQuery sorts the parameters; the documentation's URL lists
  // X-Amz-Signature last.
  EXPECT_EQ(
      CanonicalQuery(presigned.query),
      "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%"
      "2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-Signature="
      "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404&X-Amz-SignedHeaders=host");
  EXPECT_EQ(presigned.query.back().first, "X-Amz-Signature");
}

TEST(PresignV4Test, RefusesADateHeaderAnExpiryOutOfRangeAndAMissingHost) {
  SigV4Request request;
  request.method = "GET";
  request.path = "/";
  request.headers = {{"host", "h"}};
  request.payload_hash = std::string(kEmptyPayloadSha256);
  SigV4Scope scope{"us-east-1", "kafka-cluster", "20130524T000000Z"};
  const SigV4Credentials credentials{"AKID", "SECRET", ""};
  EXPECT_FALSE(PresignV4(request, credentials, scope, 0).ok());
  EXPECT_FALSE(PresignV4(request, credentials, scope, 604801).ok());
  EXPECT_TRUE(PresignV4(request, credentials, scope, 604800).ok());
  request.headers.emplace_back("X-Amz-Date", "20130524T000000Z");
  EXPECT_EQ(PresignV4(request, credentials, scope, 900).status().kind(), ErrorKind::kInvalidArgument);
  request.headers = {};
  EXPECT_EQ(PresignV4(request, credentials, scope, 900).status().kind(), ErrorKind::kInvalidArgument);
}

// botocore 1.43: SigV4QueryAuth(Credentials('AKIAIOSFODNN7EXAMPLE', <the
// documentation's secret>), 'kafka-cluster', 'us-east-1', expires=900) on
// GET https://kafka.us-east-1.amazonaws.com/?Action=kafka-cluster:Connect at
// 2013-05-24T00:00:00Z.
TEST(MskIamTokenTest, SignsLikeAwsSignersAndEncodesTheUrl) {
  ASSERT_OK_AND_ASSIGN(MskIamToken token, MakeMskIamToken({"AKIAIOSFODNN7EXAMPLE",
                                                           "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""},
                                                          "us-east-1", At(1369353600)));
  EXPECT_EQ(
      token.url,
      "https://kafka.us-east-1.amazonaws.com/?Action=kafka-cluster%3AConnect&User-Agent=floe&X-Amz-Algorithm="
      "AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fkafka-cluster%"
      "2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=900&X-Amz-Signature="
      "91dfd7df4606477975aced360713373ff0e77f95940bbd6da22cdb81b852c0fc&X-Amz-SignedHeaders=host");
  EXPECT_EQ(DecodeUrlUnpadded(token.value), token.url);
  EXPECT_EQ(token.value.find('='), std::string::npos);
  EXPECT_EQ(token.expires_at_ms, (1369353600LL + 900) * 1000);
  EXPECT_EQ(token.url.find("wJalrXUtnFEMI"), std::string::npos);
}

// Temporary credentials: the session token is signed too (botocore, the
// same call with Credentials(key, secret, token) at 2026-12-04T23:59:30Z).
TEST(MskIamTokenTest, SignsTheSessionTokenOfTemporaryCredentials) {
  ASSERT_OK_AND_ASSIGN(MskIamToken token, MakeMskIamToken({"ASIAEXAMPLEKEY123456", "s3cr3t/Key+With=Chars",
                                                           "FwoGZXIvYXdzEBYaDH/session+token=="},
                                                          "eu-west-1", At(1796428770)));
  EXPECT_NE(token.url.find("X-Amz-Security-Token=FwoGZXIvYXdzEBYaDH%2Fsession%2Btoken%3D%3D"),
            std::string::npos);
  EXPECT_NE(
      token.url.find("X-Amz-Signature=5d938af766cd03c90b4c74f9ae7805adaf7efce5fe1d937e043b67036d3647a4"),
      std::string::npos)
      << token.url;
  EXPECT_NE(token.url.find("X-Amz-Date=20261204T235930Z"), std::string::npos);
}

TEST(MskIamTokenTest, NeedsCredentialsAndARegion) {
  auto anonymous = MakeMskIamToken({"", "", ""}, "us-east-1", At(0));
  EXPECT_EQ(anonymous.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(anonymous.status().message().find("AWS credentials"), std::string::npos);
  EXPECT_FALSE(MakeMskIamToken({"AKID", "SECRET", ""}, "", At(0)).ok());
}

TEST(MskIamTokenTest, RegionOfMskBrokerAddresses) {
  EXPECT_EQ(MskRegionOfBootstrap("b-1.demo.ab12cd.c2.kafka.eu-west-1.amazonaws.com:9098"), "eu-west-1");
  EXPECT_EQ(
      MskRegionOfBootstrap("b-1.demo.ab12cd.c2.kafka.us-east-1.amazonaws.com:9098,b-2.demo.ab12cd.c2.kafka."
                           "us-east-1.amazonaws.com:9098"),
      "us-east-1");
  EXPECT_EQ(MskRegionOfBootstrap("boot-abc.c1.kafka-serverless.us-east-2.amazonaws.com:9098"), "us-east-2");
  EXPECT_EQ(MskRegionOfBootstrap("127.0.0.1:9092"), std::nullopt);
  EXPECT_EQ(MskRegionOfBootstrap("broker.example.com:9092"), std::nullopt);
  EXPECT_EQ(MskRegionOfBootstrap("s3.us-east-1.amazonaws.com:443"), std::nullopt);
}

}  // namespace
}  // namespace floe::aws
