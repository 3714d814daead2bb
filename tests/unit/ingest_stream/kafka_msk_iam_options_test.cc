// kafka_auth = "aws_msk_iam" as the consumer sees it: SASL_SSL with
// OAUTHBEARER unless [source.kafka] says otherwise, and a token provider
// that signs with the AWS chain's credentials and the region of the
// brokers' MSK host names.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "common/base64.h"
#include "ingest/config/config.h"
#include "ingest/stream/kafka_unit_opener.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

// Sets an environment variable for the test's lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

SourceConfig MskSource() {
  SourceConfig source;
  source.discovery = DiscoveryKind::kKafka;
  source.kafka.bootstrap_servers = "b-1.demo.ab12cd.c2.kafka.ap-south-1.amazonaws.com:9098";
  source.kafka.aws_msk_iam = true;
  source.kafka.properties = {{"ssl.ca.location", "/etc/ssl/msk.pem"}};
  return source;
}

std::string TokenUrl(const kafka::OAuthBearerToken& token) {
  std::string text = token.value;
  for (char& c : text) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (text.size() % 4 != 0) text += '=';
  auto url = Base64Decode(text);
  EXPECT_TRUE(url.ok());
  return url.ok() ? *url : "";
}

TEST(KafkaMskIamOptionsTest, SaslSslOauthBearerAndATokenForTheBrokersRegion) {
  ScopedEnv key("AWS_ACCESS_KEY_ID", "AKIAMSKTEST");
  ScopedEnv secret("AWS_SECRET_ACCESS_KEY", "msk-secret");
  ScopedEnv session("AWS_SESSION_TOKEN", nullptr);
  ScopedEnv region("AWS_REGION", "us-west-2");
  kafka::KafkaConsumerOptions options = KafkaOptionsOf(MskSource(), "floe");
  ASSERT_GE(options.properties.size(), 3u);
  EXPECT_EQ(options.properties[0], (std::pair<std::string, std::string>("security.protocol", "SASL_SSL")));
  EXPECT_EQ(options.properties[1], (std::pair<std::string, std::string>("sasl.mechanism", "OAUTHBEARER")));
  EXPECT_EQ(options.properties[2].first, "ssl.ca.location");
  ASSERT_TRUE(options.oauth_bearer_token);
  ASSERT_OK_AND_ASSIGN(kafka::OAuthBearerToken token, options.oauth_bearer_token());
  const std::string url = TokenUrl(token);
  EXPECT_EQ(url.rfind("https://kafka.ap-south-1.amazonaws.com/?Action=kafka-cluster%3AConnect&", 0), 0u)
      << url;
  EXPECT_NE(url.find("X-Amz-Credential=AKIAMSKTEST%2F"), std::string::npos) << url;
  EXPECT_EQ(url.find("msk-secret"), std::string::npos);
  EXPECT_EQ(token.principal, "AKIAMSKTEST");

  // [source] region wins over the host names.
  SourceConfig explicit_region = MskSource();
  explicit_region.kafka.region = "eu-central-1";
  ASSERT_OK_AND_ASSIGN(token, KafkaOptionsOf(explicit_region, "floe").oauth_bearer_token());
  EXPECT_NE(TokenUrl(token).find("https://kafka.eu-central-1.amazonaws.com/"), std::string::npos);
}

TEST(KafkaMskIamOptionsTest, NoCredentialsIsAClearTokenError) {
  ScopedEnv key("AWS_ACCESS_KEY_ID", nullptr);
  ScopedEnv secret("AWS_SECRET_ACCESS_KEY", nullptr);
  ScopedEnv files("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/floe-test-credentials");
  ScopedEnv config("AWS_CONFIG_FILE", "/nonexistent/floe-test-config");
  kafka::KafkaConsumerOptions options = KafkaOptionsOf(MskSource(), "floe");
  auto token = options.oauth_bearer_token();
  ASSERT_FALSE(token.ok());
  EXPECT_NE(token.status().ToString().find("MSK IAM token"), std::string::npos) << token.status().ToString();
  EXPECT_NE(token.status().ToString().find("needs AWS credentials"), std::string::npos)
      << token.status().ToString();
}

TEST(KafkaMskIamOptionsTest, PlainKafkaHasNoTokenProvider) {
  SourceConfig source = MskSource();
  source.kafka.aws_msk_iam = false;
  kafka::KafkaConsumerOptions options = KafkaOptionsOf(source, "floe");
  EXPECT_FALSE(options.oauth_bearer_token);
  ASSERT_EQ(options.properties.size(), 1u);
}

}  // namespace
}  // namespace floe::ingest
