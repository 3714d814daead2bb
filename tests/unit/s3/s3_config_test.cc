// S3 settings resolution: explicit options > environment > shared AWS files,
// and secrets never printed.
#include "io/s3/s3_config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "io/s3/s3_client.h"
#include "io/s3/s3_file_io.h"
#include "test_util.h"

namespace floe::s3 {
namespace {

class S3ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Write("credentials",
          "# shared credentials\n"
          "[default]\n"
          "aws_access_key_id = AKIDFILEDEFAULT1\n"
          "aws_secret_access_key = file-default-secret\n"
          "\n"
          "[dev]\n"
          "aws_access_key_id=AKIDFILEDEV00002\n"
          "aws_secret_access_key=file-dev-secret\n"
          "aws_session_token = file-dev-token\n");
    Write("config",
          "[default]\n"
          "region = eu-west-1\n"
          "[profile dev]\n"
          "region = ap-south-1\n"
          "endpoint_url = http://127.0.0.1:9000\n"
          "s3 =\n"
          "  addressing_style = virtual\n"
          "[profile config-only]\n"
          "aws_access_key_id = AKIDCONFIGONLY03\n"
          "aws_secret_access_key = config-only-secret\n");
    env_ = {{"AWS_SHARED_CREDENTIALS_FILE", dir_.File("credentials")},
            {"AWS_CONFIG_FILE", dir_.File("config")}};
  }

  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_.File(name)) << text; }

  Result<S3Config> Resolve(const S3Options& options) {
    return ResolveS3Config(options, aws::MapEnvironment(env_));
  }

  floe::testing::TempDir dir_;
  std::map<std::string, std::string> env_;
};

TEST_F(S3ConfigTest, DefaultProfileFromFiles) {
  ASSERT_OK_AND_ASSIGN(S3Config config, Resolve({}));
  EXPECT_EQ(config.access_key_id, "AKIDFILEDEFAULT1");
  EXPECT_EQ(config.secret_access_key, "file-default-secret");
  EXPECT_EQ(config.session_token, "");
  EXPECT_EQ(config.region, "eu-west-1");
  EXPECT_EQ(config.endpoint_scheme, "https");
  EXPECT_EQ(config.endpoint_authority, "s3.eu-west-1.amazonaws.com");
  EXPECT_FALSE(config.path_style);
  EXPECT_NE(config.credential_source.find("profile default"), std::string::npos);
}

TEST_F(S3ConfigTest, EnvironmentBeatsFilesAndOptionsBeatEnvironment) {
  env_["AWS_ACCESS_KEY_ID"] = "AKIDENVIRONMENT4";
  env_["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  env_["AWS_SESSION_TOKEN"] = "env-token";
  env_["AWS_DEFAULT_REGION"] = "us-west-1";
  env_["AWS_ENDPOINT_URL"] = "http://generic.example:1234";
  ASSERT_OK_AND_ASSIGN(S3Config from_env, Resolve({}));
  EXPECT_EQ(from_env.access_key_id, "AKIDENVIRONMENT4");
  EXPECT_EQ(from_env.session_token, "env-token");
  EXPECT_EQ(from_env.credential_source, "environment");
  EXPECT_EQ(from_env.region, "us-west-1");
  EXPECT_EQ(from_env.endpoint_authority, "generic.example:1234");
  EXPECT_TRUE(from_env.path_style) << "custom endpoints default to path-style";

  // AWS_REGION beats AWS_DEFAULT_REGION; the S3-specific endpoint beats the generic one.
  env_["AWS_REGION"] = "us-east-2";
  env_["AWS_ENDPOINT_URL_S3"] = "https://s3.example:8443/";
  ASSERT_OK_AND_ASSIGN(S3Config specific, Resolve({}));
  EXPECT_EQ(specific.region, "us-east-2");
  EXPECT_EQ(specific.endpoint_scheme, "https");
  EXPECT_EQ(specific.endpoint_authority, "s3.example:8443");

  S3Options explicit_options;
  explicit_options.access_key_id = "AKIDOPTIONS00005";
  explicit_options.secret_access_key = "options-secret";
  explicit_options.region = "sa-east-1";
  explicit_options.endpoint = "http://127.0.0.1:4568";
  explicit_options.path_style = false;
  ASSERT_OK_AND_ASSIGN(S3Config from_options, Resolve(explicit_options));
  EXPECT_EQ(from_options.access_key_id, "AKIDOPTIONS00005");
  EXPECT_EQ(from_options.session_token, "") << "the environment's token must not mix with explicit keys";
  EXPECT_EQ(from_options.credential_source, "options");
  EXPECT_EQ(from_options.region, "sa-east-1");
  EXPECT_EQ(from_options.endpoint_authority, "127.0.0.1:4568");
  EXPECT_FALSE(from_options.path_style);
}

TEST_F(S3ConfigTest, ProfileSelection) {
  // AWS_PROFILE picks the profile when no environment keys are set.
  env_["AWS_PROFILE"] = "dev";
  ASSERT_OK_AND_ASSIGN(S3Config dev, Resolve({}));
  EXPECT_EQ(dev.access_key_id, "AKIDFILEDEV00002");
  EXPECT_EQ(dev.session_token, "file-dev-token");
  EXPECT_EQ(dev.region, "ap-south-1");
  EXPECT_EQ(dev.endpoint_authority, "127.0.0.1:9000");
  EXPECT_TRUE(dev.path_style);

  // Environment keys beat AWS_PROFILE ...
  env_["AWS_ACCESS_KEY_ID"] = "AKIDENVIRONMENT4";
  env_["AWS_SECRET_ACCESS_KEY"] = "env-secret";
  ASSERT_OK_AND_ASSIGN(S3Config env_keys, Resolve({}));
  EXPECT_EQ(env_keys.access_key_id, "AKIDENVIRONMENT4");
  // ... but an explicitly chosen profile beats the environment.
  S3Options chosen;
  chosen.profile = "config-only";
  ASSERT_OK_AND_ASSIGN(S3Config config_only, Resolve(chosen));
  EXPECT_EQ(config_only.access_key_id, "AKIDCONFIGONLY03");
  EXPECT_EQ(config_only.region, "us-east-1") << "no region anywhere for that profile";

  chosen.profile = "missing";
  Result<S3Config> missing = Resolve(chosen);
  EXPECT_EQ(missing.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("'missing'"), std::string::npos);
}

TEST_F(S3ConfigTest, NothingConfiguredIsAnonymous) {
  ASSERT_OK_AND_ASSIGN(S3Config config,
                       ResolveS3Config({}, aws::MapEnvironment({{"HOME", dir_.File("nowhere")}})));
  EXPECT_TRUE(config.anonymous());
  EXPECT_EQ(config.credential_source, "none");
  EXPECT_EQ(config.region, "us-east-1");
  // ~/.aws under HOME is the default location.
  std::filesystem::create_directories(dir_.path() / "home/.aws");
  std::filesystem::copy_file(dir_.File("credentials"), dir_.path() / "home/.aws/credentials");
  ASSERT_OK_AND_ASSIGN(S3Config home,
                       ResolveS3Config({}, aws::MapEnvironment({{"HOME", dir_.File("home")}})));
  EXPECT_EQ(home.access_key_id, "AKIDFILEDEFAULT1");
}

TEST_F(S3ConfigTest, InvalidSettingsAreRejected) {
  S3Options half;
  half.access_key_id = "AKIDONLY";
  EXPECT_EQ(Resolve(half).status().kind(), ErrorKind::kInvalidArgument);
  env_["AWS_ACCESS_KEY_ID"] = "AKIDENVONLY";
  EXPECT_EQ(Resolve({}).status().kind(), ErrorKind::kInvalidArgument);
  env_.erase("AWS_ACCESS_KEY_ID");

  S3Options bad_endpoint;
  bad_endpoint.endpoint = "ftp://host";
  EXPECT_EQ(Resolve(bad_endpoint).status().kind(), ErrorKind::kInvalidArgument);
  bad_endpoint.endpoint = "http://host/path";
  EXPECT_EQ(Resolve(bad_endpoint).status().kind(), ErrorKind::kInvalidArgument);
  S3Options small_parts;
  small_parts.multipart_part_size = 1 << 20;
  EXPECT_EQ(Resolve(small_parts).status().kind(), ErrorKind::kInvalidArgument);
  S3Options no_attempts;
  no_attempts.max_attempts = 0;
  EXPECT_EQ(Resolve(no_attempts).status().kind(), ErrorKind::kInvalidArgument);
}

TEST_F(S3ConfigTest, SecretsNeverPrinted) {
  S3Options options;
  options.access_key_id = "AKIAIOSFODNN7EXAMPLE";
  options.secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  options.session_token = "FwoGZXIvYXdzEXAMPLETOKEN";
  ASSERT_OK_AND_ASSIGN(S3Config config, Resolve(options));
  std::string text = config.ToString();
  EXPECT_EQ(text.find("wJalrXUtnFEMI"), std::string::npos) << text;
  EXPECT_EQ(text.find("FwoGZXIvYXdz"), std::string::npos) << text;
  EXPECT_EQ(text.find("AKIAIOSFODNN7"), std::string::npos) << text;
  EXPECT_NE(text.find("MPLE"), std::string::npos) << "last 4 characters identify the key: " << text;
  EXPECT_NE(text.find("<redacted>"), std::string::npos);
  // Tuning keeps no copy of the secrets either.
  EXPECT_TRUE(config.tuning.secret_access_key.empty());
  EXPECT_TRUE(config.tuning.session_token.empty());

  // An error from an unreachable endpoint does not carry them.
  options.endpoint = "http://127.0.0.1:9";  // discard port: connection refused
  options.max_attempts = 1;
  options.connect_timeout_ms = 500;
  ASSERT_OK_AND_ASSIGN(auto io, MakeS3FileIO(options));
  Result<std::unique_ptr<InputFile>> file = io->OpenRead("s3://bucket/key");
  ASSERT_FALSE(file.ok());
  const std::string message = file.status().ToString();
  EXPECT_NE(message.find("S3 HeadObject s3://bucket/key"), std::string::npos) << message;
  EXPECT_EQ(message.find("wJalrXUtnFEMI"), std::string::npos) << message;
  EXPECT_EQ(message.find("FwoGZXIvYXdz"), std::string::npos) << message;
  EXPECT_EQ(message.find("Authorization"), std::string::npos) << message;
}

TEST(AwsIniTest, ParsesSectionsCommentsAndNestedValues) {
  auto ini = aws::ParseAwsIni(
      "key_before_section = ignored\n"
      "[default]\n"
      "  region = nested-ignored\n"
      "region=us-east-1 \n"
      "; comment\n"
      "[profile x]\r\n"
      "output = json\r\n"
      "[broken\n"
      "dangling = 1\n");
  EXPECT_EQ(ini["default"]["region"], "us-east-1");
  EXPECT_EQ(ini["profile x"]["output"], "json");
  EXPECT_EQ(ini.count("broken"), 0u);
  EXPECT_EQ(ini["default"].size(), 1u);
  EXPECT_EQ(aws::RedactAccessKey("AKIAIOSFODNN7EXAMPLE"), "****************MPLE");
  EXPECT_EQ(aws::RedactAccessKey("abc"), "****");
}

TEST(S3ResponseParsingTest, ListResultAndErrors) {
  const std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys>"
      "<IsTruncated>true</IsTruncated><NextContinuationToken>tok+/=</NextContinuationToken>"
      "<Contents><Key>p/a&amp;b &lt;c&gt;</Key><LastModified>2009-10-12T17:50:30.123Z</LastModified>"
      "<ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag><Size>434234</Size></Contents>"
      "<Contents><Key>p/&#233;&#x4E2D;</Key><LastModified>2009-10-12T17:50:30Z</LastModified><Size>0</Size>"
      "</Contents>"
      "<CommonPrefixes><Prefix>p/dir/</Prefix></CommonPrefixes></ListBucketResult>";
  ASSERT_OK_AND_ASSIGN(S3ListPage page, S3Client::ParseListResult(xml));
  ASSERT_EQ(page.objects.size(), 2u);
  EXPECT_EQ(page.objects[0].key, "p/a&b <c>");
  EXPECT_EQ(page.objects[0].size, 434234);
  EXPECT_EQ(page.objects[0].mtime_ms, 1255369830123);
  EXPECT_EQ(page.objects[0].etag, "\"fba9dede5f27731c9771645a39863328\"");
  EXPECT_EQ(page.objects[1].key, "p/\xC3\xA9\xE4\xB8\xAD");
  EXPECT_EQ(page.common_prefixes, std::vector<std::string>{"p/dir/"});
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.next_continuation_token, "tok+/=");

  // encoding-type=url answers are decoded.
  ASSERT_OK_AND_ASSIGN(
      S3ListPage encoded,
      S3Client::ParseListResult(
          "<ListBucketResult><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>"
          "<Contents><Key>a+b%2Fc%25</Key><Size>1</Size></Contents></ListBucketResult>"));
  EXPECT_EQ(encoded.objects[0].key, "a b/c%");

  // Strictness: these are errors, not silently empty listings.
  for (const char* bad : {
           "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",  // no token: would loop
           "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",
           "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>",
           "<ListBucketResult><Contents><Key>k</Key><Size>1</Size></Contents>",
           "<ListBucketResult><Contents><Key>a&bogus;</Key></Contents></ListBucketResult>",
           "<Other/>",
           "<!DOCTYPE x [<!ENTITY a 'b'>]><ListBucketResult/>",
       }) {
    EXPECT_FALSE(S3Client::ParseListResult(bad).ok()) << bad;
  }
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "<a>";
  for (int i = 0; i < 100; ++i) deep += "</a>";
  Result<S3ListPage> too_deep = S3Client::ParseListResult(deep);
  EXPECT_EQ(too_deep.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(too_deep.status().message().find("deeper than 32"), std::string::npos)
      << too_deep.status().ToString();

  EXPECT_EQ(S3Client::DescribeErrorBody("<Error><Code>NoSuchKey</Code><Message>The specified key does not "
                                        "exist.</Message><Key>k</Key></Error>"),
            "NoSuchKey: The specified key does not exist.");
  EXPECT_EQ(S3Client::DescribeErrorBody("not xml"), "");
  ASSERT_OK_AND_ASSIGN(int64_t rfc1123, S3Client::ParseHttpTime("Wed, 12 Oct 2009 17:50:00 GMT"));
  EXPECT_EQ(rfc1123, 1255369800000);
  EXPECT_FALSE(S3Client::ParseHttpTime("yesterday").ok());
}

}  // namespace
}  // namespace floe::s3
